"""Re-ask extraction on every row of the decline cache (evals/declines.py) with today's code.

The cache mixes rows asked at different commits; extraction's caveat rules (assistant/verify/focus.py) move
between them, and the fit compares a heard decline (always a hedge) with extraction's answer on the
same question, so a stale extractive state misjudges every rule. The model is not asked again: a
decline heard is a hedge whatever the code, and a decline overruled is extraction's answer, which
this refreshes. Each row's ``extractive`` state is replaced; ``extractive_at`` records the commit
(and ``+dirty`` when assistant/ had uncommitted changes); the decision's outcome / relevance is
compared with the cached one and the changes counted (they would make the cached decline stale).
Each row also gets ``checks``: what the checks (assistant/verify/focus.py, extractive.unstated) find on
the statements a decline would quote (``checks``; issue #20, session 13; the probe that read them,
``declines_checks``, is retired: evals/experiments/INDEX.md)::

    python -m evals.declines_refresh --data-dir D [--cache evals/fits/declines_cache.jsonl]
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any

from evals.declines import CACHE, LOO, ROOT, SETS, extractive_state, key, sample


def commit() -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "assistant"], cwd=ROOT).returncode != 0
    return head + ("+dirty" if dirty else "")


def checks(assistant: Any, text: str, exclude: set[str] | None) -> dict[str, Any]:
    """What the checks find missing in the statements a heard decline quotes (the engine's
    ``_extractive(..., model_declined=True)``, the same path): the asked-for item unstated
    (``focus.unstated_focus``; ``has_focus``: the question has an item at all), the question's noun-phrase words the statements do not mention (``unstated``
    uncapped: every such word the collection uses; ``nominal``: how many such words the question
    has), the names no source mentions, and the decline's caveat as the product writes it."""
    from assistant.compose.answer_text import cited_parts
    from assistant.compose.extractive import unstated
    from assistant.types import Answer
    from assistant.verify.focus import focus, nominal, unstated_focus

    engine = assistant.engine
    turn = engine.analyze(text, assistant.settings.top_k, exclude)
    d = turn.decision
    if d is None or turn.evidence is None or d.outcome == "refuse":
        return {"quoted": False}
    ans = engine._extractive(Answer(question=text, text=""), turn, model_declined=True)
    said = " ".join(s.text for s in ans.sentences if s.supported)
    item = unstated_focus(turn.asked, said, cited_parts(ans.sentences))
    nouns = nominal(turn.asked)
    idf = engine.idf()
    words = unstated(turn.asked, said, idf, n=99, nouns=nouns)
    usable = unstated(turn.asked, "", idf, n=99, nouns=nouns)  # the nominal words the collection uses
    return {"quoted": True, "has_focus": focus(turn.asked) is not None, "item_unstated": item is not None,
            "item": item.phrase if item else "",
            "unstated": words, "nominal": len(usable), "missing": list(d.missing),
            "caveat": ans.caveat, "sentences": sum(s.supported for s in ans.sentences)}


def refresh(assistant: Any, rows: list[dict[str, Any]], at: str) -> dict[str, int]:
    """Replace each row's extractive state in place; count what moved."""
    docs = assistant.retriever.docs()
    questions = {key(n, q.id, loo, 0).rsplit(":", 1)[0]: q for n, q, loo in sample(docs, SETS, LOO)}
    moved = {"rows": 0, "missing": 0, "extractive_changed": 0, "decision_changed": 0}
    for r in rows:
        q = questions.get(r["key"].rsplit(":", 1)[0])
        if q is None:
            moved["missing"] += 1
            continue
        exclude = set(q.gold) if r["loo"] else None
        d = assistant.engine.analyze(q.text, assistant.settings.top_k, exclude).decision
        outcome, rel = (d.outcome, round(d.relevance, 4)) if d else ("refuse", 0.0)
        moved["decision_changed"] += (outcome, rel) != (r["outcome"], r["relevance"])
        new = extractive_state(assistant.ask(q.text, backend="extractive", exclude=exclude), q.gold, docs)
        hedge = ("refused", "caveated", "caveat_kind")
        moved["extractive_changed"] += any(new[h] != r["extractive"].get(h) for h in hedge)
        r["extractive"], r["extractive_at"], r["checks"] = new, at, checks(assistant, q.text, exclude)
        moved["rows"] += 1
    return moved


def main(argv: list[str] | None = None) -> None:
    from assistant import Assistant

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--cache", default=str(CACHE))
    args = ap.parse_args(argv)
    cache = Path(args.cache)
    rows = [json.loads(line) for line in cache.read_text().splitlines() if line.strip()]
    assistant = Assistant(data_dir=args.data_dir)
    if not assistant.retriever.docs():  # an empty index would rewrite every row as refused
        raise SystemExit(f"{args.data_dir}: no abstracts indexed; run `assistant ingest --data-dir {args.data_dir}` first")
    moved = refresh(assistant, rows, commit())
    tmp = cache.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(cache)
    print(json.dumps(moved))


if __name__ == "__main__":
    main()
