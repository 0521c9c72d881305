"""A ``zotero.sqlite`` built the way Zotero 7 lays it out (the tables, columns and keys of its
``resource/schema/userdata.sql`` and ``system.sql`` that a reader touches), written item by item
through SQL as Zotero writes it: a value once in ``itemDataValues``, fields by ``fieldID``,
creators shared between items, collections nested, the trash in ``deletedItems``."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE version (schema TEXT PRIMARY KEY, version INT NOT NULL);
CREATE TABLE libraries (libraryID INTEGER PRIMARY KEY, type TEXT NOT NULL, editable INT NOT NULL,
    filesEditable INT NOT NULL, version INT NOT NULL DEFAULT 0, storageVersion INT NOT NULL DEFAULT 0,
    lastSync INT NOT NULL DEFAULT 0, archived INT NOT NULL DEFAULT 0);
CREATE TABLE itemTypes (itemTypeID INTEGER PRIMARY KEY, typeName TEXT, templateItemTypeID INT, display INT DEFAULT 1);
CREATE TABLE fields (fieldID INTEGER PRIMARY KEY, fieldName TEXT, fieldFormatID INT);
CREATE TABLE creatorTypes (creatorTypeID INTEGER PRIMARY KEY, creatorType TEXT);
CREATE TABLE items (itemID INTEGER PRIMARY KEY, itemTypeID INT NOT NULL,
    dateAdded TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, dateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL, key TEXT NOT NULL,
    version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0, UNIQUE (libraryID, key),
    FOREIGN KEY (libraryID) REFERENCES libraries(libraryID) ON DELETE CASCADE);
CREATE TABLE itemDataValues (valueID INTEGER PRIMARY KEY, value UNIQUE);
CREATE TABLE itemData (itemID INT, fieldID INT, valueID, PRIMARY KEY (itemID, fieldID),
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE, FOREIGN KEY (fieldID) REFERENCES fields(fieldID),
    FOREIGN KEY (valueID) REFERENCES itemDataValues(valueID));
CREATE INDEX itemData_fieldID ON itemData(fieldID);
CREATE TABLE creators (creatorID INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT, fieldMode INT,
    UNIQUE (lastName, firstName, fieldMode));
CREATE TABLE itemCreators (itemID INT NOT NULL, creatorID INT NOT NULL, creatorTypeID INT NOT NULL DEFAULT 1,
    orderIndex INT NOT NULL DEFAULT 0, PRIMARY KEY (itemID, creatorID, creatorTypeID, orderIndex),
    UNIQUE (itemID, orderIndex), FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (creatorID) REFERENCES creators(creatorID) ON DELETE CASCADE,
    FOREIGN KEY (creatorTypeID) REFERENCES creatorTypes(creatorTypeID));
CREATE TABLE collections (collectionID INTEGER PRIMARY KEY, collectionName TEXT NOT NULL,
    parentCollectionID INT DEFAULT NULL, clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    libraryID INT NOT NULL, key TEXT NOT NULL, version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0,
    UNIQUE (libraryID, key), FOREIGN KEY (libraryID) REFERENCES libraries(libraryID) ON DELETE CASCADE,
    FOREIGN KEY (parentCollectionID) REFERENCES collections(collectionID) ON DELETE CASCADE);
CREATE TABLE collectionItems (collectionID INT NOT NULL, itemID INT NOT NULL, orderIndex INT NOT NULL DEFAULT 0,
    PRIMARY KEY (collectionID, itemID), FOREIGN KEY (collectionID) REFERENCES collections(collectionID) ON DELETE CASCADE,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE);
CREATE INDEX collectionItems_itemID ON collectionItems(itemID);
CREATE TABLE itemNotes (itemID INTEGER PRIMARY KEY, parentItemID INT, note TEXT, title TEXT,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE);
CREATE TABLE deletedItems (itemID INTEGER PRIMARY KEY, dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE);
"""

ITEM_TYPES = {1: "annotation", 2: "attachment", 3: "book", 4: "bookSection", 11: "conferencePaper",
              22: "journalArticle", 28: "note", 31: "preprint"}
FIELDS = {1: "title", 2: "abstractNote", 6: "date", 8: "url", 12: "publicationTitle", 26: "DOI",
          39: "proceedingsTitle", 90: "archiveID"}
CREATOR_TYPES = {8: "author", 10: "editor"}


class ZoteroDB:
    """``add(...)`` items, ``trash(id)``, ``delete(id)``; every call is one committed transaction."""

    def __init__(self, path: Path, *, wal: bool = False) -> None:
        self.path = path
        self.con = sqlite3.connect(path)
        if wal:
            self.con.execute("PRAGMA journal_mode=WAL")
        self.con.executescript(SCHEMA)
        with self.con:
            self.con.execute("INSERT INTO version VALUES ('userdata', 120)")
            self.con.execute("INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (1, 'user', 1, 1)")
            self.con.executemany("INSERT INTO itemTypes (itemTypeID, typeName) VALUES (?, ?)", ITEM_TYPES.items())
            self.con.executemany("INSERT INTO fields (fieldID, fieldName) VALUES (?, ?)", FIELDS.items())
            self.con.executemany("INSERT INTO creatorTypes VALUES (?, ?)", CREATOR_TYPES.items())
        self._next_key = 0

    def _key(self) -> str:
        self._next_key += 1
        return f"K{self._next_key:07d}"

    def _value(self, value: Any) -> int:
        row = self.con.execute("SELECT valueID FROM itemDataValues WHERE value = ?", (value,)).fetchone()
        if row:
            return int(row[0])
        return int(self.con.execute("INSERT INTO itemDataValues (value) VALUES (?)", (value,)).lastrowid)

    def collection(self, name: str, parent: int | None = None) -> int:
        with self.con:
            return int(self.con.execute(
                "INSERT INTO collections (collectionName, parentCollectionID, libraryID, key) VALUES (?, ?, 1, ?)",
                (name, parent, self._key())).lastrowid)

    def add(self, item_type: str = "journalArticle", *, fields: dict[str, str], authors: list[tuple[str, str]] = (),
            collections: list[int] = ()) -> int:
        type_id = next(i for i, t in ITEM_TYPES.items() if t == item_type)
        with self.con:
            item_id = int(self.con.execute("INSERT INTO items (itemTypeID, libraryID, key) VALUES (?, 1, ?)",
                                           (type_id, self._key())).lastrowid)
            for name, value in fields.items():
                field_id = next(i for i, f in FIELDS.items() if f == name)
                self.con.execute("INSERT INTO itemData VALUES (?, ?, ?)", (item_id, field_id, self._value(value)))
            for order, (first, last) in enumerate(authors):
                self.con.execute("INSERT OR IGNORE INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, ?)",
                                 (first, last, 0 if first else 1))
                creator = self.con.execute("SELECT creatorID FROM creators WHERE firstName = ? AND lastName = ?",
                                           (first, last)).fetchone()[0]
                self.con.execute("INSERT INTO itemCreators VALUES (?, ?, 8, ?)", (item_id, creator, order))
            for c in collections:
                self.con.execute("INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)", (c, item_id))
        return item_id

    def set_field(self, item_id: int, name: str, value: str) -> None:
        field_id = next(i for i, f in FIELDS.items() if f == name)
        with self.con:
            self.con.execute("INSERT OR REPLACE INTO itemData VALUES (?, ?, ?)", (item_id, field_id, self._value(value)))

    def trash(self, item_id: int) -> None:
        with self.con:
            self.con.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (item_id,))

    def delete(self, item_id: int) -> None:
        with self.con:
            self.con.execute("DELETE FROM items WHERE itemID = ?", (item_id,))

    def close(self) -> None:
        self.con.close()
