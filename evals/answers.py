"""The answer side of the evaluation harness (:mod:`evals.harness`): one answer's record, the naive
baseline's key points, the leave-one-out ask, and their aggregates (results.json ``answers`` and
``leave_one_out``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from assistant.engine import DECLINED_REASON
from evals.data import Question
from evals.metrics import key_point_coverage, mean, percentile


def answer_question(assistant: Any, q: Question, query: str, history: list[dict[str, str]], backend: str | None,
                    k: int, docs: dict[str, Any], rec: dict[str, Any], *, loo: bool = False) -> Any:
    """Answer ``q`` and add ``answer`` (and ``baseline_key_points``, ``loo`` where they apply) to its
    per-question record ``rec``; returns the Answer (a later question's history may need it)."""
    ans = assistant.ask(q.text, history=history, backend=backend, k=k)
    rec["answer"] = answer_record(q, ans, docs)
    if q.gold:
        kp, precision = baseline_answer(assistant, q, query, docs)
        if q.key_points:
            rec["baseline_key_points"] = kp
        rec["baseline_citation_precision"] = precision
    if loo and q.gold and not q.previous:
        held = assistant.ask(q.text, backend=backend, k=k, exclude=set(q.gold))
        rec["loo"] = {"refused": held.refused, "caveated": bool(held.caveat) and not held.refused,
                      "caveat_kind": held.caveat_kind,
                      "cited_gold": any(c.doc_id in docs and docs[c.doc_id].work_id in q.gold for c in held.citations),
                      "model_declined": held.fallback_reason == DECLINED_REASON,
                      "answer": held.text, "said": _said(held)}
    return ans


def _said(ans: Any) -> str:
    """The answer's supported sentences (what the caveat checks read; python -m evals.experiments.focus)."""
    return " ".join(s.text for s in ans.sentences if s.supported)


def answer_record(q: Question, ans: Any, docs: dict[str, Any]) -> dict[str, Any]:
    import re

    cited_docs = [c.doc_id for c in ans.citations]
    cited_works = list(dict.fromkeys(docs[d].work_id if d in docs else d for d in cited_docs))
    markers = [int(x) for m in re.finditer(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]", ans.text) for x in re.split(r"\s*[,;]\s*", m.group(1))]
    valid = all(1 <= n <= len(ans.citations) for n in markers) and all(
        1 <= n <= len(ans.citations) for s in ans.sentences for n in s.citations)
    rec: dict[str, Any] = {
        "answer": ans.text, "refused": bool(ans.refused), "backend": ans.backend,
        "caveated": bool(ans.caveat) and not ans.refused, "caveat_kind": ans.caveat_kind, "relevance": ans.relevance,
        "cited_works": cited_works, "n_citations": len(ans.citations), "markers": len(markers),
        "citation_valid": valid if not ans.refused else None,
        "sentences": len(ans.sentences), "supported_sentences": sum(1 for s in ans.sentences if s.supported),
        "timings": dict(ans.timings), "usage": {k: v for k, v in ans.usage.items() if isinstance(v, int | float)},
        "fallback_reason": ans.fallback_reason, "said": _said(ans),
    }
    if q.answerable and not ans.refused and cited_works:
        rec["citation_precision"] = sum(1 for w in cited_works if w in q.gold) / len(cited_works)
        rec["first_cited_gold"] = cited_works[0] in q.gold  # a hedge here is a caveat on a right answer
    if q.answerable:
        rec["key_point_coverage"] = key_point_coverage(ans.text if not ans.refused else "", q.key_points)
    return rec


def baseline_key_points(assistant: Any, q: Question, query: str) -> float:
    """The naive baseline's answer: the two sentences of its top abstract closest to the question."""
    return baseline_answer(assistant, q, query, {})[0]


def baseline_answer(assistant: Any, q: Question, query: str, docs: dict[str, Any]) -> tuple[float, float]:
    """The naive baseline's answer (the two sentences of its top abstract closest to the question,
    citing that abstract): its key points and its citation precision (1 when the top abstract is
    a gold work, else 0)."""
    import numpy as np

    from assistant.language.text import split_sentences

    hits = assistant.search(query, k=1, mode="baseline")
    if not hits:
        return 0.0, 0.0
    work = hits[0].metadata.get("work_id") or (docs[hits[0].doc_id].work_id if hits[0].doc_id in docs else hits[0].doc_id)
    precision = 1.0 if work in q.gold else 0.0
    text = hits[0].text
    sents = [text[s.start : s.end] for s in split_sentences(text)]
    vecs = np.asarray(assistant.embedder([query] + sents), dtype=np.float32)
    best = np.argsort(-(vecs[1:] @ vecs[0]))[:2]
    return key_point_coverage(" ".join(sents[i] for i in sorted(best)), q.key_points), precision


def rate(num: int, den: int) -> float:
    return num / den if den else float("nan")


def agg_answers(recs: list[dict[str, Any]]) -> dict[str, Any]:
    rs = [r for r in recs if "answer" in r]
    ans = [r["answer"] for r in rs]
    answerable = [r["answer"] for r in rs if r["type"] != "unanswerable"]
    unanswerable = [r["answer"] for r in rs if r["type"] == "unanswerable"]
    refused = [r for r in rs if r["answer"]["refused"]]
    not_refused = [a for a in ans if not a["refused"]]
    sentences = sum(a["sentences"] for a in not_refused)
    out = {
        "n": len(ans),
        "citation_validity": mean(1.0 if a["citation_valid"] else 0.0 for a in not_refused),
        "citation_precision": mean(a["citation_precision"] for a in answerable if "citation_precision" in a),
        "citation_support_rate": rate(sum(a["supported_sentences"] for a in not_refused), sentences),
        "key_point_coverage": mean(a["key_point_coverage"] for a in answerable if not math.isnan(a.get("key_point_coverage", math.nan))),
        "refusal_precision": rate(sum(1 for r in refused if r["type"] == "unanswerable"), len(refused)),
        "refusal_recall": rate(sum(1 for a in unanswerable if a["refused"]), len(unanswerable)),
        "false_refusal_rate": rate(sum(1 for a in answerable if a["refused"]), len(answerable)),
        "answerable_caveated_rate": rate(sum(1 for a in answerable if a.get("caveated")), len(answerable)),
        "unanswerable_refused_or_caveated": rate(sum(1 for a in unanswerable if a["refused"] or a.get("caveated")), len(unanswerable)),
        "baseline_key_point_coverage": mean(r["baseline_key_points"] for r in rs if "baseline_key_points" in r),
        "baseline_citation_precision": mean(r["baseline_citation_precision"] for r in rs if "baseline_citation_precision" in r),
        "fallbacks": sum(1 for a in ans if a.get("fallback_reason")),
        "model_declined": sum(1 for a in ans if a.get("fallback_reason") == DECLINED_REASON),
        # which caveat hedges a right answer, and which catches an unanswerable one (Answer.caveat_kind)
        "hedged_by_kind": by_kind([a for a in answerable if a.get("caveated")], len(answerable)),
        # the caveat on a right answer (its source [1] is gold) vs on a wrong one, where it is earned
        "hedged_first_right": rate(sum(1 for a in answerable if a.get("caveated") and a.get("first_cited_gold")), len(answerable)),
        "hedged_first_wrong": rate(sum(1 for a in answerable if a.get("caveated") and not a.get("first_cited_gold")), len(answerable)),
        "unanswerable_by_kind": by_kind([a for a in unanswerable if a["refused"] or a.get("caveated")], len(unanswerable)),
    }
    stages = sorted({k for a in ans for k in a["timings"]})
    out["latency"] = {s: {"p50": percentile([a["timings"][s] for a in ans if s in a["timings"]], 50),
                          "p95": percentile([a["timings"][s] for a in ans if s in a["timings"]], 95)} for s in stages}
    tok = defaultdict(float)
    for a in ans:
        for k, v in a["usage"].items():
            tok[k] += v
    out["tokens"] = {"total": dict(tok), "per_answer": {k: v / len(ans) for k, v in tok.items()} if ans else {}}
    return out


def kind_of(a: dict[str, Any]) -> str:
    """An outcome's caveat kind for the by-kind counts: a refusal is "refused" (with the kind it
    names, "refused:missing_name"); a caveat written before kinds were recorded is "unknown"."""
    kind = a.get("caveat_kind") or ("" if a.get("refused") else "unknown")
    return f"refused:{kind}" if a.get("refused") and kind else "refused" if a.get("refused") else kind


def by_kind(outcomes: list[dict[str, Any]], n: int) -> dict[str, float]:
    """The share of ``n`` questions that each caveat kind (or refusal) accounts for."""
    counts: dict[str, int] = defaultdict(int)
    for a in outcomes:
        counts[kind_of(a)] += 1
    return {k: rate(v, n) for k, v in sorted(counts.items())}


def agg_leave_one_out(recs: list[dict[str, Any]], types: bool = True) -> dict[str, Any]:
    """Outcomes of the questions asked with their gold work left out ({} when none were), with the
    share each caveat kind catches, overall and (``types``) per question type."""
    held = [r["loo"] for r in recs if "loo" in r]
    if not held:
        return {}
    out = {"n": len(held), "refused": rate(sum(h["refused"] for h in held), len(held)),
            "caveated": rate(sum(h["caveated"] for h in held), len(held)),
            "refused_or_caveated": rate(sum(h["refused"] or h["caveated"] for h in held), len(held)),
            "answered_plainly": rate(sum(not (h["refused"] or h["caveated"]) for h in held), len(held)),
            "model_declined": rate(sum(bool(h.get("model_declined")) for h in held), len(held)),
            "by_kind": by_kind([h for h in held if h["refused"] or h["caveated"]], len(held))}
    if types:
        out["by_type"] = {t: agg_leave_one_out([r for r in recs if r.get("type") == t], types=False)
                          for t in dict.fromkeys(r["type"] for r in recs if "loo" in r and "type" in r)}
    return out
