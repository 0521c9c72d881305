"""Sentence-aligned chunks for the embedder (sentence spans come from ``assistant.language.text``).

Chunks must fit the MiniLM tokenizer's 256-token window (not tiktoken's count), so they are
grouped here rather than by LlamaIndex's SentenceSplitter. A sentence longer than the window is
split at word (CJK, Thai...: character) boundaries, so no text is ever cut off by the embedder's
truncation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from assistant.language.text import NO_SPACE_SCRIPT_CHARS, Span, split_sentences

# Pieces an over-long sentence may be cut into: a word with its trailing space, or one character
# of a script written without spaces.
_PIECE = re.compile(f"[{NO_SPACE_SCRIPT_CHARS}]\\s*|[^\\s{NO_SPACE_SCRIPT_CHARS}]+\\s*|\\s+")


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
