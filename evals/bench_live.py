"""Ingest speed against the raw embedder, in one process (issue #41).

    python -m evals.bench_live [--corpus PATH] [--data-dir DIR] [--rounds 1]

For the same abstracts, back to back: the raw embedder over each distinct abstract once
(``OfflineMiniLM`` on the normalised texts), a first ingest into a fresh data dir without the
shipped vectors, and a first ingest with them (only the bundled corpus has them). Prints the
times, the ratios ingest / raw, and peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from assistant.settings import DEFAULT_CORPUS, Settings


class _Plain:
    """The embedder without the shipped table (with_prebuilt only fronts the MiniLM itself)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __call__(self, input: list[str]) -> Any:  # noqa: A002 - chromadb's name
        return self.inner(input)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def main(argv: list[str] | None = None) -> int:
    from assistant.store.chroma import Store
    from assistant.store.embeddings import embedder_fingerprint, make_embedder
    from ingest.loaders import iter_files, load_file
    from ingest.normalize import normalize_text
    from ingest.pipeline import ingest_paths

    parser = argparse.ArgumentParser(prog="python -m evals.bench_live")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--skip-prebuilt", action="store_true")
    args = parser.parse_args(argv)
    root = args.data_dir or Path(tempfile.mkdtemp(prefix="bench-live-"))
    texts = list(dict.fromkeys(normalize_text(r.text) for f in iter_files([args.corpus]) for r in load_file(f)[0]))
    out: dict[str, Any] = {"abstracts": len(texts)}

    def fresh(name: str) -> tuple[Settings, Any]:
        d = root / name
        shutil.rmtree(d, ignore_errors=True)
        s = Settings.load(data_dir=d)
        return s, Store(s, embedder_fingerprint(s))

    settings = Settings.load(data_dir=root / "models")
    embedder = make_embedder(settings)
    embedder(["warm up"])
    t = time.perf_counter()
    embedder(texts)
    out["raw_embedder_s"] = round(time.perf_counter() - t, 2)
    s, store = fresh("plain")
    t = time.perf_counter()
    report = ingest_paths([args.corpus], store, _Plain(embedder), progress=False)
    out["ingest_s"] = round(time.perf_counter() - t, 2)
    out["ingest_embed_s"] = round(report.embed_seconds, 2)
    out["ratio"] = round(out["ingest_s"] / out["raw_embedder_s"], 3)
    if not args.skip_prebuilt:
        s, store = fresh("prebuilt")
        t = time.perf_counter()
        ingest_paths([args.corpus], store, embedder, progress=False)
        out["ingest_prebuilt_s"] = round(time.perf_counter() - t, 2)
        out["ratio_prebuilt"] = round(out["ingest_prebuilt_s"] / out["raw_embedder_s"], 3)
    out["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
