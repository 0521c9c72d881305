"""A live library (ingest/watch.py, ingest/zotero.py): a zotero.sqlite built with Zotero's schema,
read read-only while another connection holds it locked; a BibTeX file rewritten in place; a
half-written save held back and retried; entries removed from the library leave the index.

The watcher is stepped by hand with its clock passed in (``step(now=...)``): no sleeps, no timing."""

from __future__ import annotations

from pathlib import Path

from ingest_helpers import distinct_seeds, fake_assistant, integrity

from evals.zotero_db import ZoteroDB
from ingest.loaders import iter_files
from ingest.zotero import load_zotero

TEXTS = distinct_seeds(6, start=40)


def _run(watcher, start: float):
    """Step until the watcher acts (a change is taken on the second look); its event."""
    for i in range(4):
        event = watcher.step(now=start + i)
        if event is not None:
            return event
    raise AssertionError("the watcher did nothing")


def _keys(a) -> list[str]:
    return sorted(str(d.metadata.get("citekey")) for d in a.store.all_docs().values())


def _library(tmp_path: Path, *, wal: bool = False) -> tuple[ZoteroDB, dict[str, int]]:
    (tmp_path / "Zotero").mkdir()
    db = ZoteroDB(tmp_path / "Zotero" / "zotero.sqlite", wal=wal)
    ml = db.collection("ML")
    transformers = db.collection("Transformers", parent=ml)
    ids = {
        "a": db.add(fields={"title": "Attention Is All You Need", "abstractNote": TEXTS[0], "date": "2017-06-12 2017-06-12",
                            "DOI": "10.5555/3295222.3295349", "publicationTitle": "NeurIPS"},
                    authors=[("Ashish", "Vaswani"), ("Noam", "Shazeer")], collections=[transformers]),
        "b": db.add("conferencePaper", fields={"title": "Second", "abstractNote": TEXTS[1], "date": "2020-00-00 2020",
                                               "proceedingsTitle": "ICML"}, authors=[("", "OpenAI")]),
        "no_abstract": db.add(fields={"title": "A title only", "date": "2019"}),
        "trashed": db.add(fields={"title": "In the trash", "abstractNote": TEXTS[2]}),
    }
    db.add("note", fields={"title": "a note"})
    db.trash(ids["trashed"])
    return db, ids


def test_zotero_items_read_with_metadata_and_collections(tmp_path: Path) -> None:
    db, ids = _library(tmp_path)
    records, problems = load_zotero(db.path)
    by_title = {r.title: r for r in records}
    assert set(by_title) == {"Attention Is All You Need", "Second"}  # the trash, the note and no-abstract left out
    a = by_title["Attention Is All You Need"]
    assert a.text == TEXTS[0] and a.line == ids["a"] and a.external_id == "10.5555/3295222.3295349"
    assert a.metadata["authors"] == "Vaswani, Ashish; Shazeer, Noam"
    assert a.metadata["year"] == 2017 and a.metadata["venue"] == "NeurIPS"
    assert a.metadata["collections"] == "ML/Transformers"
    assert by_title["Second"].metadata["venue"] == "ICML" and by_title["Second"].metadata["year"] == 2020
    assert [(p.path, p.line) for p in problems] == [(str(db.path), ids["no_abstract"])]
    assert "no abstract" in problems[0].reason
    # A Zotero data directory is read as its database only.
    assert list(iter_files([db.path.parent])) == [db.path]


def test_zotero_collections_filter_search_and_answers(tmp_path: Path) -> None:
    """A collection filter admits the works of that collection and of its subcollections ("ML"
    holds "ML/Transformers"), case and accents ignored; a work of no collection never matches."""
    db, _ = _library(tmp_path)
    reading = db.collection("Lecture de Groupe")
    db.add(fields={"title": "Third", "abstractNote": TEXTS[4], "date": "2021"}, authors=[("Ada", "Lovelace")],
                   collections=[reading])
    a = fake_assistant(tmp_path / "data")
    a.ingest([db.path])
    query = " ".join(TEXTS[4].split()[:12])
    titles = {h.metadata["title"] for h in a.search(query, k=5)}
    assert titles == {"Attention Is All You Need", "Second", "Third"}
    assert [h.metadata["title"] for h in a.search(query, k=5, filters={"collection": "ml"})] == ["Attention Is All You Need"]
    assert [h.metadata["title"] for h in a.search(query, k=5, filters={"collection": "LECTURE de groupe"})] == ["Third"]
    assert a.search(query, k=5, filters={"collection": "transformers", "year": "2021"}) == []
    answer = a.ask(query, filters={"collection": "lecture"})
    assert [c.metadata["title"] for c in answer.citations] == ["Third"]


def test_zotero_read_while_locked_and_never_written(tmp_path: Path) -> None:
    db, _ = _library(tmp_path, wal=True)
    db.add(fields={"title": "Only in the WAL", "abstractNote": TEXTS[3]})
    # Zotero holds its database with an exclusive lock while it runs.
    db.con.execute("PRAGMA locking_mode=EXCLUSIVE")
    db.con.execute("BEGIN EXCLUSIVE")
    files = ("zotero.sqlite", "zotero.sqlite-wal")  # (-shm is the lock holder's shared memory)
    before = sorted(p.name for p in db.path.parent.iterdir()), [(db.path.parent / f).read_bytes() for f in files]
    try:
        records, _ = load_zotero(db.path)
        after = sorted(p.name for p in db.path.parent.iterdir()), [(db.path.parent / f).read_bytes() for f in files]
    finally:
        db.con.rollback()
    assert "Only in the WAL" in {r.title for r in records}  # the -wal is read too
    assert after == before  # nothing written beside it, no file added


def test_watched_zotero_library_follows_adds_edits_and_trash(tmp_path: Path) -> None:
    db, ids = _library(tmp_path)
    a = fake_assistant(tmp_path / "data")
    w = a.watch([db.path.parent], start=False, settle_s=0.0, hold_s=0.0, gone_s=0.0)
    first = _run(w, 0)
    assert (first.added, first.removed) == (2, 0) and "library updated: 2 added, 0 removed" == first.message
    assert a.search(" ".join(TEXTS[0].split()[:12]), k=1)[0].label.startswith("Vaswani")

    new = db.add(fields={"title": "Third", "abstractNote": TEXTS[4], "date": "2021"}, authors=[("Ada", "Lovelace")])
    event = _run(w, 10)
    assert (event.added, event.removed) == (1, 0)
    db.trash(ids["b"])
    event = _run(w, 20)
    assert (event.added, event.removed) == (0, 1)
    db.set_field(new, "title", "Third, renamed")  # metadata only: nothing added or removed
    event = _run(w, 30)
    assert (event.added, event.removed) == (0, 0)
    texts = sorted(d.text for d in a.store.all_docs().values())
    assert texts == sorted([TEXTS[0], TEXTS[4]])
    assert {d.metadata.get("title") for d in a.store.all_docs().values()} == {"Attention Is All You Need", "Third, renamed"}
    assert w.step(now=40) is None and w.step(now=41) is None  # nothing changed: nothing done
    integrity(a.store)


def _bib(entries: dict[str, str]) -> str:
    return "".join(f"@article{{{key},\n  title = {{Paper {key}}},\n  year = {{2020}},\n  abstract = {{{text}}}\n}}\n\n"
                   for key, text in entries.items())


def test_bib_rewritten_in_place_half_written_held_then_applied(tmp_path: Path) -> None:
    bib = tmp_path / "library.bib"
    bib.write_text(_bib({"k1": TEXTS[0], "k2": TEXTS[1], "k3": TEXTS[2]}), encoding="utf-8")
    a = fake_assistant(tmp_path / "data")
    w = a.watch([bib], start=False, settle_s=0.0, hold_s=100.0, gone_s=0.0)
    assert _run(w, 0).added == 3
    stored = integrity(a.store)

    full = _bib({"k1": TEXTS[0], "k3": TEXTS[2], "k4": TEXTS[3], "k5": TEXTS[4]})
    with open(bib, "w", encoding="utf-8") as f:  # rewritten in place, cut off in the middle of k4
        f.write(full[: full.index(TEXTS[3]) + 40])
    held = _run(w, 10)
    assert held.held and "not applied yet" in held.message
    assert held.problems and held.problems[0].path == str(bib.resolve()) and held.problems[0].line > 0
    assert integrity(a.store) == stored and _keys(a) == ["k1", "k2", "k3"]  # nothing applied: no half of the new file

    with open(bib, "w", encoding="utf-8") as f:  # the save completes
        f.write(full)
    event = _run(w, 20)
    # k2 gone and k4, k5 new in the same file: one counts as k2's update (ingest's own accounting)
    assert not event.held and (event.added, event.updated, event.removed) == (1, 1, 0)
    assert _keys(a) == ["k1", "k3", "k4", "k5"]
    integrity(a.store)

    bib.unlink()  # the export is gone for good: its entries leave
    event = _run(w, 30)
    assert event.removed == 4 and a.store.counts()["abstracts"] == 0


def test_malformed_entry_kept_out_after_hold_and_rest_applied(tmp_path: Path) -> None:
    """A file the user saved with a broken entry: held while it could still be a save under way,
    then the good entries apply and the broken one is reported with its line."""
    bib = tmp_path / "library.bib"
    bib.write_text(_bib({"k1": TEXTS[0]}), encoding="utf-8")
    a = fake_assistant(tmp_path / "data")
    w = a.watch([bib], start=False, settle_s=0.0, hold_s=5.0, gone_s=0.0)
    _run(w, 0)
    bib.write_text(_bib({"k1": TEXTS[0], "k2": TEXTS[1]}) + "@article{broken,\n  title = {No end\n", encoding="utf-8")
    assert w.step(now=10) is None
    assert w.step(now=11).held  # new rejection, younger than hold_s
    event = w.step(now=16)
    assert event is not None and event.added == 1 and not event.held
    assert any(p.line > 0 for p in event.problems) or any(p.line > 0 for e in w.events for p in e.problems)


def test_unreadable_database_is_reported_and_nothing_removed(tmp_path: Path) -> None:
    db, _ = _library(tmp_path)
    a = fake_assistant(tmp_path / "data")
    w = a.watch([db.path], start=False, settle_s=0.0, hold_s=100.0, gone_s=0.0)
    assert _run(w, 0).added == 2
    db.close()
    raw = db.path.read_bytes()
    db.path.write_bytes(raw[:4096] + b"\0" * (len(raw) - 4096))  # a copy caught mid-write: pages missing
    event = _run(w, 10)
    assert event.held and str(db.path) in event.message
    assert a.store.counts()["abstracts"] == 2


def test_page_line_shows_progress_and_library_update(tmp_path: Path) -> None:
    from assistant.ui.handlers import library_status
    from ingest.progress import IngestProgress

    bib = tmp_path / "library.bib"
    bib.write_text(_bib({"k1": TEXTS[0], "k2": TEXTS[1]}), encoding="utf-8")
    a = fake_assistant(tmp_path / "data")
    running = IngestProgress(a.settings.data_dir, 446, bar=False)  # another ingest under way in this data dir
    running.update(120)
    running._write("running", force=True)
    line = library_status(a)
    assert "Ingesting 120 of 446 abstracts" in line and "abstracts/s" in line
    running.close()
    w = a.watch([bib], start=False, settle_s=0.0, hold_s=0.0, gone_s=0.0)
    assert "reading it now" in library_status(a)
    _run(w, 0)
    line = library_status(a)
    assert "library updated: 2 added, 0 removed" in line and "Ingesting" not in line


def test_cli_ingest_watch_applies_a_rewrite(tmp_path: Path) -> None:
    """`assistant ingest --watch FILE` end to end (real embedder and store, a real process)."""
    import os
    import subprocess
    import sys
    import threading

    bib = tmp_path / "library.bib"
    bib.write_text(_bib({"k1": TEXTS[0]}), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "ingest", "--watch", str(bib), "--data-dir", str(tmp_path / "d")],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    guard = threading.Timer(600, proc.kill)  # a hang fails the test instead of stalling the suite
    guard.start()
    try:
        assert "library updated: 1 added, 0 removed" in proc.stdout.readline()
        bib.write_text(_bib({"k1": TEXTS[0], "k2": TEXTS[1], "k3": TEXTS[2]}), encoding="utf-8")
        assert "library updated: 2 added, 0 removed" in proc.stdout.readline()
    finally:
        guard.cancel()
        proc.terminate()
        proc.wait(timeout=60)
