"""How far can the hedge decision go with the signals this machine has? (issues #19 / #20)

The goals of #19 ask for two things at once: answerable questions hedged <= 10% and unanswerable
questions refused or caveated >= 92% (leave-one-out >= 85%). Both are set by one decision: a plain
answer, or a caveat / refusal. This tool reads the decline cache (evals/fits/declines_cache.jsonl:
tuning questions only, never the locked split; each row holds the decision's relevance, the best
sentence's score, every abstract's relevance, the local model's decline, and extraction's answer
refreshed by ``evals.declines_refresh``) and sweeps a bar on each score the product could hedge by:

- ``relevance``: the decision's relevance (what the weak-match caveat reads today);
- ``best_sentence``: the best evidence sentence's score;
- ``gap``: the first abstract's relevance above the best other one's;
- ``combined``: a logistic model over the three and the model's decline, fitted on four folds and
  scored on the fifth (folds by source question, as evals/declines.py), so each row's score is
  held out;
- ``relevance+decline``: the relevance bar, and the local model's decline always heard.

A question the fixed checks already hedge (extraction refuses, or caveats for a named reason: the
asked-for item, a figure, a name no source has) stays hedged under every bar; the bar decides the
rest. For each score it prints the frontier (answerable / right answers hedged against
unanswerable / leave-one-out caught) and the two corners the goals need: the best catches with
answerable hedged <= 10%, and the least hedging with unanswerable >= 92% and leave-one-out >= 85%,
plus each score's AUC (right answers against the questions it must catch), on all rows and on the
user-worded sets (paraphrase_written, calibration)::

    python -m evals.frontier [--cache evals/fits/declines_cache.jsonl] [--out evals/fits/frontier.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from evals.declines import CACHE, gap
from evals.declines_checks import folds_of
from evals.declines_prob import auc as pair_auc

OUT = Path(__file__).resolve().parent / "fits" / "frontier.json"
USER_WORDED = ("paraphrase_written", "calibration")  # written or filtered to look like users' questions
GOALS = {"answerable_hedged": 0.10, "unanswerable_caught": 0.92, "loo_caught": 0.85}  # issue #19's goal figures
FEATURES = ("relevance", "best_sentence", "gap")


def fixed(r: dict[str, Any]) -> bool:
    """Hedged whatever the bar: extraction refuses, or caveats for a reason it names, or the
    question names something no source mentions."""
    e = r["extractive"]
    return bool(e["refused"] or e["caveat_kind"] not in (None, "weak_match") or r["missing"])


def features(r: dict[str, Any]) -> list[float]:
    return [float(r["relevance"]), float(r["best_sentence"]), gap(r["relevances"]), float(r["declined"])]


def logistic(x: np.ndarray, y: np.ndarray, steps: int = 3000, lr: float = 0.5) -> np.ndarray:
    """Plain logistic regression by gradient descent (standardised inputs, small L2); returns weights
    with the bias last. Used for one 295-row fit: no library needed."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-xb @ w))
        w -= lr * (xb.T @ (p - y) / len(y) + 1e-3 * np.r_[w[:-1], 0.0])
    return w


def combined_scores(rows: list[dict[str, Any]], folds: int = 5) -> list[float]:
    """Each row's P(a plain answer is right), from a model fitted on the other folds (folds by
    source question). Trained on right answers (1) against the questions to catch (0)."""
    fold_of = folds_of(rows, folds)
    x = np.array([features(r) for r in rows])
    target = np.array([1.0 if right(r) else 0.0 for r in rows])
    used = np.array([right(r) or must_catch(r) for r in rows])
    scores = np.zeros(len(rows))
    for k in range(folds):
        test = np.array([fold_of[r["source"]] == k for r in rows])
        train = ~test & used
        mu, sd = x[train].mean(0), x[train].std(0) + 1e-9
        w = logistic((x[train] - mu) / sd, target[train])
        xt = np.hstack([(x[test] - mu) / sd, np.ones((int(test.sum()), 1))])
        scores[test] = 1 / (1 + np.exp(-xt @ w))
    return [round(float(s), 4) for s in scores]  # as the cache's own scores: no bar turns on a last bit


def right(r: dict[str, Any]) -> bool:
    return bool(r["answerable"] and r["extractive"]["first_cited_gold"])


def must_catch(r: dict[str, Any]) -> bool:
    return not r["answerable"]


def shares(rows: list[dict[str, Any]], hedged: list[bool]) -> dict[str, float]:
    """The shares of answerable / right answers hedged and of the questions to catch caught."""
    groups = {"answerable_hedged": [r["answerable"] for r in rows], "right_hedged": [right(r) for r in rows],
              "unanswerable_caught": [not r["answerable"] and not r["loo"] for r in rows],
              "loo_caught": [bool(r["loo"]) for r in rows]}
    out = {}
    for name, member in groups.items():
        n = sum(member)
        out[name] = sum(h for h, m in zip(hedged, member, strict=True) if m) / n if n else 0.0
    return out


def sweep(rows: list[dict[str, Any]], score: list[float], heard: bool = False) -> list[dict[str, float]]:
    """One point per bar (every distinct score, and none): the shares hedged / caught."""
    base = [fixed(r) or (heard and bool(r["declined"])) for r in rows]
    return [{"bar": float(t), **shares(rows, [b or s < t for b, s in zip(base, score, strict=True)])}
            for t in [-np.inf, *sorted(set(score)), np.inf]]


def corners(points: list[dict[str, float]]) -> dict[str, Any]:
    """The best catches within the hedge goal, and the least hedging that meets both catch goals."""
    within = [p for p in points if p["answerable_hedged"] <= GOALS["answerable_hedged"]]
    catching = [p for p in points if p["unanswerable_caught"] >= GOALS["unanswerable_caught"]
                and p["loo_caught"] >= GOALS["loo_caught"]]
    best_within = max(within, key=lambda p: (p["unanswerable_caught"] + p["loo_caught"]), default=None)
    least = min(catching, key=lambda p: p["answerable_hedged"], default=None)
    both = [p for p in within if p in catching]
    return {"within_hedge_goal": best_within, "meeting_catch_goals": least, "all_goals_met": bool(both)}


def auc(rows: list[dict[str, Any]], score: list[float]) -> float | None:
    """P(a right answer scores above a question to catch), among rows the fixed checks leave to the bar."""
    pos = [s for r, s in zip(rows, score, strict=True) if right(r) and not fixed(r)]
    neg = [s for r, s in zip(rows, score, strict=True) if must_catch(r) and not fixed(r)]
    return pair_auc(pos, neg)


def now(rows: list[dict[str, Any]], heard: bool) -> dict[str, float]:
    """Where the product stands: extraction's own hedges (refreshed), and the model's decline if ``heard``."""
    hedged = [bool(r["extractive"]["refused"] or r["extractive"]["caveat_kind"] or (heard and r["declined"])) for r in rows]
    return shares(rows, hedged)


def same_hedging(points: list[dict[str, float]], at: dict[str, float]) -> dict[str, float] | None:
    """The bar's best catches hedging no more answerable questions than ``at`` does."""
    fits = [p for p in points if p["answerable_hedged"] <= at["answerable_hedged"] + 1e-9]
    return max(fits, key=lambda p: p["unanswerable_caught"] + p["loo_caught"], default=None)


def study(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scores = {name: [features(r)[i] for r in rows] for i, name in enumerate(FEATURES)}
    scores["combined"] = combined_scores(rows)
    out: dict[str, Any] = {"extractive_now": now(rows, False), "local_now": now(rows, True)}
    for name, s in scores.items():
        points = sweep(rows, s)
        out[name] = {"auc": auc(rows, s), **corners(points), "at_extractive_hedging": same_hedging(points, out["extractive_now"])}
    out["relevance+decline"] = {"auc": None, **corners(sweep(rows, scores["relevance"], heard=True))}
    return out


def fmt(p: dict[str, float] | None) -> str:
    if p is None:
        return "none"
    return (f"answerable hedged {p['answerable_hedged']:.3f} (right {p['right_hedged']:.3f}), unanswerable caught "
            f"{p['unanswerable_caught']:.3f}, LOO caught {p['loo_caught']:.3f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=str(CACHE))
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    every = [json.loads(line) for line in Path(args.cache).read_text().splitlines() if line.strip()]
    rows = [r for r in every if r["lead_shown"] == 1]
    result: dict[str, Any] = {"cache": Path(args.cache).name, "goals": GOALS, "n": len(rows)}
    for label, subset in (("all", rows), ("user_worded", [r for r in rows if r["set"] in USER_WORDED])):
        result[label] = study(subset) | {"n": len(subset)}
        print(f"== {label}: {len(subset)} rows")
        for name in ("extractive_now", "local_now"):
            print(f"  {name.replace('_', ' ')}: {fmt(result[label][name])}")
        for name, s in result[label].items():
            if name in ("n", "extractive_now", "local_now"):
                continue
            print(f"  {name} (AUC {s['auc']}): all goals met: {s['all_goals_met']}")
            print(f"    best within hedged <= 10%: {fmt(s['within_hedge_goal'])}")
            print(f"    least hedging meeting the catch goals: {fmt(s['meeting_catch_goals'])}")
            if s.get("at_extractive_hedging") is not None:
                print(f"    at extraction's hedging: {fmt(s['at_extractive_hedging'])}")
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
