"""CSL-JSON (Zotero's "CSL JSON" export, Better BibTeX, Mendeley, citeproc) -> Papers.

One item: ``{"id", "type", "title", "author": [{"family", "given"} | {"literal"}], "issued":
{"date-parts": [[2017, 6, 12]]}, "container-title", "DOI", "URL", "abstract", "keyword", "note",
"citation-key"}``. Zotero writes an arXiv preprint as ``"publisher": "arXiv"`` with the id in
``number`` ("arXiv:1706.03762") or ``note``.
"""

from __future__ import annotations

from typing import Any

from ingest import metadata as md
from ingest.metadata import Paper

_MARKERS = ("issued", "container-title", "citation-key", "DOI", "URL")
ENTRY_TYPES = {"article-journal": "article", "paper-conference": "inproceedings", "chapter": "incollection",
               "book": "book", "thesis": "phdthesis", "report": "techreport", "article": "misc", "manuscript": "unpublished"}


def is_csl(row: dict[str, Any]) -> bool:
    authors = row.get("author")
    people = isinstance(authors, list) and bool(authors) and all(
        isinstance(a, dict) and ({"family", "given", "literal"} & set(a)) for a in authors)
    return people or any(k in row for k in _MARKERS)


def _name(person: dict[str, Any]) -> str:
    if person.get("literal"):
        return str(person["literal"])
    family = " ".join(str(person.get(k) or "") for k in ("non-dropping-particle", "family")).strip()
    given = str(person.get("given") or "").strip()
    return f"{family}, {given}" if family and given else family or given


def _year(issued: Any) -> Any:
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return parts[0][0]
        return issued.get("raw") or issued.get("literal")
    return issued


def paper(row: dict[str, Any], line: int) -> Paper:
    text = row.get("abstract")
    keywords = row.get("keyword")
    if isinstance(keywords, str):
        keywords = [k.strip() for k in keywords.replace(";", ",").split(",") if k.strip()]
    arxiv = ""
    if "arxiv" in str(row.get("publisher", "")).lower() or "arxiv" in str(row.get("container-title", "")).lower():
        arxiv = md.arxiv_id(row.get("number")) or md.arxiv_id(row.get("URL"))
    arxiv = arxiv or (md.arxiv_id(row.get("note")) if "arxiv" in str(row.get("note", "")).lower() else "")
    meta: dict[str, Any] = {
        "authors": [_name(a) for a in row.get("author") or [] if isinstance(a, dict)],
        "year": _year(row.get("issued")), "venue": str(row.get("container-title") or row.get("publisher") or ""),
        "doi": str(row.get("DOI") or ""), "arxiv_id": arxiv, "url": str(row.get("URL") or ""),
        "keywords": keywords or [], "entry_type": ENTRY_TYPES.get(str(row.get("type", "")), "misc"),
    }
    if row.get("citation-key"):
        meta["citekey"] = str(row["citation-key"])
    meta = md.clean_metadata(meta)
    key = str(row.get("citation-key") or row.get("id") or meta.get("doi") or "")
    return Paper(line=line, key=key, text=md.plain_text(text) if isinstance(text, str) and text.strip() else None,
                 title=" ".join(md.plain_text(str(row.get("title") or "")).split()), metadata=meta,
                 external_id=str(meta.get("doi") or meta.get("arxiv_id") or ""))
