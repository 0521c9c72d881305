"""A memory-mapped copy of a collection's vectors, so a cold process ranks exactly without reading
every vector through Chroma or loading its HNSW segment.

The retriever ranks a small collection exactly from all its vectors (``HybridRetriever.
_whole_vectors``); reading them through Chroma costs time that grows with the library (1.6 s for
4,460 abstract vectors; opening the chunk collection's segment 2-2.7 s at 20,890 chunks, under a
load of ~20, against 0.02-0.5 s at 446 abstracts), paid by every cold ``assistant search``. The
first process that reads them writes ``<data dir>/vectors/<collection>-<state>.npy`` (unit
vectors, float32, ids sorted) with ``<collection>.json`` naming it; later processes map it
(``np.load(mmap_mode="r")``: pages are read as a query touches them, and shared between the
processes serving one data dir).

The state is the index's: the docs count and the ingest flags every writing ingest renews at its
end (``Store.mark_ingest``). While an ingest runs (or after one was killed) there is no state:
nothing is mapped or written, and the retriever reads Chroma as before.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

FOLDER = "vectors"


def state_key(flags: dict[str, Any], doc_count: int) -> str | None:
    """The index state a mirror is valid for, or None while an ingest is under way."""
    if flags.get("ingest", "done") != "done":
        return None
    raw = json.dumps([doc_count, flags.get("ingest_beat"), flags.get("doc_vectors"), flags.get("embedder")])
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


class Mirror:
    def __init__(self, data_dir: str | Path, collection: str) -> None:
        self.folder = Path(data_dir) / FOLDER
        self.name = collection

    @property
    def _index(self) -> Path:
        return self.folder / f"{self.name}.json"

    def load(self, key: str) -> tuple[list[str], np.ndarray] | None:
        """The ids and mapped unit vectors written for ``key``, or None."""
        try:
            meta = json.loads(self._index.read_text(encoding="utf-8"))
            if meta.get("key") != key:
                return None
            matrix = np.load(self.folder / meta["file"], mmap_mode="r")
        except (OSError, ValueError, KeyError, TypeError):
            return None
        ids = meta.get("ids")
        if not isinstance(ids, list) or matrix.ndim != 2 or matrix.shape[0] != len(ids):
            return None
        return ids, matrix

    def count(self, key: str) -> int | None:
        """How many items the mirror for ``key`` holds (no Chroma call), or None."""
        try:
            meta = json.loads(self._index.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return len(meta.get("ids") or []) if meta.get("key") == key else None

    def save(self, key: str, ids: list[str], matrix: np.ndarray) -> None:
        """Write the vectors, then the index naming them (each atomically): a reader sees the old
        mirror or the new one, never half of one. A read-only data dir just has no mirror."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            file = f"{self.name}-{key}.npy"
            tmp = self.folder / f".{file}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                np.save(f, np.ascontiguousarray(matrix, dtype=np.float32))
            tmp.replace(self.folder / file)
            tmp = self.folder / f".{self.name}.json.{os.getpid()}.tmp"
            tmp.write_text(json.dumps({"key": key, "file": file, "ids": ids}), encoding="utf-8")
            tmp.replace(self._index)
            for old in self.folder.glob(f"{self.name}-*.npy"):
                if old.name != file:
                    old.unlink(missing_ok=True)  # a process mapping it keeps its pages until it lets go
        except OSError:
            pass


def read_whole(store: Any, collection: Any, key: str | None) -> tuple[list[str], np.ndarray] | None:
    """Every item's unit vector of ``collection`` (ids sorted): from its mirror when one is valid
    for ``key``, else read through Chroma (and mirrored for the next process)."""
    mirror = Mirror(store.settings.data_dir, collection.name)
    if key is not None and (found := mirror.load(key)) is not None:
        return found
    got = store.call("searching", collection.get, include=["embeddings"])
    if not got["ids"]:
        return None
    order = np.argsort(np.asarray(got["ids"]), kind="stable")
    matrix = np.asarray(got["embeddings"], dtype=np.float32).reshape(len(order), -1)[order]
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    ids = [got["ids"][i] for i in order]
    if key is not None:
        mirror.save(key, ids, matrix)
    return ids, matrix


def refresh(store: Any, max_items: int) -> None:
    """After an ingest: mirror each collection small enough to be ranked exactly, so the next cold
    process maps it instead of reading it (the ingest pays the read once, not every start)."""
    if store.settings.chroma_host:
        return
    doc_count = store.call("counting", store.docs.count)
    key = state_key(store._flags(), doc_count)
    if key is None:
        return
    for collection in (store.docs, store.chunks):
        total = doc_count if collection is store.docs else store.call("counting", collection.count)
        if 0 < total <= max_items and Mirror(store.settings.data_dir, collection.name).count(key) is None:
            read_whole(store, collection, key)
