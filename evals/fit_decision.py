"""The decision's fit (``python -m evals.fit decision``): the answer / caveat / refuse rule's
logistic weights and thresholds by k-fold CV on decision rows (each answerable question as asked
and leave-one-out, and each unanswerable one; folds by source question), and beside it the same
fit with candidate features, each with its held-out AUC."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from evals.cv import SEED, logistic, spread, thresholds
from evals.tuning import log, tuning_questions


def decision_rows(assistant: Any, sets: list[str], limit: int | None = None,
                  cache: Path | None = None) -> list[dict[str, Any]]:
    """Each answerable question as asked (label 1) and leave-one-out (label 0), and each
    unanswerable one (label 0): every decision feature, the label, the kind, whether a name was
    missing, and the question's group (its source's id: a derived question shares its fold).
    ``cache``: the rows are read from / written to this JSON file (analysing them is the costly
    part; the fit itself takes seconds)."""
    if cache is not None and cache.exists():
        rows = json.loads(cache.read_text(encoding="utf-8"))
        log(f"decision: {len(rows)} rows read from {cache}")
        return rows
    rows = []
    engine = assistant.engine
    k = assistant.settings.top_k
    for q in tuning_questions(assistant, sets, limit, followups=True):
        runs = [("answerable", None, 1), ("loo", q.gold, 0)] if q.gold else [("unanswerable", None, 0)]
        for kind, exclude, label in runs:
            turn = engine.analyze(q.text, k, exclude=exclude, history=q.raw["_history"])
            d = turn.decision
            rows.append({"id": q.id, "group": q.raw.get("derived_from") or q.id, "set": q.raw["_set"], "type": q.type,
                         "kind": kind, "label": label, "missing": bool(d.missing), "features": d.features,
                         # the abstract read first is a gold one: the answer shown would be the right one
                         "first_right": bool(turn.hits) and turn.hits[0][0].work_id in q.gold})
    if cache is not None:
        cache.write_text(json.dumps(rows), encoding="utf-8")
    return rows


def outcomes(p: np.ndarray, missing: list[bool], t_ref: float, t_cav: float, t_miss: float | None = None) -> list[str]:
    from assistant.evidence.decision import outcome

    return [outcome(float(pi), m, t_ref, t_cav, t_miss) for pi, m in zip(p, missing, strict=True)]


def _held_rates(held: dict[str, list[float]], rows: list[dict[str, Any]], outs: list[str]) -> None:
    """Add one held-out fold's refused / caveated shares per kind, per answerable type and per
    answerable set:type group to ``held``."""
    groups: dict[str, list[str]] = {}
    for r, o in zip(rows, outs, strict=True):
        groups.setdefault(r["kind"], []).append(o)
        if r["kind"] == "answerable":
            groups.setdefault(f"answerable[{r['type']}]", []).append(o)
            if "first_right" in r:  # a hedge on a right answer vs on a wrong one (the first abstract read is not gold)
                groups.setdefault("answerable[first right]" if r["first_right"] else "answerable[first wrong]", []).append(o)
            groups.setdefault(f"answerable[{r['set']}:{r['type']}]", []).append(o)
        if r["kind"] == "loo":
            groups.setdefault(f"loo[{r['type']}]", []).append(o)
        if r["kind"] == "unanswerable":
            groups.setdefault(f"unanswerable[{r['set']}]", []).append(o)
    for name, sel in groups.items():
        held.setdefault(f"{name}.refused", []).append(sum(o == "refuse" for o in sel) / len(sel))
        held.setdefault(f"{name}.caveated", []).append(sum(o == "caveat" for o in sel) / len(sel))
        held.setdefault(f"{name}.refused_or_caveated", []).append(sum(o != "answer" for o in sel) / len(sel))


def fit_rows(rows: list[dict[str, Any]], features: tuple[str, ...], k: int, refuse_rate: float, caveat_rate: float,
             group_caveat_rate: float | None) -> dict[str, Any]:
    """The logistic fit and the thresholds on decision rows, by k-fold CV (folds by group), then
    on all rows. Thresholds: refusals <= ``refuse_rate`` of the answerable questions of every
    set:type group, hedging <= ``caveat_rate`` of all and <= ``group_caveat_rate`` of every group."""
    x = np.asarray([[r["features"].get(f, 0.0) for f in features] for r in rows], dtype=np.float64)
    y = np.asarray([r["label"] for r in rows], dtype=np.float64)
    groups = sorted({r["group"] for r in rows})
    rng = random.Random(SEED)
    rng.shuffle(groups)
    fold_of = {g: j % k for j, g in enumerate(groups)}  # every copy of a question in one fold

    def fit(sel: np.ndarray) -> tuple[np.ndarray, float, float, float, float]:
        w, b = logistic(x[sel], y[sel])
        p = 1 / (1 + np.exp(-(x[sel] @ w + b)))
        pos = [r for r, s in zip(rows, sel, strict=True) if s and r["label"] == 1]
        t_ref, t_cav = thresholds(p[y[sel] == 1], refuse_rate, caveat_rate,
                                  [f"{r['set']}:{r['type']}" for r in pos], group_caveat_rate)
        t_miss = max(t_cav, float(np.quantile(p[y[sel] == 1], caveat_rate)))  # pooled (assistant.evidence.decision.outcome)
        return w, b, t_ref, t_cav, t_miss

    held: dict[str, list[float]] = {}
    for f in range(k):
        te = np.array([fold_of[r["group"]] == f for r in rows])
        w, b, t_ref, t_cav, t_miss = fit(~te)
        p_te = 1 / (1 + np.exp(-(x[te] @ w + b)))
        te_rows = [r for r, t in zip(rows, te, strict=True) if t]
        _held_rates(held, te_rows, outcomes(p_te, [r["missing"] for r in te_rows], t_ref, t_cav, t_miss))
    w, b, t_ref, t_cav, t_miss = fit(np.ones(len(rows), dtype=bool))
    kinds = [r["kind"] for r in rows]
    return {"rows": {kd: kinds.count(kd) for kd in ("answerable", "loo", "unanswerable")}, "folds": k,
            "features": list(features),
            "policy": {"refuse_rate": refuse_rate, "caveat_rate": caveat_rate, "group_caveat_rate": group_caveat_rate,
                       "groups": "set:type of the answerable questions"},
            "held_out": {key: spread(v) for key, v in sorted(held.items())},
            "chosen": {"bias": round(b, 3), **{f"w_{f}": round(float(v), 3) for f, v in zip(features, w, strict=True)},
                       "refuse_below": round(t_ref, 4), "caveat_below": round(t_cav, 4),
                       "missing_refuse_below": round(t_miss, 4)}}


KEY_RATES = ("answerable.refused", "answerable.refused_or_caveated", "answerable[paraphrase].refused_or_caveated",
             "answerable[short].refused_or_caveated", "loo.refused_or_caveated", "unanswerable.refused_or_caveated")


def fit_decision(assistant: Any, sets: list[str], k: int, refuse_rate: float, caveat_rate: float,
                 limit: int | None = None, group_caveat_rate: float | None = 0.2,
                 cache: Path | None = None) -> dict[str, Any]:
    """The decision fit with the product's features, and beside it the same fit with candidate
    features added on the same folds, each with its held-out AUC (answerable vs leave-one-out and
    unanswerable rows; and vs leave-one-out rows alone): the answer-evidence features
    (``with_answer_evidence``), and the decision without the separation features
    (``assistant.evidence.decision.SEPARATION_FEATURES``) with each of them, and all, added (``candidates``)."""
    from assistant.evidence.decision import CANDIDATE_FEATURES, FEATURES, SEPARATION_FEATURES

    rows = decision_rows(assistant, sets, limit, cache)
    log(f"decision: {len(rows)} rows ({sum(r['label'] for r in rows)} answerable)")
    out = fit_rows(rows, FEATURES, k, refuse_rate, caveat_rate, group_caveat_rate)
    out["settings_now"] = rates_now(rows, k, assistant.settings.decision)
    out["held_out_auc"] = held_out_auc(rows, FEATURES, k)
    out["held_out_auc_vs_loo"] = held_out_auc(rows, FEATURES, k, against="loo")
    more = FEATURES + CANDIDATE_FEATURES
    out["with_answer_evidence"] = {**{key: v for key, v in fit_rows(rows, more, k, refuse_rate, caveat_rate,
                                                                   group_caveat_rate).items() if key != "rows"},
                                   "held_out_auc": held_out_auc(rows, more, k)}
    base = tuple(f for f in FEATURES if f not in SEPARATION_FEATURES)  # the decision without them
    out["candidates"] = {}
    for extra in ((), *((f,) for f in SEPARATION_FEATURES), SEPARATION_FEATURES):
        feats = base + extra
        fit = fit_rows(rows, feats, k, refuse_rate, caveat_rate, group_caveat_rate)
        out["candidates"]["+".join(("base", *extra))] = {
            "held_out_auc": held_out_auc(rows, feats, k), "held_out_auc_vs_loo": held_out_auc(rows, feats, k, against="loo"),
            **{key: fit["held_out"].get(key) for key in KEY_RATES}, "chosen": fit["chosen"]}
    return out


def rates_now(rows: list[dict[str, Any]], k: int, cfg: Any) -> dict[str, Any]:
    """The constants in use (``cfg``: ``settings.decision``) on the same folds' test rows, nothing
    fitted: the "before" beside a refit's held-out figures."""
    from assistant.evidence.decision import relevance

    groups = sorted({r["group"] for r in rows})
    random.Random(SEED).shuffle(groups)
    fold_of = {g: j % k for j, g in enumerate(groups)}
    held: dict[str, list[float]] = {}
    for f in range(k):
        te = [r for r in rows if fold_of[r["group"]] == f]
        p = np.asarray([relevance(r["features"], cfg.weights(), cfg.bias) for r in te])
        _held_rates(held, te, outcomes(p, [r["missing"] for r in te], cfg.refuse_below, cfg.caveat_below,
                                       cfg.missing_refuse_below))
    return {"held_out": {key: spread(v) for key, v in sorted(held.items())}}


def held_out_auc(rows: list[dict[str, Any]], features: tuple[str, ...], k: int,
                 against: str | None = None) -> dict[str, float]:
    """How well the logistic score separates answerable rows from the others (``against``: from
    the rows of that kind only), on held-out folds (the share of answerable/other pairs ordered
    right): mean +- sd over the folds. The logistic is fitted on all the training rows."""
    x = np.asarray([[r["features"].get(f, 0.0) for f in features] for r in rows], dtype=np.float64)
    y = np.asarray([r["label"] for r in rows], dtype=np.float64)
    groups = sorted({r["group"] for r in rows})
    random.Random(SEED).shuffle(groups)
    fold_of = {g: j % k for j, g in enumerate(groups)}
    aucs = []
    for f in range(k):
        te = np.array([fold_of[r["group"]] == f for r in rows])
        w, b = logistic(x[~te], y[~te])
        z = x[te] @ w + b
        kinds = np.array([r["kind"] for r, t in zip(rows, te, strict=True) if t])
        pos, neg = z[y[te] == 1], z[(y[te] == 0) & ((kinds == against) if against else True)]
        aucs.append(float((pos[:, None] > neg[None, :]).mean()))
    return spread(aucs)

