"""Questions about the collection (assistant/collection/answer.py, evals/lists.py): list, comparison and
overview answers on the real ingested corpus, their public surface (Answer.shape/items, --json,
CLI, HTML), follow-ups on a list, and the list split's builder and metrics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assistant import Assistant
from assistant.language.text import split_sentences
from assistant.types import Answer, Citation, ListItem
from assistant.ui.render import render_answer
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


def test_render_list_with_nothing_cited_shows_the_closest_once() -> None:
    """A follow-up no listed abstract answers: its closest, uncited, are the answer's body, shown
    once (not as note lines and again behind the "further" toggle) and with no empty list."""
    closest = [ListItem(0, d, f"Label {d}", f"It touches {d}.", f"f.txt:{k}", 0.2, cited=False, above_cutoff=False)
               for k, d in enumerate("xyz")]
    text = "\n".join(["None of the 4 abstracts listed before mentions 'medical'; the 3 closest in meaning, which may not be about it:"]
                     + [f"- {i.label} — {i.text}" for i in closest])
    html = render_answer(Answer(question="Are any of them medical?", text=text, shape="list", items=closest,
                                caveat=text.split("\n")[0], caveat_kind="list_none"))
    assert html.count("It touches x.") == 1 and "list-closest" in html
    assert "Show the 3 further" not in html and '<ol class="list-answer"></ol>' not in html
    assert "mentions &#x27;medical&#x27;" in html or "mentions 'medical'" in html


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
    assert all(set(LR.pick(f, w, t)) == f["gold"] for f in feats)
    assert L.scores(["a", "c"], {"a", "b"}) == (0.5, 0.5) and L.scores([], {"a"}) == (0.0, None)
    assert LR.f1_score([], {"a"}) == 0.0 and LR.f1_score([], set()) == 1.0


def test_a_list_citing_nothing_has_no_precision_in_the_harness_or_the_fit() -> None:
    """Precision is undefined when nothing is cited (evals/answers.py's convention): left out of the
    mean in the harness (``agg_lists``) and in the fit's report (``rp``), counted as refused apart."""
    row = {"expected": "list", "recall": 0.0, "precision": None, "baseline_recall": 0.5, "baseline_precision": 0.5,
           "all_named_cited": False, "refused": True}
    recs = [{"type": "list", "shape": "list", "list": {**row, "recall": 1.0, "precision": 0.5, "refused": False}},
            {"type": "list", "shape": "fact", "list": row}]
    m = L.agg_lists(recs)["by_shape"]["list"]
    assert (m["recall"], m["precision"], m["refused"]) == (0.5, 0.5, 0.5)
    feats = [{"gold": {"a"}, "baseline": ["a"], "cands": [(1.0, 0.9, "a", 0), (1.0, 0.9, "b", 1)]},
             {"gold": {"c"}, "baseline": ["a"], "cands": [(0.0, 0.1, "c", 0)]}]
    assert LR.rp(feats, 0.5, 0.5, 0, 0, 1.0, 0.0)["precision"] == 0.5  # the second lists nothing: no precision


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
    from assistant.collection.topics import alias_of, expansion_of

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


def _after_list(corpus: Assistant, first: str, follow: str) -> tuple[Answer, Answer]:
    prev = corpus.ask(first, backend="extractive")
    history = [{"role": "user", "content": first}, {"role": "assistant", "content": prev.text}]
    return prev, corpus.ask(follow, history=history, backend="extractive")


@pytest.mark.parametrize("follow", ["Any more papers on state space models?", "Are there more on state space models?"])
def test_more_of_a_kind_lists_only_works_the_last_list_did_not_show(corpus: Assistant, follow: str) -> None:
    prev, ans = _after_list(corpus, "Which papers study state space models?", follow)
    shown = {i.doc_id for i in prev.items if i.cited}
    new = {i.doc_id for i in ans.items if i.cited}
    assert ans.shape == "list" and new and not new & shown  # the listed ones are known: "more" asks for others
    assert f"besides the {len(shown)} listed before" in ans.text.splitlines()[0]


def test_more_when_the_rest_only_share_the_topics_words_cites_none_of_them(corpus: Assistant) -> None:
    prev, ans = _after_list(corpus, "Which papers study continual learning?", "Any other papers on continual learning?")
    shown = [i for i in prev.items if i.cited]
    assert ans.caveat_kind == "list_below_cutoff" and not ans.citations and not ans.refused
    assert ans.text.startswith(f"No abstract besides the {len(shown)} listed before reaches the relevance cut-off")
    assert ans.items and not any(i.cited or i.above_cutoff for i in ans.items)  # kept to see, cited as nothing


def test_more_when_nothing_is_left_says_none_besides_the_listed_never_none_in_the_collection(corpus: Assistant) -> None:
    prev, ans = _after_list(corpus, "Which papers study speculative decoding?", "Any other papers on speculative decoding?")
    shown = [i for i in prev.items if i.cited]
    assert shown and not ans.citations and not ans.refused and "in the collection" not in ans.text
    assert ans.text.startswith(f"No abstract besides the {len(shown)} listed before reaches the relevance cut-off")


def test_other_papers_on_a_new_topic_is_a_new_list_not_narrowed_by_the_last(corpus: Assistant) -> None:
    prev, ans = _after_list(corpus, "Which papers study retrieval-augmented generation?", "Any other papers on quantization?")
    fresh = corpus.ask("Which papers study quantization?", backend="extractive")
    assert ans.shape == "list" and "besides" not in ans.text.splitlines()[0]
    assert [c.doc_id for c in ans.citations] == [c.doc_id for c in fresh.citations]
