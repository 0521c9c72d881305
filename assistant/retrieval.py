"""Hybrid retrieval over abstracts: dense (Chroma chunks, max-pooled per abstract) + BM25
(LlamaIndex's BM25Retriever over whole abstracts), fused by LlamaIndex's QueryFusionRetriever.

Both retrievers return the same abstract-level nodes, so fusion works on abstracts, and the
versions of one work are collapsed to the best-scoring one.
"""

from __future__ import annotations

import threading
from typing import Any

from llama_index.core import VectorStoreIndex
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.llms.mock import MockLLM
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.vector_stores.chroma import ChromaVectorStore

from assistant.embeddings import LlamaIndexEmbedding
from assistant.settings import Settings
from assistant.store import Store, StoredDoc


class DenseAbstractRetriever(BaseRetriever):
    """Chunk-level vector search in Chroma, max-pooled to abstracts."""

    def __init__(self, store: Store, embedder: Any, doc_nodes: dict[str, TextNode], top_k: int) -> None:
        super().__init__()
        vector_store = ChromaVectorStore(chroma_collection=store.chunks)
        index = VectorStoreIndex.from_vector_store(vector_store, embed_model=LlamaIndexEmbedding(embedder))
        self._chunks = index.as_retriever(similarity_top_k=top_k * 3)
        self._store = store
        self._doc_nodes = doc_nodes
        self._top_k = top_k

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits = self._store.call("searching", self._chunks.retrieve, query_bundle)
        best: dict[str, float] = {}
        for h in hits:
            doc_id = h.node.ref_doc_id or ""
            if doc_id in self._doc_nodes:
                best[doc_id] = max(best.get(doc_id, 0.0), float(h.score or 0.0))
        ranked = sorted(best.items(), key=lambda kv: -kv[1])[: self._top_k]
        return [NodeWithScore(node=self._doc_nodes[d], score=s) for d, s in ranked]


class HybridRetriever:
    """Builds (and rebuilds when the index changes) the fused retriever."""

    def __init__(self, settings: Settings, store: Store, embedder: Any) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self._lock = threading.Lock()
        self._state: tuple[int, dict[str, StoredDoc], dict[str, BaseRetriever]] | None = None

    def docs(self) -> dict[str, StoredDoc]:
        return self._current()[1]

    def invalidate(self) -> None:
        with self._lock:
            self._state = None

    def _current(self) -> tuple[int, dict[str, StoredDoc], dict[str, BaseRetriever]]:
        with self._lock:
            count = self.store.counts()["abstracts"]
            if self._state is None or self._state[0] != count:
                docs = self.store.all_docs()
                self._state = (count, docs, self._build(docs))
            return self._state

    def _build(self, docs: dict[str, StoredDoc]) -> dict[str, BaseRetriever]:
        from llama_index.retrievers.bm25 import BM25Retriever

        n = self.settings.candidates
        doc_nodes = {d.doc_id: TextNode(id_=d.doc_id, text=d.text) for d in docs.values()}
        retrievers: dict[str, BaseRetriever] = {"dense": DenseAbstractRetriever(self.store, self.embedder, doc_nodes, n)}
        if doc_nodes:
            retrievers["bm25"] = BM25Retriever.from_defaults(
                nodes=list(doc_nodes.values()), similarity_top_k=min(n, len(doc_nodes)), language="english"
            )
            w = self.settings.dense_weight
            retrievers["hybrid"] = QueryFusionRetriever(
                [retrievers["dense"], retrievers["bm25"]], mode="relative_score", similarity_top_k=n,
                num_queries=1, use_async=False, llm=MockLLM(),  # one query: the LLM is never called
                retriever_weights=[w, 1.0 - w],
            )
        return retrievers

    def retrieve(self, query: str, k: int, mode: str = "hybrid") -> list[tuple[StoredDoc, float]]:
        """The k best abstracts, one per work, with fused scores (higher is better)."""
        _, docs, retrievers = self._current()
        if not docs or not query.strip():
            return []
        retriever = retrievers.get(mode) or retrievers["dense"]
        results = retriever.retrieve(query)
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
