"""bm25s' lucene BM25 score matrix built from flat token ids (the lexical index's segments)."""

from __future__ import annotations

from typing import Any

import numpy as np

K1, B = 1.5, 0.75  # bm25s defaults (lucene); a 48-point grid over k1/b spanned +-0.006 nDCG on SciFact train


def build_scores(flat: np.ndarray, offsets: np.ndarray, n_vocab: int, bg_df: np.ndarray | None = None,
                 bg_docs: int = 0, bg_tokens: int = 0) -> dict[str, Any]:
    """bm25s' lucene BM25 score matrix (its ``scores`` dict: CSC over terms) from flat token ids.

    ``bg_*``: document frequencies (per term of this vocabulary), documents and tokens of the rest
    of the index, so that a small delta segment is scored with corpus-wide IDF and average length
    (a 1-document segment on its own would give every term IDF log(1 + 0.5/1.5) = 0.29).

    Same formulas as bm25s.scoring (_score_idf_lucene, _score_tfc_lucene), vectorised: bm25s'
    build_index_from_ids wants a list of Python lists and counts each doc with a Counter; at 160k
    abstracts (~20M tokens) those lists alone would take ~0.7 GB. tests/test_lexical.py checks the
    result equals bm25s.BM25.index on the same corpus.
    """
    n_docs = len(offsets) - 1
    lengths = np.diff(offsets)
    doc = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
    keys, tf = np.unique(doc * n_vocab + flat.astype(np.int64), return_counts=True)
    rows, terms = keys // n_vocab, keys % n_vocab
    df = np.bincount(terms, minlength=n_vocab)
    df_all = df + (bg_df if bg_df is not None else 0)
    n_all = n_docs + bg_docs
    idf = np.log(1.0 + (n_all - df_all + 0.5) / (df_all + 0.5))
    avg = (int(lengths.sum()) + bg_tokens) / n_all if n_all else 1.0
    tfc = tf / (K1 * ((1 - B) + B * lengths[rows] / (avg or 1.0)) + tf)
    data = (idf[terms] * tfc).astype(np.float32)
    order = np.argsort(terms, kind="stable")  # CSC: columns are terms, rows within a column ascending
    indptr = np.concatenate([[0], np.cumsum(df)]).astype(np.int64)
    return {"data": data[order], "indices": rows[order].astype(np.int32), "indptr": indptr, "num_docs": n_docs}
