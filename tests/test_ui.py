"""The web UI in a real headless Chromium against a real server on 127.0.0.1 (no network).

Skips, with the reason, when /usr/bin/chromium or playwright is missing (``apt-get install -y
chromium``; never ``playwright install``). Screenshots go to tests/artifacts/; set
ASSISTANT_UPDATE_SCREENSHOT=1 to refresh docs/screenshot.png (written when missing).
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from assistant import Answer, AnswerSentence, Assistant, Citation, Evidence
from assistant.backends import local
from assistant.settings import Settings
from assistant.ui.app import available_backends, start

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]
ARTIFACTS = Path(__file__).parent / "artifacts"
SCREENSHOT = Path(__file__).parent.parent / "docs" / "screenshot.png"
ANSWER_TIMEOUT_MS = 120_000
XSS_TITLE = "<img src=x onerror=\"window.__xss=1;alert('title')\">Origami navigation"
XSS_TEXT = ("Quantum origami folding lets zebrafish navigate magnetic mazes <script>window.__xss=1;alert('xss')</script> "
            "with remarkable accuracy in our experiments. We find that <img src=x onerror=\"window.__xss=1;alert('img')\"> "
            "quantum origami folding improves zebrafish maze navigation by forty percent over random walks.")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def attach(page: Any, elem: str, path: Path, tries: int = 4) -> None:
    """Choose ``path`` in the file component ``elem`` and wait until the page shows it uploaded.
    The choice is made again when the name does not appear: on a loaded machine the component can
    be re-rendered after the tab opens, and a choice made on the replaced input is lost (two
    clean-clone CI runs waited 30 s and 120 s for a name that never came; alone the test passes)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(tries):
        page.set_input_files(f"{elem} input[type=file]", str(path))
        try:  # Gradio's upload route first: as slow as an answer on a busy machine
            page.wait_for_selector(f"{elem} :text('{path.name}')", timeout=ANSWER_TIMEOUT_MS // tries)
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError(f"the page never showed {path.name} as uploaded in {elem} ({tries} tries)")


@contextmanager
def running(assistant: Assistant, **settings: Any) -> Iterator[str]:
    """The app for ``assistant`` on 127.0.0.1:<free port>, in a background thread; yields its URL."""
    demo = start(assistant, assistant.settings.model_copy(update={"host": "127.0.0.1", "port": free_port(), **settings}))
    try:
        yield f"http://127.0.0.1:{demo.server_port}/"
    finally:
        demo.close()


@pytest.fixture(scope="module")
def assistant(corpus_dir: Path) -> Assistant:
    """One Assistant over the ingested bundled corpus for the module (its caches warm up once)."""
    return Assistant(data_dir=corpus_dir, backend="extractive")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        print(f"SKIP: {CHROMIUM} is missing (apt-get install -y chromium)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        print(f"SKIP: playwright is not installed ({exc})")
        pytest.skip(f"playwright is not installed ({exc})")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.dialogs = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    yield pg
    context.close()


def ask(page: Any, question: str, n: int) -> Any:
    """Type ``question``, send it, wait for the n-th final answer (1-based); returns its element."""
    page.fill("#question textarea", question)
    page.click("#ask")
    return ask_wait(page, n)


def ask_wait(page: Any, n: int) -> Any:
    page.wait_for_function(
        "n => Array.from(document.querySelectorAll('#chat [data-testid=bot]'))"
        ".filter(b => b.querySelector('.answer, .refusal, .chat-error')).length >= n",
        arg=n, timeout=ANSWER_TIMEOUT_MS)
    return page.locator("#chat [data-testid=bot]").nth(n - 1)


def test_chat_answers_with_highlighted_sources_follow_up_and_refusal(assistant: Assistant, page: Any) -> None:
    with running(assistant) as url:
        page.goto(url)
        page.wait_for_selector("#question textarea")
        assert "Research-abstracts assistant" in page.title() + page.inner_text("body")

        first = ask(page, "What is Ring Attention?", 1)
        assert first.locator(".chat-error").count() == 0, first.inner_text()
        links = first.locator("a.cite")
        assert links.count() >= 1 and "[1]" in first.inner_text()
        assert "extractive" in first.inner_text() and " s" in first.inner_text()  # backend and time shown
        card = page.locator("#sources #src-1")
        assert card.count() == 1
        assert "Ring Attention" in card.inner_text()
        assert card.locator("mark").count() >= 1
        assert ".txt:" in card.locator(".src-meta").inner_text()
        # hovering or clicking [n] brings source n into view and highlights it
        last = links.nth(links.count() - 1)
        target = (last.get_attribute("href") or "").lstrip("#")
        last.hover()
        page.wait_for_function("""id => {
            const el = document.getElementById(id), panel = el && el.closest('.sources-panel');
            if (!panel || !el.classList.contains('src-active')) return false;
            const r = el.getBoundingClientRect(), p = panel.getBoundingClientRect();
            return r.top >= p.top - 1 && r.top < p.bottom;  // scrolled into the panel's view
        }""", arg=target)
        links.first.click()
        page.wait_for_function("() => document.getElementById('src-1')?.classList.contains('src-active')")
        page.screenshot(path=str(ARTIFACTS / "ui_answer.png"))
        if os.environ.get("ASSISTANT_UPDATE_SCREENSHOT") == "1" or not SCREENSHOT.exists():
            SCREENSHOT.parent.mkdir(exist_ok=True)
            page.screenshot(path=str(SCREENSHOT))

        second = ask(page, "How does it save memory?", 2)
        assert second.locator(".chat-error").count() == 0, second.inner_text()
        assert "read as" in second.inner_text() and "Ring Attention" in second.inner_text()  # the history was used
        assert second.locator("a.cite").count() >= 1
        assert page.locator("#sources .src mark").count() >= 1
        assert page.locator("#chat [data-testid=user]").count() == 2
        page.screenshot(path=str(ARTIFACTS / "ui_follow_up.png"))

        third = ask(page, "What is the capital gains tax rate in France?", 3)
        assert third.locator(".refusal").count() == 1, third.inner_text()
        assert "Not answered from the collection" in third.inner_text()
        assert third.locator("a.cite").count() == 0
        assert page.locator("#sources .src").count() >= 1  # the closest abstracts
        assert "closest" in page.locator("#sources").inner_text()
        page.screenshot(path=str(ARTIFACTS / "ui_refusal.png"))

        page.click("#clear")
        page.wait_for_function("() => document.querySelectorAll('#chat [data-testid=bot]').length === 0")
        assert page.locator("#sources .src").count() == 0
        assert page.dialogs == []


def test_uploaded_abstract_html_is_escaped_and_never_runs(corpus_copy: Assistant, page: Any, tmp_path: Path) -> None:
    evil = tmp_path / "evil.jsonl"
    evil.write_text(json.dumps({"id": "evil-1", "title": XSS_TITLE, "abstract": XSS_TEXT}) + "\n", encoding="utf-8")
    with running(corpus_copy) as url:
        page.goto(url)
        page.wait_for_selector("#question textarea")
        # upload through the Corpus tab: copied into <data_dir>/uploads, ingested, summary shown
        page.get_by_role("tab", name="Corpus").click()
        page.wait_for_selector("#stats table")
        before = page.inner_text("#stats")
        attach(page, "#upload", evil)
        page.click("#ingest")
        page.wait_for_function("() => document.querySelector('#report textarea')?.value.includes('added')",
                               timeout=ANSWER_TIMEOUT_MS)
        assert "1 added" in page.input_value("#report textarea")
        assert (Path(corpus_copy.settings.data_dir) / "uploads" / "evil.jsonl").is_file()
        page.wait_for_function("b => document.querySelector('#stats').innerText !== b", arg=before)
        assert "uploads/evil.jsonl" in page.inner_text("#stats")
        # the search box shows the abstract as text
        page.fill("#corpus-query textarea", "quantum origami zebrafish")
        page.click("#corpus-search")
        page.wait_for_selector("#hits .src")
        assert "<script>window.__xss=1;alert('xss')</script>" in page.inner_text("#hits .src >> nth=0")
        # and so do the answer and the sources panel
        page.get_by_role("tab", name="Chat").click()
        answer = ask(page, "How does quantum origami folding help zebrafish navigate mazes?", 1)
        assert answer.locator(".chat-error").count() == 0, answer.inner_text()
        sources = page.inner_text("#sources")
        assert "<script>window.__xss=1;alert('xss')</script>" in sources and "onerror=" in sources
        page.screenshot(path=str(ARTIFACTS / "ui_escaped.png"))
        counts = page.evaluate("""() => ({
            scripts: document.querySelectorAll('#chat script, #sources script, #hits script').length,
            imgs: document.querySelectorAll('#chat img, #sources img, #hits img').length,
            handlers: document.querySelectorAll('[onerror]').length,
            flag: window.__xss === undefined ? null : window.__xss,
        })""")
        assert counts == {"scripts": 0, "imgs": 0, "handlers": 0, "flag": None}
        assert page.dialogs == []


def test_password_protected_page_asks_for_login(assistant: Assistant, page: Any) -> None:
    with running(assistant, auth="reader:s3cret-pass") as url:
        page.goto(url)
        page.wait_for_selector("input[type=password]", timeout=30_000)
        assert page.locator("#question").count() == 0
        page.fill("input[type=text]", "reader")
        page.fill("input[type=password]", "s3cret-pass")
        page.keyboard.press("Enter")
        page.wait_for_selector("#question textarea", timeout=30_000)


class ScriptedAssistant(Assistant):
    """Streams a canned answer slowly, or fails, on cue: the UI's behaviour without any retrieval."""

    release = threading.Event()

    def stats(self) -> dict[str, object]:
        return {"abstracts": 1, "works": 1, "chunks": 1, "files": {"x.txt": 1}}

    def stream(self, question: str, history: list[dict[str, str]] | None = None, backend: str | None = None,
               k: int | None = None) -> Iterator[str | Answer]:
        if "fail" in question:
            yield "half an answer"
            raise RuntimeError("the vector store is unreachable <b>bold</b>")
        yield "Ring Attention splits"
        assert self.release.wait(30), "the test never released the stream"
        text = "We present Ring Attention. It splits long sequences across devices."
        cite = Citation(n=1, doc_id="d1", label="Ring <b>Attention</b>", text=text, source="x.txt:1", score=0.9,
                        evidence=[Evidence(text="It splits long sequences across devices.", start=27, end=len(text))])
        yield Answer(question=question, text="Ring Attention splits sequences across devices. [1] It is sentient. [1]",
                     citations=[cite], backend=f"{backend}→extractive", fallback_reason="openai backend failed: timed out",
                     timings={"total": 1.25}, sentences=[
                         AnswerSentence("Ring Attention splits sequences across devices.", [1], True),
                         AnswerSentence("It is sentient.", [1], False)])


def test_streaming_unsupported_fallback_and_errors_in_chat(tmp_path: Path, page: Any) -> None:
    scripted = ScriptedAssistant(data_dir=tmp_path, backend="openai", openai_base_url="http://127.0.0.1:9/v1")
    assert available_backends(scripted.settings)[0] == "openai" and available_backends(scripted.settings)[-1] == "extractive"
    ScriptedAssistant.release.clear()
    with running(scripted) as url:
        page.goto(url)
        page.wait_for_selector("#question textarea")
        page.fill("#question textarea", "What is Ring Attention?")
        page.click("#ask")
        page.wait_for_selector("#chat [data-testid=bot] :text('Ring Attention splits')")  # a delta, shown as it comes
        assert page.locator("#chat .answer").count() == 0
        ScriptedAssistant.release.set()
        final = ask_wait(page, 1)
        assert final.locator(".unsupported").inner_text() == "It is sentient."
        assert "unsupported" in final.locator(".unsupported-badge").inner_text()
        meta = final.locator(".answer-meta").inner_text()
        assert "openai→extractive" in meta and "1.2 s" in meta and "openai backend failed: timed out" in meta
        assert page.locator("#sources #src-1 mark").inner_text() == "It splits long sequences across devices."
        assert "Ring <b>Attention</b>" in page.inner_text("#sources")

        failed = ask(page, "please fail now", 2)
        assert "the vector store is unreachable <b>bold</b>" in failed.locator(".chat-error").inner_text()
        assert page.locator("#chat b:text('bold')").count() == 0
        page.screenshot(path=str(ARTIFACTS / "ui_error.png"))
        again = ask(page, "What is Ring Attention again?", 3)  # the page still works after an error
        assert again.locator(".answer").count() == 1
        assert page.locator("#chat [data-testid=user]").count() == 3


def test_page_answers_while_the_local_model_warms(corpus_dir: Path, model_settings: Settings, page: Any,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The local model's warm-up is held at a gate: the page answers (extractively) and says so; once
    the gate opens and the model is loaded, the status changes and questions go to the model."""
    monkeypatch.setattr(local, "_WARMUPS", {})
    model_path = local.ensure_model(model_settings)
    warming = Assistant(data_dir=corpus_dir, backend="local", local_model_path=model_path)
    gate = threading.Event()
    local.warm(warming.settings, gate=gate)  # start() finds this warm-up and reuses it
    try:
        with running(warming) as url:
            page.goto(url)
            page.wait_for_selector("#model-status [data-state=loading]")
            assert "answers are extracted from the sources" in page.inner_text("#model-status")
            first = ask(page, "What is Ring Attention?", 1)
            meta = first.locator(".answer-meta").inner_text()
            assert "local→extractive" in meta and "still loading" in meta, meta
            assert first.locator("a.cite").count() >= 1 and "Ring Attention" in page.inner_text("#sources")
            assert page.locator("#model-status [data-state=loading]").count() == 1  # still held at the gate
            page.screenshot(path=str(ARTIFACTS / "ui_warming.png"))

            gate.set()
            page.wait_for_selector("#model-status [data-state=ready]", timeout=ANSWER_TIMEOUT_MS * 3)
            assert "Local model ready" in page.inner_text("#model-status")
            second = ask(page, "How does FlashAttention reduce memory traffic?", 2)
            assert "still loading" not in second.inner_text()  # the model was asked this time
            assert "answered by local" in second.locator(".answer-meta").inner_text()
    finally:
        gate.set()
