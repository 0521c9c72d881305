"""Ingest: loaders, normalisation, ids, labels, chunking, dedup and the report, on real seed texts.

Small corpora use the FakeEmbedder (milliseconds); the full seed ingest is the session fixture
``corpus_dir`` (real MiniLM), reused here for the seed counts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ingest_helpers import (
    FakeEmbedder,
    distinct_seeds,
    fake_assistant,
    integrity,
    seed,
    write_corpus,
)

from assistant.settings import DEFAULT_CORPUS
from assistant.store.embeddings import OfflineMiniLM
from ingest.chunking import chunk_text, split_sentences
from ingest.dedup import containment, find_versions
from ingest.loaders import iter_files, load_file
from ingest.normalize import content_id, make_label, normalize_text
from ingest.pipeline import ingest_paths

FIT_V1, FIT_V2 = "Nature is infinitely|To overcome this limitation", "Nature is infinitely|FiTv2"
FFN_V1, FFN_V2 = "State-of-the-art LLMs often rely on scale", "State-of-the-art results in large language models (LLMs) often"
BPT, RING = "Transformers have emerged as the cornerstone", "Transformers have emerged as the architecture of choice"


# --- loaders -------------------------------------------------------------------------------------
def test_seed_format_paragraphs_header_and_line_numbers(tmp_path: Path) -> None:
    a, b = distinct_seeds(2)
    f = tmp_path / "x.txt"
    half = b.index(" ", len(b) // 2)
    # header, CRLF line ends, a paragraph wrapped over two lines, a whitespace-only separator line
    f.write_bytes(f"Daily Papers\r\n\r\n{a}\r\n   \r\n{b[:half]}\r\n{b[half + 1:]}\r\n".encode())
    records, problems = load_file(f)
    assert problems == []
    assert [(r.line, r.text) for r in records] == [(3, a), (5, b)]
    assert content_id(normalize_text(records[1].text)) == content_id(normalize_text(b))


def test_seed_files_load_as_documented() -> None:
    records = [r for f in iter_files([DEFAULT_CORPUS]) for r in load_file(f)[0]]
    problems = [p for f in iter_files([DEFAULT_CORPUS]) for p in load_file(f)[1]]
    assert problems == []
    assert len(records) == 462  # paragraphs, "Daily Papers" headers excluded, README.md skipped
    assert len({content_id(normalize_text(r.text)) for r in records}) == 446
    assert not any(r.text.lower() == "daily papers" for r in records)


def test_jsonl_field_mapping_and_unknown_fields(tmp_path: Path) -> None:
    a, b, c = distinct_seeds(3)
    rows = [
        {"id": "2401.1", "title": "Paper A", "abstract": a, "authors": ["Ada L.", "Alan T."], "url": "http://x/a",
         "year": 2024, "venue": "ICML", "extra_field": {"k": [1, 2]}, "": "empty key", "#hash": 1, "label": "theirs"},
        {"_id": "B", "Title": "Paper B", "Text": b, "author": "Grace H."},
        {"paper_id": 7, "summary": c, "year": 10**30, "score": float("nan")},
    ]
    f = tmp_path / "papers.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    records, problems = load_file(f)
    assert problems == []
    r0, r1, r2 = records
    assert (r0.external_id, r0.title, r0.text, r0.line) == ("2401.1", "Paper A", a, 1)
    assert r0.metadata["authors"] == "Ada L.; Alan T." and r0.metadata["year"] == 2024
    assert r0.metadata["url"] == "http://x/a" and r0.metadata["venue"] == "ICML"
    assert json.loads(r0.metadata["extra_field"]) == {"k": [1, 2]}  # unknown fields kept (as JSON)
    assert r0.metadata["field_"] == "empty key" and r0.metadata["field_#hash"] == 1  # keys Chroma rejects
    assert r0.metadata["field_label"] == "theirs"  # would overwrite our label
    assert (r1.external_id, r1.title, r1.metadata["authors"]) == ("B", "Paper B", "Grace H.")
    assert r2.external_id == "7" and "year" not in r2.metadata and r2.metadata["score"] == "nan"  # no such year

    # ...and all of it is storable: Chroma accepts the metadata, the Hit shows it.
    assistant = fake_assistant(tmp_path / "data")
    report = assistant.ingest([f])
    assert report.added == 3 and not report.rejected
    docs = {d.metadata.get("external_id"): d for d in assistant.store.all_docs().values()}
    assert docs["2401.1"].label == "Ada and Alan 2024 — Paper A" and docs["2401.1"].metadata["title"] == "Paper A"
    assert docs["B"].metadata["authors"] == "Grace H."


def test_csv_tsv_and_semicolon_csv(tmp_path: Path) -> None:
    a, b = distinct_seeds(2)
    for name, sep in (("p.csv", ","), ("p.tsv", "\t"), ("semi.csv", ";")):
        f = tmp_path / name
        quoted = a.replace('"', '""')
        f.write_text(f'ID{sep}Title{sep}Abstract{sep}Year{sep}notes\r\nx1{sep}"T, one"{sep}"{quoted}"{sep}2023{sep}\r\n'
                     f'x2{sep}T2{sep}"{b}"{sep}{sep}"multi\nline"\r\n', encoding="utf-8")
        records, problems = load_file(f)
        assert problems == [], name
        assert [(r.external_id, r.title, r.text, r.line) for r in records] == [("x1", "T, one", a, 2), ("x2", "T2", b, 3)]
        assert records[0].metadata == {"year": 2023} and records[1].metadata == {"notes": "multi\nline"}


def test_beir_folder_reads_corpus_only(tmp_path: Path) -> None:
    beir = tmp_path / "scifact"
    (beir / "qrels").mkdir(parents=True)
    a, b = distinct_seeds(2)
    (beir / "corpus.jsonl").write_text(
        json.dumps({"_id": "d1", "title": "T1", "text": a, "metadata": {}}) + "\n"
        + json.dumps({"_id": "d2", "title": "", "text": b, "metadata": {"year": 2020}}) + "\n", encoding="utf-8")
    (beir / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "what is attention? " * 3}) + "\n")
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    assert list(iter_files([beir])) == [beir / "corpus.jsonl"]
    records, problems = load_file(beir / "corpus.jsonl")
    assert problems == [] and [(r.external_id, r.title) for r in records] == [("d1", "T1"), ("d2", "")]
    assert json.loads(records[1].metadata["metadata"]) == {"year": 2020}


def test_assistant_ingest_takes_files_and_folders(tmp_path: Path) -> None:
    texts = distinct_seeds(7)
    files = write_corpus(tmp_path / "corpus", texts[:4], per_file=2)
    extra = tmp_path / "more.jsonl"
    extra.write_text("\n".join(json.dumps({"abstract": t}) for t in texts[4:]) + "\n")
    hidden = tmp_path / "corpus" / ".assistant"  # an index inside the corpus folder is not read
    hidden.mkdir()
    (hidden / "tokenizer.json").write_text(json.dumps({"text": "x " * 50}))
    assistant = fake_assistant(tmp_path / "data")
    report = assistant.ingest([tmp_path / "corpus", extra])
    assert (report.files, report.added, report.rejected) == (3, 7, [])
    assert len(files) == 2 and report.totals["abstracts"] == 7
    integrity(assistant.store)


# --- normalisation, ids, labels ------------------------------------------------------------------
def test_normalize_latex_unicode_whitespace() -> None:
    raw = ("We reach 95\\% accuracy   on  \\textit{ImageNet}\n(see \\url{https://x.org/a_b}) and "
           "\\emph{\\textbf{bold}} claims \\cite{smith20}; cafe\u0301 \\& co~use \\_under\\_.")
    assert normalize_text(raw) == (
        "We reach 95% accuracy on ImageNet (see https://x.org/a_b) and bold claims; café & co use _under_.")
    assert normalize_text("e\u0301") == "\u00e9"  # NFC


def test_original_text_kept_for_display(tmp_path: Path) -> None:
    text = "We present \\textit{LaTeXNet}, a model reaching 95\\% accuracy with   spaced   words and more words here."
    f = tmp_path / "a.txt"
    f.write_text(text + "\n")
    assistant = fake_assistant(tmp_path / "data")
    assistant.ingest([f])
    (doc,) = assistant.store.all_docs().values()
    assert doc.original == text
    assert doc.text == "We present LaTeXNet, a model reaching 95% accuracy with spaced words and more words here."
    assert doc.label == "LaTeXNet"


def test_content_ids_are_stable() -> None:
    a = seed(FIT_V1)
    assert content_id(normalize_text(a)) == content_id(normalize_text("  " + a.replace(" ", "\n  ", 3)))
    assert content_id(normalize_text(a)) == content_id(normalize_text(a.upper()))
    assert content_id(normalize_text(a)) != content_id(normalize_text(a + " Extra sentence."))
    assert content_id("hello world") == "b94d27b9934d3e08"  # sha256 prefix: ids survive releases


@pytest.mark.parametrize(("prefix", "label"), [
    (FIT_V1, "Flexible Vision Transformer"), (BPT, "Blockwise Parallel Transformer"), (RING, "Ring Attention"),
])
def test_label_is_the_method_name(prefix: str, label: str) -> None:
    assert make_label(normalize_text(seed(prefix))) == label


def test_label_falls_back_to_first_words() -> None:
    assert make_label("Many tasks can be composed from a few independent components.") == "Many tasks can be composed from…"
    chinese = "本文提出了一种新的注意力机制用于处理长序列。实验表明该方法在多个基准上取得了最好的结果。"
    assert make_label(chinese) == chinese[:20] + "…"


# --- chunking ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory) -> OfflineMiniLM:
    """The real tokenizer (the ONNX model is never run here)."""
    return OfflineMiniLM(tmp_path_factory.mktemp("minilm"))


def test_chunks_fit_the_window_and_follow_sentences(minilm: OfflineMiniLM) -> None:
    long_sentence = " ".join(f"token{i} of a sentence that never ends" for i in range(120)) + "."
    texts = [normalize_text(t) for t in distinct_seeds(40)] + [
        "A short first sentence. " + long_sentence + " A short last sentence.",
    ]
    for text in texts:
        chunks = chunk_text(text, minilm.count_tokens)
        sentences = split_sentences(text)
        bounds = {b for s in sentences for b in (s.start, s.end)}
        too_long = [s for s in sentences if minilm.count_tokens(text[s.start : s.end]) > 250]
        assert "".join(c.text for c in chunks).replace(" ", "") == text.replace(" ", "")  # nothing lost
        for c in chunks:
            assert c.text == text[c.start : c.end]
            assert minilm.count_tokens(c.text) <= 256
            # sentence-aligned, unless it is a piece of a sentence longer than the window
            assert {c.start, c.end} <= bounds or any(s.start <= c.start < c.end <= s.end for s in too_long)
    assert len(chunk_text(texts[-1], minilm.count_tokens)) >= 4


def test_sentences_in_other_scripts(minilm: OfflineMiniLM) -> None:
    zh = "我们提出了一种新方法。它在三个基准上表现最好！代码已公开？是的。"
    assert [zh[s.start : s.end] for s in split_sentences(zh)] == ["我们提出了一种新方法。", "它在三个基准上表现最好！", "代码已公开？", "是的。"]
    ar = "نقدم طريقة جديدة. تتفوق الطريقة على الأساليب السابقة. الشيفرة متاحة؟ نعم."
    assert len(split_sentences(ar)) == 4
    long_zh = "注意力机制" * 200 + "。"  # one 1,000-character sentence
    chunks = chunk_text(long_zh, minilm.count_tokens)
    assert len(chunks) >= 4 and "".join(c.text for c in chunks) == long_zh
    assert all(minilm.count_tokens(c.text) <= 256 for c in chunks)


def test_every_stored_chunk_knows_its_abstract_and_span(tmp_path: Path) -> None:
    write_corpus(tmp_path / "c", distinct_seeds(6))
    assistant = fake_assistant(tmp_path / "data")
    assistant.ingest([tmp_path / "c"])
    snapshot = integrity(assistant.store)  # doc_id + span of each chunk checked there
    assert len(snapshot["ids"]) == 6 and snapshot["chunks"] >= 6


# --- dedup: exact repeats and versions, on the real seed texts -----------------------------------
def test_versions_on_the_seed_corpus() -> None:
    texts = {}
    for t in distinct_seeds(446):
        texts[content_id(normalize_text(t))] = normalize_text(t)
    assert len(texts) == 446
    found = {(texts[k][:52], texts[v][:52]) for k, v in find_versions(texts, {}).items()}
    ids = {p: content_id(normalize_text(seed(p))) for p in (FIT_V1, FIT_V2, FFN_V1, FFN_V2, BPT, RING)}
    assert found == {(texts[ids[FIT_V2]][:52], texts[ids[FIT_V1]][:52]), (texts[ids[FFN_V2]][:52], texts[ids[FFN_V1]][:52])}


def test_versions_in_a_small_corpus_and_thresholds() -> None:
    """Ingested alone (6 abstracts, where TF-IDF has almost no IDF), the same decisions."""
    small = {content_id(normalize_text(seed(p))): normalize_text(seed(p)) for p in (FIT_V1, FIT_V2, FFN_V1, FFN_V2, BPT, RING)}
    pairs = {(small[k][:40], small[v][:40]) for k, v in find_versions(small, {}).items()}
    assert pairs == {(normalize_text(seed(FIT_V2))[:40], normalize_text(seed(FIT_V1))[:40]),
                     (normalize_text(seed(FFN_V2))[:40], normalize_text(seed(FFN_V1))[:40])}
    words = {p: normalize_text(seed(p)).lower().replace(".", " ").split() for p in (BPT, RING)}
    assert containment(words[BPT], words[RING]) < 0.58  # below the threshold even without the name rule


def test_seed_dry_run_counts(tmp_path: Path) -> None:
    """The documented seed figures, computed on an empty index without embedding anything."""
    assistant = fake_assistant(tmp_path / "data", FakeEmbedder(forbid=True))
    report = ingest_paths([DEFAULT_CORPUS], assistant.store, assistant.embedder, dry_run=True, progress=False)
    assert (report.added, report.duplicates, report.versions, report.unchanged, len(report.rejected)) == (446, 16, 2, 0, 0)
    assert report.totals == {"abstracts": 446, "works": 444}
    assert assistant.store.counts() == {"abstracts": 0, "chunks": 0}
    assert "446 added" in report.summary() and "dry run" in report.summary()


def test_seed_corpus_index(corpus_copy) -> None:  # type: ignore[no-untyped-def]
    """The session's real seed ingest: repeats stored once with all locations, versions linked,
    and a re-ingest that embeds nothing."""
    store = corpus_copy.store
    docs = store.all_docs()
    assert len(docs) == 446 and len({d.work_id for d in docs.values()}) == 444
    assert sum(len(d.sources) - 1 for d in docs.values()) == 16  # every repeat's location kept
    assert sum(len(d.sources) for d in docs.values()) == 462
    by_prefix = {p: docs[content_id(normalize_text(seed(p)))] for p in (FIT_V1, FIT_V2, FFN_V1, FFN_V2, BPT, RING)}
    assert by_prefix[FIT_V1].work_id == by_prefix[FIT_V2].work_id
    assert by_prefix[FFN_V1].work_id == by_prefix[FFN_V2].work_id
    assert by_prefix[BPT].work_id != by_prefix[RING].work_id
    assert by_prefix[FIT_V1].label == "Flexible Vision Transformer"
    hits = corpus_copy.search("Flexible Vision Transformer for arbitrary resolution diffusion", k=5)
    assert sum(h.metadata["work_id"] == by_prefix[FIT_V1].work_id for h in hits) == 1  # one hit per work

    counting = FakeEmbedder(forbid=True)
    corpus_copy.embedder = counting
    report = corpus_copy.ingest([DEFAULT_CORPUS])
    assert (report.added, report.updated, report.unchanged, report.duplicates, report.removed) == (0, 0, 446, 16, 0)
    assert report.totals["abstracts"] == 446 and report.totals["works"] == 444
    assert "446 unchanged" in report.summary()


def test_summary_counts_read_as_english() -> None:
    from ingest.pipeline import IngestReport

    one = IngestReport(added=1, files=1, totals={"abstracts": 1, "works": 1, "chunks": 1}).summary()
    assert "index now holds 1 abstract (1 work), 1 chunk" in one  # was "1 abstracts (1 works), 1 chunks"
    many = IngestReport(files=2, totals={"abstracts": 446, "works": 440, "chunks": 900}).summary()
    assert "index now holds 446 abstracts (440 works), 900 chunks" in many
    dry = IngestReport(added=18, dry_run=True, totals={"abstracts": 18, "works": 17}).summary()
    assert "index would hold 18 abstracts (17 works)\n" in dry + "\n" and "chunk" not in dry  # was "0 chunks"
