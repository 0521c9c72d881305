"""The page while the local model warms, through its HTTP API (gradio_client): usable at once,
answering extractively and saying so. The warm-up is held at a gate, so no timing is involved.
(The same in a real browser, with the real model: tests/test_ui.py::test_page_answers_while_the_local_model_warms.)"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from gradio_client import Client
from test_ui import running

from assistant import Assistant
from assistant.backends import local
from assistant.ui.app import available_backends, render_model_status

pytestmark = pytest.mark.slow


def test_api_answers_while_warming_then_reports_a_failed_load(corpus_dir: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "_WARMUPS", {})
    monkeypatch.setattr(local, "_xllamacpp_importable", lambda: True)  # the file below is enough to offer "local"
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf model")
    warming = Assistant(data_dir=corpus_dir, backend="local", local_model_path=broken, top_k=3)
    assert "local" in available_backends(warming.settings)
    gate = threading.Event()
    thread = local.warm(warming.settings, gate=gate)
    try:
        with running(warming) as url:
            c = Client(url, verbose=False, analytics_enabled=False, download_files=False)
            assert c.predict("", api_name="/model_status") == {"backend": "local", "state": "loading", "detail": ""}
            result = c.predict("What is Ring Attention?", "[]", "", api_name="/ask")
            assert result["backend"] == "local→extractive" and "still loading" in result["fallback_reason"]
            assert result["citations"] and not result["refused"]
            assert c.predict("extractive", api_name="/model_status")["state"] == ""
            assert c.predict("What is Ring Attention?", "[]", "extractive", api_name="/ask")["backend"] == "extractive"

            gate.set()
            thread.join(timeout=120)
            status = c.predict("local", api_name="/model_status")
            assert status["state"] == "failed" and "broken.gguf" in status["detail"]
            after = c.predict("What is Ring Attention?", "[]", "local", api_name="/ask")
            assert after["backend"] == "local→extractive" and "could not be loaded" in after["fallback_reason"]
    finally:
        gate.set()


def test_status_line_texts() -> None:
    loading = render_model_status({"backend": "local", "state": "loading", "detail": ""})
    assert 'data-state="loading"' in loading and "answers are extracted from the sources" in loading
    assert "loaded in 8.5 s" in render_model_status({"backend": "local", "state": "ready", "detail": "8.5"})
    failed = render_model_status({"backend": "local", "state": "failed", "detail": "<b>missing</b>"})
    assert "&lt;b&gt;missing" in failed and "<b>" not in failed
    assert render_model_status({"backend": "openai", "state": "", "detail": ""}).count("data-state=\"\"") == 1
