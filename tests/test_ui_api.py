"""The UI's HTTP API through gradio_client, concurrency without cross-talk, and the bind safety rules."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from gradio_client import Client
from test_ui import running

from assistant import Assistant, Settings
from assistant.ui.app import UIConfigError, launch_options, serve, start

pytestmark = pytest.mark.slow

QUESTIONS = [
    "What is Ring Attention?",
    "How does FlashAttention reduce memory reads and writes?",
    "What does LASP-2 improve in sequence parallelism?",
    "What is the Retentive Network?",
    "What does the BABILong benchmark test?",
    "How does the Diff Transformer cancel attention noise?",
    "How does ColBERTv2 compress late interaction?",
    "What is the Decision Transformer?",
    "What is the Focused Transformer?",
    "What is LightSeq?",
    "What is Mixture-of-Memories?",
    "What is TurnGPT?",
    "What is Hint-Aug?",
    "What is the Gated State Space layer?",
    "What is test-time training?",
    "What is the capital gains tax rate in France?",
]


@pytest.fixture(scope="module")
def assistant(corpus_dir: Path) -> Assistant:
    """One Assistant over the ingested bundled corpus for the module (its caches warm up once);
    3 sources per answer keep the 16-session test quick on small machines."""
    return Assistant(data_dir=corpus_dir, backend="extractive", top_k=3)


def client(url: str, **kw: Any) -> Client:
    return Client(url, verbose=False, analytics_enabled=False, download_files=False, **kw)


def test_ask_endpoint_returns_answer_with_citations(assistant: Assistant) -> None:
    with running(assistant) as url:
        c = client(url)
        endpoints = c.view_api(print_info=False, return_format="dict")["named_endpoints"]
        assert list(endpoints) == ["/ask", "/model_status"]  # the UI's own events are not part of the API
        result = c.predict("What is FlashAttention?", "[]", "", api_name="/ask")
        assert isinstance(result, dict)
        assert result["question"] == "What is FlashAttention?"
        assert "[1]" in result["answer"] and not result["refused"]
        assert result["citations"] and result["citations"][0]["n"] == 1
        cite = result["citations"][0]
        assert {"doc_id", "label", "text", "source", "score", "evidence"} <= set(cite)
        ev = cite["evidence"][0]
        assert cite["text"][ev["start"]:ev["end"]] == ev["text"]
        assert result["backend"] == "extractive" and result["timings"]["total"] > 0
        assert "usage" in result

        with pytest.raises(Exception, match="history_json"):
            c.predict("and its memory cost?", "{not json", "", api_name="/ask")
        with pytest.raises(Exception, match="unknown backend"):
            c.predict("What is FlashAttention?", "[]", "gpt-9", api_name="/ask")


def test_sixteen_concurrent_sessions_get_their_own_answers(assistant: Assistant) -> None:
    results: dict[int, Any] = {}
    with running(assistant) as url:
        barrier = threading.Barrier(len(QUESTIONS))

        def session(i: int) -> None:
            try:
                c = client(url)
                barrier.wait(timeout=60)
                results[i] = c.predict(QUESTIONS[i], "[]", "", api_name="/ask")
            except Exception as exc:  # reported below, with the question
                results[i] = exc

        threads = [threading.Thread(target=session, args=(i,)) for i in range(len(QUESTIONS))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
    assert len(results) == len(QUESTIONS)
    for i, question in enumerate(QUESTIONS):
        got = results[i]
        assert isinstance(got, dict), f"{question!r}: {got!r}"
        assert got["question"] == question
        direct = assistant.ask(question)
        assert got["refused"] == direct.refused, question
        assert [c["doc_id"] for c in got["citations"]] == [c.doc_id for c in direct.citations], question
        assert got["answer"] == direct.text, question
    assert sum(not r["refused"] for r in results.values()) >= len(QUESTIONS) // 2


def test_exposed_host_requires_auth(tmp_path: Path) -> None:
    with pytest.raises(UIConfigError, match="auth"):
        launch_options(Settings(host="0.0.0.0", data_dir=tmp_path))
    with pytest.raises(UIConfigError, match="without a password"):
        serve(Settings(host="0.0.0.0", data_dir=tmp_path))  # refuses before loading anything
    with pytest.raises(UIConfigError, match="share"):
        launch_options(Settings(share=True, data_dir=tmp_path))
    with pytest.raises(UIConfigError, match="user:password"):
        launch_options(Settings(host="0.0.0.0", auth="nopassword", data_dir=tmp_path))
    assert launch_options(Settings(host="0.0.0.0", auth="u:p", data_dir=tmp_path))["auth"] == ("u", "p")
    assert launch_options(Settings(host="0.0.0.0", insecure_no_auth=True, data_dir=tmp_path))["auth"] is None
    local = launch_options(Settings(data_dir=tmp_path))
    assert local["server_name"] == "127.0.0.1" and local["share"] is False and local["auth"] is None
    assert "allowed_paths" not in local


def test_start_refuses_exposed_host_without_auth(assistant: Assistant) -> None:
    with pytest.raises(UIConfigError):
        start(assistant, assistant.settings.model_copy(update={"host": "0.0.0.0"}))


def test_auth_protects_page_and_api(assistant: Assistant) -> None:
    with running(assistant, auth="reader:s3cret-pass") as url:
        assert httpx.get(url + "config", timeout=30).status_code == 401
        with pytest.raises(Exception):  # noqa: B017 - gradio_client raises its own error types
            client(url)
        with pytest.raises(Exception):  # noqa: B017
            client(url, auth=("reader", "wrong"))
        c = client(url, auth=("reader", "s3cret-pass"))
        assert "/ask" in c.view_api(print_info=False, return_format="dict")["named_endpoints"]
