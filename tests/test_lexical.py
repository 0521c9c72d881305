"""The persisted lexical index (assistant/store/lexical.py): bm25s-equal scores, incremental segments,
deletes, reopening from disk, refresh across processes, and a writer killed mid-flush."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import bm25s
import numpy as np
import pytest

import assistant.store.lexical as lexical
from assistant.language.text import tokens
from assistant.store.bm25_scoring import build_scores
from assistant.store.lexical import LexicalIndex

ROOT = Path(__file__).resolve().parent.parent
SCIFACT = ROOT / "evals" / "datasets" / "scifact-2101" / "corpus.jsonl"


@pytest.fixture(scope="module")
def corpus() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in SCIFACT.read_text(encoding="utf-8").splitlines()[:600]]
    return [(r["_id"], f"{r['title']} {r['text']}".strip()) for r in rows]


@pytest.fixture(scope="module")
def terms():  # noqa: ANN201
    return tokens


def _segments(path: Path) -> list[str]:
    return [s["name"] for s in json.loads((path / "manifest.json").read_text())["segments"]]


def test_scores_equal_bm25s_index(corpus, terms) -> None:
    tokens = [terms(t) for _, t in corpus]
    ref = bm25s.BM25()
    ref.index(tokens, show_progress=False)
    vocab = dict(ref.vocab_dict)
    vocab.pop("", None)
    flat = np.asarray([vocab[t] for toks in tokens for t in toks], dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in tokens])])
    ours = build_scores(flat, offsets, len(vocab))
    for query in ("vitamin D deficiency", "gene expression in mice", "the"):
        ids = [vocab[t] for t in terms(query) if t in vocab]
        if not ids:
            continue
        expected = ref.get_scores_from_ids(ids)
        got = np.zeros(len(corpus), dtype=np.float64)
        for t in ids:
            s, e = ours["indptr"][t], ours["indptr"][t + 1]
            np.add.at(got, ours["indices"][s:e], ours["data"][s:e])
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_add_search_delete_reopen(tmp_path, corpus, terms) -> None:
    index = LexicalIndex.open(tmp_path / "lex", terms)
    assert len(index) == 0 and index.search("anything", 5) == []
    ids, texts = zip(*corpus[:200], strict=True)
    index.add(list(ids), list(texts))
    assert index.search(texts[7][:80], 5) == []  # buffered until flush
    index.flush()
    assert len(index) == 200
    hits = index.search(texts[7][:200], 5)
    assert hits[0][0] == ids[7] and all(s > 0 for _, s in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert ids[7] not in [d for d, _ in index.search(texts[7][:200], 5, exclude={ids[7]})]
    assert index.search("zzzqqq unknownword", 5) == []

    index.delete([ids[7], "never-indexed"])
    index.flush()
    assert len(index) == 199 and ids[7] not in index.ids()
    assert ids[7] not in [d for d, _ in index.search(texts[7][:200], 10)]

    reopened = LexicalIndex.open(tmp_path / "lex", terms)
    assert reopened.ids() == set(ids) - {ids[7]}
    assert reopened.search(texts[9][:200], 3)[0][0] == ids[9]


def test_update_replaces_text(tmp_path, terms) -> None:
    index = LexicalIndex.open(tmp_path / "lex", terms)
    index.add(["a", "b"], ["photosynthesis in algae", "protein folding kinetics"])
    index.flush()
    index.add(["a"], ["neutron star mergers"])
    index.flush()
    assert len(index) == 2
    assert [d for d, _ in index.search("photosynthesis", 5)] == []
    assert [d for d, _ in index.search("neutron", 5)] == ["a"]


def test_deltas_then_merge(tmp_path, corpus, terms, monkeypatch) -> None:
    index = LexicalIndex.open(tmp_path / "lex", terms)
    ids, texts = zip(*corpus, strict=True)
    index.add(list(ids[:500]), list(texts[:500]))
    index.flush()
    assert len(_segments(tmp_path / "lex")) == 1
    for i in range(500, 540, 10):  # 40 new docs: under MERGE_FRACTION of 500, stay as deltas
        index.add(list(ids[i : i + 10]), list(texts[i : i + 10]))
        index.flush()
    assert len(_segments(tmp_path / "lex")) == 5
    assert index.search(texts[525][:200], 1)[0][0] == ids[525]
    index.add(list(ids[540:600]), list(texts[540:600]))  # 100 in deltas > 10% of 500: one new base
    index.flush()
    assert len(_segments(tmp_path / "lex")) == 1 and len(index) == 600
    assert {p.name for p in (tmp_path / "lex").iterdir() if p.is_dir()} == set(_segments(tmp_path / "lex"))
    monkeypatch.setattr(lexical, "MAX_DELTAS", 2)
    for i in range(3):
        index.add([f"x{i}"], [f"extra document number {i} about qwzebrafish"])
        index.flush()
    assert len(_segments(tmp_path / "lex")) == 2  # base + the deltas merged into one
    assert {d for d, _ in index.search("qwzebrafish", 10)} == {"x0", "x1", "x2"}


def test_other_tokenizer_is_treated_as_empty(tmp_path, terms) -> None:
    index = LexicalIndex.open(tmp_path / "lex", terms, tokenizer_id="v1")
    index.add(["a"], ["gravitational waves"])
    index.flush()
    assert len(LexicalIndex.open(tmp_path / "lex", terms, tokenizer_id="v1")) == 1
    other = LexicalIndex.open(tmp_path / "lex", terms, tokenizer_id="v2")
    assert len(other) == 0 and other.diff(["a"]) == ({"a"}, set())
    other.sync_from([("a", "gravitational waves"), ("b", "dark matter halos")])
    assert len(LexicalIndex.open(tmp_path / "lex", terms, tokenizer_id="v2")) == 2


WRITER = """
import os, signal, sys
import assistant.store.lexical as lexical
from assistant.store.lexical import LexicalIndex
from assistant.language.text import tokens
index = LexicalIndex.open(sys.argv[1], tokens)
if sys.argv[2] == "kill-before-manifest":
    def killed(*a, **k):
        os.kill(os.getpid(), signal.SIGKILL)
    LexicalIndex._write_manifest = killed
index.add(["new"], ["a freshly added abstract about axolotl regeneration"])
index.flush()
print("flushed", flush=True)
"""


def _writer(path: Path, mode: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", WRITER, str(path), mode], env=env, capture_output=True,
                          text=True, timeout=120)


def test_refresh_sees_another_process_and_survives_a_killed_writer(tmp_path, corpus, terms) -> None:
    path = tmp_path / "lex"
    index = LexicalIndex.open(path, terms)
    ids, texts = zip(*corpus[:100], strict=True)
    index.add(list(ids), list(texts))
    index.flush()
    reader = LexicalIndex.open(path, terms)
    assert reader.refresh() is False  # nothing changed: no reload

    killed = _writer(path, "kill-before-manifest")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert reader.refresh() is False and reader.search("axolotl", 3) == []
    assert len(LexicalIndex.open(path, terms)) == 100  # the old manifest still names complete segments

    done = _writer(path, "plain")
    assert done.returncode == 0 and "flushed" in done.stdout, done.stderr
    assert reader.refresh() is True
    assert reader.search("axolotl regeneration", 3)[0][0] == "new"
    assert len(reader) == 101
    leftovers = [p.name for p in path.iterdir() if p.name.startswith(".tmp-") or p.name.startswith(".manifest")]
    assert leftovers == []


def test_a_small_delta_is_scored_with_corpus_wide_statistics(tmp_path, corpus, terms) -> None:
    ids, texts = zip(*corpus[:301], strict=True)
    segmented = LexicalIndex.open(tmp_path / "seg", terms)
    segmented.add(list(ids[:300]), list(texts[:300]))
    segmented.flush()
    segmented.add([ids[300]], [texts[300]])  # one abstract: a delta of its own
    segmented.flush()
    assert len(_segments(tmp_path / "seg")) == 2
    rebuilt = LexicalIndex.open(tmp_path / "one", terms)
    rebuilt.add(list(ids), list(texts))
    rebuilt.flush()
    query = texts[300][:150]
    got, want = dict(segmented.search(query, 5)), dict(rebuilt.search(query, 5))
    assert ids[300] in got
    assert got[ids[300]] == pytest.approx(want[ids[300]], rel=0.02)


def test_excluded_abstracts_leave_the_idf_too(tmp_path, corpus, terms) -> None:
    """Leave-one-out: with abstracts excluded, the others score as in an index built without them
    (a word the excluded abstract shared with few others weighs more), not only minus their rows."""
    ids, texts = zip(*corpus[:300], strict=True)
    full = LexicalIndex.open(tmp_path / "full", terms)
    full.add(list(ids), list(texts))
    full.flush()
    left = LexicalIndex.open(tmp_path / "left", terms)
    left.add(list(ids[1:]), list(texts[1:]))
    left.flush()
    query = texts[0][:300]
    got = dict(full.search(query, 20, exclude={ids[0]}))
    want = dict(left.search(query, 20))
    assert list(got) == list(want)
    np.testing.assert_allclose([got[d] for d in want], list(want.values()), rtol=0.02)
    plain = dict(full.search(query, 21))
    plain.pop(ids[0], None)
    shared = [d for d in want if abs(plain.get(d, 0.0) - want[d]) > 1e-3 * want[d]]
    assert shared, "the query's words held by the excluded abstract must weigh differently without it"
