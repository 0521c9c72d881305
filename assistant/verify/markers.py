"""Citation markers in an answer's text: reading them ([1], [1, 2], [1][3], [2-4]), renumbering
them, stripping them from a claim (with the words that only link a closing reference list), telling
when a marker stood where a name must be, and splitting an answer into its sentences with each
marker kept on its sentence. The text side of ``assistant.verify.citations``'s verifier, which judges the
claims these functions separate from their markers."""

from __future__ import annotations

import re
from typing import Any

from assistant.language.text import split_sentences

_MARK = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_MARK_RE = r"\[\d+(?:\s*[,;–-]\s*\d+)*\]"  # one marker: [1], [1, 2], [1;3], [2-4]
# a marker with the space before it (what strip_markers removes); the project's own [n] format
_MARK_ANY = re.compile(rf"\s*{_MARK_RE}")
_RANGE = re.compile(r"\[(\d+)\s*[–-]\s*(\d+)\]")


def parse_markers(sentence: str) -> list[int]:
    """Citation numbers in a sentence: [1], [1, 2], [1][3], [2-4]."""
    nums: list[int] = []
    for m in _RANGE.finditer(sentence):
        a, b = int(m.group(1)), int(m.group(2))
        nums += list(range(a, b + 1)) if 0 < b - a < 10 else [a, b]
    for m in _MARK.finditer(sentence):
        nums += [int(x) for x in re.split(r"\s*[,;]\s*", m.group(1))]
    return nums


def renumber_markers(text: str, number: Any) -> str:
    """Every marker of ``text`` ([1], [1, 2], [2-4], as ``parse_markers`` reads them) rewritten
    with ``number(n)`` for each of its numbers, written out one by one ("[2-4]" -> "[5, 6, 7]")."""
    return re.sub(
        _MARK_RE,
        lambda m: "[" + ", ".join(str(number(n)) for n in parse_markers(m.group(0))) + "]",
        text,
    )


# A reference list closing a sentence ("… models in [1], [2], and [3].", "as shown in [1].") is the
# citation, not part of the claim: the words that link it (commas, a coordinator, a preposition of
# source) go with its markers, or "in,, and." would be left in the text.
_TAIL_REFS = re.compile(
    rf"(?:(?:\s*(?:,|;|\b(?:and|or|in|by|from|see|cf\.|e\.g\.|as\s+(?:shown|described|reported|noted|seen|discussed)\s+in)\b))*"
    rf"\s*{_MARK_RE})+(?=\s*[.!?]?\s*$)",
    re.I,
)
# A marker inside a sentence that stands where a noun phrase must ("Both [1] and [2] mention X",
# "faster than [2] on …"): without it a preposition or a coordinator has no object (English does
# not end a phrase there), so the sentence as stripped says nothing readable and is not shown.
_ORPHAN = re.compile(
    r"\b(?:both|between|and|or|in|of|by|from|with|than|like|to|see|versus|vs\.?)\s*(?:[,;:.!?]|\b(?:and|or)\b|$)"
    r"|,\s*[,;.]|^\s*(?:and|or)\b",
    re.I,
)


def strip_markers(sentence: str) -> str:
    s = _MARK_ANY.sub("", _TAIL_REFS.sub("", sentence))
    return re.sub(r"\s+([.,;:!?])", r"\1", s).strip()


def dangling(sentence: str) -> bool:
    """Whether a marker inside ``sentence`` (not in its closing reference list) stood for a name:
    its stripped text leaves a preposition or coordinator without its object (``_ORPHAN``)."""
    inner = _TAIL_REFS.sub("", sentence)
    return bool(_MARK_ANY.search(inner)) and bool(_ORPHAN.search(strip_markers(sentence)))


def split_answer(text: str) -> list[str]:
    """Answer sentences; a citation marker after the full stop stays with its sentence."""
    text = re.sub(r"([.!?])\s*((?:\[\d+(?:\s*[,;–-]\s*\d+)*\]\s*)+)", r"\1 \2\n", text)
    out: list[str] = []
    for line in text.split("\n"):
        line = line.strip()
        for s in split_sentences(line):
            piece = line[s.start : s.end].strip()
            if out and _MARK_ANY.fullmatch(piece):
                out[-1] += " " + piece
            elif piece:
                out.append(piece)
    return out
