"""The checks every abstract passes before it is stored, whatever its format: prose of a few words
at least, not a paper body, not binary data decoded as text; control characters removed."""

from __future__ import annotations

import re

from assistant.language.text import CONTROL, NO_SPACE_SCRIPT
from ingest.records import Problem

MIN_WORDS = 8
MAX_CHARS = 20_000  # ~3,000 words: far beyond any abstract; longer is a paper body, not an abstract
MIN_LETTER_SHARE = 0.5  # of non-space characters; prose is ~80 %, binary junk decoded as text ~30 %

_SPACE = re.compile(r"\s+")
_LETTER = re.compile(r"[^\W\d_]")  # any script's letters (and its combining marks)


def count_words(text: str) -> int:
    """Whitespace-separated words; in Chinese, Japanese, Korean, Thai... each character counts."""
    n = len(NO_SPACE_SCRIPT.findall(text))
    return n + len((NO_SPACE_SCRIPT.sub(" ", text) if n else text).split())


def check_text(text: str, name: str, line: int) -> tuple[str | None, list[Problem]]:
    """The abstract cleaned of control characters, or None with the reason it is rejected."""
    problems: list[Problem] = []
    controls = CONTROL.findall(text)
    if len(controls) * 100 > len(text):  # prose has none; binary decoded as text is full of them
        return None, [Problem(name, line, f"binary data, not text ({len(controls)} control characters)")]
    if controls:
        text = CONTROL.sub(" ", text)
        shown = " ".join(sorted({f"U+{ord(c):04X}" for c in controls})[:5])
        problems.append(Problem(name, line, f"{len(controls)} control character(s) removed ({shown})", warning=True))
    words = count_words(text)
    reason = None
    if words == 0:
        reason = "empty abstract"
    elif words < MIN_WORDS:
        reason = f"abstract too short ({words} word{'s' * (words != 1)}, need at least {MIN_WORDS})"
    elif len(text) > MAX_CHARS:
        reason = f"abstract too long ({len(text):,} chars, limit {MAX_CHARS:,}): is this a full paper?"
    else:
        nonspace = len(_SPACE.sub("", text))
        letters = len(_LETTER.findall(text))
        if letters < MIN_LETTER_SHARE * nonspace or text.count("\ufffd") * 20 > nonspace:
            reason = f"does not look like prose (only {100 * letters // max(nonspace, 1)} % letters): binary data or a table?"
    if reason:
        return None, [Problem(name, line, reason)]
    return text, problems
