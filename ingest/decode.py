"""Bytes -> text for the loaders: BOMs, UTF-16 without a BOM, binary files, and files that are
not (all) UTF-8. Undecodable lines are read as Windows-1252 (else Latin-1), which is what such
files almost always are, and named in a warning rather than silently mangled to U+FFFD.
"""

from __future__ import annotations

import re

from ingest.records import Problem

_MAGIC = {
    b"%PDF": "a PDF document",
    b"PK\x03\x04": "a ZIP archive (.docx/.xlsx/.zip)",
    b"\x1f\x8b": "gzip-compressed data",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"\x7fELF": "a program (ELF)",
    b"SQLite format 3\x00": "an SQLite database",
    b"\xfd7zXZ\x00": "xz-compressed data",
    b"7z\xbc\xaf\x27\x1c": "a 7-Zip archive",
    b"\xd0\xcf\x11\xe0": "an old Office document (.doc/.xls)",
}
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_SAMPLE = 8192
_BINARY_BYTES = [*range(0, 8), *range(14, 27), *range(28, 32)]  # C0 controls but \t \n \r \f \v ESC
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines as an editor numbers them (\\n, \\r\\n or \\r; not str.splitlines' extra breaks
    such as U+2028 or form feed, which would shift every line number after them)."""
    lines = LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def decode(raw: bytes, name: str) -> tuple[str | None, list[Problem]]:
    """The file's text (None when it is not text at all) and problems/warnings about it."""
    for magic, what in _MAGIC.items():
        if raw.startswith(magic):
            return None, [Problem(name, 0, f"binary file ({what}), not text: extract the abstracts to .txt, .jsonl or .csv first")]
    for bom, enc in _BOMS:
        if raw.startswith(bom):
            text = raw.decode(enc, errors="replace")
            bad = text.count("\ufffd") - raw.decode(enc, errors="ignore").count("\ufffd")
            if bad:
                return text, [Problem(name, _line_of_char(text, "\ufffd"), f"{bad} invalid {enc.upper()} sequence(s) replaced by U+FFFD", warning=True)]
            return text, []
    sample = raw[:_SAMPLE]
    nuls = sample.count(b"\x00")
    if nuls:
        utf16 = _guess_utf16(sample)
        if utf16:
            text = raw.decode(utf16, errors="replace")
            return text, [Problem(name, 0, f"UTF-16 ({utf16[-2:].upper()}) without a byte-order mark; read as such", warning=True)]
        if nuls > len(sample) // 20:
            return None, [Problem(name, 0, f"binary file ({nuls} NUL bytes in the first {len(sample):,} bytes), not text")]
    controls = sum(sample.count(bytes([b])) for b in _BINARY_BYTES)
    if controls * 20 > len(sample):  # text has (almost) none of these; random bytes ~10 %
        return None, [Problem(name, 0, f"binary file ({controls} control bytes in the first {len(sample):,}), not text")]
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    lines: list[str] = []
    bad_lines: list[int] = []
    for i, chunk in enumerate(raw.split(b"\n"), start=1):
        try:
            lines.append(chunk.decode("utf-8"))
        except UnicodeDecodeError:
            bad_lines.append(i)
            try:
                lines.append(chunk.decode("cp1252"))
            except UnicodeDecodeError:
                lines.append(chunk.decode("latin-1"))
    shown = ", ".join(map(str, bad_lines[:5])) + (", …" if len(bad_lines) > 5 else "")
    reason = (f"{len(bad_lines)} line(s) are not UTF-8 (lines {shown}); read them as Windows-1252/Latin-1 "
              "- save the file as UTF-8 if characters look wrong")
    return "\n".join(lines), [Problem(name, bad_lines[0], reason, warning=True)]


def _guess_utf16(sample: bytes) -> str | None:
    even, odd = sample[0::2], sample[1::2]
    if len(sample) < 4:
        return None
    if odd.count(0) > 0.3 * len(odd) and even.count(0) < 0.05 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.3 * len(even) and odd.count(0) < 0.05 * len(odd):
        return "utf-16-be"
    return None


def _line_of_char(text: str, ch: str) -> int:
    pos = text.find(ch)
    return len(LINE_BREAK.findall(text, 0, pos)) + 1 if pos >= 0 else 0
