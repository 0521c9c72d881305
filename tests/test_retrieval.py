"""Hybrid retrieval on the bundled corpus (the session-scoped ingested index of conftest.py)."""

from __future__ import annotations

import pytest

from assistant import Assistant
from evals.data import load_dev, resolve_anchors
from evals.metrics import recall_at_k


def _questions(assistant: Assistant, split: str, types: set[str]) -> list:
    qs, problems = resolve_anchors(load_dev(split=split), assistant.retriever.docs())
    assert not problems
    return [q for q in qs if q.type in types and q.gold]


def _recall5(assistant: Assistant, questions: list, mode: str) -> float:
    scores = []
    for q in questions:
        works = [h.metadata["work_id"] for h in assistant.search(q.text, k=5, mode=mode)]
        scores.append(recall_at_k(q.gold, works, 5))
    return sum(scores) / len(scores)


def test_lookup_recall_at_5_on_test_split(corpus: Assistant) -> None:
    # Measured: hybrid 1.00 on these 11 questions (bm25 1.00, dense 0.91); 0.8 allows two misses.
    qs = _questions(corpus, None, {"lookup"})
    assert len(qs) >= 10
    assert _recall5(corpus, qs, "hybrid") >= 0.8


def test_hybrid_not_worse_than_either_retriever_on_test_split(corpus: Assistant) -> None:
    # All 35 answerable single-turn questions of the test split. Measured: hybrid 0.971, bm25
    # 0.990, dense 0.900 (hybrid ranks q002 9th: BM25 has it 1st, dense not in its top 40).
    # The fusion may lose at most one question's worth to the better single retriever.
    qs = _questions(corpus, None, {"lookup", "paraphrase", "numeric", "multi"})
    hybrid = _recall5(corpus, qs, "hybrid")
    best_single = max(_recall5(corpus, qs, "bm25"), _recall5(corpus, qs, "dense"))
    assert hybrid >= best_single - 1 / len(qs) - 1e-9
    assert hybrid >= 0.9


@pytest.mark.parametrize("mode", ["hybrid", "dense", "bm25"])
def test_modes_return_k_distinct_works_best_first(corpus: Assistant, mode: str) -> None:
    hits = corpus.search("attention over long sequences split across devices", k=7, mode=mode)
    assert len(hits) == 7
    assert [h.rank for h in hits] == list(range(1, 8))
    assert len({h.metadata["work_id"] for h in hits}) == 7
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)


def test_versions_of_one_work_are_collapsed(corpus: Assistant) -> None:
    docs = corpus.retriever.docs()
    works: dict[str, list[str]] = {}
    for d in docs.values():
        works.setdefault(d.work_id, []).append(d.doc_id)
    multi = [ids for ids in works.values() if len(ids) > 1]
    assert multi, "the bundled corpus holds at least one paper in two versions"
    text = docs[multi[0][1]].text
    for mode in ("hybrid", "dense", "bm25"):
        hits = corpus.search(text[:300], k=10, mode=mode)
        assert hits[0].metadata["work_id"] == docs[multi[0][1]].work_id
        assert len({h.metadata["work_id"] for h in hits}) == len(hits)


def test_empty_query_and_unknown_mode(corpus: Assistant) -> None:
    assert corpus.search("   ", k=5) == []
    with pytest.raises(ValueError):
        corpus.search("attention", k=5, mode="nonsense")
