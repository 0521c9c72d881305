"""The Store against a real Chroma server (``chroma run`` on 127.0.0.1): chroma_host/chroma_port
from settings or CHROMA_HOST/CHROMA_PORT select the HttpClient; ingest and search work the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from chroma_server import ChromaServer, chroma_server  # noqa: F401  (fixture)
from ingest_helpers import (
    FakeEmbedder,
    distinct_seeds,
    fake_assistant,
    integrity,
    seed,
    write_corpus,
)

from assistant.settings import Settings

RING = "Transformers have emerged as the architecture of choice"


def test_ingest_and_search_through_a_server(chroma_server: ChromaServer, tmp_path: Path) -> None:  # noqa: F811
    texts = distinct_seeds(8, start=200) + [seed(RING)]
    write_corpus(tmp_path / "c", texts, per_file=5)
    a = fake_assistant(tmp_path / "data", chroma_host="127.0.0.1", chroma_port=chroma_server.port)
    report = a.ingest([tmp_path / "c"])
    assert (report.added, report.rejected) == (9, [])
    assert type(a.store.client._server).__name__ == "FastAPI"  # HttpClient, not the embedded one
    assert a.store.where == chroma_server.url.replace("http", "Chroma server http")
    assert not (tmp_path / "data" / "chroma").exists()  # nothing written locally
    integrity(a.store)

    hits = a.search("Ring Attention blockwise computation across devices", k=3)
    assert hits and hits[0].label == "Ring Attention"
    dense = a.search("distribute long sequences across multiple devices ring", k=3, mode="dense")
    assert dense and dense[0].label == "Ring Attention"

    a.embedder = FakeEmbedder(forbid=True)  # incremental over HTTP too
    assert a.ingest([tmp_path / "c"]).unchanged == 9


def test_env_vars_select_the_server(chroma_server: ChromaServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", str(chroma_server.port))
    settings = Settings.load(data_dir=tmp_path / "data")
    assert (settings.chroma_host, settings.chroma_port) == ("127.0.0.1", chroma_server.port)
    write_corpus(tmp_path / "c", distinct_seeds(3, start=210))
    first = fake_assistant(tmp_path / "data")
    assert first.ingest([tmp_path / "c"]).added == 3
    # another data dir, same server: the same index
    second = fake_assistant(tmp_path / "elsewhere")
    assert second.store.counts()["abstracts"] == 3
