"""The sentence cross-encoder's cost a question: the product's runtime (``assistant.store.cross_encoder``)
against the variants it could take, on each question's real evidence sentences.

    python -m evals.bench_cross_encoder [--questions 60] [--rounds 3] [--model PATH ...]

The pairs are the readers' questions (``evals/datasets/ab_written.jsonl``, held out from every fit)
with the sentences of the abstracts evidence reads for them: the answering abstract and the next
ones of the corpus file, ``--sentences`` in all (the product reads 25 on average). Each variant runs
every question in turn, alternated round by round in one process so that load hits them alike; the
figures are the p50 / p90 milliseconds a question and, against the first variant, the largest
difference of a logit.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
DATASETS = ROOT / "datasets"


def question_pairs(n: int, per_question: int) -> list[list[tuple[str, str]]]:
    """Up to ``n`` questions, each with ``per_question`` (question, sentence) pairs."""
    docs = [json.loads(line) for line in (DATASETS / "corpus_sentences.jsonl").read_text(encoding="utf-8").splitlines()]
    where = {d["doc_id"]: i for i, d in enumerate(docs)}
    out = []
    for line in (DATASETS / "ab_written.jsonl").read_text(encoding="utf-8").splitlines()[:n]:
        q = json.loads(line)
        start = where.get((q.get("docs") or [""])[0], 0)
        sents: list[str] = []
        for d in docs[start:] + docs[:start]:
            sents += d["sentences"]
            if len(sents) >= per_question:
                break
        out.append([(q["question"], s) for s in sents[:per_question]])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.bench_cross_encoder", description=__doc__.split("\n")[0])
    ap.add_argument("--questions", type=int, default=60)
    ap.add_argument("--sentences", type=int, default=25)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--model", type=Path, action="append", default=None,
                    help="a model to time (repeatable; default the shipped sentence_ce.onnx)")
    ap.add_argument("--variants", default="0:off",
                    help="runtime variants, comma-separated BATCH:ARENA (0: one batch; on / off: the memory arena)")
    args = ap.parse_args(argv)
    from assistant.store.cross_encoder import CrossEncoder

    models = args.model or [ROOT.parent / "assistant" / "models" / "sentence_ce.onnx"]
    encoders = {}
    for m in models:
        for v in args.variants.split(","):
            batch, arena = v.split(":")
            encoders[f"{m.parent.name}/{m.name} batch {batch} arena {arena}"] = CrossEncoder(m, int(batch), arena == "on")
    qs = question_pairs(args.questions, args.sentences)
    times: dict[str, list[float]] = {k: [] for k in encoders}
    first: dict[str, list[np.ndarray]] = {k: [] for k in encoders}
    for r in range(args.rounds):
        for name, ce in (encoders.items() if r % 2 == 0 else reversed(list(encoders.items()))):
            for pairs in qs:
                t0 = time.perf_counter()
                logits = ce.logits(pairs)
                times[name].append(1000 * (time.perf_counter() - t0))
                if r == 0:
                    first[name].append(logits)
    ref = next(iter(first))
    for name, ms in times.items():
        diff = max(float(np.max(np.abs(a - b))) for a, b in zip(first[name], first[ref], strict=True))
        print(f"{name}: p50 {np.percentile(ms, 50):.1f} ms, p90 {np.percentile(ms, 90):.1f} ms a question"
              f" ({len(qs)} questions x {args.sentences} sentences, {args.rounds} rounds); max logit diff vs first {diff:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
