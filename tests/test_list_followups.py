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


def test_a_filter_no_listed_abstract_states_says_so_plainly(corpus: Assistant) -> None:
    listed, ans = _after(corpus, "Which papers here study chain-of-thought?", "Do any of these use images?")
    assert ans.shape == "list" and not ans.refused
    assert ans.caveat and ans.caveat.startswith(f"None of the {len(listed)} abstracts listed before states")
    assert {i.doc_id for i in ans.items} <= listed and ans.text.startswith(ans.caveat)


def test_the_written_sessions_resolve_and_narrow_their_lists(corpus: Assistant) -> None:
    docs = corpus.retriever.docs()
    overview, sessions = W.rows()
    for rows in (overview, sessions):
        questions, problems = resolve_anchors(rows, docs)
        assert not problems and len(questions) == len(rows)
    gold = {q.id: q.gold for q in resolve_anchors(sessions, docs)[0]}
    follow = [r for r in sessions if r["previous"]]
    assert all(gold[r["id"]] < gold[r["previous"]] for r in follow)  # a proper subset of the list
    assert sum(not gold[r["id"]] for r in follow) == sum(r["expect_none"] for r in follow) == 2
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
    w, t = F.best(feats, 1)
    assert [F.pick(f, w, t) for f in feats] == [["w1"], ["w3"], []]
    result = F.fit(feats * 2, folds=2)
    assert result["predicate"]["all_with_chosen"]["empty_gold_right"] == 1.0


def test_an_llm_backend_writes_no_synthesis_when_none_of_the_listed_abstracts_states_it(corpus: Assistant, mock_model: Any) -> None:
    first = "Which papers here study chain-of-thought?"
    prev = corpus.ask(first)
    history = [{"role": "user", "content": first}, {"role": "assistant", "content": prev.text}]
    ans = corpus.ask("Do any of these use images?", history=history, backend="mock")
    assert ans.caveat and ans.text.startswith(ans.caveat) and not mock_model.prompts and not ans.fallback_reason
