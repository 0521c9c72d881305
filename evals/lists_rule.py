"""The list membership rule as the fit sees it (assistant.collection.answer / assistant.collection.topics on each
question's candidate features), its grids and the choice of its constants by mean F1. Split out
of evals/lists.py (``python -m evals.lists fit`` runs the CV)."""
from __future__ import annotations

from typing import Any

from evals.lists_metrics import defined_values, mean_sd, scores

PHRASE = 0.5  # assistant.settings collection.phrase_lexical: above it a candidate writes the topic
WEIGHTS = [round(0.1 * i, 1) for i in range(11)]
CUTOFFS = [round(0.2 + 0.01 * i, 2) for i in range(71)]
RANKS = [0, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25]  # by meaning: the retriever's best this many (0: off); at most display_max
RATIOS = [round(0.5 + 0.05 * i, 2) for i in range(10)]
FLOORS = [0.0] + [round(0.3 + 0.05 * i, 2) for i in range(7)]  # by meaning: the best candidate's cosine needed at all
UNWRITTEN = [True, False]  # by meaning for a topic with a word no abstract writes (under a statement), or nothing listed
FEEDBACK = [0, 3, 5, 8]  # by meaning: pseudo-relevance feedback from the retriever's best this many (0: off; topics.feedback)
PARAMS = ("lexical_weight", "cutoff", "meaning_rank", "meaning_ratio", "meaning_floor", "meaning_unwritten", "meaning_feedback")


def writes_topic(f: dict[str, Any], phrase: float = PHRASE) -> bool:
    """Some candidate writes the topic (assistant.collection.topics.written)."""
    return any(lex > phrase for lex, *_ in f["cands"])


def pick(f: dict[str, Any], w: float, t: float, m: int = 0, k: int = 0, ratio: float = 1.0, floor: float = 0.0,
          unwritten: bool = True, fb: int = 0) -> list[str]:
    """The works listed (assistant.collection.answer): for a topic some candidate writes, those at or above
    the cut-off, and of the ``m`` most relevant (``min_listed``) those whose cosine alone reaches it;
    for one none writes (and ``k`` > 0), nothing when the best candidate's cosine is below
    ``floor``, else of the retriever's ``k`` best those whose cosine is at least ``ratio`` x the
    best candidate's (``by_meaning``); with ``fb`` feedback documents, rank and cosine are the
    feedback's (``f["fed"][fb]``: (rank, cosine, work) by rank, and the best cosine; the floor stays
    the chunk cosine); a topic with a word no abstract writes (``f["unwritten"]``,
    ``topics.unwritten``) lists nothing unless ``unwritten`` (then by meaning, under a statement)."""
    if f.get("unwritten") and not unwritten:
        return []
    if k and not writes_topic(f):
        top = max((dense for _, dense, *_ in f["cands"]), default=0.0)
        if top < floor:
            return []
        if fb and fb in f.get("fed", {}):
            ranked, best = f["fed"][fb]
            return [wid for rank, score, wid in ranked if rank < k and score >= ratio * best]
        return [wid for _, dense, wid, rank in f["cands"] if rank < k and dense >= ratio * top]
    rel = sorted(((w * lex + (1 - w) * dense, dense, wid) for lex, dense, wid, _ in f["cands"]), key=lambda x: -x[0])
    return [wid for i, (r, dense, wid) in enumerate(rel) if (i < m and dense >= t) or r >= t]


def f1_score(picked: list[str], gold: set[str]) -> float:
    """F1 of the listed works; for a topic no abstract is about (no gold), 1 when nothing is listed."""
    if not gold:
        return float(not picked)
    r, p = scores(picked, gold)
    return 2 * r * p / (r + p) if p is not None and r + p else 0.0


def _said_none(f: dict[str, Any], *params: Any) -> bool:
    """The answer to a question says that no abstract is about its topic: nothing listed, or a topic
    with a word no abstract writes, whose list (when ``unwritten`` lets it go by meaning) opens with
    "No abstract in the collection mentions W" (assistant.collection.answer)."""
    return bool(f.get("unwritten")) or not pick(f, *params)


def _score(f: dict[str, Any], *params: Any) -> float:
    """F1 of the listed works; for a topic no abstract is about (no gold), 1 when the answer says so
    (``_said_none``: an honest statement above the neighbours is the right answer too)."""
    return float(_said_none(f, *params)) if not f["gold"] else f1_score(pick(f, *params), f["gold"])


def _mean_f1(feats: list[dict[str, Any]], *params: Any) -> float:
    return sum(_score(f, *params) for f in feats) / len(feats) if feats else 0.0


RP = ("recall", "precision", "baseline_recall", "baseline_precision")


def rp(feats: list[dict[str, Any]], *params: Any) -> dict[str, float]:
    """Mean recall / precision of the picked works and of the baseline's top-k ({} for none); for
    questions without gold, the share that listed nothing (``listed_nothing``)."""
    if not feats:
        return {}
    if not any(f["gold"] for f in feats):
        return {"listed_nothing": mean_sd([float(not pick(f, *params)) for f in feats])[0],
                "said_none": mean_sd([float(_said_none(f, *params)) for f in feats])[0]}
    held = [scores(pick(f, *params), f["gold"]) for f in feats]
    base = [scores(f["baseline"], f["gold"]) for f in feats]
    return {"recall": mean_sd([r for r, _ in held])[0], "precision": mean_sd(defined_values([p for _, p in held]))[0],
            "baseline_recall": mean_sd([r for r, _ in base])[0], "baseline_precision": mean_sd(defined_values([p for _, p in base]))[0]}


def best_pair(feats: list[dict[str, Any]], m: int = 0) -> tuple[float, float]:
    """The (lexical weight, cut-off) of the best mean F1 on ``feats`` (ties: the first in grid order)."""
    return max(((w, t) for w in WEIGHTS for t in CUTOFFS), key=lambda wt: _mean_f1(feats, *wt, m))


def best_params(feats: list[dict[str, Any]], m: int = 0, meaning: bool = True,
                feedback: bool = True) -> tuple[float, float, int, float, float, bool, int]:
    """(lexical weight, cut-off, meaning rank, ratio, floor, by meaning when unwritten, feedback documents) of the best mean F1 on ``feats``. The
    two rules never apply to one question (a topic is written by some candidate or by none), so the
    mean F1 is the sum of the two parts' and each part's constants are chosen on its own questions;
    without questions, or with ``meaning`` False, the rule by meaning is off (rank 0); ``feedback``
    False: by meaning without pseudo-relevance feedback (0 feedback documents)."""
    written = [f for f in feats if writes_topic(f)]
    unwritten = [f for f in feats if not writes_topic(f)]
    w, t = best_pair(written, m) if written else (WEIGHTS[0], CUTOFFS[0])
    if not (unwritten and meaning):
        return w, t, 0, 1.0, 0.0, True, 0
    grid = [(k, r, fl, u, fb) for k in RANKS for r in RATIOS for fl in FLOORS for u in UNWRITTEN for fb in (FEEDBACK if feedback else [0])]
    return w, t, *max(grid, key=lambda g: _mean_f1(unwritten, w, t, m, *g))
