"""RIS files (publishers, Scopus, Web of Science exports, EndNote, Zotero) -> Papers, with rispy.

rispy reads whole files but drops a record that never reaches its ``ER  -`` line and gives no
line numbers, so the file is cut into records here (``TY  -`` ... ``ER  -``) and each is read by
rispy on its own: a broken record is reported with its line and costs only itself.
"""

from __future__ import annotations

import re
from typing import Any

import rispy

from ingest import metadata as md
from ingest.decode import split_lines
from ingest.metadata import Paper
from ingest.records import Problem

_TAG = re.compile(r"^([A-Z][A-Z0-9])  -(?: |$)")
TITLE_KEYS = ("title", "primary_title", "translated_title", "short_title")
VENUE_KEYS = ("secondary_title", "journal_name", "alternate_title3", "alternate_title1", "alternate_title2",
              "tertiary_title", "publisher")
ENTRY_TYPES = {"JOUR": "article", "EJOUR": "article", "CONF": "inproceedings", "CPAPER": "inproceedings",
               "CHAP": "incollection", "BOOK": "book", "THES": "phdthesis", "RPRT": "techreport", "UNPB": "unpublished"}


def looks_like_ris(text: str) -> bool:
    """A ``TY  -`` line among the first lines that are not blank."""
    for ln in [x for x in text[:2048].splitlines() if x.strip()][:5]:
        if ln.lstrip("\ufeff").startswith("TY  -"):
            return True
    return False


def _segments(lines: list[str], name: str) -> tuple[list[tuple[int, list[str]]], list[Problem]]:
    """(start line, lines) per closed record; a Problem per record never closed."""
    out: list[tuple[int, list[str]]] = []
    problems: list[Problem] = []
    start, buf = 0, []
    for i, raw in enumerate(lines, start=1):
        line = raw.lstrip("\ufeff").rstrip()
        if line.startswith("TY  -"):
            if start:
                problems.append(Problem(name, start, f"malformed RIS record: no 'ER  -' line before the next record (line {i})"))
            start, buf = i, [line]
        elif start:
            buf.append(line)
            if line.startswith("ER  -") or line == "ER":
                out.append((start, buf))
                start, buf = 0, []
        elif _TAG.match(line):
            problems.append(Problem(name, i, f"RIS tag outside a record (no 'TY  -' line before it): {line[:40]!r}"))
    if start:
        problems.append(Problem(name, start, "malformed RIS record: the file ends before its 'ER  -' line"))
    return out, problems


def read_ris(text: str, name: str) -> tuple[list[Paper], list[Problem]]:
    segments, problems = _segments(split_lines(text), name)
    papers: list[Paper] = []
    for start, seg in segments:
        try:
            (record,) = rispy.loads("\n".join(seg))
        except Exception as exc:  # rispy raises plain ValueErrors/KeyErrors on odd records
            problems.append(Problem(name, start, f"malformed RIS record: {type(exc).__name__}: {exc}"[:200]))
            continue
        papers.append(_paper(record, start))
    return papers, problems


def _first(record: dict[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = record.get(key)
        if isinstance(value, list):
            value = value[0] if value else ""
        if value and str(value).strip():
            return " ".join(str(value).split())
    return ""


def _paper(record: dict[str, Any], line: int) -> Paper:
    abstract = _first(record, ("abstract", "notes_abstract")) or None
    urls = record.get("urls") or []
    doi = md.doi(record.get("doi") or next((u for u in urls if "doi.org/" in u), ""))
    arxiv = next((a for u in urls if "arxiv.org" in u and (a := md.arxiv_id(u))), "")
    authors = (record.get("authors") or []) + (record.get("first_authors") or [])
    meta: dict[str, Any] = {
        "authors": authors, "year": record.get("year") or record.get("publication_year") or record.get("date") or "",
        # BT (the book a chapter is in; RIS's older tag, RefWorks and others write it) is not one rispy knows
        "venue": _first(record, VENUE_KEYS) or _first(record.get("unknown_tag") or {}, ("BT",)), "doi": doi, "arxiv_id": arxiv,
        "url": next((u for u in urls if "doi.org/" not in u), urls[0] if urls else ""),
        "keywords": record.get("keywords") or [],
        "entry_type": ENTRY_TYPES.get(str(record.get("type_of_reference", "")).upper(), "misc"),
    }
    meta = md.clean_metadata(meta)
    key = str(record.get("id") or doi or "")
    return Paper(line=line, key=key, text=abstract, title=_first(record, TITLE_KEYS), metadata=meta,
                 external_id=str(meta.get("doi") or meta.get("arxiv_id") or ""))
