"""The extractive answer's fit (``python -m evals.fit answer``): sentence choice by k-fold CV on
key points and citation precision, and the second look (the abstracts read re-ranked by their
evidence) by the same CV on nDCG@10."""

from __future__ import annotations

import itertools
import json
import statistics
from typing import Any

from evals.cv import by_set_mean, cv, folds, settle, spread
from evals.fit import log, tuning_questions
from evals.metrics import key_point_coverage, ndcg_at_k, recall_at_k


def answer_configs() -> list[dict[str, Any]]:
    grid = itertools.product((0.2, 0.4, 0.6), (0.0, 0.3, 0.6), (2, 3), (0.6, 0.8, 0.9, 1.0))
    return [{"lexical_weight": a, "retrieval_prior": b, "top_doc_sentences": c, "other_doc_share": d} for a, b, c, d in grid]


def fit_answer(assistant: Any, sets: list[str], k: int, limit: int | None = None) -> dict[str, Any]:
    """The sentence-choice constants by CV, on the abstracts in the order the product reads them.
    First the second look is chosen on the fused order (its own study, ``second_look``); the
    questions are then analysed again with the chosen second look, and the choice is fitted on
    that order. Beside it: the held-out figures of the same per-fold choices on the fused order."""
    items = [q for q in tuning_questions(assistant, sets, limit) if q.gold and q.key_points]
    s = assistant.settings
    log(f"answer: {len(items)} questions with key points; analysing them in the fused order ...")
    s.answer = s.answer.model_copy(update={"second_look": 1.0})
    fused_turns = [assistant.engine.analyze(q.text, s.top_k) for q in items]
    study = second_look(items, fused_turns, k)
    s.answer = s.answer.model_copy(update={"second_look": study["chosen"]})
    if study["chosen"] != 1.0:
        log(f"answer: again with the second look at {study['chosen']} ...")
    turns = [assistant.engine.analyze(q.text, s.top_k) for q in items] if study["chosen"] != 1.0 else fused_turns
    base = s.answer
    metrics, fused_metrics = _answer_metrics(items, turns, base), _answer_metrics(items, fused_turns, base)

    def score(cfg: dict[str, Any], idx: list[int]) -> float:
        return by_set_mean(items, idx, lambda i: sum(metrics(cfg, i)))

    configs = answer_configs()
    held, chosen = cv(items, configs, score, k)
    parts = folds(items, k)
    rows, fused_rows = {}, {}
    for name, j in (("key_points", 0), ("citation_precision", 1)):
        rows[name] = spread([statistics.fmean(metrics(chosen[f], i)[j] for i in parts[f]) for f in range(k)])
        fused_rows[name] = spread([statistics.fmean(fused_metrics(chosen[f], i)[j] for i in parts[f]) for f in range(k)])
    current = {key: getattr(base, key) for key in configs[0]}
    best, note = settle(configs, current, score, held, len(items))
    return {"questions": len(items), "folds": k, "held_out": rows, "held_out_fused_order": fused_rows,
            "chosen_per_fold": chosen, "chosen": {**best, "second_look": study["chosen"]}, "settle": note,
            "second_look": study}


def _answer_metrics(items: list[Any], turns: list[Any], base: Any) -> Any:
    """(key points, citation precision) of question ``i``'s extractive sentences under a config."""
    from assistant.extractive import choose

    cache: dict[tuple[int, str], tuple[float, float]] = {}

    def metrics(cfg: dict[str, Any], i: int) -> tuple[float, float]:
        key = (i, json.dumps(cfg, sort_keys=True))
        if key not in cache:
            t = turns[i]
            chosen = choose(t.evidence, [s for _, s in t.hits], base.model_copy(update=cfg), t.answers or None) if t.evidence else []
            text = " ".join(s.text for s in chosen)
            works = [t.hits[s.doc_index][0].work_id for s in chosen]
            cp = sum(w in items[i].gold for w in works) / len(works) if works else 0.0
            cache[key] = (key_point_coverage(text, items[i].key_points), cp)
        return cache[key]

    return metrics


SECOND_LOOK = (1.0, 0.75, 0.5, 0.25, 0.0)  # share of the fused score; the rest: the best evidence sentence's


def second_look(items: list[Any], turns: list[Any], k: int) -> dict[str, Any]:
    """The issue's "second look": the abstracts read for evidence (the top 3) re-ranked by
    ``a * fused score + (1 - a) * best evidence sentence`` (each scaled by its best among the
    three), the rest of the ranking kept. ``a = 1`` is the fitted fusion. Chosen by the same
    k-fold CV and per-group means as the fusion, on nDCG@10 of the answer's hits and on how often
    the first abstract is a gold work (citation precision follows it). Its cost is a sort of three
    numbers: the evidence is scored for the decision anyway. ``turns``: analysed in the fused order."""
    from assistant.extractive import second_look as rerank  # the product's own re-rank

    def works(a: float, i: int) -> list[str]:
        t = turns[i]
        if not t.hits or t.evidence is None:
            return []
        return [d.work_id for d, _ in rerank(t.evidence, t.hits, a)[0]]

    cache: dict[tuple[float, int], tuple[float, float]] = {}

    def metrics(a: float, i: int) -> tuple[float, float]:
        if (a, i) not in cache:
            w = works(a, i)
            cache[(a, i)] = (ndcg_at_k(items[i].gold, w, 10), recall_at_k(items[i].gold, w[:1], 1) if w else 0.0)
        return cache[(a, i)]

    def score(a: float, idx: list[int]) -> float:
        return by_set_mean(items, idx, lambda i: metrics(a, i)[0])

    held, chosen = cv(items, list(SECOND_LOOK), score, k)
    parts = folds(items, k)
    report: dict[str, Any] = {"grid": list(SECOND_LOOK), "chosen_per_fold": chosen}
    for name, pick in (("chosen", lambda f: chosen[f]), ("fitted_fusion", lambda f: 1.0)):
        for m, j in (("ndcg@10", 0), ("first_is_gold", 1)):
            report[f"{name}.{m}"] = spread([statistics.fmean(metrics(pick(f), i)[j] for i in parts[f]) for f in range(k)])
    best, note = settle(list(SECOND_LOOK), 1.0, score, held, len(items))  # against the fused order
    report["chosen"], report["settle"], report["ship"] = best, note, best != 1.0
    return report

