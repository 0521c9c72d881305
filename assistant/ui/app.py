"""The web UI (Gradio): chat with streamed, cited answers, a sources panel, settings and a corpus tab.

``assistant serve`` calls :func:`serve`; tests build the page with :func:`build_app` and launch it.

The page's parts, one concern each: assistant/ui/parts.py (the components), ui_handlers.py (the
event handlers), ui_warmup.py (which backend, the local model's status and warm-up routing),
ui_launch.py (launch arguments and the password rule), ui_render.py (the HTML); this module builds
the page from them, wires the events, and launches it.

The same app answers over HTTP for ``gradio_client`` (api_name ``"ask"``)::

    from gradio_client import Client

    client = Client("http://127.0.0.1:7860/")            # Client(url, auth=("user", "pass")) with --auth
    result = client.predict(
        "What is Ring Attention?",   # question
        "[]",                        # history_json: earlier turns, [{"role": "user"|"assistant", "content": ...}]
        "",                          # backend: "openai", "local", "extractive", or "" for the default
        '{"year": ">=2020"}',        # filters_json (optional): year, author, venue, file, collection; "" for none
        api_name="/ask",
    )
    result["answer"], result["citations"][0]["source"], result["refused"], result["backend"]

``result`` is ``Answer.to_dict()``: ``question``, ``answer``, ``citations`` (``n``, ``doc_id``,
``label``, ``text``, ``source``, ``score``, ``evidence`` with character spans), ``refused``,
``closest``, ``backend``, ``fallback_reason``, ``usage`` and ``timings`` (seconds; ``total``).

Local model warm-up: when the default backend is ``local``, :func:`start` loads the model in the
background (``assistant.backends.local.warm``). Until it is ready, questions for ``local`` are
answered by the extractive engine (backend ``local→extractive``, with the reason), and the page's
status line (``#model-status``) says so (assistant/ui/warmup.py). ``client.predict(api_name="/model_status")`` returns
``{"backend", "state", "detail"}`` (state: idle, loading, ready, failed, or "" for other backends).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gradio as gr

from assistant.backends import local
from assistant.core import Assistant
from assistant.settings import Settings
from assistant.ui.handlers import (
    Turn,
    api_handlers,
    chat_handlers,
    corpus_handlers,
    export_buttons,
    library_status,
    parse_history,
    status_handlers,
)
from assistant.ui.launch import LOCAL_HOSTS, UIConfigError, launch_options, parse_auth
from assistant.ui.parts import EXAMPLES, chat_tab, corpus_tab, header
from assistant.ui.warmup import (
    WARMING_REASON,
    available_backends,
    default_backend,
    model_status,
    render_model_status,
    route,
)

# The names other modules and tests import from here: the page itself, and what it re-exports
# from assistant.ui.launch / warmup / handlers / parts.
__all__ = ["EXAMPLES", "LOCAL_HOSTS", "WARMING_REASON", "UIConfigError", "available_backends", "build_app",
           "default_backend", "export_buttons", "launch_options", "model_status", "parse_auth", "parse_history",
           "render_model_status", "route", "serve", "start"]

CONCURRENCY = 4  # answers computed at once; the rest wait in the queue
STATUS_POLL_S = 1.0  # how often the page re-reads the model status while it loads (a UI-latency choice)


# --- launching -------------------------------------------------------------------------------
def start(assistant: Assistant, settings: Settings | None = None, *, block: bool = False) -> gr.Blocks:
    """Build and launch the page for ``assistant`` (``settings`` default to its own); the URL is
    ``demo.local_url``. ``block=False`` returns at once (the server runs in a background thread;
    stop it with ``demo.close()``)."""
    options = launch_options(settings or assistant.settings)  # fail fast on unsafe settings
    if default_backend(assistant.settings, available_backends(assistant.settings)) == "local":
        local.warm(assistant.settings)  # the page is usable at once; the model loads meanwhile
    if assistant.settings.library and assistant.watcher is None:
        assistant.watch(assistant.settings.library)  # the page answers from what is indexed meanwhile
    demo = build_app(assistant)
    demo.launch(prevent_thread_lock=not block, quiet=not block, **options)
    return demo


def serve(settings: Settings) -> None:
    """Run the UI until interrupted (``assistant serve``)."""
    launch_options(settings)  # refuse unsafe settings before loading anything
    start(Assistant(settings=settings), settings, block=True)



# --- wiring the handlers to the page ----------------------------------------------------------
def _wire_chat(assistant: Assistant, first_backend: str, chat: dict[str, Any], turns_state: gr.State) -> None:
    """The chat's events (private) and the two API endpoints, ``/ask`` and ``/model_status``."""
    respond, clear = chat_handlers(assistant, first_backend)
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
    ask, status_api = api_handlers(assistant, first_backend)
    gr.api(ask, api_name="ask")
    gr.api(status_api, api_name="model_status")


def _wire_status(demo: gr.Blocks, settings: Settings, backend: gr.Dropdown, status_html: gr.HTML,
                 status_timer: gr.Timer) -> None:
    """Re-read the model status on load, on each tick while it loads, and when the backend changes."""
    status_tick, pick_backend = status_handlers(settings)
    status_io = {"inputs": [backend], "outputs": [status_html, status_timer], "api_visibility": "private",
                 "show_progress": "hidden"}
    status_timer.tick(status_tick, **status_io)
    backend.change(pick_backend, **status_io)
    demo.load(status_tick, **status_io)


def _wire_corpus(demo: gr.Blocks, assistant: Assistant, corpus: dict[str, Any]) -> None:
    """The Corpus tab's events (all private); one ingest at a time."""
    stats, search, upload = corpus_handlers(assistant)
    stats_html, query, hits = corpus["stats_html"], corpus["query"], corpus["hits"]
    demo.load(stats, outputs=stats_html, api_visibility="private")
    corpus["refresh"].click(stats, outputs=stats_html, api_visibility="private")
    search_in = [query, corpus["n_hits"], corpus["mode"]]
    query.submit(search, search_in, hits, api_visibility="private")
    corpus["find"].click(search, search_in, hits, api_visibility="private")
    live = {"outputs": corpus["library_html"], "api_visibility": "private", "show_progress": "hidden"}
    corpus["library_timer"].tick(lambda: library_status(assistant), **live)
    demo.load(lambda: library_status(assistant), **live)
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
