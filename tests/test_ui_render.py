"""The UI's HTML rendering, without a browser: escaping, <mark> spans, citation links, refusals."""

from __future__ import annotations

import re

import pytest

from assistant import Answer, AnswerSentence, Citation, Evidence, Hit
from assistant.ui.app import UIConfigError, parse_auth, parse_history
from assistant.ui.render import (
    highlight,
    render_answer,
    render_hits,
    render_partial,
    render_sources,
    render_stats,
)

EVIL = "<script>alert(1)</script> & <img src=x onerror=alert(2)> \"quoted\" 'single'"


def tags(html: str) -> set[str]:
    return {t.lower() for t in re.findall(r"<\s*([a-zA-Z][a-zA-Z0-9]*)", html)}


def test_highlight_escapes_and_marks_spans() -> None:
    text = "Alpha <b>beta</b>. Gamma delta. Epsilon."
    out = highlight(text, [Evidence("Gamma delta.", 19, 31)])
    assert out == "Alpha &lt;b&gt;beta&lt;/b&gt;. <mark>Gamma delta.</mark> Epsilon."


def test_highlight_merges_overlaps_and_clamps() -> None:
    text = "0123456789"
    assert highlight(text, [(2, 5), (4, 7), (-3, 1), (9, 99), (6, 6)]) == (
        "<mark>0</mark>1<mark>23456</mark>78<mark>9</mark>")
    assert highlight(text, []) == text


def test_answer_escapes_text_and_links_citations() -> None:
    answer = Answer(question="q", text=f"{EVIL} [1]", backend="extractive", timings={"total": 2.5},
                    sentences=[AnswerSentence(EVIL, [1], True), AnswerSentence("Made up <i>claim</i>.", [2], False)])
    html = render_answer(answer)
    assert tags(html) <= {"div", "a", "span", "b", "br"}
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "onerror=alert" in html  # as text only
    assert '<a class="cite" href="#src-1"' in html and 'href="#src-2"' in html
    assert re.search(r'<span class="unsupported"[^>]*>Made up &lt;i&gt;claim&lt;/i&gt;.</span>', html)
    assert "extractive" in html and "2.5 s" in html


def test_caveat_is_shown_above_the_cited_sentences_escaped() -> None:
    caveat = 'None of the abstracts found mentions "<b>X-3</b>"; the closest ones state:'
    answer = Answer(question="q", text=f"{caveat} A claim. [1]", caveat=caveat, sentences=[AnswerSentence("A claim.", [1], True)])
    html = render_answer(answer)
    assert html.index('class="caveat"') < html.index("A claim.")
    assert "&lt;b&gt;X-3&lt;/b&gt;" in html and html.count("None of the abstracts") == 1


def test_answer_without_sentences_links_markers_in_text() -> None:
    html = render_answer(Answer(question="q", text="A <x> claim [2].", timings={"total": 0.1}))
    assert "A &lt;x&gt; claim " in html and 'href="#src-2"' in html
    assert 'href="#src-2"' in render_partial("streamed [2] text")


def test_refusal_lists_closest_and_sources_panel_shows_them() -> None:
    hit = Hit(doc_id="d", label=EVIL, text=EVIL, score=0.5, source="f.txt:3", rank=1)
    answer = Answer(question="q", text="The collection does not answer this question.", refused=True,
                    closest=[hit], fallback_reason="openai <down>")
    chat = render_answer(answer)
    assert "Not answered from the collection" in chat and "f.txt:3" in chat and "<script" not in chat
    assert "openai &lt;down&gt;" in chat
    panel = render_sources(answer)
    assert "closest" in panel and "<script" not in panel and 'id="src-' not in panel
    assert tags(panel) <= {"div", "p", "span"}


def test_sources_panel_cards() -> None:
    text = f"Intro. {EVIL} Evidence sentence here."
    start = text.index("Evidence")
    cite = Citation(n=3, doc_id="d", label="L<b>", text=text, source="data/a.txt:9", score=0.75,
                    evidence=[Evidence("Evidence sentence here.", start, len(text))])
    panel = render_sources(Answer(question="q", text="x [3]", citations=[cite]))
    assert 'id="src-3"' in panel and "[3]" in panel and "L&lt;b&gt;" in panel and "data/a.txt:9" in panel
    assert "<mark>Evidence sentence here.</mark>" in panel and "0.750" in panel
    assert tags(panel) <= {"div", "span", "mark"}
    assert "appear here" in render_sources(None) and "Searching" in render_sources(None, pending=True)


def test_hits_and_stats_escape() -> None:
    hit = Hit(doc_id="d", label="<img src=x onerror=alert(1)>", text=EVIL, score=1.0, source="s:1", rank=1)
    assert tags(render_hits([hit], "q")) <= {"div", "span"}
    assert "No abstract matches" in render_hits([], "<q>") and "&lt;q&gt;" in render_hits([], "<q>")
    stats = render_stats({"abstracts": 2, "works": 1, "chunks": 5, "files": {"<b>.txt": 2}})
    assert "&lt;b&gt;.txt" in stats and "<b>2</b> abstracts" in stats


def test_parse_history_and_auth() -> None:
    assert parse_history('[{"role": "user", "content": "hi"}]') == [{"role": "user", "content": "hi"}]
    assert parse_history("") == []
    for bad in ("{", "{}", '[{"role": "system", "content": "x"}]', '[{"role": "user"}]'):
        with pytest.raises(ValueError):
            parse_history(bad)
    assert parse_auth("a:b:c") == ("a", "b:c") and parse_auth(None) is None
    for bad in ("ab", ":b", "a:"):
        with pytest.raises(UIConfigError):
            parse_auth(bad)
