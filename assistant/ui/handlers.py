"""The page's event handlers, as closures over one shared ``Assistant``: the chat (``respond``,
``clear``), the HTTP API (``/ask``, ``/model_status``), the model status line, the Corpus tab
(stats, search, upload) and the last answer's download buttons. assistant/ui/app.py wires them to
the components of assistant/ui/parts.py."""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gradio as gr

from assistant.backends import local
from assistant.core import Assistant
from assistant.filters import Filters
from assistant.settings import Settings
from assistant.types import Answer
from assistant.ui.parts import UPLOAD_TYPES
from assistant.ui.render import (
    esc,
    render_answer,
    render_error,
    render_hits,
    render_partial,
    render_sources,
    render_stats,
    render_user,
)
from assistant.ui.warmup import mark, model_status, render_model_status, route

log = logging.getLogger(__name__)

Turn = dict[str, str]  # {"question", "answer" (plain text, for history; "" if it failed), "html"}


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


def chat_handlers(assistant: Assistant, first_backend: str) -> tuple[Callable[..., Any], ...]:
    """The chat's handlers: ``respond`` (streams an answer into the conversation) and ``clear``."""
    settings = assistant.settings

    def respond(message: str, turns: list[Turn], backend: str, k: float, year: str = "", author: str = "",
                venue: str = "", file: str = "", collection: str = "") -> Iterator[tuple[Any, ...]]:
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
            filters = Filters.parse(year, author, venue, file, collection)  # a bad value: its message in the chat
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
        done = {"question": question, "answer": answer.text, "html": render_answer(mark(answer, reason)),
                "md": answer.to_markdown(), "bib": answer.to_bibtex()}
        turns = [*turns, done]
        yield _display(turns), turns, render_sources(answer), ""

    def clear() -> tuple[Any, ...]:
        return [], [], render_sources(None), ""

    return respond, clear


def api_handlers(assistant: Assistant, first_backend: str) -> tuple[Callable[..., Any], ...]:
    """The HTTP API's handlers: ``ask`` (``/ask``) and ``status_api`` (``/model_status``)."""
    settings = assistant.settings

    def ask(question: str, history_json: str = "[]", backend: str = "", filters_json: str = "") -> dict[str, Any]:
        """Answer ``question`` (with earlier turns as a JSON list) and return Answer.to_dict();
        ``filters_json``: ``{"year": "2019-2021", "author": ..., "venue": ..., "file": ..., "collection": ...}`` or ""."""
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
            return mark(assistant.ask(question or "", history=history, backend=name, **narrowed), reason).to_dict()
        except Exception as exc:
            log.exception("API ask %r failed", question)
            raise gr.Error(f"answering failed: {_error_text(exc)}") from exc

    def status_api(backend: str = "") -> dict[str, str]:
        """The model status for ``backend`` ("" for the default): backend, state, detail."""
        return model_status(settings, backend or first_backend)

    return ask, status_api


def status_handlers(settings: Settings) -> tuple[Callable[..., Any], ...]:
    """The status line's handlers: ``status_tick`` (re-read it) and ``pick_backend`` (a new choice)."""

    def status_tick(backend: str) -> tuple[str, Any]:
        status = model_status(settings, backend)
        return render_model_status(status), gr.Timer(active=status["state"] in ("loading", "idle"))

    def pick_backend(backend: str) -> tuple[str, Any]:
        if backend == "local":
            local.warm(settings)  # choosing the local model starts loading it
        return status_tick(backend)

    return status_tick, pick_backend


def corpus_handlers(assistant: Assistant) -> tuple[Callable[..., Any], ...]:
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


def library_status(assistant: Assistant) -> str:
    """The Corpus tab's live line: how far an ingest is (any process writing this data dir) and
    what the watched library last did ("library updated: 3 added, 1 removed")."""
    from ingest.progress import describe, read_progress

    lines = []
    progress = read_progress(assistant.settings.data_dir)
    if progress and progress.get("state") != "done":
        lines.append(describe(progress))
    watcher = assistant.watcher
    if watcher is not None:
        last = watcher.last
        watched = ", ".join(str(p) for p in watcher.paths)
        if last is None:
            lines.append(f"Watching {watched}: reading it now")
        else:
            when = time.strftime("%H:%M:%S", time.localtime(last.at))
            lines.append(f"{when} {last.message} (watching {watched})")
            lines += [f"&nbsp;&nbsp;{esc(str(p))}" for p in last.problems[:3]]
    return "<br>".join(esc(line) if not line.startswith("&nbsp;") else line for line in lines)


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
