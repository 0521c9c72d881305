"""Writing new abstracts: chunk, embed, then Chroma (chunks first, the doc record last) and the
lexical index, batch by batch.

The Chroma writes of one batch run in a background thread while the next batch is chunked and
embedded: the server works (another process) while this one does. At most one batch is in
flight, its chunks still written before its doc record, so a kill leaves what it left before
(orphan chunks at most, swept by the next ingest). Measured with ``python -m evals.bench_scale``
(the commit that added it gives the figures).
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
from llama_index.core.vector_stores.utils import node_to_metadata_dict

from assistant.store import lexical
from assistant.store.chroma import Store, StoredDoc, doc_metadata
from ingest import late_chunks
from ingest.chunking import chunk_text
from ingest.progress import IngestProgress

# Whole-abstract vectors derived from the chunk vectors (normalised mean) instead of embedding
# every abstract a second time. Measured by the retrieval CV (the retired probe retrieval_variants,
# evals/experiments/INDEX.md: --data-dir D --scifact-dir S --variants "naive baseline,fitted,
# whole exact,derived,shipped,shipped derived"; dev + generated + SciFact-2101 train, 5 folds,
# held-out mean +- sd, load ~5-12): all nDCG@10 with the shipped weights 0.835 +- 0.016 (whole)
# vs 0.825 +- 0.019 (derived): more than one standard error (0.007) lower, dev 0.994 -> 0.976,
# paraphrase 0.615 -> 0.595; refitted,
# the derived list gets weight 0 (chunk 0.5 + BM25 0.5: 0.829 +- 0.020, within one SE, but that
# is a different fusion to refit in settings). So off: the second embedding pays.
DERIVED_ABSTRACT_VECTORS = False
# "late": the chunks' vectors pooled from the abstract's own pass (ingest/late_chunks.py), one pass
# per abstract; "own": each chunk embedded alone (a second pass over the abstract's words).
# `python -m evals.bench_live --modes own,late --limit 96` (one process, alternated, load ~17):
# ingest / raw embedder 1.03 late vs 2.24 own. Retrieval, 5-fold CV held-out (indexes by
# `python -m evals.chunk_vector_indexes`, `evals.fit retrieval` on each): dev + generated nDCG@10
# 0.8348 +- 0.0109 own (shipped fusion) vs 0.8299 +- 0.0128 late (refitted; the refit keeps the
# shipped fusion within one SE), Recall@5 0.8801 +- 0.0128 vs 0.8704 +- 0.0076; SciFact train
# (300-abstract subset) nDCG@10 0.9392 +- 0.042 vs 0.9338 +- 0.034: within the spread.
CHUNK_VECTORS = "late"


@dataclass
class _Batch:
    docs: list[StoredDoc]
    nodes: list[TextNode]
    vectors: np.ndarray
    doc_vectors: np.ndarray


def write_new_docs(
    docs: list[StoredDoc], store: Store, embedder: Any, lex: lexical.LexicalIndex, report: Any, progress: bool,
    batch_docs: int, flush_docs: int,
) -> int:
    """Embed and write ``docs`` in batches of ``batch_docs``; the lexical index writes a delta
    every ``flush_docs`` or so (after the Chroma writes it covers). Returns the chunks written."""
    bar = IngestProgress(store.settings.data_dir if not store.settings.chroma_host else None, len(docs), bar=progress)
    chunks = 0
    try:
        pending: Future[None] | None = None
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="chroma-writer") as writer:
            for n, b in enumerate(range(0, len(docs), batch_docs)):
                batch = _prepare(docs[b : b + batch_docs], embedder, report)  # while the previous batch is written
                chunks += len(batch.nodes)
                if pending is not None:
                    pending.result()  # raises the writer's StoreError here
                pending = writer.submit(_store, batch, store)
                if n:
                    store.mark_ingest("running")  # the heartbeat replicas read (Store.ingest_running)
                lex.add([d.doc_id for d in batch.docs], [d.text for d in batch.docs])
                if n % max(1, flush_docs // batch_docs) == 0:
                    pending.result()
                    lex.flush()
                bar.update(len(batch.docs))
            if pending is not None:
                pending.result()
    except BaseException:
        bar.close("stopped")
        raise
    bar.close()
    return chunks


def abstract_vectors(docs: list[StoredDoc], embedder: Any, report: Any) -> np.ndarray:
    t = time.perf_counter()
    vectors = np.asarray(embedder([d.text for d in docs]), dtype=np.float32)
    report.embed_seconds += time.perf_counter() - t
    return vectors


def _prepare(docs: list[StoredDoc], embedder: Any, report: Any) -> _Batch:
    count = getattr(embedder, "count_tokens", lambda t: len(t.split()) * 4 // 3)
    nodes: list[TextNode] = []
    spans: list[list[tuple[int, int]]] = []
    for doc in docs:
        doc_chunks = chunk_text(doc.text, count)
        spans.append([(ch.start, ch.end) for ch in doc_chunks])
        for ch in doc_chunks:
            node = TextNode(
                id_=f"{doc.doc_id}-{ch.index}", text=ch.text, start_char_idx=ch.start, end_char_idx=ch.end,
                metadata={"label": doc.label, "chunk": ch.index},
                excluded_embed_metadata_keys=["label", "chunk"], excluded_llm_metadata_keys=["chunk"],
            )
            node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=doc.doc_id)
            nodes.append(node)
        doc.metadata["n_chunks"] = len(doc_chunks)
    if CHUNK_VECTORS == "late" and late_chunks.supports(embedder):
        t = time.perf_counter()
        doc_vectors, per_doc = late_chunks.late_vectors(embedder, [d.text for d in docs], spans)
        report.embed_seconds += time.perf_counter() - t
        return _Batch(docs, nodes, np.concatenate(per_doc) if nodes else np.zeros((0, doc_vectors.shape[1]), np.float32),
                      doc_vectors)
    if DERIVED_ABSTRACT_VECTORS:
        vectors = embed_once([n.text for n in nodes], embedder, report)
        return _Batch(docs, nodes, vectors, derived_vectors(docs, vectors))
    # A doc's own vector: the whole abstract embedded once (its first 256 word pieces), the
    # retriever's "abstract" signal (assistant/search/retrieval.py says why). Chunks and abstracts go to
    # the embedder in one call: its length-sorted batches pad less, and an abstract that is a
    # single chunk (the same text) is embedded once.
    both = embed_once([n.text for n in nodes] + [d.text for d in docs], embedder, report)
    return _Batch(docs, nodes, both[: len(nodes)], both[len(nodes) :])


def embed_once(texts: list[str], embedder: Any, report: Any) -> np.ndarray:
    """One vector per text, each distinct text embedded once."""
    unique = list(dict.fromkeys(texts))
    t = time.perf_counter()
    vectors = np.asarray(embedder(unique), dtype=np.float32) if unique else np.zeros((0, 0), np.float32)
    report.embed_seconds += time.perf_counter() - t
    if len(unique) == len(texts):
        return vectors
    row = {text: i for i, text in enumerate(unique)}
    return vectors[[row[text] for text in texts]]


def derived_vectors(docs: list[StoredDoc], chunk_vectors: np.ndarray) -> np.ndarray:
    """Each doc's vector as the normalised mean of its chunks' (in ``_prepare``'s order)."""
    out, start = [], 0
    for doc in docs:
        n = int(doc.metadata["n_chunks"])
        mean = chunk_vectors[start : start + n].mean(axis=0)
        out.append(mean / (np.linalg.norm(mean) or 1.0))
        start += n
    return np.asarray(out, dtype=np.float32)


def _store(batch: _Batch, store: Store) -> None:
    nodes = batch.nodes
    store.call("writing chunks", store.chunks.upsert, ids=[n.node_id for n in nodes], embeddings=batch.vectors,
               documents=[n.text for n in nodes],
               metadatas=[node_to_metadata_dict(n, remove_text=True, flat_metadata=True) for n in nodes])
    store.call("writing abstracts", store.docs.upsert, ids=[d.doc_id for d in batch.docs], embeddings=batch.doc_vectors,
               documents=[d.text for d in batch.docs], metadatas=[doc_metadata(d) for d in batch.docs])


class _NoBar:
    def update(self, n: int) -> None: ...
    def close(self) -> None: ...


def progress_bar(total: int, enabled: bool, desc: str) -> Any:
    """A bar of ``total`` abstracts on stderr when it is a terminal (tqdm), else nothing."""
    if not enabled or total == 0:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="abstract", desc=desc, file=sys.stderr, disable=not sys.stderr.isatty())
