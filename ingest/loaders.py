"""Loaders: seed text files, JSONL, CSV and BEIR folders -> Records (and Problems, with file:line).

Every loader keeps going after a bad record: good records in the same file are still returned.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ingest.records import Problem, Record

MAX_FILE_BYTES = 200 * 1024 * 1024
MIN_WORDS = 8
MAX_CHARS = 20_000  # ~3,000 words: far beyond any abstract; longer is a paper body, not an abstract
HEADER_LINES = {"daily papers"}
SUPPORTED = {".txt", ".md", ".jsonl", ".ndjson", ".json", ".csv", ".tsv"}

TEXT_KEYS = ("abstract", "text", "summary", "body", "content", "paperabstract")
ID_KEYS = ("id", "_id", "doc_id", "paper_id", "arxiv_id", "corpus_id", "doi")
TITLE_KEYS = ("title", "name", "paper_title")
KNOWN = {"authors", "author", "url", "link", "year", "date", "venue"}


def iter_files(paths: list[str | Path]) -> Iterator[Path]:
    """Expand folders (a BEIR folder yields its corpus.jsonl only)."""
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            if (p / "corpus.jsonl").exists():
                yield p / "corpus.jsonl"
                continue
            for f in sorted(p.rglob("*")):
                if f.is_file() and f.suffix.lower() in SUPPORTED and f.name.lower() != "readme.md":
                    yield f
        else:
            yield p


def load_file(path: Path) -> tuple[list[Record], list[Problem]]:
    """Read one file of any supported format."""
    name = str(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        return [], [Problem(name, 0, f"cannot read file: {exc.strerror or exc}")]
    if size == 0:
        return [], [Problem(name, 0, "empty file")]
    if size > MAX_FILE_BYTES:
        return [], [Problem(name, 0, f"file is {size / 1e6:.0f} MB, over the {MAX_FILE_BYTES // 2**20} MiB limit")]
    raw = path.read_bytes()
    if b"\x00" in raw[:8192] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return [], [Problem(name, 0, "binary file (NUL bytes), not text")]
    text, problems = _decode(raw, name)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        records, more = _load_jsonl(text, name)
    elif suffix in (".csv", ".tsv"):
        records, more = _load_csv(text, name, "\t" if suffix == ".tsv" else ",")
    else:
        records, more = _load_paragraphs(text, name)
    problems += more
    if not records and not more and not problems:
        problems.append(Problem(name, 0, "no abstracts found (whitespace only?)"))
    return records, problems


def _decode(raw: bytes, name: str) -> tuple[str, list[Problem]]:
    for bom, enc in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
        if raw.startswith(bom):
            return raw.decode(enc, errors="replace"), []
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        text = raw.decode("utf-8", errors="replace")
        return text, [Problem(name, line, "bytes that are not UTF-8 were replaced by U+FFFD")]


def check_text(text: str, name: str, line: int) -> Problem | None:
    words = len(text.split())
    if words == 0:
        return Problem(name, line, "empty abstract")
    if words < MIN_WORDS:
        return Problem(name, line, f"abstract too short ({words} words, need at least {MIN_WORDS})")
    if len(text) > MAX_CHARS:
        return Problem(name, line, f"abstract too long ({len(text):,} chars, limit {MAX_CHARS:,}): is this a full paper?")
    return None


def _load_paragraphs(text: str, name: str) -> tuple[list[Record], list[Problem]]:
    records: list[Record] = []
    problems: list[Problem] = []
    buf: list[str] = []
    start = 0

    def flush() -> None:
        if not buf:
            return
        para = " ".join(s.strip() for s in buf)
        buf.clear()
        if para.strip().lower() in HEADER_LINES:
            return
        problem = check_text(para, name, start)
        if problem:
            problems.append(problem)
        else:
            records.append(Record(text=para, path=name, line=start))

    for i, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not buf:
                start = i
            buf.append(line)
        else:
            flush()
    flush()
    return records, problems


def _pick(row: dict[str, Any], keys: tuple[str, ...]) -> tuple[str | None, Any]:
    lowered = {str(k).strip().lower(): k for k in row}
    for key in keys:
        if key in lowered:
            return lowered[key], row[lowered[key]]
    return None, None


def _to_record(row: dict[str, Any], name: str, line: int) -> Record | Problem:
    text_key, text = _pick(row, TEXT_KEYS)
    if text_key is None:
        return Problem(name, line, f"no abstract field (looked for {', '.join(TEXT_KEYS)}; found {', '.join(map(str, row)) or 'none'})")
    if not isinstance(text, str):
        return Problem(name, line, f"field {text_key!r} is not text")
    problem = check_text(text, name, line)
    if problem:
        return problem
    id_key, ext_id = _pick(row, ID_KEYS)
    title_key, title = _pick(row, TITLE_KEYS)
    meta: dict[str, Any] = {}
    for k, v in row.items():
        if k in (text_key, id_key, title_key) or v in (None, ""):
            continue
        key = str(k).strip().lower()
        meta["author" + "s" if key == "author" else key] = v if isinstance(v, str | int | float | bool) else json.dumps(v)
    return Record(text=text, path=name, line=line, title=str(title or "").strip(),
                  external_id=str(ext_id or "").strip(), metadata=meta)


def _load_jsonl(text: str, name: str) -> tuple[list[Record], list[Problem]]:
    records: list[Record] = []
    problems: list[Problem] = []
    stripped = text.lstrip()
    if stripped.startswith("["):  # a plain JSON array of objects
        try:
            rows = json.loads(stripped)
        except (json.JSONDecodeError, RecursionError) as exc:
            return [], [Problem(name, getattr(exc, "lineno", 0), f"invalid JSON: {getattr(exc, 'msg', exc)}")]
        lines = [(i + 1, r) for i, r in enumerate(rows)]
    else:
        lines = []
        for i, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                lines.append((i, json.loads(line)))
            except (json.JSONDecodeError, RecursionError) as exc:
                problems.append(Problem(name, i, f"malformed JSON: {getattr(exc, 'msg', 'too deeply nested')}"))
    for i, row in lines:
        if not isinstance(row, dict):
            problems.append(Problem(name, i, f"expected a JSON object, got {type(row).__name__}"))
            continue
        out = _to_record(row, name, i)
        (problems if isinstance(out, Problem) else records).append(out)  # type: ignore[arg-type]
    return records, problems


def _load_csv(text: str, name: str, delimiter: str) -> tuple[list[Record], list[Problem]]:
    csv.field_size_limit(MAX_FILE_BYTES)
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    fields = [f.strip().lower() for f in (reader.fieldnames or [])]
    if not any(k in fields for k in TEXT_KEYS):
        return [], [Problem(name, 1, f"no abstract column in header (looked for {', '.join(TEXT_KEYS)}; found {', '.join(fields) or 'none'})")]
    records: list[Record] = []
    problems: list[Problem] = []
    try:
        for row in reader:
            line = reader.line_num
            if None in row:
                problems.append(Problem(name, line, "more fields than the header has"))
                continue
            out = _to_record({k: v for k, v in row.items() if k is not None}, name, line)
            (problems if isinstance(out, Problem) else records).append(out)  # type: ignore[arg-type]
    except csv.Error as exc:
        problems.append(Problem(name, reader.line_num, f"CSV error: {exc}"))
    return records, problems
