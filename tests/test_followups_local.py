"""Follow-ups with an LLM backend (#21 / #20, helper P, session 15): the model's re-reading of a
question's shape (assistant/question/shape_model.py) is shown the question alone and was fitted on standalone
questions, so a follow-up keeps the frames' reading (assistant/collection/answer.py ``_shaped``): "do they use
images?" after a list asks about that list, never for an overview of the whole collection."""

from __future__ import annotations

from typing import Any

from assistant import Assistant
from assistant.language.prompt_texts import shape_messages as messages
from assistant.question.shape import detect
from assistant.question.shape_model import eligible

# written for these tests (no evaluation question): a list, then a follow-up the frames read as a fact
LISTED = "Which papers here study chain-of-thought?"
# a manner question ("how" before an auxiliary asks no degree): a follow-up the frames read as a fact; "Do they
# use images?", once this test's follow-up, is a follow-up on the list since session 16 (tests/test_shape_readings.py)
FOLLOW = "How do they handle images?"
# a standalone question the frames read as a fact and the model may re-read (as in test_shape_model)
STANDALONE = "Paint me a picture of research on protein language models."


def _with_mock_backend(corpus: Assistant) -> Assistant:
    settings = corpus.settings.model_copy(deep=True)
    settings.collection.shape_model_backends = ["mock"]
    return Assistant(settings=settings, embedder=corpus.embedder, store=corpus.store)


def _history(assistant: Assistant) -> list[dict[str, str]]:
    prev = assistant.ask(LISTED)  # extractive: the list, no model
    assert prev.shape == "list" and prev.citations
    return [{"role": "user", "content": LISTED}, {"role": "assistant", "content": prev.text}]


def test_a_follow_up_is_not_re_read_by_the_model(corpus: Assistant, mock_model: Any) -> None:
    assistant = _with_mock_backend(corpus)
    history = _history(assistant)
    assert detect(FOLLOW, previous_was_list=True).is_fact and eligible(FOLLOW, detect(FOLLOW))  # the model could re-read it
    # were it re-read, this reply would make it an overview of "they use images" across the collection
    mock_model.enqueue(lambda m: "overview" if m == messages(FOLLOW) else "An answer [1].", "An answer [1].")
    ans = assistant.ask(FOLLOW, history=history, backend="mock")
    assert all(p != messages(FOLLOW) for p in mock_model.prompts)  # the shape was never asked
    assert ans.shape != "overview" and "shape_model" not in ans.timings
    assert ans.standalone_question and LISTED in ans.standalone_question  # its referent is carried


def test_a_standalone_question_is_still_re_read(corpus: Assistant, mock_model: Any) -> None:
    assistant = _with_mock_backend(corpus)
    history = _history(assistant)
    mock_model.enqueue("overview")  # the shape; the overview's summary then finds no reply: the list alone
    ans = assistant.ask(STANDALONE, history=history, backend="mock")  # names its own topic: no follow-up
    assert mock_model.prompts[0] == messages(STANDALONE) and ans.shape == "overview"
    assert ans.standalone_question is None


# --- no synthesis above a hedge (assistant/collection/summary.py HEDGED) ---------------------------------
# sessions written for the tests of tests/test_list_followups.py / test_lists_meaning.py (no evaluation question)
LSTM, FINANCE = "Papers on long short-term memory networks?", "Which of them deal with financial markets?"
BY_MEANING = "Which papers spread attention over several devices to handle very long inputs?"
SYNTHESIS = "These papers deal with financial markets and spread attention over devices [1]."


def test_a_follow_up_by_meaning_gets_no_synthesis_above_its_hedge(corpus: Assistant, mock_model: Any) -> None:
    prev = corpus.ask(LSTM)
    history = [{"role": "user", "content": LSTM}, {"role": "assistant", "content": prev.text}]
    mock_model.enqueue(SYNTHESIS)
    ans = corpus.ask(FINANCE, history=history, backend="mock")
    assert ans.caveat_kind == "list_by_meaning" and ans.citations and not ans.refused
    assert not mock_model.prompts and ans.text.startswith(ans.caveat)  # the hedge opens the answer, nothing above it
    assert SYNTHESIS.split(" [")[0] not in ans.text


def test_a_list_by_meaning_gets_no_synthesis_and_a_plain_list_still_does(corpus: Assistant, mock_model: Any) -> None:
    mock_model.enqueue(SYNTHESIS)
    ans = corpus.ask(BY_MEANING, backend="mock")
    assert ans.caveat_kind == "list_by_meaning" and not mock_model.prompts and ans.text.startswith(ans.caveat)
    plain = corpus.ask(LISTED, backend="mock")  # a list by the topic's words: the synthesis is asked for
    assert plain.shape == "list" and not plain.caveat and len(mock_model.prompts) == 1


