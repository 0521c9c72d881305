"""The harness's list metrics (``assistant eval`` on any split): the shape the detector gave each
question, and for list / compare / overview questions (and follow-ups on a list) the recall and
precision of the cited works beside the naive retriever's top-k. Split out of evals/lists.py."""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

LIST = "list"
SHAPED_TYPES = (LIST, "compare", "overview")
FOLLOW_UP = "follow-up"  # a list question asked of the previous list ("which of these…"), reported apart
REWORDED = "list_reworded"  # a list whose topic is worded as a user would, not as the abstracts' term, reported apart
WRITTEN = "list_written"  # a list question written by hand in a researcher's words (evals/experiments/lists_written.py), reported apart
CURATED = "list_curated"  # by hand, its gold judged by reading the candidates (evals/experiments/lists_curated.py), reported apart


def scores(picked: list[str], gold: set[str]) -> tuple[float, float | None]:
    """(recall, precision) of the picked works against the gold set. Precision is undefined (None)
    when nothing is picked, as the harness's citation precision is (evals/answers.py: recorded only
    for an answer that cites something); means leave it out (``defined_values``) and a refusal or an
    empty list is counted apart (``refused``, ``listed_nothing``)."""
    hit = len(set(picked) & gold)
    return (hit / len(gold) if gold else 0.0), (hit / len(set(picked)) if picked else None)


def defined_values(values: list[float | None]) -> list[float]:
    return [v for v in values if v is not None]


def mean_sd(values: list[float]) -> list[float]:
    import statistics

    return [round(statistics.fmean(values), 4), round(statistics.pstdev(values), 4)] if values else [float("nan"), 0.0]


def expected_shape(q: Any) -> str | None:
    """The shape a question of a list-style split asks for (its ``shape`` field, or its type)."""
    label = str((q.raw or {}).get("shape") or q.type or "").lower()  # "list", "compare" / "comparison", "overview"
    return next((shape for shape in SHAPED_TYPES if label.startswith(shape[:6])), None)


def list_record(assistant: Any, q: Any, ans: Any, docs: dict[str, Any]) -> dict[str, Any]:
    """Fields for the per-question record: the detected shape, and for list / compare / overview
    questions the recall and precision of the cited works beside the naive baseline's top-k."""
    out: dict[str, Any] = {"shape": getattr(ans, "shape", "fact")}
    expected = expected_shape(q)
    if expected is None or not q.gold:
        return out
    if expected == "list" and q.previous:
        expected = FOLLOW_UP
    elif expected == "list" and q.type in (REWORDED, WRITTEN, CURATED):
        expected = q.type
    cited = list(dict.fromkeys(docs[c.doc_id].work_id if c.doc_id in docs else c.doc_id for c in ans.citations))
    base = [h.metadata.get("work_id", h.doc_id) for h in assistant.search(q.text, k=assistant.settings.top_k, mode="baseline")]
    (r, p), (br, bp) = scores(cited, q.gold), scores(base, q.gold)
    out["list"] = {"expected": expected, "recall": r, "precision": p, "baseline_recall": br,
                   "baseline_precision": bp, "all_named_cited": q.gold <= set(cited), "refused": bool(ans.refused),
                   "items": len(getattr(ans, "items", []))}
    return out


def agg_lists(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """Shape confusion per question type, and list metrics per expected shape ({} without answers)."""
    if not any("shape" in r for r in recs):
        return {}
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    for r in recs:
        if "shape" in r:
            confusion[r["type"]][r["shape"]] += 1
    out: dict[str, Any] = {"shape_confusion": {t: dict(c) for t, c in confusion.items()}, "by_shape": {}}
    for shape in (*SHAPED_TYPES, REWORDED, WRITTEN, CURATED, FOLLOW_UP):
        rows = [(r["list"], r["shape"]) for r in recs if r.get("list", {}).get("expected") == shape]
        if rows:
            out["by_shape"][shape] = {
                "n": len(rows), **{k: mean_sd(defined_values([x[k] for x, _ in rows]))[0] for k in ("recall", "precision", "baseline_recall", "baseline_precision")},
                "all_named_cited": mean_sd([float(x["all_named_cited"]) for x, _ in rows])[0],
                "refused": mean_sd([float(x.get("refused", False)) for x, _ in rows])[0],
                "detected": mean_sd([float(s == (LIST if shape in (FOLLOW_UP, REWORDED, WRITTEN, CURATED) else shape)) for _, s in rows])[0]}
    return out


def format_lists(agg: dict[str, Any]) -> str:
    if not agg:
        return ""
    lines = ["Question shapes detected, per question type: " + "; ".join(
        f"{t}: " + ", ".join(f"{s} {n}" for s, n in sorted(c.items())) for t, c in agg["shape_confusion"].items())]
    if agg["by_shape"]:
        lines.append(f"{'shape':13s} {'n':>4s} {'recall':>7s} {'prec.':>7s} {'base R':>7s} {'base P':>7s} {'named':>6s} {'refused':>7s} {'shape ok':>8s}")
        for shape, m in agg["by_shape"].items():
            lines.append(f"{shape:13s} {m['n']:4d} {m['recall']:7.3f} {m['precision']:7.3f} {m['baseline_recall']:7.3f} "
                         f"{m['baseline_precision']:7.3f} {m['all_named_cited']:6.3f} {m['refused']:7.3f} {m['detected']:8.3f}")
        lines.append("(recall / precision of the cited works; base: the naive retriever's top-k works; named: every gold work cited; follow-up: a list question on the previous list; list_reworded: a list topic in a user's words, by the local model; list_written: by hand; list_curated: by hand, gold judged by reading)")
    return "\n".join(lines)


def diagnosis(feats: list[dict[str, Any]]) -> dict[str, Any]:
    """Candidate recall, and the mean best dense cosine / lexical score of gold and other candidates."""
    def best(f: dict[str, Any], gold: bool, k: int) -> float:
        return max((c[k] for c in f["cands"] if (c[2] in f["gold"]) == gold), default=0.0)

    ceiling = [len({c[2] for c in f["cands"]} & f["gold"]) / len(f["gold"]) for f in feats if f["gold"]]
    return {"candidate_recall": mean_sd(ceiling), **{f"{'gold' if g else 'other'}_best_{name}": mean_sd([best(f, g, k) for f in feats])
                                                      for g in (True, False) for k, name in ((1, "dense"), (0, "lexical"))}}


def shape_confusion(names: tuple[str, ...] = ("dev", "generated", "generated_unanswerable", "calibration", "lists", "lists_written",
                                              "shape_facts_written")) -> dict[str, Any]:
    """The shape detector's answer (from the question's words alone) per split and question type; a
    follow-up counts its previous question's detected shape as the previous answer's."""
    from assistant.question.shape import LIST, detect
    from evals.data import load_for_tuning, resolve_path

    out: dict[str, Any] = {}
    for name in names:
        rows = load_for_tuning(resolve_path(name)[1])
        by_id = {r["id"]: r for r in rows}
        table: dict[str, Counter[str]] = defaultdict(Counter)
        for r in rows:
            prev = by_id.get(r.get("previous") or "")
            table[r.get("type", "")][detect(r["question"], prev is not None and detect(prev["question"]).kind == LIST).kind] += 1
        out[name] = {t: dict(c) for t, c in table.items()}
    return out
