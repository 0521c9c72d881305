"""Incremental ingest: unchanged files embed nothing, changed abstracts are replaced, --prune,
moved files, versions across runs, dry runs."""

from __future__ import annotations

import json
from pathlib import Path

from ingest_helpers import (
    FakeEmbedder,
    distinct_seeds,
    fake_assistant,
    integrity,
    seed,
    write_corpus,
)

from assistant import Assistant
from ingest.normalize import content_id, normalize_text
from ingest.pipeline import ingest_paths


def _ids(a: Assistant) -> set[str]:
    return set(a.store.all_docs())


def test_unchanged_rerun_embeds_nothing(tmp_path: Path) -> None:
    texts = distinct_seeds(12)
    write_corpus(tmp_path / "c", texts, per_file=4)
    a = fake_assistant(tmp_path / "data")
    first = a.ingest([tmp_path / "c"])
    assert (first.added, first.unchanged) == (12, 0)
    before = integrity(a.store)

    a.embedder = FakeEmbedder(forbid=True)  # any call fails the test
    again = a.ingest([tmp_path / "c"])
    assert (again.added, again.updated, again.unchanged, again.removed, again.chunks_added) == (0, 0, 12, 0, 0)
    assert integrity(a.store) == before


def test_changed_abstract_is_reembedded_and_old_chunks_removed(tmp_path: Path) -> None:
    texts = distinct_seeds(8)
    (f,) = write_corpus(tmp_path / "c", texts, per_file=8)
    a = fake_assistant(tmp_path / "data")
    a.ingest([f])
    old_id = content_id(normalize_text(texts[3]))
    old_chunks = a.store.chunks.get(where={"doc_id": old_id})["ids"]
    assert old_chunks

    changed = texts[3].replace(".", " (revised).", 1)
    f.write_text(f.read_text().replace(texts[3], changed))
    spy = FakeEmbedder()
    a.embedder = spy
    report = a.ingest([f])
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 1, 7, 0)
    new_id = content_id(normalize_text(changed))
    chunks = set(a.store.chunks.get(where={"doc_id": new_id}, include=["documents"])["documents"])
    whole = a.store.docs.get(ids=[new_id], include=["documents"])["documents"][0]
    assert set(spy.texts) == chunks | {whole}  # its chunks and its whole-abstract vector, nothing else
    ids = _ids(a)
    assert new_id in ids and old_id not in ids and len(ids) == 8
    assert a.store.chunks.get(ids=old_chunks)["ids"] == []  # old chunks gone
    integrity(a.store)


def test_lines_shift_updates_locations_without_embedding(tmp_path: Path) -> None:
    texts = distinct_seeds(5)
    (f,) = write_corpus(tmp_path / "c", texts, per_file=5)
    a = fake_assistant(tmp_path / "data")
    a.ingest([f])
    f.write_text("Daily Papers\n\n" + f.read_text())  # every paragraph moves down two lines
    a.embedder = FakeEmbedder(forbid=True)
    report = a.ingest([f])
    assert (report.added, report.unchanged) == (0, 5)
    lines = sorted(int(s.rsplit(":", 1)[1]) for d in a.store.all_docs().values() for s in d.sources)
    assert lines == [3, 5, 7, 9, 11]


def test_prune_removes_abstracts_of_deleted_files(tmp_path: Path) -> None:
    texts = distinct_seeds(9)
    files = write_corpus(tmp_path / "c", texts[:6], per_file=3)
    shared = tmp_path / "c" / "shared.txt"  # a repeat of one abstract of the file to be deleted
    shared.write_text(texts[0] + "\n\n" + texts[8] + "\n")
    a = fake_assistant(tmp_path / "data")
    first = a.ingest([tmp_path / "c"])
    assert (first.added, first.duplicates) == (7, 1)
    files[0].unlink()

    kept = a.ingest([tmp_path / "c"])  # without --prune, abstracts of a vanished file stay
    assert kept.removed == 0 and len(_ids(a)) == 7
    pruned = a.ingest([tmp_path / "c"], prune=True)
    assert pruned.removed == 2  # texts[1], texts[2]; texts[0] lives on in shared.txt
    docs = a.store.all_docs()
    assert len(docs) == 5
    assert docs[content_id(normalize_text(texts[0]))].sources == [f"{shared.resolve()}:1"]
    assert "2 removed" in pruned.summary()
    integrity(a.store)


def test_abstract_removed_from_a_file_is_removed(tmp_path: Path) -> None:
    texts = distinct_seeds(4)
    (f,) = write_corpus(tmp_path / "c", texts, per_file=4)
    a = fake_assistant(tmp_path / "data")
    a.ingest([f])
    f.write_text("\n\n".join(texts[:3]) + "\n")
    report = a.ingest([f])
    assert (report.removed, report.unchanged) == (1, 3) and len(_ids(a)) == 3
    integrity(a.store)


def test_other_files_are_untouched_and_moves_keep_vectors(tmp_path: Path) -> None:
    texts = distinct_seeds(6)
    f1, f2 = write_corpus(tmp_path / "c", texts, per_file=3)
    a = fake_assistant(tmp_path / "data")
    a.ingest([f1, f2])
    assert a.ingest([f1]).removed == 0 and len(_ids(a)) == 6  # f2 not named: left alone
    moved = tmp_path / "moved.txt"
    f2.rename(moved)
    a.embedder = FakeEmbedder(forbid=True)
    report = a.ingest([tmp_path / "c", moved], prune=True)
    assert (report.added, report.removed, report.unchanged) == (0, 0, 6)
    assert all(str(moved.resolve()) in " ".join(d.sources) or str(f1.resolve()) in " ".join(d.sources)
               for d in a.store.all_docs().values())


def test_versions_link_across_runs_and_same_ids(tmp_path: Path) -> None:
    v1, v2 = seed("Nature is infinitely|To overcome this limitation"), seed("Nature is infinitely|FiTv2")
    a = fake_assistant(tmp_path / "data")
    (tmp_path / "v1.txt").write_text(v1 + "\n")
    (tmp_path / "v2.txt").write_text(v2 + "\n")
    a.ingest([tmp_path / "v1.txt"])
    report = a.ingest([tmp_path / "v2.txt"])
    assert report.versions == 1
    works = {d.work_id for d in a.store.all_docs().values()}
    assert works == {content_id(normalize_text(v1))}

    # The same external id with a different text: both kept, linked, and a warning names both.
    x, y = distinct_seeds(2, start=20)
    rows = tmp_path / "ids.jsonl"
    rows.write_text(json.dumps({"id": "2401.00001", "abstract": x}) + "\n" + json.dumps({"id": "2401.00001", "abstract": y}) + "\n")
    report = a.ingest([rows])
    assert report.added == 2 and report.versions == 1 and not report.rejected
    (warning,) = report.warnings
    assert warning.line == 2 and "2401.00001" in warning.reason and f"{rows.resolve()}:1" in warning.reason
    docs = a.store.all_docs()
    assert docs[content_id(normalize_text(x))].work_id == docs[content_id(normalize_text(y))].work_id


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    texts = distinct_seeds(5)  # the two low-rank FFN versions are among them
    write_corpus(tmp_path / "c", texts)
    a = fake_assistant(tmp_path / "data", FakeEmbedder(forbid=True))
    report = ingest_paths([tmp_path / "c"], a.store, a.embedder, dry_run=True, progress=False)
    assert (report.added, report.versions) == (5, 1) and report.totals == {"abstracts": 5, "works": 4}
    assert a.store.counts() == {"abstracts": 0, "chunks": 0}


def test_an_index_without_the_catalog_gets_it_once(tmp_path: Path) -> None:
    """An index written before the catalog (no ``files``/``is_version``/MinHash metadata): the
    next ingest adds it to every doc, then finds a new version of a stored abstract through it."""
    v1, v2 = seed("Nature is infinitely|To overcome this limitation"), seed("Nature is infinitely|FiTv2")
    (tmp_path / "v1.txt").write_text(v1 + "\n\n" + distinct_seeds(1, start=30)[0] + "\n")
    (tmp_path / "v2.txt").write_text(v2 + "\n")
    a = fake_assistant(tmp_path / "data")
    a.ingest([tmp_path / "v1.txt"])
    docs = a.store.docs
    got = docs.get(include=["embeddings", "documents", "metadatas"])
    old = [{k: v for k, v in m.items() if k not in ("files", "is_version") and not k.startswith("mh")} for m in got["metadatas"]]
    docs.delete(ids=got["ids"])
    docs.add(ids=got["ids"], embeddings=got["embeddings"], documents=got["documents"], metadatas=old)
    meta = {k: v for k, v in (docs.metadata or {}).items() if not k.startswith("hnsw:") and k != "catalog"}
    docs.modify(metadata=meta)
    assert not a.store.has_catalog()

    report = a.ingest([tmp_path / "v2.txt"])
    assert (report.added, report.versions, report.totals["works"]) == (1, 1, 2)
    assert a.store.has_catalog()
    metas = a.store.docs.get(include=["metadatas"])["metadatas"]
    assert all(m.get("files") and "is_version" in m and "mh00" in m for m in metas)
    assert a.ingest([tmp_path / "v1.txt", tmp_path / "v2.txt"]).unchanged == 3
    integrity(a.store)


def _bib_entry(key: str, title: str, year: int, abstract: str) -> str:
    return f"@article{{{key},\n  title = {{{title}}},\n  author = {{Lovelace, Ada and Turing, Alan}},\n  year = {{{year}}},\n  abstract = {{{abstract}}}\n}}\n"


def test_updated_bibtex_export_changes_only_what_changed(tmp_path: Path) -> None:
    texts = distinct_seeds(5)
    lib = tmp_path / "library.bib"
    entries = {f"k{i}": (f"Paper {i}", 2020 + i, t) for i, t in enumerate(texts[:4])}
    lib.write_text("\n".join(_bib_entry(k, *v) for k, v in entries.items()), encoding="utf-8")
    a = fake_assistant(tmp_path / "data")
    first = a.ingest([lib])
    assert first.added == 4
    ids = {k: content_id(normalize_text(v[2])) for k, v in entries.items()}
    assert a.store.get_docs([ids["k0"]])[ids["k0"]].label == "Lovelace and Turing 2020 — Paper 0"

    # k0: title and year edited (same abstract); k1: abstract edited; k2: removed; k4: added.
    edited = dict(entries)
    edited["k0"] = ("Paper Zero, Revised", 2019, entries["k0"][2])
    edited["k1"] = (entries["k1"][0], entries["k1"][1], entries["k1"][2].replace(".", " (revised).", 1))
    del edited["k2"]
    edited["k4"] = ("Paper 4", 2024, texts[4])
    lib.write_text("\n".join(_bib_entry(k, *v) for k, v in edited.items()), encoding="utf-8")
    spy = FakeEmbedder()
    a.embedder = spy
    report = a.ingest([lib], prune=True)
    # One file lost two abstracts (k1's old text, k2) and gained two (k1's new text, k4): the report
    # counts a new abstract from a file that lost one as updated.
    assert (report.added, report.updated, report.removed, report.unchanged) == (0, 2, 0, 2)
    embedded = " ".join(spy.texts)
    assert texts[4][:40] in embedded and "(revised)" in embedded
    assert entries["k0"][2][:40] not in embedded and entries["k3"][2][:40] not in embedded  # not re-embedded
    docs = a.store.all_docs()
    k0 = docs[ids["k0"]]
    assert k0.label == "Lovelace and Turing 2019 — Paper Zero, Revised"
    assert (k0.metadata["title"], k0.metadata["year"]) == ("Paper Zero, Revised", 2019)
    assert "Paper Zero, Revised" in k0.metadata["bibtex"]
    assert ids["k2"] not in docs and ids["k1"] not in docs and ids["k3"] in docs
    assert len(docs) == 4
    integrity(a.store)
