"""Helpers for the ingest, bad-input, fault and server tests (no tests here).

- ``FakeEmbedder``: deterministic hashed bag-of-words vectors, so small ingests take milliseconds
  instead of running MiniLM; it counts its calls and can be told to fail if called at all.
- ``seed(prefix)``: a real seed paragraph, picked by its first words.
- ``write_corpus``: a small corpus of real seed paragraphs, in files.
- ``integrity``: checks the invariants every ingest must leave behind.
"""

from __future__ import annotations

import json
import re
import zlib
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from assistant import Assistant
from assistant.settings import DEFAULT_CORPUS
from assistant.store.chroma import Store
from assistant.store.embeddings import MINILM_DIMENSION
from ingest.loaders import iter_files, load_file

DIM = MINILM_DIMENSION  # the real embedder's size, so a fake-embedded store looks like a real one
_WORD = re.compile(r"\w+")


class FakeEmbedder:
    """Hashed bag of words (+ bigrams), L2-normalised: similar texts get similar vectors."""

    def __init__(self, *, forbid: bool = False, delay: float = 0.0) -> None:
        self.calls = 0
        self.texts: list[str] = []
        self.forbid = forbid
        self.delay = delay

    def __call__(self, input: list[str]) -> list[np.ndarray]:  # noqa: A002 - chromadb's name
        if self.forbid:
            raise AssertionError(f"the embedder was called for {len(input)} text(s)")
        self.calls += 1
        self.texts.extend(input)
        if self.delay:
            import time

            time.sleep(self.delay)
        return [embed(t) for t in input]

    @staticmethod
    def count_tokens(text: str) -> int:  # roughly MiniLM's: ~1.3 tokens a word, plus [CLS]/[SEP]
        return len(text.split()) * 4 // 3 + 2

    @staticmethod
    def name() -> str:
        return "fake"


def embed(text: str) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    words = _WORD.findall(text.lower())
    for feature in words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]:
        h = zlib.crc32(feature.encode())
        v[h % DIM] += 1.0 if h & 1 << 31 else -1.0
    n = float(np.linalg.norm(v))
    return v / n if n else np.full(DIM, 1 / np.sqrt(DIM), dtype=np.float32)


def fake_assistant(data_dir: Path, embedder: Any | None = None, **overrides: Any) -> Assistant:
    """An Assistant whose embedder is ``embedder`` (a FakeEmbedder by default)."""
    return Assistant(data_dir=data_dir, backend="extractive", embedder=embedder or FakeEmbedder(), **overrides)


@cache
def seed_paragraphs() -> tuple[str, ...]:
    """Every paragraph of the bundled seed files, in file order (repeats included)."""
    return tuple(r.text for f in iter_files([DEFAULT_CORPUS]) for r in load_file(f)[0])


def seed(prefix: str) -> str:
    """The seed paragraph that starts with ``prefix`` (exactly one must). ``"first words|other
    words"`` picks the one that starts with the first part and contains the second."""
    start, _, inner = prefix.partition("|")
    found = sorted({t for t in seed_paragraphs() if t.startswith(start) and inner in t})
    assert len(found) == 1, f"{len(found)} seed paragraphs match {prefix!r}"
    return found[0]


def distinct_seeds(n: int, start: int = 0) -> list[str]:
    out: list[str] = []
    for t in seed_paragraphs()[start:]:
        if t not in out:
            out.append(t)
        if len(out) == n:
            break
    return out


def write_corpus(folder: Path, texts: list[str], per_file: int = 10, header: bool = False) -> list[Path]:
    """Seed-format files (one abstract per paragraph) holding ``texts``."""
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for i in range(0, len(texts), per_file):
        path = folder / f"part{i // per_file:02d}.txt"
        head = "Daily Papers\n\n" if header else ""
        path.write_text(head + "\n\n".join(texts[i : i + per_file]) + "\n", encoding="utf-8")
        files.append(path)
    return files


def counts(store: Store) -> dict[str, int]:
    return store.counts()


def integrity(store: Store) -> dict[str, Any]:
    """Assert the stored invariants; return a snapshot (ids, sources, works) for comparisons.

    Every doc has exactly its ``n_chunks`` chunks ``<doc>-0..n-1``, each chunk is the doc text at
    its character span, no chunk lacks its doc, and no text is stored twice.
    """
    docs = store.all_docs()
    got = store.chunks.get(include=["documents", "metadatas"])
    chunks_by_doc: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for cid, text, meta in zip(got["ids"], got["documents"], got["metadatas"], strict=True):
        chunks_by_doc.setdefault(str(meta["doc_id"]), []).append((cid, text, meta))
    orphans = set(chunks_by_doc) - set(docs)
    assert not orphans, f"chunks without their abstract: {sorted(orphans)[:5]}"
    texts = [d.text for d in docs.values()]
    assert len(texts) == len(set(texts)), "an abstract is stored twice"
    for doc in docs.values():
        chunks = chunks_by_doc.get(doc.doc_id, [])
        n = int(doc.metadata["n_chunks"])
        assert n >= 1 and sorted(c[0] for c in chunks) == sorted(f"{doc.doc_id}-{i}" for i in range(n)), doc.doc_id
        for _, text, meta in chunks:
            node = json.loads(meta["_node_content"])
            assert doc.text[node["start_char_idx"] : node["end_char_idx"]] == text
    from assistant.store.lexical import open_for

    lexical_ids = open_for(store.settings.data_dir, store.settings.collection_prefix).ids()
    assert lexical_ids == set(docs), f"lexical index out of step: {sorted(lexical_ids ^ set(docs))[:5]}"
    return {
        "ids": sorted(docs),
        "sources": {i: sorted(d.sources) for i, d in docs.items()},
        "works": {i: d.work_id for i, d in docs.items()},
        "chunks": len(got["ids"]),
    }
