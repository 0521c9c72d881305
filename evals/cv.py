"""The cross-validation machinery of ``evals.fit``: folds, per-fold choice, the refit's
one-standard-error rule, group means, the logistic fit and the decision thresholds."""

from __future__ import annotations

import math
import random
import statistics
from typing import Any

import numpy as np

SEED = 13  # fixed shuffle of the folds: a refit on the same data chooses the same


def folds(items: list[Any], k: int) -> list[list[int]]:
    """Indices split into k folds, stratified by tuning set, seeded."""
    by_set: dict[str, list[int]] = {}
    for i, q in enumerate(items):
        by_set.setdefault(q.raw.get("_set", ""), []).append(i)
    out: list[list[int]] = [[] for _ in range(k)]
    rng = random.Random(SEED)
    for idx in by_set.values():
        rng.shuffle(idx)
        for j, i in enumerate(idx):
            out[j % k].append(i)
    return out


def cv(items: list[Any], configs: list[Any], score: Any, k: int) -> tuple[list[float], list[Any]]:
    """For each fold: the config with the best score on the other folds, and its held-out score.
    ``score(config, indices) -> float``."""
    held, chosen = [], []
    parts = folds(items, k)
    for f in range(k):
        train = [i for g, p in enumerate(parts) if g != f for i in p]
        best = max(configs, key=lambda c: score(c, train))
        chosen.append(best)
        held.append(score(best, parts[f]))
    return held, chosen


def settle(configs: list[Any], current: Any, score: Any, held: list[float], n: int) -> tuple[Any, dict[str, Any]]:
    """The refit's choice: the best config on all tuning data, unless the current setting scores
    within one standard error (of the held-out fold scores) of it. A flat objective should not
    move a constant back and forth between refits (the one-standard-error rule, Breiman et al.
    1984, with "keep what is there" as the tie-break)."""
    everything = list(range(n))
    best = max(configs, key=lambda c: score(c, everything))
    se = statistics.pstdev(held) / math.sqrt(len(held))
    gap = score(best, everything) - score(current, everything)
    note = {"best": best, "current": current, "gap": round(gap, 4), "one_se": round(se, 4)}
    return (current if gap <= se else best), note


def spread(values: list[float]) -> dict[str, float]:
    return {"mean": round(statistics.fmean(values), 4), "sd": round(statistics.pstdev(values), 4)}


def group_means(items: list[Any], idx: list[int], value: Any) -> dict[str, float]:
    groups: dict[str, list[float]] = {}
    for i in idx:
        v = value(i)
        groups.setdefault(items[i].raw.get("_set", ""), []).append(v)
        groups.setdefault("type:" + items[i].type, []).append(v)
    return {g: statistics.fmean(v) for g, v in groups.items()}


def by_set_mean(items: list[Any], idx: list[int], value: Any) -> float:
    """Mean of ``value(i)`` per group, then the mean of the groups: each tuning set and each
    question type weighs the same, so a config cannot win by serving the largest group at the
    cost of a small one."""
    groups = group_means(items, idx, value)
    return statistics.fmean(groups.values()) if groups else 0.0


def fold_table(items: list[Any], parts: list[list[int]], sets: list[str], metric: Any) -> dict[str, dict[str, float]]:
    """Held-out nDCG@10 and Recall@5 per tuning set, question type and overall: mean ± sd over
    the folds. ``metric(fold, i) -> (ndcg, recall)``."""
    rows = {}
    for s in sets + [f"type:{t}" for t in sorted({q.type for q in items})] + ["all"]:
        for m, j in (("ndcg@10", 0), ("recall@5", 1)):
            vals = []
            for f, part in enumerate(parts):
                idx = [i for i in part if s in ("all", items[i].raw["_set"], f"type:{items[i].type}")]
                if idx:
                    vals.append(statistics.fmean(metric(f, i)[j] for i in idx))
            if vals:
                rows[f"{s}.{m}"] = spread(vals)
    return rows


def logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 50) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by Newton's method: weights and bias."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -50, 50)))
        grad = xb.T @ (p - y) + l2 * np.r_[w[:-1], 0.0]
        hess = xb.T @ (xb * (p * (1 - p))[:, None]) + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w[:-1], float(w[-1])


def thresholds(p_pos: np.ndarray, refuse_rate: float, caveat_rate: float,
               groups: list[str] | None = None, group_caveat_rate: float | None = None) -> tuple[float, float]:
    """Refuse below the ``refuse_rate`` quantile of the answerable questions' relevance, caveat
    below the ``caveat_rate`` quantile: the share of plainly answerable questions refused (the
    worst outcome) or hedged is bounded by policy, the rest is learned. With ``groups`` (each
    question's type, or set:type) the refusal bound holds for every kind of question, not only on
    average: a reworded question shares fewer words with its abstract, so its relevance runs
    lower. With ``group_caveat_rate`` the hedging bound holds per group too (at most that share of
    each group hedged): pooled, a 10% bound hedged 23% of the paraphrases and the users' far more
    (issue 19), because the pooled quantile is set by the lexically close lookups. The cost is a
    lower caveat threshold, so more questions whose abstract is missing are answered plainly: the
    fit reports it (``loo`` rows of evals/fits/decision.json)."""
    t_cav = float(np.quantile(p_pos, caveat_rate))
    if not groups:
        return float(np.quantile(p_pos, refuse_rate)), t_cav
    by: dict[str, list[float]] = {}
    for p, g in zip(p_pos, groups, strict=True):
        by.setdefault(g, []).append(float(p))
    if group_caveat_rate is not None:
        t_cav = min([t_cav, *(float(np.quantile(v, group_caveat_rate)) for v in by.values())])
    t_ref = min(float(np.quantile(v, refuse_rate)) for v in by.values())
    return min(t_ref, t_cav), t_cav
