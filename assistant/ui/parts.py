"""The web UI's layout (``assistant.ui.app``): the Gradio components of each tab and panel, no handlers.

Each builder must be called inside the page's ``gr.Blocks`` context, in the page's order (header,
Chat tab, Corpus tab); it returns the components that :mod:`assistant.ui.app` wires to its handlers.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from assistant.ui.render import HEAD, render_sources

UPLOAD_TYPES = [".txt", ".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".bib", ".bibtex", ".ris"]
PLACEHOLDER = ("**Ask a question about the indexed research abstracts.** Answers quote or paraphrase the "
               "abstracts and cite them as [n]; the sources appear on the right. Pick an example below to start.")
EXAMPLES = [
    "What is Ring Attention?",
    "How does FlashAttention reduce memory traffic?",
    "Which methods make long-context training cheaper?",
    "What is the capital gains tax rate in France?",
]


def header(status: str) -> gr.HTML:
    """The title and the model status line (``#model-status``, showing ``status``); returns the latter."""
    gr.HTML('<div class="qa-header"><h1>Research-abstracts assistant</h1><p>Answers come only from the '
            "indexed abstracts; every claim cites its source [n]. Click or hover a [n] to see the "
            "supporting sentences.</p></div>", head=HEAD, js_on_load=None, elem_classes=["qa-header"])
    return gr.HTML(status, elem_id="model-status", js_on_load=None)


def chat_column() -> dict[str, Any]:
    """The conversation, the question box, its buttons and the examples: chatbot, box, send, new_chat."""
    with gr.Column(scale=3):
        chatbot = gr.Chatbot(label="Conversation", height=560, elem_id="chat", feedback_options=None,
                             latex_delimiters=[], allow_tags=False, sanitize_html=True, buttons=[],
                             render_markdown=False, placeholder=PLACEHOLDER)
        with gr.Row(equal_height=True):
            box = gr.Textbox(placeholder="Ask about the abstracts, e.g. What is Ring Attention?",
                             show_label=False, scale=5, elem_id="question", lines=1, max_lines=4)
            with gr.Column(scale=1, min_width=140):
                send = gr.Button("Ask", variant="primary", elem_id="ask")
                new_chat = gr.Button("New conversation", size="sm", elem_id="clear")
        gr.Examples(EXAMPLES, inputs=[box], label="Try one of these")
    return {"chatbot": chatbot, "box": box, "send": send, "new_chat": new_chat}


def sources_column(backends: list[str], first_backend: str, top_k: int) -> dict[str, Any]:
    """The sources panel, the last answer's downloads, and the filters and settings accordions below
    it: sources, download_md, download_bib, filters (year, author, venue, file, collection), backend, k."""
    with gr.Column(scale=2):
        gr.Markdown("### Sources")
        sources = gr.HTML(render_sources(None), elem_id="sources", js_on_load=None)
        with gr.Row():  # the last answer, to take away (shown once there is one)
            download_md = gr.DownloadButton("Download answer (.md)", visible=False, size="sm", elem_id="download-md")
            download_bib = gr.DownloadButton("Download references (.bib)", visible=False, size="sm", elem_id="download-bib")
        with gr.Accordion("Filters", open=False):
            gr.Markdown("Answer only from the works that match (empty: all).")
            year = gr.Textbox(label="Year", placeholder="2020, 2019-2021, >=2020", elem_id="filter-year")
            author = gr.Textbox(label="Author contains", placeholder="e.g. Vaswani", elem_id="filter-author")
            venue = gr.Textbox(label="Venue contains", placeholder="journal, proceedings or arXiv category", elem_id="filter-venue")
            file = gr.Textbox(label="File contains", placeholder="e.g. zotero.bib", elem_id="filter-file")
            collection = gr.Textbox(label="Zotero collection contains", placeholder="e.g. Thesis/Chapter 2",
                                    elem_id="filter-collection")
        with gr.Accordion("Settings", open=False):
            backend = gr.Dropdown(backends, value=first_backend, label="Backend", elem_id="backend")
            k = gr.Slider(1, 10, value=top_k, step=1, label="Number of sources", elem_id="k")
    return {"sources": sources, "backend": backend, "k": k, "download_md": download_md, "download_bib": download_bib,
            "filters": [year, author, venue, file, collection]}


def chat_tab(backends: list[str], first_backend: str, top_k: int) -> dict[str, Any]:
    """The Chat tab: :func:`chat_column` beside :func:`sources_column`; their components in one dict."""
    with gr.Tab("Chat"), gr.Row(equal_height=False):
        return {**chat_column(), **sources_column(backends, first_backend, top_k)}


LIBRARY_POLL_S = 2.0  # how often the Corpus tab re-reads the ingest progress and library status


def corpus_tab() -> dict[str, Any]:
    """The Corpus tab: counts, search and upload (stats_html, refresh, query, find, mode, n_hits, hits,
    file, ingest_btn, report)."""
    with gr.Tab("Corpus"):
        with gr.Row():
            stats_html = gr.HTML(js_on_load=None, elem_id="stats")
            refresh = gr.Button("Refresh counts", size="sm", scale=0, min_width=140)
        library_html = gr.HTML(elem_id="library-status")  # ingest progress and the live library's last update
        with gr.Row():
            query = gr.Textbox(label="Search the abstracts", scale=4, elem_id="corpus-query")
            find = gr.Button("Search", scale=1, elem_id="corpus-search")
            mode = gr.Radio(["hybrid", "dense", "bm25"], value="hybrid", label="Mode", scale=2)
            n_hits = gr.Slider(1, 30, value=10, step=1, label="Results", scale=2)
        hits = gr.HTML(js_on_load=None, elem_id="hits")
        with gr.Row():
            file = gr.File(label="Add abstracts (.txt paragraphs, .jsonl or .csv)", file_types=UPLOAD_TYPES,
                           type="filepath", elem_id="upload")
            with gr.Column():
                ingest_btn = gr.Button("Ingest file", variant="primary", elem_id="ingest")
                report = gr.Textbox(label="Ingest report", lines=4, interactive=False, elem_id="report")
    return {"stats_html": stats_html, "library_html": library_html, "library_timer": gr.Timer(LIBRARY_POLL_S),
            "refresh": refresh, "query": query, "find": find, "mode": mode,
            "n_hits": n_hits, "hits": hits, "file": file, "ingest_btn": ingest_btn, "report": report}
