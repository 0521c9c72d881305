"""The ``openai`` backend (real ``openai`` client) against a REAL llama.cpp OpenAI-compatible server:
xllamacpp's ``Server`` listening on 127.0.0.1 TCP with the packaged model. One 16-token answer."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from assistant.backends import local
from assistant.backends.openai_backend import OpenAIChatModel
from assistant.settings import Settings

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(model_settings: Settings) -> Iterator[str]:
    """``llama-server`` in-process on 127.0.0.1:<free port>; yields its /v1 base URL."""
    xlc = local._import_xllamacpp()
    params = xlc.CommonParams()
    params.model.path = str(local.ensure_model(model_settings))
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = local.physical_cores()
    params.n_ctx, params.n_parallel, params.warmup = 2048, 1, False
    params.hostnames, params.port = ["127.0.0.1"], free_port()
    params.offline, params.ui, params.verbosity = True, False, 0
    server = xlc.Server(params)
    yield f"http://127.0.0.1:{params.port}/v1"
    del server


def test_openai_backend_streams_from_a_real_llama_cpp_server(llama_server: str, model_settings: Settings) -> None:
    settings = model_settings.model_copy(update={
        "openai_base_url": llama_server, "openai_api_key": "not-needed", "openai_model": local.MODEL_FILE,
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
