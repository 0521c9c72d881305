"""Hybrid retrieval over abstracts: three ranked lists fused into one.

- ``chunk``: MiniLM vectors of the abstract's chunks in Chroma, max-pooled per abstract;
- ``abstract``: one MiniLM vector of the whole abstract (its first 256 word pieces) in Chroma;
- ``bm25``: the persisted BM25 index over the abstracts' text (``assistant.store.lexical``, written by
  ingest, with the shared term function ``assistant.language.text.tokens``).

Each signal returns its ``candidates`` best abstracts; ``fuse`` (assistant/search/fusion.py) merges them (weights and method
from ``settings.retrieval``, fitted by ``python -m evals.fit`` with k-fold cross-validation);
versions of one work are then collapsed to the best-scoring one.

Why the abstract vector: on 28 independently written paraphrase questions the chunk vectors
alone found 0.571 at Recall@5 and one vector per whole abstract 0.893 (issue 11); a chunk holds
one or two sentences, so a question that describes the whole paper matches no single chunk well.

Why not LlamaIndex's QueryFusionRetriever / BM25Retriever here (they were used before): importing
``llama_index.core`` costs ~2.4 s, more than the 3 s cold-start goal of ``assistant search``
leaves once chromadb is imported; the two fusion formulas are a few lines each
(``dist`` is LlamaIndex's ``dist_based_score``, ``rrf`` its reciprocal-rank fusion).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import numpy as np

from assistant.filters import YEAR_MAX, YEAR_MIN, Filters, FilterTable
from assistant.search.fusion import Ranked, exact_top, fuse, max_pool
from assistant.settings import Settings
from assistant.store import lexical, mirror
from assistant.store.chroma import Store, StoredDoc
from assistant.store.idf import Idf
from assistant.store.lexical import LexicalIndex

MODES = ("hybrid", "dense", "bm25", "baseline")
SIGNALS = ("chunk", "abstract", "bm25")
MODE_SIGNALS = {"hybrid": SIGNALS, "dense": ("chunk", "abstract"), "bm25": ("bm25",), "baseline": ("bm25", "abstract")}
# The naive baseline every evaluation reports beside the pipeline: BM25 + one MiniLM vector per
# whole abstract, unweighted reciprocal-rank fusion with k=60.
BASELINE = {"weights": {"bm25": 1.0, "abstract": 1.0}, "method": "rrf", "rrf_k": 60.0}


# --- the retriever --------------------------------------------------------------------------------
class HybridRetriever:
    """Abstract-level retrieval for each mode. Nothing is read in full at start: the lexical index
    is memory-mapped, and only the abstracts a query ranks are fetched from the store (and kept
    in a bounded cache until another process changes the index)."""

    def __init__(self, settings: Settings, store: Store, embedder: Any) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self._lock = threading.Lock()
        self._count = -1
        self._chunk_count = 0
        self._checked = 0.0  # monotonic time of the last count check
        self._synced = False  # the lexical index holds what the store held at the last check
        self._lex: LexicalIndex | None = None
        self._all: dict[str, StoredDoc] | None = None
        self._cache: OrderedDict[str, StoredDoc] = OrderedDict()
        self._idf: Idf | None = None
        self._filters: FilterTable | None = None
        self._whole: dict[str, tuple[list[str], np.ndarray]] = {}  # a small collection's every vector (_whole_vectors)
        self._state: str | None = None  # the index state its mirrors are valid for (assistant/store/mirror.py)
        self._exact: OrderedDict[tuple[str, frozenset[str]], tuple[list[str], np.ndarray]] = OrderedDict()
        self._years: dict[Filters, frozenset[str]] = {}  # year-only filters answered by Chroma
        self._text_years: bool | None = None  # some doc stores its year as text (checked once per index state)

    def invalidate(self) -> None:
        with self._lock:
            self._count, self._checked = -1, 0.0

    def _current(self) -> LexicalIndex:
        with self._lock:
            if self._lex is None:
                self._lex = lexical.open_for(self.settings.data_dir, self.settings.collection_prefix)
            refreshed = self._lex.refresh()  # one stat when no other process flushed
            # Another process may have ingested: the store's counts, read at most every
            # count_ttl_s (a count costs ~40 ms at 1M chunks; three per query were 126 of its
            # 138 ms, evals/bench_scale.py --measure). Its own flush is seen at once (refreshed).
            count = self._count
            if refreshed or self._count < 0 or time.monotonic() - self._checked >= self.settings.retrieval.count_ttl_s:
                count = self.store.call("counting", self.store.docs.count)
                # The chunk count from the mirror of this index state when there is one: counting
                # through Chroma opens the chunk segment (seconds at 20k chunks, for every cold start).
                self._state = None if self.settings.chroma_host else mirror.state_key(self.store._flags(), count)
                mirrored = mirror.Mirror(self.settings.data_dir, self.store.chunks.name).count(self._state) if self._state else None
                self._chunk_count = mirrored if mirrored is not None else self.store.call("counting", self.store.chunks.count)
                self._checked = time.monotonic()
            if count != self._count or refreshed:
                self._cache.clear()
                self._all, self._idf, self._filters = None, None, None
                self._exact.clear()
                self._whole.clear()
                self._years.clear()
                self._text_years = None
                self._count, self._synced = count, len(self._lex) == count
            # Behind the store: a Chroma server seen from a data dir without its index. Not while an
            # ingest runs (its flush brings the index in line; a killed one leaves the flag for the
            # next ingest to finish, or a replica once its heartbeat is stale): reconciling then read
            # every abstract per 256-doc batch, 22 s for one query at 22k abstracts
            # (evals/experiments/bench_replicas.py; docs/archive/measurements-diary.md).
            if not self._synced and not self.store.ingest_running():
                self._lex.reconcile({i: d.text for i, d in self.store.all_docs().items()})
                self._synced = True
            return self._lex

    def docs(self) -> dict[str, StoredDoc]:
        """Every stored abstract (read once per index state: for statistics and evaluation)."""
        self._current()
        with self._lock:
            if self._all is None:
                self._all = self.store.all_docs()
            return self._all

    def fetch(self, ids: list[str]) -> dict[str, StoredDoc]:
        """The stored abstracts of ``ids`` (those that exist), through the cache."""
        with self._lock:
            need = [i for i in ids if i not in self._cache]
        got = self.store.get_docs(need) if need else {}
        with self._lock:
            self._cache.update(got)
            for i in ids:
                if i in self._cache:
                    self._cache.move_to_end(i)
            while len(self._cache) > self.settings.retrieval.doc_cache:
                self._cache.popitem(last=False)
            return {i: self._cache[i] for i in ids if i in self._cache}

    def idf(self, exclude: set[str] | None = None) -> Idf:
        """IDF of the collection's terms, from the lexical index's document frequencies;
        ``exclude`` (works): as if they were not indexed (leave-one-out)."""
        lex = self._current()
        with self._lock:
            if self._idf is None:
                self._idf = Idf.of_index(len(lex), lex.doc_freq)
            idf = self._idf
        if not exclude:
            return idf
        return idf.without([doc.text for doc in self.docs().values() if doc.work_id in exclude])

    def allowed(self, filters: Filters | None) -> frozenset[str] | None:
        """The doc ids ``filters`` admit (None: no filter). The filterable fields of every doc are
        read once per index state (like ``docs``), then each filter is a scan of them. That first
        read is Chroma's metadata of every doc: 23 s at 22k abstracts on the loaded 2-core machine
        (evals/experiments/bench_filters.py); Chroma cannot read chosen keys only, nor match substrings of them."""
        if not filters:
            return None
        self._current()
        with self._lock:
            table = self._filters
        if table is None and filters.year_only:
            by_year = self._year_ids(filters)
            if by_year is not None:
                return by_year
        if table is None:
            table = FilterTable.build(self.store.filter_rows())
            with self._lock:
                self._filters = table
        return table.allowed(filters)

    def _year_ids(self, filters: Filters) -> frozenset[str] | None:
        """A year-only filter asked of Chroma (ids only: 0.05-0.55 s at 22k abstracts, where
        building the filter table reads every doc's metadata, 23-44 s; evals/experiments/bench_filters.py).
        None when some doc stores its year as text (indexes ingested before years were ints):
        Chroma's range would skip those, so the table decides."""
        with self._lock:
            if filters in self._years:
                return self._years[filters]
        if self._text_years is None:
            texts = [str(y) for y in range(YEAR_MIN, YEAR_MAX + 1)]
            self._text_years = bool(self.store.call("reading abstracts", self.store.docs.get,
                                                    where={"year": {"$in": texts}}, include=[], limit=1)["ids"])
        if self._text_years:
            return None
        bounds = [{"year": {op: y}} for op, y in (("$gte", filters.year_min), ("$lte", filters.year_max)) if y is not None]
        got = frozenset(self.store.ids_where(bounds[0] if len(bounds) == 1 else {"$and": bounds}))
        with self._lock:
            if len(self._years) >= 16:  # sanity bound, as FilterTable's memo
                self._years.pop(next(iter(self._years)))
            self._years[filters] = got
        return got

    def embed_query(self, query: str) -> np.ndarray:
        return np.asarray(self.embedder([query]), dtype=np.float32)[0]

    def signals(self, query: str, n: int, names: Iterable[str] = SIGNALS, vector: np.ndarray | None = None,
                filters: Filters | None = None, exclude: set[str] | None = None) -> dict[str, Ranked]:
        """Each signal's ``n`` best abstracts with its raw score (cosine, or BM25); with
        ``filters``, the best among the abstracts they admit (each signal searches that set);
        ``exclude`` (works): BM25 scores as if they were not indexed (``retrieve`` drops them)."""
        lex = self._current()
        allow = self.allowed(filters)
        names = list(names)
        out: dict[str, Ranked] = {}
        if allow is not None and not allow:
            return {s: [] for s in names}
        if "bm25" in names:
            gone = {d for d, doc in self.docs().items() if doc.work_id in exclude} if exclude else None
            out["bm25"] = lex.search(query, n + len(gone or ()), exclude=gone, allow=allow)
        if any(s in names for s in ("chunk", "abstract")):
            vec = self.embed_query(query) if vector is None else vector
            if "chunk" in names:
                out["chunk"] = self._chunk_search(vec, n, allow)
            if "abstract" in names:
                out["abstract"] = self._abstract_search(vec, n, allow)
        return out

    def _chunk_search(self, vec: np.ndarray, n: int, allow: frozenset[str] | None = None) -> Ranked:
        want = min(n * self.settings.retrieval.chunks_per_candidate, self._chunk_count)
        if want <= 0:
            return []
        # Chunk ids are "<doc_id>-<chunk index>" (ingest/pipeline.py): no metadata read needed.
        got = self._vector_query(self.store.chunks, vec, want, self._chunk_count, allow, "doc_id")
        return max_pool([cid.rsplit("-", 1)[0] for cid, _ in got], [s for _, s in got])[:n]

    def _abstract_search(self, vec: np.ndarray, n: int, allow: frozenset[str] | None = None) -> Ranked:
        want = min(n, self._count)
        if want <= 0 or not self.store.has_abstract_vectors():
            return []
        return self._vector_query(self.store.docs, vec, want, self._count, allow, None)[:n]

    def _vector_query(self, collection: Any, vec: np.ndarray, want: int, total: int, allow: frozenset[str] | None,
                      owner_key: str | None) -> Ranked:
        """The ``want`` nearest items (id, cosine) of ``collection``, among those of ``allow``'s
        docs when given: a wide filter reads the unfiltered ranking far enough down (its first
        allowed items are the filtered ranking), a narrow one asks Chroma for those docs only
        (``where doc_id $in``, or ``ids``), in batches under SQLite's variable bound."""
        def query(n_results: int, **restrict: Any) -> Ranked:
            got = self.store.call("searching", collection.query, query_embeddings=[vec], n_results=n_results,
                                  include=["distances"], **restrict)
            return [(i, 1.0 - float(d)) for i, d in zip(got["ids"][0], got["distances"][0], strict=True)]

        cfg = self.settings.retrieval
        if allow is None:
            # A small collection is ranked exactly: Chroma's HNSW is approximate, and items not yet
            # persisted (under hnsw:sync_threshold 1000: all abstract vectors of a small corpus) join a
            # graph rebuilt by several threads at each open, so two processes on one data dir missed
            # different items (an overview cited 3 works, then 2: python -m evals.experiments.determinism,
            # evals/experiments/INDEX.md).
            # Not through a Chroma server: it keeps one graph for all its clients, and each query there
            # still asks it (a stopped server is a StoreError, not an answer from memory: test_faults.py).
            exact_here = total <= cfg.exact_max and not self.settings.chroma_host
            whole = self._whole_vectors(collection) if exact_here else None
            return exact_top(*whole, vec, want) if whole is not None else query(want)
        share = len(allow) / max(self._count, 1)
        owner = (lambda i: i.rsplit("-", 1)[0]) if owner_key else (lambda i: i)
        if share >= cfg.filter_scan_share:
            deeper = min(total, int(want / share * cfg.filter_scan_depth) + 1)
            got = [(i, s) for i, s in query(deeper) if owner(i) in allow]
            if len(got) >= want or deeper >= total:
                return got[:want]
        exact = self._exact_vectors(collection, allow, owner_key is not None)
        if exact is not None:
            return exact_top(*exact, vec, want)
        ids = sorted(allow)
        out: Ranked = []
        for b in range(0, len(ids), cfg.filter_in_batch):
            part = ids[b : b + cfg.filter_in_batch]
            restrict = {"where": {owner_key: {"$in": part}}} if owner_key else {"ids": part}
            out += query(min(want, total), **restrict)
        return sorted(out, key=lambda kv: -kv[1])[:want]

    def _whole_vectors(self, collection: Any) -> tuple[list[str], np.ndarray] | None:
        """Every item's unit vector (ids sorted), read once per index state (``_current`` clears it);
        mapped from the data dir's mirror when a process already read them (assistant/store/mirror.py)."""
        with self._lock:
            if collection.name in self._whole:
                return self._whole[collection.name]
            key = self._state
        whole = mirror.read_whole(self.store, collection, key)
        if whole is None:
            return None
        with self._lock:
            self._whole[collection.name] = whole
        return whole

    def _exact_vectors(self, collection: Any, allow: frozenset[str], chunks: bool) -> tuple[list[str], np.ndarray] | None:
        """The unit vectors of a narrow filter's items, read by id once (Chroma's ``where`` costs
        ~100-200 ms a query at 100k chunks whatever the filter admits; a product with the kept
        vectors is exact and takes a millisecond; evals/experiments/bench_filters.py). None when too many."""
        key = (collection.name, allow)
        with self._lock:
            if key in self._exact:
                self._exact.move_to_end(key)
                return self._exact[key]
        table = self._filters
        cap = self.settings.retrieval.filter_exact_max
        ids = (table.chunk_ids(allow) if table is not None else None) if chunks else sorted(allow)
        if ids is None and chunks and len(allow) <= cap:  # no table (a year-only filter): ask for the chunk ids
            ids, docs = [], sorted(allow)
            for b in range(0, len(docs), self.settings.retrieval.filter_in_batch):
                ids += self.store.call("searching", collection.get, include=[],
                                       where={"doc_id": {"$in": docs[b : b + self.settings.retrieval.filter_in_batch]}})["ids"]
        if ids is None or len(ids) > cap:
            return None
        got_ids: list[str] = []
        parts: list[np.ndarray] = []
        for b in range(0, len(ids), self.settings.retrieval.filter_in_batch):
            got = self.store.call("searching", collection.get, ids=ids[b : b + self.settings.retrieval.filter_in_batch],
                                  include=["embeddings"])
            got_ids += list(got["ids"])
            parts.append(np.asarray(got["embeddings"], dtype=np.float32).reshape(len(got["ids"]), -1))
        matrix = np.concatenate(parts) if parts else np.zeros((0, 1), dtype=np.float32)
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        with self._lock:
            self._exact[key] = (got_ids, matrix)
            while len(self._exact) > 8:  # sanity bound: a few filters in use at once (<= 8 x 20k x 1.5 kB)
                self._exact.popitem(last=False)
        return got_ids, matrix

    def retrieve(self, query: str, k: int, mode: str = "hybrid", exclude: set[str] | None = None,
                 lists: dict[str, Ranked] | None = None, filters: Filters | None = None) -> list[tuple[StoredDoc, float]]:
        """The k best abstracts, one per work, with fused scores (higher is better). ``exclude``
        drops works (leave-one-out evaluation); ``lists`` reuses signals already computed (with
        the same ``filters``); ``filters`` ranks within the abstracts they admit."""
        if mode not in MODES:
            raise ValueError(f"unknown search mode {mode!r}; choose one of {', '.join(MODES)}")
        self._current()
        if self._count <= 0 or not query.strip() or k <= 0:
            return []
        cfg = self.settings.retrieval
        n = max(self.settings.candidates, k + 5)  # versions of one work share the list: a few more than k
        lists = lists if lists is not None else self.signals(query, n, MODE_SIGNALS[mode], filters=filters)
        lists = {s: r for s, r in lists.items() if s in MODE_SIGNALS[mode]}
        allow = self.allowed(filters)
        if allow is not None:  # lists handed in: keep only what the filter admits
            lists = {s: [(d, v) for d, v in r if d in allow] for s, r in lists.items()}
        if exclude:  # as if the excluded works were not indexed: gone before the fusion's normalisation
            docs = self.docs()
            lists = {s: [(d, v) for d, v in r if d in docs and docs[d].work_id not in exclude] for s, r in lists.items()}
        if mode == "baseline":
            fused = fuse(lists, BASELINE["weights"], "rrf", BASELINE["rrf_k"])  # type: ignore[arg-type]
        else:
            fused = fuse(lists, cfg.weights(self.settings.dense_weight), cfg.fusion, cfg.rrf_k)
        return self._collapse(fused, k)

    def _collapse(self, fused: Ranked, k: int) -> list[tuple[StoredDoc, float]]:
        """The best abstract of each work, fetching the ranked abstracts a few at a time."""
        out: list[tuple[StoredDoc, float]] = []
        seen: set[str] = set()
        step = max(2 * k, k + 10)
        for start in range(0, len(fused), step):
            batch = fused[start : start + step]
            docs = self.fetch([d for d, _ in batch])
            out += collapse_works(batch, docs, k - len(out), seen)
            if len(out) >= k:
                break
        return out


def collapse_works(fused: Ranked, docs: dict[str, StoredDoc], k: int, seen: set[str] | None = None) -> list[tuple[StoredDoc, float]]:
    """The first ``k`` abstracts of ``fused`` that exist in ``docs``, one per work (``seen``: works
    already taken, updated)."""
    out: list[tuple[StoredDoc, float]] = []
    seen = set() if seen is None else seen
    for doc_id, score in fused:
        doc = docs.get(doc_id)
        if doc is None or doc.work_id in seen:
            continue
        seen.add(doc.work_id)
        out.append((doc, score))
        if len(out) >= k:
            break
    return out
