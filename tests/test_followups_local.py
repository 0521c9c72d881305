"""Follow-ups with an LLM backend (#21 / #20, helper P, session 15): the model's re-reading of a
question's shape (assistant/shape_model.py) is shown the question alone and was fitted on standalone
questions, so a follow-up keeps the frames' reading (assistant/collection.py ``_shaped``): "do they use
images?" after a list asks about that list, never for an overview of the whole collection."""

from __future__ import annotations

from typing import Any

from assistant import Assistant
from assistant.shape import detect
from assistant.shape_model import eligible, messages

# written for these tests (no evaluation question): a list, then a follow-up the frames read as a fact
LISTED = "Which papers here study chain-of-thought?"
FOLLOW = "Do they use images?"
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
