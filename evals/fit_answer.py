"""The extractive answer's fit (``python -m evals.fit answer``): sentence choice by k-fold CV on
key points and citation precision, and the second look (the abstracts read re-ranked by their
evidence) by the same CV on nDCG@10.

The objective is, per question, key points + citation precision of the chosen sentences (each in
[0, 1]), averaged per tuning set and question type (``by_set_mean``): a further abstract cited as
filler costs precision, a sentence left out costs key points. Only the questions the product
answers with ``extractive.choose`` are fitted on: those the shape detector reads as a fact
question (a list / comparison / overview is composed by assistant/collection/answer.py instead; all
eleven of dev's multi-paper questions are lists there). Beside the chosen figures the fit reports
the same folds with the constants as they were (``before``), per set and question type, and how
often an answer cites more than one abstract, how often such a further abstract is gold, and how
often the lead sentence itself holds a key point (``lead_key_points``).
"""

from __future__ import annotations

import itertools
import json
import statistics
from typing import Any

from evals.answers import baseline_answer
from evals.cv import by_set_mean, cv, folds, settle, spread
from evals.metrics import key_point_coverage, ndcg_at_k, recall_at_k
from evals.tuning import log, tuning_questions

BEFORE = {"lexical_weight": 0.6, "retrieval_prior": 0.6, "top_doc_sentences": 3, "other_doc_share": 0.8,
          "context_weight": 1.0, "further_relevance": 0.1775}  # the constants before #19's composition fit


def answer_configs() -> list[dict[str, Any]]:
    grid = itertools.product((0.4, 0.6, 0.8), (0.0, 0.3, 0.6), (3, 4), (0.8, 0.9, 1.0), (1.0, 0.9, 0.8, 0.7),
                             (0.1775, 0.35, 0.5))
    keys = ("lexical_weight", "retrieval_prior", "top_doc_sentences", "other_doc_share", "context_weight", "further_relevance")
    return [dict(zip(keys, values, strict=True)) for values in grid]


def fact_questions(items: list[Any]) -> list[Any]:
    """The questions ``choose`` answers in the product: read as a fact question by the shape
    detector (a follow-up's previous answer is not a list in these sets)."""
    from assistant.question.shape import FACT, detect

    return [q for q in items if detect(q.text).kind == FACT]


def fit_answer(assistant: Any, sets: list[str], k: int, limit: int | None = None) -> dict[str, Any]:
    """The sentence-choice constants by CV, on the abstracts in the order the product reads them.
    First the second look is chosen on the fused order (its own study, ``second_look``); the
    questions are then analysed again with the chosen second look, and the choice is fitted on
    that order. Beside it: the held-out figures of the same per-fold choices on the fused order."""
    items = fact_questions([q for q in tuning_questions(assistant, sets, limit) if q.gold and q.key_points])
    s = assistant.settings
    log(f"answer: {len(items)} fact questions with key points; the naive baseline's answers ...")
    naive = [baseline_answer(assistant, q, q.text, assistant.retriever.docs()) for q in items]
    log("answer: analysing them in the fused order ...")
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
        return by_set_mean(items, idx, lambda i: sum(metrics(cfg, i)[:2]))

    configs = answer_configs()
    held, chosen = cv(items, configs, score, k)
    parts = folds(items, k)
    rows, fused_rows = {}, {}
    for name, j in (("key_points", 0), ("citation_precision", 1)):
        rows[name] = spread([statistics.fmean(metrics(chosen[f], i)[j] for i in parts[f]) for f in range(k)])
        fused_rows[name] = spread([statistics.fmean(fused_metrics(chosen[f], i)[j] for i in parts[f]) for f in range(k)])
    current = {key: getattr(base, key) for key in configs[0]}
    best, note = settle(configs, current, score, held, len(items))
    return {"questions": len(items), "folds": k, "objective": "key points + citation precision, mean per set and type",
            "held_out": rows, "held_out_fused_order": fused_rows,
            "by_group": {"chosen": by_group(items, parts, lambda f, i: metrics(chosen[f], i)),
                         "before": by_group(items, parts, lambda f, i: metrics(BEFORE, i)),
                         "naive_baseline": by_group(items, parts, lambda f, i: naive[i], naive=True)},
            "chosen_per_fold": chosen, "chosen": {**best, "second_look": study["chosen"]}, "settle": note,
            "second_look": study}


def by_group(items: list[Any], parts: list[list[int]], metric: Any, naive: bool = False) -> dict[str, dict[str, float]]:
    """Held-out figures per tuning set, question type and overall, mean ± sd over the folds.
    ``metric(fold, i)`` -> (key points, citation precision, lead key points, abstracts cited,
    further abstracts cited, of them gold); ``naive``: only the first two (the naive baseline's
    answer, ``evals.answers.baseline_answer``, as ``assistant eval`` scores it)."""
    out: dict[str, dict[str, float]] = {}
    groups = sorted({q.raw["_set"] for q in items}) + sorted({f"type:{q.type}" for q in items}) + ["all"]
    for g in groups:
        def mine(i: int, g: str = g) -> bool:
            return g in ("all", items[i].raw["_set"], f"type:{items[i].type}")
        for name, j in (("key_points", 0), ("citation_precision", 1), ("lead_key_points", 2))[: 2 if naive else 3]:
            vals = [statistics.fmean(metric(f, i)[j] for i in p if mine(i)) for f, p in enumerate(parts) if any(mine(i) for i in p)]
            out[f"{g}.{name}"] = spread(vals)
        if naive:
            continue
        every = [metric(f, i) for f, p in enumerate(parts) for i in p if mine(i)]
        out[f"{g}.cites_several"] = {"share": round(sum(m[3] > 1 for m in every) / len(every), 4)}
        further = sum(m[4] for m in every)
        out[f"{g}.further_gold"] = {"gold": sum(m[5] for m in every), "cited": further}
    return out


def _answer_metrics(items: list[Any], turns: list[Any], base: Any) -> Any:
    """(key points, citation precision, lead key points, abstracts cited, further abstracts cited,
    of them gold) of question ``i``'s extractive sentences under a config; the bar a further
    abstract passes is the config's ``further_relevance`` on each abstract's own relevance."""
    from assistant.compose.extractive import choose

    cache: dict[tuple[int, str], tuple[float, ...]] = {}

    def metrics(cfg: dict[str, Any], i: int) -> tuple[float, ...]:
        key = (i, json.dumps(cfg, sort_keys=True))
        if key not in cache:
            t, gold = turns[i], items[i].gold
            bar = cfg.get("further_relevance", base.further_relevance)
            answers = [r >= bar for r in t.relevances] or None
            chosen = choose(t.evidence, [s for _, s in t.hits], base.model_copy(update=cfg), answers) if t.evidence else []
            text = " ".join(s.text for s in chosen)
            works = [t.hits[s.doc_index][0].work_id for s in chosen]
            cp = sum(w in gold for w in works) / len(works) if works else 0.0
            docs = list(dict.fromkeys(works))
            lead = key_point_coverage(chosen[0].text, items[i].key_points) if chosen else 0.0
            cache[key] = (key_point_coverage(text, items[i].key_points), cp, lead, len(docs), len(docs[1:]),
                          sum(w in gold for w in docs[1:]))
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

