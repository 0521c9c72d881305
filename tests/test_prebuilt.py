"""The bundled corpus's shipped vectors (ingest/prebuilt.py): current, used at ingest, the same
vectors the embedder gives, and never used for a text or an embedder they were not built for."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assistant.settings import DEFAULT_CORPUS, Settings
from assistant.store.embeddings import embedder_fingerprint, make_embedder
from ingest.late_chunks import late_vectors
from ingest.prebuilt import PrebuiltEmbedder, corpus_abstracts, stale, with_prebuilt


@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings.load(data_dir=tmp_path_factory.mktemp("prebuilt"))
    return make_embedder(settings), embedder_fingerprint(settings)


def test_shipped_vectors_are_current(minilm) -> None:
    """Fails when the corpus, the chunking or the embedder changed without `make prebuilt`."""
    embedder, fingerprint = minilm
    assert stale(embedder.count_tokens, fingerprint) == []


def test_shipped_vectors_are_the_embedders(minilm) -> None:
    """The abstracts' vectors are the embedder's and the chunks' are the abstract's pass
    (``CHUNK_VECTORS = "late"``): what a fresh ingest computes, float16 rounding only."""
    embedder, fingerprint = minilm
    table = with_prebuilt(embedder, fingerprint)
    assert isinstance(table, PrebuiltEmbedder)
    abstracts = corpus_abstracts(DEFAULT_CORPUS, embedder.count_tokens)
    sample = list(abstracts)[:: max(1, len(abstracts) // 12)]
    shipped = table(sample)
    assert table.hits == len(sample)
    fresh = np.asarray(embedder(sample), dtype=np.float32)
    assert np.min(np.sum(shipped * fresh, axis=1)) > 0.999  # float16 rounding only
    spans = [abstracts[t] for t in sample]
    _, shipped_chunks = late_vectors(table, sample, spans)
    assert table.hits == 2 * len(sample) + sum(len(s) for s in spans)  # nothing computed
    _, fresh_chunks = late_vectors(embedder, sample, spans)
    for a, b in zip(shipped_chunks, fresh_chunks, strict=True):
        assert np.min(np.sum(a * b, axis=1)) > 0.999


def test_other_texts_and_embedders_are_embedded(minilm, tmp_path: Path) -> None:
    embedder, fingerprint = minilm
    table = with_prebuilt(embedder, fingerprint)
    new = "A text that is not in the bundled corpus, about ferns growing on volcanic islands after eruptions."
    got = table([new])
    assert table.hits == 0  # nothing found for it
    assert np.allclose(got[0], np.asarray(embedder([new]), dtype=np.float32)[0], atol=1e-5)
    assert with_prebuilt(embedder, "openai:text-embedding-3-small") is embedder  # another vector space
    assert with_prebuilt(embedder, fingerprint, corpus=tmp_path) is embedder  # no file there
