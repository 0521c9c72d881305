"""The extractive answer's composition (assistant/compose/extractive.py, issue 19): the lead is the
abstract's own statement rather than its context; a further abstract that answers is cited before
the first abstract's support fills the slots left; the bar a further abstract passes is the
fitted ``further_relevance`` of each abstract's own relevance (engine ``_decide``)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from assistant import Assistant
from assistant.compose.extractive import choose, context
from assistant.evidence.scoring import Evidence, Sentence

GENERATED = Path(__file__).resolve().parent.parent / "evals" / "datasets" / "generated.jsonl"


def cfg(**kw: float) -> SimpleNamespace:
    base = {"lexical_weight": 0.5, "retrieval_prior": 0.0, "top_doc_sentences": 3, "other_doc_share": 0.8,
            "max_sentences": 4, "context_weight": 1.0}
    return SimpleNamespace(**{**base, **kw})


def abstract(doc: int, rows: list[tuple[str, float, float]]) -> list[Sentence]:
    """Sentences of one abstract in reading order: (text, lexical, dense)."""
    out, at = [], 0
    for text, lexical, dense in rows:
        out.append(Sentence(doc, text, at, at + len(text), lexical=lexical, dense=dense))
        at += len(text) + 1
    return out


def texts(chosen: list[Sentence]) -> list[str]:
    return [s.text for s in chosen]


def test_context_is_what_comes_before_the_authors_own_voice() -> None:
    field = abstract(0, [("In recent years, language models have become ubiquitous.", 0.5, 0.7),
                         ("Their memory grows with the context length.", 0.3, 0.5),
                         ("In this work, we propose a cache that halves the memory.", 0.4, 0.6),
                         ("Our cache is twice as fast.", 0.2, 0.4)])
    own = abstract(1, [("This paper studies caches for language models.", 0.4, 0.6),
                       ("Caches are common.", 0.1, 0.2)])
    never = abstract(2, [("Caches store keys and values.", 0.3, 0.4), ("They cost memory.", 0.1, 0.3)])
    ev = Evidence("q", ["a", "b", "c"], field + own + never)
    marked = {ev.sentences[j].text for j in context(ev)}
    assert marked == {field[0].text, field[1].text}  # the scene before "we propose"
    # an abstract that opens in its own voice, or never uses it, has no context marked


def test_the_lead_is_the_contribution_not_the_field_it_opens_with() -> None:
    sents = abstract(0, [("Large language models have become the default tool for translation.", 0.6, 0.7),
                         ("We propose Lingo, a translator that needs no parallel data.", 0.5, 0.6),
                         ("Lingo outperforms supervised systems on four language pairs.", 0.3, 0.4)])
    ev = Evidence("q", ["a"], sents)
    assert choose(ev, [1.0], cfg())[0] is sents[0]  # by value alone the context sentence leads
    chosen = choose(ev, [1.0], cfg(context_weight=0.7))
    assert chosen[0] is sents[1]  # the abstract's own statement leads
    assert texts(chosen[1:]) == [sents[0].text, sents[2].text]  # its support in reading order


def test_the_context_weight_does_not_change_which_abstract_answers() -> None:
    first = abstract(0, [("Retrieval has become central to question answering.", 0.9, 0.8),
                         ("We index passages with two vectors each.", 0.2, 0.3)])
    second = abstract(1, [("We show that one vector per passage suffices.", 0.5, 0.6)])
    ev = Evidence("q", ["a", "b"], first + second)
    chosen = choose(ev, [1.0, 1.0], cfg(context_weight=0.2, other_doc_share=0.99))
    assert {s.doc_index for s in chosen} == {0}  # the abstract of the best sentence answers
    assert chosen[0] is first[1]  # led by its own statement, its context after it


def test_a_further_abstract_that_answers_is_cited_before_the_first_ones_support_fills_the_rest() -> None:
    first = abstract(0, [("We propose A.", 0.9, 0.9), ("A is fast.", 0.85, 0.85), ("A is small.", 0.85, 0.85),
                         ("A is open.", 0.85, 0.85), ("A is new.", 0.8, 0.8)])
    second = abstract(1, [("We propose B for the same task.", 0.8, 0.8)])
    ev = Evidence("q", ["a", "b"], first + second)
    c = cfg(top_doc_sentences=4)
    both = choose(ev, [1.0, 1.0], c, [True, True])
    assert len(both) == 4 and both[-1] is second[0]  # it answers: cited, not crowded out by support
    alone = choose(ev, [1.0, 1.0], c, [True, False])
    assert texts(alone) == [s.text for s in first[:4]]  # filler is not cited; its slot goes to the first abstract


@pytest.fixture(scope="module")
def corpus(corpus_dir: Path) -> Assistant:
    return Assistant(data_dir=corpus_dir, backend="extractive")


def test_the_bar_a_further_abstract_passes_is_the_fitted_further_relevance(corpus: Assistant) -> None:
    rows = [json.loads(line) for line in GENERATED.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [r["question"] for r in rows if r.get("type") == "paraphrase"][:6]
    s = corpus.settings
    saved = s.answer
    try:
        for q in questions:
            turn = corpus.engine.analyze(q, s.top_k)
            assert turn.evidence is not None and len(turn.relevances) == len(turn.evidence.texts)
            assert turn.answers == [r >= s.answer.further_relevance for r in turn.relevances]
            assert turn.relevances[0] == pytest.approx(turn.decision.relevance)
        s.answer = saved.model_copy(update={"further_relevance": 1.01})  # no abstract passes on its own
        for q in questions:
            answer = corpus.ask(q)
            if answer.refused:
                continue
            cited = {c.doc_id for c in answer.citations if any(c.n in x.citations for x in answer.sentences)}
            assert len(cited) == 1, (q, answer.text)
    finally:
        s.answer = saved
