"""A reader's verdict on the support check: is each sentence's claim stated by the abstract it cites?

    python -m evals.support_reader answers --data-dir D --questions Q.jsonl --out RUN.jsonl [--backend local]
    python -m evals.support_reader packet RUN.jsonl --out PACKET.md --key KEY.json
    python -m evals.support_reader score KEY.json VERDICTS.jsonl
    python -m evals.support_reader recheck RUN.jsonl --data-dir D --out RUN2.jsonl

``answers`` asks each question with the checkout's code and keeps, beside the answer, what the model
wrote before the check (``raw``, with the abstracts it was given): every sentence the model wrote,
with the abstracts it cited, and whether the check marked it supported. ``packet`` writes, per
sentence that cites an abstract, the sentence and the full text of what it cites, and nothing of the
check's verdict (the reader judges blind; ``KEY.json`` holds the verdicts). The reader writes one
JSON line per sentence (``RUBRIC``); ``score`` unblinds: sentences shown as checked whose claim the
reader says the abstract does not state (the worst outcome of the product), and the stated
sentences the check dropped. ``recheck`` runs another checkout's check over the same model text, so
one reader's labels judge the check before and after a change.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from evals.ab import _rows, answer_args

RUBRIC = """For each sentence write one JSON line:
{"id": "<sentence id>", "stated": "yes|partly|no",
 "why": "<when not yes: another work's result | renamed method | changed number | comparison not stated |
          reversed direction | over-general | detail the abstract lacks | other>", "note": "<at most 15 words>"}
"yes": every claim of the sentence is stated by the cited abstract(s), in other words allowed;
"partly": its main claim is stated but a detail is not; "no": its main claim is not stated, or is
contradicted. Judge only against the cited abstracts' text, not what you know of the papers."""


def answers(data_dir: Path, questions: Path, out: Path, backend: str) -> None:
    from assistant import Assistant
    from assistant.engine import AnswerEngine

    seen: list[tuple[str, list[dict[str, str]]]] = []
    original = AnswerEngine._verified

    def recording(self: AnswerEngine, base: Any, hits: Any, raw: str) -> Any:
        seen.append((raw, [{"doc_id": d.doc_id, "text": d.original} for d, _ in hits]))
        return original(self, base, hits, raw)

    AnswerEngine._verified = recording  # type: ignore[method-assign]
    a = Assistant(data_dir=data_dir)
    with out.open("w") as f:
        for r in _rows(questions):
            seen.clear()
            ans = a.ask(r["question"], history=r.get("history") or [], backend=backend)
            raw, sources = seen[-1] if seen else ("", [])
            f.write(json.dumps({"id": r["id"], "question": r["question"], "backend": ans.backend,
                                "refused": ans.refused, "text": ans.text, "raw": raw, "sources": sources,
                                "sentences": [{"text": s.text, "supported": s.supported, "reason": s.reason}
                                              for s in ans.sentences]}) + "\n")
            f.flush()


def recheck(run: Path, data_dir: Path, out: Path) -> None:
    """The checkout's check over each record's model text and abstracts (the same verifier call as
    ``AnswerEngine._verified``)."""
    from assistant import Assistant
    from assistant.verify.citations import Verifier

    engine = Assistant(data_dir=data_dir).engine
    with out.open("w") as f:
        for r in _rows(run):
            if r["raw"]:
                v = Verifier([s["text"] for s in r["sources"]], engine.cache, engine.idf(), engine.settings.verify)
                result = v.verify(r["raw"])
                r["sentences"] = [{"text": s.text, "supported": s.supported, "reason": s.reason,
                                   "docs": [r["sources"][result.order[n - 1]]["doc_id"] for n in s.citations]}
                                  for s in result.sentences]
            f.write(json.dumps(r) + "\n")


def _judged(r: dict[str, Any], lead: bool = False) -> list[tuple[str, list[str], bool]]:
    """(sentence, abstracts the model cited, marked supported) for each sentence of the model's text;
    with ``lead``, only a "lead" answer's first sentence (the one the model wrote; the quotes under it
    are the abstracts' own), also where the check dropped it and the answer fell back."""
    from assistant.verify.markers import parse_markers, split_answer, strip_markers

    if not r.get("raw") or ("extractive" in r.get("backend", "") and not lead):  # quotes of a fallback are not the model's
        return []
    ids = [s["doc_id"] for s in r["sources"]]
    raws = [x for x in split_answer(r["raw"]) if strip_markers(x).strip()][: 1 if lead else None]
    verdict = {s["text"]: s["supported"] for s in r["sentences"]}
    out = []
    for x in raws:
        docs = [ids[n - 1] for n in dict.fromkeys(parse_markers(x)) if 1 <= n <= len(ids)]
        claim = strip_markers(x)
        if docs and claim in verdict:
            out.append((claim, docs, verdict[claim]))
    return out


def packet(run: Path, out: Path, key: Path, lead: bool = False) -> int:
    rows = _rows(run)
    texts = {s["doc_id"]: s["text"] for r in rows for s in r.get("sources", [])}
    parts = ["# Support check, reader's packet\n", RUBRIC, ""]
    verdicts: dict[str, bool] = {}
    for r in rows:
        for k, (claim, docs, ok) in enumerate(_judged(r, lead)):
            sid = f"{r['id']}:{k}"
            verdicts[sid] = ok
            parts.append(f"\n## {sid}\n**Question:** {r['question']}\n**Sentence:** {claim}")
            parts.extend(f"**Cited abstract ({d}):** {texts[d]}" for d in docs)
    out.write_text("\n".join(parts) + "\n")
    key.write_text(json.dumps({"run": str(run), "supported": verdicts}, indent=1))
    return len(verdicts)


def score(key: Path, verdicts: Path) -> dict[str, Any]:
    marked = json.loads(key.read_text())["supported"]
    seen = [(v, marked[v["id"]]) for v in _rows(verdicts) if v["id"] in marked]
    shown_wrong = [v for v, ok in seen if ok and v["stated"] == "no"]
    shown_partly = [v for v, ok in seen if ok and v["stated"] == "partly"]
    stated = [(v, ok) for v, ok in seen if v["stated"] == "yes"]
    why = Counter(v.get("why") or "other" for v in shown_wrong)
    return {"sentences": len(seen), "shown_as_checked": sum(ok for _, ok in seen),
            "shown_as_checked_not_stated": len(shown_wrong), "shown_as_checked_partly": len(shown_partly),
            "not_stated_dropped": sum(1 for v, ok in seen if not ok and v["stated"] == "no"),
            "stated_kept": f"{sum(ok for _, ok in stated)} of {len(stated)}", "why_not_stated_shown": dict(why),
            "shown_wrong_ids": [v["id"] for v in shown_wrong]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.support_reader", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    answer_args(sub, "local")
    s = sub.add_parser("recheck")
    s.add_argument("run", type=Path)
    s.add_argument("--data-dir", type=Path, required=True)
    s.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("packet")
    s.add_argument("run", type=Path)
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--key", type=Path, required=True)
    s.add_argument("--lead", action="store_true", help='only the "lead" sentence of each answer')
    s = sub.add_parser("score")
    s.add_argument("key", type=Path)
    s.add_argument("verdicts", type=Path)
    args = p.parse_args(argv)
    if args.cmd == "answers":
        answers(args.data_dir, args.questions, args.out, args.backend)
    elif args.cmd == "recheck":
        recheck(args.run, args.data_dir, args.out)
    elif args.cmd == "packet":
        print(packet(args.run, args.out, args.key, args.lead), "sentences")
    else:
        print(json.dumps(score(args.key, args.verdicts), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
