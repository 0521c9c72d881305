"""Taking an answer away: Markdown with references, BibTeX of the cited works (the stored entry when
the source was BibTeX, else built from the metadata), the CLI's --export, the source cards' DOI /
arXiv links, and the chat page's download buttons in a real Chromium."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bibtexparser
import pytest
from library_helpers import library_assistant

from assistant import Answer, Assistant, Citation
from assistant.export import authors_of, cite_key, entry_type
from assistant.ui.render import render_citation

CLI = [sys.executable, "-m", "assistant.cli"]
RAW = """@inproceedings{vaswani2017attention,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam},
  booktitle = {Advances in Neural Information Processing Systems},
  year = {2017}
}"""
VASWANI = {"title": "Attention Is All You Need", "authors": "Vaswani, Ashish; Shazeer, Noam", "year": 2017,
           "venue": "Advances in Neural Information Processing Systems", "doi": "10.5555/3295222.3295349",
           "arxiv_id": "1706.03762", "mh03": 12345, "n_chunks": 3}


def citation(n: int, meta: dict[str, Any], label: str = "a label", text: str = "An abstract.") -> Citation:
    return Citation(n=n, doc_id=f"d{n}", label=label, text=text, source=f"lib.jsonl:{n}", metadata=meta)


def answer(*cites: Citation) -> Answer:
    return Answer(question="What is the Transformer?", text="It relies on attention alone [1].", citations=list(cites))


def parsed(bib: str) -> Any:
    lib = bibtexparser.parse_string(bib)
    assert not lib.failed_blocks, [b.error for b in lib.failed_blocks]
    return lib


def test_markdown_has_the_answer_and_numbered_references() -> None:
    md = answer(citation(1, VASWANI), citation(2, {}, label="Untitled abstract")).to_markdown()
    assert md.startswith("# What is the Transformer?\n\nIt relies on attention alone [1].")
    assert "## References" in md
    assert ("1. Vaswani, Ashish; Shazeer, Noam (2017). Attention Is All You Need. "
            "*Advances in Neural Information Processing Systems*. "
            "[doi:10.5555/3295222.3295349](https://doi.org/10.5555/3295222.3295349) "
            "[arXiv:1706.03762](https://arxiv.org/abs/1706.03762) (lib.jsonl:1)") in md
    assert "2. Untitled abstract. (lib.jsonl:2)" in md  # no metadata: the label and where it came from


def test_bibtex_built_from_metadata_parses_back() -> None:
    lib = parsed(answer(citation(1, VASWANI, text="The dominant models use 50% & more {braces")).to_bibtex())
    (entry,) = lib.entries
    assert entry.key == "vaswani2017attention" and entry.entry_type == "article"
    f = {k: v.value for k, v in entry.fields_dict.items()}
    assert f["author"] == "Vaswani, Ashish and Shazeer, Noam" and f["year"] == "2017"
    assert f["journal"] == "Advances in Neural Information Processing Systems"
    assert f["doi"] == "10.5555/3295222.3295349" and f["eprint"] == "1706.03762" and f["archiveprefix"] == "arXiv"
    assert f["abstract"] == r"The dominant models use 50\% \& more {braces}"  # LaTeX specials escaped, braces balanced
    assert "mh03" not in f and "n_chunks" not in f


def test_stored_bibtex_is_kept_and_keys_stay_unique() -> None:
    smith = {"title": "Deep nets", "authors": "Smith, Ann", "year": 2020, "venue": "Proceedings of the Workshop on X"}
    bib = answer(citation(1, {**VASWANI, "bibtex": RAW}), citation(2, smith), citation(3, smith)).to_bibtex()
    assert bib.startswith(RAW)  # as written in the user's file
    lib = parsed(bib)
    assert [e.key for e in lib.entries] == ["vaswani2017attention", "smith2020deep", "smith2020deepa"]
    assert lib.entries[1].entry_type == "inproceedings" and lib.entries[1]["booktitle"].startswith("Proceedings")
    assert answer().to_bibtex() == ""


@pytest.mark.parametrize(("meta", "key", "kind"), [
    ({"authors": "Ashish Vaswani, Noam Shazeer", "year": "2017", "title": "The Attention Trick"}, "vaswani2017attention", "misc"),
    ({"authors": "Schölkopf, Bernhard", "year": 2001, "title": "Ökonomie", "venue": "cs.LG"}, "scholkopf2001okonomie", "misc"),
    ({"authors": "Hu, Edward and Shen, Yelong", "title": "LoRA", "venue": "ICLR", "entry_type": "InProceedings"}, "hulora", "inproceedings"),
])
def test_keys_names_and_types(meta: dict[str, Any], key: str, kind: str) -> None:
    assert cite_key(meta, "fallback") == key and entry_type(meta) == kind
    assert len(authors_of(meta)) in (1, 2)


def test_source_cards_link_doi_and_arxiv_safely() -> None:
    card = render_citation(citation(1, VASWANI))
    assert 'href="https://doi.org/10.5555/3295222.3295349"' in card and 'href="https://arxiv.org/abs/1706.03762"' in card
    assert 'rel="noopener noreferrer"' in card
    evil = render_citation(citation(2, {"url": "javascript:alert(1)", "doi": '10.1/"><script>'}))
    assert "javascript:" not in evil and "<script>" not in evil


# --- the real path: ingest a library, ask, export ------------------------------------------------------
@pytest.fixture(scope="module")
def lib(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Assistant:
    return library_assistant(corpus_dir, tmp_path_factory.mktemp("lib") / "data")


QUESTION = "How fast do temperate glaciers slide after rainfall?"


def test_answer_citations_carry_the_stored_metadata(lib: Assistant) -> None:
    a = lib.ask(QUESTION)
    assert a.citations and a.citations[0].metadata["doi"].startswith("10.1234/lib.")
    assert {"year", "authors", "venue"} <= set(a.citations[0].metadata)
    assert not any(k.startswith("mh") for k in a.citations[0].metadata)
    md = a.to_markdown()
    assert "## References" in md and f"https://doi.org/{a.citations[0].metadata['doi']}" in md
    assert len(parsed(a.to_bibtex()).entries) == len(a.citations)


def test_cli_export_md_and_bib(lib: Assistant) -> None:
    base = [*CLI, "ask", QUESTION, "--data-dir", str(lib.settings.data_dir), "--backend", "extractive"]
    md = subprocess.run([*base, "--export", "md"], capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith(f"# {QUESTION}") and "## References" in md.stdout and "Sources:" not in md.stdout
    bib = subprocess.run([*base, "--export", "bib", "--year", "2011"], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ))
    assert bib.returncode == 0, bib.stderr
    entries = parsed(bib.stdout).entries
    assert entries and all(e["year"] == "2011" for e in entries)


# --- the page's download buttons, in Chromium -----------------------------------------------------------
@pytest.fixture()
def page() -> Iterator[Any]:
    from test_ui import CHROMIUM, CHROMIUM_ARGS

    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        yield context.new_page()
        context.close()
        browser.close()


@pytest.mark.slow
def test_page_downloads_the_answer_and_its_references(lib: Assistant, page: Any) -> None:
    from test_ui import ask, running

    with running(lib) as url:
        page.goto(url)
        page.wait_for_selector("#question textarea")
        assert not page.locator("#download-md").is_visible()
        page.locator("button:has-text('Filters')").click()
        page.fill("#filter-year textarea, #filter-year input", "2011")
        first = ask(page, QUESTION, 1)
        assert first.locator(".answer").count() == 1, first.inner_text()
        assert page.locator("#sources a.src-link").first.get_attribute("href").startswith("https://doi.org/10.1234/lib.")
        page.wait_for_selector("#download-md", state="visible")
        with page.expect_download() as got:
            page.click("#download-md")
        md = Path(got.value.path()).read_text(encoding="utf-8")
        assert md.startswith(f"# {QUESTION}") and "## References" in md and "(2011)" in md
        with page.expect_download() as got:
            page.click("#download-bib")
        assert got.value.suggested_filename.endswith(".bib")
        entries = parsed(Path(got.value.path()).read_text(encoding="utf-8")).entries
        assert entries and all(e["year"] == "2011" for e in entries)
        page.fill("#filter-year textarea, #filter-year input", "soon")
        bad = ask(page, QUESTION, 2)
        assert "year 'soon' is not" in bad.inner_text()


def test_a_bibtex_library_exports_its_own_entries(corpus_dir: Path, tmp_path: Path) -> None:
    import shutil

    bib = tmp_path / "refs.bib"
    bib.write_text("""@article{hughes2018coral,
  title = {Global warming transforms coral reef assemblages},
  author = {Hughes, Terry P. and Kerry, James T.},
  journal = {Nature},
  year = {2018},
  doi = {10.1038/s41586-018-0041-2},
  abstract = {Marine heatwaves in 2016 bleached corals along the Great Barrier Reef. Surveys of reefs
              before and after show that a third of the corals died within eight months of the heat stress.}
}
""", encoding="utf-8")
    shutil.copytree(corpus_dir / "models", tmp_path / "data" / "models")
    a = Assistant(data_dir=tmp_path / "data", backend="extractive")
    assert a.ingest([bib]).added == 1
    answer = a.ask("How many corals died after the 2016 heatwave?")
    assert answer.citations and answer.citations[0].metadata["doi"] == "10.1038/s41586-018-0041-2"
    out = answer.to_bibtex()
    assert out.startswith("@article{hughes2018coral,") and "journal = {Nature}" in out
    assert parsed(out).entries[0].key == "hughes2018coral"
    assert "[doi:10.1038/s41586-018-0041-2](https://doi.org/10.1038/s41586-018-0041-2)" in answer.to_markdown()


def test_markdown_of_a_refusal_claims_no_checked_citations() -> None:
    # the footer said "Answered by ...; every [n] was checked" under "The collection does not answer this question."
    refused = Answer(question="Who won the 1954 World Cup?", text="The collection does not answer this question.",
                     refused=True, backend="extractive")
    md = refused.to_markdown()
    assert "Not answered by extractive" in md and "every [n] was checked" not in md and "Answered by" not in md
    assert "every [n] was checked against the cited abstract" in answer(citation(1, VASWANI)).to_markdown()


def test_built_entries_keep_the_users_key_and_never_take_a_kept_entrys_key() -> None:
    # a CSL-JSON "citation-key" (ingest keeps it as metadata["citekey"]) was replaced by a made-up key,
    # so \cite{wangRewardShaping2024} in the user's paper found nothing
    wang = {"title": "Reward Shaping", "authors": "Wang, Li", "year": 2024, "citekey": "wangRewardShaping2024"}
    odd = {"title": "Deep nets", "authors": "Smith, Ann", "year": 2020, "citekey": "not a {key}"}
    # a built entry cited before a kept one whose key it would make must not take that key
    clash = RAW.replace("vaswani2017attention", "smith2020deep")
    bib = answer(citation(1, wang), citation(2, odd), citation(3, {**VASWANI, "bibtex": clash})).to_bibtex()
    assert [e.key for e in parsed(bib).entries] == ["smith2020deep", "wangRewardShaping2024", "smith2020deepa"]


def test_markdown_keeps_a_lists_lines_apart_and_titles_punctuated_once() -> None:
    # a list answer's lines ran together into one Markdown paragraph; "Need?." and "attention…." in references
    listed = Answer(question="Which papers propose sparse attention?", citations=[
        citation(1, {**VASWANI, "title": "Is Attention All You Need?"}), citation(2, {}, label="The quadratic cost of…")],
        text="2 abstracts on sparse attention (answered as a list):\n[1] A — first.\n[2] B — second.")
    md = listed.to_markdown()
    assert "(answered as a list):\n\n[1] A — first.\n\n[2] B — second.\n" in md
    assert "Is Attention All You Need? *Advances" in md and "Need?." not in md
    assert "2. The quadratic cost of… (lib.jsonl:2)" in md
