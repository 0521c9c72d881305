"""Shared fixtures. Every test runs offline: only 127.0.0.1 is ever contacted."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# Tests never pick up a developer's real endpoint by accident.
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CHROMA_HOST", "CHROMA_PORT"):
    os.environ.pop(_name, None)

import re  # noqa: E402
import shutil  # noqa: E402
from collections import deque  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
from fake_openai import fake_openai  # noqa: E402,F401  (fixture: an OpenAI-compatible server on 127.0.0.1)
from local_model import model_settings  # noqa: E402,F401  (fixture: the real packaged model, or a skip)

from assistant import Assistant  # noqa: E402
from assistant.backends import ChatModel, LLMError, register, unregister  # noqa: E402
from assistant.settings import DEFAULT_CORPUS  # noqa: E402
from assistant.types import Answer  # noqa: E402

ARTIFACTS = Path(__file__).parent / "artifacts"


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir holding the bundled corpus, ingested once per test session (embedded Chroma)."""
    data_dir = tmp_path_factory.mktemp("corpus") / "data"
    if os.environ.get("TEST_CORPUS_FROM"):  # a developer's already-ingested copy (saves minutes)
        shutil.copytree(os.environ["TEST_CORPUS_FROM"], data_dir)
    Assistant(data_dir=data_dir, backend="extractive").ingest([DEFAULT_CORPUS])
    return data_dir


@pytest.fixture(scope="session")
def corpus(corpus_dir: Path) -> Assistant:
    """One shared Assistant over the ingested bundled corpus (extractive); read-only use."""
    return Assistant(data_dir=corpus_dir, backend="extractive")


@pytest.fixture()
def corpus_copy(corpus_dir: Path, tmp_path: Path) -> Assistant:
    """A private copy of the ingested corpus, for tests that change the index."""
    target = tmp_path / "data"
    shutil.copytree(corpus_dir, target)
    return Assistant(data_dir=target, backend="extractive")


Reply = str | Callable[[list[dict[str, str]]], str]


class MockChatModel(ChatModel):
    """A chat model whose replies tests enqueue (simonw/llm's mock pattern), registered through the
    backend registry like any engine. Each call takes the next reply — a string, or a function of
    the messages it was sent — and streams it word by word; every prompt is recorded. With no reply
    queued it fails the way a real backend does (LLMError)."""

    name = "mock"
    model = "mock-model"
    context_window = 8192

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.prompts: list[list[dict[str, str]]] = []

    def enqueue(self, *replies: Reply) -> MockChatModel:
        self.replies.extend(replies)
        return self

    def stream(self, messages: list[dict[str, str]], *, max_tokens: int, temperature: float = 0.0) -> Iterator[str]:
        self.prompts.append([dict(m) for m in messages])
        if not self.replies:
            raise LLMError("mock model: no reply enqueued")
        reply = self.replies.popleft()
        text = reply(messages) if callable(reply) else reply
        yield from (piece for piece in re.split(r"(?<=\s)", text) if piece)


def streamed(assistant: Assistant, question: str, **kw: Any) -> tuple[str, Answer | None]:
    """What ``assistant.stream`` showed (its text pieces joined) and the final Answer it gave."""
    parts: list[str] = []
    answer = None
    for item in assistant.stream(question, **kw):
        if isinstance(item, str):
            parts.append(item)
        else:
            answer = item
    return "".join(parts), answer


class CountingEmbedder:
    """Wraps the real embedder and counts the texts it is asked to embed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> Any:
        self.texts += list(texts)
        return self.inner(texts)


@pytest.fixture()
def mock_model() -> Iterator[MockChatModel]:
    """A fresh MockChatModel, available as ``backend="mock"`` for the duration of the test."""
    model = MockChatModel()
    register(model.name, lambda settings: model, lambda settings: True, default=False)
    try:
        yield model
    finally:
        unregister(model.name)
