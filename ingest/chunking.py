"""Sentence splitting with character spans, and sentence-aligned chunks for the embedder.

Written here rather than using LlamaIndex's SentenceSplitter because citations need exact
character spans of every sentence in the original abstract, and chunks must fit the MiniLM
tokenizer's 256-token window (not tiktoken's count).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_ABBREVIATIONS = {"e.g", "i.e", "al", "vs", "cf", "fig", "eq", "approx", "resp", "no", "etc", "sec", "ref", "dr"}
_END = re.compile(r"[.!?][\"')\]]*(?=\s+[\"'(\[]?[A-Z0-9])")


@dataclass(frozen=True)
class Span:
    start: int
    end: int


def split_sentences(text: str) -> list[Span]:
    """Sentence spans in ``text``, without surrounding whitespace."""
    spans: list[Span] = []
    pos = 0
    for m in _END.finditer(text):
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
    """Greedy groups of whole sentences up to ``max_tokens``; a single longer sentence is its own
    chunk (the embedder truncates it at ``hard_limit``)."""
    sentences = split_sentences(text)
    chunks: list[Chunk] = []
    group: list[Span] = []
    size = 0
    for s in sentences:
        n = count_tokens(text[s.start : s.end])
        if group and size + n > max_tokens:
            chunks.append(_make(chunks, group, text))
            group, size = [], 0
        group.append(s)
        size += n
    if group:
        chunks.append(_make(chunks, group, text))
    return chunks


def _make(chunks: list[Chunk], group: list[Span], text: str) -> Chunk:
    start, end = group[0].start, group[-1].end
    return Chunk(index=len(chunks), start=start, end=end, text=text[start:end])
