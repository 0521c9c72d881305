"""OpenAlex works (one work, a ``{"meta", "results": [...]}`` page, or JSON Lines of works) -> Papers.

OpenAlex gives no abstract text: ``abstract_inverted_index`` maps each word to its positions
(``{"Attention": [0], "is": [1, 5], ...}``); the text is the words put back in position order.
Works whose publisher withholds the abstract have ``null`` there and are reported, not stored.
"""

from __future__ import annotations

from typing import Any

from ingest import metadata as md
from ingest.metadata import Paper

ENTRY_TYPES = {"article": "article", "proceedings-article": "inproceedings", "book-chapter": "incollection",
               "book": "book", "dissertation": "phdthesis", "report": "techreport", "preprint": "misc"}


def is_openalex(row: dict[str, Any]) -> bool:
    return "abstract_inverted_index" in row or str(row.get("id", "")).startswith("https://openalex.org/W")


def inverted_to_text(index: Any) -> str | None:
    """The abstract from an inverted index (None when there is none or it is not one)."""
    if not isinstance(index, dict) or not index:
        return None
    placed: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(positions, list):
            return None
        for p in positions:
            if isinstance(p, int) and not isinstance(p, bool) and 0 <= p < 1_000_000:
                placed[p] = str(word)
    return " ".join(placed[p] for p in sorted(placed)) or None


def _dig(row: Any, *path: str) -> Any:
    for key in path:
        row = row.get(key) if isinstance(row, dict) else None
    return row


def _arxiv(row: dict[str, Any]) -> str:
    ids = row.get("ids") if isinstance(row.get("ids"), dict) else {}
    if found := md.arxiv_id(ids.get("arxiv")):
        return found
    for loc in row.get("locations") or []:
        url = str(_dig(loc, "landing_page_url") or "")
        if "arxiv.org" in url and (found := md.arxiv_id(url)):
            return found
    return md.arxiv_id(row.get("doi")) if "arxiv" in str(row.get("doi", "")).lower() else ""


def paper(row: dict[str, Any], line: int) -> Paper:
    authors = [str(_dig(a, "author", "display_name") or a.get("raw_author_name") or "")
               for a in row.get("authorships") or [] if isinstance(a, dict)]
    keywords = [str(k.get("display_name")) for k in row.get("keywords") or [] if isinstance(k, dict) and k.get("display_name")]
    venue = _dig(row, "primary_location", "source", "display_name") or _dig(row, "host_venue", "display_name") or ""
    meta: dict[str, Any] = {
        "authors": authors, "year": row.get("publication_year") or row.get("publication_date") or "",
        "venue": str(venue), "doi": str(row.get("doi") or ""), "arxiv_id": _arxiv(row),
        "url": str(_dig(row, "primary_location", "landing_page_url") or row.get("doi") or row.get("id") or ""),
        "keywords": keywords, "entry_type": ENTRY_TYPES.get(str(row.get("type", "")), "misc"),
    }
    meta = md.clean_metadata(meta)
    key = str(row.get("id") or "").rsplit("/", 1)[-1]
    title = " ".join(str(row.get("title") or row.get("display_name") or "").split())
    return Paper(line=line, key=key, text=inverted_to_text(row.get("abstract_inverted_index")), title=title,
                 metadata=meta, external_id=str(meta.get("doi") or meta.get("arxiv_id") or key))
