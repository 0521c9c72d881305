"""Restrict search and answers to part of the library: a year range, an author, a venue, a file,
a Zotero collection.

    Filters.parse(year="2019-2021", author="hinton", venue="neurips", file="zotero.bib",
                  collection="Thesis/Chapter 2")
    assistant.search("contrastive learning", filters={"year": ">=2020"})

Values are read as people write them:

- ``year``: ``2020``, ``2019-2021`` (also an en dash or ``..``), ``2019-`` / ``-2021`` (open ends),
  ``>=2020``, ``>2019``, ``<=2021``, ``<2022``. A doc matches when its stored ``year`` (an int, or
  the first four-digit year of a text such as ``"2017-06-12"``) is in the range; a doc without a
  year never matches a year filter.
- ``author``, ``venue``, ``file``: a case- and accent-insensitive substring of the doc's
  ``authors`` (any spelling: "Vaswani, Ashish; Shazeer, Noam" or "Ashish Vaswani, Noam Shazeer"),
  of its ``venue`` (journal, booktitle or arXiv category; ``journal``, ``booktitle``,
  ``container-title`` and ``categories`` of records loaded before ``venue`` existed count too),
  or of one of the paths it was ingested from.
- ``collection``: a case- and accent-insensitive substring of one of the doc's collections (Zotero's
  collection paths from the top, "Thesis/Chapter 2", stored as ``collections`` by
  ``ingest.zotero``; "thesis" admits the works of "Thesis" and of its subcollections). A doc of no
  collection never matches.

A value that is not one of these raises :class:`FilterError` whose message says what is accepted.
:class:`FilterTable` resolves a filter to the doc ids it admits; ``assistant.search.retrieval`` restricts
every signal (vectors and BM25) to them before ranking, so a filtered question ranks within the
filtered set.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

# Sanity bound: years a reference can carry (a 4-digit year; "0" or "20201" is a typo).
YEAR_MIN, YEAR_MAX = 1000, 2999
VENUE_KEYS = ("venue", "journal", "booktitle", "container-title", "categories")  # first present wins
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_RANGE = re.compile(r"^(\d{4})?\s*(?:-|–|—|\.\.)\s*(\d{4})?$")
_COMPARE = re.compile(r"^(>=|<=|>|<|=)\s*(\d{4})$")
YEAR_HELP = "a year (2020), a range (2019-2021, 2019-, -2021) or a bound (>=2020, <2022)"


class FilterError(ValueError):
    """A filter value that cannot be read; the message says what is accepted."""


def fold(text: Any) -> str:
    """Lower case without accents ("Schölkopf" -> "scholkopf"), spaces collapsed."""
    decomposed = unicodedata.normalize("NFKD", str(text))
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split())


def year_of(value: Any) -> int | None:
    """The year of a stored value: an int, or the first 4-digit year in a text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value) if YEAR_MIN <= value <= YEAR_MAX else None
    m = _YEAR.search(str(value or ""))
    return int(m.group(1)) if m and YEAR_MIN <= int(m.group(1)) <= YEAR_MAX else None


def parse_year(text: str) -> tuple[int | None, int | None]:
    """``"2019-2021"`` -> (2019, 2021); ``">=2020"`` -> (2020, None); raises FilterError."""
    raw = " ".join(str(text).split())
    lo: int | None
    hi: int | None
    if m := _COMPARE.match(raw):
        op, y = m.group(1), int(m.group(2))
        lo, hi = {">=": (y, None), ">": (y + 1, None), "<=": (None, y), "<": (None, y - 1), "=": (y, y)}[op]
    elif raw.isdigit() and len(raw) == 4:
        lo = hi = int(raw)
    elif (m := _RANGE.match(raw)) and (m.group(1) or m.group(2)):
        lo, hi = (int(g) if g else None for g in m.groups())
    else:
        raise FilterError(f"year {text!r} is not {YEAR_HELP}")
    for y in (lo, hi):
        if y is not None and not YEAR_MIN <= y <= YEAR_MAX:
            raise FilterError(f"year {y} in {text!r} is outside {YEAR_MIN}-{YEAR_MAX}")
    if lo is not None and hi is not None and lo > hi:
        raise FilterError(f"year range {text!r} is empty: {lo} is after {hi} (write the earlier year first)")
    return lo, hi


def _text(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise FilterError(f"{name} filter must be text, not {type(value).__name__}")
    folded = fold(value)
    return folded or None


@dataclass(frozen=True)
class Filters:
    """What a search or answer is restricted to (every given part must match; None: any)."""

    year_min: int | None = None
    year_max: int | None = None
    author: str | None = None  # folded (see ``fold``)
    venue: str | None = None
    file: str | None = None
    collection: str | None = None

    @classmethod
    def parse(cls, year: str | int | None = None, author: str | None = None, venue: str | None = None,
              file: str | None = None, collection: str | None = None) -> Filters:
        """Filters from the strings a user types; raises FilterError with what is accepted."""
        lo, hi = (None, None) if year is None or str(year).strip() == "" else parse_year(str(year))
        return cls(lo, hi, _text("author", author), _text("venue", venue), _text("file", file),
                   _text("collection", collection))

    @classmethod
    def of(cls, value: Filters | Mapping[str, Any] | None) -> Filters:
        """A Filters from a Filters, a dict (``year``/``author``/``venue``/``file``/``collection``, or the
        fields), or None."""
        if value is None:
            return cls()
        if isinstance(value, Filters):
            return value
        if not isinstance(value, Mapping):
            raise FilterError(f"filters must be a Filters or a dict, not {type(value).__name__}")
        known = {"year", "author", "venue", "file", "collection"}
        own = {f.name for f in fields(cls)}
        unknown = sorted(set(value) - known - own)
        if unknown:
            raise FilterError(f"unknown filter {', '.join(map(repr, unknown))}; use year, author, venue, file or collection")
        if set(value) & {"year_min", "year_max"}:
            lo, hi = value.get("year_min"), value.get("year_max")
            got = cls.parse(None, value.get("author"), value.get("venue"), value.get("file"), value.get("collection"))
            if "year" in value:
                raise FilterError("give either year or year_min/year_max, not both")
            return cls(_year_bound(lo), _year_bound(hi), got.author, got.venue, got.file, got.collection)
        return cls.parse(value.get("year"), value.get("author"), value.get("venue"), value.get("file"),
                         value.get("collection"))

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) is not None for f in fields(self))

    @property
    def year_only(self) -> bool:
        """Whether only the year is filtered (Chroma can answer it from the stored ints)."""
        return all(getattr(self, f.name) is None for f in fields(self) if not f.name.startswith("year_"))

    def describe(self) -> str:
        """``years 2019-2021, author "hinton"`` (empty when nothing is filtered)."""
        parts = []
        if self.year_min is not None or self.year_max is not None:
            lo, hi = self.year_min, self.year_max
            parts.append(f"year {lo}" if lo == hi else f"years {lo or ''}-{hi or ''}")
        parts += [f'{name} "{value}"' for name, value in (("author", self.author), ("venue", self.venue),
                                                            ("file", self.file),
                                                            ("collection", self.collection)) if value]
        return ", ".join(parts)

    def matches(self, meta: Mapping[str, Any], files: Iterable[str] = ()) -> bool:
        """Whether a doc with this metadata, ingested from ``files``, passes."""
        return FilterTable.row(meta, files).passes(self)


def _year_bound(value: Any) -> int | None:
    if value is None:
        return None
    y = year_of(value) if isinstance(value, int) and not isinstance(value, bool) else None
    if y is None:
        raise FilterError(f"year bound {value!r} is not a year ({YEAR_MIN}-{YEAR_MAX})")
    return y


@dataclass(frozen=True)
class _Row:
    year: int | None
    authors: str
    venue: str
    files: str  # folded paths, one per line
    collections: str = ""  # folded collection paths, one per line

    def passes(self, f: Filters) -> bool:
        if f.year_min is not None or f.year_max is not None:
            if self.year is None or (f.year_min is not None and self.year < f.year_min) \
                    or (f.year_max is not None and self.year > f.year_max):
                return False
        return ((f.author is None or f.author in self.authors) and (f.venue is None or f.venue in self.venue)
                and (f.file is None or f.file in self.files)
                and (f.collection is None or f.collection in self.collections))


class FilterTable:
    """The filterable fields of every stored doc, folded once; ``allowed`` is a scan of them
    (11-102 ms at 22k docs, under load; evals/experiments/bench_filters.py)."""

    def __init__(self, rows: dict[str, _Row], chunks: dict[str, int] | None = None) -> None:
        self.rows = rows
        self.chunks = chunks or {}  # doc id -> its number of chunks (ingest records ``n_chunks``)
        self._memo: dict[Filters, frozenset[str]] = {}

    @staticmethod
    def row(meta: Mapping[str, Any], files: Iterable[str]) -> _Row:
        venue = next((meta[k] for k in VENUE_KEYS if meta.get(k) not in (None, "")), "")
        collections = (fold(c) for c in str(meta.get("collections") or "").split(";"))
        return _Row(year_of(meta.get("year")), fold(meta.get("authors") or meta.get("author") or ""), fold(venue),
                    "\n".join(fold(f) for f in files), "\n".join(c for c in collections if c))

    @classmethod
    def build(cls, docs: Iterable[tuple[str, Mapping[str, Any], Iterable[str]]]) -> FilterTable:
        """From (doc id, metadata, files) of every stored doc."""
        rows, chunks = {}, {}
        for doc_id, meta, files in docs:
            rows[doc_id] = cls.row(meta, files)
            if isinstance(meta.get("n_chunks"), int):
                chunks[doc_id] = int(meta["n_chunks"])
        return cls(rows, chunks)

    def chunk_ids(self, allow: frozenset[str]) -> list[str] | None:
        """The chunk ids of ``allow``'s docs ("<doc id>-<index>"), None if a count is unknown."""
        if any(d not in self.chunks for d in allow):
            return None
        return [f"{d}-{i}" for d in sorted(allow) for i in range(self.chunks[d])]

    def allowed(self, f: Filters) -> frozenset[str]:
        """The doc ids ``f`` admits (the last few filters' answers are kept)."""
        got = self._memo.get(f)
        if got is None:
            got = frozenset(d for d, r in self.rows.items() if r.passes(f))
            if len(self._memo) >= 16:  # a sanity bound: a page's visitors use a few filters at a time
                self._memo.pop(next(iter(self._memo)))
            self._memo[f] = got
        return got
