"""Questions about the collection (assistant/collection.py, evals/lists.py): list, comparison and
overview answers on the real ingested corpus, their public surface (Answer.shape/items, --json,
CLI, HTML), follow-ups on a list, and the list split's builder and metrics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assistant import Assistant
from assistant.text import split_sentences
from assistant.types import Answer, Citation, ListItem
from assistant.ui_render import render_answer
from evals import lists as L
from evals import lists_rule as LR
from evals.data import DATASETS_DIR, LockedSplitError, Question, load_for_tuning


def _sentences(text: str) -> set[str]:
    return {" ".join(text[s.start : s.end].split()) for s in split_sentences(text)}


def test_list_question_lists_every_relevant_abstract_with_a_verified_line(corpus: Assistant) -> None:
    ans = corpus.ask("Which papers study state space models?")
    cited = [i for i in ans.items if i.cited]
    assert ans.shape == "list" and not ans.refused
    assert len(cited) > corpus.settings.top_k  # more than the default 5 sources when the evidence supports it
    assert [i.n for i in cited] == list(range(1, len(cited) + 1)) == [c.n for c in ans.citations]
    assert [i.score for i in cited] == sorted((i.score for i in cited), reverse=True)
    assert all(i.score >= corpus.settings.collection.cutoff for i in cited[corpus.settings.collection.min_listed :])
    by_n = {c.n: c for c in ans.citations}
    for item in cited:
        citation = by_n[item.n]
        assert citation.doc_id == item.doc_id and item.text in _sentences(citation.text)  # quoted from its abstract
        assert citation.evidence and f"[{item.n}] {item.label} — {item.text}" in ans.text
    assert all(s.supported and s.citations for s in ans.sentences)
    assert "answered as a list" in ans.text.splitlines()[0]
    assert sum("state space" in i.text.lower() or "ssm" in i.text.lower() for i in cited) >= 0.8 * len(cited)
    d = ans.to_dict()
    assert d["shape"] == "list" and len(d["items"]) == len(ans.items) and d["items"][0]["cited"] is True


def test_a_single_fact_question_does_not_become_a_list(corpus: Assistant) -> None:
    ans = corpus.ask("What is Ring Attention?")
    assert ans.shape == "fact" and ans.items == [] and ans.citations


def test_comparison_cites_every_named_paper_side_by_side(corpus: Assistant) -> None:
    ans = corpus.ask("How do Ring Attention and FlashAttention differ?")
    assert ans.shape == "compare"
    assert [i.name for i in ans.items] == ["Ring Attention", "FlashAttention"]
    for item, citation in zip(ans.items, ans.citations, strict=True):
        assert item.cited and citation.doc_id == item.doc_id and item.name.lower() in citation.text.lower()
        assert item.text in _sentences(citation.text)
        assert not item.reports or item.reports in _sentences(citation.text)
    assert len({i.doc_id for i in ans.items}) == 2 and "side by side" in ans.text
    for n, item in enumerate(ans.items, 1):  # "[1] Ring Attention — ...", not "Ring Attention (Ring Attention)"
        called = item.name if item.label.casefold() == item.name.casefold() else f"{item.name} ({item.label})"
        assert f"\n[{n}] {called} — what it does: " in ans.text


def test_overview_groups_its_abstracts(corpus: Assistant) -> None:
    ans = corpus.ask("What is known about state space models?")
    cited = [i for i in ans.items if i.cited]
    assert ans.shape == "overview" and 0 < len(cited) <= corpus.settings.collection.overview_max
    assert all(i.group for i in cited) and ans.text.startswith("Overview of state space models")
    assert any(not i.cited for i in ans.items)  # the rest stay reachable
    assert "further abstract" in ans.text


def test_follow_up_picks_only_from_the_listed_abstracts(corpus: Assistant) -> None:
    first = corpus.ask("Which papers study state space models?")
    listed = {i.doc_id for i in first.items if i.cited}
    history = [{"role": "user", "content": first.question}, {"role": "assistant", "content": first.text}]
    ans = corpus.ask("Which of these report speed-ups?", history=history)
    picked = {i.doc_id for i in ans.items}
    assert ans.shape == "list" and picked and picked <= listed
    assert " listed before on " in ans.text.splitlines()[0] and "abstract listed before abstract" not in ans.text


def test_a_named_topic_listed_by_meaning_lists_only_abstracts_that_name_it(corpus: Assistant) -> None:
    """No abstract writes "programs in RASP for transformer models" in order, so the list goes by
    meaning; the topic names RASP, so an abstract that never mentions RASP is not listed."""
    ans = corpus.ask("Which papers here write programs in RASP for transformer models?")
    assert ans.shape == "list"
    cited = [c for c in ans.citations]
    assert len(cited) >= 2 and all("RASP" in c.text for c in cited), [c.label for c in cited]


def test_a_list_about_something_no_abstract_mentions_is_refused(corpus: Assistant) -> None:
    ans = corpus.ask("Which papers study the Zyxwvutron-9000 architecture?")
    assert ans.shape == "fact" and (ans.refused or ans.caveat) and not ans.items


def test_cli_json_and_text_show_the_list(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from assistant.cli import main

    assert main(["ask", "--json", "--data-dir", str(corpus_dir), "--backend", "extractive",
                 "Which abstracts mention mixture of experts?"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["shape"] == "list" and out["items"] and {"n", "doc_id", "label", "text", "source", "score", "cited"} <= set(out["items"][0])
    assert main(["ask", "--data-dir", str(corpus_dir), "--backend", "extractive", "Which abstracts mention mixture of experts?"]) == 0
    text = capsys.readouterr().out
    first = out["items"][0]
    assert f"[1] {first['label']} — {first['text']}" in text.splitlines()


# --- rendering -----------------------------------------------------------------------------------
def _list_answer() -> Answer:
    items = [ListItem(1, "a", "<b>Evil</b> label", "It <script>x</script> does A.", "f.txt:1", 0.9),
             ListItem(2, "b", "Second", "It does B.", "f.txt:3", 0.8),
             ListItem(0, "c", "Third", "It mentions A.", "f.txt:5", 0.4, cited=False, above_cutoff=False)]
    cites = [Citation(i.n, i.doc_id, i.label, i.text, i.source) for i in items[:2]]
    text = ("2 abstracts on A (answered as a list, most relevant first):\n[1] <b>Evil</b> label — It <script>x</script> does A.\n"
            "[2] Second — It does B.\n1 further abstract mentions A but ranks below the relevance cut-off.")
    return Answer(question="Which papers study A?", text=text, citations=cites, shape="list", items=items)


def test_render_list_links_each_item_to_its_source_and_escapes() -> None:
    html = render_answer(_list_answer())
    assert html.count('<li class="list-item">') == 2 and 'href="#src-1"' in html and 'href="#src-2"' in html
    assert "<script>" not in html and "&lt;b&gt;Evil&lt;/b&gt;" in html
    assert "Show the 1 further abstract" in html and "below the cut-off" in html
    assert "further abstract mentions A" in html


# --- the list split and its metrics --------------------------------------------------------------
WORKS = {
    "w1": "We study state space models (SSMs) for long sequences. State space models are fast.",
    "w2": "Our state-space model beats attention on long inputs.",
    "w3": "SSMs are recurrent. We analyse them.",
    "w4": "Gated state spaces (GSS) help. A grounded symbol system (GSS) is another thing entirely.",
    "w5": "Attention is all you need for translation.",
}


def test_topic_groups_come_from_acronym_definitions() -> None:
    groups = {g["acronym"]: g for g in L.term_groups(WORKS)}
    assert groups["SSM"]["works"] == ["w1", "w2", "w3"]  # the plural, the hyphen and the bare acronym count
    assert "GSS" not in groups  # two unrelated expansions, each in one work: below MIN_DF, acronym unused


def test_best_pair_and_scores() -> None:
    feats = [{"gold": {"a", "b"}, "cands": [(1.0, 0.6, "a", 0), (0.9, 0.5, "b", 1), (0.2, 0.3, "c", 2)]},
             {"gold": {"d"}, "cands": [(1.0, 0.7, "d", 0), (0.3, 0.6, "e", 1)]}]
    w, t = LR.best_pair(feats)
    assert all(set(LR._pick(f, w, t)) == f["gold"] for f in feats)
    assert L.scores(["a", "c"], {"a", "b"}) == (0.5, 0.5) and L.scores([], {"a"}) == (0.0, None)
    assert LR._f1([], {"a"}) == 0.0 and LR._f1([], set()) == 1.0


def test_a_list_citing_nothing_has_no_precision_in_the_harness_or_the_fit() -> None:
    """Precision is undefined when nothing is cited (evals/answers.py's convention): left out of the
    mean in the harness (``agg_lists``) and in the fit's report (``_rp``), counted as refused apart."""
    row = {"expected": "list", "recall": 0.0, "precision": None, "baseline_recall": 0.5, "baseline_precision": 0.5,
           "all_named_cited": False, "refused": True}
    recs = [{"type": "list", "shape": "list", "list": {**row, "recall": 1.0, "precision": 0.5, "refused": False}},
            {"type": "list", "shape": "fact", "list": row}]
    m = L.agg_lists(recs)["by_shape"]["list"]
    assert (m["recall"], m["precision"], m["refused"]) == (0.5, 0.5, 0.5)
    feats = [{"gold": {"a"}, "baseline": ["a"], "cands": [(1.0, 0.9, "a", 0), (1.0, 0.9, "b", 1)]},
             {"gold": {"c"}, "baseline": ["a"], "cands": [(0.0, 0.1, "c", 0)]}]
    assert LR._rp(feats, 0.5, 0.5, 0, 0, 1.0, 0.0)["precision"] == 0.5  # the second lists nothing: no precision


def test_list_metrics_per_shape() -> None:
    recs = [{"type": "list", "shape": "list", "list": {"expected": "list", "recall": 1.0, "precision": 0.5, "baseline_recall": 0.5,
                                                     "baseline_precision": 0.5, "all_named_cited": True}},
            {"type": "lookup", "shape": "fact"}]
    agg = L.agg_lists(recs)
    assert agg["shape_confusion"] == {"list": {"list": 1}, "lookup": {"fact": 1}}
    assert agg["by_shape"]["list"]["recall"] == 1.0 and agg["by_shape"]["list"]["detected"] == 1.0
    assert "list" in L.format_lists(agg)
    follow = {"type": "followup", "shape": "list", "list": {"expected": "follow-up", "recall": 0.5, "precision": 1.0, "baseline_recall": 0.0,
                                                         "baseline_precision": 0.0, "all_named_cited": False, "refused": True}}
    agg = L.agg_lists([*recs, follow])
    assert agg["by_shape"]["follow-up"]["refused"] == 1.0 and agg["by_shape"]["follow-up"]["detected"] == 1.0
    assert agg["by_shape"]["list"]["refused"] == 0.0 and "follow-up" in L.format_lists(agg)
    q = Question(id="x", text="t", type="compare")
    assert L.expected_shape(q) == "compare" and L.expected_shape(Question(id="y", text="t")) is None
    assert L.expected_shape(Question(id="z", text="t", type="comparison")) == "compare"


def test_the_committed_list_split_is_what_the_builder_writes() -> None:
    rows = [json.loads(line) for line in L.LISTS_PATH.read_text(encoding="utf-8").splitlines()]
    assert {r["shape"] for r in rows} == {"list", "compare", "overview"}
    assert all(r["gold_anchors"] and r["split"] == "lists" for r in rows)
    assert all(len(r["gold_anchors"]) == 2 for r in rows if r["shape"] == "compare")
    by_id = {r["id"]: r for r in rows}
    follow = [r for r in rows if r.get("previous")]
    assert follow and all(by_id[r["previous"]]["shape"] == "list" and r["key_points"] for r in follow)
    assert all(set(r["gold_anchors"]) < set(by_id[r["previous"]]["gold_anchors"]) for r in follow)  # a part of the list


def test_a_reworded_topic_shares_at_most_one_content_word_with_its_term() -> None:
    from evals import lists_reworded as R

    g = {"term": "state space models", "acronym": "SSM", "expansions": ["state space model", "state space models"]}
    assert R.overlap("modelling the states of a system", g["term"], g["expansions"]) == 2  # stems: model, state
    assert R.verdict("modelling the states of a system", g) == "overlap"
    assert R.verdict("sequence models with a recurrent memory", g) is None  # one shared word is allowed
    assert R.verdict("SSMs for text", g) == "acronym"


def test_the_committed_reworded_lists_keep_their_terms_gold() -> None:
    from evals import lists_reworded as R

    rows = [json.loads(line) for line in L.LISTS_PATH.read_text(encoding="utf-8").splitlines()]
    groups = {g["term"]: g for g in json.loads(R.META_PATH.read_text(encoding="utf-8"))["groups"]}
    term_list = {r["term"]: r for r in rows if r["type"] == "list" and "topic" not in r}
    reworded = [r for r in rows if r["type"] == "list_reworded"]
    assert reworded and len(reworded) == len(R.kept())
    for r in reworded:
        assert r["shape"] == "list" and r["gold_anchors"] == term_list[r["term"]]["gold_anchors"]
        assert r["topic"] in r["question"] and R.verdict(r["topic"], groups[r["term"]]) is None
    recs = [{"type": "list_reworded", "shape": "list", "list": {"expected": "list_reworded", "recall": 0.5, "precision": 1.0,
             "baseline_recall": 0.0, "baseline_precision": 0.0, "all_named_cited": False}}]
    assert L.agg_lists(recs)["by_shape"]["list_reworded"]["detected"] == 1.0  # reported apart from term lists


def test_tuning_code_refuses_the_locked_collection_split() -> None:
    with pytest.raises(LockedSplitError):
        load_for_tuning(DATASETS_DIR / "locked_collection.jsonl")
    assert load_for_tuning(L.LISTS_PATH)


def test_follow_up_with_no_listed_abstract_stating_it_says_so(corpus: Assistant) -> None:
    first = corpus.ask("Which papers study state space models?")
    history = [{"role": "user", "content": first.question}, {"role": "assistant", "content": first.text}]
    ans = corpus.ask("Which of these report results on protein folding benchmarks?", history=history)
    listed = {i.doc_id for i in first.items if i.cited}
    assert ans.shape == "list" and {i.doc_id for i in ans.items} <= listed
    assert ans.caveat and "None of the" in ans.caveat and ans.text.startswith(ans.caveat)


# --- LLM backends: a verified synthesis above the extracted list ----------------------------------
def test_llm_backend_adds_a_verified_summary_above_the_list(corpus: Assistant, mock_model: Any) -> None:
    extractive = corpus.ask("Which papers study state space models?")
    first, second = (i for i in extractive.items[:2])
    mock_model.enqueue(f"{first.text} [1] {second.text} [2] The moon is made of green cheese [1].")
    ans = corpus.ask("Which papers study state space models?", backend="mock")
    assert ans.shape == "list" and [i.doc_id for i in ans.items] == [i.doc_id for i in extractive.items]
    summary = ans.text.split("\n\n")[0]
    assert "[1]" in summary and "[2]" in summary and "cheese" not in ans.text  # the unsupported sentence is dropped
    assert "Excerpts:" in mock_model.prompts[0][0]["content"] and first.label in mock_model.prompts[0][0]["content"]
    assert '<div class="list-summary">' in render_answer(ans)


def test_llm_failure_keeps_the_list_and_says_so(corpus: Assistant, mock_model: Any) -> None:
    ans = corpus.ask("How do Ring Attention and FlashAttention differ?", backend="mock")  # nothing enqueued: LLMError
    assert ans.shape == "compare" and len(ans.citations) == 2
    assert ans.fallback_reason and "list alone" in ans.fallback_reason


def test_an_acronym_topic_finds_its_expansion_and_back() -> None:
    from assistant.topics import alias_of, expansion_of

    texts = ["We study state-space models (SSMs) for long inputs.", "Mixture of experts (MoE) layers route tokens."]
    assert expansion_of("SSM", texts, 3) == "state-space models" and expansion_of("MoE", texts, 3) == "Mixture of experts"
    other, alias = alias_of("SSM", texts, 3)
    assert other == "state-space models" and alias is not None
    assert alias.search("Structured state space models scale well") and alias.search("SSMs are fast")
    assert not alias.search("a state of the art model")
    other, alias = alias_of("state space models", texts[:1], 3)  # the hyphen reads as a space: the acronym is defined
    assert other == "SSM" and alias is not None and alias.search("Our SSM") and not alias.search("SSMX")
    assert alias_of("Tokenization", texts, 3) == (None, None)  # not an acronym, none defined


def test_an_acronym_list_reads_its_expansion_and_a_missing_name_is_still_refused(corpus: Assistant) -> None:
    ans = corpus.ask("What works in the collection discuss SSM?")  # few abstracts write the bare acronym
    cited = [i for i in ans.items if i.cited]
    assert ans.shape == "list" and not ans.refused and len(cited) > corpus.settings.top_k
    assert any("state space" in i.text.lower() and "ssm" not in i.text.lower() for i in cited)  # found by its expansion
    missing = corpus.ask("Which papers here study the Zorblax-9 protocol?")
    assert missing.shape != "list" and (missing.refused or missing.caveat)


def test_a_topic_worded_unlike_a_term_still_lists_its_closest_abstracts(corpus: Assistant) -> None:
    ans = corpus.ask("Which approaches here make attention cheaper for long sequences?")
    cited = [i for i in ans.items if i.cited]
    assert ans.shape == "list" and len(cited) >= 2 and any(i.label == "Ring Attention" for i in cited)
    off_topic = corpus.ask("Which papers here study protein folding with graph kernels?")  # no abstract is close
    assert off_topic.shape == "fact"


def test_by_meaning_goes_by_rank_and_cosine_relative_to_the_best() -> None:
    from assistant.store import StoredDoc
    from assistant.topics import Candidate, by_meaning, written

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
    assert set(LR._pick(term, w, t, 0, k, ratio, floor)) == {"a"}  # a written topic keeps the term rule
    assert set(LR._pick(users, w, t, 0, k, ratio, floor)) == {"x", "y"}
    assert LR._pick(absent, w, t, 0, k, ratio, floor) == [] and LR._f1([], set()) == 1.0 and LR._f1(["p"], set()) == 0.0
    assert LR.best_params([term, users, absent], meaning=False)[2:] == (0, 1.0, 0.0, True, 0)
    named_nowhere = {"gold": set(), "unwritten": ["dialect"], "cands": [(0.1, 0.7, "n", 0), (0.1, 0.68, "m", 1)]}
    assert LR._pick(named_nowhere, w, t, 0, k, ratio, floor, True) == ["n", "m"]  # by meaning, under a statement
    assert LR._pick(named_nowhere, w, t, 0, k, ratio, floor, False) == []  # a word no abstract writes: nothing listed
    assert LR._score(named_nowhere, w, t, 0, k, ratio, floor, True) == 1.0  # the statement above them says none
    worded_apart = {"gold": {"g"}, "unwritten": ["photos"], "cands": [(0.1, 0.7, "g", 0), (0.1, 0.3, "o", 1)]}
    assert LR.best_params([term, users, absent, named_nowhere, worded_apart])[5] is True  # its list finds the gold
    assert LR._pick(users, 0.6, 0.61) == []  # the rule fitted on terms alone: the users' wording reaches no cut-off


def test_the_written_lists_are_below_the_overlap_bound_and_keep_their_terms_gold() -> None:
    from evals import lists_written as LW

    rows = [json.loads(line) for line in LW.OUT_PATH.read_text(encoding="utf-8").splitlines()]
    term_list = {r["term"]: r for r in load_for_tuning(L.LISTS_PATH) if r["type"] == "list" and "topic" not in r}
    written = [r for r in rows if r["type"] == LW.TYPE]
    absent = [r for r in rows if r["type"] == LW.ABSENT]
    assert len(written) >= 40 and len(absent) >= 10 and all(r["made"] == LW.MADE and r["shape"] == "list" for r in rows)
    for r in written:
        assert r["gold_anchors"] == term_list[r["term"]]["gold_anchors"] and r["term"] not in r["question"].lower()
        assert r["overlap"]["term_share"] <= LW.MAX_TERM_SHARE and r["overlap"]["rare_share"] <= LW.MAX_RARE_SHARE
    assert all(r["gold_anchors"] == [] for r in absent)
    assert LW.rare_words(["alpha beta gamma", "alpha beta", "delta"], lambda t: 1.0) == ["alpha", "beta"]  # held by two or more
    recs = [{"type": LW.TYPE, "shape": "list", "list": {"expected": LW.TYPE, "recall": 0.5, "precision": 0.5,
             "baseline_recall": 0.0, "baseline_precision": 0.0, "all_named_cited": False}}]
    assert L.agg_lists(recs)["by_shape"][LW.TYPE]["detected"] == 1.0  # reported apart from term lists


def test_a_topic_in_a_users_own_words_lists_what_retrieval_finds_and_nothing_unrelated(corpus: Assistant) -> None:
    from assistant.shape import detect
    from assistant.topics import candidates, feedback, written

    cfg = corpus.settings.collection
    ans = corpus.ask("Which papers spread attention over several devices to handle very long inputs?")
    cited = [i for i in ans.items if i.cited]
    assert ans.shape == "list" and not ans.refused and any(i.label == "Ring Attention" for i in cited)
    assert len(cited) > cfg.min_listed  # the rule fitted on terms listed at most min_listed of these
    assert "closest in meaning" in ans.text.splitlines()[0] and all(s.supported for s in ans.sentences)
    assert ans.caveat == ans.text.splitlines()[0] and ans.caveat_kind == "list_by_meaning"  # a hedge, never plain
    found = candidates(corpus.engine, detect(ans.question).topic, cfg.candidates)
    assert not written(found, cfg.phrase_lexical)  # no abstract writes the topic's words
    feedback(corpus.engine, detect(ans.question).topic, found, cfg.meaning_feedback)
    rank, score = (("feedback_rank", "feedback") if cfg.meaning_feedback else ("rank", "dense"))
    top = max(getattr(c, score) for c in found)
    near = {c.doc.doc_id for c in found if getattr(c, rank) < cfg.meaning_rank and getattr(c, score) >= cfg.meaning_ratio * top}
    assert {i.doc_id for i in cited} <= near and len(found) > len(near)  # none beyond the best few
    absent = corpus.ask("Which papers here are about medieval castle architecture?")
    assert absent.refused and not absent.items and not absent.citations


def test_a_verb_phrase_topic_reads_quoted_in_the_lists_head() -> None:
    from assistant.collection import _list_text
    from assistant.shape import detect

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
    from assistant.evidence import Idf
    from assistant.topics import unwritten

    idf = Idf(["Layer normalization in transformers.", "We train SSMs and TBMs on images.", "Colors of images."])
    assert unwritten("layer normalisation", idf) == []  # British spelling of a written word
    assert unwritten("TBM", idf) == []  # an acronym written in its plural
    assert unwritten("colour images", idf) == []
    assert unwritten("transformers for dental images", idf) == ["dental"]
    assert unwritten("transformers, the kind that sit between images", idf) == []  # an appositive / relative describes
    assert unwritten("quickly transformers", idf) == []  # an adverb says nothing of the subject
    assert unwritten("seismic images that move", idf) == ["seismic"]


def test_by_meaning_with_feedback_goes_by_the_feedback_rank_and_cosine() -> None:
    from assistant.store import StoredDoc
    from assistant.topics import Candidate, by_meaning

    def cand(i: int, dense: float, fed: float, fed_rank: int) -> Candidate:
        return Candidate(StoredDoc(f"d{i}", "t", "t", f"L{i}", [], f"w{i}"), 0.1, dense, (0, 1), False, i, fed, fed_rank)

    # the fused order is 0, 1, 2, 3; the feedback's 3, 2, 0, 1 with cosines relative to its best
    found = [cand(0, 0.60, 0.70, 2), cand(1, 0.58, 0.50, 3), cand(2, 0.30, 0.80, 1), cand(3, 0.20, 0.90, 0)]
    assert [c.rank for c in by_meaning(found, 2, 0.6, 0.5)] == [0, 1]  # without feedback: the fused rank and chunk cosine
    assert [c.rank for c in by_meaning(found, 3, 0.85, 0.5, fed=True)] == [3, 2]  # the feedback's best 3, within 0.85 x 0.90
    assert by_meaning(found, 3, 0.85, 0.65, fed=True) == []  # the floor stays the topic's own chunk cosine (best 0.60)


def test_feedback_terms_are_the_heaviest_shared_by_the_feedback_abstracts() -> None:
    from assistant.evidence import Idf
    from assistant.topics import expansion

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
    from assistant.topics import candidates, expansion, feedback

    topic = "spread attention over several devices to handle very long inputs"
    found = candidates(corpus.engine, topic, 40)
    feedback(corpus.engine, topic, found, 5)
    assert sorted(c.feedback_rank for c in found) == list(range(len(found)))
    assert all(-1.0 <= c.feedback <= 1.0 for c in found) and len({round(c.feedback, 6) for c in found}) > 1
    seeds = [c for c in found if c.rank < 5]
    assert sum(c.feedback_rank for c in seeds) / len(seeds) < len(found) / 4
    words = expansion([c.doc.original for c in seeds], 10, corpus.engine.idf())
    assert words and all(sum(w in c.doc.original.lower() for c in seeds) >= 2 for w in words)


def test_the_fits_rule_by_meaning_reads_the_feedback_ranking_when_chosen() -> None:
    # chunk cosine and fused rank favour "z"; the feedback (5 documents) ranks the gold first
    f = {"gold": {"x", "y"}, "cands": [(0.1, 0.60, "z", 0), (0.1, 0.40, "x", 1), (0.1, 0.38, "y", 2)],
         "fed": {5: ([(0, 0.9, "x"), (1, 0.85, "y"), (2, 0.5, "z")], 0.9)}}
    assert LR._pick(f, 0.6, 0.61, 0, 2, 0.7, 0.5) == ["z"]  # without feedback: the fused best 2 within 0.7 x 0.60
    assert LR._pick(f, 0.6, 0.61, 0, 2, 0.7, 0.5, True, 5) == ["x", "y"]  # the feedback's best 2 within 0.7 x 0.9
    assert LR._pick(f, 0.6, 0.61, 0, 2, 0.7, 0.65, True, 5) == []  # the floor is the chunk cosine's
    assert LR.best_params([f])[6] == 5 and LR.best_params([f], feedback=False)[6] == 0
