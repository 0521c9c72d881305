"""Load: 16 concurrent gradio_client sessions against the web app, answering through the openai
backend (the fake server, 0.3 s per answer like a real LLM). All are answered, each with the
answer to its own question (no cross-talk); latency is printed, not asserted (shared machines
are noisy). ``python -m evals.reliability`` runs 64 sessions and a 1,000-question memory run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI

from assistant import Assistant
from assistant.ui.app import start
from evals.reliability import (
    Result,
    ask_all_at_once,
    ask_once,
    connect,
    cross_talk,
    free_port,
    latency,
    questions,
)

pytestmark = pytest.mark.slow

SESSIONS = 16
LLM_DELAY_S = 0.3


@pytest.fixture()
def app(corpus_dir: Path, fake_openai: FakeOpenAI) -> Iterator[tuple[str, Assistant]]:
    """The app over the ingested corpus, answering with the openai backend at the fake; its URL."""
    assistant = Assistant(data_dir=corpus_dir, backend="openai", openai_base_url=fake_openai.base_url,
                          openai_api_key="sk-test", openai_max_retries=0, openai_timeout=60.0, top_k=3)
    demo = start(assistant, assistant.settings.model_copy(update={"host": "127.0.0.1", "port": free_port()}))
    try:
        yield f"http://127.0.0.1:{demo.server_port}/", assistant
    finally:
        demo.close()


def test_sixteen_concurrent_sessions_with_a_slow_llm(app: tuple[str, Assistant], fake_openai: FakeOpenAI) -> None:
    url, assistant = app
    warm_up, *asked = questions(SESSIONS + 1)
    assert len(set(asked)) == SESSIONS
    clients = connect(url, SESSIONS)
    assert ask_once(clients[0], 0, warm_up).got is not None  # loads the models: not part of the latencies
    fake_openai.delay = LLM_DELAY_S
    results = ask_all_at_once(clients, asked)
    p50, p95 = latency(results)
    print(f"\n{SESSIONS} sessions, openai backend with a {LLM_DELAY_S} s LLM: "
          f"latency p50 {p50:.2f} s, p95 {p95:.2f} s, max {max(r.seconds for r in results):.2f} s")
    errors = [f"{r.question!r}: {r.error}" for r in results if r.got is None]
    assert not errors, errors

    fake_openai.delay = 0.0  # the same fake answers, sooner
    direct = {q: assistant.ask(q).to_dict() for q in asked}
    talk = [msg for r in results if (msg := cross_talk(r, direct[r.question]))]
    assert not talk, talk
    swapped = Result(1, asked[1], got=direct[asked[0]])  # the check itself sees a swapped answer
    assert "question" in cross_talk(swapped, direct[asked[1]]) and "citations" in cross_talk(swapped, direct[asked[1]])
    assert [r.got["question"] for r in results if r.got] == asked
    answered = [r for r in results if r.got and not r.got["refused"]]
    assert len(answered) >= SESSIONS // 2
    assert any(r.got and r.got["backend"] == "openai" for r in answered)  # the model's answers were used
    # the fake's reply depends on the prompt (two questions about one paper may share it)
    assert len({r.got["answer"] for r in answered if r.got}) > len(answered) // 2
