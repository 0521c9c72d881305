"""Filters on year, author, venue and file: parsing, and retrieval ranking within the filtered set
on every signal (embedded Chroma, the real embedder, the persisted BM25 index)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from library_helpers import LIBRARY, library_assistant

from assistant import Assistant
from assistant.filters import FilterError, Filters, parse_year
from assistant.search.retrieval import MODES

CLI = [sys.executable, "-m", "assistant.cli"]


@pytest.fixture(scope="module")
def lib(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Assistant:
    return library_assistant(corpus_dir, tmp_path_factory.mktemp("lib") / "data")


def year(hit: Any) -> int:
    return int(hit.metadata["year"])


# --- parsing ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [
    ("2020", (2020, 2020)), ("2019-2021", (2019, 2021)), ("2019 – 2021", (2019, 2021)), ("2019..2021", (2019, 2021)),
    ("2019-", (2019, None)), ("-2021", (None, 2021)), (">=2020", (2020, None)), (">2019", (2020, None)),
    ("<=2021", (None, 2021)), ("< 2022", (None, 2021)), ("=2018", (2018, 2018)),
])
def test_year_values_people_write(text: str, want: tuple[int | None, int | None]) -> None:
    assert parse_year(text) == want


@pytest.mark.parametrize(("text", "says"), [
    ("twenty", "is not a year"), ("2021-2019", "is empty"), ("20201", "is not a year"), ("0999", "outside"),
    ("-", "is not a year"), ("2019-2021-2023", "is not a year"), (">=", "is not a year"),
])
def test_bad_year_values_say_what_is_accepted(text: str, says: str) -> None:
    with pytest.raises(FilterError, match=says):
        parse_year(text)


def test_filters_from_dicts_and_bad_keys() -> None:
    assert Filters.of({"year": "2019-2021", "author": " Schölkopf "}) == Filters(2019, 2021, "scholkopf")
    assert Filters.of(None) == Filters() and not Filters() and not Filters.parse(year="", author="  ")
    assert Filters.of({"year_min": 2019}) == Filters(2019, None)
    with pytest.raises(FilterError, match="unknown filter 'yaer'"):
        Filters.of({"yaer": "2020"})
    with pytest.raises(FilterError, match="must be text"):
        Filters.of({"author": 7})
    with pytest.raises(FilterError, match="not a year"):
        Filters.of({"year_min": "soon"})


def test_matching_rules() -> None:
    meta = {"year": "2017-06-12", "authors": "Vaswani, Ashish; Shazeer, Noam", "journal": "Advances in NeurIPS"}
    assert Filters.parse(year="2017", author="SHAZEER", venue="neurips").matches(meta, ["/lib/zotero.bib"])
    assert Filters.parse(file="ZOTERO").matches(meta, ["/lib/zotero.bib"])
    assert not Filters.parse(year=">=2018").matches(meta)
    assert not Filters.parse(year="2017").matches({"authors": "x"})  # no year: never in a year range
    assert not Filters.parse(author="parmar").matches(meta)
    zotero = {**meta, "collections": "Reading group; Thèse/Chapter 2"}
    assert Filters.parse(collection="these").matches(zotero) and Filters.parse(collection="chapter 2").matches(zotero)
    assert Filters.of({"collection": "READING"}).matches(zotero) and not Filters.parse(collection="thesis").matches(zotero)
    assert not Filters.parse(collection="reading").matches(meta)  # no collection: never matches
    assert Filters.parse(collection="x").describe() == 'collection "x"'


# --- retrieval --------------------------------------------------------------------------------------
def test_each_signal_ranks_only_the_filtered_works(lib: Assistant) -> None:
    f = Filters.parse(year="2010-2011")
    allowed = lib.retriever.allowed(f)
    assert allowed is not None
    assert {lib.retriever.fetch([d])[d].metadata["year"] for d in allowed} == {2010, 2011}
    lists = lib.retriever.signals("glacier ice flow velocity", 5, filters=f)
    assert set(lists) == {"chunk", "abstract", "bm25"}
    for name, ranked in lists.items():
        assert ranked, name
        assert {d for d, _ in ranked} <= allowed, name


@pytest.mark.parametrize("mode", MODES)
def test_filtered_search_ranks_within_the_filtered_set(lib: Assistant, mode: str) -> None:
    query = "numerical model of glacier ice flow velocity"
    unfiltered = lib.search(query, k=1, mode=mode)
    assert "numerical model" in unfiltered[0].label.lower()  # the 2015 paper is the best match overall
    hits = lib.search(query, k=1, mode=mode, filters={"year": "<=2012"})
    # not the overall top 1 with the filter applied after (that would leave nothing): the best of the years asked
    assert len(hits) == 1 and year(hits[0]) <= 2012
    assert "glacier" in hits[0].label.lower()
    many = lib.search(query, k=10, mode=mode, filters={"year": "<=2012"})
    in_range = sum(1 for r in LIBRARY if r[2] <= 2012)
    assert {year(h) for h in many} <= {2010, 2011}
    # BM25 alone ranks only abstracts sharing a term with the query (the seagrass one shares none)
    assert len(many) == in_range if mode != "bm25" else 1 < len(many) < in_range


@pytest.mark.parametrize("update", [  # the unfiltered ranking read deeper / the vectors kept / Chroma's where
    {"filter_scan_share": 0.0}, {"filter_scan_share": 2.0}, {"filter_scan_share": 2.0, "filter_exact_max": 0}])
def test_every_vector_strategy_gives_the_same_ranking(lib: Assistant, update: dict[str, float]) -> None:
    retriever = lib.retriever
    f = Filters.parse(venue="glaciology")
    want = [d for d, _ in retriever.signals("ice grains in firn cores", 5, ("chunk", "abstract"), filters=f)["abstract"]]
    saved = retriever.settings
    try:
        retriever.settings = saved.model_copy(update={"retrieval": saved.retrieval.model_copy(update=update)})
        got = retriever.signals("ice grains in firn cores", 5, ("chunk", "abstract"), filters=f)
    finally:
        retriever.settings = saved
    assert [d for d, _ in got["abstract"]] == want and len(want) == 3  # Journal + Annals of Glaciology
    assert {d for d, _ in got["chunk"]} == set(want)


def test_author_venue_and_file_filters(lib: Assistant) -> None:
    hits = lib.search("glacier sliding", k=5, filters={"author": "scholkopf"})  # accents and case ignored
    assert [h.metadata["authors"] for h in hits] == ["Schölkopf, Bernhard; Iken, Almut"]
    hits = lib.search("language models", k=5, filters={"venue": "CS."})
    assert {h.metadata["venue"] for h in hits} == {"cs.LG", "cs.CL"}
    hits = lib.search("temperature", k=10, filters={"file": "second.jsonl"})
    assert hits and all(h.source.rsplit(":", 1)[0].endswith("second.jsonl") for h in hits)
    assert lib.search("glacier", k=5, filters={"author": "nobody-of-that-name"}) == []


def test_ask_answers_from_the_filtered_works_only(lib: Assistant) -> None:
    answer = lib.ask("How fast do glaciers slide after rainfall?", filters={"year": "2011"})
    assert answer.citations and all(c.metadata["year"] == 2011 for c in answer.citations)
    none = lib.ask("How fast do glaciers slide after rainfall?", filters={"year": "1990"})
    assert none.refused and not none.citations
    with pytest.raises(FilterError):
        lib.ask("glaciers?", filters={"year": "recent"})


def test_filters_see_newly_ingested_works(lib: Assistant, tmp_path: Path) -> None:
    assert lib.search("coral reef bleaching", k=3, filters={"year": "2023"}) == []
    path = tmp_path / "new.jsonl"
    path.write_text(json.dumps({"id": "new-1", "title": "Coral bleaching", "year": 2023, "authors": "Hughes, Terry",
                                "abstract": "Marine heatwaves bleach coral reefs. Surveys of two thousand reefs show "
                                            "bleaching wherever heat stress passed eight degree heating weeks."}) + "\n")
    lib.ingest([path])
    hits = lib.search("coral reef bleaching", k=3, filters={"year": "2023"})
    assert [h.metadata["year"] for h in hits] == [2023]


# --- the command line ---------------------------------------------------------------------------------
def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env=dict(os.environ))


def test_cli_filters_and_bad_values(lib: Assistant) -> None:
    data_dir = str(lib.settings.data_dir)
    res = run("search", "glacier", "--year", "2010-2011", "--venue", "glaciology", "--json", "--data-dir", data_dir)
    assert res.returncode == 0, res.stderr
    ids = [h["doc_id"] for h in json.loads(res.stdout)["hits"]]
    docs = lib.retriever.fetch(ids)
    assert ids and all(docs[i].metadata["year"] in (2010, 2011) and "Glaciology" in docs[i].metadata["venue"] for i in ids)
    bad = run("ask", "glacier flow?", "--year", "2021-2019", "--data-dir", data_dir)
    assert bad.returncode == 2 and "year range '2021-2019' is empty" in bad.stderr and not bad.stdout
    bad = run("search", "glacier", "--year", "last year", "--data-dir", data_dir)
    assert bad.returncode == 2 and "is not a year" in bad.stderr
    empty = run("search", "glacier", "--author", "nobody", "--data-dir", data_dir)
    assert empty.returncode == 0 and 'within the filters (author "nobody")' in empty.stdout
    empty = run("search", "glacier", "--collection", "Thesis", "--data-dir", data_dir)  # no work is in a collection
    assert empty.returncode == 0 and 'within the filters (collection "thesis")' in empty.stdout


def test_http_api_takes_filters(lib: Assistant) -> None:
    from gradio_client import Client
    from test_ui import running

    with running(lib) as url:
        c = Client(url, verbose=False, analytics_enabled=False, download_files=False)
        got = c.predict(QUESTION, "[]", "", '{"year": "2011"}', api_name="/ask")
        assert got["citations"] and all(x["metadata"]["year"] == 2011 for x in got["citations"])
        assert c.predict(QUESTION, "[]", "", api_name="/ask")["citations"]  # the fourth argument is optional
        with pytest.raises(Exception, match="is not a year"):
            c.predict(QUESTION, "[]", "", '{"year": "soon"}', api_name="/ask")


QUESTION = "How fast do temperate glaciers slide after rainfall?"


def test_year_only_filters_asked_of_chroma_agree_with_the_table(lib: Assistant) -> None:
    from assistant.filters import FilterTable

    table = FilterTable.build(lib.store.filter_rows())
    for year in ("2010-2015", ">=2016", "2011", "<2011"):
        f = Filters.parse(year=year)
        assert lib.retriever._year_ids(f) == table.allowed(f) != frozenset(), year


def test_a_year_stored_as_text_is_still_found(corpus_dir: Path, tmp_path: Path) -> None:
    a = library_assistant(corpus_dir, tmp_path / "data")
    [doc_id] = [d for d, meta, _ in a.store.filter_rows() if meta.get("year") == 2016]
    a.store.docs.update(ids=[doc_id], metadatas=[{"year": "2016"}])  # as an older ingest of a CSV stored it
    a.retriever.invalidate()
    f = Filters.parse(year="2016")
    assert a.retriever._year_ids(f) is None  # Chroma's range would skip it: the table decides
    assert a.retriever.allowed(f) == {doc_id}
    assert [h.doc_id for h in a.search("urban heat islands", k=3, filters={"year": "2016"})] == [doc_id]
