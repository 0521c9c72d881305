"""The mapped copy of a collection's vectors (assistant/store/mirror.py): a cold process ranks from it
exactly as from Chroma, never from a copy of another index state, and never during an ingest."""

from __future__ import annotations

import shutil
from pathlib import Path

from ingest_helpers import distinct_seeds, fake_assistant, write_corpus

from assistant.store.mirror import FOLDER, Mirror, state_key


def _hits(a, query: str) -> list[tuple[str, float]]:
    return [(h.doc_id, round(h.score, 6)) for h in a.search(query, k=8)]


def test_cold_search_from_the_mirror_equals_chroma(tmp_path: Path) -> None:
    texts = distinct_seeds(12, start=100)
    write_corpus(tmp_path / "c", texts)
    data = tmp_path / "data"
    fake_assistant(data).ingest([tmp_path / "c"])
    assert sorted(p.suffix for p in (data / FOLDER).iterdir()) == [".json", ".json", ".npy", ".npy"]  # written by the ingest
    query = " ".join(texts[3].split()[:10])
    mapped = _hits(fake_assistant(data), query)
    shutil.rmtree(data / FOLDER)
    assert _hits(fake_assistant(data), query) == mapped  # read through Chroma (and mirrored again)
    assert (data / FOLDER).is_dir()


def test_a_new_index_state_never_uses_the_old_mirror(tmp_path: Path) -> None:
    texts = distinct_seeds(14, start=120)
    write_corpus(tmp_path / "c", texts[:10])
    data = tmp_path / "data"
    fake_assistant(data).ingest([tmp_path / "c"])
    old = {p.name for p in (data / FOLDER).glob("*.npy")}
    write_corpus(tmp_path / "d", texts[10:])
    late = fake_assistant(data)
    late.store.mark_ingest("running")  # another process's ingest under way: no state, no mirror
    assert state_key(late.store._flags(), 10) is None
    late.ingest([tmp_path / "d"])
    assert {p.name for p in (data / FOLDER).glob("*.npy")}.isdisjoint(old)  # replaced, old files gone
    new = {d.doc_id for d in late.store.all_docs().values() if any(str(tmp_path / "d") in s for s in d.sources)}
    assert len(new) == 4
    cold = fake_assistant(data)
    query = " ".join(texts[12].split()[:10])
    got = _hits(cold, query)
    assert new <= set(cold.retriever._whole_vectors(cold.store.docs)[0])
    shutil.rmtree(data / FOLDER)
    assert _hits(fake_assistant(data), query) == got


def test_a_damaged_or_partial_mirror_is_ignored(tmp_path: Path) -> None:
    texts = distinct_seeds(8, start=140)
    write_corpus(tmp_path / "c", texts)
    data = tmp_path / "data"
    a = fake_assistant(data)
    a.ingest([tmp_path / "c"])
    key = state_key(a.store._flags(), 8)
    mirror = Mirror(data, a.store.docs.name)
    assert mirror.load(key) is not None
    for npy in (data / FOLDER).glob(f"{a.store.docs.name}-*.npy"):
        npy.write_bytes(npy.read_bytes()[:200])  # cut short
    assert mirror.load(key) is None
    query = " ".join(texts[2].split()[:10])
    got = _hits(fake_assistant(data), query)  # read through Chroma, mirrored again
    assert mirror.load(key) is not None
    assert _hits(fake_assistant(data), query) == got
