"""The "pick" design's candidate pool (``prompts.designs``: the model names which candidates answer),
the learned scorer's likeliest sentences (``SentenceScorer.ranked``), on reader-labelled questions.
The hand-written pool it replaced (``compose.extractive.choose``) was measured by this script at
b582fc0 (docs/learned.md, "The pick design's pool").

    python -m evals.pick_pool [--data-dir D] [--answerable 400]

The questions: the answerable one-fact questions of the bundled corpus in ``evals.caveat_rules``'s
set (``questions_written`` W1-W3, a seeded sample, and all of ``ab_written``, W5, held out from every
fit), each read as ``AnswerEngine.analyze`` reads it. Per pool size (``pick_candidates`` and one fewer): how
often it holds a sentence a reader marked as answering (A or P), with a bootstrap 95% interval; the
share of its sentences that answer; how often its first sentence answers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent


def _interval(x: np.ndarray, seed: int = 29) -> list[float]:
    rng = np.random.default_rng(seed)
    boots = [float(x[rng.integers(0, len(x), len(x))].mean()) for _ in range(2000)]
    return [round(float(np.percentile(boots, q)), 3) for q in (2.5, 97.5)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.pick_pool", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=ROOT / "runs" / "_cache" / "sentences-bundled")
    ap.add_argument("--answerable", type=int, default=400)
    args = ap.parse_args(argv)
    from assistant import Assistant
    from assistant.evidence.scorer import scorer
    from evals.caveat_rules import questions
    from ingest.normalize import normalize_text

    corpus = {}
    for line in (ROOT / "datasets" / "corpus_sentences.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        corpus[r["doc_id"]] = r["sentences"]
    qs = [q for q in questions(args.answerable) if q.get("corpus", "bundled") == "bundled" and not q.get("absent")]
    a = Assistant(data_dir=args.data_dir, backend="extractive")
    n = a.settings.prompts.pick_candidates
    rows: dict[str, list[tuple[bool, float, bool, int, str]]] = {f"learned {n}": [], f"learned {n - 1}": []}
    for q in qs:
        good = {normalize_text(s) for d, lbl in (q.get("labels") or {}).items()
                for s, c in zip(corpus.get(d, []), lbl, strict=False) if c in "AP"}
        if not good:
            continue
        turn = a.engine.analyze(q["question"], 5, history=q.get("history") or [])
        if turn.evidence is None or not turn.evidence.sentences:
            continue
        pools = {f"learned {n}": scorer().ranked(turn.evidence, n), f"learned {n - 1}": scorer().ranked(turn.evidence, n - 1)}
        for name, pool in pools.items():
            ok = [normalize_text(s.text) in good for s in pool]
            rows[name].append((any(ok), sum(ok) / max(len(ok), 1), bool(ok and ok[0]), len(pool), q["id"].split("-")[0]))
    report: dict[str, Any] = {}
    for name, rs in rows.items():
        held = np.array([r[0] for r in rs], float)
        report[name] = {"questions": len(rs), "holds_answer": round(float(held.mean()), 3), "ci95": _interval(held),
                        "share_answering": round(float(np.mean([r[1] for r in rs])), 3),
                        "first_answers": round(float(np.mean([r[2] for r in rs])), 3),
                        "size": round(float(np.mean([r[3] for r in rs])), 2),
                        "by_batch": {b: round(float(np.mean([r[0] for r in rs if r[4] == b])), 3) for b in sorted({r[4] for r in rs})}}
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
