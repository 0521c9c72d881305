"""A reader's blind A/B judgement of two answer runs (it guides; the locked split judges).

    python -m evals.ab answers --data-dir D --questions Q.jsonl --out RUN.jsonl [--backend extractive]
    python -m evals.ab packet RUN_A.jsonl RUN_B.jsonl --questions Q.jsonl --out PACKET.md --key KEY.json
    python -m evals.ab score KEY.json VERDICTS.jsonl
    python -m evals.ab figures RUN.jsonl --questions Q.jsonl   # words, padding from readers' labels

``answers`` answers each question (JSON lines with ``id``, ``question``, optional ``history`` and
``docs``: the abstracts that answer) with the checkout's code and writes one record per question.
``packet`` writes what the reader sees: per question, the question, the abstract that answers it,
and the two answers with the abstracts they cite, as "Answer 1" and "Answer 2" in an order drawn
by a seeded coin per question (``KEY.json`` holds which is which; the reader never opens it).
The reader writes one JSON line per question (the rubric, ``RUBRIC``) and ``score`` unblinds them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from statistics import mean
from typing import Any

RUBRIC = """For each question write one JSON line:
{"id": "<question id>",
 "a1": {"answers": "yes|partly|no|declined", "unstated": <number of sentences whose claim its cited
        abstract does not state>, "unhelpful": <number of sentences that do not help answer>,
        "score": <1-5>},
 "a2": {... the same for Answer 2 ...},
 "better": "1|2|tie", "note": "<at most 20 words>"}
Score: 5 = answers fully in a sentence or two, every claim stated by its cited abstract, nothing
padded; 4 = answers, minor padding or a needless hedge; 3 = partly answers, or answers buried in
padding; 2 = mostly misses or hedges a plainly answerable question; 1 = wrong, unsupported claim,
or refuses a plainly answerable question. A declined answer to a question whose detail the
abstract does not state is right (score it as an answer that says so)."""


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def answer_args(sub: Any, backend: str) -> None:
    """The ``answers`` subcommand's arguments (here and in evals/support_reader.py)."""
    s = sub.add_parser("answers")
    s.add_argument("--data-dir", type=Path, required=True)
    s.add_argument("--questions", type=Path, required=True)
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--backend", default=backend)


def answers(data_dir: Path, questions: Path, out: Path, backend: str) -> None:
    from assistant import Assistant

    a = Assistant(data_dir=data_dir)
    with out.open("w") as f:
        for r in _rows(questions):
            ans = a.ask(r["question"], history=r.get("history") or [], backend=backend)
            cited = [{"n": c.n, "doc_id": c.doc_id, "text": c.text} for c in ans.citations]
            items = [it.text for it in (ans.items or [])] if getattr(ans, "items", None) else []
            docs = {c.n: c.doc_id for c in ans.citations}
            shown = [{"text": s.text, "docs": [docs.get(n) for n in s.citations], "supported": s.supported}
                     for s in ans.sentences]
            f.write(json.dumps({"id": r["id"], "text": ans.text, "refused": ans.refused, "caveat": ans.caveat,
                                "shape": getattr(ans, "shape", None), "citations": cited, "items": items,
                                "sentences": shown, "words": len(ans.text.split())}) + "\n")


def figures(run: Path, questions: Path) -> dict[str, Any]:
    """Readers' sentence labels read against an answer run: for the labelled one-fact questions
    answered (not refused), the words, the sentences shown, the share of shown sentences that carry
    nothing asked (a sentence no reader marked A or P: background, unrelated, or of an abstract
    that does not answer) and whether an answering sentence (A or P) is shown."""
    from ingest.normalize import normalize_text

    corpus: dict[str, list[str]] = {}
    for path in (Path(__file__).resolve().parent / "datasets" / "corpus_sentences.jsonl",):
        if path.exists():
            corpus.update({r["doc_id"]: r["sentences"] for r in _rows(path)})
    qs = {r["id"]: r for r in _rows(questions)}
    words, count, pad, hit, refused = [], [], [], [], 0
    for r in _rows(run):
        q = qs.get(r["id"])
        if not q or not q.get("labels") or q["shape"] not in ("fact", "followup") or q.get("absent"):
            continue
        if r["refused"]:
            refused += 1
            continue
        good = {normalize_text(sent) for d, lbl in q["labels"].items() for sent, c in zip(corpus.get(d, []), lbl, strict=False) if c in "AP"}
        shown = [s for s in r["sentences"] if s["supported"]]
        if not shown:
            continue
        ok = [normalize_text(s["text"]) in good for s in shown]
        words.append(r["words"])
        count.append(len(shown))
        pad.append(1 - sum(ok) / len(ok))
        hit.append(any(ok))
    n = len(words)
    return {"questions": n, "refused": refused, "median_words": sorted(words)[n // 2] if n else None,
            "mean_sentences": round(mean(count), 2) if n else None, "padding": round(mean(pad), 3) if n else None,
            "answered": round(mean(hit), 3) if n else None}


def packet(run_a: Path, run_b: Path, questions: Path, out: Path, key: Path, corpus: Path, seed: int) -> None:
    qs = {r["id"]: r for r in _rows(questions)}
    ra, rb = {r["id"]: r for r in _rows(run_a)}, {r["id"]: r for r in _rows(run_b)}
    texts = {r["doc_id"]: " ".join(r["sentences"]) for r in _rows(corpus)} if corpus else {}
    rng = random.Random(seed)
    order: dict[str, list[str]] = {}
    parts = ["# Blind A/B packet\n", RUBRIC, ""]
    for qid in [q for q in qs if q in ra and q in rb]:
        q = qs[qid]
        pair = ["A", "B"]
        rng.shuffle(pair)
        order[qid] = pair
        parts.append(f"\n## {qid}\n**Question:** {q['question']}")
        if q.get("history"):
            parts.append("**Earlier turns:** " + " | ".join(f"{h['role']}: {h['content']}" for h in q["history"]))
        for d in q.get("docs") or []:
            if d in texts:
                parts.append(f"**An abstract that answers it ({d}):** {texts[d]}")
        for n, side in enumerate(pair, 1):
            r = (ra if side == "A" else rb)[qid]
            parts.append(f"\n### Answer {n}\n{r['text']}")
            for c in r["citations"]:
                parts.append(f"- [{c['n']}] {c['text']}")
    out.write_text("\n".join(parts) + "\n")
    key.write_text(json.dumps({"run_a": str(run_a), "run_b": str(run_b), "seed": seed, "order": order}, indent=1))


def score(key: Path, verdicts: Path) -> dict[str, Any]:
    k = json.loads(key.read_text())
    side: dict[str, dict[str, list[Any]]] = {"A": {}, "B": {}}
    wins = {"A": 0, "B": 0, "tie": 0}
    for v in _rows(verdicts):
        pair = k["order"].get(v["id"])
        if not pair:
            continue
        for n, s in enumerate(pair, 1):
            for field, value in v[f"a{n}"].items():
                side[s].setdefault(field, []).append(value)
        wins["tie" if v["better"] == "tie" else pair[int(v["better"]) - 1]] += 1
    summary: dict[str, Any] = {"questions": sum(wins.values()), "prefers": wins}
    for s in ("A", "B"):
        f = side[s]
        if not f:
            continue
        summary[s] = {"run": k[f"run_{s.lower()}"], "score": round(mean(f["score"]), 2),
                      "answers_yes": f["answers"].count("yes"), "partly": f["answers"].count("partly"),
                      "no": f["answers"].count("no"), "declined": f["answers"].count("declined"),
                      "unstated": sum(f["unstated"]), "unhelpful": sum(f["unhelpful"])}
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.ab", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    answer_args(sub, "extractive")
    s = sub.add_parser("packet")
    s.add_argument("run_a", type=Path)
    s.add_argument("run_b", type=Path)
    s.add_argument("--questions", type=Path, required=True)
    s.add_argument("--corpus", type=Path, help="JSON lines of doc_id and sentences, for the abstract that answers")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--key", type=Path, required=True)
    s.add_argument("--seed", type=int, default=39)
    s = sub.add_parser("figures")
    s.add_argument("run", type=Path)
    s.add_argument("--questions", type=Path, required=True)
    s = sub.add_parser("score")
    s.add_argument("key", type=Path)
    s.add_argument("verdicts", type=Path)
    args = p.parse_args(argv)
    if args.cmd == "answers":
        answers(args.data_dir, args.questions, args.out, args.backend)
    elif args.cmd == "packet":
        packet(args.run_a, args.run_b, args.questions, args.out, args.key, args.corpus, args.seed)
    elif args.cmd == "figures":
        print(json.dumps(figures(args.run, args.questions), indent=1))
    else:
        print(json.dumps(score(args.key, args.verdicts), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
