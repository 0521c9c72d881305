"""Chroma storage: one collection of abstracts (``<prefix>_docs``) and one of chunks
(``<prefix>_chunks``). Embedded ``PersistentClient`` in the data dir by default, or a Chroma
server through ``HttpClient`` when ``chroma_host`` is set.

The docs collection is the source of truth: a doc record is written only after all its chunks,
so an interrupted ingest leaves at most orphan chunks, which the next ingest sweeps away.
"""

from __future__ import annotations

import json
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.settings import Settings

BATCH = 2000  # Chroma limits one call's size; page through bigger sets
ABSTRACT_VECTORS = "whole-abstract-v1"  # what the docs collection's vectors are (see has_abstract_vectors)
# Every doc's metadata carries ``files`` (the files it came from), ``is_version`` and its MinHash
# bands, so ingest looks up only what it touches (see has_catalog).
CATALOG = "files-version-minhash-v1"
SEGMENT_RECHECK_S = 0.5  # a segment's files are rewritten one after another; a mismatch is read twice
SERVER_TIMEOUT_S = 30.0  # a hung Chroma server: fail with a StoreError instead of waiting forever


class StoreError(RuntimeError):
    """The index cannot be opened or reached; the message says what to do."""


@dataclass
class StoredDoc:
    doc_id: str
    text: str  # normalised text (what is indexed)
    original: str  # as found, for display
    label: str
    sources: list[str]
    work_id: str
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def files(self) -> set[str]:
        return {s.rsplit(":", 1)[0] for s in self.sources}


def doc_from_chroma(doc_id: str, text: str | None, meta: dict[str, Any]) -> StoredDoc:
    return StoredDoc(
        doc_id=doc_id,
        text=text or "",
        original=str(meta.get("original") or text or ""),
        label=str(meta.get("label", doc_id)),
        sources=json.loads(str(meta.get("sources", "[]"))),
        work_id=str(meta.get("work_id") or doc_id),
        metadata={k: v for k, v in meta.items() if k not in _DERIVED},
    )


_DERIVED = ("original", "label", "sources", "work_id", "files", "is_version")  # written by doc_metadata


class Store:
    def __init__(self, settings: Settings, fingerprint: str) -> None:
        self.settings = settings
        self.fingerprint = fingerprint
        self.client = self._connect()
        meta = {"hnsw:space": "cosine", "embedder": fingerprint}
        # A new index: whole-abstract vectors, the catalog, and no ingest under way.
        doc_meta = {**meta, "doc_vectors": ABSTRACT_VECTORS, "catalog": CATALOG, "ingest": "done"}
        try:
            self.docs = self.client.get_or_create_collection(
                f"{settings.collection_prefix}_docs", embedding_function=None, metadata=doc_meta
            )
            self.chunks = self.client.get_or_create_collection(
                f"{settings.collection_prefix}_chunks", embedding_function=None, metadata=meta
            )
            # Chroma opens lazily: read the docs collection now, so a damaged database fails here,
            # clearly. The vector segments were checked by their headers (_check_segments): loading
            # the chunks' segment costs time that grows with the library, and a search that maps
            # the vectors (assistant/store/mirror.py) never needs it.
            self.docs.count()
        except BaseException as exc:  # chromadb raises many kinds (and Rust panics); all mean the same
            _reraise_interrupts(exc)
            raise StoreError(f"{self.where}: cannot open the index ({_describe(exc)}). {self.way_out}") from exc
        for collection in (self.docs, self.chunks):
            stored = (collection.metadata or {}).get("embedder")
            if stored and stored != fingerprint:
                raise StoreError(
                    f"{self.where}: the index was built with embedder {stored!r}, but {fingerprint!r} is "
                    f"configured. Use the same embedder, or a new --data-dir / collection_prefix "
                    f"(or move {self.settings.chroma_path if not settings.chroma_host else 'the collections'} "
                    "away and re-run `assistant ingest` to rebuild it with this one)."
                )

    @property
    def where(self) -> str:
        s = self.settings
        return f"Chroma server http://{s.chroma_host}:{s.chroma_port}" if s.chroma_host else f"data dir {s.data_dir}"

    @property
    def way_out(self) -> str:
        if self.settings.chroma_host:
            return "Check that the server is running (`chroma run --host 127.0.0.1 --port PORT --path DIR`)."
        return (
            f"If the folder {self.settings.chroma_path} is damaged or from another program, move it "
            "away and re-run `assistant ingest` to rebuild the index."
        )

    def _connect(self) -> Any:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        s = self.settings
        try:
            if s.chroma_host:
                client = chromadb.HttpClient(host=s.chroma_host, port=s.chroma_port, settings=chroma_settings)
                _set_timeout(client, SERVER_TIMEOUT_S)
                return client
            path = Path(s.chroma_path)
            self._check_folder(path)
            path.mkdir(parents=True, exist_ok=True)
            return chromadb.PersistentClient(path=str(path), settings=chroma_settings)
        except StoreError:
            raise
        except BaseException as exc:
            _reraise_interrupts(exc)
            what = "cannot connect" if s.chroma_host else "cannot open the index"
            raise StoreError(f"{self.where}: {what} ({_describe(exc)}). {self.way_out}") from exc

    def _check_folder(self, path: Path) -> None:
        """Catch damage Chroma would not report: it silently starts an empty index when its
        database file is missing or empty, even if the folder still holds an index's segments."""
        if path.exists() and not path.is_dir():
            raise StoreError(f"{self.where}: {path} is a file, not an index folder. {self.way_out}")
        db = path / "chroma.sqlite3"
        segments = [p for p in path.iterdir() if p.is_dir()] if path.is_dir() else []
        if segments and (not db.exists() or db.stat().st_size == 0):
            state = "missing" if not db.exists() else "empty"
            raise StoreError(f"{self.where}: the index database {db} is {state}, but the folder holds "
                             f"{len(segments)} index segment(s): the index is damaged. {self.way_out}")
        if db.exists() and db.stat().st_size > 0:
            with open(db, "rb") as f:
                header = f.read(16)
            if header != b"SQLite format 3\x00":
                raise StoreError(f"{self.where}: {db} is not an SQLite database (damaged or overwritten). {self.way_out}")
        for segment in segments:
            problem = segment_problem(segment)
            if problem is not None:  # or another process's ingest persisting it now: read it once more
                time.sleep(SEGMENT_RECHECK_S)
                problem = segment_problem(segment)
            if problem is not None:
                raise StoreError(f"{self.where}: cannot open the index ({problem}). {self.way_out}")

    def call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a Chroma call, turning any failure into a StoreError a user can act on."""
        try:
            return fn(*args, **kwargs)
        except BaseException as exc:
            _reraise_interrupts(exc)
            raise StoreError(f"{self.where}: {what} failed ({_describe(exc)}). {self.way_out}") from exc

    # --- reading ---------------------------------------------------------------------------
    def all_docs(self) -> dict[str, StoredDoc]:
        out: dict[str, StoredDoc] = {}
        total = self.call("reading abstracts", self.docs.count)
        for offset in range(0, total, BATCH):
            got = self.call("reading abstracts", self.docs.get, include=["documents", "metadatas"], limit=BATCH, offset=offset)
            for i, d, m in zip(got["ids"], got["documents"], got["metadatas"], strict=True):
                out[i] = doc_from_chroma(i, d, m or {})
        return out

    def get_docs(self, ids: list[str]) -> dict[str, StoredDoc]:
        out: dict[str, StoredDoc] = {}
        ids = list(ids)
        for b in range(0, len(ids), BATCH):
            got = self.call("reading abstracts", self.docs.get, ids=ids[b : b + BATCH], include=["documents", "metadatas"])
            out.update((i, doc_from_chroma(i, d, m or {})) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"], strict=True))
        return out

    def docs_where(self, where: dict[str, Any], text: bool = True) -> dict[str, StoredDoc]:
        """The docs matching a metadata filter, read in pages (``text=False``: metadata only)."""
        out: dict[str, StoredDoc] = {}
        include = ["documents", "metadatas"] if text else ["metadatas"]
        offset = 0
        while True:
            got = self.call("reading abstracts", self.docs.get, where=where, include=include, limit=BATCH, offset=offset)
            docs = got["documents"] if text else [None] * len(got["ids"])
            out.update((i, doc_from_chroma(i, d, m or {})) for i, d, m in zip(got["ids"], docs, got["metadatas"], strict=True))
            if len(got["ids"]) < BATCH:
                return out
            offset += BATCH

    def ids_where(self, where: dict[str, Any]) -> set[str]:
        """The ids of the docs matching a metadata filter (ids only: ~50x cheaper than their metadata)."""
        out: set[str] = set()
        offset = 0
        while True:
            got = self.call("reading abstracts", self.docs.get, where=where, include=[], limit=BATCH, offset=offset)
            out.update(got["ids"])
            if len(got["ids"]) < BATCH:
                return out
            offset += BATCH

    def filter_rows(self) -> list[tuple[str, dict[str, Any], list[str]]]:
        """(doc id, metadata, files) of every doc, metadata only, read in pages (for filters)."""
        out: list[tuple[str, dict[str, Any], list[str]]] = []
        total = self.call("reading abstracts", self.docs.count)
        for offset in range(0, total, BATCH):
            got = self.call("reading abstracts", self.docs.get, include=["metadatas"], limit=BATCH, offset=offset)
            for i, m in zip(got["ids"], got["metadatas"], strict=True):
                doc = doc_from_chroma(i, None, m or {})
                out.append((i, doc.metadata, sorted(doc.files)))
        return out

    def works(self) -> int:
        """How many distinct ``work_id``s the docs hold, reading only the versions: every other
        doc is the head of its own work."""
        versions = self.docs_where({"is_version": True}, text=False)
        work_ids = {d.work_id for d in versions.values()}
        heads = self.get_ids(sorted(work_ids - set(versions)))  # the works whose first version is stored
        return self.call("counting", self.docs.count) - len(versions) + len(work_ids) - len(heads)

    def get_ids(self, ids: list[str]) -> set[str]:
        """Which of ``ids`` the docs collection holds."""
        out: set[str] = set()
        for b in range(0, len(ids), BATCH):
            out.update(self.call("reading abstracts", self.docs.get, ids=ids[b : b + BATCH], include=[])["ids"])
        return out

    def chunk_doc_ids(self) -> set[str]:
        ids: set[str] = set()
        total = self.call("reading chunks", self.chunks.count)
        for offset in range(0, total, BATCH):
            got = self.call("reading chunks", self.chunks.get, include=["metadatas"], limit=BATCH, offset=offset)
            ids.update(str((m or {}).get("doc_id")) for m in got["metadatas"])
        return ids

    def has_abstract_vectors(self) -> bool:
        """Whether the docs collection holds one vector per whole abstract (indexes built before
        that held the mean of the chunks; the next ingest re-embeds them)."""
        return (self.docs.metadata or {}).get("doc_vectors") == ABSTRACT_VECTORS

    def mark_abstract_vectors(self) -> None:
        self.set_flag("doc_vectors", ABSTRACT_VECTORS)

    def has_catalog(self) -> bool:
        """Whether every doc's metadata has ``files``, ``is_version`` and MinHash bands (indexes
        built before lack them; the next ingest adds them once)."""
        return self.flag("catalog") == CATALOG

    def _flags(self) -> dict[str, Any]:
        """The docs collection's metadata, read fresh (another process may write it)."""
        return dict(self.call("reading the index", self.client.get_collection, self.docs.name).metadata or {})

    def flag(self, key: str) -> Any:
        """A value kept in the docs collection's metadata."""
        return self._flags().get(key)

    def set_flag(self, key: str, value: Any, **more: Any) -> None:
        meta = {k: v for k, v in self._flags().items() if not k.startswith("hnsw:")}
        self.call("updating the index", self.docs.modify, metadata={**meta, key: value, **more})

    def mark_ingest(self, state: str) -> None:
        """The ingest flag: "running" (renewed with a heartbeat time each batch) or "done"."""
        self.set_flag("ingest", state, ingest_beat=time.time())

    def ingest_running(self) -> bool:
        """Whether an ingest is writing now: the flag says "running" and its heartbeat is fresh
        (a killed ingest leaves "running" behind; after ``ingest_stale_after_s`` it counts as dead)."""
        meta = self._flags()
        if meta.get("ingest") != "running":
            return False
        return time.time() - float(meta.get("ingest_beat") or 0.0) < self.settings.store.ingest_stale_after_s

    def doc_count(self) -> int:
        """How many abstracts the index holds (the docs collection only: counting the chunks loads
        their vector segment, which costs time that grows with the library)."""
        return int(self.call("counting", self.docs.count))

    def counts(self) -> dict[str, int]:
        return {"abstracts": self.doc_count(), "chunks": self.call("counting", self.chunks.count)}

    # --- writing ---------------------------------------------------------------------------
    def delete_docs(self, doc_ids: list[str]) -> None:
        """Doc records first (so the doc is gone at once), then its chunks."""
        for i in range(0, len(doc_ids), BATCH):
            part = doc_ids[i : i + BATCH]
            self.call("deleting abstracts", self.docs.delete, ids=part)
            self.call("deleting chunks", self.chunks.delete, where={"doc_id": {"$in": part}})

    def update_doc_metadata(self, docs: list[StoredDoc]) -> None:
        for i in range(0, len(docs), BATCH):
            part = docs[i : i + BATCH]
            self.call("updating abstracts", self.docs.update, ids=[d.doc_id for d in part], metadatas=[doc_metadata(d) for d in part])


def doc_metadata(doc: StoredDoc) -> dict[str, Any]:
    meta = {k: v for k, v in doc.metadata.items() if isinstance(v, str | int | float | bool)}
    meta.update(original=doc.original, label=doc.label, sources=json.dumps(doc.sources), work_id=doc.work_id,
                files=sorted(doc.files) or [""], is_version=doc.work_id != doc.doc_id)
    return meta


_HNSW_HEADER = struct.Struct("<iQQQQQQiIQQQdQ")  # hnswlib's header.bin as Chroma writes it (100 bytes)


def segment_problem(folder: Path) -> str | None:
    """What is wrong with one vector segment folder's files, read from its 100-byte header and the
    files' sizes (never loading the graph), or None. A folder without a header has not been
    persisted yet (Chroma writes it past ``hnsw:sync_threshold`` items) unless its data file exists."""
    header, data, length = folder / "header.bin", folder / "data_level0.bin", folder / "length.bin"
    if not header.exists():
        return f"{data} has no header.bin beside it" if data.exists() else None
    try:
        raw = header.read_bytes()
        (version, offset0, max_elements, count, per_element, label_offset, offset_data, _level, _entry,
         _max_m, _max_m0, m, mult, _ef) = _HNSW_HEADER.unpack(raw[: _HNSW_HEADER.size])
        data_size, length_size = data.stat().st_size, length.stat().st_size
    except (OSError, struct.error) as exc:
        return f"segment file {header} is unreadable ({type(exc).__name__})"
    rows = data_size // per_element if per_element > 0 else -1
    sane = (version == 1 and offset0 == 0 and 0 < per_element < 1 << 24 and count <= max_elements
            and label_offset < per_element and offset_data < per_element and 0 < m < 1 << 16
            and 0.0 < mult < 10.0 and rows >= count and data_size == rows * per_element
            and length_size == 4 * rows)
    return None if sane else f"segment file {header} does not describe {data.name} and {length.name}: damaged"


def _reraise_interrupts(exc: BaseException) -> None:
    """Ctrl-C and exit pass through; anything else (Rust panics are BaseExceptions) is a store error."""
    if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit):
        raise exc


def _describe(exc: BaseException) -> str:
    text = str(exc).strip() or "no details"
    return f"{type(exc).__name__}: {text[:500]}"


def _set_timeout(client: Any, seconds: float) -> None:
    """chromadb's HTTP client waits forever by default (httpx timeout=None); bound every request."""
    try:
        import httpx

        client._server._session.timeout = httpx.Timeout(seconds, connect=min(seconds, 5.0))
    except AttributeError:  # another chromadb layout: keep its default
        pass
