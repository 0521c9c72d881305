"""A persisted, incremental BM25 index over abstracts (bm25s segments, memory-mapped).

Chroma's own sparse/BM25 index is Chroma Cloud only (chromadb 1.5.9: "Sparse vector indexing is
not enabled in local"), and a bm25s index is static, so the index is a small log-structured set of
bm25s indexes in one folder:

- a large **base** segment and a few small **delta** segments (one per ``flush()`` with new
  abstracts), plus **tombstones** (deleted rows, per segment, applied as a score mask);
- ``manifest.json`` names the live segments and their tombstones and carries a generation counter.
  Every segment is written into a temporary folder and renamed; the manifest is written to a temp
  file and ``os.replace``-d. A killed writer leaves the previous manifest, which names only complete
  segments (unreferenced folders are removed by the next writer);
- a reader (a replica) reads the manifest, each segment's vocabulary and parameters, and memory-maps
  the score arrays and the row -> doc id array: it never re-reads texts or chunks. ``refresh()``
  re-reads the manifest only when its inode/size/mtime changed (one ``stat``).

Scores: each segment has its own IDF and average length (bm25s' "lucene" BM25, k1=1.5, b=0.75, the
library defaults measured in assistant/search/retrieval.py). Segments are merged into a new base when the
deltas plus tombstones exceed ``MERGE_FRACTION`` of the base, which bounds both the IDF drift and
the merge cost (see the constant). A new delta is scored with the corpus-wide document frequencies,
document count and average length of the segments already there (``build_scores``' ``bg_*``), so
only the older segments' statistics go stale, by at most the merge fraction. Measured with
``python -m evals.bench_scale --idf`` (SciFact-2101, 265 train+test claims, BM25 alone, nDCG@10):
one rebuilt index 0.7684; base + 8 deltas holding 9.9% of the corpus 0.7688 (no measurable effect).

Changes made with ``add``/``delete`` are buffered and become visible (to this and other processes)
at ``flush()``.

This module holds the index (reading, the write path, the merge policy); one segment's files on
disk (write, merge, garbage) are assistant/store/lexical_segments.py.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import threading
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from assistant.store import lexical_segments as segments_on_disk
from assistant.store.lexical_segments import Segment

FORMAT = 1
MANIFEST = "manifest.json"
# Merge all segments into a new base when deltas + tombstones exceed this fraction of the base:
# each merge rewrites the base, so the total merge work over an ingest of N abstracts is about
# N / MERGE_FRACTION token rows (amortised linear); and a delta holding <= 10% of the corpus moves
# the IDF of a term by at most log(1.1) ~ 0.1 nats (measured effect on nDCG: evals/bench_scale.py --idf).
MERGE_FRACTION = 0.10
MAX_DELTAS = 8  # more deltas than this are merged into one: each costs a scoring pass per query


def index_path(data_dir: Path, collection_prefix: str) -> Path:
    """Where the index of one collection lives: ``<data_dir>/lexical/<collection_prefix>/``."""
    return Path(data_dir) / "lexical" / collection_prefix


TOKENIZER_ID = "project-terms-nltk-stop-snowball-1"  # recorded in the manifest: change it when the analysis changes


@functools.cache
def default_terms() -> Callable[[str], list[str]]:
    """The project's one term function (assistant.language.text.tokens), shared with evidence scoring."""
    from assistant.language.text import tokens

    return tokens


def open_for(data_dir: Path, collection_prefix: str) -> LexicalIndex:
    """The index ingest writes and search reads (one place chooses the tokenizer for both)."""
    return LexicalIndex.open(index_path(data_dir, collection_prefix), default_terms(), TOKENIZER_ID)


class LexicalIndex:
    def __init__(self, path: Path, tokenize: Callable[[str], list[str]], tokenizer_id: str = "") -> None:
        self.path = Path(path)
        self.tokenize = tokenize
        self.tokenizer_id = tokenizer_id
        self._segments: tuple[Segment, ...] = ()
        self._generation = 0
        self._stamp: tuple[int, int, int] | None = None
        self._where: dict[str, tuple[str, int]] | None = None  # doc id -> (segment, row), built lazily
        self._pending_add: dict[str, list[str]] = {}
        self._pending_del: set[str] = set()
        self._tokens: dict[str, int] = {}  # segment -> token count, for the manifest
        self._allow_memo: tuple[Any, dict[str, np.ndarray]] | None = None  # (generation, allow) -> row masks
        self._lock = threading.RLock()

    # --- opening and refreshing ------------------------------------------------------------
    @classmethod
    def open(cls, path: Path, tokenize: Callable[[str], list[str]], tokenizer_id: str = "") -> LexicalIndex:
        """Open (or start) the index in ``path``. An index built with another ``tokenizer_id`` is
        treated as empty (its terms would not match the queries'); the next flush replaces it."""
        index = cls(path, tokenize, tokenizer_id)
        index.refresh()
        return index

    def _manifest_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path / MANIFEST)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def refresh(self) -> bool:
        """Reload if another process flushed since (one stat when nothing changed). True if reloaded."""
        for _ in range(5):  # a writer may delete an old segment between our reading the manifest and it
            stamp = self._manifest_stamp()
            if stamp == self._stamp:
                return False
            try:
                self._load(stamp)
                return True
            except FileNotFoundError:
                continue
        raise RuntimeError(f"{self.path}: the lexical index kept changing while being opened")

    def _load(self, stamp: tuple[int, int, int] | None) -> None:
        manifest = self._read_manifest()
        if manifest.get("tokenizer", "") != self.tokenizer_id or manifest.get("format") != FORMAT:
            manifest = {"generation": manifest.get("generation", 0), "segments": []}
        old = {s.name: s for s in self._segments}
        segments = []
        for entry in manifest["segments"]:
            seg = old.get(entry["name"]) or segments_on_disk.open_segment(self.path, entry["name"])
            segments.append(Segment(seg.name, seg.bm25, seg.ids, np.asarray(entry.get("dead", []), dtype=np.int64),
                                     int(entry.get("tokens", 0))))
        with self._lock:
            self._segments = tuple(segments)
            self._generation = int(manifest.get("generation", 0))
            self._stamp = stamp
            self._where = None
            self._tokens = {s.name: s.tokens for s in segments}

    def _read_manifest(self) -> dict[str, Any]:
        try:
            return dict(json.loads((self.path / MANIFEST).read_text(encoding="utf-8")))
        except FileNotFoundError:
            return {"generation": 0, "segments": []}
        except (OSError, ValueError) as exc:
            raise RuntimeError(f"{self.path / MANIFEST}: unreadable lexical index manifest ({exc}); "
                               "delete the folder and it is rebuilt from the store") from exc

    # --- reading ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return sum(s.live for s in self._segments)

    @property
    def generation(self) -> int:
        return self._generation

    def doc_freq(self, term: str) -> int:
        """How many indexed abstracts hold ``term`` (rows deleted but not yet merged away count
        too: a bound on the error the merge rule keeps small)."""
        total = 0
        for seg in self._segments:
            tid = seg.bm25.vocab_dict.get(term)
            if tid is not None:
                indptr = seg.bm25.scores["indptr"]
                total += int(indptr[tid + 1] - indptr[tid])
        return total

    def ids(self) -> set[str]:
        return set(self._locations())

    def _locations(self) -> dict[str, tuple[str, int]]:
        with self._lock:
            if self._where is None:
                where: dict[str, tuple[str, int]] = {}
                for seg in self._segments:
                    dead = set(seg.dead.tolist())
                    where.update((str(d), (seg.name, r)) for r, d in enumerate(seg.ids.tolist()) if r not in dead)
                self._where = where
            return self._where

    def search(self, query: str, k: int, exclude: set[str] | None = None,
               allow: frozenset[str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` best abstracts for ``query`` as (doc id, BM25 score > 0), best first;
        ``allow``: only these abstracts are ranked (a filter, assistant/filters.py); ``exclude``:
        left out as if they were never indexed, their share of the IDF too (leave-one-out)."""
        terms = self.tokenize(query)
        if k <= 0 or not terms:
            return []
        exclude = exclude or set()
        hits: list[tuple[float, str]] = []
        keep = self._allowed_rows(allow) if allow is not None else None
        segs = self._segments  # a snapshot: refresh() swaps the tuple, never mutates it
        ratio = self._left_out_idf(segs, terms, exclude) if exclude else {}
        for seg in segs:
            tids = [seg.bm25.vocab_dict[t] for t in terms if t in seg.bm25.vocab_dict]
            if not tids or seg.rows == 0:
                continue
            scores = seg.bm25.get_scores_from_ids(tids) if not ratio else _scaled_scores(seg, terms, ratio)
            if len(seg.dead):
                scores[seg.dead] = 0.0
            if keep is not None:
                scores[~keep.get(seg.name, np.zeros(seg.rows, dtype=bool))] = 0.0
            want = min(k + len(exclude), seg.rows)
            top = np.argpartition(-scores, want - 1)[:want] if want < seg.rows else np.arange(seg.rows)
            hits += [(float(scores[r]), str(seg.ids[r])) for r in top if scores[r] > 0]
        hits.sort(key=lambda h: -h[0])
        out = [(d, s) for s, d in hits if d not in exclude]
        return out[:k]

    def _left_out_idf(self, segs: Any, terms: list[str], exclude: set[str]) -> dict[str, float]:
        """Per query term, the factor that turns its IDF into the IDF of the index without the
        ``exclude``d abstracts (as if they were never indexed: a term they alone share with one
        other abstract weighs what it would weigh there). Only terms the left-out abstracts hold
        change; the average length is left as it is (one abstract in hundreds moves it < 1%)."""
        where = self._locations()
        rows: dict[str, list[int]] = {}
        for doc_id in exclude:
            if (at := where.get(doc_id)) is not None:
                rows.setdefault(at[0], []).append(at[1])
        if not rows:
            return {}
        n = len(self)
        out: dict[str, float] = {}
        for t in dict.fromkeys(terms):
            held = 0
            for seg in segs:
                tid = seg.bm25.vocab_dict.get(t)
                if tid is not None and seg.name in rows:
                    ptr = seg.bm25.scores["indptr"]
                    held += int(np.isin(seg.bm25.scores["indices"][ptr[tid] : ptr[tid + 1]], rows[seg.name]).sum())
            if held:
                df = self.doc_freq(t)
                out[t] = _lucene_idf(n - sum(map(len, rows.values())), df - held) / _lucene_idf(n, df)
        return out

    def _allowed_rows(self, allow: frozenset[str]) -> dict[str, np.ndarray]:
        """Segment -> mask of the rows holding ``allow``'s abstracts (the last one is kept)."""
        key = (self._generation, allow)
        if self._allow_memo is not None and self._allow_memo[0] == key:
            return self._allow_memo[1]
        where = self._locations()
        masks = {s.name: np.zeros(s.rows, dtype=bool) for s in self._segments}
        for doc_id in allow:
            if (at := where.get(doc_id)) is not None and at[0] in masks:
                masks[at[0]][at[1]] = True
        self._allow_memo = (key, masks)
        return masks

    # --- writing ---------------------------------------------------------------------------
    def add(self, ids: list[str], texts: list[str]) -> None:
        """Index (or re-index) abstracts; visible after ``flush()``."""
        if len(ids) != len(texts):
            raise ValueError(f"add: {len(ids)} ids but {len(texts)} texts")
        with self._lock:
            for i, t in zip(ids, texts, strict=True):
                self._pending_add[str(i)] = self.tokenize(t)
                self._pending_del.discard(str(i))

    def delete(self, ids: Iterable[str]) -> None:
        """Remove abstracts; visible after ``flush()``. Unknown ids are ignored."""
        with self._lock:
            for i in ids:
                self._pending_add.pop(str(i), None)
                self._pending_del.add(str(i))

    @property
    def dirty(self) -> bool:
        return bool(self._pending_add or self._pending_del)

    def flush(self) -> None:
        """Persist buffered changes (atomically), merging segments when the policy says so."""
        with self._lock:
            if not self.dirty:
                return
            self.path.mkdir(parents=True, exist_ok=True)
            with self._writer_lock():
                self.refresh()  # another writer may have flushed: apply our changes on top of its state
                self._write(dict(self._pending_add), set(self._pending_del))
                self._pending_add.clear()
                self._pending_del.clear()

    def sync_from(self, ids_and_texts: Iterable[tuple[str, str]]) -> None:
        """Rebuild from the store (an iterable of (doc id, text), read in pages by the caller)."""
        with self._lock:
            self._pending_add = {}
            for i, t in ids_and_texts:
                self._pending_add[str(i)] = self.tokenize(t)
            self._pending_del = set()
            self.path.mkdir(parents=True, exist_ok=True)
            with self._writer_lock():
                self.refresh()
                self._write(dict(self._pending_add), set(), rebuild=True)
                self._pending_add.clear()

    def diff(self, store_ids: Iterable[str]) -> tuple[set[str], set[str]]:
        """(ids in the store but not indexed, ids indexed but not in the store), flushed state."""
        have, want = self.ids(), set(store_ids)
        return want - have, have - want

    def reconcile(self, texts: dict[str, str]) -> bool:
        """Bring the index in line with ``texts`` (doc id -> text: the store, the source of truth):
        index what it lacks, drop what the store no longer holds; True if anything changed."""
        missing, extra = self.diff(texts)
        if missing or extra:
            self.delete(extra)
            self.add(sorted(missing), [texts[i] for i in sorted(missing)])
            self.flush()
        return bool(missing or extra)

    @contextlib.contextmanager
    def _writer_lock(self) -> Any:
        with open(self.path / ".lock", "a+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _write(self, adds: dict[str, list[str]], deletes: set[str], rebuild: bool = False) -> None:
        where = self._locations()
        dead: dict[str, set[int]] = {s.name: set(s.dead.tolist()) for s in self._segments}
        for doc_id in (deletes | set(adds)) if not rebuild else ():
            if doc_id in where:
                name, row = where[doc_id]
                dead[name].add(row)
        segments = [] if rebuild else list(self._segments)
        names = [s.name for s in segments]
        if adds:
            names.append(self._record(segments_on_disk.write(self.path, self._generation, list(adds),
                                                            list(adds.values()), segments)))
        rows = {s.name: s.rows for s in segments}
        if adds:
            rows[names[-1]] = len(adds)
        base_live = rows[names[0]] - len(dead.get(names[0], ())) if names else 0
        churn = sum(len(v) for v in dead.values()) + sum(rows[n] for n in names[1:])
        if len(names) > 1 and churn > MERGE_FRACTION * base_live:
            names = [self._record(segments_on_disk.merge(self.path, self._generation, names, dead, []))]
        elif len(names) > 1 + MAX_DELTAS:
            names = [names[0], self._record(segments_on_disk.merge(self.path, self._generation, names[1:], dead,
                                                                    segments[:1]))]
        entries = [{"name": n, "dead": sorted(dead.get(n, ())), "tokens": self._tokens[n]} for n in names]
        self._write_manifest(entries)
        segments_on_disk.collect_garbage(self.path, set(names), MANIFEST)

    def _record(self, written: tuple[str, int]) -> str:
        """A segment just written: its token count kept for the manifest; its name."""
        name, tokens = written
        self._tokens[name] = tokens
        return name

    def _write_manifest(self, entries: list[dict[str, Any]]) -> None:
        manifest = {"format": FORMAT, "tokenizer": self.tokenizer_id, "generation": self._generation + 1,
                    "segments": entries, "docs": sum(segments_on_disk.live_docs(self.path, e) for e in entries)}
        tmp = self.path / f".{MANIFEST}.{uuid.uuid4().hex[:8]}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(manifest, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path / MANIFEST)
        segments_on_disk.fsync_dir(self.path)
        self._stamp = None
        self.refresh()


def _lucene_idf(n: int, df: int) -> float:
    """bm25s' lucene IDF (assistant/store/bm25_scoring.py)."""
    return float(np.log(1.0 + (n - df + 0.5) / (df + 0.5)))


def _scaled_scores(seg: Segment, terms: list[str], ratio: dict[str, float]) -> np.ndarray:
    """``seg``'s BM25 scores for ``terms`` with each term's part scaled by ``ratio`` (a query
    term repeated counts again, as in bm25s' get_scores_from_ids)."""
    sc = seg.bm25.scores
    out = np.zeros(seg.rows, dtype=np.float64)
    for t in terms:
        tid = seg.bm25.vocab_dict.get(t)
        if tid is not None:
            a, b = sc["indptr"][tid], sc["indptr"][tid + 1]
            np.add.at(out, sc["indices"][a:b], sc["data"][a:b] * ratio.get(t, 1.0))
    return out.astype(np.float32)
