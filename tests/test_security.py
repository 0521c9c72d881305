"""Security defaults: the UI binds to loopback and refuses to be exposed without a password; with a
password nothing of the app or its API is served before login; API keys are never logged or shown.

test_ui_api.py covers the launch rules for 0.0.0.0 / share / malformed auth, /config being 401 and
gradio_client failing without or with wrong credentials; this file fills the gaps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_openai import FakeOpenAI

from assistant import Assistant, Settings
from assistant.ui.app import EXAMPLES, UIConfigError, launch_options, start
from evals.reliability import free_port

ROOT = Path(__file__).resolve().parent.parent
SECRET = "sk-distinctive-secret-123"
PASSWORD = "s3cret-pass-774"
PROC_TCP = Path("/proc/net/tcp")


@contextmanager
def running(assistant: Assistant, **settings: Any) -> Iterator[str]:
    demo = start(assistant, assistant.settings.model_copy(update={"port": free_port(), **settings}))
    try:
        yield f"http://127.0.0.1:{demo.server_port}"
    finally:
        demo.close()


@pytest.mark.parametrize("host", ["::", "0.0.0.0", "192.168.1.20", "10.0.0.1", "127.0.0.2", "example.org", ""])
def test_every_non_loopback_host_needs_auth(tmp_path: Path, host: str) -> None:
    with pytest.raises(UIConfigError, match="without a password"):
        launch_options(Settings(host=host, data_dir=tmp_path))
    assert launch_options(Settings(host=host, auth="u:p", data_dir=tmp_path))["auth"] == ("u", "p")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_loopback_hosts_need_no_auth_but_share_does(tmp_path: Path, host: str) -> None:
    assert launch_options(Settings(host=host, data_dir=tmp_path))["auth"] is None
    with pytest.raises(UIConfigError):
        launch_options(Settings(host=host, share=True, data_dir=tmp_path))


def test_defaults_are_loopback_no_share(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ASSISTANT_HOST", "ASSISTANT_SHARE", "ASSISTANT_AUTH", "ASSISTANT_INSECURE_NO_AUTH"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.load(data_dir=tmp_path)
    assert (settings.host, settings.share, settings.auth, settings.insecure_no_auth) == ("127.0.0.1", False, None, False)


def test_serve_command_refuses_an_exposed_host_without_auth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from assistant.cli import main

    for name in [k for k in os.environ if k.startswith("ASSISTANT_")]:
        monkeypatch.delenv(name)
    assert main(["serve", "--host", "0.0.0.0", "--data-dir", str(tmp_path)]) == 1
    assert "without a password" in capsys.readouterr().err
    assert main(["serve", "--host", "0.0.0.0", "--auth", "nopassword", "--data-dir", str(tmp_path)]) == 1
    assert "user:password" in capsys.readouterr().err


def listening_addresses(port: int) -> list[str]:
    """Local addresses (hex, as in /proc/net/tcp) of IPv4 sockets listening on ``port``."""
    out = []
    for line in PROC_TCP.read_text().splitlines()[1:]:
        fields = line.split()
        address, state = fields[1], fields[3]
        if state == "0A" and address.endswith(f":{port:04X}"):
            out.append(address.split(":")[0])
    return out


def test_password_protected_app_serves_nothing_before_login(corpus_dir: Path, fake_openai: FakeOpenAI) -> None:
    assistant = Assistant(data_dir=corpus_dir, backend="openai", openai_base_url=fake_openai.base_url,
                          openai_api_key=SECRET, openai_max_retries=0, openai_timeout=10.0, top_k=3)
    with running(assistant, auth=f"reader:{PASSWORD}") as url:
        port = int(url.rsplit(":", 1)[1])
        if PROC_TCP.exists():  # bound to loopback only (127.0.0.1 is 0100007F)
            assert listening_addresses(port) == ["0100007F"]
        page = httpx.get(url + "/", timeout=30)
        assert page.status_code == 200  # the login page: Gradio's shell, which asks for a password
        assert not any(text in page.text for text in (*EXAMPLES, "qa-header", SECRET, PASSWORD))
        for path in ("/config", "/gradio_api/info", "/gradio_api/openapi.json", "/gradio_api/queue/status",
                     "/gradio_api/file=/etc/passwd"):
            assert httpx.get(url + path, timeout=30).status_code == 401, path
        for path in ("/gradio_api/call/ask", "/gradio_api/run/ask", "/gradio_api/queue/join"):
            r = httpx.post(url + path, json={"data": ["What is Ring Attention?", "[]", ""], "fn_index": 0,
                                             "session_hash": "intruder"}, timeout=30)
            assert r.status_code == 401, (path, r.status_code)
        bad = httpx.post(url + "/login", data={"username": "reader", "password": "wrong"}, timeout=30)
        assert bad.status_code in (400, 401) and not bad.cookies
        assert fake_openai.chat_requests == []  # nothing reached the model

        with httpx.Client(timeout=30) as session:  # logged in: the app, but never the key or password
            assert session.post(url + "/login", data={"username": "reader", "password": PASSWORD}).status_code == 200
            config = session.get(url + "/config")
            assert config.status_code == 200 and EXAMPLES[0] in config.text
            assert SECRET not in config.text and PASSWORD not in config.text
            assert SECRET not in session.get(url + "/").text


def test_api_key_never_printed_by_ask(corpus_dir: Path, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """`assistant ask --json --backend openai` against a server that fails with HTTP 500 and echoes the key
    (and the openai library's debug logging on): the key is in no output, though it was sent."""
    for _ in range(4):  # the first try and the default 3 retries
        fake_openai.enqueue_fault("500", retry_after="0.01", message=f"Incorrect API key provided: {SECRET}.")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ASSISTANT_"))}
    env.update(OPENAI_API_KEY=SECRET, OPENAI_LOG="debug", HF_HUB_OFFLINE="1")
    res = subprocess.run(
        [sys.executable, "-m", "assistant.cli", "ask", "What is Ring Attention?", "--json", "--backend", "openai",
         "--base-url", fake_openai.base_url, "--data-dir", str(corpus_dir)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert SECRET not in res.stdout and SECRET not in res.stderr
    answer = json.loads(res.stdout)
    assert SECRET not in json.dumps(answer)
    assert answer["backend"] == "openai→extractive" and answer["citations"]
    assert "HTTP 500" in answer["fallback_reason"] and "***" in answer["fallback_reason"]  # redacted, not dropped
    assert len(fake_openai.chat_requests) == 4
    assert all(r.headers.get("Authorization") == f"Bearer {SECRET}" for r in fake_openai.chat_requests)


def test_readme_documents_the_security_defaults() -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "authenticating proxy" in readme  # a Chroma server has no authentication of its own
    assert "binds to 127.0.0.1" in readme and "--auth user:password" in readme
    assert "API keys are never logged or shown" in readme
