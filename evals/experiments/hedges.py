"""Which caveat hedges a right answer, and on what trigger (issue 19), read from eval runs.

``python -m evals.experiments.hedges RUN_DIR [RUN_DIR ...] [--show N]`` reads each run's ``results.json``
(``assistant eval``: per-question records hold the caveat kind, the caveat's text and the answer's
supported sentences, ``said``) and tabulates, by caveat kind:

- **right**: answerable questions hedged whose first cited work is gold (a caveat on a right answer);
- **wrong**: answerable questions hedged whose first cited work is not gold (an earned caveat);
- **unanswerable** and **loo**: unanswerable questions and leave-one-out answers caught by that kind.

For each hedge it names the trigger as the engine's checks read it again on the same sentences:
the asked-for item (``assistant.verify.focus``: its phrase, and which part failed: the head, the count,
the value, the identification, the bearer), the figure (``extractive.quantity_unstated``: which
kind of figure was asked for), a name no source mentions, or the decision's weak match (the words
its caveat names). No constant; a reading aid for the diagnosis, not a judge.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from assistant.compose import extractive as ex
from assistant.verify import focus as fo


def item_trigger(question: str, said: str) -> str:
    """The asked-for item check's failing part, as ``focus.stated`` reads it on ``said``."""
    f = fo.focus(question)
    if f is None:
        return "no focus now"
    held = set(fo.terms(said))
    head_held = bool(f.head) and (
        all(t in held for t in fo.terms(f.head))
        or any(fo.mentioned(n, said) for n in fo.names(f.phrase))
    )
    if f.head and not head_held:
        part = f"head '{f.head}' unstated"
    elif not f.head and not any(t in held for w in f.words for t in fo.terms(w)):
        part = f"words {f.words} unstated"
    elif not fo._counted(f, said):
        part = "count: no number before the unit"
    elif not fo._valued(f, said):
        part = "value: no number beside the measure noun"
    elif not fo._identified(f, said, question):
        part = "identification: no name or new premodifier"
    else:
        part = "bearer: the sources naming the question's name do not state it"
    flags = "".join(
        c for c, on in (("Q", f.quantity), ("W", f.which), ("V", f.value), ("I", f.instance)) if on
    )
    return f"phrase '{f.phrase}' [{flags}] {part}"


def figure_trigger(question: str) -> str:
    if ex._ASKS_RATE.search(question):
        return f"rate asked ({ex._ASKS_RATE.search(question).group(0)!r})"
    if ex._ASKS_LENGTH.search(question):
        return f"length asked ({ex._ASKS_LENGTH.search(question).group(0)!r})"
    m = ex._ASKS_QUANTITY.search(question)
    return f"number asked ({m.group(0)!r})" if m else "no quantity asked now"


def trigger(question: str, a: dict[str, Any]) -> str:
    kind, text, said = a.get("caveat_kind") or "", a.get("answer") or "", a.get("said") or ""
    if kind == "asked_item":
        return item_trigger(question, said)
    if kind == "figure":
        return figure_trigger(question)
    if kind == "missing_name":
        m = re.search(r"mentions (.+?)[;.]", text)
        return f"missing {m.group(1) if m else '?'}"
    if kind == "weak_match":
        m = re.search(r"do not mention (.+?)\.", text)
        return f"relevance below the caveat bar; names {m.group(1) if m else 'nothing'}"
    return kind or "refused"


def rows(results: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(group, id, question, answer record) of every hedge or catch."""
    out = []
    for rec in results.get("per_question", []):
        q, a, loo = rec["question"], rec.get("answer") or {}, rec.get("loo")
        if rec["type"] == "unanswerable":
            if a.get("refused") or a.get("caveated"):
                out.append(("unanswerable", rec["id"], q, a))
            else:
                out.append(("unanswerable missed", rec["id"], q, a))
        elif a.get("caveated"):
            out.append(("right" if a.get("first_cited_gold") else "wrong", rec["id"], q, a))
        if loo and (loo.get("refused") or loo.get("caveated")):
            out.append(("loo", rec["id"], q, loo))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument(
        "--show",
        default="right,wrong,unanswerable,unanswerable missed",
        help="groups whose hedges are printed one by one",
    )
    args = ap.parse_args(argv)
    show = set(args.show.split(",")) if args.show else set()
    for run in args.runs:
        res = json.loads(
            (run / "results.json" if run.is_dir() else run).read_text(encoding="utf-8")
        )
        table: dict[str, Counter] = defaultdict(Counter)
        print(f"## {run}")
        for group, qid, q, a in rows(res):
            kind = a.get("caveat_kind") or ("refused" if a.get("refused") else "plain")
            table[group][kind] += 1
            if group in show:
                print(
                    f"  [{group}] {qid} {kind}: {q}\n      trigger: {trigger(q, a) if kind != 'plain' else '-'}"
                )
        for group, c in sorted(table.items()):
            print(f"  {group:20s} " + ", ".join(f"{k} {v}" for k, v in c.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
