"""Filtered vs unfiltered search at scale (``python -m evals.experiments.bench_filters``).

    python -m evals.experiments.bench_filters --chunks 10000 --work .assistant/bench-filters
    python -m evals.experiments.bench_filters --chunks 100000 --work .assistant/bench-filters   # grows the index

The corpus is evals/bench_scale.py's synthetic one (perturbed real abstracts, real MiniLM pool
vectors + noise, real SciFact claims as queries; its module doc says what is synthetic), each
record given the metadata a reference manager exports: ``year`` (1995-2024, uniform), ``authors``
(2-5 "Family, Given" names from 3,000 families), ``venue`` (one of 40). Ingested by the product's
``ingest_paths`` into the embedded Chroma store; timed is the product's
``HybridRetriever.retrieve(q, 10, filters=...)`` (warm, p50/p95 over the queries) for filters of
different selectivity, beside the unfiltered search, and for each vector strategy forced (STRATEGIES) so that
settings.retrieval.filter_scan_share / filter_exact_max can be chosen from the figures. Every filtered result is
checked to pass its filter.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from evals.bench_scale import (
    FINGERPRINT,
    PoolEmbedder,
    cached_vectors,
    emit,
    perturb,
    scifact_queries,
    source_texts,
    source_vocab,
)
from evals.metrics import percentile

QUERIES = 100
WARMUP = 10
VENUES = [f"{kind} on {topic}" for kind in ("Conference", "Journal", "Workshop", "Transactions")
          for topic in ("Learning", "Vision", "Language", "Robotics", "Biology", "Medicine", "Physics",
                        "Statistics", "Systems", "Theory")]
FILTERS = {"one year (~3%)": {"year": "2012"}, "years >= 2010 (~50%)": {"year": ">=2010"},
           "one venue (~2.5%)": {"venue": VENUES[7]}, "an author (~0.1%)": {"author": "family0042"},
           "years 2015-2024 + a venue kind (~8%)": {"year": "2015-2024", "venue": "workshop"}}
# product: the shipped settings; scan: the unfiltered ranking read deeper; exact: the filter's
# vectors read by id once and kept; in: Chroma's where doc_id $in / ids.
STRATEGIES: dict[str, dict[str, float]] = {"product": {}, "scan": {"filter_scan_share": 0.0},
                                           "exact": {"filter_scan_share": 2.0, "filter_exact_max": 10**9},
                                           "in": {"filter_scan_share": 2.0, "filter_exact_max": 0}}
CHUNKS_PER_DOC = 4.5  # bench_scale: 957k chunks from 221,729 abstracts


def record(j: int, text: str) -> dict[str, Any]:
    rng = random.Random(j * 7 + 1)
    authors = "; ".join(f"Family{rng.randrange(3000):04d}, Given" for _ in range(rng.randint(2, 5)))
    return {"id": f"synth-{j}", "text": text, "year": 1995 + rng.randrange(30), "authors": authors,
            "venue": VENUES[rng.randrange(len(VENUES))]}


def grow(work: Path, docs: int, texts: list[str], vocab: list[str]) -> Path:
    """The corpus file of ``docs`` records (appended to an earlier run's)."""
    path = work / "corpus" / "library.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    have = sum(1 for _ in open(path, encoding="utf-8")) if path.exists() else 0
    with open(path, "a", encoding="utf-8") as f:
        for j in range(have, docs):
            f.write(json.dumps(record(j, perturb(texts[j % len(texts)], random.Random(j), vocab))) + "\n")
    return path


def timed(retriever: Any, queries: list[str], filters: Any) -> tuple[list[float], list[Any], list[float]]:
    """Filtered times, results, and the unfiltered times of the same queries, interleaved (so that
    a change of the machine's load moves both)."""
    times, results, plain = [], [], []
    for i in range(WARMUP + len(queries)):
        t = time.perf_counter()
        got = retriever.retrieve(queries[i % len(queries)], 10, filters=filters)
        t2 = time.perf_counter()
        if filters is not None:
            retriever.retrieve(queries[i % len(queries)], 10)
        if i >= WARMUP:
            times.append((t2 - t) * 1000)
            plain.append((time.perf_counter() - t2) * 1000)
            results.append(got)
    return times, results, plain


def measure(work: Path, queries: list[str], strategies: list[str] | None = None) -> dict[str, Any]:
    from assistant.filters import Filters
    from assistant.search.retrieval import HybridRetriever
    from assistant.settings import Settings
    from assistant.store.chroma import Store
    from evals.bench_scale import QueryEmbedder

    settings = Settings(data_dir=work / "app")
    store = Store(settings, FINGERPRINT)
    retriever = HybridRetriever(settings, store, QueryEmbedder(work, queries))
    t = time.perf_counter()
    retriever.allowed(Filters.parse(year="2000"))  # a year-only filter: asked of Chroma, ids only
    first_year = time.perf_counter() - t
    t = time.perf_counter()
    retriever.allowed(Filters.parse(author="family0001"))  # any other: the filter table, built once
    out: dict[str, Any] = {"chunks": store.chunks.count(), "docs": store.docs.count(),
                           "first_year_filter_s": round(first_year, 3), "filter_table_s": round(time.perf_counter() - t, 3)}
    base, _, _ = timed(retriever, queries, None)
    out["unfiltered"] = {"p50_ms": percentile(base, 50), "p95_ms": percentile(base, 95)}
    for name, raw in FILTERS.items():
        f = Filters.of(raw)
        t = time.perf_counter()
        share = len(retriever.allowed(f) or ()) / out["docs"]
        row: dict[str, Any] = {"share": round(share, 4), "resolve_ms": round((time.perf_counter() - t) * 1000, 2)}
        for strategy, update in STRATEGIES.items():
            if strategies and strategy not in strategies:
                continue
            retriever.settings = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update=update)})
            times, results, plain = timed(retriever, queries, f)
            bad = sum(not f.matches(doc.metadata, doc.files) for got in results for doc, _ in got)
            row[strategy] = {"p50_ms": percentile(times, 50), "p95_ms": percentile(times, 95),
                             "unfiltered_p50_ms": percentile(plain, 50), "unfiltered_p95_ms": percentile(plain, 95),
                             "ratio_p50": percentile(times, 50) / percentile(plain, 50),
                             "ratio_p95": percentile(times, 95) / percentile(plain, 95), "failing_filter": bad}
        retriever.settings = settings
        out[name] = row
        print(json.dumps({name: row}), file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chunks", type=int, default=10000, help="index size in chunks (grown, never shrunk)")
    ap.add_argument("--work", type=Path, default=Path(".assistant") / "bench-filters")
    ap.add_argument("--measure", action="store_true", help="only time the existing index")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--strategies", help=f"comma-separated, of {', '.join(STRATEGIES)} (default: all)")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    queries = scifact_queries()[:QUERIES]
    if not args.measure:
        from assistant.settings import Settings
        from assistant.store.chroma import Store
        from ingest.pipeline import ingest_paths

        texts = source_texts()
        vocab = source_vocab(texts)
        pool, _ = cached_vectors(args.work, texts, queries)
        path = grow(args.work, int(args.chunks / CHUNKS_PER_DOC), texts, vocab)
        store = Store(Settings(data_dir=args.work / "app"), FINGERPRINT)
        report = ingest_paths([path], store, PoolEmbedder(pool), progress=False)
        print(json.dumps({"ingest_s": report.seconds, "added": report.added}), file=sys.stderr, flush=True)
    return emit(measure(args.work, queries, args.strategies.split(",") if args.strategies else None), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
