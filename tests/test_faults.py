"""Faults: a Chroma server that stops, hangs or is not there; a damaged data dir; an index built
with another embedder. Each gives a StoreError that says what is wrong and what to do, never a
silent empty index, and the same Assistant works again once the cause is gone."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from chroma_server import ChromaServer, chroma_server, free_port  # noqa: F401  (fixture)
from ingest_helpers import distinct_seeds, fake_assistant, write_corpus

from assistant import Assistant
from assistant.store import chroma as store
from assistant.store.chroma import StoreError

QUERY = "attention for long sequences"


def _server_assistant(tmp_path: Path, port: int) -> Assistant:
    return fake_assistant(tmp_path / "data", chroma_host="127.0.0.1", chroma_port=port)


def test_server_stopped_under_a_running_assistant(chroma_server: ChromaServer, tmp_path: Path) -> None:  # noqa: F811
    write_corpus(tmp_path / "c", distinct_seeds(6, start=220))
    a = _server_assistant(tmp_path, chroma_server.port)
    a.ingest([tmp_path / "c"])
    assert a.search(QUERY, k=3)

    chroma_server.stop()
    for _ in range(2):  # stays a clear error while down (nothing cached a broken state)
        with pytest.raises(StoreError) as err:
            a.search(QUERY, k=3)
        message = str(err.value)
        assert chroma_server.url in message and "server is running" in message
    with pytest.raises(StoreError):
        a.ingest([tmp_path / "c"])

    chroma_server.restart()
    hits = a.search(QUERY, k=3)  # the same Assistant object, no re-creation
    assert len(hits) == 3
    assert a.ingest([tmp_path / "c"]).unchanged == 6


def test_hung_server_times_out(chroma_server: ChromaServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(store, "SERVER_TIMEOUT_S", 2.0)
    write_corpus(tmp_path / "c", distinct_seeds(3, start=230))
    a = _server_assistant(tmp_path, chroma_server.port)
    a.ingest([tmp_path / "c"])
    chroma_server.pause()
    try:
        started = time.monotonic()
        with pytest.raises(StoreError, match="(?i)timeout"):
            a.search(QUERY, k=3)
        assert time.monotonic() - started < 15
    finally:
        chroma_server.resume()
    assert a.search(QUERY, k=3)


def test_server_not_running_at_start_then_started(tmp_path: Path) -> None:
    port = free_port()
    a = _server_assistant(tmp_path, port)
    with pytest.raises(StoreError, match=f"http://127.0.0.1:{port}.*cannot connect.*server is running"):
        a.search(QUERY)
    server = ChromaServer(tmp_path / "server", port=port).start()
    try:
        write_corpus(tmp_path / "c", distinct_seeds(2, start=240))
        assert a.ingest([tmp_path / "c"]).added == 2  # the same object, once the server is up
    finally:
        server.stop()


# --- a damaged local data dir --------------------------------------------------------------------
@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small local index (never opened again in this process: copies are). Chroma writes its
    vector-index segment files only past ~1,000 vectors, so 1,100 filler vectors (orphan chunks,
    which no test here sweeps) make it write them, for the "segments-garbage" case."""
    root = tmp_path_factory.mktemp("built")
    write_corpus(root / "c", distinct_seeds(5, start=250))
    a = fake_assistant(root / "data")
    a.ingest([root / "c"])
    vectors = np.random.default_rng(0).normal(size=(1100, 384)).astype(np.float32)
    a.store.chunks.add(ids=[f"filler-{i}" for i in range(1100)], embeddings=vectors,
                       metadatas=[{"doc_id": "filler"}] * 1100)
    assert any(f.name == "index_metadata.pickle" for f in _segments(root / "data" / "chroma"))
    return root / "data"


def _overwrite(path: Path, data: bytes, offset: int = 0) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def _segments(chroma: Path) -> list[Path]:
    return [f for d in chroma.iterdir() if d.is_dir() for f in d.iterdir() if f.is_file()]


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "garbage-header": (lambda c: _overwrite(c / "chroma.sqlite3", b"garbage!" * 64), "not an SQLite database"),
    "all-random": (lambda c: (c / "chroma.sqlite3").write_bytes(os.urandom((c / "chroma.sqlite3").stat().st_size)),
                   "not an SQLite database"),
    "garbage-pages": (lambda c: _overwrite(c / "chroma.sqlite3", os.urandom(64 * 1024), offset=4096), "cannot open the index"),
    "truncated": (lambda c: os.truncate(c / "chroma.sqlite3", (c / "chroma.sqlite3").stat().st_size // 3), "cannot open the index"),
    "emptied": (lambda c: os.truncate(c / "chroma.sqlite3", 0), "is empty"),
    "db-deleted": (lambda c: (c / "chroma.sqlite3").unlink(), "is missing"),
    "segments-garbage": (lambda c: [f.write_bytes(os.urandom(max(f.stat().st_size, 64))) for f in _segments(c)],
                         "cannot open the index"),
    "segment-truncated": (lambda c: [os.truncate(f, f.stat().st_size // 3) for f in _segments(c) if f.name == "data_level0.bin"],
                          "cannot open the index"),
    "folder-is-a-file": (lambda c: (shutil.rmtree(c), c.write_text("not a folder")), "is a file, not an index folder"),
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_damaged_data_dir_gives_a_clear_error(kind: str, built: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(built, data)
    damage, expected = DAMAGE[kind]
    damage(data / "chroma")
    a = fake_assistant(data)
    with pytest.raises(StoreError) as err:
        a.search(QUERY)  # never an empty result list from an index that silently started over
    message = str(err.value)
    assert expected in message, message
    assert str(data) in message and "re-run `assistant ingest`" in message and "move it away" in message
    with pytest.raises(StoreError):
        a.ingest([data.parent])


def test_rebuild_after_moving_the_damaged_folder_away(built: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(built, data)
    _overwrite(data / "chroma" / "chroma.sqlite3", b"garbage!" * 64)
    (data / "chroma").rename(tmp_path / "chroma.damaged")  # what the message says to do
    write_corpus(tmp_path / "c", distinct_seeds(5, start=250))
    assert fake_assistant(data).ingest([tmp_path / "c"]).added == 5


def test_index_built_with_another_embedder(built: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(built, data)
    a = fake_assistant(data, embed_backend="openai", embed_model="text-embedding-3-small")
    with pytest.raises(StoreError) as err:
        a.search(QUERY)
    message = str(err.value)
    assert "onnx:all-MiniLM-L6-v2-int8" in message and "openai:text-embedding-3-small" in message
    assert str(data) in message
    assert fake_assistant(data).store.counts()["abstracts"] == 5  # the right embedder still opens it
