"""HTML rendering for the web UI (``assistant.ui.app``).

Every piece of text that comes from an abstract, an answer, a question or an error passes through
:func:`esc` before it is put into markup: nothing from the corpus or a model can inject HTML.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import Any

from assistant.export import links
from assistant.types import Answer, Citation, Evidence, Hit, ListItem

_CITE = re.compile(r"\[(\d+)\]")

# Global CSS and the [n] -> source navigation, injected into <head> by an HTML component, so the
# page looks and behaves the same whether it is started by ``serve`` or by a test's ``launch``.
STYLE = """
.qa-header h1 { margin: 0 0 .2em 0; font-size: 1.5em; }
.qa-header p { margin: 0; opacity: .8; }
a.cite { font-weight: 600; text-decoration: none; padding: 0 .1em; border-radius: 3px; }
a.cite:hover { background: rgba(250, 204, 21, .35); }
.unsupported { text-decoration: underline wavy #dc2626; text-underline-offset: 3px; }
.unsupported-badge { font-size: .75em; color: #b91c1c; border: 1px solid #fca5a5; border-radius: 4px;
  padding: 0 .3em; margin-left: .25em; white-space: nowrap; }
.unsupported-reason { font-size: .8em; color: #6b7280; }
.refusal { border-left: 4px solid #f59e0b; padding-left: .6em; }
.refusal-title { font-weight: 700; color: #b45309; }
.caveat { border-left: 4px solid #f59e0b; padding-left: .6em; margin-bottom: .4em; color: #92400e; }
.chat-error { border-left: 4px solid #dc2626; padding-left: .6em; }
.answer-meta { font-size: .8em; opacity: .75; margin-top: .5em; }
.sources-panel { max-height: 640px; overflow-y: auto; }
.src { border: 1px solid rgba(128, 128, 128, .35); border-radius: 8px; padding: .6em .8em;
  margin-bottom: .7em; scroll-margin-top: 1em; transition: box-shadow .3s, border-color .3s; }
.src:target, .src.src-active { border-color: #f59e0b; box-shadow: 0 0 0 3px rgba(245, 158, 11, .45); }
.src-head { font-weight: 600; }
.src-n { color: #2563eb; margin-right: .3em; }
.src-meta { font-size: .8em; opacity: .75; margin: .15em 0 .4em 0; font-family: monospace; }
.src-text { font-size: .9em; line-height: 1.5; white-space: pre-wrap; }
.src-text mark { background: rgba(250, 204, 21, .55); color: inherit; padding: 0 .1em; border-radius: 2px; }
.panel-note { opacity: .7; font-style: italic; }
.list-answer { margin: .3em 0; padding-left: .2em; list-style: none; }
.list-answer li { margin: .25em 0; line-height: 1.4; }
.list-label { font-weight: 600; }
.list-head, .list-group { font-weight: 600; margin-top: .3em; }
.list-note { font-size: .9em; opacity: .8; margin-top: .3em; }
.list-more summary { cursor: pointer; font-size: .9em; color: #2563eb; }
.stats-table { border-collapse: collapse; margin-top: .5em; }
.stats-table td, .stats-table th { padding: .2em .8em; border-bottom: 1px solid rgba(128, 128, 128, .3);
  text-align: left; }
"""

SCRIPT = """
(() => {
  if (window.__qaSourceNav) return;
  window.__qaSourceNav = true;
  function show(link, scroll) {
    const m = /#(src-\\d+)$/.exec(link.getAttribute('href') || '');
    const el = m && document.getElementById(m[1]);
    if (!el) return false;
    document.querySelectorAll('.src.src-active').forEach((e) => e.classList.remove('src-active'));
    el.classList.add('src-active');
    const panel = el.closest('.sources-panel');
    if (scroll === 'page') {
      el.scrollIntoView({behavior: 'smooth', block: 'nearest'});
    } else if (panel && panel.scrollHeight > panel.clientHeight) {  // hover: scroll the panel only
      const top = panel.scrollTop + el.getBoundingClientRect().top - panel.getBoundingClientRect().top - 8;
      panel.scrollTo({top: top, behavior: 'smooth'});
    }
    return true;
  }
  const citeOf = (e) => (e.target && e.target.closest ? e.target.closest('a.cite') : null);
  document.addEventListener('click', (e) => {
    const a = citeOf(e);
    if (a && show(a, 'page')) { e.preventDefault(); e.stopPropagation(); }
  }, true);
  document.addEventListener('mouseover', (e) => { const a = citeOf(e); if (a) show(a, 'panel'); });
})();
"""

HEAD = f"<style>{STYLE}</style>\n<script>{SCRIPT}</script>"


def esc(text: Any) -> str:
    """HTML-escape anything (quotes too, so it is safe inside attributes)."""
    return html.escape(str(text), quote=True)


def cite_link(n: int) -> str:
    return f'<a class="cite" href="#src-{n}" title="show source {n}">[{n}]</a>'


def _link_citations(escaped: str) -> str:
    """``[n]`` markers in already-escaped text -> links to the sources panel."""
    return _CITE.sub(lambda m: cite_link(int(m.group(1))), escaped)


def render_user(question: str) -> str:
    return esc(question)


def render_partial(text: str) -> str:
    """An answer still being streamed: escaped, with its [n] markers linked already."""
    return _link_citations(esc(text)) + ' <span class="answer-meta">…</span>'


def render_error(message: str) -> str:
    return (f'<div class="chat-error"><b>Something went wrong:</b> {esc(message)}<br>'
            '<span class="answer-meta">Your conversation is kept; try again, or change the backend '
            'in Settings.</span></div>')


def answer_meta(answer: Answer) -> str:
    parts = [f"answered by <b>{esc(answer.backend)}</b>"]
    total = answer.timings.get("total")
    if total is not None:
        parts.append(f"in {float(total):.1f} s")
    if answer.usage.get("completion_tokens"):
        parts.append(f"{int(answer.usage.get('prompt_tokens', 0))}+{int(answer.usage['completion_tokens'])} tokens")
    if answer.usage.get("cost_usd"):
        parts.append(f"${float(answer.usage['cost_usd']):.5f}")
    text = " · ".join(parts)
    if answer.standalone_question:
        text += f"<br>read as: “{esc(answer.standalone_question)}”"
    if answer.fallback_reason:
        text += f"<br>fallback: {esc(answer.fallback_reason)}"
    return f'<div class="answer-meta">{text}</div>'


def _list_line(item: ListItem, shape: str) -> str:
    if shape == "compare":
        reports = f"<br><i>What it reports:</i> {esc(item.reports)}" if item.reports else ""
        label = f' <span class="answer-meta">({esc(item.label)})</span>' if item.label != item.name else ""
        return (f'<li class="list-item">{cite_link(item.n)} <span class="list-label">{esc(item.name)}</span>{label}'
                f"<br><i>What it does:</i> {esc(item.text)}{reports}</li>")
    return f'<li class="list-item">{cite_link(item.n)} <span class="list-label">{esc(item.label)}</span> — {esc(item.text)}</li>'


def render_list(answer: Answer) -> str:
    """A list, comparison or overview answer: one line per abstract, each [n] opening its source
    card; the abstracts left out by the display cap or the cut-off behind a "show" toggle."""
    first, _, rest = answer.text.partition("\n\n")  # a cited one-paragraph synthesis opens the text, or none does
    summary, listing = (first, rest) if rest and "\n" not in first and _CITE.search(first) else ("", answer.text)
    lines = listing.split("\n")
    cited = [i for i in answer.items if i.cited]
    groups = list(dict.fromkeys(i.group for i in cited)) if answer.shape == "overview" else [""]
    body = [f'<div class="list-summary">{_link_citations(esc(summary))}</div>'] if summary else []  # an LLM's verified synthesis
    body.append(f'<div class="list-head">{esc(lines[0])}</div>')
    for group in groups:
        if group:
            body.append(f'<div class="list-group">{esc(group)}:</div>')
        if cited:
            body.append('<ol class="list-answer">' + "".join(_list_line(i, answer.shape) for i in cited if i.group == group) + "</ol>")
    # "- label — text" lines are the text's own rendering of uncited items, shown below as items
    notes = [ln for ln in lines[1:] if not ln.startswith(("[", "- ")) and ln.rstrip(":") not in groups]
    body += [f'<div class="list-note">{esc(n)}</div>' for n in notes]
    further = [i for i in answer.items if not i.cited]
    if further:
        rows = "".join(f'<li><span class="list-label">{esc(i.label)}</span> — {esc(i.text)} '
                       f'<span class="answer-meta">({esc(i.source)}{"" if i.above_cutoff else ", below the cut-off"})</span></li>'
                       for i in further)
        if not cited:  # nothing cited (a follow-up no listed abstract answers): the closest are the answer's body
            body.append(f'<ol class="list-answer list-closest">{rows}</ol>')
        else:
            body.append(f'<details class="list-more"><summary>Show the {len(further)} further abstract'
                        f'{"s" if len(further) != 1 else ""}</summary><ol class="list-answer">{rows}</ol></details>')
    return f'<div class="answer list-shape-{esc(answer.shape)}">{"".join(body)}</div>' + answer_meta(answer)


def render_answer(answer: Answer) -> str:
    """The final answer for the chat: sentences with linked [n], unsupported ones marked."""
    if not answer.refused and answer.shape != "fact" and answer.items:
        return render_list(answer)
    if answer.refused:
        closest = "".join(f"<li>{esc(h.label)} <span class='answer-meta'>({esc(h.source)})</span></li>"
                          for h in answer.closest)
        body = (f'<div class="refusal"><div class="refusal-title">Not answered from the collection</div>'
                f"{esc(answer.text)}{f'<ul>{closest}</ul>' if closest else ''}</div>")
        return body + answer_meta(answer)
    if answer.sentences:
        out = []
        for s in answer.sentences:
            cites = "".join(cite_link(n) for n in s.citations)
            if s.supported:
                out.append(f"{esc(s.text)} {cites}".rstrip())
            else:
                why = getattr(s, "reason", None) or "the cited sources do not support this sentence"
                out.append(f'<span class="unsupported" title="{esc(why)}">{esc(s.text)}</span> {cites}'
                           f'<span class="unsupported-badge">unsupported</span>'
                           f'<span class="unsupported-reason"> ({esc(why)})</span>')
        body = " ".join(out)
        first = answer.sentences[0]
        if len(out) > 1 and first.supported and answer.text.partition("\n\n")[0].endswith(
                f"{first.text} {''.join(f'[{n}]' for n in first.citations)}".rstrip()):
            body = f'{out[0]}<div class="quotes">{" ".join(out[1:])}</div>'  # a lead sentence, its quotes below
        if answer.caveat:  # what the sources do not state, above what they do
            body = f'<div class="caveat">{esc(answer.caveat)}</div>{body}'
    else:  # the text already opens with the caveat
        body = _link_citations(esc(answer.text))
    return f'<div class="answer">{body}</div>' + answer_meta(answer)


def highlight(text: str, spans: Iterable[Evidence | tuple[int, int]]) -> str:
    """``text`` escaped, with each [start, end) span wrapped in <mark> (overlaps merged, clamped)."""
    ranges: list[tuple[int, int]] = []
    for span in spans:
        start, end = (span.start, span.end) if isinstance(span, Evidence) else span
        start, end = max(0, int(start)), min(len(text), int(end))
        if end > start:
            ranges.append((start, end))
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, pos = [], 0
    for start, end in merged:
        out.append(esc(text[pos:start]))
        out.append(f"<mark>{esc(text[start:end])}</mark>")
        pos = end
    out.append(esc(text[pos:]))
    return "".join(out)


def source_links(meta: dict[str, Any]) -> str:
    """The work's DOI / arXiv / URL links for a source card (https only; text and URL escaped)."""
    return "".join(f' · <a class="src-link" href="{esc(url)}" target="_blank" rel="noopener noreferrer">{esc(text)}</a>'
                   for text, url in links(meta or {}))


def _source_card(anchor: str, n: int | None, label: str, source: str, score: float, body: str,
                 meta: dict[str, Any] | None = None) -> str:
    number = f'<span class="src-n">[{n}]</span>' if n is not None else ""
    return (f'<div class="src" id="{esc(anchor)}"><div class="src-head">{number}{esc(label)}</div>'
            f'<div class="src-meta">{esc(source)} · score {float(score):.3f}{source_links(meta or {})}</div>'
            f'<div class="src-text">{body}</div></div>')


def render_citation(c: Citation) -> str:
    return _source_card(f"src-{c.n}", c.n, c.label, c.source, c.score, highlight(c.text, c.evidence), c.metadata)


def render_sources(answer: Answer | None, *, pending: bool = False) -> str:
    """The sources panel for the current answer."""
    if pending:
        return '<div class="sources-panel"><p class="panel-note">Searching the abstracts…</p></div>'
    if answer is None:
        return ('<div class="sources-panel"><p class="panel-note">The abstracts cited by an answer appear '
                "here, with the supporting sentences highlighted.</p></div>")
    if answer.refused:
        cards = "".join(_source_card(f"close-{h.rank}", None, h.label, h.source, h.score, esc(h.text), h.metadata)
                        for h in answer.closest)
        note = "No abstract supports an answer." + (" The closest ones:" if cards else "")
        return f'<div class="sources-panel"><p class="panel-note">{note}</p>{cards}</div>'
    if not answer.citations:
        return '<div class="sources-panel"><p class="panel-note">This answer cites no source.</p></div>'
    cards = "".join(render_citation(c) for c in answer.citations)
    return f'<div class="sources-panel">{cards}</div>'


def render_hits(hits: list[Hit], query: str) -> str:
    """Corpus search results."""
    if not query.strip():
        return '<p class="panel-note">Type words to search the abstracts.</p>'
    if not hits:
        return f'<p class="panel-note">No abstract matches “{esc(query)}”.</p>'
    cards = "".join(_source_card(f"hit-{h.rank}", h.rank, h.label, h.source, h.score, esc(h.text), h.metadata)
                    for h in hits)
    return f'<div class="sources-panel">{cards}</div>'


def render_stats(stats: dict[str, Any]) -> str:
    rows = "".join(f"<tr><td>{esc(name)}</td><td>{int(count)}</td></tr>"
                   for name, count in sorted(stats.get("files", {}).items()))
    return (f"<p><b>{int(stats.get('abstracts', 0))}</b> abstracts · <b>{int(stats.get('works', 0))}</b> works · "
            f"<b>{int(stats.get('chunks', 0))}</b> chunks</p>"
            f'<table class="stats-table"><tr><th>file</th><th>abstracts</th></tr>{rows}</table>')
