"""One embedding pass per abstract: the whole-abstract vector and its chunks' vectors from the
same forward pass ("late chunking", Günther et al. 2024, arXiv:2409.04701).

The offline MiniLM pools its token states over the attention mask; the abstract's vector here is
exactly that (the same numbers as embedding the abstract alone). A chunk's vector is the mean of
the token states inside its character span, read in the abstract's context, instead of a second
pass over the chunk alone. A chunk past the model's 256-token window (cut off by truncation) is
embedded alone, as before. Used when ``ingest.writer.CHUNK_VECTORS == "late"``. An embedder with
``late_known(text, spans)`` (the shipped table of the bundled corpus) answers the texts it holds.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np


def supports(embedder: Any) -> bool:
    """Late chunking needs the token states: the offline MiniLM (or a table in front of it)."""
    module = sys.modules.get("assistant.store.embeddings")  # never built here: not the MiniLM
    return module is not None and isinstance(getattr(embedder, "inner", embedder), module.OfflineMiniLM)


def late_vectors(embedder: Any, texts: list[str], spans: list[list[tuple[int, int]]]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each text's vector and, per text, one vector per (start, end) span."""
    model = getattr(embedder, "inner", embedder)
    dim = model.dimension
    doc_vecs = np.empty((len(texts), dim), dtype=np.float32)
    span_vecs = [np.empty((len(s), dim), dtype=np.float32) for s in spans]
    alone: list[tuple[int, int]] = []  # (text, span) pairs the window does not reach
    known = getattr(embedder, "late_known", None)  # the shipped vectors (ingest/prebuilt.py)
    todo = []
    for i, text in enumerate(texts):
        found = known(text, spans[i]) if known is not None else None
        if found is None:
            todo.append(i)
        else:
            doc_vecs[i], span_vecs[i] = found
    for rows, encoded, hidden, mask in model.batches([texts[i] for i in todo]):
        idx = [todo[r] for r in rows]
        doc_vecs[idx] = model.pooled(hidden, mask)
        for row, i in enumerate(idx):
            offsets = np.array(encoded[row].offsets, dtype=np.int64)
            real = np.array(encoded[row].special_tokens_mask, dtype=bool) == 0
            real &= mask[row].astype(bool)
            covered = int(offsets[real, 1].max()) if real.any() else 0
            for j, (start, end) in enumerate(spans[i]):
                inside = real & (offsets[:, 0] >= start) & (offsets[:, 1] <= end)
                if end > covered or not inside.any():
                    alone.append((i, j))
                    continue
                pooled = hidden[row][inside].mean(axis=0)
                span_vecs[i][j] = pooled / (np.linalg.norm(pooled) or 1.0)
    if alone:
        vectors = np.asarray(embedder([texts[i][slice(*spans[i][j])] for i, j in alone]), dtype=np.float32)
        for (i, j), v in zip(alone, vectors, strict=True):
            span_vecs[i][j] = v
    return doc_vecs, span_vecs
