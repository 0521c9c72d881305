"""Bibliographic metadata in one shape, whatever the source format (the contract in
docs of the store: title, authors, year, venue, doi, arxiv_id, url, keywords, entry_type,
bibtex), and the reference-style label built from it.

Every format reader (ingest/bibtex.py, ris.py, csljson.py, openalex.py, papers.py) fills a
``Paper``; ``clean_metadata`` normalises the contract keys of any record (a plain JSONL row's
``authors`` list or ``year`` string too), so the filters and exports read one spelling:

- ``authors``: "; "-joined names as written ("Vaswani, Ashish" or "Ashish Vaswani");
- ``year``: an int; ``doi``: lower case, no ``https://doi.org/`` or ``doi:`` prefix;
- ``arxiv_id``: no version suffix ("1706.03762", "hep-th/9901001"); ``keywords``: "; "-joined.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any

from assistant.export import authors_of

CONTRACT_KEYS = ("title", "authors", "year", "venue", "doi", "arxiv_id", "url", "keywords", "entry_type", "bibtex")
# Keys a filter or an export reads; a metadata-only edit of any of them updates the stored doc.
TRACKED_KEYS = tuple(k for k in CONTRACT_KEYS if k != "title") + ("citekey",)

_DOI = re.compile(r"\b(10\.\d{4,9}/\S+)", re.I)
_ARXIV_NEW = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
_ARXIV_OLD = re.compile(r"\b([a-z][a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?\b")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.I)
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d|21\d\d)(?!\d)")
# Markup in text fields: the rich text CSL-JSON allows (<i>, <b>, <sup>, <sub>, <span class="nocase">)
# and the JATS XML Crossref puts in abstracts (<jats:p>, <jats:italic>, <jats:title>Abstract</jats:title>),
# both as Zotero exports them. Only these tag names, so "x <b and c> d" in prose is left alone.
_JATS_HEADING = re.compile(r"<jats:title>[^<]*</jats:title>", re.I)
_SUPERSCRIPT = re.compile(r"<(?:jats:)?sup>", re.I)
_ATTRS = r"(?:\s[^<>]*)?"  # attributes: only on jats: and span tags (CSL's <span class="nocase">)
_BLOCK_TAG = re.compile(rf"</?(?:jats:(?:p|sec|list|list-item|title){_ATTRS}|p|div|br ?/?)>", re.I)
_INLINE_TAG = re.compile(rf"</?(?:(?:jats:[a-z-]+|span){_ATTRS}|i|b|em|strong|sc|sub|sup|u)>", re.I)
MAX_TITLE_IN_LABEL = 80  # characters of a title shown in a label; longer ones end in "…" (sanity bound)


@dataclass
class Paper:
    """One entry of a reference export, before the text checks (loaders.check_text)."""

    line: int
    key: str  # what the user calls the entry: a BibTeX key, a RIS ID, a DOI... ("" if none)
    text: str | None  # the abstract (None: the entry has none)
    title: str = ""
    external_id: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    def where(self) -> str:
        return f"entry {self.key!r}" if self.key else "entry"


def doi(value: Any) -> str:
    """``10.x/y`` in lower case from a DOI, a doi.org URL or ``doi:`` text ("" if none)."""
    m = _DOI.search(str(value or ""))
    return m.group(1).rstrip(".,;)").lower() if m else ""


def arxiv_id(value: Any) -> str:
    """The arXiv identifier without version from an id, an abs/pdf URL, ``arXiv:`` text or an
    arXiv DOI (10.48550/arXiv.X); "" when there is none."""
    text = str(value or "").strip()
    if m := _ARXIV_DOI.match(text):
        text = m.group(1)
    m = _ARXIV_NEW.search(text) or _ARXIV_OLD.search(text)
    return m.group(1) if m else ""


def year(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 1500 <= value <= 2199 else None
    m = _YEAR.search(str(value or ""))
    return int(m.group(1)) if m else None


def joined(values: Any) -> str:
    """A list of names / keywords as "; "-joined text (a string is kept as written)."""
    if isinstance(values, str):
        return " ".join(values.split())
    if isinstance(values, list | tuple):
        return "; ".join(n for n in (" ".join(_person(v).split()) for v in values) if n)
    return ""


def _person(value: Any) -> str:
    """A name from a string or an object ({"name"}, {"family", "given"}, {"display_name"})."""
    if not isinstance(value, dict):
        return str(value)
    if value.get("family"):
        return f"{value['family']}, {value['given']}" if value.get("given") else str(value["family"])
    return str(value.get("name") or value.get("display_name") or value.get("literal") or "")


def plain_text(text: str) -> str:
    """``text`` without CSL rich-text or JATS tags (a paragraph break becomes a space, a superscript
    a ^: 10<sup>6</sup> -> 10^6), its HTML entities decoded; text without such tags as it was."""
    if "<" not in text:
        return text
    out = _JATS_HEADING.sub(" ", text)
    out = _SUPERSCRIPT.sub("^", out)
    out = _INLINE_TAG.sub("", _BLOCK_TAG.sub(" ", out))
    return " ".join(html.unescape(out).split()) if out != text else text


def family_name(name: str) -> str:
    """"Vaswani, Ashish" -> Vaswani; "Ashish Vaswani" -> Vaswani; "{OpenAI}" -> OpenAI."""
    name = name.strip().strip("{}").strip()
    if "," in name:
        return name.split(",", 1)[0].strip()
    parts = name.split()
    if len(parts) > 1 and re.fullmatch(r"(?:[A-Z]\.-?)+", parts[-1]):
        return parts[0]  # "Smith J.": family name first, initials after
    return parts[-1] if parts else ""


def reference_label(meta: dict[str, Any], title: str) -> str:
    """"Vaswani et al. 2017 — Attention Is All You Need" from what there is ("" without a title)."""
    title = " ".join(title.split())
    if not title:
        return ""
    if len(title) > MAX_TITLE_IN_LABEL:
        title = title[:MAX_TITLE_IN_LABEL].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
    # authors_of reads every way a row writes them: "; "-joined, " and "-joined ("Grace Hopper and
    # Edsger Dijkstra" was one name, labelled "Dijkstra"), or comma-joined full names
    names = [family_name(a) for a in authors_of(meta)]
    names = [n for n in names if n]
    who = ""
    if len(names) == 1:
        who = names[0]
    elif len(names) == 2:
        who = f"{names[0]} and {names[1]}"
    elif names:
        who = f"{names[0]} et al."
    head = " ".join(x for x in (who, str(meta.get("year") or "")) if x)
    return f"{head} — {title}" if head else title


def clean_metadata(meta: dict[str, Any]) -> dict[str, Any]:
    """The contract keys of ``meta`` in their one spelling (others untouched); empty ones dropped."""
    out = dict(meta)
    for key in ("authors", "keywords"):
        if key in out:
            out[key] = joined(out[key]) if isinstance(out[key], list | tuple | str) else out[key]
    if "year" in out:
        y = year(out["year"])
        if y is None:
            out.pop("year")
        else:
            out["year"] = y
    if "doi" in out:
        out["doi"] = doi(out["doi"])
    if "arxiv_id" in out:
        out["arxiv_id"] = arxiv_id(out["arxiv_id"])
    if not out.get("arxiv_id") and (from_doi := _ARXIV_DOI.match(str(out.get("doi") or ""))):
        out["arxiv_id"] = arxiv_id(from_doi.group(1))
    return {k: v for k, v in out.items() if not (k in CONTRACT_KEYS and v in ("", None))}


def identifiers(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """The identifiers that name a work: (kind, value) for its DOI and arXiv id."""
    return [(k, str(meta[k])) for k in ("doi", "arxiv_id") if meta.get(k)]
