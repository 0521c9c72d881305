"""Sentence splitting with character spans, and sentence-aligned chunks for the embedder.

Written here rather than using LlamaIndex's SentenceSplitter because citations need exact
character spans of every sentence in the original abstract, and chunks must fit the MiniLM
tokenizer's 256-token window (not tiktoken's count).

Sentences end at . ! ? (and Arabic ؟) before whitespace and a capital, digit, opening quote or a
letter of a script without case (Arabic, Hebrew, CJK...), or at the CJK full stops 。！？ with no
space needed. A sentence longer than the window is split at word (CJK: character) boundaries, so
no text is ever cut off by the embedder's truncation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_ABBREVIATIONS = {"e.g", "i.e", "al", "vs", "cf", "fig", "eq", "approx", "resp", "no", "etc", "sec", "ref", "dr"}
_END = re.compile(r"[.!?\u061f][\"')\]\u201d\u2019]*(?=\s+[\"'(\[\u201c\u2018]?(\w))|[\u3002\uff01\uff1f]+[\"')\]\u201d\u2019\u300d\u300f\uff09\u300b]*")
# Pieces an over-long sentence may be cut into: a word with its trailing space, or one CJK character.
_PIECE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]\s*|[^\s\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+\s*|\s+")


@dataclass(frozen=True)
class Span:
    start: int
    end: int


def _starts_sentence(ch: str) -> bool:
    return ch.isupper() or ch.isdigit() or (ch.isalpha() and not ch.islower())


def split_sentences(text: str) -> list[Span]:
    """Sentence spans in ``text``, without surrounding whitespace."""
    spans: list[Span] = []
    pos = 0
    for m in _END.finditer(text):
        if m.group(1) is not None and not _starts_sentence(m.group(1)):
            continue
        word = text[max(pos, m.start() - 8) : m.start()].split()
        prev = word[-1].lower().lstrip("(") if word else ""
        if prev in _ABBREVIATIONS or (m.group(0).startswith(".") and len(prev) == 1 and prev.isalpha()):
            continue  # "e.g. X", "et al. X", initials like "J. Smith"
        spans.append(Span(pos, m.end()))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    end = len(text.rstrip())
    if pos < end:
        spans.append(Span(pos, end))
    return [sp for sp in spans if text[sp.start : sp.end].strip()]


@dataclass(frozen=True)
class Chunk:
    index: int
    start: int
    end: int
    text: str


def chunk_text(text: str, count_tokens: Callable[[str], int], max_tokens: int = 96, hard_limit: int = 250) -> list[Chunk]:
    """Greedy groups of whole sentences up to ``max_tokens``; a sentence over ``hard_limit`` tokens
    is cut into consecutive pieces of at most ``hard_limit`` tokens (each its own chunk)."""
    chunks: list[Chunk] = []
    group: list[Span] = []
    size = 0
    for s in split_sentences(text):
        n = count_tokens(text[s.start : s.end])
        if group and size + n > max_tokens:
            chunks.append(_make(chunks, group, text))
            group, size = [], 0
        if n > hard_limit:
            chunks.extend(_make(chunks, [piece], text) for piece in _split_long(text, s, count_tokens, hard_limit))
            continue
        group.append(s)
        size += n
    if group:
        chunks.append(_make(chunks, group, text))
    return [Chunk(i, c.start, c.end, c.text) for i, c in enumerate(chunks)]


def _split_long(text: str, span: Span, count_tokens: Callable[[str], int], limit: int) -> list[Span]:
    """Cut one long sentence at piece boundaries into spans of at most ``limit`` tokens. Word
    counts add up (the tokenizer splits on whitespace first), less the [CLS]/[SEP] overhead."""
    overhead = count_tokens("")
    out: list[Span] = []
    start = end = span.start
    size = overhead
    for m in _PIECE.finditer(text, span.start, span.end):
        n = max(count_tokens(m.group(0).strip()) - overhead, 0) if m.group(0).strip() else 0
        if size + n > limit and end > start:
            out.append(Span(start, end))
            start, size = m.start(), overhead
        if size == overhead and not m.group(0).strip():
            start = m.end()  # never start a piece with whitespace
            continue
        size += n
        end = m.start() + len(m.group(0).rstrip())
    if end > start:
        out.append(Span(start, end))
    return out


def _make(chunks: list[Chunk], group: list[Span], text: str) -> Chunk:
    start, end = group[0].start, group[-1].end
    return Chunk(index=len(chunks), start=start, end=end, text=text[start:end])
