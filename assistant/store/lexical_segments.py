"""One segment of the lexical index on disk (assistant/store/lexical.py holds the index and its policy):
a bm25s index saved into a temporary folder and renamed into place, with its row -> doc id array and
its token rows (kept for merges, never read by search); merging segments into one; removing the
folders no manifest names. Every write is fsync'd before the rename, so a folder named ``seg-*`` is
complete."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from assistant.store.bm25_scoring import K1, B, build_scores


@dataclass
class Segment:
    name: str
    bm25: Any  # bm25s.BM25 with memory-mapped scores
    ids: np.ndarray  # row -> doc id (memory-mapped unicode array)
    dead: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # tombstoned rows
    tokens: int = 0  # total token count (for the corpus-wide average length of later deltas)

    @property
    def rows(self) -> int:
        return int(self.bm25.scores["num_docs"])

    @property
    def live(self) -> int:
        return self.rows - len(self.dead)


def open_segment(path: Path, name: str) -> Segment:
    """The segment ``name`` of the index in ``path``, its arrays memory-mapped."""
    folder = path / name
    bm25 = bm25s.BM25.load(folder, mmap=True, show_progress=False)
    return Segment(name, bm25, np.load(folder / "ids.npy", mmap_mode="r"))


def live_docs(path: Path, entry: dict[str, Any]) -> int:
    """The live rows of a manifest entry (its rows less its tombstones)."""
    params = json.loads((path / entry["name"] / "params.index.json").read_text(encoding="utf-8"))
    return int(params["num_docs"]) - len(entry["dead"])


def _segment_tokens(folder: Path) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    vocab = json.loads((folder / "vocab.index.json").read_text(encoding="utf-8"))
    words = [""] * len(vocab)
    for w, i in vocab.items():
        words[i] = w
    return words, np.load(folder / "tokens.npy"), np.load(folder / "offsets.npy"), np.load(folder / "ids.npy")


def merge(path: Path, generation: int, names: list[str], dead: dict[str, set[int]],
          background: list[Segment]) -> tuple[str, int]:
    """One new segment holding the live rows of ``names`` (tokens re-mapped to one vocabulary):
    (its name, its token count)."""
    vocab: dict[str, int] = {}
    parts, lengths, ids = [], [], []
    for name in names:
        words, flat, offsets, seg_ids = _segment_tokens(path / name)
        remap = np.asarray([vocab.setdefault(w, len(vocab)) for w in words], dtype=np.int32)
        keep = np.ones(len(seg_ids), dtype=bool)
        keep[list(dead.get(name, ()))] = False
        lens = np.diff(offsets)
        row_of_token = np.repeat(keep, lens)
        parts.append(remap[flat[row_of_token]] if len(flat) else flat)
        lengths.append(lens[keep])
        ids.append(seg_ids[keep])
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum(np.concatenate(lengths))]).astype(np.int64)
    return _save(path, generation, np.concatenate(ids).astype(str).tolist(), flat, offsets, vocab, background)


def write(path: Path, generation: int, ids: list[str], token_lists: list[list[str]],
          background: list[Segment]) -> tuple[str, int]:
    """A new segment of these abstracts' tokens: (its name, its token count)."""
    vocab: dict[str, int] = {}
    flat = np.asarray([vocab.setdefault(t, len(vocab)) for toks in token_lists for t in toks], dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in token_lists])]).astype(np.int64)
    return _save(path, generation, ids, flat, offsets, vocab, background)


def _save(path: Path, generation: int, ids: list[str], flat: np.ndarray, offsets: np.ndarray,
          vocab: dict[str, int], background: list[Segment]) -> tuple[str, int]:
    name = f"seg-{generation + 1:08d}-{uuid.uuid4().hex[:8]}"
    tmp = path / f".tmp-{name}"
    bm25 = bm25s.BM25(k1=K1, b=B, method="lucene")
    bg_df = np.zeros(max(len(vocab), 1), dtype=np.int64)
    words = list(vocab)
    for seg in background:  # document frequencies of this segment's terms in the rest of the index
        seg_df = np.diff(np.asarray(seg.bm25.scores["indptr"]))
        where = np.asarray([seg.bm25.vocab_dict.get(w, -1) for w in words], dtype=np.int64)
        found = (where >= 0) & (where < len(seg_df))
        bg_df[found] += seg_df[where[found]]  # vocab ids are 0..n-1 in insertion order
    bm25.scores = build_scores(flat, offsets, max(len(vocab), 1), bg_df, sum(s.rows for s in background),
                               sum(s.tokens for s in background))
    bm25.vocab_dict = vocab
    bm25.nonoccurrence_array = None
    bm25.save(tmp, show_progress=False)
    np.save(tmp / "ids.npy", np.asarray(ids, dtype=str))
    np.save(tmp / "tokens.npy", flat.astype(np.int32))  # kept for merges (never read by search)
    np.save(tmp / "offsets.npy", offsets)
    fsync_dir(tmp)
    os.rename(tmp, path / name)
    return name, int(len(flat))


def collect_garbage(path: Path, live: set[str], manifest: str) -> None:
    """Remove segment folders the manifest no longer names (readers keep their mmaps: Linux
    unlinks a mapped file only when the last mapping goes) and temp folders of killed writers."""
    for p in path.iterdir():
        if p.is_dir() and p.name not in live and (p.name.startswith("seg-") or p.name.startswith(".tmp-")):
            shutil.rmtree(p, ignore_errors=True)
        elif p.name.startswith(f".{manifest}."):
            p.unlink(missing_ok=True)


def fsync_dir(path: Path) -> None:
    for p in [*path.iterdir(), path] if path.is_dir() else [path]:
        if p.is_file() or p == path:
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
