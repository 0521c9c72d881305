"""The model's part in an answer, by design (settings.prompts.designs; docs/local-model.md):
"lead" (one direct sentence, extraction's sentences quoted under it) and "pick" (the model names
which numbered sentences answer). A mock model (tests/conftest.py) stands in for the LLM."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from conftest import streamed

from assistant import Assistant
from assistant.engine import DECLINED_REASON
from assistant.ui.render import render_answer

QUESTION = "What is Ring Attention?"


def numbered(messages: list[dict[str, str]]) -> dict[int, str]:
    """The numbered sentences of a lead/pick request."""
    return {int(n): s for n, s in re.findall(r"^\[(\d+)\] (.+)$", messages[-1]["content"], flags=re.M)}


def with_design(corpus_dir: Path, design: str, **prompts: Any) -> Assistant:
    return Assistant(data_dir=corpus_dir, backend="extractive", prompts={"designs": {"mock": design}, **prompts})


def test_lead_sentence_then_extractions_sentences_quoted(corpus_dir: Path, corpus: Assistant, mock_model: Any) -> None:
    restated: list[str] = []

    def lead(messages: list[dict[str, str]]) -> str:
        first = numbered(messages)[1].rstrip(".")
        restated.append(first)
        return f"In short, {first[0].lower()}{first[1:]} [1]"

    mock_model.enqueue(lead)
    text, answer = streamed(with_design(corpus_dir, "lead"), QUESTION, backend="mock")
    extracted = corpus.ask(QUESTION, backend="extractive")
    assert answer.backend == "mock" and not answer.refused and answer.fallback_reason is None
    head, _, quotes = answer.text.partition("\n\n")
    assert head.startswith("In short, ") and re.search(r"\[\d\]$", head) and answer.sentences[0].supported
    # the lead stands in place of the quote it restates; extraction's other sentences are quoted under it
    assert restated and restated[0] not in quotes
    assert all(s.text in extracted.text for s in answer.sentences[1:])
    assert text == answer.text  # the stream reads as the final answer
    html = render_answer(answer)
    if quotes:  # the page quotes under the lead
        assert html.index("In short, ") < html.index('<div class="quotes">')
    system, user = mock_model.prompts[0]
    assert "ONE short sentence" in system["content"] and "Paper: " in user["content"]


def test_lead_decline_is_heard(corpus_dir: Path, mock_model: Any) -> None:
    mock_model.enqueue("NOT IN SOURCES")  # every decline heard (decline_relevance None; the bar: test_declines.py)
    text, answer = streamed(with_design(corpus_dir, "lead", decline_relevance=None), QUESTION, backend="mock")
    assert answer.fallback_reason == DECLINED_REASON and answer.caveat and answer.citations
    assert "NOT IN SOURCES" not in text  # the decline is never streamed to the reader


def test_pick_answers_with_the_named_sentences_verbatim_in_its_order(corpus_dir: Path, mock_model: Any) -> None:
    seen: dict[int, str] = {}

    def pick(messages: list[dict[str, str]]) -> str:
        seen.update(numbered(messages))
        return "2 1"

    mock_model.enqueue(pick)
    _, answer = streamed(with_design(corpus_dir, "pick"), QUESTION, backend="mock")
    assert len(seen) >= 2 and answer.backend == "mock"
    assert [s.text for s in answer.sentences] == [seen[2], seen[1]]
    assert all(s.supported for s in answer.sentences)


def test_pick_none_is_a_decline(corpus_dir: Path, mock_model: Any) -> None:
    mock_model.enqueue("none")
    _, answer = streamed(with_design(corpus_dir, "pick"), QUESTION, backend="mock")
    assert answer.fallback_reason == DECLINED_REASON and answer.caveat


def test_a_model_that_fails_falls_back_to_extraction(corpus_dir: Path, mock_model: Any) -> None:
    _, answer = streamed(with_design(corpus_dir, "lead"), QUESTION, backend="mock")  # nothing enqueued: LLMError
    assert answer.backend == "mock→extractive" and answer.citations


def test_a_lead_naming_what_it_was_not_shown_is_left_out(corpus_dir: Path, corpus: Assistant, mock_model: Any) -> None:
    """The model copies a name of the question onto a sentence about something else ("Ring
    Attention++" for Ring Attention): that lead is not shown; extraction's sentences stand alone."""
    def lead(messages: list[dict[str, str]]) -> str:
        return "Ring Attention++ distributes long sequences across multiple devices. [1]"

    mock_model.enqueue(lead)
    _, answer = streamed(with_design(corpus_dir, "lead"), QUESTION, backend="mock")
    assert "Ring Attention++" not in answer.text and "\n\n" not in answer.text
    assert answer.text == corpus.ask(QUESTION, backend="extractive").text


def test_a_lead_below_the_lead_bar_is_dropped_and_extractions_sentences_stand_whole(corpus_dir: Path, corpus: Assistant,
                                                                                      mock_model: Any) -> None:
    """A lead the learned check does not pass at the lead's bar (settings.prompts.lead_support) is not
    shown, and the quote it would have replaced comes back: the answer is extraction's; the lead is
    kept among the sentences, unsupported, with its reason."""
    def lead(messages: list[dict[str, str]]) -> str:
        first = numbered(messages)[1].rstrip(".")
        return f"In short, {first[0].lower()}{first[1:]} [1]"

    for bar, shown in ((0.0, True), (1.01, False)):
        mock_model.enqueue(lead)
        a = Assistant(data_dir=corpus_dir, backend="extractive", prompts={"designs": {"mock": "lead"}, "lead_support": bar})
        _, answer = streamed(a, QUESTION, backend="mock")
        assert answer.text.startswith("In short, ") is shown
        if not shown:
            assert answer.text == corpus.ask(QUESTION, backend="extractive").text
            dropped = [s for s in answer.sentences if s.text.startswith("In short, ")]
            assert len(dropped) == 1 and not dropped[0].supported
            assert dropped[0].reason.startswith("the lead sentence: ") and "needs 1.01" in dropped[0].reason


def test_the_shipped_lead_bar_drops_a_lead_that_answers_another_condition(corpus_dir: Path, corpus: Assistant,
                                                                          mock_model: Any) -> None:
    """The abstract says one step of *preconditioned* GD for non-isotropic covariates; a lead that
    says plain GD passes the claims' threshold (p ~0.34 against 0.05) but not the lead's bar (0.96,
    fitted on readers' verdicts of the local model's leads): extraction's sentences stand."""
    question = ("One-layer linear attention trained on noisy regression where the covariates are non-isotropic "
                "Gaussian: what algorithm does the loss minimizer end up implementing?")
    lead = "The loss minimizer ends up implementing a single step of GD on the least-squares linear regression objective. [1]"
    for bar, shown in ((None, False), (0.05, True)):
        mock_model.enqueue(lead)
        prompts: dict[str, Any] = {"designs": {"mock": "lead"}, "lead_support": bar}
        _, answer = streamed(Assistant(data_dir=corpus_dir, backend="extractive", prompts=prompts), question, backend="mock")
        assert answer.text.startswith("The loss minimizer") is shown
        if not shown:
            assert answer.text == corpus.ask(question, backend="extractive").text
            assert any(s.text.startswith("The loss minimizer") and not s.supported for s in answer.sentences)
