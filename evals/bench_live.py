"""Ingest speed against the raw embedder, in one process (issue #41).

    python -m evals.bench_live [--corpus PATH] [--data-dir DIR] [--parts 4]

For the same abstracts, in ``--parts`` interleaved rounds (so a machine whose load drifts weighs
on both sides alike): the raw embedder over each distinct abstract of the part once
(``OfflineMiniLM`` on the normalised texts), then the ingest of that part (written as a JSON-lines
file) into a data dir without the shipped vectors. Then a first ingest of the whole corpus with
them (only the bundled corpus has them). Prints the times, the ratios ingest / raw, and peak RSS.
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
    s, store = fresh("plain")
    parts = root / "parts"
    shutil.rmtree(parts, ignore_errors=True)
    parts.mkdir(parents=True)
    raw = ingest = embed = 0.0
    for p in range(args.parts):
        part = texts[p :: args.parts]
        path = parts / f"part{p}.jsonl"
        path.write_text("".join(json.dumps({"id": f"p{p}-{i}", "abstract": t}) + "\n" for i, t in enumerate(part)),
                        encoding="utf-8")
        t = time.perf_counter()
        embedder(part)
        raw += time.perf_counter() - t
        t = time.perf_counter()
        report = ingest_paths([path], store, _Plain(embedder), progress=False)
        ingest += time.perf_counter() - t
        embed += report.embed_seconds
    out.update(raw_embedder_s=round(raw, 2), ingest_s=round(ingest, 2), ingest_embed_s=round(embed, 2),
               ratio=round(ingest / raw, 3), load=os.getloadavg())
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
