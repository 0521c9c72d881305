"""The answering path through the backend registry, driven by the conftest mock chat model."""

from __future__ import annotations

import re

from conftest import MockChatModel, streamed

from assistant import Assistant
from assistant.backends import available_backends, make_chat_model, names, resolve


def _first_excerpt_sentence(messages: list[dict[str, str]]) -> str:
    """The first sentence of source [1]'s excerpt, as the prompt shows it, cited as [1]."""
    user = messages[-1]["content"]
    excerpt = re.search(r'<source id="1">.*?Excerpt: (.*?)\n</source>', user, re.S)
    assert excerpt, user
    sentence = re.split(r"(?<=[.!?])\s+", excerpt.group(1).strip())[0]
    return f"{sentence.rstrip('.')}. [1]"


def test_registered_mock_is_a_backend_but_never_the_default(mock_model: MockChatModel, corpus: Assistant) -> None:
    assert "mock" in names()
    assert make_chat_model("mock", corpus.settings) is mock_model
    assert "mock" not in available_backends(corpus.settings)
    assert resolve(corpus.settings) == "extractive"  # the corpus fixture's configured backend


def test_answer_comes_from_the_mock_and_is_verified(mock_model: MockChatModel, corpus: Assistant) -> None:
    question = "How does FlashAttention reduce memory reads and writes?"
    mock_model.enqueue(_first_excerpt_sentence)
    text, answer = streamed(corpus, question, backend="mock")
    assert answer is not None and answer.backend == "mock" and not answer.refused
    assert text.strip().endswith("[1]")  # the model's words were streamed as they came
    assert answer.citations and answer.citations[0].evidence
    assert all(s.supported for s in answer.sentences)
    assert answer.usage["model"] == "mock-model" and answer.usage["prompt_tokens"] > 0
    (prompt,) = mock_model.prompts
    assert prompt[0]["role"] == "system" and question in prompt[-1]["content"]
    assert not mock_model.replies


def test_declining_or_failing_model_falls_back_to_extractive(mock_model: MockChatModel, corpus: Assistant) -> None:
    question = "What does Ring Attention distribute across devices?"
    mock_model.enqueue("NOT IN SOURCES")
    declined = corpus.ask(question, backend="mock")
    assert declined.backend.startswith("mock") and declined.backend != "mock"
    assert "declined" in (declined.fallback_reason or "") and declined.citations
    failed = corpus.ask(question, backend="mock")  # nothing queued: the model raises LLMError
    assert "no reply enqueued" in (failed.fallback_reason or "") and failed.citations
    assert len(mock_model.prompts) == 2
