"""Bad input, table-driven: each kind gets a clear message naming file and line, the good records
beside it are still ingested, and nothing already stored is lost. Plus hypothesis properties:
random files never crash the loader and never reduce what is stored.

All cases ingest into one index (module fixture) that starts with a baseline of 5 abstracts;
each case uses its own two real seed paragraphs (``g[0]``, ``g[1]``) as its good records.
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import random
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ingest_helpers import distinct_seeds, fake_assistant

from assistant import Assistant
from ingest.loaders import MAX_CHARS, MIN_WORDS, load_file
from ingest.normalize import content_id, normalize_text

ZH = ("本文提出了一种用于长序列建模的高效注意力机制。我们将输入划分为固定大小的块，并在块之间传递压缩的记忆。"
      "在语言建模和长文档问答上的实验表明，该方法在保持精度的同时显著降低了显存占用。")
AR = ("نقدم في هذه الورقة طريقة جديدة لتدريب نماذج اللغة الكبيرة باستخدام بيانات أقل. "
      "تعتمد الطريقة على اختيار الأمثلة الأكثر فائدة أثناء التدريب. تظهر التجارب تحسنا ملحوظا على عدة معايير.")
RU = ("Мы предлагаем новый метод обучения трансформеров на длинных последовательностях. "
      "Метод уменьшает потребление памяти и ускоряет обучение без потери качества на стандартных тестах.")
LATIN = "We propose Café, a naïve façade detector for street images that reaches state-of-the-art accuracy."
SMART = "We call it \u201cfast attention\u201d \u2013 it is 3\u00d7 faster than the baseline\u2019s kernels on long inputs."
JA = "本研究では、大規模言語モデルの推論を高速化する新しい手法を提案する。実験により、精度を保ちながら速度が二倍になることを示した。"


def q(text: str) -> str:
    """A CSV field, quoted."""
    return '"' + text.replace('"', '""') + '"'


def jl(*rows: object) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def paras(*texts: str) -> bytes:
    return ("\n\n".join(texts) + "\n").encode()


def _random_bytes(seed: int, n: int) -> bytes:
    return random.Random(seed).randbytes(n)


@dataclass
class Case:
    id: str
    file: str
    make: Callable[[list[str]], bytes]
    added: int
    rejected: list[tuple[int, str]] = field(default_factory=list)  # exactly these, in order
    warnings: list[tuple[int, str]] = field(default_factory=list)  # at least these
    stored: Callable[[list[str]], list[str]] | None = None  # texts that must be stored afterwards


CASES = [
    # --- whole files that are not abstracts --------------------------------------------------
    Case("empty-txt", "a.txt", lambda g: b"", 0, [(0, "empty file")]),
    Case("empty-jsonl", "a.jsonl", lambda g: b"", 0, [(0, "empty file")]),
    Case("empty-csv", "a.csv", lambda g: b"", 0, [(0, "empty file")]),
    Case("whitespace-only", "a.txt", lambda g: b"  \n\t\n \r\n   \n", 0, [(0, "only whitespace")]),
    Case("whitespace-only-jsonl", "a.jsonl", lambda g: b"\n\n   \n", 0, [(0, "only whitespace")]),
    Case("header-only", "a.txt", lambda g: b"Daily Papers\n", 0, [(0, "no abstracts found")]),
    Case("png", "a.txt", lambda g: b"\x89PNG\r\n\x1a\n" + _random_bytes(1, 3000), 0, [(0, "PNG image")]),
    Case("pdf", "paper.pdf", lambda g: b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + _random_bytes(2, 3000), 0, [(0, "PDF")]),
    Case("docx", "a.txt", lambda g: b"PK\x03\x04" + _random_bytes(3, 2000), 0, [(0, "ZIP archive")]),
    Case("gzip", "a.jsonl", lambda g: gzip.compress(jl({"abstract": g[0]})), 0, [(0, "gzip")]),
    Case("elf", "a.txt", lambda g: b"\x7fELF\x02\x01\x01" + bytes(200), 0, [(0, "program")]),
    Case("sqlite", "a.txt", lambda g: b"SQLite format 3\x00" + bytes(4000), 0, [(0, "SQLite")]),
    Case("nul-heavy-binary", "a.txt", lambda g: bytes(range(256)) * 40, 0, [(0, "binary file")]),
    Case("random-bytes-no-nul", "a.txt", lambda g: _random_bytes(4, 5000).replace(b"\x00", b"\x01"), 0,
         [(0, "binary file")]),
    Case("binary-then-text", "a.txt", lambda g: paras(g[0]) + b"\n" + bytes(range(1, 8)) * 6 + b" word" * 10 + b"\n", 1,
         [(3, "binary data")]),
    # --- encodings ----------------------------------------------------------------------------
    Case("latin-1", "a.txt", lambda g: paras(LATIN, "Déjà vu: " + LATIN).decode().encode("latin-1"), 2,
         warnings=[(1, "not UTF-8")], stored=lambda g: [LATIN, "Déjà vu: " + LATIN]),
    Case("cp1252-quotes", "a.txt", lambda g: paras(SMART).decode().encode("cp1252"), 1,
         warnings=[(1, "Windows-1252")], stored=lambda g: [SMART]),
    Case("one-latin-1-line", "a.txt", lambda g: paras(g[0]) + b"\n" + g[1].encode() + b" Gr\xfc\xdfe.\n", 2,
         warnings=[(3, "not UTF-8")], stored=lambda g: [g[1] + " Grüße."]),
    Case("utf-16-le-bom", "a.txt", lambda g: codecs.BOM_UTF16_LE + paras(g[0], g[1]).decode().encode("utf-16-le"), 2),
    Case("utf-16-be-bom", "a.jsonl", lambda g: codecs.BOM_UTF16_BE + jl({"abstract": g[0]}).decode().encode("utf-16-be"), 1),
    Case("utf-16-no-bom", "a.txt", lambda g: paras(g[0], g[1]).decode().encode("utf-16-le"), 2, warnings=[(0, "without a byte-order mark")]),
    Case("utf-8-bom-csv", "a.csv", lambda g: codecs.BOM_UTF8 + f"id,abstract\n1,{q(g[0])}\n".encode(), 1),
    Case("utf-32-bom", "a.txt", lambda g: paras(g[0]).decode().encode("utf-32"), 1),
    Case("utf-16-truncated", "a.txt", lambda g: (codecs.BOM_UTF16_LE + paras(g[0]).decode().encode("utf-16-le"))[:-1], 1,
         warnings=[(1, "replaced")]),
    Case("few-nul-bytes", "a.txt", lambda g: paras(g[0]) + b"\n" + g[1].encode().replace(b" ", b" \x00", 1) + b"\n", 2,
         warnings=[(3, "control character")]),
    Case("latin-1-in-jsonl", "a.jsonl", lambda g: jl({"abstract": g[0]}) + b'{"abstract": "' + g[1].encode() + b' na\xefve"}\n', 2,
         warnings=[(2, "not UTF-8")]),
    # --- abstracts that are too short, too long, or not prose ---------------------------------
    Case("one-word", "a.txt", lambda g: paras(g[0], "Transformers", g[1]), 2, [(3, "too short (1 word,")]),
    Case("seven-words", "a.txt", lambda g: paras("We study attention in deep neural networks.", g[0]), 1, [(1, "too short (7 words")]),
    Case("100k-words-txt", "a.txt", lambda g: paras(g[0], "attention " * 100_000, g[1]), 2, [(3, "too long")]),
    Case("100k-words-jsonl", "a.jsonl", lambda g: jl({"abstract": g[0]}, {"abstract": "word " * 100_000}), 1, [(2, "too long")]),
    Case("no-blank-lines", "a.txt", lambda g: ("\n".join([g[0]] * 60) + "\n").encode(), 0, [(1, "blank lines between abstracts missing")]),
    Case("symbols", "a.txt", lambda g: paras("#### $$$$ %%%% &&&& **** ++++ ==== ~~~~ |||| ////", g[0]), 1, [(1, "does not look like prose")]),
    Case("table-of-numbers", "a.txt", lambda g: paras(" ".join(str(i * 37 % 1000) for i in range(60)), g[0]), 1, [(1, "does not look like prose")]),
    Case("control-chars", "a.txt", lambda g: paras(g[0].replace(" ", " \x1b[31m", 1).replace(" ", "\x07 ", 1), g[1]), 2,
         warnings=[(1, "control character")]),
    Case("form-feed-separator", "a.txt", lambda g: (g[0] + "\n\x0c\n" + g[1] + "\n").encode(), 2),
    Case("u2028-in-text", "a.txt", lambda g: paras(g[0].replace(". ", ".\u2028", 1), "x", g[1]), 2, [(3, "too short")]),
    # --- other languages and scripts: accepted ------------------------------------------------
    Case("chinese", "zh.txt", lambda g: paras(ZH, g[0]), 2, stored=lambda g: [ZH]),
    Case("arabic", "ar.txt", lambda g: paras(AR), 1, stored=lambda g: [AR]),
    Case("russian-jsonl", "ru.jsonl", lambda g: jl({"abstract": RU, "title": "Трансформеры"}), 1, stored=lambda g: [RU]),
    Case("japanese-csv", "ja.csv", lambda g: f"title,abstract\n研究,{q(JA)}\n".encode(), 1, stored=lambda g: [JA]),
    Case("emoji", "a.txt", lambda g: paras(g[0] + " 🚀🔥 Results improve by 3×."), 1),
    # --- JSON ---------------------------------------------------------------------------------
    Case("malformed-jsonl-line", "a.jsonl", lambda g: jl({"abstract": g[0]}) + b"{not json at all\n" + jl({"abstract": g[1]}), 2,
         [(2, "malformed JSON")]),
    Case("single-quotes-trailing-comma", "a.jsonl", lambda g: b"{'abstract': 'x',}\n" + jl({"abstract": g[0]}), 1, [(1, "malformed JSON")]),
    Case("truncated-jsonl", "a.jsonl", lambda g: jl({"abstract": g[0]}) + jl({"abstract": g[1]})[:60], 1, [(2, "malformed JSON")]),
    Case("truncated-array", "a.json", lambda g: ("[\n" + json.dumps({"abstract": g[0]}) + ",\n" + json.dumps({"abstract": g[1]})[:50]).encode(), 1,
         [(3, "truncated JSON")]),
    Case("unclosed-array", "a.json", lambda g: ("[\n" + json.dumps({"abstract": g[0]}) + ",\n" + json.dumps({"abstract": g[1]}) + "\n").encode(), 2,
         [(4, "never closed")]),
    Case("deeply-nested-line", "a.jsonl", lambda g: jl({"abstract": g[0]}) + b"[" * 100_000 + b"]" * 100_000 + b"\n" + jl({"abstract": g[1]}), 2,
         [(2, "nested too deeply")]),
    Case("deeply-nested-field", "a.jsonl", lambda g: b'{"abstract": ' + json.dumps(g[0]).encode() + b', "x": ' + b"[" * 50_000 + b"]" * 50_000 + b"}\n" + jl({"abstract": g[1]}), 1,
         [(1, "nested too deeply")]),
    Case("not-an-object", "a.jsonl", lambda g: b'"just a string"\n42\n' + jl({"abstract": g[0]}), 1,
         [(1, "expected a JSON object, got str"), (2, "got int")]),
    Case("no-text-field", "a.jsonl", lambda g: jl({"title": "T", "year": 2020}, {"abstract": g[0]}), 1, [(1, "no abstract field")]),
    Case("null-abstract", "a.jsonl", lambda g: jl({"abstract": None}, {"abstract": g[0]}), 1, [(1, "empty abstract")]),
    Case("number-abstract", "a.jsonl", lambda g: jl({"abstract": 3.5}, {"abstract": ["a", "list"]}, {"abstract": g[0]}), 1,
         [(1, "is float, not text"), (2, "is list, not text")]),
    Case("empty-string-abstract", "a.jsonl", lambda g: jl({"abstract": "   "}, {"abstract": g[0]}), 1, [(1, "empty abstract")]),
    Case("pretty-array", "a.json", lambda g: json.dumps([{"abstract": g[0]}, {"abstract": g[1]}], indent=2).encode(), 2),
    Case("wrapper-object", "a.json", lambda g: json.dumps({"papers": [{"abstract": g[0]}, {"abstract": g[1]}]}, indent=1).encode(), 2),
    Case("single-object", "a.json", lambda g: json.dumps({"id": "x", "abstract": g[0]}, indent=2).encode(), 1),
    Case("concatenated-pretty", "a.jsonl", lambda g: (json.dumps({"abstract": g[0]}, indent=2) + "\n" + json.dumps({"abstract": g[1]}, indent=2)).encode(), 2),
    Case("nan-and-huge-values", "a.jsonl", lambda g: ('{"abstract": ' + json.dumps(g[0]) + ', "score": NaN, "n": 1e999, "big": ' + "9" * 40 + "}\n").encode(), 1),
    Case("raw-control-in-json-string", "a.jsonl", lambda g: ('{"abstract": ' + json.dumps(g[0]).replace(" ", "\t", 1).replace(" ", "\x02", 1) + "}\n").encode(), 1,
         warnings=[(1, "control character")]),
    Case("prose-in-jsonl", "a.jsonl", lambda g: paras(g[0]), 0, [(1, "malformed JSON")]),
    Case("bad-metadata-keys", "a.jsonl", lambda g: jl({"abstract": g[0], "": 1, "$x": 2, "chroma:document": 3, "#id": 4}), 1),
    # --- CSV ----------------------------------------------------------------------------------
    Case("csv-quotes-newlines", "a.csv", lambda g: f'id,title,abstract\n1,"A, ""quoted"" title",{q(g[0])}\n2,"two\nlines",{q(g[1])}\n3,x,too short\n'.encode(), 2,
         [(5, "too short (2 words")]),
    Case("csv-missing-abstract-value", "a.csv", lambda g: f"id,title,abstract\n1,only a title\n2,t,{q(g[0])}\n".encode(), 1, [(2, "no abstract value")]),
    Case("csv-missing-trailing-column", "a.csv", lambda g: f"id,abstract,year\n1,{q(g[0])}\n".encode(), 1),
    Case("csv-unquoted-comma-last", "a.csv", lambda g: f"id,abstract\n1,{g[0].replace(chr(34), '')}\n".encode(), 1,
         warnings=[(2, "joined the extra fields")]),
    Case("csv-extra-fields-middle", "a.csv", lambda g: f"abstract,id\n{q(g[0])},1,2,3\n{q(g[1])},2\n".encode(), 1,
         [(2, "4 fields but the header has 2")]),
    Case("csv-no-abstract-column", "a.csv", lambda g: f"id,title,year\n1,{q(g[0])},2020\n".encode(), 0, [(1, "no abstract column")]),
    Case("csv-header-only", "a.csv", lambda g: b"id,title,abstract\n", 0, [(0, "no abstracts found")]),
    Case("csv-unclosed-quote", "a.csv", lambda g: f'id,abstract\n1,{q(g[0])}\n2,"never closed\n3,{q(g[1])}\n'.encode(), 2,
         [(3, "unclosed quote")]),
    Case("csv-blank-lines", "a.csv", lambda g: f"\n\nid,abstract\n\n1,{q(g[0])}\n\n\n2,{q(g[1])}\n".encode(), 2),
    Case("tsv-quotes", "a.tsv", lambda g: f'id\ttitle\tabstract\n1\t"tab\tin title"\t{q(g[0])}\n'.encode(), 1),
    Case("csv-duplicate-columns", "a.csv", lambda g: f"Abstract,abstract\n{q(g[0])},{q(g[1])}\n".encode(), 1,
         warnings=[(1, "duplicate column")]),
    Case("duplicate-ids-different-text", "a.csv", lambda g: f"id,abstract\nX1,{q(g[0])}\nX1,{q(g[1])}\n".encode(), 2,
         warnings=[(3, "also used at")]),
    Case("duplicate-rows", "a.jsonl", lambda g: jl({"id": 1, "abstract": g[0]}, {"id": 1, "abstract": g[0]}), 1),
    # --- paths --------------------------------------------------------------------------------
    Case("unknown-suffix-text", "notes.rst", lambda g: paras(g[0]), 1),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Assistant, set[str], Path]]:
    root = tmp_path_factory.mktemp("bad-input")
    baseline = root / "baseline.txt"
    baseline.write_text("\n\n".join(distinct_seeds(5, start=400)) + "\n")
    a = fake_assistant(root / "data")
    assert a.ingest([baseline]).added == 5
    yield a, set(a.store.all_docs()), root


def _good(i: int) -> list[str]:
    texts = distinct_seeds(2 * len(CASES) + 2, start=100)
    return texts[2 * i : 2 * i + 2]


def test_at_least_fifty_kinds() -> None:
    assert len(CASES) >= 50 and len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, index: tuple[Assistant, set[str], Path]) -> None:
    a, baseline, root = index
    g = _good(CASES.index(case))
    folder = root / case.id
    folder.mkdir()
    path = folder / case.file
    path.write_bytes(case.make(g))
    before = a.store.counts()["abstracts"]
    started = time.perf_counter()
    report = a.ingest([path])
    assert time.perf_counter() - started < 30
    assert report.added == case.added, report.summary()
    got = [(p.line, p.reason) for p in report.rejected]
    assert len(got) == len(case.rejected), report.summary()
    for (line, reason), (want_line, want) in zip(got, case.rejected, strict=True):
        assert line == want_line and want.lower() in reason.lower(), report.summary()
    for want_line, want in case.warnings:
        assert any(p.line == want_line and want.lower() in p.reason.lower() for p in report.warnings), report.summary()
    assert all(p.path == str(path) or p.path == str(path.resolve()) for p in report.rejected + report.warnings)
    text = report.summary()
    assert all(f"{p.path}:{p.line}" in text if p.line else p.path in text for p in report.rejected)
    docs = a.store.all_docs()
    assert baseline <= set(docs), "a stored abstract was lost"
    assert len(docs) == before + case.added
    for t in case.stored(g) if case.stored else []:
        doc = docs[content_id(normalize_text(t))]
        assert doc.original == t
    for doc in docs.values():  # nothing unprintable reaches the index
        assert not any(ord(c) < 32 and c not in "\t\n" for c in doc.original + doc.text)


def test_missing_paths_and_empty_folders(index: tuple[Assistant, set[str], Path]) -> None:
    a, _, root = index
    (root / "empty-folder").mkdir()
    (root / "folder-of-other-files").mkdir()
    (root / "folder-of-other-files" / "image.png").write_bytes(b"\x89PNG")
    fifo = root / "pipe.txt"
    os.mkfifo(fifo)
    report = a.ingest([root / "nope.txt", root / "empty-folder", root / "folder-of-other-files", fifo])
    reasons = {Path(p.path).name: p.reason for p in report.rejected}
    assert reasons == {"nope.txt": "no such file", "empty-folder": reasons["empty-folder"],
                       "folder-of-other-files": reasons["folder-of-other-files"], "pipe.txt": "not a regular file"}
    assert "no .txt" in reasons["empty-folder"] and report.added == 0


def test_huge_files(tmp_path: Path) -> None:
    """50 MB of text without blank lines is one giant paragraph: rejected as too long, naming the
    file and line, without holding it in memory as a paragraph. Over 200 MiB: refused unread."""
    big = tmp_path / "big.txt"
    line = ("We propose a method that improves attention in transformers for long sequences. " * 12).encode() + b"\n"
    with open(big, "wb") as f:
        for _ in range(50 * 2**20 // len(line) + 1):
            f.write(line)
    assert big.stat().st_size > 50 * 2**20
    started = time.perf_counter()
    records, problems = load_file(big)
    assert time.perf_counter() - started < 30
    assert records == [] and [(p.line, p.warning) for p in problems] == [(1, False)]
    assert "too long" in problems[0].reason and "blank lines" in problems[0].reason

    sparse = tmp_path / "huge.jsonl"
    with open(sparse, "wb") as f:
        f.truncate(201 * 2**20)  # sparse: takes no disk
    (problem,) = load_file(sparse)[1]
    assert problem.line == 0 and "over the 200 MiB limit" in problem.reason


def test_broken_rewrite_of_an_ingested_file_loses_nothing(tmp_path: Path) -> None:
    texts = distinct_seeds(4, start=60)
    f = tmp_path / "a.jsonl"
    f.write_bytes(jl(*({"id": i, "abstract": t} for i, t in enumerate(texts))))
    a = fake_assistant(tmp_path / "data")
    a.ingest([f])
    before = set(a.store.all_docs())
    for broken in (b"", b"\x89PNG\r\n" + bytes(100), b"{broken\n" * 4, b"   \n"):
        f.write_bytes(broken)
        report = a.ingest([f])
        assert report.rejected and report.removed == 0 and set(a.store.all_docs()) == before
    # one record broken in place: that abstract stays (its line is rejected), the rest re-read
    lines = jl(*({"id": i, "abstract": t} for i, t in enumerate(texts))).splitlines(keepends=True)
    lines[2] = b'{"id": 2, "abstract": "cut off in the midd\n'
    f.write_bytes(b"".join(lines))
    report = a.ingest([f])
    assert [p.line for p in report.rejected] == [3] and report.removed == 0
    assert set(a.store.all_docs()) == before


# --- properties ------------------------------------------------------------------------------------
SUFFIXES = [".txt", ".jsonl", ".json", ".csv", ".tsv", ".md", ".bin"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)
contents = st.one_of(
    st.binary(max_size=3000),
    st.text(max_size=3000).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.tuples(st.text(max_size=2000), st.sampled_from(["utf-16", "utf-16-le", "latin-1", "utf-32"])).map(
        lambda p: p[0].encode(p[1], "replace")),
    st.lists(st.dictionaries(st.sampled_from(["abstract", "text", "id", "title", "year", "", "x"]), json_values, max_size=5),
             max_size=6).map(lambda rows: "\n".join(json.dumps(r) for r in rows).encode()),
    st.lists(st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=80), min_size=1, max_size=4),
             max_size=6).map(lambda rows: "\n".join(",".join(r) for r in [["id", "abstract", "title"], *rows]).encode()),
)


def _check_loader(path: Path) -> None:
    records, problems = load_file(path)
    raw = path.read_bytes()
    n_lines = raw.count(b"\n") + raw.count(b"\r") + 2  # an upper bound, whatever the line ends
    for p in problems:
        assert p.path == str(path) and 0 <= p.line <= n_lines and p.reason
    for r in records:
        assert r.path == str(path) and 1 <= r.line <= n_lines
        assert len(r.text) <= MAX_CHARS and len(r.text.split()) >= 1
        assert not any(ord(c) < 32 and c not in "\t\n\r" for c in r.text)
    if not records:
        assert problems, "a file with no abstracts must say why"
    assert MIN_WORDS > 0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=contents, suffix=st.sampled_from(SUFFIXES))
def test_loader_never_crashes(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"input{suffix}"
        path.write_bytes(data)
        _check_loader(path)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=contents, suffix=st.sampled_from(SUFFIXES[:5]), good=st.booleans())
def test_ingest_never_crashes_or_loses(data: bytes, suffix: str, good: bool, index: tuple[Assistant, set[str], Path]) -> None:
    a, baseline, root = index
    with tempfile.TemporaryDirectory(dir=root) as d:
        path = Path(d) / f"input{suffix}"
        if good and suffix == ".txt":  # random junk appended to a good abstract: the good one survives
            data = paras(distinct_seeds(1, start=300)[0]) + b"\n" + data
        path.write_bytes(data)
        before = a.store.counts()["abstracts"]
        report = a.ingest([path])
        docs = a.store.all_docs()
        assert baseline <= set(docs) and len(docs) >= before
        assert len(docs) == before + report.added - report.removed and report.removed == 0
        assert all(p.path in (str(path), str(path.resolve())) for p in report.rejected + report.warnings)
