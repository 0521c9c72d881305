"""JSON input with line numbers: JSON Lines, a JSON array, concatenated (pretty-printed) objects,
or one object wrapping a list (``{"papers": [...]}``).

A bad value costs only itself: the reader reports its line and resumes at the next line that
starts an object, so the good records around it are kept; a truncated array keeps every
element before the cut.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_DECODER = json.JSONDecoder(strict=False)  # raw control characters in strings: cleaned later
_WS = re.compile(r"[ \t\n\r\ufeff]*")
_NEXT_OBJECT = re.compile(r"\n[ \t\r]*[{\[]")


class _Lines:
    """Position -> 1-based line number, for increasing positions (amortised O(n))."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1

    def __call__(self, pos: int) -> int:
        if pos < self.pos:
            self.pos, self.line = 0, 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def iter_json(text: str) -> Iterator[tuple[int, Any | None, str | None]]:
    """(line, value, None) for each top-level value, or (line, None, reason) for each bad one."""
    line_of = _Lines(text)
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if text.startswith("[", pos):
        yield from _iter_array(text, pos, line_of)
        return
    while pos < len(text):
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            # Name the line where the broken value starts (its record), and where it broke; then
            # resume at the next line that starts a value, so a cut-off line costs only itself.
            start = line_of(pos)
            broke = start + text.count("\n", pos, exc.pos)
            where = f" (at line {broke})" if broke != start else ""
            yield start, None, f"malformed JSON: {exc.msg}{where}"
            pos = _resync(text, pos)
            continue
        except RecursionError:
            yield line_of(pos), None, "JSON nested too deeply"
            pos = _resync(text, pos)
            continue
        yield line_of(pos), value, None
        pos = _WS.match(text, end).end()  # type: ignore[union-attr]


def _resync(text: str, pos: int) -> int:
    m = _NEXT_OBJECT.search(text, pos)
    return m.start() + 1 if m else len(text)


def _iter_array(text: str, pos: int, line_of: _Lines, top: bool = True) -> Iterator[tuple[int, Any | None, str | None]]:
    """Elements of the array starting at ``pos``; stops, with a reason, where it breaks."""
    pos += 1
    while True:
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text):
            yield line_of(pos), None, "truncated JSON: the array is never closed (the elements before this line were read)"
            return
        if text[pos] == "]":
            rest = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
            if top and rest < len(text):
                yield line_of(rest), None, "extra data after the JSON array (ignored)"
            return
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            cut = exc.pos >= len(text.rstrip()) - 1 or exc.msg.startswith("Unterminated string")
            what = "truncated JSON" if cut else "invalid JSON"
            yield line_of(exc.pos), None, f"{what}: {exc.msg} (the elements before this line were read)"
            return
        except RecursionError:
            yield line_of(pos), None, "JSON nested too deeply (the elements before this line were read)"
            return
        yield line_of(pos), value, None
        pos = _WS.match(text, end).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos += 1
        elif not text.startswith("]", pos) and pos < len(text):
            yield line_of(pos), None, "invalid JSON: expected ',' or ']' between array elements"
            return


def wrapped_lists(row: dict[str, Any], text: str, start: int) -> Iterator[tuple[int, Any | None, str | None]]:
    """The elements of each list-of-objects value of a wrapper object (``{"papers": [...]}``)."""
    line_of = _Lines(text)
    for key, value in row.items():
        if not (isinstance(value, list) and value and all(isinstance(v, dict) for v in value)):
            continue
        m = re.compile(r'"' + re.escape(str(key)) + r'"\s*:\s*\[').search(text)
        if m is None:  # key written with escapes; no positions, so use the object's line
            for v in value:
                yield start, v, None
            continue
        yield from _iter_array(text, m.end() - 1, line_of, top=False)
