"""The web UI (Gradio): chat with streamed, cited answers, a sources panel, settings and a corpus tab.

``assistant serve`` calls :func:`serve`; tests build the page with :func:`build_app` and launch it.

The same app answers over HTTP for ``gradio_client`` (api_name ``"ask"``)::

    from gradio_client import Client

    client = Client("http://127.0.0.1:7860/")            # Client(url, auth=("user", "pass")) with --auth
    result = client.predict(
        "What is Ring Attention?",   # question
        "[]",                        # history_json: earlier turns, [{"role": "user"|"assistant", "content": ...}]
        "",                          # backend: "openai", "local", "extractive", or "" for the default
        '{"year": ">=2020"}',        # filters_json (optional): year, author, venue, file; "" for none
        api_name="/ask",
    )
    result["answer"], result["citations"][0]["source"], result["refused"], result["backend"]

``result`` is ``Answer.to_dict()``: ``question``, ``answer``, ``citations`` (``n``, ``doc_id``,
``label``, ``text``, ``source``, ``score``, ``evidence`` with character spans), ``refused``,
``closest``, ``backend``, ``fallback_reason``, ``usage`` and ``timings`` (seconds; ``total``).

Local model warm-up: when the default backend is ``local``, :func:`start` loads the model in the
background (``assistant.backends.local.warm``). Until it is ready, questions for ``local`` are
answered by the extractive engine (backend ``local→extractive``, with the reason), and the page's
status line (``#model-status``) says so. ``client.predict(api_name="/model_status")`` returns
``{"backend", "state", "detail"}`` (state: idle, loading, ready, failed, or "" for other backends).
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gradio as gr

from assistant.backends import local
from assistant.core import Assistant
from assistant.filters import Filters
from assistant.settings import Settings
from assistant.types import Answer
from assistant.ui_parts import EXAMPLES as EXAMPLES  # re-exported: the page's example questions
from assistant.ui_parts import UPLOAD_TYPES, chat_tab, corpus_tab, header
from assistant.ui_render import (
    esc,
    render_answer,
    render_error,
    render_hits,
    render_partial,
    render_sources,
    render_stats,
    render_user,
)

log = logging.getLogger(__name__)

CONCURRENCY = 4  # answers computed at once; the rest wait in the queue
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
STATUS_POLL_S = 1.0  # how often the page re-reads the model status while it loads (a UI-latency choice)
WARMING_REASON = "the local model is still loading, so this answer was extracted from the sources"

Turn = dict[str, str]  # {"question", "answer" (plain text, for history; "" if it failed), "html"}


class UIConfigError(ValueError):
    """The UI settings would expose the app unsafely, or are malformed."""


# --- settings -> launch arguments -------------------------------------------------------------
def available_backends(settings: Settings) -> list[str]:
    """Backends this installation can use (extractive always): the registry decides."""
    from assistant.backends import available_backends as registered

    return registered(settings)


def default_backend(settings: Settings, backends: list[str]) -> str:
    """The backend the page starts with: the configured/resolved one if usable, else the last usable."""
    from assistant.backends import resolve

    try:
        name = resolve(settings)
    except Exception:
        name = "extractive"
    return name if name in backends else backends[-1]


def model_status(settings: Settings, backend: str) -> dict[str, str]:
    """``{"backend", "state", "detail"}`` of the chosen backend's model (state "" when not local)."""
    state, detail = local.warm_state(settings) if backend == "local" else ("", "")
    return {"backend": backend, "state": state, "detail": detail}


def render_model_status(status: dict[str, str]) -> str:
    state, detail = status["state"], status["detail"]
    if state == "loading":
        text = "Local model loading… answers are extracted from the sources until it is ready."
    elif state == "ready":
        text = "Local model ready" + (f" (loaded in {detail} s)." if detail else ".")
    elif state == "failed":
        text = f"Local model unavailable ({esc(detail[:300])}); answers are extracted from the sources."
    elif state == "idle":
        text = "Local model not loaded yet; it starts loading with the first question."
    else:
        return '<p class="model-status" data-state=""></p>'
    return f'<p class="model-status answer-meta" data-state="{state}">{text}</p>'


def route(settings: Settings, backend: str) -> tuple[str, str]:
    """(backend to answer with, fallback reason): the extractive engine while the local model warms."""
    if backend != "local" or local.is_ready(settings):
        return backend, ""
    local.warm(settings)  # idempotent: starts loading if nothing has yet
    state, detail = local.warm_state(settings)
    if state == "failed":
        return "extractive", f"the local model could not be loaded ({detail}), so this answer was extracted"
    return "extractive", WARMING_REASON


def _mark(answer: Answer, reason: str) -> Answer:
    if reason:
        answer.backend, answer.fallback_reason = "local→extractive", reason
    return answer


def parse_auth(auth: str | None) -> tuple[str, str] | None:
    if auth is None:
        return None
    user, sep, password = auth.partition(":")
    if not sep or not user or not password:
        raise UIConfigError("auth must be 'user:password' (both parts non-empty)")
    return user, password


def launch_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for ``Blocks.launch``; refuses an exposed server without a password."""
    auth = parse_auth(settings.auth)
    exposed = settings.host not in LOCAL_HOSTS or settings.share
    if exposed and auth is None and not settings.insecure_no_auth:
        where = "a public share link" if settings.share else f"host {settings.host!r}"
        raise UIConfigError(
            f"refusing to serve on {where} without a password: anyone who can reach it could use it. "
            "Set auth to 'user:password' (--auth / ASSISTANT_AUTH), or set insecure_no_auth "
            "(--insecure-no-auth) if you really mean it, or bind to 127.0.0.1."
        )
    return {
        "server_name": settings.host,
        "server_port": settings.port,
        "auth": auth,
        "share": bool(settings.share),
        "max_file_size": "200mb",
        "footer_links": ["api"],
    }


def start(assistant: Assistant, settings: Settings | None = None, *, block: bool = False) -> gr.Blocks:
    """Build and launch the page for ``assistant`` (``settings`` default to its own); the URL is
    ``demo.local_url``. ``block=False`` returns at once (the server runs in a background thread;
    stop it with ``demo.close()``)."""
    options = launch_options(settings or assistant.settings)  # fail fast on unsafe settings
    if default_backend(assistant.settings, available_backends(assistant.settings)) == "local":
        local.warm(assistant.settings)  # the page is usable at once; the model loads meanwhile
    demo = build_app(assistant)
    demo.launch(prevent_thread_lock=not block, quiet=not block, **options)
    return demo


def serve(settings: Settings) -> None:
    """Run the UI until interrupted (``assistant serve``)."""
    launch_options(settings)  # refuse unsafe settings before loading anything
    start(Assistant(settings=settings), settings, block=True)


# --- handlers --------------------------------------------------------------------------------
def _history(turns: list[Turn]) -> list[dict[str, str]]:
    """Earlier turns for the assistant; failed ones (no answer) are shown but not sent."""
    out: list[dict[str, str]] = []
    for t in turns:
        if t["answer"]:
            out += [{"role": "user", "content": t["question"]}, {"role": "assistant", "content": t["answer"]}]
    return out


def _display(turns: list[Turn]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for t in turns:
        out += [{"role": "user", "content": render_user(t["question"])}, {"role": "assistant", "content": t["html"]}]
    return out


def parse_history(history_json: str) -> list[dict[str, str]]:
    """``[{"role": "user"|"assistant", "content": str}, ...]`` from JSON; raises ValueError."""
    try:
        data = json.loads(history_json or "[]")
    except json.JSONDecodeError as exc:
        raise ValueError(f"history_json is not valid JSON: {exc}") from exc
    if not isinstance(data, list):
        raise ValueError("history_json must be a JSON list of {role, content} objects")
    out = []
    for i, m in enumerate(data):
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant") or not isinstance(m.get("content"), str):
            raise ValueError(f"history_json[{i}] must be {{\"role\": \"user\"|\"assistant\", \"content\": str}}")
        out.append({"role": m["role"], "content": m["content"]})
    return out


def _error_text(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) < 500 else text[:500] + "…"


def _chat_handlers(assistant: Assistant, first_backend: str) -> tuple[Callable[..., Any], ...]:
    """The chat's handlers: ``respond`` (streams an answer into the conversation) and ``clear``."""
    settings = assistant.settings

    def respond(message: str, turns: list[Turn], backend: str, k: float, year: str = "", author: str = "",
                venue: str = "", file: str = "") -> Iterator[tuple[Any, ...]]:
        question = (message or "").strip()
        turns = list(turns or [])
        if not question:
            yield _display(turns), turns, gr.skip(), message
            return
        pending = {"question": question, "answer": "", "html": render_partial("")}
        yield _display([*turns, pending]), turns, render_sources(None, pending=True), ""
        answer: Answer | None = None
        parts: list[str] = []
        name, reason = route(settings, backend or first_backend)
        try:
            filters = Filters.parse(year, author, venue, file)  # a bad value: its message in the chat
            narrowed = {"filters": filters} if filters else {}  # an Assistant subclass may predate filters
            for item in assistant.stream(question, history=_history(turns), backend=name, k=int(k), **narrowed):
                if isinstance(item, Answer):
                    answer = item
                elif item:
                    parts.append(item)
                    pending["html"] = render_partial("".join(parts))
                    yield _display([*turns, pending]), turns, gr.skip(), ""
            if answer is None:
                raise RuntimeError("the assistant produced no answer")
        except Exception as exc:  # an error is a chat message, never a stack trace
            log.exception("answering %r failed", question)
            turns = [*turns, {"question": question, "answer": "", "html": render_error(_error_text(exc))}]
            yield _display(turns), turns, render_sources(None), ""
            return
        done = {"question": question, "answer": answer.text, "html": render_answer(_mark(answer, reason)),
                "md": answer.to_markdown(), "bib": answer.to_bibtex()}
        turns = [*turns, done]
        yield _display(turns), turns, render_sources(answer), ""

    def clear() -> tuple[Any, ...]:
        return [], [], render_sources(None), ""

    return respond, clear


def _api_handlers(assistant: Assistant, first_backend: str) -> tuple[Callable[..., Any], ...]:
    """The HTTP API's handlers: ``ask`` (``/ask``) and ``status_api`` (``/model_status``)."""
    settings = assistant.settings

    def ask(question: str, history_json: str = "[]", backend: str = "", filters_json: str = "") -> dict[str, Any]:
        """Answer ``question`` (with earlier turns as a JSON list) and return Answer.to_dict();
        ``filters_json``: ``{"year": "2019-2021", "author": ..., "venue": ..., "file": ...}`` or ""."""
        from assistant.backends import names as backend_names

        if backend and backend not in backend_names():
            raise gr.Error(f"unknown backend {backend!r}; choose one of {', '.join(backend_names())} or ''")
        try:
            history = parse_history(history_json)
            filters = Filters.of(json.loads(filters_json)) if filters_json.strip() else None
        except ValueError as exc:  # FilterError and JSONDecodeError are ValueErrors
            raise gr.Error(str(exc)) from exc
        name, reason = route(settings, backend or first_backend)
        try:
            narrowed = {"filters": filters} if filters else {}
            return _mark(assistant.ask(question or "", history=history, backend=name, **narrowed), reason).to_dict()
        except Exception as exc:
            log.exception("API ask %r failed", question)
            raise gr.Error(f"answering failed: {_error_text(exc)}") from exc

    def status_api(backend: str = "") -> dict[str, str]:
        """The model status for ``backend`` ("" for the default): backend, state, detail."""
        return model_status(settings, backend or first_backend)

    return ask, status_api


def _status_handlers(settings: Settings) -> tuple[Callable[..., Any], ...]:
    """The status line's handlers: ``status_tick`` (re-read it) and ``pick_backend`` (a new choice)."""

    def status_tick(backend: str) -> tuple[str, Any]:
        status = model_status(settings, backend)
        return render_model_status(status), gr.Timer(active=status["state"] in ("loading", "idle"))

    def pick_backend(backend: str) -> tuple[str, Any]:
        if backend == "local":
            local.warm(settings)  # choosing the local model starts loading it
        return status_tick(backend)

    return status_tick, pick_backend


def _corpus_handlers(assistant: Assistant) -> tuple[Callable[..., Any], ...]:
    """The Corpus tab's handlers: ``stats``, ``search`` and ``upload`` (copy a file, then ingest it)."""
    settings = assistant.settings

    def stats() -> str:
        try:
            return render_stats(assistant.stats())
        except Exception as exc:
            return f'<p class="chat-error">Could not read the index: {esc(_error_text(exc))}</p>'

    def search(query: str, k: float, mode: str) -> str:
        query = (query or "").strip()
        try:
            return render_hits(assistant.search(query, k=int(k), mode=mode) if query else [], query)
        except Exception as exc:
            return f'<p class="chat-error">Search failed: {esc(_error_text(exc))}</p>'

    def upload(file: str | None, progress: Any = gr.Progress(track_tqdm=True)) -> tuple[str, str]:  # noqa: B008
        # track_tqdm: Gradio reads ingest's own tqdm bar (the CLI's) into the page's progress bar
        if not file:
            return "Choose a .txt, .jsonl or .csv file of abstracts first.", stats()
        src = Path(file)
        if src.suffix.lower() not in UPLOAD_TYPES:
            return f"Unsupported file type {src.suffix or '(none)'}; use one of {' '.join(UPLOAD_TYPES)}.", stats()
        uploads = Path(settings.data_dir) / "uploads"
        try:
            uploads.mkdir(parents=True, exist_ok=True)
            target = uploads / (Path(src.name).name or "upload.txt")
            shutil.copyfile(src, target)
            report = assistant.ingest([target], progress=True)
        except Exception as exc:
            log.exception("ingesting %s failed", file)
            return f"Ingest failed: {_error_text(exc)}", stats()
        return report.summary(), stats()

    return stats, search, upload


def export_buttons(turns: list[Turn]) -> tuple[Any, Any]:
    """The download buttons for the last answer of ``turns``: its Markdown and its BibTeX (hidden
    when there is none). Each answer's files go in a fresh temporary folder Gradio serves from."""
    last = turns[-1] if turns else {}
    if not last.get("md"):
        return gr.DownloadButton(visible=False), gr.DownloadButton(visible=False)
    folder = Path(tempfile.mkdtemp(prefix="answer-"))
    md, bib = folder / "answer.md", folder / "references.bib"
    md.write_text(last["md"], encoding="utf-8")
    bib.write_text(last.get("bib", ""), encoding="utf-8")
    return gr.DownloadButton(value=str(md), visible=True), gr.DownloadButton(value=str(bib), visible=bool(last.get("bib")))


def _wire_chat(assistant: Assistant, first_backend: str, chat: dict[str, Any], turns_state: gr.State) -> None:
    """The chat's events (private) and the two API endpoints, ``/ask`` and ``/model_status``."""
    respond, clear = _chat_handlers(assistant, first_backend)
    box, chatbot, sources = chat["box"], chat["chatbot"], chat["sources"]
    downloads = [chat["download_md"], chat["download_bib"]]

    def respond_and_export(*args: Any) -> Iterator[tuple[Any, ...]]:
        turns: list[Turn] = []
        for out in respond(*args):
            turns = out[1]
            yield (*out, gr.skip(), gr.skip())
        yield (gr.skip(),) * 4 + export_buttons(turns)

    chat_io = {"inputs": [box, turns_state, chat["backend"], chat["k"], *chat["filters"]],
               "outputs": [chatbot, turns_state, sources, box, *downloads], "api_visibility": "private"}
    box.submit(respond_and_export, **chat_io)
    chat["send"].click(respond_and_export, **chat_io)
    reset = {"outputs": [chatbot, turns_state, sources, box, *downloads], "api_visibility": "private"}
    chat["new_chat"].click(lambda: (*clear(), *export_buttons([])), **reset)
    chatbot.clear(lambda: (*clear(), *export_buttons([])), **reset)  # the chat's own trash icon starts over too
    ask, status_api = _api_handlers(assistant, first_backend)
    gr.api(ask, api_name="ask")
    gr.api(status_api, api_name="model_status")


def _wire_status(demo: gr.Blocks, settings: Settings, backend: gr.Dropdown, status_html: gr.HTML,
                 status_timer: gr.Timer) -> None:
    """Re-read the model status on load, on each tick while it loads, and when the backend changes."""
    status_tick, pick_backend = _status_handlers(settings)
    status_io = {"inputs": [backend], "outputs": [status_html, status_timer], "api_visibility": "private",
                 "show_progress": "hidden"}
    status_timer.tick(status_tick, **status_io)
    backend.change(pick_backend, **status_io)
    demo.load(status_tick, **status_io)


def _wire_corpus(demo: gr.Blocks, assistant: Assistant, corpus: dict[str, Any]) -> None:
    """The Corpus tab's events (all private); one ingest at a time."""
    stats, search, upload = _corpus_handlers(assistant)
    stats_html, query, hits = corpus["stats_html"], corpus["query"], corpus["hits"]
    demo.load(stats, outputs=stats_html, api_visibility="private")
    corpus["refresh"].click(stats, outputs=stats_html, api_visibility="private")
    search_in = [query, corpus["n_hits"], corpus["mode"]]
    query.submit(search, search_in, hits, api_visibility="private")
    corpus["find"].click(search, search_in, hits, api_visibility="private")
    corpus["ingest_btn"].click(upload, [corpus["file"]], [corpus["report"], stats_html], api_visibility="private",
                               concurrency_limit=1, concurrency_id="ingest")


def build_app(assistant: Assistant) -> gr.Blocks:
    """The whole page, for one shared ``assistant``; per-visitor state lives in ``gr.State``."""
    settings = assistant.settings
    backends = available_backends(settings)
    first_backend = default_backend(settings, backends)
    with gr.Blocks(title="Abstracts assistant", fill_width=True, analytics_enabled=False) as demo:
        turns_state = gr.State([])
        status_html = header(render_model_status(model_status(settings, first_backend)))
        status_timer = gr.Timer(STATUS_POLL_S)
        chat = chat_tab(backends, first_backend, settings.top_k)
        corpus = corpus_tab()
        _wire_chat(assistant, first_backend, chat, turns_state)
        _wire_status(demo, settings, chat["backend"], status_html, status_timer)
        _wire_corpus(demo, assistant, corpus)
    demo.queue(default_concurrency_limit=CONCURRENCY)
    return demo
