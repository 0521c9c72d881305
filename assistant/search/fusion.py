"""How ranked lists become one, and vectors ranked exactly: the pure parts of retrieval
(``assistant/search/retrieval.py`` holds the retriever that calls them).

- ``fuse``: ``dist`` is LlamaIndex's ``dist_based_score``, ``rrf`` its reciprocal-rank fusion
  (a few lines each; importing ``llama_index.core`` costs ~2.4 s of the 3 s cold-start goal);
- ``max_pool``: chunk similarities to each abstract's best chunk;
- ``exact_top``: exact cosine ranking for a collection small enough to hold in memory.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

Ranked = list[tuple[str, float]]


# --- fusion ---------------------------------------------------------------------------------------
def _dist_normalized(ranked: Ranked) -> dict[str, float]:
    """LlamaIndex's ``dist_based_score``: scores scaled by mean +- 3 standard deviations of the list."""
    if not ranked:
        return {}
    scores = np.array([s for _, s in ranked], dtype=np.float64)
    mu, sd = float(scores.mean()), float(scores.std())
    lo, hi = mu - 3 * sd, mu + 3 * sd
    if hi - lo <= 0:
        return {d: 1.0 for d, _ in ranked}
    return {d: (s - lo) / (hi - lo) for d, s in ranked}


def fuse(lists: dict[str, Ranked], weights: dict[str, float], method: str = "dist", rrf_k: float = 60.0) -> Ranked:
    """Merge ranked lists (best first) into one: ``dist`` (weighted sum of distribution-normalised
    scores) or ``rrf`` (weighted reciprocal rank, Cormack et al. 2009)."""
    total: dict[str, float] = {}
    for name, ranked in lists.items():
        w = weights.get(name, 0.0)
        if w <= 0 or not ranked:
            continue
        if method == "rrf":
            parts = {d: 1.0 / (rrf_k + r) for r, (d, _) in enumerate(ranked, start=1)}
        elif method == "dist":
            parts = _dist_normalized(ranked)
        else:
            raise ValueError(f"unknown fusion method {method!r} (dist or rrf)")
        for d, v in parts.items():
            total[d] = total.get(d, 0.0) + w * v
    return sorted(total.items(), key=lambda kv: -kv[1])


def max_pool(owners: Iterable[str], sims: Iterable[float]) -> Ranked:
    """Chunk similarities -> each abstract's best chunk, best first."""
    best: dict[str, float] = {}
    for doc_id, sim in zip(owners, sims, strict=True):
        if sim > best.get(doc_id, -2.0):
            best[doc_id] = sim
    return sorted(best.items(), key=lambda kv: -kv[1])



def exact_top(ids: list[str], matrix: np.ndarray, vec: np.ndarray, want: int) -> Ranked:
    """The ``want`` items nearest ``vec`` by exact cosine; equal cosines in id order (a stable sort
    over ids held sorted or in the filter table's order), never in memory order."""
    # einsum, not BLAS: OpenBLAS's threaded matrix-vector product took 8 ms here on 2 busy cores, einsum 0.08 ms
    sims = np.einsum("ij,j->i", matrix, (vec / (np.linalg.norm(vec) or 1.0)).astype(matrix.dtype))
    top = np.argsort(-sims, kind="stable")[:want]
    return [(ids[i], float(sims[i])) for i in top]
