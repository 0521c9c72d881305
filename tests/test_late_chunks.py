"""One pass per abstract (ingest/late_chunks.py) with the real MiniLM on real abstracts: the
abstract's vector is the embedder's, each chunk's is pooled from the abstract's pass (a chunk the
256-token window does not reach is embedded alone), an ingest stores exactly those, and a shipped
table built under this mode answers what that ingest would compute."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ingest_helpers import distinct_seeds, write_corpus

from assistant.settings import Settings
from assistant.store.chroma import Store
from assistant.store.embeddings import embedder_fingerprint, make_embedder
from ingest import writer
from ingest.chunking import chunk_text
from ingest.late_chunks import late_vectors, supports
from ingest.normalize import normalize_text
from ingest.pipeline import ingest_paths
from ingest.prebuilt import PrebuiltEmbedder, build, corpus_abstracts


@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings.load(data_dir=tmp_path_factory.mktemp("late"))
    return make_embedder(settings), embedder_fingerprint(settings)


def _spans(text: str, embedder) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    return [(c.start, c.end) for c in chunk_text(text, embedder.count_tokens)]


def _long_abstract() -> str:
    """Two real abstracts run together: past the model's 256-token window."""
    return normalize_text(" ".join(distinct_seeds(12)[-2:]))


def test_one_pass_gives_the_abstract_and_its_chunks(minilm) -> None:
    embedder, _ = minilm
    assert supports(embedder)
    texts = [normalize_text(t) for t in distinct_seeds(3)] + [_long_abstract()]
    spans = [_spans(t, embedder) for t in texts]
    assert sum(embedder.count_tokens(texts[-1][s:e]) for s, e in spans[-1]) > 300 and len(spans[-1]) >= 3
    docs, per_doc = late_vectors(embedder, texts, spans)
    alone = np.asarray(embedder(texts), dtype=np.float32)
    assert np.min(np.sum(docs * alone, axis=1)) > 0.9999  # the abstract's own vector, as before
    for text, sp, vecs in zip(texts, spans, per_doc, strict=True):
        assert vecs.shape == (len(sp), docs.shape[1])
        assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
        own = np.asarray(embedder([text[s:e] for s, e in sp]), dtype=np.float32)
        sims = vecs @ own.T
        assert np.diag(sims).min() > 0.5  # read in context, still about its own words
    last_start, last_end = spans[-1][-1]  # past the window: embedded alone
    last_alone = np.asarray(embedder([texts[-1][last_start:last_end]]), dtype=np.float32)[0]
    assert float(per_doc[-1][-1] @ last_alone) > 0.9999


def test_an_ingest_stores_the_pass_vectors(minilm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    embedder, fingerprint = minilm
    monkeypatch.setattr(writer, "CHUNK_VECTORS", "late")
    texts = [normalize_text(t) for t in distinct_seeds(2)] + [_long_abstract()]
    write_corpus(tmp_path / "c", texts)
    settings = Settings.load(data_dir=tmp_path / "data")
    store = Store(settings, fingerprint)
    report = ingest_paths([tmp_path / "c"], store, embedder, progress=False)
    assert report.added == 3
    docs, per_doc = late_vectors(embedder, texts, [_spans(t, embedder) for t in texts])
    got = store.chunks.get(include=["embeddings"])
    stored = dict(zip(got["ids"], np.asarray(got["embeddings"], dtype=np.float32), strict=True))
    assert len(stored) == sum(len(v) for v in per_doc)
    by_text = {d.text: d for d in store.all_docs().values()}
    for text, vecs in zip(texts, per_doc, strict=True):
        doc_id = by_text[text].doc_id
        for j, v in enumerate(vecs):
            assert float(stored[f"{doc_id}-{j}"] @ v) > 0.999


def test_a_table_built_late_answers_the_pass(minilm, tmp_path: Path) -> None:
    """A table built under "late" (``make prebuilt`` with that mode) answers what the pass
    computes (float16 rounding only), so an ingest with or without it stores the same."""
    embedder, fingerprint = minilm
    write_corpus(tmp_path / "c", distinct_seeds(4) + [_long_abstract()])
    path = build(embedder, fingerprint, corpus=tmp_path / "c", mode="late")
    table = PrebuiltEmbedder(embedder, path)
    abstracts = corpus_abstracts(tmp_path / "c", embedder.count_tokens)
    texts = list(abstracts)
    spans = [abstracts[t] for t in texts]
    fresh_docs, fresh_chunks = late_vectors(embedder, texts, spans)
    table_docs, table_chunks = late_vectors(table, texts, spans)
    assert table.hits == len(texts) + sum(len(s) for s in spans)  # nothing computed
    assert np.min(np.sum(table_docs * fresh_docs, axis=1)) > 0.999
    for a, b in zip(table_chunks, fresh_chunks, strict=True):
        assert np.min(np.sum(a * b, axis=1)) > 0.999
