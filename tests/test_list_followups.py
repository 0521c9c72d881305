"""Follow-ups that filter a list (assistant/collection.py ``_follow_up``, evals/list_followups.py):
the answer picks the listed abstracts that state the filter, with no caveat when some do, and
says plainly that none of the listed abstracts states it when none does; the hand-written
sessions (evals/written_sessions.py) resolve on the real corpus."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assistant import Assistant
from evals import list_followups as F
from evals import written_sessions as W
from evals.data import resolve_anchors


def _after(corpus: Assistant, first: str, follow: str) -> tuple[set[str], object]:
    prev = corpus.ask(first)
    history = [{"role": "user", "content": first}, {"role": "assistant", "content": prev.text}]
    return {i.doc_id for i in prev.items if i.cited}, corpus.ask(follow, history=history)


@pytest.mark.parametrize(("first", "follow", "word"), [
    ("Which papers here are about question answering?", "Which of them are about the biomedical domain?", "biomedical"),
    ("Which abstracts are about vision-language models?", "The ones that use reinforcement learning?", "reinforcement learning"),
])
def test_a_filter_some_listed_abstracts_state_is_answered_without_a_caveat(corpus: Assistant, first: str, follow: str, word: str) -> None:
    listed, ans = _after(corpus, first, follow)
    cited = [i for i in ans.items if i.cited]
    assert ans.shape == "list" and not ans.caveat and not ans.refused
    assert cited and {i.doc_id for i in cited} <= listed and len(cited) < len(listed)
    assert all(word in c.text.lower() for c in ans.citations)  # each picked abstract states the filter
    assert " listed before on " in ans.text.splitlines()[0] and "abstract listed before abstract" not in ans.text


def test_a_filter_no_listed_abstract_writes_says_none_mentions_it_and_cites_no_neighbour(corpus: Assistant) -> None:
    """No listed abstract writes "images": "none mentions" is what was checked, and true; the
    closest three are shown as neighbours by meaning, uncited (they support nothing said)."""
    listed, ans = _after(corpus, "Which papers here study chain-of-thought?", "Do any of these use images?")
    assert ans.shape == "list" and not ans.refused and ans.caveat_kind == "list_none"
    assert ans.caveat and ans.caveat.startswith(f"None of the {len(listed)} abstracts listed before mentions 'images'")
    assert not ans.citations and not ans.sentences and "[1]" not in ans.text
    assert len(ans.items) == 3 and not any(i.cited for i in ans.items) and {i.doc_id for i in ans.items} <= listed
    assert ans.text.startswith(ans.caveat) and all(f"- {i.label} — {i.text}" in ans.text for i in ans.items)


def test_a_filter_the_listed_abstracts_write_apart_is_not_said_to_be_stated_by_none(corpus: Assistant) -> None:
    """Every word of "a theoretical analysis" is written by a listed abstract ("Theoretically, we
    show…", "theoretical frameworks", "quantitative analysis") but none reaches the cut-off: the
    answer does not claim that none states it, only that none clearly does, and cites the closest,
    naming the words they write."""
    listed, ans = _after(corpus, "Papers about markov decision processes?", "Of those, which give a theoretical analysis?")
    assert ans.caveat_kind == "list_none" and not ans.refused
    assert ans.caveat and ans.caveat.startswith(f"None of the {len(listed)} abstracts listed before clearly states 'theoretical analysis'")
    assert "'theoretical'" in ans.caveat and ans.text.startswith(ans.caveat)
    cited = {c.doc_id for c in ans.citations}
    assert len(cited) == min(3, len(listed)) and cited <= listed and "[1]" in ans.text
    assert any("theoretical" in c.text.lower() for c in ans.citations)


def test_the_written_sessions_resolve_and_narrow_their_lists(corpus: Assistant) -> None:
    docs = corpus.retriever.docs()
    overview, sessions = W.rows()
    for rows in (overview, sessions):
        questions, problems = resolve_anchors(rows, docs)
        assert not problems and len(questions) == len(rows)
    gold = {q.id: q.gold for q in resolve_anchors(sessions, docs)[0]}
    follow = [r for r in sessions if r["previous"]]
    assert all(gold[r["id"]] < gold[r["previous"]] for r in follow)  # a proper subset of the list
    assert sum(not gold[r["id"]] for r in follow) == sum(r["expect_none"] for r in follow) == 5
    assert sum(r["made"] == W.MADE_C2 for r in follow) == len(W.FOLLOWUPS_C2) == 11
    assert all(r["made"] for r in overview + sessions)


def test_the_committed_written_files_are_what_the_script_writes() -> None:
    overview, sessions = W.rows()
    for path, rows in ((W.OVERVIEW_PATH, overview), (W.FOLLOWUPS_PATH, sessions)):
        assert [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] == rows


def test_follow_up_fit_scores_and_choice() -> None:
    feats = [{"id": "a", "gold": ["w1"], "detected": True, "cands": [(1.0, 0.5, 0.5, "w1"), (0.0, 0.3, 0.3, "w2")]},
             {"id": "b", "gold": ["w3", "w4"], "detected": True, "cands": [(0.4, 0.4, 0.2, "w3"), (0.0, 0.2, 0.2, "w5")]},
             {"id": "c", "gold": [], "detected": True, "cands": [(0.1, 0.3, 0.3, "w6")]}]
    assert F.pick(feats[0], 1.0, 0.5) == ["w1"]
    assert F.f1(feats[1], ["w3"]) == pytest.approx(2 / 3) and F.f1(feats[2], []) == 1.0 and F.f1(feats[2], ["w6"]) == 0.0
    w, t, r = F.best(feats, 1, [0.0])
    assert r == 0.0 and [F.pick(f, w, t) for f in feats] == [["w1"], ["w3"], []]
    result = F.fit(feats * 2, folds=2)
    assert result["predicate"]["all_with_chosen"]["empty_gold_right"] == 1.0
    assert result["predicate"]["chosen"]["ratio"] == 0.0 and "predicate_relative" in result


def test_follow_up_relative_bar_cuts_below_a_share_of_the_best() -> None:
    f = {"id": "a", "gold": ["w1"], "detected": True, "cands": [(1.0, 0.5, 0.5, "w1"), (0.4, 0.3, 0.3, "w2"), (0.1, 0.2, 0.2, "w3")]}
    assert F.pick(f, 1.0, 0.3) == ["w1", "w2"]  # the absolute bar alone
    assert F.pick(f, 1.0, 0.3, ratio=0.5) == ["w1"]  # w2 is below half the best's relevance
    assert F.pick(f, 1.0, 0.05, ratio=0.0) == ["w1", "w2", "w3"]


def test_an_llm_backend_writes_no_synthesis_when_none_of_the_listed_abstracts_states_it(corpus: Assistant, mock_model: Any) -> None:
    first = "Which papers here study chain-of-thought?"
    prev = corpus.ask(first)
    history = [{"role": "user", "content": first}, {"role": "assistant", "content": prev.text}]
    ans = corpus.ask("Do any of these use images?", history=history, backend="mock")
    assert ans.caveat and ans.text.startswith(ans.caveat) and not mock_model.prompts and not ans.fallback_reason
