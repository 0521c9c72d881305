"""Reference-manager and paper-source exports, shaped like the real ones: BibTeX (LaTeX accents and
commands, nested braces, @string macros, missing fields, duplicate keys, a broken entry), a
publisher's RIS, Zotero CSL-JSON, an arXiv snapshot excerpt, an OpenAlex page with
inverted-index abstracts, Semantic Scholar records; detected by content as well as by extension;
ingested into a real (embedded) Chroma store with their metadata."""

from __future__ import annotations

import json
from pathlib import Path

from ingest_helpers import fake_assistant

from ingest.loaders import load_file
from ingest.metadata import arxiv_id, doi, reference_label

ATTENTION = ("The dominant sequence transduction models are based on complex recurrent or convolutional neural "
             "networks in an encoder-decoder configuration. We propose a new simple network architecture, the "
             "Transformer, based solely on attention mechanisms, dispensing with recurrence and convolutions entirely.")

BIB = r"""% Exported from Zotero via Better BibTeX
@string{neurips = {Advances in Neural Information Processing Systems}}
@preamble{"\newcommand{\noop}[1]{}"}

@inproceedings{vaswani2017attention,
  title     = {Attention Is {All} You Need},
  author    = {Vaswani, Ashish and Shazeer, Noam and Parmar, Niki},
  booktitle = neurips,
  volume    = {30},
  year      = {2017},
  url       = {https://arxiv.org/abs/1706.03762v5},
  keywords  = {attention, machine translation},
  abstract  = {The dominant sequence transduction models are based on complex recurrent or convolutional
               neural networks in an encoder-decoder configuration. We propose a new simple network
               architecture, the \emph{Transformer}, based solely on attention mechanisms, dispensing with
               recurrence and convolutions entirely.}
}

@Article{muller2020komplex,
  Title    = {{\"U}ber die {K}omplexit{\"a}t von {Aufmerksamkeit}},
  Author   = {M{\"u}ller, J{\"o}rg and Garc{\'\i}a, Mar{\'i}a and {\O}stergaard, S{\o}ren},
  Journal  = {Journal of Machine Learning Research},
  Year     = 2020,
  DOI      = {https://doi.org/10.1234/JMLR.2020.001},
  Abstract = {We study the \textit{computational complexity} of self-attention layers with nested
              {braces {inside} them}, and show that a sparse variant costs only 95\% of the memory of
              the dense one on sequences of \num{4096} tokens.}
}

@misc{doe2021noabstract,
  title  = {A Paper Without an Abstract},
  author = {Doe, Jane},
  year   = {2021}
}

@article{broken2019,
  title  = {An entry whose title is never closed,
  author = {Nobody, A.},
  year   = {2019},

@article{lee2022retrieval,
  title    = "Retrieval Helps Small Models",
  author   = "Lee, Kim",
  journal  = "Transactions of the ACL",
  year     = "2022",
  abstract = "Retrieval lets a small language model answer knowledge-intensive questions as well as a
              model ten times its size, when the retrieved passages are ranked by a learned reader."
}

@article{vaswani2017attention,
  title    = {A Second Entry Filed Under the Same Key},
  author   = {Smith, John},
  year     = {2018},
  abstract = {Duplicate citation keys are common in merged libraries; this entry has its own abstract,
              distinct from the first one, so it is kept as an abstract of its own with a warning.}
}
"""

RIS = """TY  - JOUR
T1  - Deep Residual Learning for Image Recognition
AU  - He, Kaiming
AU  - Zhang, Xiangyu
AU  - Ren, Shaoqing
JO  - IEEE Transactions on Pattern Analysis and Machine Intelligence
PY  - 2016/06/27
VL  - 38
SP  - 770
EP  - 778
DO  - 10.1109/CVPR.2016.90
UR  - https://ieeexplore.ieee.org/document/7780459
KW  - Training
KW  - Neural networks
AB  - Deeper neural networks are more difficult to train. We present a residual learning framework to
ease the training of networks that are substantially deeper than those used previously.
ER  -

TY  - CONF
TI  - A Conference Paper Without an Abstract
AU  - Roe, Richard
PY  - 2019
ER  -

TY  - JOUR
TI  - A Record Cut Off Before Its End
AU  - Cut, Off
AB  - This record never reaches its end-of-record tag, as happens when an export is truncated by a download.
""".replace("ER  -\n", "ER  - \n")  # publishers write the end tag with a trailing space

CSL = [
    {"id": "http://zotero.org/users/1234/items/ABCD2345", "type": "article-journal",
     "title": "Retrieval Helps Small Models", "container-title": "Transactions of the ACL",
     "author": [{"family": "Lee", "given": "Kim"}], "issued": {"date-parts": [["2022", 3, 1]]},
     "DOI": "10.1162/TACL_A_00001", "URL": "https://doi.org/10.1162/tacl_a_00001",
     "abstract": "A retriever lets a small language model answer knowledge-intensive questions as well as a "
                 "model ten times its size; the retrieved passages are ranked by a learned reader model.",
     "keyword": "retrieval, question answering"},
    {"id": "devlin2019bert", "citation-key": "devlin2019bert", "type": "article", "publisher": "arXiv",
     "number": "arXiv:1810.04805", "DOI": "10.48550/arXiv.1810.04805",
     "title": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
     "author": [{"family": "Devlin", "given": "Jacob"}, {"family": "Chang", "given": "Ming-Wei"},
                {"literal": "Google AI Language"}],
     "issued": {"date-parts": [[2018, 10, 11]]},
     "abstract": "We introduce a new language representation model called BERT, which stands for Bidirectional "
                 "Encoder Representations from Transformers, pre-trained on unlabeled text."},
    {"id": "nobody2020", "type": "book", "title": "A Book Without an Abstract", "issued": {"date-parts": [[2020]]}},
]

ARXIV_LINES = [
    {"id": "1706.03762", "submitter": "Ashish Vaswani", "authors": "Ashish Vaswani, Noam Shazeer, Niki Parmar",
     "title": "Attention Is All You Need", "comments": "15 pages, 5 figures", "journal-ref": None, "doi": None,
     "categories": "cs.CL cs.LG", "license": "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
     "abstract": "  The dominant sequence transduction models are based on complex recurrent or\nconvolutional "
                 "neural networks that include an encoder and a decoder. We propose a new simple\nnetwork "
                 "architecture, the Transformer, based solely on attention mechanisms.\n",
     "versions": [{"version": "v1", "created": "Mon, 12 Jun 2017 17:57:34 GMT"}],
     "update_date": "2023-08-02",
     "authors_parsed": [["Vaswani", "Ashish", ""], ["Shazeer", "Noam", ""], ["Parmar", "Niki", ""]]},
    {"id": "hep-th/9901001", "authors": "A. Physicist", "title": "Strings on a\n  Lattice",
     "categories": "hep-th", "abstract": "  We place strings on a lattice and compute their spectrum at strong "
                 "coupling, finding agreement with the continuum limit to three digits.\n",
     "versions": [{"version": "v2", "created": "Fri, 1 Jan 1999 00:00:00 GMT"}], "update_date": "2008-02-03",
     "authors_parsed": [["Physicist", "A.", ""]]},
]


def _inverted(text: str) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for i, w in enumerate(text.split()):
        index.setdefault(w, []).append(i)
    return index


RESNET_OA = "Deeper neural networks are more difficult to train, so we present a residual framework that eases it."
OPENALEX = {
    "meta": {"count": 2, "db_response_time_ms": 31, "page": 1, "per_page": 25},
    "results": [
        {"id": "https://openalex.org/W2194775991", "doi": "https://doi.org/10.1109/CVPR.2016.90",
         "title": "Deep Residual Learning for Image Recognition", "display_name": "Deep Residual Learning for Image Recognition",
         "publication_year": 2016, "type": "article",
         "authorships": [{"author_position": "first", "author": {"id": "https://openalex.org/A1", "display_name": "Kaiming He"}},
                         {"author_position": "last", "author": {"id": "https://openalex.org/A2", "display_name": "Jian Sun"}}],
         "primary_location": {"landing_page_url": "https://doi.org/10.1109/cvpr.2016.90",
                              "source": {"display_name": "2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)"}},
         "abstract_inverted_index": _inverted(RESNET_OA)},
        {"id": "https://openalex.org/W3000000000", "doi": None, "title": "Withheld Abstract", "publication_year": 2021,
         "authorships": [], "abstract_inverted_index": None},
    ],
    "group_by": [],
}

S2 = {"total": 1, "offset": 0, "data": [
    {"paperId": "204e3073870fae3d05bcbc2f6a8e263d9b72e776",
     "externalIds": {"ArXiv": "1706.03762", "DBLP": "conf/nips/VaswaniSPUJGKP17", "CorpusId": 13756489},
     "title": "Attention is All you Need", "venue": "Neural Information Processing Systems", "year": 2017,
     "authors": [{"authorId": "40348417", "name": "Ashish Vaswani"}, {"authorId": "1846258", "name": "Noam M. Shazeer"}],
     "abstract": "The dominant sequence transduction models are based on complex recurrent or convolutional neural "
                 "networks in an encoder-decoder configuration, and the best ones connect them through attention."},
]}


def _write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def _reasons(problems: list) -> list[tuple[int, str, bool]]:
    return [(p.line, p.reason, p.warning) for p in problems]


# --- BibTeX --------------------------------------------------------------------------------------
def test_bibtex_decodes_latex_macros_and_nested_braces(tmp_path: Path) -> None:
    records, problems = load_file(_write(tmp_path, "lib.bib", BIB))
    by_key = {r.metadata["citekey"]: r for r in records if r.metadata["citekey"] != "vaswani2017attention"}
    vaswani = next(r for r in records if r.metadata["citekey"] == "vaswani2017attention" and r.line == 5)
    assert vaswani.title == "Attention Is All You Need"
    assert vaswani.metadata["venue"] == "Advances in Neural Information Processing Systems"  # @string resolved
    assert vaswani.metadata["authors"] == "Vaswani, Ashish; Shazeer, Noam; Parmar, Niki"
    assert vaswani.metadata["year"] == 2017 and vaswani.metadata["arxiv_id"] == "1706.03762"
    assert vaswani.metadata["keywords"] == "attention; machine translation"
    assert vaswani.metadata["entry_type"] == "inproceedings"
    assert "Transformer, based solely" in vaswani.text and "\\emph" not in vaswani.text and "{" not in vaswani.text
    # The raw entry, kept whole, with the macro's value written in so it stands alone.
    assert vaswani.metadata["bibtex"].startswith("@inproceedings{vaswani2017attention,")
    assert "{Advances in Neural Information Processing Systems}" in vaswani.metadata["bibtex"]
    assert "\\emph{Transformer}" in vaswani.metadata["bibtex"]

    muller = by_key["muller2020komplex"]  # capitalised field names, accents, nested braces, a bare year
    assert muller.title == "Über die Komplexität von Aufmerksamkeit"
    assert muller.metadata["authors"] == "Müller, Jörg; García, María; Østergaard, Søren"
    assert muller.metadata["doi"] == "10.1234/jmlr.2020.001" and muller.metadata["year"] == 2020
    assert "nested braces inside them" in muller.text and "95% of the memory" in muller.text
    assert by_key["lee2022retrieval"].metadata["venue"] == "Transactions of the ACL"  # quoted values


def test_bibtex_problems_name_key_and_line_and_good_entries_stay(tmp_path: Path) -> None:
    records, problems = load_file(_write(tmp_path, "lib.bib", BIB))
    assert sorted(r.metadata["citekey"] for r in records) == [
        "lee2022retrieval", "muller2020komplex", "vaswani2017attention", "vaswani2017attention"]
    errors = [(p.line, p.reason) for p in problems if not p.warning]
    assert (30, "BibTeX entry 'doe2021noabstract' has no abstract: not stored") in errors
    broken = [e for e in errors if "broken2019" in e[1]]
    assert broken and broken[0][0] == 36 and broken[0][1].startswith("malformed BibTeX entry 'broken2019'")
    assert len(errors) == 2
    (dup,) = [p for p in problems if p.warning]
    assert dup.line == 50 and "duplicate key 'vaswani2017attention'" in dup.reason and "line 5" in dup.reason
    second = next(r for r in records if r.line == 50)
    assert second.title == "A Second Entry Filed Under the Same Key" and second.metadata["year"] == 2018


def test_bibtex_in_a_txt_file_is_recognised_by_content(tmp_path: Path) -> None:
    records, _ = load_file(_write(tmp_path, "export.txt", BIB))
    assert len(records) == 4 and records[0].title == "Attention Is All You Need"


def test_prose_mentioning_at_signs_is_not_bibtex(tmp_path: Path) -> None:
    text = ("We contacted the authors at\n@article{ is how a BibTeX entry starts, which this abstract about "
            "reference managers explains at length for readers who never used one before.\n")
    records, _ = load_file(_write(tmp_path, "a.txt", "Reference managers store citations for researchers and "
                                  "export them in several formats that other tools read.\n\n" + text))
    assert len(records) == 2 and "bibtex" not in records[0].metadata


CONCAT = r"""@string{jmlr = "Journal of Machine Learning Research"}
@STRING{vol = "Vol. "}
@string{asia = "Asia" # "crypt"}
@string{asia91 = asia # " '91"}

@article{dupont2020,
  title    = {Concatenated Venues},
  author   = {Dupont, Fran{\c{c}}ois},
  journal  = JMLR # ", " # vol # "21",
  month    = 10 # " " # jan,
  year     = {2020},
  abstract = {We study how reference managers write concatenated macros into BibTeX files and read them back.}
}

@inproceedings{lee2019,
  title     = "C# " # {and} # " F# Programs",
  author    = "Lee, Min-ho",
  booktitle = asia91,
  year      = 2019,
  abstract  = "We count how often C# and F# programs appear in the benchmark and find both are rare."
}

@inproceedings{odd2019,
  title     = {An Abbreviation From Another File},
  author    = {Odd, Ann},
  booktitle = IEEE_J_PAMI # " 2019",
  year      = 2019,
  abstract  = {The journal macro of this entry is defined in IEEEabrv.bib, which is not part of this file.}
}
"""


def test_bibtex_concatenated_macros_are_resolved(tmp_path: Path) -> None:
    # bibtexparser 2.1 leaves a '#' expression raw (its issue #396): the venue read 'jmlr # ", " # vol # "21"'
    records, problems = load_file(_write(tmp_path, "cat.bib", CONCAT))
    by_key = {r.metadata["citekey"]: r for r in records}
    dupont, lee, odd = by_key["dupont2020"], by_key["lee2019"], by_key["odd2019"]
    assert dupont.metadata["venue"] == "Journal of Machine Learning Research, Vol. 21"  # case-insensitive names
    assert "journal = {Journal of Machine Learning Research, Vol. 21}" in dupont.metadata["bibtex"]
    assert "month = {10 January}" in dupont.metadata["bibtex"]  # the standard month macro; the raw stands alone
    assert lee.title == "C# and F# Programs"  # '#' inside quotes is text, not concatenation
    assert lee.metadata["venue"] == "Asiacrypt '91"  # a macro defined by a concatenation of macros
    assert odd.metadata["venue"] == "IEEE_J_PAMI 2019"  # undefined here: kept by name, with a warning
    assert _reasons(problems) == [(23, "BibTeX entry 'odd2019': no @string defines 'IEEE_J_PAMI' (kept as written)", True)]


# --- RIS -----------------------------------------------------------------------------------------
def test_publisher_ris(tmp_path: Path) -> None:
    records, problems = load_file(_write(tmp_path, "ieee.ris", RIS))
    (rec,) = records
    assert rec.title == "Deep Residual Learning for Image Recognition" and rec.line == 1
    assert rec.metadata["authors"] == "He, Kaiming; Zhang, Xiangyu; Ren, Shaoqing"
    assert rec.metadata["year"] == 2016 and rec.metadata["doi"] == "10.1109/cvpr.2016.90"
    assert rec.metadata["venue"] == "IEEE Transactions on Pattern Analysis and Machine Intelligence"
    assert rec.metadata["keywords"] == "Training; Neural networks" and rec.metadata["entry_type"] == "article"
    assert rec.text.endswith("used previously.")  # the continuation line joined
    assert _reasons(problems) == [
        (19, "RIS entry has no abstract: not stored", False),
        (25, "malformed RIS record: the file ends before its 'ER  -' line", False),
    ]
    same, _ = load_file(_write(tmp_path, "scopus.txt", RIS.replace("\n", "\r\n")))  # by content, CRLF
    assert [r.title for r in same] == [rec.title]


def test_ris_book_title_tag_is_the_venue(tmp_path: Path) -> None:
    # rispy does not know BT, so a chapter's book was lost (no venue, no --venue match)
    ris = ("TY  - CHAP\nT1  - A Chapter on Things\nAU  - Writer, Wanda\nDA  - 2019/07/03/\nBT  - Handbook of Things\n"
           f"AB  - {ATTENTION}\nER  - \n")
    (rec,), problems = load_file(_write(tmp_path, "chapter.ris", ris))
    assert not problems
    assert rec.metadata["venue"] == "Handbook of Things" and rec.metadata["entry_type"] == "incollection"
    assert rec.metadata["year"] == 2019


# --- JSON sources --------------------------------------------------------------------------------
def test_zotero_csl_json(tmp_path: Path) -> None:
    records, problems = load_file(_write(tmp_path, "My Library.json", json.dumps(CSL, indent=2)))
    lee, bert = records
    assert lee.metadata["authors"] == "Lee, Kim" and lee.metadata["year"] == 2022
    assert lee.metadata["doi"] == "10.1162/tacl_a_00001" and lee.metadata["venue"] == "Transactions of the ACL"
    assert lee.metadata["keywords"] == "retrieval; question answering" and lee.metadata["entry_type"] == "article"
    assert bert.metadata["arxiv_id"] == "1810.04805" and bert.metadata["citekey"] == "devlin2019bert"
    assert bert.metadata["authors"] == "Devlin, Jacob; Chang, Ming-Wei; Google AI Language"
    (p,) = problems
    assert "'nobody2020' has no abstract" in p.reason and p.line > 1


def test_csl_json_rich_text_and_crossref_jats_are_plain_text(tmp_path: Path) -> None:
    # Zotero keeps Crossref's JATS abstract and CSL's <i>/<sup> title markup; both reached the index,
    # the answer text and the label ("HTML <i>in</i> titles")
    item = {"id": "x1", "type": "article-journal", "title": "Scaling <i>BERT</i> to 10<sup>6</sup> Documents",
            "author": [{"family": "Kim", "given": "Soo-jin"}], "issued": {"date-parts": [[2020]]},
            "abstract": "<jats:title>Abstract</jats:title><jats:p>We index 10<jats:sup>6</jats:sup> documents with "
                        "<jats:italic>BERT</jats:italic> &amp; BM25.</jats:p><jats:p>Recall rises when x < y.</jats:p>"}
    (rec,), problems = load_file(_write(tmp_path, "zotero.json", json.dumps([item])))
    assert not problems
    assert rec.title == "Scaling BERT to 10^6 Documents"
    assert rec.text == "We index 10^6 documents with BERT & BM25. Recall rises when x < y."


def test_arxiv_snapshot_excerpt_with_a_broken_line(tmp_path: Path) -> None:
    lines = [json.dumps(ARXIV_LINES[0]), '{"id": "2101.00001", "title": "cut off', json.dumps(ARXIV_LINES[1])]
    records, problems = load_file(_write(tmp_path, "arxiv-metadata-oai-snapshot.json", "\n".join(lines) + "\n"))
    first, old = records
    assert first.metadata["arxiv_id"] == "1706.03762" and first.metadata["year"] == 2017
    assert first.metadata["authors"] == "Vaswani, Ashish; Shazeer, Noam; Parmar, Niki"
    assert first.metadata["venue"] == "cs.CL" and first.metadata["url"] == "https://arxiv.org/abs/1706.03762"
    assert old.metadata["arxiv_id"] == "hep-th/9901001" and old.title == "Strings on a Lattice" and old.line == 3
    assert [(p.line, p.reason.split(":")[0]) for p in problems] == [(2, "malformed JSON")]


def test_openalex_page_single_work_and_jsonl(tmp_path: Path) -> None:
    records, problems = load_file(_write(tmp_path, "works.json", json.dumps(OPENALEX, indent=1)))
    (rec,) = records
    assert rec.text == RESNET_OA  # rebuilt from the inverted index
    assert rec.metadata["authors"] == "Kaiming He; Jian Sun" and rec.metadata["year"] == 2016
    assert rec.metadata["doi"] == "10.1109/cvpr.2016.90" and "CVPR" in rec.metadata["venue"]
    (p,) = problems
    assert "'W3000000000' has no abstract" in p.reason
    single, _ = load_file(_write(tmp_path, "w.json", json.dumps(OPENALEX["results"][0])))
    lines, _ = load_file(_write(tmp_path, "w.jsonl", "\n".join(json.dumps(w) for w in OPENALEX["results"])))
    assert [r.text for r in single] == [r.text for r in lines] == [RESNET_OA]


def test_semantic_scholar_search_page(tmp_path: Path) -> None:
    (rec,), problems = load_file(_write(tmp_path, "s2.json", json.dumps(S2)))
    assert not problems
    assert rec.metadata["arxiv_id"] == "1706.03762" and rec.metadata["venue"] == "Neural Information Processing Systems"
    assert rec.metadata["authors"] == "Ashish Vaswani; Noam M. Shazeer" and rec.metadata["year"] == 2017


def test_identifier_normalisation() -> None:
    assert doi("https://doi.org/10.1109/CVPR.2016.90") == doi("doi:10.1109/cvpr.2016.90") == "10.1109/cvpr.2016.90"
    assert arxiv_id("arXiv:1706.03762v5") == arxiv_id("https://arxiv.org/pdf/1706.03762v2") == "1706.03762"
    assert arxiv_id("10.48550/arXiv.2401.00001") == "2401.00001" and arxiv_id("no id here") == ""
    assert reference_label({"authors": "Vaswani, Ashish; Shazeer, Noam; Parmar, Niki", "year": 2017},
                           "Attention Is All You Need") == "Vaswani et al. 2017 — Attention Is All You Need"
    assert reference_label({"authors": "Kaiming He; Jian Sun", "year": 2016}, "Deep Residual Learning") == \
        "He and Sun 2016 — Deep Residual Learning"
    assert reference_label({}, "Only a Title") == "Only a Title" and reference_label({"year": 2020}, "") == ""
    # a plain row's "A and B" / "A B, C D" authors were one name: "Dijkstra 2021 — ..."
    assert reference_label({"authors": "Grace Hopper and Edsger Dijkstra", "year": 2021}, "Sinks") == \
        "Hopper and Dijkstra 2021 — Sinks"
    assert reference_label({"authors": "Ada Lovelace, Alan Turing, Grace Hopper"}, "Sinks") == "Lovelace et al. — Sinks"


# --- into the store ------------------------------------------------------------------------------
def test_every_format_ingests_with_metadata_labels_and_identifier_joins(tmp_path: Path) -> None:
    folder = tmp_path / "library"
    folder.mkdir()
    _write(folder, "lib.bib", BIB)
    _write(folder, "ieee.ris", RIS)
    _write(folder, "zotero.json", json.dumps(CSL))
    _write(folder, "arxiv.jsonl", "\n".join(json.dumps(x) for x in ARXIV_LINES))
    _write(folder, "openalex.json", json.dumps(OPENALEX))
    _write(folder, "s2.json", json.dumps(S2))
    a = fake_assistant(tmp_path / "data")
    report = a.ingest([folder])
    assert report.added == 11 and len(report.rejected) == 6  # 4 without an abstract, 1 broken, 1 cut off
    assert report.versions == 4  # 2 more texts of Attention, 1 of ResNet (ids), Lee twice (text rules)
    docs = list(a.store.all_docs().values())
    by_label = {d.label: d for d in docs}
    vaswani = by_label["Vaswani et al. 2017 — Attention Is All You Need"]
    meta = vaswani.metadata
    assert (meta["year"], meta["arxiv_id"], meta["entry_type"]) == (2017, "1706.03762", "inproceedings")
    assert isinstance(meta["bibtex"], str) and meta["bibtex"].startswith("@inproceedings")
    # The BibTeX entry, the arXiv snapshot line and the Semantic Scholar record share the arXiv id:
    # three texts of one work.
    same = [d for d in docs if d.metadata.get("arxiv_id") == "1706.03762"]
    assert len(same) == 3 and len({d.work_id for d in same}) == 1
    # The RIS record and the OpenAlex work share the DOI: one work.
    resnet = [d for d in docs if d.metadata.get("doi") == "10.1109/cvpr.2016.90"]
    assert len(resnet) == 2 and len({d.work_id for d in resnet}) == 1
    assert "He et al. 2016 — Deep Residual Learning for Image Recognition" in by_label
    assert "Devlin et al. 2018 — BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding" in by_label
    for d in docs:  # every stored value is a scalar Chroma accepts, and the contract's keys are typed
        assert all(isinstance(v, str | int | float | bool) for v in d.metadata.values())
        assert isinstance(d.metadata.get("year", 0), int)
    hits = a.search("residual learning framework deeper networks", k=3)
    assert hits and "Deep Residual" in hits[0].label
