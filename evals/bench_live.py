"""Ingest speed against the raw embedder, in one process (issue #41).

    python -m evals.bench_live [--corpus PATH] [--data-dir DIR] [--parts 4] [--modes own,late] [--limit N]

For the same abstracts, in ``--parts`` interleaved rounds (so a machine whose load drifts weighs
on all sides alike): the raw embedder over each distinct abstract of the part once
(``OfflineMiniLM`` on the normalised texts), then the ingest of that part (written as a JSON-lines
file) into a data dir without the shipped vectors, once per way of computing chunk vectors in
``--modes`` (``ingest.writer.CHUNK_VECTORS``), each into its own data dir. Then a first ingest
of the whole corpus with the shipped vectors (only the bundled corpus has them; the default
mode). Prints the times, the ratios ingest / raw, and peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
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
    parser.add_argument("--parts", type=int, default=4)
    parser.add_argument("--modes", default=None, help="chunk vector modes, comma-separated (default: the shipped one)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N distinct abstracts")
    args = parser.parse_args(argv)
    from ingest import writer

    default_mode = writer.CHUNK_VECTORS
    modes = [m for m in (args.modes or default_mode).split(",") if m]
    root = args.data_dir or Path(tempfile.mkdtemp(prefix="bench-live-"))
    texts = list(dict.fromkeys(normalize_text(r.text) for f in iter_files([args.corpus]) for r in load_file(f)[0]))
    texts = texts[: args.limit] if args.limit else texts
    out: dict[str, Any] = {"abstracts": len(texts)}

    def fresh(name: str) -> tuple[Settings, Any]:
        d = root / name
        shutil.rmtree(d, ignore_errors=True)
        s = Settings.load(data_dir=d)
        return s, Store(s, embedder_fingerprint(s))

    settings = Settings.load(data_dir=root / "models")
    embedder = make_embedder(settings)
    embedder(["warm up"])
    stores = {m: fresh(f"plain-{m}")[1] for m in modes}
    parts = root / "parts"
    shutil.rmtree(parts, ignore_errors=True)
    parts.mkdir(parents=True)
    raw = 0.0
    ingest = dict.fromkeys(modes, 0.0)
    embed = dict.fromkeys(modes, 0.0)
    for p in range(args.parts):
        part = texts[p :: args.parts]
        path = parts / f"part{p}.jsonl"
        path.write_text("".join(json.dumps({"id": f"p{p}-{i}", "abstract": t}) + "\n" for i, t in enumerate(part)),
                        encoding="utf-8")
        t = time.perf_counter()
        embedder(part)
        raw += time.perf_counter() - t
        for m in modes:
            writer.CHUNK_VECTORS = m
            t = time.perf_counter()
            report = ingest_paths([path], stores[m], _Plain(embedder), progress=False)
            ingest[m] += time.perf_counter() - t
            embed[m] += report.embed_seconds
    writer.CHUNK_VECTORS = default_mode
    out["raw_embedder_s"] = round(raw, 2)
    for m in modes:
        out[m] = {"ingest_s": round(ingest[m], 2), "ingest_embed_s": round(embed[m], 2), "ratio": round(ingest[m] / raw, 3)}
    out["load"] = os.getloadavg()
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
