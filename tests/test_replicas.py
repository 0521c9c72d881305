"""Several app replicas on one ``chroma run`` server and one data dir: an abstract ingested by a
third process reaches both replicas through the persisted lexical index's ``refresh()`` (one
``stat`` of its manifest per poll), without a restart; each replica also finds it in the store."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from chroma_server import ChromaServer, chroma_server  # noqa: F401  (fixture)
from ingest_helpers import FakeEmbedder, distinct_seeds, seed, write_corpus

from assistant.settings import Settings
from assistant.store.chroma import Store
from ingest.normalize import content_id, normalize_text
from ingest.pipeline import ingest_paths

TESTS = Path(__file__).parent
ROOT = TESTS.parent
MAX_POLLS = 600  # 600 x 0.05 s: a bound far above the expected few polls, so a slow CI box passes
RING = "Transformers have emerged as the architecture of choice"

REPLICA = """
import sys, time
from assistant.store import lexical
from assistant.settings import Settings
from assistant.store.chroma import Store
s = Settings(data_dir=sys.argv[1], chroma_host="127.0.0.1", chroma_port=int(sys.argv[2]))
store = Store(s, "onnx:all-MiniLM-L6-v2-int8")
lex = lexical.open_for(s.data_dir, s.collection_prefix)
print("ready", len(lex), flush=True)
sys.stdin.readline()  # the ingest has finished
for poll in range(1, int(sys.argv[4]) + 1):
    lex.refresh()
    hits = [d for d, _ in lex.search(sys.argv[3], 3)]
    if hits and hits[0] in store.get_docs(hits[:1]):
        print("found", hits[0], poll, len(lex), flush=True)
        break
    time.sleep(0.05)
else:
    print("not found", flush=True)
"""


def test_two_replicas_pick_up_an_abstract_ingested_by_a_third(chroma_server: ChromaServer, tmp_path: Path) -> None:  # noqa: F811
    data_dir = tmp_path / "data"
    settings = Settings(data_dir=data_dir, chroma_host="127.0.0.1", chroma_port=chroma_server.port)
    write_corpus(tmp_path / "first", distinct_seeds(12, start=200), per_file=6)
    assert ingest_paths([tmp_path / "first"], Store(settings, "onnx:all-MiniLM-L6-v2-int8"), FakeEmbedder(), progress=False).added == 12

    query = "Ring Attention blockwise computation of self-attention across devices"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    replicas = [subprocess.Popen([sys.executable, "-c", REPLICA, str(data_dir), str(chroma_server.port), query, str(MAX_POLLS)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                for _ in range(2)]
    try:
        for r in replicas:
            assert r.stdout is not None
            assert r.stdout.readline().split() == ["ready", "12"], r.stderr.read() if r.stderr else ""
        write_corpus(tmp_path / "second", [seed(RING)])
        ingester = subprocess.run(
            [sys.executable, "-c", "import sys\nfrom ingest_helpers import FakeEmbedder\nfrom assistant.settings import Settings\n"
             "from assistant.store.chroma import Store\nfrom ingest.pipeline import ingest_paths\n"
             "s = Settings(data_dir=sys.argv[1], chroma_host='127.0.0.1', chroma_port=int(sys.argv[2]))\n"
             "print(ingest_paths([sys.argv[3]], Store(s, 'onnx:all-MiniLM-L6-v2-int8'), FakeEmbedder(), progress=False).added)",
             str(data_dir), str(chroma_server.port), str(tmp_path / "second")],
            env=env, capture_output=True, text=True, timeout=300)
        assert ingester.returncode == 0 and ingester.stdout.split() == ["1"], ingester.stderr
        expected = content_id(normalize_text(seed(RING)))
        for r in replicas:
            out, err = r.communicate("go\n", timeout=300)
            words = out.split()
            assert words[:2] == ["found", expected], (out, err)
            assert 1 <= int(words[2]) <= MAX_POLLS and words[3] == "13"
    finally:
        for r in replicas:
            if r.poll() is None:
                r.kill()


def _writer_and_lagging_reader(port: int, tmp_path: Path, n: int, start: int) -> tuple[Store, Any, Settings, str]:
    """A store with ``n`` abstracts ingested by a writer, and a retriever on another data dir
    (no lexical index there: it is behind the store), plus a query that finds the first abstract."""
    from assistant.search.retrieval import HybridRetriever

    writer = Settings(data_dir=tmp_path / "writer", chroma_host="127.0.0.1", chroma_port=port)
    write_corpus(tmp_path / "first", distinct_seeds(n, start=start), per_file=n // 2)
    store = Store(writer, "onnx:all-MiniLM-L6-v2-int8")
    assert ingest_paths([tmp_path / "first"], store, FakeEmbedder(), progress=False).added == n
    reader = writer.model_copy(update={"data_dir": tmp_path / "reader"})
    retriever = HybridRetriever(reader, Store(reader, "onnx:all-MiniLM-L6-v2-int8"), FakeEmbedder())
    docs = store.all_docs()
    return store, retriever, reader, " ".join(docs[sorted(docs)[0]].text.split()[:12])


def test_a_replica_leaves_the_index_to_a_running_ingest_and_reconciles_after(chroma_server: ChromaServer, tmp_path: Path) -> None:  # noqa: F811
    """A replica whose lexical index is behind the store (here: a data dir without its index)
    does not rebuild it while the store says an ingest is running (that ingest's flush brings it
    in line; reconciling per batch read every abstract), and does once the ingest is done."""
    from assistant.store import lexical
    store, retriever, reader, query = _writer_and_lagging_reader(chroma_server.port, tmp_path, 12, 200)
    store.mark_ingest("running")
    hits = retriever.retrieve(query, 5)
    assert len(hits) == 5  # the dense signals still answer
    assert len(lexical.open_for(reader.data_dir, reader.collection_prefix)) == 0
    store.mark_ingest("done")
    assert len(retriever.retrieve(query, 5)) == 5
    assert len(lexical.open_for(reader.data_dir, reader.collection_prefix)) == 12


def test_a_killed_ingest_stops_holding_replicas_back_once_its_heartbeat_is_stale(chroma_server: ChromaServer, tmp_path: Path) -> None:  # noqa: F811
    """An ingest killed mid-run leaves the flag at "running"; a replica behind the store waits
    while the heartbeat is fresh and rebuilds its lexical index once it is older than
    ``store.ingest_stale_after_s`` (before the heartbeat it waited for the next ingest)."""
    import time

    from assistant.store import lexical
    store, retriever, reader, query = _writer_and_lagging_reader(chroma_server.port, tmp_path, 8, 300)
    stale = reader.store.ingest_stale_after_s
    store.set_flag("ingest", "running", ingest_beat=time.time() - stale / 2)  # alive: wait
    assert store.ingest_running()
    retriever.retrieve(query, 5)
    assert len(lexical.open_for(reader.data_dir, reader.collection_prefix)) == 0
    store.set_flag("ingest", "running", ingest_beat=time.time() - stale - 1)  # killed long ago
    assert not store.ingest_running()
    assert len(retriever.retrieve(query, 5)) == 5
    assert len(lexical.open_for(reader.data_dir, reader.collection_prefix)) == 8
