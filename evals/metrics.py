"""Retrieval and answer metrics.

Recall@k and MRR@k are LlamaIndex's (``llama_index.core.evaluation.retrieval.metrics`` ``Recall``, ``MRR``), fed
the top-k ids; they raise on an empty result list, which we score 0 instead.

nDCG@k is written here: LlamaIndex's ``NDCG`` sums the ideal DCG over *all* expected ids instead
of the first min(|expected|, k), so a query with more than k relevant documents can never reach
1.0 (and its figures stop matching BEIR / pytrec_eval, the definition the SciFact numbers in the
literature use). With |expected| <= k the two agree (tests/test_eval.py checks it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from llama_index.core.evaluation.retrieval.metrics import MRR, Recall

K_VALUES = (1, 5, 10)


def recall_at_k(expected: Iterable[str], retrieved: Sequence[str], k: int) -> float:
    exp, top = list(dict.fromkeys(expected)), list(retrieved[:k])
    if not exp or not top:
        return 0.0
    return Recall().compute(expected_ids=exp, retrieved_ids=top).score


def mrr_at_k(expected: Iterable[str], retrieved: Sequence[str], k: int = 10) -> float:
    exp, top = list(dict.fromkeys(expected)), list(retrieved[:k])
    if not exp or not top:
        return 0.0
    return MRR().compute(expected_ids=exp, retrieved_ids=top).score


def ndcg_at_k(expected: Iterable[str], retrieved: Sequence[str], k: int = 10) -> float:
    """Binary-relevance nDCG@k with the ideal DCG over min(|expected|, k) positions (BEIR's)."""
    exp = set(expected)
    if not exp:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(retrieved[:k]) if d in exp)
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(exp), k)))
    return dcg / idcg


def retrieval_scores(expected: Iterable[str], retrieved: Sequence[str]) -> dict[str, float]:
    exp = list(dict.fromkeys(expected))
    out = {f"recall@{k}": recall_at_k(exp, retrieved, k) for k in K_VALUES}
    out["mrr@10"] = mrr_at_k(exp, retrieved, 10)
    out["ndcg@10"] = ndcg_at_k(exp, retrieved, 10)
    return out


def mean(values: Iterable[float]) -> float:
    vals = list(values)
    return sum(vals) / len(vals) if vals else float("nan")


def percentile(values: Iterable[float], p: float) -> float:
    """Linear-interpolated percentile (numpy's default), p in 0..100."""
    vals = sorted(values)
    if not vals:
        return float("nan")
    pos = (len(vals) - 1) * p / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return vals[lo] + (vals[hi] - vals[lo]) * (pos - lo)


def ratio(num: float, den: float) -> float:
    return num / den if den else float("nan")


def key_point_coverage(answer_text: str, key_points: Sequence[str]) -> float:
    """Share of key points found, case-insensitively, in the answer text."""
    if not key_points:
        return float("nan")
    low = answer_text.lower()
    return sum(1 for p in key_points if p.lower() in low) / len(key_points)


def slope_per_1000(rss: dict[int, float]) -> float | None:
    """Least-squares slope of RSS (MiB by questions answered) over the second half of the run, in %
    of the value at its start per 1,000 questions; None with fewer than two points."""
    last = max(rss, default=0)
    pts = [(n, v) for n, v in sorted(rss.items()) if n >= last / 2]
    if len(pts) < 2:
        return None
    mx, my = sum(n for n, _ in pts) / len(pts), sum(v for _, v in pts) / len(pts)
    b = sum((n - mx) * (v - my) for n, v in pts) / sum((n - mx) ** 2 for n, _ in pts)
    return 100 * b * 1000 / pts[0][1]
