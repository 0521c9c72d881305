"""Hybrid retrieval over abstracts: dense (Chroma chunks, max-pooled per abstract) + BM25
(LlamaIndex's BM25Retriever over whole abstracts), fused by LlamaIndex's QueryFusionRetriever.

Both retrievers return the same abstract-level nodes, so fusion works on abstracts, and the
versions of one work are collapsed to the best-scoring one.

The design was measured with ``python -m evals.tune_retrieval`` (SciFact-2101 train split, 188
claims, nDCG@10; chosen there, then reported on test; the dev set's tune split is saturated,
0.97-0.99 for every reasonable hybrid, and served as a no-regression check):

- dense, chunk vectors max-pooled per abstract: 0.808; the abstract's mean-of-chunks vector
  (docs collection) 0.757; sum of the two best chunks 0.803; 0.7*max + 0.3*mean 0.808. -> max.
- BM25 (bm25s through BM25Retriever, English stemmer + stopwords): 0.783 with the library's
  defaults (lucene, k1=1.5, b=0.75); a 48-point grid over k1/b/variant spans 0.775-0.786, no
  stemming 0.762. -> library defaults. RM3 query expansion from the top BM25 docs: 0.753-0.790
  alone and no better in the hybrid (<= 0.844). -> none.
- fusion, 40 candidates per retriever, weight on dense: relative_score 0.836 (w=0.5), 0.843
  (0.6); dist_based_score 0.841 (0.5), 0.842 (0.6); our own z-score 0.843 (0.6); reciprocal rank
  (k=60, unweighted in the library) 0.836. All within noise of one another from w=0.55 to 0.7;
  dist_based_score at w=0.6 is best on the dev tune split (0.982 vs 0.974 relative_score).
  -> the library's dist_based_score, dense_weight 0.6. Depth 20/40/80: +-0.003. -> 40.
- also tried, not adopted: BM25 over chunks (0.741 alone; hybrid 0.828), chunk-level fusion
  before pooling (0.805-0.828), dense pseudo-relevance feedback (query + 0.3-1.0 x the first
  pass's top 1-5 abstract vectors: 0.834-0.847, i.e. no gain on train).

Latency: the query is embedded once; the chunk search goes to Chroma directly and asks for
distances only (chunk ids name their abstract). LlamaIndex's VectorStoreIndex retriever fetches
the 120 chunks' texts and metadata and rebuilds a node from JSON for each: on the bundled corpus
that was ~19 ms of Chroma metadata reads + ~0.1 ms per node, against ~2.5 ms for the vector
search alone. BM25 hits map to prebuilt nodes for the same reason.
"""

from __future__ import annotations

import threading
from typing import Any

import bm25s
import numpy as np
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.llms.mock import MockLLM
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.retrievers.bm25 import BM25Retriever

from assistant.settings import Settings
from assistant.store import Store, StoredDoc

MODES = ("hybrid", "dense", "bm25")
FUSION_MODE = "dist_based_score"  # see the module docstring for the measurements
CHUNKS_PER_CANDIDATE = 3  # chunk hits fetched per wanted abstract before max-pooling


class DenseAbstractRetriever(BaseRetriever):
    """Chunk-level vector search in Chroma, max-pooled to abstracts (score: cosine similarity)."""

    def __init__(self, store: Store, embedder: Any, doc_nodes: dict[str, TextNode], top_k: int, n_chunks: int) -> None:
        super().__init__()
        self._store = store
        self._embedder = embedder
        self._doc_nodes = doc_nodes
        self._top_k = top_k
        self._n_chunks = n_chunks

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        n = min(self._top_k * CHUNKS_PER_CANDIDATE, self._n_chunks)
        if n <= 0:
            return []
        vec = query_bundle.embedding
        if vec is None:
            vec = np.asarray(self._embedder([query_bundle.query_str]), dtype=np.float32)[0]
        got = self._store.call("searching", self._store.chunks.query, query_embeddings=[np.asarray(vec, dtype=np.float32)],
                               n_results=n, include=["distances"])
        ids, dists = got["ids"][0], got["distances"][0]
        # Chunk ids are "<doc_id>-<chunk index>" (ingest/pipeline.py); asking Chroma for the
        # metadata instead costs ~8x the vector search itself (120 hits: 19 ms vs 2.5 ms CPU).
        owners = [cid.rsplit("-", 1)[0] for cid in ids]
        unknown = [cid for cid, o in zip(ids, owners, strict=True) if o not in self._doc_nodes]
        if unknown:  # another id scheme: ask for the metadata of those chunks only
            meta = self._store.call("searching", self._store.chunks.get, ids=unknown, include=["metadatas"])
            by_id = {i: str((m or {}).get("doc_id") or (m or {}).get("ref_doc_id") or "") for i, m in zip(meta["ids"], meta["metadatas"], strict=True)}
            owners = [by_id.get(cid, o) for cid, o in zip(ids, owners, strict=True)]
        best: dict[str, float] = {}
        for doc_id, dist in zip(owners, dists, strict=True):
            if doc_id in self._doc_nodes:
                sim = 1.0 - float(dist)
                if sim > best.get(doc_id, -2.0):
                    best[doc_id] = sim
        ranked = sorted(best.items(), key=lambda kv: -kv[1])[: self._top_k]
        return [NodeWithScore(node=self._doc_nodes[d], score=s) for d, s in ranked]


class AbstractBM25Retriever(BM25Retriever):
    """LlamaIndex's BM25Retriever returning our prebuilt abstract nodes (not nodes rebuilt from
    JSON per hit), without zero-score hits (a query sharing no term with an abstract)."""

    def __init__(self, nodes: list[TextNode], top_k: int, index: AbstractBM25Retriever | None = None) -> None:
        """Index ``nodes``, or share the bm25s index of ``index`` (built over the same nodes)."""
        if index is None:
            super().__init__(nodes=nodes, similarity_top_k=min(top_k, len(nodes)), language="english")
        else:
            super().__init__(existing_bm25=index.bm25, similarity_top_k=min(top_k, len(nodes)))
        self._nodes = nodes

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        tokens = bm25s.tokenize(query_bundle.query_str, stemmer=self.stemmer if not self.skip_stemming else None,
                                token_pattern=self.token_pattern, show_progress=False, return_ids=False)
        known = [t for t in tokens[0] if t in self.bm25.vocab_dict]
        if not known:
            return []
        indexes, scores = self.bm25.retrieve([known], k=self.similarity_top_k, show_progress=False)
        return [NodeWithScore(node=self._nodes[int(i)], score=float(s)) for i, s in zip(indexes[0], scores[0], strict=True) if s > 0]


class HybridRetriever:
    """Builds (and rebuilds when the index changes) the retrievers for each mode."""

    def __init__(self, settings: Settings, store: Store, embedder: Any) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self._lock = threading.Lock()
        self._state: tuple[int, dict[str, StoredDoc], dict[str, TextNode], int] | None = None
        self._bm25: AbstractBM25Retriever | None = None
        self._built: dict[int, dict[str, BaseRetriever]] = {}

    def docs(self) -> dict[str, StoredDoc]:
        return self._current()[1]

    def invalidate(self) -> None:
        with self._lock:
            self._state = None
            self._bm25 = None
            self._built = {}

    def _current(self) -> tuple[int, dict[str, StoredDoc], dict[str, TextNode], int]:
        with self._lock:
            count = self.store.call("counting", self.store.docs.count)  # another process may have ingested
            if self._state is None or self._state[0] != count:
                docs = self.store.all_docs()
                nodes = {d.doc_id: TextNode(id_=d.doc_id, text=d.text) for d in docs.values()}
                self._state = (count, docs, nodes, self.store.call("counting", self.store.chunks.count))
                self._bm25 = None
                self._built = {}
            return self._state

    def _retrievers(self, state: tuple[int, dict[str, StoredDoc], dict[str, TextNode], int], n: int) -> dict[str, BaseRetriever]:
        _, _, nodes, n_chunks = state
        with self._lock:
            if n in self._built:
                return self._built[n]
            dense = DenseAbstractRetriever(self.store, self.embedder, nodes, n, n_chunks)
            out: dict[str, BaseRetriever] = {"dense": dense}
            if nodes:
                node_list = list(nodes.values())
                if self._bm25 is None:  # the index is built once per corpus state; each depth shares it
                    self._bm25 = AbstractBM25Retriever(node_list, n)
                bm25 = self._bm25 if self._bm25.similarity_top_k == min(n, len(nodes)) else AbstractBM25Retriever(node_list, n, self._bm25)
                w = min(max(self.settings.dense_weight, 0.0), 1.0)
                out["bm25"] = bm25
                out["hybrid"] = QueryFusionRetriever(
                    [dense, bm25], mode=FUSION_MODE, similarity_top_k=n,  # type: ignore[arg-type]
                    num_queries=1, use_async=False, llm=MockLLM(),  # one query: the LLM is never called
                    retriever_weights=[w, 1.0 - w],
                )
            if self._state is state:  # not rebuilt meanwhile by another thread
                self._built[n] = out
            return out

    def retrieve(self, query: str, k: int, mode: str = "hybrid") -> list[tuple[StoredDoc, float]]:
        """The k best abstracts, one per work, with scores (higher is better; hybrid: fused)."""
        if mode not in MODES:
            raise ValueError(f"unknown search mode {mode!r}; choose one of {', '.join(MODES)}")
        state = self._current()
        docs = state[1]
        if not docs or not query.strip() or k <= 0:
            return []
        # versions of one work share the candidate list: ask for a few more than k
        n = max(self.settings.candidates, k + 5)
        retriever = self._retrievers(state, n).get(mode)
        if retriever is None:
            return []
        results = retriever.retrieve(QueryBundle(query))
        out: list[tuple[StoredDoc, float]] = []
        seen_works: set[str] = set()
        for r in results:
            doc = docs.get(r.node.node_id)
            if doc is None or doc.work_id in seen_works:
                continue
            seen_works.add(doc.work_id)
            out.append((doc, float(r.score or 0.0)))
            if len(out) >= k:
                break
        return out
