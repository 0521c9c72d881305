"""List topics in the user's own words (assistant/collection/topics.py by_meaning / feedback / unwritten, evals/lists.py
fit): lists by meaning, pseudo-relevance feedback, topics no abstract writes. Split out of test_lists.py."""

from __future__ import annotations

import pytest

from assistant import Assistant
from assistant.evidence.scoring import terms
from assistant.types import ListItem
from evals import lists_rule as LR


def test_a_topic_worded_unlike_a_term_still_lists_its_closest_abstracts(corpus: Assistant) -> None:
    ans = corpus.ask("Which approaches here make attention cheaper for long sequences?")
    cited = [i for i in ans.items if i.cited]
    assert ans.shape == "list" and len(cited) >= 2 and any(i.label == "Ring Attention" for i in cited)
    # No abstract is close in meaning (below meaning_floor), yet every word is written: its closest
    # come under the by-meaning head, a hedge, not as a single fact quoting a neighbour plainly.
    off_topic = corpus.ask("Which papers here study protein folding with graph kernels?")
    assert off_topic.shape == "list" and not off_topic.refused and [i for i in off_topic.items if i.cited]
    assert off_topic.caveat == off_topic.text.splitlines()[0] and off_topic.caveat_kind == "list_by_meaning"
    assert "closest in meaning to protein folding with graph kernels" in off_topic.caveat


def test_by_meaning_goes_by_rank_and_cosine_relative_to_the_best() -> None:
    from assistant.collection.topics import Candidate, by_meaning, written
    from assistant.store.chroma import StoredDoc

    def cand(i: int, lexical: float, dense: float) -> Candidate:
        return Candidate(StoredDoc(f"d{i}", "t", "t", f"L{i}", [], f"w{i}"), lexical, dense, (0, 1), False, i)

    found = [cand(0, 0.2, 0.60), cand(1, 0.1, 0.50), cand(2, 0.3, 0.30), cand(3, 0.0, 0.58)]
    assert not written(found, 0.5) and written([*found, cand(4, 1.0, 0.2)], 0.5)  # 1.0: a sentence holds the topic
    assert [c.rank for c in by_meaning(found, 3, 0.6, 0.5)] == [0, 1]  # rank 2 far below the best, rank 3 beyond the rank
    assert by_meaning(found, 3, 0.6, 0.65) == []  # no candidate close enough: nothing is listed


def test_the_fit_chooses_the_rule_by_meaning_for_topics_no_candidate_writes() -> None:
    term = {"gold": {"a"}, "cands": [(1.0, 0.6, "a", 0), (0.2, 0.5, "b", 1)]}
    users = {"gold": {"x", "y"}, "cands": [(0.2, 0.6, "x", 0), (0.1, 0.55, "y", 1), (0.1, 0.2, "z", 2), (0.3, 0.58, "q", 9)]}
    absent = {"gold": set(), "cands": [(0.1, 0.3, "p", 0), (0.1, 0.28, "r", 1)]}
    w, t, k, ratio, floor, unwritten, fb = LR.best_params([term, users, absent])
    assert set(LR.pick(term, w, t, 0, k, ratio, floor)) == {"a"}  # a written topic keeps the term rule
    assert set(LR.pick(users, w, t, 0, k, ratio, floor)) == {"x", "y"}
    assert LR.pick(absent, w, t, 0, k, ratio, floor) == [] and LR.f1_score([], set()) == 1.0 and LR.f1_score(["p"], set()) == 0.0
    assert LR.best_params([term, users, absent], meaning=False)[2:] == (0, 1.0, 0.0, True, 0)
    named_nowhere = {"gold": set(), "unwritten": ["dialect"], "cands": [(0.1, 0.7, "n", 0), (0.1, 0.68, "m", 1)]}
    assert LR.pick(named_nowhere, w, t, 0, k, ratio, floor, True) == ["n", "m"]  # by meaning, under a statement
    assert LR.pick(named_nowhere, w, t, 0, k, ratio, floor, False) == []  # a word no abstract writes: nothing listed
    assert LR._score(named_nowhere, w, t, 0, k, ratio, floor, True) == 1.0  # the statement above them says none
    worded_apart = {"gold": {"g"}, "unwritten": ["photos"], "cands": [(0.1, 0.7, "g", 0), (0.1, 0.3, "o", 1)]}
    assert LR.best_params([term, users, absent, named_nowhere, worded_apart])[5] is True  # its list finds the gold
    assert LR.pick(users, 0.6, 0.61) == []  # the rule fitted on terms alone: the users' wording reaches no cut-off


def test_a_topic_in_a_users_own_words_lists_what_retrieval_finds_and_nothing_unrelated(corpus: Assistant) -> None:
    from assistant.collection.topics import candidates, feedback, written
    from assistant.question.shape import detect

    cfg = corpus.settings.collection
    ans = corpus.ask("Which papers spread attention over several devices to handle very long inputs?")
    cited = [i for i in ans.items if i.cited]
    assert ans.shape == "list" and not ans.refused and any(i.label == "Ring Attention" for i in cited)
    assert len(cited) > cfg.min_listed  # the rule fitted on terms listed at most min_listed of these
    assert "closest in meaning" in ans.text.splitlines()[0] and all(s.supported for s in ans.sentences)
    assert "no sentence writes those words together" in ans.text.splitlines()[0]  # what `written` checked, no more
    assert ans.caveat == ans.text.splitlines()[0] and ans.caveat_kind == "list_by_meaning"  # a hedge, never plain
    found = candidates(corpus.engine.parts, detect(ans.question).topic, cfg.candidates)
    assert not written(found, cfg.phrase_lexical)  # no abstract writes the topic's words
    feedback(corpus.engine.parts, detect(ans.question).topic, found, cfg.meaning_feedback)
    rank, score = (("feedback_rank", "feedback") if cfg.meaning_feedback else ("rank", "dense"))
    top = max(getattr(c, score) for c in found)
    near = {c.doc.doc_id for c in found if getattr(c, rank) < cfg.meaning_rank and getattr(c, score) >= cfg.meaning_ratio * top}
    assert {i.doc_id for i in cited} <= near and len(found) > len(near)  # none beyond the best few
    absent = corpus.ask("Which papers here are about medieval castle architecture?")
    assert absent.refused and not absent.items and not absent.citations


def test_a_verb_phrase_topic_reads_quoted_in_the_lists_head() -> None:
    from assistant.collection.answer import _list_text
    from assistant.question.shape import detect

    item = ListItem(n=1, doc_id="d", label="Switch", text="Each token is routed to one expert.", source="s")
    text = _list_text(detect("Which papers route each token to an expert?"), [item], 0, 0)
    assert text.startswith("1 abstract on 'route each token to an expert' (")
    assert _list_text(detect("Which papers study state space models?"), [item], 0, 0).startswith("1 abstract on state space models (")


def test_a_list_whose_topic_has_a_word_no_abstract_writes_says_none_and_refuses(corpus: Assistant) -> None:
    """Nothing is listed, and no abstract writes "volcano" or "eruption": the answer says so
    plainly with the closest abstracts, instead of the ordinary path quoting unrelated sentences."""
    ans = corpus.ask("Which papers here use transformers for volcano eruption prediction?")
    assert ans.shape == "list" and ans.refused and not ans.citations and ans.closest
    assert ans.text.startswith("No abstract in the collection mentions 'volcano' or 'eruption', so none is about")


def test_neighbours_by_meaning_of_an_unwritten_topic_come_under_a_statement(corpus: Assistant, monkeypatch: pytest.MonkeyPatch) -> None:
    """None writes "dental" in "diffusion models for dental images": when nothing is close enough by
    meaning (the fitted floor) the answer says so; listed by meaning (``meaning_unwritten``, fitted
    True), the list opens by saying so: they are neighbours, not the answer."""
    refused = corpus.ask("Which papers use diffusion models for dental images?")
    assert refused.refused and not refused.citations and refused.text.startswith("No abstract in the collection mentions 'dental'")
    monkeypatch.setattr(corpus.settings.collection, "meaning_floor", 0.0)  # whatever the best cosine
    ans = corpus.ask("Which papers use diffusion models for dental images?")
    cited = [i for i in ans.items if i.cited]
    assert ans.shape == "list" and cited and not ans.refused
    assert ans.caveat and ans.caveat.startswith("No abstract in the collection mentions 'dental'; the ")
    assert ans.text.splitlines()[0] == ans.caveat and "may not be about it" in ans.caveat
    assert ans.caveat_kind == "list_unwritten"
    written = corpus.ask("Which papers here study state space models?")
    assert written.caveat is None and written.caveat_kind is None and "answered as a list" in written.text.splitlines()[0]


def test_unwritten_words_are_the_topics_own_phrase_in_any_spelling() -> None:
    from assistant.collection.topics import unwritten
    from assistant.store.idf import Idf

    idf = Idf(["Layer normalization in transformers.", "We train SSMs and TBMs on images.", "Colors of images."])
    assert unwritten("layer normalisation", idf) == []  # British spelling of a written word
    assert unwritten("TBM", idf) == []  # an acronym written in its plural
    assert unwritten("colour images", idf) == []
    assert unwritten("transformers for dental images", idf) == ["dental"]
    assert unwritten("transformers, the kind that sit between images", idf) == []  # an appositive / relative describes
    assert unwritten("quickly transformers", idf) == []  # an adverb says nothing of the subject
    assert unwritten("seismic images that move", idf) == ["seismic"]


def test_by_meaning_with_feedback_goes_by_the_feedback_rank_and_cosine() -> None:
    from assistant.collection.topics import Candidate, by_meaning
    from assistant.store.chroma import StoredDoc

    def cand(i: int, dense: float, fed: float, fed_rank: int) -> Candidate:
        return Candidate(StoredDoc(f"d{i}", "t", "t", f"L{i}", [], f"w{i}"), 0.1, dense, (0, 1), False, i, fed, fed_rank)

    # the fused order is 0, 1, 2, 3; the feedback's 3, 2, 0, 1 with cosines relative to its best
    found = [cand(0, 0.60, 0.70, 2), cand(1, 0.58, 0.50, 3), cand(2, 0.30, 0.80, 1), cand(3, 0.20, 0.90, 0)]
    assert [c.rank for c in by_meaning(found, 2, 0.6, 0.5)] == [0, 1]  # without feedback: the fused rank and chunk cosine
    assert [c.rank for c in by_meaning(found, 3, 0.85, 0.5, fed=True)] == [3, 2]  # the feedback's best 3, within 0.85 x 0.90
    assert by_meaning(found, 3, 0.85, 0.65, fed=True) == []  # the floor stays the topic's own chunk cosine (best 0.60)


def test_feedback_terms_are_the_heaviest_shared_by_the_feedback_abstracts() -> None:
    from assistant.collection.topics import expansion
    from assistant.store.idf import Idf

    texts = ["State space models scale linearly.", "Selective state space models for language.",
             "Gated state space layers.", "Convolutions for images.", "Images and language."]
    idf = Idf(texts)
    words = expansion(texts[:3], 3, idf)
    assert set(words) == {"state", "space", "models"}  # held by two or three of them (as they write it)
    assert "scale" not in expansion(texts[:3], 10, idf)  # one abstract's own words are not the shared subject
    assert expansion(texts[:1], 2, idf) and expansion([], 3, idf) == []  # one abstract: its own heaviest terms


def test_feedback_restates_a_users_topic_from_the_retrievers_best(corpus: Assistant) -> None:
    """Pseudo-relevance feedback re-ranks every candidate (a permutation), and the abstracts it was
    built from rank near the top of it (their centroid is in the query); the words it adds are
    ones those abstracts share."""
    from assistant.collection.topics import candidates, expansion, feedback

    topic = "spread attention over several devices to handle very long inputs"
    found = candidates(corpus.engine.parts, topic, 40)
    feedback(corpus.engine.parts, topic, found, 5)
    assert sorted(c.feedback_rank for c in found) == list(range(len(found)))
    assert all(-1.0 <= c.feedback <= 1.0 for c in found) and len({round(c.feedback, 6) for c in found}) > 1
    seeds = [c for c in found if c.rank < 5]
    assert sum(c.feedback_rank for c in seeds) / len(seeds) < len(found) / 4
    words = expansion([c.doc.original for c in seeds], 10, corpus.engine.idf())
    held = [set(terms(c.doc.original)) for c in seeds]  # shared as terms ("associative" and "associated")
    assert words and all(sum(terms(w)[0] in h for h in held) >= 2 for w in words)


def test_the_fits_rule_by_meaning_reads_the_feedback_ranking_when_chosen() -> None:
    # chunk cosine and fused rank favour "z"; the feedback (5 documents) ranks the gold first
    f = {"gold": {"x", "y"}, "cands": [(0.1, 0.60, "z", 0), (0.1, 0.40, "x", 1), (0.1, 0.38, "y", 2)],
         "fed": {5: ([(0, 0.9, "x"), (1, 0.85, "y"), (2, 0.5, "z")], 0.9)}}
    assert LR.pick(f, 0.6, 0.61, 0, 2, 0.7, 0.5) == ["z"]  # without feedback: the fused best 2 within 0.7 x 0.60
    assert LR.pick(f, 0.6, 0.61, 0, 2, 0.7, 0.5, True, 5) == ["x", "y"]  # the feedback's best 2 within 0.7 x 0.9
    assert LR.pick(f, 0.6, 0.61, 0, 2, 0.7, 0.65, True, 5) == []  # the floor is the chunk cosine's
    assert LR.best_params([f])[6] == 5 and LR.best_params([f], feedback=False)[6] == 0
