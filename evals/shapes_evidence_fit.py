"""The fit of ``evals.shapes_evidence``: rules that call a frame-read fact an overview from its evidence.

A rule is argued from what an overview is: many abstracts address the topic alike and none stands
out. "Stands out" is read three ways, each already measured by the fact path: the first abstract's
relevance as if found alone (``relevances[0]``: a fact's answering abstract scores high), the
whole-abstract cosine gap between the first and the second abstract (``abstract`` list), and the
gap between the first abstract's best sentence and the best of the other abstracts read
(``sentence``: one sentence answers a fact). ``flat``: all three at most their thresholds (a
conjunction, so a fact that stands out on any one stays a fact). ``many``: at least n abstracts
reach the list cut-off for the whole question and the first's relevance is low. ``logistic``: the
same features plus the count of abstracts read that pass the citation bar, weighed by a logistic fit and cut where at
most ``MAX_FALSE`` of the training facts would be read as overviews.

Constants by 5-fold CV, folds stratified by shape; the objective counts a fact read as an overview
``FACT_COST`` times an overview gained (the brief: a single fact must not turn into another shape).
"""
from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from typing import Any

import numpy as np

FACT_COST = 20.0
MAX_FALSE = 0.01
FURTHER = 0.1775  # settings.answer.further_relevance (the citation bar)
R1 = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
AGAP = (0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 1.0)
SGAP = (0.0, 0.02, 0.05, 0.1, 0.15, 1.0)
N_LISTED = (2, 3, 4, 5, 6, 8, 10, 15, 20)


def x_of(r: dict[str, Any]) -> np.ndarray:
    rel = (r["relevances"] + [0.0] * 3)[:3]
    ab = r["abstract_list"] + [0.0, 0.0]
    se = r["sentence"] + [0.0] * 3
    listed = r["listed"] + [0.0] * 20
    n_listed = sum(v >= r["cutoff"] for v in listed)
    return np.array([rel[0], ab[0] - ab[1], se[0] - max(se[1:3]), sum(v >= FURTHER for v in rel), n_listed,
                     listed[0] - listed[4]], dtype=float)


def many(x: np.ndarray, t: tuple[float, float]) -> np.ndarray:
    """At least ``t[0]`` abstracts reach the list cut-off for the whole question and its first
    abstract's relevance as if alone is at most ``t[1]`` (many address it, none answers it)."""
    return (x[:, 4] >= t[0]) & (x[:, 0] <= t[1])


def _fit_many(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    grid = list(itertools.product(N_LISTED, R1))
    return max(grid, key=lambda t: (_score(many(x, t), y), t[0]))


def flat(x: np.ndarray, t: tuple[float, float, float]) -> np.ndarray:
    return (x[:, 0] <= t[0]) & (x[:, 1] <= t[1]) & (x[:, 2] <= t[2])


def _score(pred: np.ndarray, y: np.ndarray) -> float:
    return float((pred & y).sum() - FACT_COST * (pred & ~y).sum())


def _folds(y: np.ndarray, k: int = 5, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    fold = np.zeros(len(y), dtype=int)
    for label in (True, False):
        idx = np.flatnonzero(y == label)
        rng.shuffle(idx)
        fold[idx] = np.arange(len(idx)) % k
    return [np.flatnonzero(fold == i) for i in range(k)]


def _fit_flat(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    grid = list(itertools.product(R1, AGAP, SGAP))
    return max(grid, key=lambda t: (_score(flat(x, t), y), -t[0]))  # ties: the stricter relevance bar


def _fit_logistic(x: np.ndarray, y: np.ndarray, max_false: float = MAX_FALSE) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    from evals.cv import logistic

    mu, sd = x.mean(0), x.std(0) + 1e-9
    w, _ = logistic((x - mu) / sd, y.astype(float))
    p = ((x - mu) / sd) @ w  # the bias shifts every score alike: the cut is on the weighed sum
    facts = np.sort(p[~y])
    cut = facts[min(len(facts) - 1, int(np.floor((1 - max_false) * len(facts))))]
    return w, float(cut), mu, sd


def _logistic_pred(x: np.ndarray, model: tuple[np.ndarray, float, np.ndarray, np.ndarray]) -> np.ndarray:
    w, cut, mu, sd = model
    return ((x - mu) / sd) @ w > cut


def _rates(pred: np.ndarray, y: np.ndarray, missed: np.ndarray) -> dict[str, float]:
    return {"overview_recall": float(pred[y].mean()) if y.any() else 0.0,
            "missed_recall": float(pred[y & missed].mean()) if (y & missed).any() else 0.0,
            "facts_misread": float(pred[~y].mean()) if (~y).any() else 0.0}


def _by_group(rows: list[dict[str, Any]], pred: np.ndarray) -> dict[str, dict[str, int]]:
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for r, p in zip(rows, pred, strict=True):
        table[f"{r['group']} {r['shape']}"]["overview" if p else "fact"] += 1
    return {k: dict(v) for k, v in sorted(table.items())}


def fit(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Held-out rates per fold (mean ± sd) of ``flat`` and ``logistic`` beside today (the frames: 0 added)."""
    x = np.array([x_of(r) for r in rows])
    y = np.array([r["shape"] == "overview" for r in rows])
    missed = np.array([r["frame"] == "fact" for r in rows])  # the overviews today's frames read as facts
    out: dict[str, Any] = {"n": {"facts": int((~y).sum()), "overviews": int(y.sum()), "overviews_missed": int((y & missed).sum())}}
    rules = [("flat", _fit_flat, flat), ("many", _fit_many, many), ("logistic", _fit_logistic, _logistic_pred)]
    rules += [(f"logistic_at_{f:.2f}", lambda a, b, f=f: _fit_logistic(a, b, f), _logistic_pred) for f in (0.05, 0.10, 0.25)]
    for name, fitter, predict in rules:
        held, pred_all, chosen = [], np.zeros(len(y), dtype=bool), []
        for test in _folds(y):
            train = np.setdiff1d(np.arange(len(y)), test)
            model = fitter(x[train], y[train])
            pred = predict(x[test], model)
            pred_all[test] = pred
            held.append(_rates(pred, y[test], missed[test]))
            chosen.append(model if not name.startswith("logistic") else [round(float(v), 3) for v in model[0]] + [round(model[1], 3)])
        out[name] = {k: {"mean": round(float(np.mean([h[k] for h in held])), 3), "sd": round(float(np.std([h[k] for h in held])), 3)}
                     for k in held[0]}
        out[name]["folds"] = held
        out[name]["chosen"] = chosen
        out[name]["held_out_by_group"] = _by_group(rows, pred_all)
    # today: the frames alone (these facts are frame-read facts: none misread); naive: every frame-read
    # fact that names no work is an overview (all missed overviews found, every fact misread)
    out["today"] = {"overview_recall_frames": round(float((~missed[y]).mean()), 3), "added": 0, "facts_misread": 0.0}
    out["naive"] = {"missed_recall": 1.0, "facts_misread": 1.0}
    return out


def holdout(rows: list[dict[str, Any]], tuning: list[dict[str, Any]]) -> dict[str, Any]:
    """The SQ* batch, judged once: today's frames, and the frames + ``logistic`` fitted on all the
    tuning rows (a frame-read fact that names no work turns into an overview when it fires)."""
    x_t = np.array([x_of(r) for r in tuning])
    model = _fit_logistic(x_t, np.array([r["shape"] == "overview" for r in tuning]))
    fires = _logistic_pred(np.array([x_of(r) for r in rows]), model) if rows else np.zeros(0, dtype=bool)
    with_rule = ["overview" if p and r["frame"] == "fact" and not r["names"] else r["frame"] for r, p in zip(rows, fires, strict=True)]
    return {"today": dict(Counter(f"{r['shape']} -> {r['frame']}" for r in rows)),
            "with_logistic": dict(Counter(f"{r['shape']} -> {k}" for r, k in zip(rows, with_rule, strict=True))),
            "today_misses": [f"{r['id']} {r['shape']} -> {r['frame']}: {r['question']}" for r in rows if r["frame"] != r["shape"]]}
