"""The ``openai`` backend (real ``openai`` client) against a REAL llama.cpp OpenAI-compatible server:
xllamacpp's ``Server`` listening on 127.0.0.1 TCP with the packaged model. One 16-token answer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from assistant.backends import local
from assistant.backends.openai_backend import OpenAIChatModel
from assistant.settings import Settings
from evals.llama_server import llama_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llama_server_url(model_settings: Settings) -> Iterator[str]:
    """``llama-server`` in-process on 127.0.0.1:<free port>; yields its /v1 base URL."""
    with llama_server(model_settings) as url:
        yield url


def test_openai_backend_streams_from_a_real_llama_cpp_server(llama_server_url: str, model_settings: Settings) -> None:
    settings = model_settings.model_copy(update={
        "openai_base_url": llama_server_url, "openai_api_key": "not-needed", "openai_model": local.MODEL_FILE,
        "openai_max_retries": 0, "openai_timeout": 120.0, "answer_deadline_s": 300.0})
    model = OpenAIChatModel(settings)
    messages: list[Any] = [{"role": "system", "content": "Answer briefly."},
                           {"role": "user", "content": "Name three colours."}]
    try:
        deltas = list(model.stream(messages, max_tokens=16))
    finally:
        model.close()
    assert len(deltas) > 1 and "".join(deltas).strip()  # streamed in pieces, not one block
    assert model.last_finish_reason in ("stop", "length")
    usage = model.last_usage
    assert 10 < usage["prompt_tokens"] < 100, usage  # the chat template plus our two short messages
    assert 1 <= usage["completion_tokens"] <= 16, usage
    assert usage["cost_usd"] is None  # no list price for a local model
