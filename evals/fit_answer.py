"""The extractive answer's fit (``python -m evals.fit answer``): the second look (the abstracts read
re-ranked by their evidence) by k-fold CV on nDCG@10 of the fact questions. The sentences
themselves are the learned scorer's (``assistant.evidence.scorer``, ``python -m evals.fit_sentences``);
the hand-written choice this fit once tuned (``extractive.choose`` and its constants) is retired
(docs/learned.md).
"""

from __future__ import annotations

import statistics
from typing import Any

from evals.cv import by_set_mean, cv, folds, settle, spread
from evals.metrics import ndcg_at_k, recall_at_k
from evals.tuning import log, tuning_questions


def fact_questions(items: list[Any]) -> list[Any]:
    """The questions the product answers as one fact (the shape detector's reading; a follow-up's
    previous answer is not a list in these sets): a list / comparison / overview is composed by
    assistant/collection/answer.py instead."""
    from assistant.question.shape import FACT, detect

    return [q for q in items if detect(q.text).kind == FACT]


def fit_answer(assistant: Any, sets: list[str], k: int, limit: int | None = None) -> dict[str, Any]:
    """The second look by CV, on the abstracts in the fused order the product retrieves them in."""
    items = fact_questions([q for q in tuning_questions(assistant, sets, limit) if q.gold and q.key_points])
    s = assistant.settings
    log(f"answer: {len(items)} fact questions; analysing them in the fused order ...")
    s.answer = s.answer.model_copy(update={"second_look": 1.0})
    turns = [assistant.engine.analyze(q.text, s.top_k) for q in items]
    study = second_look(items, turns, k)
    s.answer = s.answer.model_copy(update={"second_look": study["chosen"]})
    return {"questions": len(items), "folds": k, "objective": "nDCG@10 of the fact questions, mean per set and type",
            "chosen": {"second_look": study["chosen"]}, "second_look": study}


SECOND_LOOK = (1.0, 0.75, 0.5, 0.25, 0.0)  # share of the fused score; the rest: the best evidence sentence's


def second_look(items: list[Any], turns: list[Any], k: int) -> dict[str, Any]:
    """The issue's "second look": the abstracts read for evidence (the top 3) re-ranked by
    ``a * fused score + (1 - a) * best evidence sentence`` (each scaled by its best among the
    three), the rest of the ranking kept. ``a = 1`` is the fitted fusion. Chosen by the same
    k-fold CV and per-group means as the fusion, on nDCG@10 of the answer's hits and on how often
    the first abstract is a gold work (citation precision follows it). Its cost is a sort of three
    numbers: the evidence is scored for the decision anyway. ``turns``: analysed in the fused order."""
    from assistant.compose.extractive import second_look as rerank  # the product's own re-rank

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

