"""Loaders: seed text files, JSONL/JSON, CSV/TSV, BEIR folders and reference exports (BibTeX, RIS,
CSL-JSON, arXiv snapshot, OpenAlex, Semantic Scholar: ingest/bibtex.py, ris.py, papers.py) ->
Records (and Problems, with file:line). BibTeX and RIS are recognised by content too (a .txt
export), the JSON sources by their fields.

Every loader keeps going after a bad record: good records in the same file are still returned.
Each record's text is checked (length, looks like prose) and cleaned of control characters here,
so the pipeline only ever sees text it can index and display.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assistant.language.text import CONTROL
from ingest import papers
from ingest.bibtex import looks_like_bibtex, read_bibtex
from ingest.checks import MAX_CHARS, MIN_WORDS, check_text, count_words  # noqa: F401 (MIN_WORDS: public here too)
from ingest.decode import decode, split_lines
from ingest.jsonio import iter_json, wrapped_lists
from ingest.metadata import Paper, clean_metadata
from ingest.records import Problem, Record
from ingest.ris import looks_like_ris, read_ris
from ingest.zotero import is_zotero_db, load_zotero

MAX_FILE_BYTES = 200 * 1024 * 1024
MAX_META_CHARS = 4_000
MAX_CSV_RESTARTS = 100  # re-parses after unclosed quotes; each is O(rest of file)
HEADER_LINES = {"daily papers"}
SUPPORTED = {".txt", ".md", ".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".bib", ".bibtex", ".ris"}

TEXT_KEYS = ("abstract", "text", "summary", "body", "content", "paperabstract")
ID_KEYS = ("id", "_id", "doc_id", "paper_id", "arxiv_id", "corpus_id", "doi")
TITLE_KEYS = ("title", "name", "paper_title")
RESERVED_META = {"original", "label", "sources", "work_id", "n_chunks", "title", "external_id", "doc_id", "chunk"}



def iter_files(paths: list[str | Path]) -> Iterator[Path]:
    """Expand folders: supported files, skipping hidden folders (an index in ``.assistant``, ``.git``)
    and README.md; a BEIR folder yields its corpus.jsonl only, a Zotero data directory its
    zotero.sqlite only."""
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            if (p / "corpus.jsonl").exists():
                yield p / "corpus.jsonl"
                continue
            if (p / "zotero.sqlite").is_file():  # a Zotero data directory: its database only
                yield p / "zotero.sqlite"
                continue
            for f in sorted(p.rglob("*")):
                hidden = any(part.startswith(".") for part in f.relative_to(p).parts)
                if not hidden and f.suffix.lower() in SUPPORTED and f.name.lower() != "readme.md" and f.is_file():
                    yield f
        else:
            yield p


def load_file(path: Path) -> tuple[list[Record], list[Problem]]:
    """Read one file of any supported format (unknown suffixes are read as plain text)."""
    name = str(path)
    try:
        if not path.is_file():
            return [], [Problem(name, 0, "not a regular file" if path.exists() else "no such file")]
        size = path.stat().st_size
        if size == 0:
            return [], [Problem(name, 0, "empty file")]

        if is_zotero_db(path):
            return load_zotero(path)
        if size > MAX_FILE_BYTES:
            return [], [Problem(name, 0, f"file is {size / 1e6:.0f} MB, over the {MAX_FILE_BYTES // 2**20} MiB limit: split it")]
        raw = path.read_bytes()
    except OSError as exc:
        return [], [Problem(name, 0, f"cannot read file: {exc.strerror or exc}")]
    text, problems = decode(raw, name)
    if text is None:
        return [], problems
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        records, more = _load_json(text, name)
    elif suffix in (".csv", ".tsv"):
        records, more = _load_csv(text, name, "\t" if suffix == ".tsv" else ",")
    elif suffix == ".ris" or (suffix not in (".bib", ".bibtex") and looks_like_ris(text)):
        records, more = _from_papers(*read_ris(text, name), name, "RIS")
    elif suffix in (".bib", ".bibtex") or looks_like_bibtex(text):
        records, more = _from_papers(*read_bibtex(text, name), name, "BibTeX")
    else:
        records, more = _load_paragraphs(text, name)
    problems += more
    if not records and not any(not p.warning for p in problems):
        blank = not text.strip()
        problems.append(Problem(name, 0, "no abstracts found" + (" (the file holds only whitespace)" if blank else "")))
    return records, problems


def _from_papers(found: list[Paper], problems: list[Problem], name: str, fmt: str) -> tuple[list[Record], list[Problem]]:
    """Records of the entries that hold an abstract; the others reported by key and line."""
    records: list[Record] = []
    for paper in found:
        rec, more = _paper_record(paper, name, fmt)
        problems.extend(more)
        if rec is not None:
            records.append(rec)
    problems.sort(key=lambda p: p.line)
    return records, problems


def _paper_record(paper: Paper, name: str, fmt: str) -> tuple[Record | None, list[Problem]]:
    if paper.text is None:
        return None, [Problem(name, paper.line, f"{fmt} {paper.where()} has no abstract: not stored")]
    clean, problems = check_text(paper.text, name, paper.line)
    if clean is None:
        return None, [Problem(p.path, p.line, f"{fmt} {paper.where()}: {p.reason}", p.warning) for p in problems]
    title = CONTROL.sub(" ", paper.title)
    meta: dict[str, Any] = {}
    for key, value in paper.metadata.items():  # the raw BibTeX entry is kept whole, however long
        stored = value if key == "bibtex" else _meta_value(value)
        if stored is not None:
            meta[key] = stored
    return Record(text=clean, path=name, line=paper.line, title=title, external_id=paper.external_id, metadata=meta), problems








def _load_paragraphs(text: str, name: str) -> tuple[list[Record], list[Problem]]:
    """One abstract per paragraph; blank lines between. Lone header lines are skipped."""
    records: list[Record] = []
    problems: list[Problem] = []
    buf: list[str] = []
    size = start = last = 0

    def flush() -> None:
        nonlocal size
        if not buf and not size:
            return
        if size > MAX_CHARS:
            problems.append(Problem(name, start, f"abstract too long (over {MAX_CHARS:,} chars, lines {start}-{last}): "
                                                 "a full paper, or blank lines between abstracts missing?"))
        else:
            para = " ".join(s.strip() for s in buf)
            if para.strip().lower() not in HEADER_LINES:
                clean, found = check_text(para, name, start)
                problems.extend(found)
                if clean is not None:
                    records.append(Record(text=clean, path=name, line=start))
        buf.clear()
        size = 0

    for i, line in enumerate(split_lines(text), start=1):
        if line.strip():
            if not buf and not size:
                start = i
            size += len(line) + 1
            last = i
            if size <= MAX_CHARS:  # past the limit, only count: never hold a 50 MB paragraph
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


def _meta_key(key: Any) -> str:
    k = str(key).strip().lower()
    k = "authors" if k == "author" else k
    if not k or k[0] in "#$" or k.startswith("chroma:") or k in RESERVED_META:
        return f"field_{k}"  # Chroma rejects these keys, or they would overwrite ours
    return k


def _meta_value(value: Any) -> str | int | float | bool | None:
    """A value Chroma can store: big ints and NaN/inf as text, lists/objects as JSON, long text cut."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        out = ", ".join(value)
    elif isinstance(value, str):
        out = value
    else:
        try:
            out = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            return None
    out = CONTROL.sub(" ", out).strip()
    return (out[:MAX_META_CHARS] + "…" if len(out) > MAX_META_CHARS else out) or None


def _scalar(value: Any) -> str:
    return str(value).strip() if isinstance(value, str | int | float) and not isinstance(value, bool) else ""


def _to_record(row: dict[str, Any], name: str, line: int) -> tuple[Record | None, list[Problem]]:
    text_key, text = _pick(row, TEXT_KEYS)
    if text_key is None:
        found = ", ".join(map(str, row))[:200] or "none"
        return None, [Problem(name, line, f"no abstract field (looked for {', '.join(TEXT_KEYS)}; found {found})")]
    if text is None:
        return None, [Problem(name, line, f"empty abstract (field {text_key!r} has no value)")]
    if not isinstance(text, str):
        return None, [Problem(name, line, f"field {text_key!r} is {type(text).__name__}, not text")]
    clean, problems = check_text(text, name, line)
    if clean is None:
        return None, problems
    id_key, ext_id = _pick(row, ID_KEYS)
    title_key, title = _pick(row, TITLE_KEYS)
    meta: dict[str, Any] = {}
    for k, v in row.items():
        if k in (text_key, id_key, title_key) or v is None or v == "":
            continue
        meta[_meta_key(k)] = v
    meta = {k: value for k, v in clean_metadata(meta).items() if (value := _meta_value(v)) is not None}
    title_text = CONTROL.sub(" ", " ".join(_scalar(title).split()))
    return Record(text=clean, path=name, line=line, title=title_text, external_id=_scalar(ext_id), metadata=meta), problems


def _load_json(text: str, name: str) -> tuple[list[Record], list[Problem]]:
    records: list[Record] = []
    problems: list[Problem] = []

    def take(items: Iterator[tuple[int, Any | None, str | None]], top: bool) -> None:
        for line, row, reason in items:
            if reason is not None:
                problems.append(Problem(name, line, reason))
            elif not isinstance(row, dict):
                problems.append(Problem(name, line, f"expected a JSON object, got {type(row).__name__}"))
            elif (paper := papers.from_json(row, line)) is not None:
                rec, found = _paper_record(paper, name, "JSON")
                problems.extend(found)
                if rec is not None:
                    records.append(rec)
            elif top and _pick(row, TEXT_KEYS)[0] is None and (inner := list(wrapped_lists(row, text, line))):
                take(iter(inner), top=False)  # {"papers": [...]}
            else:
                rec, found = _to_record(row, name, line)
                problems.extend(found)
                if rec is not None:
                    records.append(rec)

    take(iter_json(text), top=True)
    return records, problems


def _load_csv(text: str, name: str, delimiter: str) -> tuple[list[Record], list[Problem]]:
    csv.field_size_limit(MAX_FILE_BYTES)
    first = text.split("\n", 1)[0]
    if delimiter not in first:  # a .csv saved with ';' or tabs (spreadsheet locales)
        delimiter = next((d for d in (";", "\t", "|") if d in first), delimiter)
    records: list[Record] = []
    problems: list[Problem] = []
    header: list[str] | None = None
    for line, row, reason in _csv_rows(text, delimiter):
        if reason is not None:
            problems.append(Problem(name, line, reason))
            continue
        if header is None:
            if not any(cell.strip() for cell in row):
                continue  # blank lines before the header
            header = [h.strip() for h in row]
            repeated = sorted({h for h in header if h and [x.lower() for x in header].count(h.lower()) > 1})
            if repeated:
                problems.append(Problem(name, line, f"duplicate column(s) {', '.join(repeated)}: the last one is used", warning=True))
            if not any(h.lower() in TEXT_KEYS for h in header):
                found = ", ".join(header)[:200] or "none"
                return [], [Problem(name, line, f"no abstract column in the header (looked for {', '.join(TEXT_KEYS)}; found {found})")]
            continue
        if not any(cell.strip() for cell in row):
            continue
        text_col = next(i for i, h in enumerate(header) if h.lower() in TEXT_KEYS)
        if len(row) > len(header):
            if text_col != len(header) - 1:
                problems.append(Problem(name, line, f"{len(row)} fields but the header has {len(header)}: quote fields that contain {delimiter!r}"))
                continue
            row = row[: text_col] + [delimiter.join(row[text_col:])]
            problems.append(Problem(name, line, f"unquoted {delimiter!r} in the abstract: joined the extra fields back into it", warning=True))
        values: dict[str, Any] = {h: (row[i] if i < len(row) else None) for i, h in enumerate(header)}
        if values.get(header[text_col]) is None:
            problems.append(Problem(name, line, f"row has {len(row)} fields, the header {len(header)}: no abstract value"))
            continue
        rec, found = _to_record(values, name, line)
        problems.extend(found)
        if rec is not None:
            records.append(rec)
    return records, problems


def _csv_rows(text: str, delimiter: str) -> Iterator[tuple[int, list[str], str | None]]:
    """(start line, fields, None) per row, or (line, [], reason) for a broken one. A quote never
    closed would swallow the rest of the file into one field: that row is reported and reading
    resumes on the line after it starts."""
    lines = split_lines(text)
    offset = 0  # lines of ``text`` consumed before the current parse
    for _ in range(MAX_CSV_RESTARTS):
        if offset >= len(lines):
            return
        chunk = "\n".join(lines[offset:]) + "\n"
        reader = csv.reader(io.StringIO(chunk, newline=""), delimiter=delimiter)
        prev = 0
        restart = None
        while True:
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                yield offset + prev + 1, [], f"CSV error: {exc}"
                if reader.line_num <= prev:
                    restart = prev + 1
                    break
                prev = reader.line_num
                continue
            start, end = offset + prev + 1, offset + reader.line_num
            prev = reader.line_num
            at_eof = end >= len(lines)
            if at_eof and end > start and chunk.count('"') % 2 == 1:
                yield start, [], f"unclosed quote: this row runs to the end of the file (lines {start}-{end})"
                restart = start - offset  # resume on the next line
                break
            yield start, row, None
        if restart is None:
            return
        offset += restart
    yield offset + 1, [], f"too many broken rows: stopped reading at line {offset + 1}"
