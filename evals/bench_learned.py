"""The learned parts' cost a question, in the product: the shape reader
(``assistant.question.shape_learned``) and the sentence scorer over a question's real evidence
(``assistant.evidence.scorer``: the cascade that reads the logistic's first ``reads`` sentences
with the cross-encoder, against the same scorer reading every sentence).

    python -m evals.bench_learned --data-dir D [--questions 90] [--rounds 3]

The questions are the readers' held-out batch (``evals/datasets/ab_written.jsonl``); ``D`` is a data
directory holding the bundled corpus (ingested on first use). Each question's evidence is built once
as ``AnswerEngine.analyze`` builds it; the variants are then timed on it, alternated round by round in
one process. The figures are p50 / p90 milliseconds a question, the sentences the cross-encoder
read, and how many questions' shown sentences (``SentenceScorer.pick``) differ from reading all.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.bench_learned", description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--questions", type=int, default=90)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    from assistant import Assistant
    from assistant.evidence.scorer import scorer
    from assistant.question.shape_learned import reader

    a = Assistant(data_dir=args.data_dir)
    if not a.stats().get("abstracts"):
        a.ingest()
    lines = (ROOT / "datasets" / "ab_written.jsonl").read_text(encoding="utf-8").splitlines()[: args.questions]
    questions = [json.loads(line) for line in lines]
    turns = [a.engine.analyze(q["question"], 5, history=q.get("history") or []) for q in questions]
    evidence = [t.evidence for t in turns if t.evidence is not None and t.evidence.sentences]
    shipped = scorer()
    variants = {f"scorer, cascade of {shipped.reads}": shipped,
                "scorer, every sentence": dataclasses.replace(shipped, reads=0)}
    shapes = reader()
    times: dict[str, list[float]] = {"shape reader": [], **{k: [] for k in variants}}
    shown: dict[str, list[list[str]]] = {k: [] for k in variants}
    for r in range(args.rounds):
        for q in questions:
            t0 = time.perf_counter()
            shapes.kind(q["question"], bool(q.get("history")))
            times["shape reader"].append(1000 * (time.perf_counter() - t0))
        for name, s in (variants.items() if r % 2 == 0 else reversed(list(variants.items()))):
            for ev in evidence:
                t0 = time.perf_counter()
                p = s.probabilities(ev)
                times[name].append(1000 * (time.perf_counter() - t0))
                if r == 0:
                    shown[name].append([x.text for x in s.pick(ev, p)])
    sentences = [len(ev.sentences) for ev in evidence]
    print(f"{len(evidence)} questions with evidence, {np.mean(sentences):.1f} sentences each "
          f"(the cascade reads {shipped.reads or 'all'}); {args.rounds} rounds")
    ref = shown["scorer, every sentence"]
    for name, ms in times.items():
        diff = f"; shown differs from every sentence on {sum(x != y for x, y in zip(shown[name], ref, strict=True))}" \
            if name in shown else ""
        print(f"{name}: p50 {np.percentile(ms, 50):.1f} ms, p90 {np.percentile(ms, 90):.1f} ms a question{diff}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
