"""Paper records in JSON from the usual sources, recognised by their fields (whatever the file is
called): CSL-JSON (ingest/csljson.py), OpenAlex works (ingest/openalex.py), the arXiv metadata
snapshot and Semantic Scholar. A row of none of these is read by the generic JSON loader.

- arXiv snapshot (Kaggle ``arxiv-metadata-oai-snapshot.json``, one JSON object a line): ``id``,
  ``title``, ``authors`` ("A, B and C"), ``authors_parsed`` ([[last, first, suffix]]),
  ``abstract``, ``categories`` ("cs.CL cs.LG"), ``journal-ref``, ``doi``, ``versions``
  ([{"version": "v1", "created": "Mon, 12 Jun 2017 ..."}]), ``update_date``.
- Semantic Scholar: the Graph API's paper (``paperId``, ``externalIds`` {DOI, ArXiv, ...},
  ``title``, ``abstract``, ``year``, ``venue``, ``authors`` [{name}], ``url``) and the older Open
  Corpus records (``id``, ``paperAbstract``, ``s2Url``, ``authors`` [{name, ids}], ``doi``).
"""

from __future__ import annotations

from typing import Any

from ingest import csljson, openalex
from ingest import metadata as md
from ingest.metadata import Paper


def is_arxiv(row: dict[str, Any]) -> bool:
    return "authors_parsed" in row or ("categories" in row and ("versions" in row or "update_date" in row))


def is_semantic_scholar(row: dict[str, Any]) -> bool:
    return any(k in row for k in ("paperId", "externalIds", "paperAbstract", "s2Url"))


def from_json(row: dict[str, Any], line: int) -> Paper | None:
    """The Paper a row of a known source describes, or None (not one of them)."""
    if openalex.is_openalex(row):
        return openalex.paper(row, line)
    if is_arxiv(row):
        return _arxiv(row, line)
    if is_semantic_scholar(row):
        return _semantic_scholar(row, line)
    if csljson.is_csl(row):
        return csljson.paper(row, line)
    return None


def _text(value: Any) -> str | None:
    return " ".join(value.split()) if isinstance(value, str) and value.strip() else None


def _arxiv(row: dict[str, Any], line: int) -> Paper:
    parsed = row.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        authors: Any = [", ".join(p for p in (str(x[0]), " ".join(map(str, x[1:])).strip()) if p)
                        for x in parsed if isinstance(x, list) and x]
    else:
        authors = [a.strip() for a in str(row.get("authors") or "").replace(" and ", ", ").split(",") if a.strip()]
    versions = row.get("versions") if isinstance(row.get("versions"), list) else []
    created = versions[0].get("created") if versions and isinstance(versions[0], dict) else None
    categories = str(row.get("categories") or "").split()
    ident = md.arxiv_id(row.get("id"))
    meta: dict[str, Any] = {
        "authors": authors, "year": created or row.get("update_date") or "",
        "venue": str(row.get("journal-ref") or (categories[0] if categories else "")),
        "doi": str(row.get("doi") or ""), "arxiv_id": ident,
        "url": f"https://arxiv.org/abs/{ident}" if ident else "", "keywords": categories, "entry_type": "misc",
    }
    if row.get("journal-ref"):
        meta["entry_type"] = "article"
    meta = md.clean_metadata(meta)
    return Paper(line=line, key=str(row.get("id") or ""), text=_text(row.get("abstract")),
                 title=_text(row.get("title")) or "", metadata=meta, external_id=ident or str(row.get("id") or ""))


def _semantic_scholar(row: dict[str, Any], line: int) -> Paper:
    ext = row.get("externalIds") if isinstance(row.get("externalIds"), dict) else {}
    ext = {str(k).lower(): v for k, v in ext.items()}
    authors = [str(a.get("name") or "") for a in row.get("authors") or [] if isinstance(a, dict)]
    journal = row.get("journal") if isinstance(row.get("journal"), dict) else {}
    venue = row.get("venue") or journal.get("name") or row.get("journalName") or ""
    meta: dict[str, Any] = {
        "authors": authors, "year": row.get("year") or row.get("publicationDate") or "",
        "venue": str(venue), "doi": str(ext.get("doi") or row.get("doi") or ""),
        "arxiv_id": md.arxiv_id(ext.get("arxiv")), "url": str(row.get("url") or row.get("s2Url") or ""),
        "keywords": [str(f) for f in row.get("fieldsOfStudy") or [] if isinstance(f, str)],
        "entry_type": "article" if "JournalArticle" in (row.get("publicationTypes") or []) else "misc",
    }
    meta = md.clean_metadata(meta)
    key = str(row.get("paperId") or row.get("id") or ext.get("corpusid") or "")
    text = _text(row.get("abstract")) or _text(row.get("paperAbstract"))
    return Paper(line=line, key=key, text=text, title=_text(row.get("title")) or "", metadata=meta,
                 external_id=str(meta.get("doi") or meta.get("arxiv_id") or key))
