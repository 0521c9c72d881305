"""Zotero's own database (``zotero.sqlite``), read directly and read-only.

A running Zotero holds the database open (and locked), and a reader must never disturb it: the
file is copied first (with its ``-wal`` file, when Zotero left one) and the copy is opened with
``mode=ro&immutable=1``, so nothing is ever written next to the user's library and no lock is
taken on it. A copy caught in the middle of a Zotero write may be inconsistent: SQLite then
reports an error (or the integrity check fails), the read is reported as a Problem and the watcher
retries it; nothing is applied from it.

Zotero's schema (Zotero 5 and later, ``resource/schema/userdata.sql`` and ``system.sql``): an
item is a row of ``items`` (``itemTypes`` gives its type); its fields are ``itemData`` rows
pointing at ``fields`` (``fieldName``: ``title``, ``abstractNote``, ``date``, ``DOI``,
``publicationTitle``...) and ``itemDataValues``; its authors are ``itemCreators`` rows (in
``orderIndex`` order) pointing at ``creators`` (``firstName``, ``lastName``, ``fieldMode`` 1 for
a single-field name); ``collectionItems`` places it in ``collections``; ``deletedItems`` holds the
items in the trash. Notes, attachments and annotations are not works and are skipped.

A record's "line" is the item's ``itemID`` (sources read ``.../zotero.sqlite:42``); its collections
are kept as metadata (``collections``: "Reading group; Thesis/Chapter 2"), which the ``collection``
filter reads (``assistant.filters``: ``--collection thesis``).
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from ingest import metadata as md
from ingest.checks import check_text
from ingest.metadata import Paper
from ingest.records import Problem, Record

NOT_WORKS = ("note", "attachment", "annotation")
# Zotero item types -> the BibTeX-style entry types the labels and exports use.
ENTRY_TYPES = {"journalArticle": "article", "conferencePaper": "inproceedings", "bookSection": "incollection",
               "book": "book", "thesis": "phdthesis", "report": "techreport", "preprint": "misc",
               "manuscript": "unpublished"}
VENUE_FIELDS = ("publicationTitle", "proceedingsTitle", "bookTitle", "conferenceName", "repository",
                "institution", "university", "publisher")


def is_zotero_db(path: Path) -> bool:
    if path.suffix.lower() != ".sqlite":
        return False
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def zotero_db_of(folder: Path) -> Path | None:
    """A Zotero data directory's database (``~/Zotero/zotero.sqlite``), or None."""
    db = folder / "zotero.sqlite"
    return db if db.is_file() else None


def load_zotero(path: Path) -> tuple[list[Record], list[Problem]]:
    """Every item with an abstract, as Records; items without one and unreadable databases are
    Problems (file and itemID)."""
    name = str(path)
    try:
        rows = _read(path)
    except (OSError, sqlite3.Error) as exc:
        return [], [Problem(name, 0, f"cannot read the Zotero database ({type(exc).__name__}: {exc}); "
                                     "it is read again at the next change")]
    records: list[Record] = []
    problems: list[Problem] = []
    for item in rows:
        paper = _paper(item)
        if paper.text is None:
            problems.append(Problem(name, item["id"], f"item {item['key']} ({paper.title[:60] or 'untitled'}) has no abstract"))
            continue
        text, found = check_text(paper.text, name, item["id"])
        problems += found
        if text is None:
            continue
        records.append(Record(text=text, path=name, line=item["id"], title=paper.title,
                              external_id=paper.external_id, metadata=paper.metadata))
    if not records and not problems:
        problems.append(Problem(name, 0, "no items in the Zotero library"))
    return records, problems


def _read(path: Path) -> list[dict[str, Any]]:
    """Copy the database (and its WAL) aside, then read the copy read-only and immutable."""
    with tempfile.TemporaryDirectory(prefix="zotero-read-") as tmp:
        copy = Path(tmp) / "zotero.sqlite"
        shutil.copyfile(path, copy)
        wal = path.with_name(path.name + "-wal")
        if wal.is_file():
            shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
            _checkpoint(copy)
        con = sqlite3.connect(f"{copy.as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            if con.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("the copy failed SQLite's integrity check (a write was under way)")
            return _items(con)
        finally:
            con.close()


def _checkpoint(copy: Path) -> None:
    """Fold the copied WAL into the copy (a writable connection to the copy, never the original)."""
    con = sqlite3.connect(copy)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.execute("PRAGMA journal_mode=DELETE")
    finally:
        con.close()


def _items(con: sqlite3.Connection) -> list[dict[str, Any]]:
    skip = ",".join("?" * len(NOT_WORKS))
    items: dict[int, dict[str, Any]] = {}
    for item_id, key, type_name in con.execute(
        f"SELECT i.itemID, i.key, t.typeName FROM items i JOIN itemTypes t ON t.itemTypeID = i.itemTypeID "
        f"WHERE t.typeName NOT IN ({skip}) AND i.itemID NOT IN (SELECT itemID FROM deletedItems) ORDER BY i.itemID",
        NOT_WORKS,
    ):
        items[item_id] = {"id": item_id, "key": key, "type": type_name, "fields": {}, "creators": [], "collections": []}
    for item_id, field, value in con.execute(
        "SELECT d.itemID, f.fieldName, v.value FROM itemData d JOIN fields f ON f.fieldID = d.fieldID "
        "JOIN itemDataValues v ON v.valueID = d.valueID"
    ):
        if item_id in items:
            items[item_id]["fields"][field] = value
    for item_id, first, last, mode in con.execute(
        "SELECT ic.itemID, c.firstName, c.lastName, c.fieldMode FROM itemCreators ic "
        "JOIN creators c ON c.creatorID = ic.creatorID ORDER BY ic.itemID, ic.orderIndex"
    ):
        if item_id in items:
            items[item_id]["creators"].append(str(last or "") if mode == 1 or not first else f"{last}, {first}")
    paths = _collection_paths(con)
    for item_id, collection_id in con.execute("SELECT itemID, collectionID FROM collectionItems"):
        if item_id in items and collection_id in paths:
            items[item_id]["collections"].append(paths[collection_id])
    return list(items.values())


def _collection_paths(con: sqlite3.Connection) -> dict[int, str]:
    """Each collection's path from the top ("Thesis/Chapter 2")."""
    rows = {cid: (name, parent) for cid, name, parent in
            con.execute("SELECT collectionID, collectionName, parentCollectionID FROM collections")}
    out: dict[int, str] = {}
    for cid in rows:
        parts, seen, at = [], set(), cid
        while at in rows and at not in seen:  # a cycle in a damaged database ends the walk
            seen.add(at)
            parts.append(str(rows[at][0]))
            at = rows[at][1]
        out[cid] = "/".join(reversed(parts))
    return out


def _paper(item: dict[str, Any]) -> Paper:
    f = item["fields"]
    text = f.get("abstractNote")
    venue = next((str(f[k]) for k in VENUE_FIELDS if f.get(k)), "")
    doi = str(f.get("DOI") or "")
    arxiv = md.arxiv_id(f.get("archiveID")) or (md.arxiv_id(f.get("url")) if "arxiv" in str(f.get("url", "")).lower() else "")
    meta: dict[str, Any] = {
        "authors": item["creators"], "year": _year(f.get("date")), "venue": venue, "doi": doi, "arxiv_id": arxiv,
        "url": str(f.get("url") or ""), "entry_type": ENTRY_TYPES.get(item["type"], "misc"),
        "zotero_key": item["key"], "collections": "; ".join(sorted(item["collections"])),
    }
    meta = md.clean_metadata(meta)
    return Paper(line=item["id"], key=item["key"], text=md.plain_text(text) if isinstance(text, str) and text.strip() else None,
                 title=" ".join(md.plain_text(str(f.get("title") or "")).split()), metadata=meta,
                 external_id=str(meta.get("doi") or meta.get("arxiv_id") or ""))


def _year(date: Any) -> Any:
    """Zotero stores dates as "2017-06-12 June 12, 2017" (SQL date, then the text as typed;
    "0000" parts for unknowns)."""
    text = str(date or "").strip()
    if len(text) >= 4 and text[:4].isdigit() and text[:4] != "0000":
        return int(text[:4])
    return text or None
