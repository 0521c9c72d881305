"""Indexes of the bundled corpus and of SciFact-2101 under each way of computing chunk vectors
(``ingest.writer.CHUNK_VECTORS``), for refitting the fusion on each (issue #41).

    python -m evals.chunk_vector_indexes ROOT [--modes late,own] [--skip-bundled] [--skip-scifact] [--scifact FOLDER]
    python -m evals.fit retrieval --data-dir ROOT/<mode>/bundled --scifact-dir ROOT/<mode>/scifact

Writes ``ROOT/<mode>/bundled`` and ``ROOT/<mode>/scifact``, ingested as the product does with
that mode. The modes share what is the same between them, so the pair costs about one pass over
each word instead of three: the whole-abstract vectors (the same forward pass in both modes) and
the vectors of texts embedded alone are kept in a table keyed by the text, and the second mode's
ingest reads them from it. The bundled corpus's ``own`` index reads the shipped vectors, as a
fresh install does.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from evals.data import DATASETS_DIR


class Table:
    """The embedder behind a table of the vectors it computed (text -> vector)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.vectors: dict[str, np.ndarray] = {}
        self.embedded = 0

    def __call__(self, input: list[str]) -> np.ndarray:  # noqa: A002 - chromadb's name
        texts = list(input)
        missing = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        if missing:
            self.embedded += len(missing)
            for t, v in zip(missing, np.asarray(self.inner(missing), dtype=np.float32), strict=True):
                self.vectors[t] = v
        if not texts:
            return np.zeros((0, self.inner.dimension), np.float32)
        return np.stack([self.vectors[t] for t in texts])

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def build(root: Path, modes: list[str], bundled: bool, scifact: Path | None) -> dict[str, Any]:
    from assistant import Assistant
    from assistant.settings import Settings
    from assistant.store.embeddings import make_embedder
    from ingest import late_chunks, writer

    model = make_embedder(Settings.load(data_dir=root / "models"))
    table = Table(model)
    plain_late = late_chunks.late_vectors

    def recording(embedder: Any, texts: list[str], spans: Any) -> Any:
        docs, per_doc = plain_late(embedder, texts, spans)
        table.vectors.update(zip(texts, docs, strict=True))
        return docs, per_doc

    late_chunks.late_vectors = recording
    out: dict[str, Any] = {}
    corpora = ([("bundled", None)] if bundled else []) + ([("scifact", scifact)] if scifact else [])
    try:
        for name, folder in corpora:
            for mode in modes:
                writer.CHUNK_VECTORS = mode
                t = time.perf_counter()
                shipped = name == "bundled" and mode == "own"  # the shipped vectors, as a fresh install
                a = Assistant(data_dir=str(root / mode / name), backend="extractive",
                              **({} if shipped else {"embedder": table}))
                report = a.ingest([folder] if folder else None)
                out[f"{mode}/{name}"] = {"seconds": round(time.perf_counter() - t, 1), "added": report.added,
                                         "chunks": report.totals.get("chunks"), "texts_embedded": table.embedded}
                print(json.dumps(out), flush=True)
    finally:
        late_chunks.late_vectors = plain_late
        writer.CHUNK_VECTORS = "own"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.chunk_vector_indexes")
    ap.add_argument("root", type=Path)
    ap.add_argument("--modes", default="late,own")
    ap.add_argument("--skip-bundled", action="store_true")
    ap.add_argument("--skip-scifact", action="store_true")
    ap.add_argument("--scifact", type=Path, default=DATASETS_DIR / "scifact-2101",
                    help="a BEIR folder of SciFact-2101 abstracts (default: all 2,101; a subset holding every "
                         "judged abstract is what the questions need)")
    args = ap.parse_args(argv)
    build(args.root, [m for m in args.modes.split(",") if m], not args.skip_bundled,
          None if args.skip_scifact else args.scifact)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
