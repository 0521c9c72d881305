"""The answer / caveat / refuse decision (assistant/evidence/decision.py)."""

from __future__ import annotations

from typing import Any

from assistant.evidence.decision import FEATURES, decide, relevance
from assistant.settings import DecisionSettings


def feats(x: float) -> dict[str, float]:
    return dict.fromkeys(FEATURES, x)


def test_relevance_rises_with_every_positively_weighted_feature() -> None:
    cfg = DecisionSettings()
    w = cfg.weights()
    for f in FEATURES:
        lo, hi = feats(0.3), feats(0.3)
        hi[f] = 0.6
        assert (relevance(hi, w, cfg.bias) > relevance(lo, w, cfg.bias)) == (w[f] > 0)


def test_outcomes_follow_the_thresholds_and_missing_names() -> None:
    cfg = DecisionSettings(bias=0.0, w_dense=1.0, w_lexical=0.0, w_sentence_dense=0.0, w_sentence_lexical=0.0,
                           refuse_below=0.2, caveat_below=0.6, missing_refuse_below=0.6)
    # relevance = sigmoid(dense): dense -3 -> 0.047, 0 -> 0.5, 3 -> 0.95
    assert decide({"dense": -3.0}, [], cfg).outcome == "refuse"
    assert decide({"dense": 0.0}, [], cfg).outcome == "caveat"
    assert decide({"dense": 3.0}, [], cfg).outcome == "answer"
    d = decide({"dense": 3.0}, ["H100"], cfg)
    assert d.outcome == "caveat" and d.missing == ["H100"]
    assert decide({"dense": -3.0}, ["H100"], cfg).outcome == "refuse"
    # a missing name with a weak match (0.5 < caveat_below): neither the topic nor the thing is held
    assert decide({"dense": 0.0}, ["H100"], cfg).outcome == "refuse"
    # the missing-name bar is its own threshold: above it, the sources' statements under a caveat
    lower = cfg.model_copy(update={"missing_refuse_below": 0.4})
    assert decide({"dense": 0.0}, ["H100"], lower).outcome == "caveat"
    assert decide({"dense": -1.0}, ["H100"], lower).outcome == "refuse"  # 0.27 < 0.4


def _evidence(best: list[float]) -> Any:
    from assistant.evidence.scoring import Evidence, Sentence

    sentences = []
    for i, b in enumerate(best):  # each abstract: a weak opener, then its best sentence
        sentences += [Sentence(i, f"s{i}a", 0, 3, lexical=0.1, dense=0.1), Sentence(i, f"s{i}b", 4, 7, lexical=b, dense=b)]
    return Evidence("q", [f"text {i}" for i in range(len(best))], sentences)


def test_second_look_puts_the_abstract_whose_sentence_answers_first() -> None:
    from assistant.compose.extractive import second_look

    ev = _evidence([0.3, 0.9, 0.5])
    read = [("A", 1.0), ("B", 0.9), ("C", 0.8), ("D", 0.7)]
    hits, moved = second_look(ev, read, 0.0)
    assert [d for d, _ in hits] == ["B", "C", "A", "D"]  # the rest of the ranking is kept
    assert moved.texts == ["text 1", "text 2", "text 0"]
    assert [(s.doc_index, s.text) for s in moved.sentences][:2] == [(0, "s1a"), (0, "s1b")]
    assert second_look(ev, read, 1.0) == (read, ev)  # the fused order, unchanged
    hits, _ = second_look(ev, [("A", 1.0), ("B", 0.1), ("C", 0.1)], 0.75)
    assert hits[0][0] == "A"  # a far better retrieval score keeps its place at a high fused share


def test_separation_features_read_the_signals_as_the_collection_ranks_them() -> None:
    from assistant.evidence.decision import separation, visible_lists

    lists = {"chunk": [("g", 0.9), ("n", 0.8)], "abstract": [("n", 0.7), ("g", 0.6)], "bm25": [("g", 9.0), ("n", 3.0)]}

    class Doc:
        def __init__(self, work: str) -> None:
            self.work_id, self.text = work, "gold words" if work == "G" else "neighbour words"

    docs = {"g": Doc("G"), "n": Doc("N")}
    assert separation("g", lists, 0.5) == {"agreement": 2 / 3, "bm25_margin": 6 / 9, "rare_top": 0.5}
    visible = visible_lists(lists, {"G"}, lambda: docs)
    assert all(r == [(d, v) for d, v in lists[s] if d == "n"] for s, r in visible.items())
    assert separation("n", visible, 0.0)["agreement"] == 1.0 and separation("n", visible, 0.0)["bm25_margin"] == 1.0
    assert visible_lists(lists, None, lambda: docs) == lists


def test_rare_words_are_the_ones_the_collection_holds() -> None:
    from assistant.evidence.decision import rare_coverage
    from assistant.evidence.scoring import terms
    from assistant.store.idf import Idf

    idf = Idf(["sparse attention kernel", "sparse attention memory", "attention heads", "tokenizer vocabulary"])
    q = terms("Which sparse attention kernel saves memory with a zorblax?")  # zorblax: no abstract holds it
    kernel_doc, memory_doc = set(terms("sparse attention kernel")), set(terms("sparse attention memory"))
    both = rare_coverage(q, [kernel_doc, memory_doc], idf)
    assert both[0] > 0 and both[1] > 0 and both[0] == both[1]  # kernel and memory are the rarest held words
    left = idf.without(["sparse attention kernel"])  # that abstract excluded: "kernel" is held by none
    assert rare_coverage(q, [memory_doc], left)[0] > both[1]


def test_idf_without_texts_equals_the_idf_of_the_rest() -> None:
    from assistant.evidence.decision import rare_coverage
    from assistant.evidence.scoring import terms
    from assistant.store.idf import Idf

    texts = ["sparse attention kernel", "sparse attention memory", "attention heads", "tokenizer vocabulary"]
    full, rest = Idf(texts), Idf(texts[1:])
    left = full.without(texts[:1])
    for word in ("sparse", "attention", "kernel", "memory", "tokenizer", "zorblax"):
        assert left(word) == rest(word)
    assert full.without([]) is full
    q = terms("Which sparse attention kernel saves memory?")
    memory_doc = set(terms("sparse attention memory"))
    assert rare_coverage(q, [memory_doc], left) == rare_coverage(q, [memory_doc], rest)


def test_the_fit_reports_the_constants_in_use_and_hedges_on_right_and_wrong_answers_apart() -> None:
    # the "before" of a refit: the constants in use on the same folds, nothing fitted; a hedge on an
    # answer whose first abstract is gold is counted apart from one on a wrong answer
    from evals.fit_decision import rates_now

    cfg = DecisionSettings(bias=0.0, w_dense=1.0, w_lexical=0.0, w_sentence_dense=0.0, w_sentence_lexical=0.0,
                           w_dense_margin=0.0, w_read_lexical=0.0, w_agreement=0.0, w_bm25_margin=0.0,
                           refuse_below=0.2, caveat_below=0.6, missing_refuse_below=0.6)
    rows = []
    for i in range(10):  # dense 0.0 -> relevance 0.5: a caveat; 3.0 -> 0.95: an answer
        for kind, dense, right in (("answerable", 0.0 if i < 4 else 3.0, i % 2 == 0), ("loo", 0.0, False)):
            rows.append({"id": str(i), "group": str(i), "set": "s", "type": "paraphrase", "kind": kind,
                         "label": int(kind == "answerable"), "missing": False, "features": {"dense": dense},
                         "first_right": right})
    held = rates_now(rows, 2, cfg)["held_out"]
    assert held["loo.refused_or_caveated"]["mean"] == 1.0
    assert held["answerable.caveated"]["mean"] == 0.4
    right, wrong = held["answerable[first right].caveated"]["mean"], held["answerable[first wrong].caveated"]["mean"]
    assert right > 0 and wrong > 0 and right + wrong > 0.4  # each over its own rows (2 of 5 each)
