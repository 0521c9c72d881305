"""Cold start against library size (issue #41): indexes of N abstracts built fast, then cold
``assistant search`` processes timed against each.

    python -m evals.bench_cold build DIR N        # bundled corpus + SciFact-2101 + generated, N in all
    python -m evals.bench_cold measure DIR1 DIR2 [--runs 4]

``build`` embeds with a hashed bag of words of MiniLM's width (384): a cold start does not depend
on what the vectors are, and the build takes minutes instead of an hour. Abstracts beyond the
bundled 446 and SciFact's 2,101 are SciFact abstracts with their sentences shuffled. It prints
the ingest report and the peak RSS of the process (the pipeline and embedded Chroma, without the
ONNX model). ``measure`` runs ``assistant search`` in fresh processes, the indexes alternated,
and prints the mean wall and CPU (user + sys) seconds of each.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from assistant.settings import DEFAULT_CORPUS, Settings

DIM = 384
SCIFACT = Path(__file__).parent / "datasets" / "scifact-2101" / "corpus.jsonl"
_WORD = re.compile(r"\w+")


class Hashed:
    """Unit vectors of hashed words (the MiniLM's width)."""

    def __call__(self, input: list[str]) -> np.ndarray:  # noqa: A002 - chromadb's name
        out = np.zeros((len(input), DIM), np.float32)
        for i, text in enumerate(input):
            for w in _WORD.findall(text.lower()):
                h = zlib.crc32(w.encode())
                out[i, h % DIM] += 1.0 if h & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)

    @staticmethod
    def count_tokens(text: str) -> int:
        return len(text.split()) * 4 // 3 + 2

    @staticmethod
    def name() -> str:
        return "hashed"


def library(folder: Path, total: int, scifact: Path) -> Path | None:
    """``folder/lib/library.jsonl``: the ``total - 446`` abstracts beyond the bundled corpus
    (SciFact's, then SciFact's with their sentences shuffled); None when ``total`` <= 446."""
    if total <= 446:
        return None
    rows = [json.loads(line) for line in scifact.open(encoding="utf-8")]
    rng = random.Random(0)
    extra = []
    while 446 + len(rows) + len(extra) < total:
        text = rows[len(extra) % len(rows)]["text"]
        parts = re.split(r"(?<=[.!?])\s+", text)
        rng.shuffle(parts)
        extra.append({"_id": f"gen{len(extra)}", "title": f"Generated {len(extra)}", "text": " ".join(parts) + f" Variant {len(extra)}."})
    lib = folder / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    with open(lib / "library.jsonl", "w", encoding="utf-8") as f:
        for r in (rows + extra)[: total - 446]:
            f.write(json.dumps({"id": r["_id"], "title": r.get("title", ""), "abstract": r["text"]}) + "\n")
    return lib


def build(folder: Path, total: int, scifact: Path) -> dict[str, Any]:
    from assistant.store.chroma import Store
    from assistant.store.embeddings import embedder_fingerprint
    from ingest.pipeline import ingest_paths

    settings = Settings.load(data_dir=folder / "data")
    store = Store(settings, embedder_fingerprint(settings))
    t = time.perf_counter()
    reports = [ingest_paths([DEFAULT_CORPUS], store, Hashed(), progress=False).summary()]
    lib = library(folder, total, scifact)
    if lib is not None:
        reports.append(ingest_paths([lib], store, Hashed(), progress=False).summary())
    from assistant.store.mirror import refresh

    refresh(store, settings.retrieval.exact_max)  # as `assistant ingest` leaves it
    return {"seconds": round(time.perf_counter() - t, 1), "reports": reports,
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def measure(folders: list[Path], runs: int, query: str) -> dict[str, Any]:
    out: dict[str, list[tuple[float, float]]] = {str(f): [] for f in folders}
    for _ in range(runs):
        for f in folders:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "assistant.cli", "search", query, "--k", "10", "--data-dir", str(f / "data")],
                           check=True, stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            out[str(f)].append((wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime))
    return {f: {"wall_s": round(sum(w for w, _ in v) / len(v), 2), "cpu_s": round(sum(c for _, c in v) / len(v), 2)}
            for f, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.bench_cold")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("folder", type=Path)
    b.add_argument("total", type=int)
    b.add_argument("--scifact", type=Path, default=SCIFACT)
    m = sub.add_parser("measure")
    m.add_argument("folders", type=Path, nargs="+")
    m.add_argument("--runs", type=int, default=4)
    m.add_argument("--query", default="ring attention context length")
    args = parser.parse_args(argv)
    if args.command == "build":
        print(json.dumps(build(args.folder, args.total, args.scifact), indent=1))
    else:
        print(json.dumps(measure(args.folders, args.runs, args.query), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
