"""The extractive answer: the evidence sentences that best answer the question, verbatim, each
with its citation. No LLM; also the fallback when a model fails.

A sentence's value is its evidence score (term overlap and cosine with the question) plus a
prior for how well its abstract was retrieved. The best abstract gives up to
``top_doc_sentences`` sentences; another abstract gives one when its best sentence comes close
to the best overall (``other_doc_share``): several works are cited only when several answer.
"""

from __future__ import annotations

from typing import Any

from assistant.evidence import Evidence, Sentence


def choose(evidence: Evidence, hit_scores: list[float], cfg: Any) -> list[Sentence]:
    """The sentences to answer with, in reading order (best abstract first). ``cfg`` is
    ``settings.answer``."""
    if not evidence.sentences:
        return []
    best_hit = max(hit_scores, default=0.0) or 1.0

    def value(s: Sentence) -> float:
        return s.score(cfg.lexical_weight) + cfg.retrieval_prior * hit_scores[s.doc_index] / best_hit

    ranked = sorted(evidence.sentences, key=lambda s: -value(s))
    top, first = value(ranked[0]), ranked[0].doc_index
    chosen: list[Sentence] = []
    per_doc: dict[int, int] = {}
    for s in ranked:
        if len(chosen) >= cfg.max_sentences:
            break
        own = s.doc_index == first
        cap = cfg.top_doc_sentences if own else 1
        if per_doc.get(s.doc_index, 0) >= cap or (not own and value(s) < top * cfg.other_doc_share):
            continue
        per_doc[s.doc_index] = per_doc.get(s.doc_index, 0) + 1
        chosen.append(s)
    chosen.sort(key=lambda s: (s.doc_index != first, s.doc_index, s.start))
    return chosen


def draft(chosen: list[Sentence]) -> str:
    """The answer text before verification: each sentence with its source number."""
    return " ".join(f"{s.text} [{s.doc_index + 1}]" for s in chosen)
