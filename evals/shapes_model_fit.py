"""The fit of ``evals.shapes_model``: when may the model's reading turn a frames-read fact into an overview?

The rule acts only on a question the frames read as a fact that names no work and has no one-work
anchor (``assistant.question.shape_model.eligible``); everything else keeps the frames' shape. Its cost: the
tuning facts of that kind it would read as overviews (every one of them reads right today). Its gain
cannot be counted on the tuning data directly, since the frames were widened until they read every
tuning overview; it is counted as the share of the tuning overviews (unnamed, unanchored) that the
model reads as overviews, *as if* the frames had missed them: the wording nobody tuned the frames on
is what the model has to catch (the hold-out batches, ``holdout``, judge it once).

Rules: ``label`` (the model's greedy one-word reply says overview), ``bar`` (its probability of
"overview", renormalised over the four words, at least a bar fitted by 5-fold CV: the lowest bar whose
training facts misread stay at most ``MAX_FALSE``; ``bar_zero``: none of the training facts misread).
Folds stratified by shape, seeded.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np

MAX_FALSE = 0.01
BARS = tuple(round(b, 2) for b in np.arange(0.05, 0.991, 0.01))



def _folds(y: np.ndarray, k: int = 5, seed: int = 0) -> list[np.ndarray]:
    """k folds stratified by label, seeded."""
    rng = np.random.default_rng(seed)
    fold = np.zeros(len(y), dtype=int)
    for label in (True, False):
        idx = np.flatnonzero(y == label)
        rng.shuffle(idx)
        fold[idx] = np.arange(len(idx)) % k
    return [np.flatnonzero(fold == i) for i in range(k)]

def _usable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Unnamed, unanchored facts the frames read as facts, and unnamed, unanchored overviews."""
    return [r for r in rows if not r["names"] and not r["one_work"]
            and ((r["shape"] == "fact" and r["frame"] == "fact") or r["shape"] == "overview")]


def _fit_bar(p: np.ndarray, y: np.ndarray, max_false: float) -> float:
    """The lowest bar at which at most ``max_false`` of the facts read as overviews (1.01: none can)."""
    for bar in BARS:
        if ((p >= bar) & ~y).sum() <= max_false * (~y).sum():
            return bar
    return 1.01


def _rates(pred: np.ndarray, y: np.ndarray) -> dict[str, float]:
    return {"overview_recall": float(pred[y].mean()) if y.any() else 0.0,
            "facts_misread": float(pred[~y].mean()) if (~y).any() else 0.0}


def _by_group(rows: list[dict[str, Any]], pred: np.ndarray) -> dict[str, dict[str, Any]]:
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for r, p in zip(rows, pred, strict=True):
        table[f"{r['group']} {r['shape']}"]["overview" if p else "fact"] += 1
    return {k: {**v, "rate_overview": round(v["overview"] / sum(v.values()), 3)} for k, v in sorted(table.items())}


def _summary(held: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    return {k: {"mean": round(float(np.mean([h[k] for h in held])), 3), "sd": round(float(np.std([h[k] for h in held])), 3)}
            for k in held[0]}


def fit(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Held-out rates per fold (mean ± sd) of each rule beside the frames alone (0 gained, 0 misread)."""
    rows = _usable(rows)
    y = np.array([r["shape"] == "overview" for r in rows])
    p = np.array([r["p"]["overview"] for r in rows])
    label = np.array([r["reply"] == "overview" for r in rows])
    out: dict[str, Any] = {"n": {"facts": int((~y).sum()), "overviews": int(y.sum())},
                           "frames_alone": {"overview_recall_if_missed": 0.0, "facts_misread": 0.0}}
    folds = _folds(y)
    held = [_rates(label[t], y[t]) for t in folds]
    out["label"] = {**_summary(held), "folds": held, "held_out_by_group": _by_group(rows, label)}
    for name, max_false in (("bar", MAX_FALSE), ("bar_zero", 0.0)):
        held, pred_all, chosen = [], np.zeros(len(y), dtype=bool), []
        for test in folds:
            train = np.setdiff1d(np.arange(len(y)), test)
            bar = _fit_bar(p[train], y[train], max_false)
            pred_all[test] = p[test] >= bar
            held.append(_rates(pred_all[test], y[test]))
            chosen.append(bar)
        out[name] = {**_summary(held), "folds": held, "chosen": chosen, "held_out_by_group": _by_group(rows, pred_all),
                     "bar_all": _fit_bar(p, y, max_false)}
    out["misread_facts_label"] = [f"{r['id']} p={r['p']['overview']}: {r['question']}" for r, lb in zip(rows, label, strict=True)
                                  if lb and r["shape"] == "fact"]
    out["missed_overviews_label"] = [f"{r['id']} p={r['p']['overview']}: {r['question']}" for r, lb in zip(rows, label, strict=True)
                                     if not lb and r["shape"] == "overview"]
    out["seconds_p50"] = round(float(np.median([r["seconds"] for r in rows])), 3) if rows else None
    return out


def holdout(rows: list[dict[str, Any]], tuning: list[dict[str, Any]], rule: str = "bar_zero") -> dict[str, Any]:
    """SH* and SQ*, judged once: the frames alone, and the frames + ``rule`` fitted on all the tuning rows
    (a frames-read fact that names no work and has no anchor turns into an overview when it fires)."""
    usable = _usable(tuning)
    y = np.array([r["shape"] == "overview" for r in usable])
    bar = _fit_bar(np.array([r["p"]["overview"] for r in usable]), y, MAX_FALSE if rule == "bar" else 0.0)

    def fires(r: dict[str, Any]) -> bool:
        hit = r["reply"] == "overview" if rule == "label" else r["p"]["overview"] >= bar
        return hit and r["frame"] == "fact" and not r["names"] and not r["one_work"]

    out: dict[str, Any] = {"rule": rule, "bar": bar if rule != "label" else None}
    for batch in ("SH", "SQ"):
        part = [r for r in rows if r["id"].startswith(batch)]
        with_rule = ["overview" if fires(r) else r["frame"] for r in part]
        out[batch] = {"frames": dict(Counter(f"{r['shape']} -> {r['frame']}" for r in part)),
                      "with_rule": dict(Counter(f"{r['shape']} -> {k}" for r, k in zip(part, with_rule, strict=True))),
                      "changed": [f"{r['id']} {r['shape']} p={r['p']['overview']}: {r['question']}" for r in part if fires(r)]}
    return out
