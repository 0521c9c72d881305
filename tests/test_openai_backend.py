"""The openai backend, driven through the real ``openai`` client against the fake server."""

from __future__ import annotations

import logging
import math
from typing import Any

import openai
import pytest

from assistant.backends.base import LLMError
from assistant.backends.openai_backend import (
    MAX_SHARED_CLIENTS,
    OpenAIChatModel,
    context_window_for,
    estimate_cost,
)
from assistant.settings import Settings

KEY = "sk-test-ZEBRA-7f3a91c2-do-not-leak"
MESSAGES = [
    {"role": "system", "content": "Answer from the abstracts."},
    {"role": "user", "content": "What does contrastive pretraining improve in retrieval models?"},
]


def make_model(fake: Any, **overrides: Any) -> OpenAIChatModel:
    values: dict[str, Any] = {
        "openai_base_url": fake.base_url,
        "openai_api_key": KEY,
        "openai_timeout": 5.0,
        "openai_max_retries": 2,
        "openai_model": "gpt-4o-mini",
        **overrides,
    }
    return OpenAIChatModel(Settings(**values))


def collect(model: OpenAIChatModel) -> list[str]:
    return list(model.stream(MESSAGES, max_tokens=50))


def failure(model: OpenAIChatModel) -> str:
    with pytest.raises(LLMError) as info:
        collect(model)
    message = str(info.value)
    assert KEY not in message and "ZEBRA" not in message
    return message


def test_streams_the_enqueued_answer_in_several_deltas(fake_openai: Any) -> None:
    text = "Contrastive pretraining improves zero-shot retrieval [1]."
    fake_openai.enqueue(text)
    model = make_model(fake_openai)
    deltas = collect(model)
    assert len([d for d in deltas if d]) > 1
    assert "".join(deltas) == text
    assert model.last_finish_reason == "stop"
    (request,) = fake_openai.chat_requests
    assert request["stream"] is True and request["model"] == "gpt-4o-mini"
    assert request["messages"] == MESSAGES and request["max_tokens"] == 50
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    usage = model.last_usage
    assert usage["completion_tokens"] == len(text.split()) and usage["prompt_tokens"] > 0
    assert usage["cost_usd"] == pytest.approx(estimate_cost("gpt-4o-mini", usage["prompt_tokens"], usage["completion_tokens"]))


def test_default_reply_echoes_the_question(fake_openai: Any) -> None:
    answer = make_model(fake_openai).complete(MESSAGES, max_tokens=20)
    assert answer == "Answer: What does contrastive pretraining improve in retrieval models?"


def test_429_with_retry_after_then_success(fake_openai: Any) -> None:
    fake_openai.enqueue_fault("429", retry_after="0.05")
    fake_openai.enqueue("after the rate limit")
    assert "".join(collect(make_model(fake_openai))) == "after the rate limit"
    assert len(fake_openai.chat_requests) == 2


def test_500_twice_then_success(fake_openai: Any) -> None:
    fake_openai.enqueue_fault("500")
    fake_openai.enqueue_fault("500")
    fake_openai.enqueue("third time lucky")
    assert make_model(fake_openai).complete(MESSAGES, max_tokens=20) == "third time lucky"
    assert len(fake_openai.chat_requests) == 3


def test_persistent_500_names_the_status_and_url(fake_openai: Any) -> None:
    for _ in range(3):
        fake_openai.enqueue_fault("500", retry_after="0.01", message="upstream exploded")
    message = failure(make_model(fake_openai))
    assert "500" in message and fake_openai.base_url in message and "upstream exploded" in message
    assert len(fake_openai.chat_requests) == 3  # first try + 2 retries


def test_persistent_429_is_an_llm_error(fake_openai: Any) -> None:
    fake_openai.enqueue_fault("429", retry_after="0.01")
    message = failure(make_model(fake_openai, openai_max_retries=0))
    assert "429" in message and "rate limit" in message


def test_hang_past_the_timeout(fake_openai: Any) -> None:
    fake_openai.enqueue_fault("hang", seconds=5)
    message = failure(make_model(fake_openai, openai_timeout=0.5, openai_max_retries=0))
    assert "timeout" in message and fake_openai.base_url in message


def test_connection_refused(fake_openai: Any) -> None:
    model = make_model(fake_openai, openai_base_url="http://127.0.0.1:9/v1", openai_max_retries=0)
    assert "could not connect" in failure(model)


@pytest.mark.parametrize("graceful", [False, True], ids=["connection-closed", "clean-eof"])
def test_cut_stream(fake_openai: Any, graceful: bool) -> None:
    fake_openai.enqueue_fault("cut", text="one two three four five six seven eight", graceful=graceful)
    model = make_model(fake_openai)
    seen: list[str] = []
    with pytest.raises(LLMError, match="cut") as info:
        for delta in model.stream(MESSAGES, max_tokens=50):
            seen.append(delta)
    assert "".join(seen).startswith("one two") and KEY not in str(info.value)
    assert len(fake_openai.chat_requests) == 1  # a stream that already began is never retried


def test_malformed_stream(fake_openai: Any) -> None:
    fake_openai.enqueue_fault("malformed")
    assert "malformed" in failure(make_model(fake_openai))


def test_server_without_stream_options_gets_a_second_plain_request(fake_openai: Any) -> None:
    fake_openai.enqueue_fault("500", status=400, message="Unrecognized request argument supplied: stream_options")
    fake_openai.enqueue("fine without usage")
    model = make_model(fake_openai)
    assert "".join(collect(model)) == "fine without usage"
    first, second = fake_openai.chat_requests
    assert "stream_options" in first and "stream_options" not in second
    assert model.last_usage == {}


def test_key_never_in_messages_or_logs(fake_openai: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    fake_openai.enqueue_fault("500", status=401, message=f"Incorrect API key provided: {KEY}")
    message = failure(make_model(fake_openai))
    assert "401" in message and "API key" in message
    assert KEY not in caplog.text


def test_fake_server_faults_for_non_streaming_clients(fake_openai: Any) -> None:
    client = openai.OpenAI(base_url=fake_openai.base_url, api_key=KEY, max_retries=0)
    fake_openai.enqueue_fault("malformed")
    with pytest.raises(ValueError):
        client.chat.completions.create(model="m", messages=MESSAGES)  # type: ignore[arg-type]
    fake_openai.enqueue_fault("cut")
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model="m", messages=MESSAGES)  # type: ignore[arg-type]
    reply = client.chat.completions.create(model="m", messages=MESSAGES)  # type: ignore[arg-type]
    assert reply.choices[0].message.content.startswith("Answer: What does")  # type: ignore[union-attr]
    assert reply.usage is not None and reply.usage.total_tokens > 0
    assert [m.id for m in client.models.list()] == ["fake-model"]
    client.close()


def test_embeddings_are_deterministic_and_normalised(fake_openai: Any) -> None:
    client = openai.OpenAI(base_url=fake_openai.base_url, api_key=KEY, max_retries=0)
    texts = ["Dense retrieval with contrastive loss", "dense RETRIEVAL, with contrastive loss!", "Protein folding"]
    first = [d.embedding for d in client.embeddings.create(model="fake-embed", input=texts).data]
    floats = client.embeddings.create(model="fake-embed", input=texts, encoding_format="float").data
    single = client.embeddings.create(model="fake-embed", input=texts[0]).data[0].embedding
    assert len(first) == 3 and all(len(v) == 64 for v in first)
    assert all(math.isclose(sum(x * x for x in v), 1.0, rel_tol=1e-5) for v in first)
    assert first[0] == pytest.approx(first[1]) and first[0] == pytest.approx(single)
    assert [d.embedding for d in floats][2] == pytest.approx(first[2])
    assert sum(a * b for a, b in zip(first[0], first[2], strict=True)) < 0.5
    client.close()


def test_model_tables() -> None:
    assert context_window_for("gpt-4o") == 128_000
    assert context_window_for("gpt-4o-mini-2024-07-18") == 128_000
    assert context_window_for("gpt-4.1") == 1_047_576  # llama-index's table; the prompt budget caps what is used
    assert context_window_for("llama-3.1-8b-instruct") == 8_192
    assert estimate_cost("gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert estimate_cost("gpt-4.1-mini-2025-04-14", 1_000_000, 0) == pytest.approx(0.40)
    assert estimate_cost("some-local-model", 10, 10) is None
    fake_settings = Settings(openai_model="mistral-7b", openai_base_url="http://127.0.0.1:1/v1")
    assert OpenAIChatModel(fake_settings).context_window == 8_192


def test_trickling_server_is_stopped_at_the_answer_deadline(fake_openai: Any) -> None:
    """Every read is quick (well under openai_timeout), but the answer never ends: the deadline stops it."""
    words = [f"w{i}" for i in range(2000)]
    fake_openai.enqueue_fault("trickle", text=" ".join(words), interval=0.02)
    # 2 s: room for the first words on a loaded machine (0.5 s missed them once, under a load of ~7);
    # the 2000 words take 40 s, so the deadline still falls mid-stream
    model = make_model(fake_openai, answer_deadline_s=2.0, openai_timeout=5.0, openai_max_retries=0)
    received: list[str] = []
    with pytest.raises(LLMError, match=r"deadline of 2(?:\.0)? s \(answer_deadline_s\)"):
        for delta in model.stream(MESSAGES, max_tokens=4000):
            received.append(delta)
    assert received, "the stream had started before the deadline"
    assert len("".join(received).split()) < len(words)  # stopped, not read to the end
    fake_openai.enqueue("Contrastive pretraining helps [1].")  # the client is usable afterwards
    assert "".join(collect(model)) == "Contrastive pretraining helps [1]."


def test_a_trickle_that_ends_in_time_is_a_normal_answer(fake_openai: Any) -> None:
    fake_openai.enqueue_fault("trickle", text="Slow but complete answer [1].", interval=0.01)
    model = make_model(fake_openai, answer_deadline_s=30.0)
    assert "".join(collect(model)) == "Slow but complete answer [1]."
    assert model.last_finish_reason == "stop" and model.last_usage["completion_tokens"] == 5


def test_hang_is_cut_at_the_deadline_even_with_a_longer_read_timeout(fake_openai: Any) -> None:
    fake_openai.enqueue_fault("hang", seconds=30)
    model = make_model(fake_openai, answer_deadline_s=0.5, openai_timeout=30.0, openai_max_retries=3)
    assert "deadline of 0.5 s" in failure(model)


def test_answers_share_one_client_per_endpoint_and_the_pool_stays_bounded(fake_openai: Any) -> None:
    """The engine builds a chat model per answer: they must reuse one client (a client per answer
    grew the app's memory), a model's close() must not close it for the others, and distinct
    endpoint settings never keep more than MAX_SHARED_CLIENTS clients."""
    from assistant.backends import openai_backend

    first, second = make_model(fake_openai), make_model(fake_openai)
    assert first._client is second._client
    assert make_model(fake_openai, openai_timeout=7.0)._client is not first._client
    first.close()
    fake_openai.enqueue("Still answering [1].")
    assert "".join(collect(make_model(fake_openai))) == "Still answering [1]."
    for i in range(MAX_SHARED_CLIENTS + 5):
        make_model(fake_openai, openai_timeout=10.0 + i)
        assert len(openai_backend._CLIENTS) <= MAX_SHARED_CLIENTS
    own = openai.OpenAI(base_url=fake_openai.base_url, api_key=KEY, max_retries=0)
    OpenAIChatModel(Settings(openai_base_url=fake_openai.base_url, openai_api_key=KEY), client=own).close()
    assert own.is_closed()
