"""Two app replicas on one ``chroma run`` server while a third process ingests (``python -m evals.experiments.bench_replicas``).

    python -m evals.bench_scale --sizes 100000 --work .assistant/bench-scale  # build the index once
    cp -a .assistant/bench-scale .assistant/rep100k && python -m evals.experiments.bench_replicas --work .assistant/rep100k --new 200

The work folder is one ``evals.bench_scale`` left (``chroma/`` the server's data, ``app/`` the data
dir with the persisted lexical index, ``vectors.npz`` the cached vectors); the run writes into it
(the new abstracts stay), so run it on a copy.

Two replica processes (each the product's ``HybridRetriever`` over a ``Store`` on the server and the
shared data dir, hybrid mode, k=10) search in a loop over a fixed query set: ``--queries`` SciFact
claims plus one marker query. Each logs per query its wall-clock start, latency, the ids returned,
whether one of them is a new abstract, errors, and whether every returned id exists in the store.
After ``--before`` seconds a third process ingests ``--new`` new abstracts through
``ingest.pipeline.ingest_paths``; the replicas go on for ``--after`` seconds after it ends.

Reported per replica: freshness lag (from the ingest's last lexical flush, the manifest's mtime,
to the end of the query that reloaded the index and of the first marker query that returned a new
abstract; also from the ingest process's end: negative when seen before it returned), the
reloading query's latency, latency p50/p95/max before / during / after the ingest, errors, dangling
ids (returned ids the store does not hold), RSS when ready and at the end.

What is synthetic (as in ``evals.bench_scale``): the texts (real abstracts with every third word
replaced), the chunk vectors (real MiniLM vectors of real chunks + noise, picked by a hash of the
text) and, here, one marker word in every new abstract (a made-up word, so the marker query's BM25
list holds only new abstracts). Query vectors: the SciFact claims' real MiniLM vectors (cached by
bench_scale); the marker query's vector is a pool vector (its dense lists are noise: it is found
through the lexical index, which is what a replica has to refresh).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from evals.bench_scale import (
    FINGERPRINT,
    PoolEmbedder,
    QueryEmbedder,
    emit,
    perturb,
    rss_mib,
    scifact_queries,
    source_texts,
    source_vocab,
)
from evals.metrics import percentile

ROOT = Path(__file__).resolve().parents[2]
K = 10  # hits per search (the CLI's default)
MARKER_EVERY = 4  # every 4th query is the marker query: bounds the lag's resolution to ~4 queries
PAUSE_S = 0.05  # between a replica's queries: leaves CPU to the ingest on a 2-core box; bounds the lag's resolution
NEW_IDS_FROM = 30_000_000  # synthetic ids apart from bench_scale's sizes (0..) and --small (10M..)


def settings_for(work: Path, port: int) -> Any:
    from assistant.settings import Settings

    return Settings(data_dir=work / "app", chroma_host="127.0.0.1", chroma_port=port)


def replica(work: Path, port: int, marker: str, n_queries: int, out: Path, stop: Path) -> None:
    """Search in a loop until ``stop`` exists; one JSON line per query to ``out``."""
    from assistant.search.retrieval import HybridRetriever
    from assistant.store.chroma import Store

    claims = scifact_queries()
    settings = settings_for(work, port)
    store = Store(settings, FINGERPRINT)
    retriever = HybridRetriever(settings, store, QueryEmbedder(work, claims))
    claims = claims[:n_queries]
    retriever.retrieve(claims[0], K)  # open the index before "ready" (startup is bench_scale's figure)
    with open(out, "w", encoding="utf-8") as log:
        log.write(json.dumps({"ready": time.time(), "rss_mib": rss_mib(os.getpid()), "lex": len(retriever._current())}) + "\n")
        log.flush()
        i = 0
        while not stop.exists():
            q = marker if i % MARKER_EVERY == MARKER_EVERY - 1 else claims[i % len(claims)]
            row: dict[str, Any] = {"t": time.time(), "marker": q == marker}
            t0 = time.perf_counter()
            try:
                hits = retriever.retrieve(q, K)
                row["ms"] = (time.perf_counter() - t0) * 1000
                row["ids"] = [d.doc_id for d, _ in hits]
                row["new"] = sum(marker in d.text.lower() for d, _ in hits)
                row["dangling"] = len(set(row["ids"]) - store.get_ids(row["ids"]))
            except Exception as exc:  # noqa: BLE001 - counted and reported: queries must not fail
                row["ms"] = (time.perf_counter() - t0) * 1000
                row["error"] = f"{type(exc).__name__}: {exc}"[:300]
            row["end"] = time.time()
            row["lex"] = len(retriever._lex or ())  # abstracts in the replica's view of the lexical index (no refresh)
            row["rss_mib"] = rss_mib(os.getpid())
            log.write(json.dumps(row) + "\n")
            log.flush()
            i += 1
            time.sleep(PAUSE_S)


def ingester(work: Path, port: int, marker: str, n_new: int) -> None:
    """Ingest ``n_new`` new synthetic abstracts, each with the marker word; print start/end times."""
    import random

    from assistant.store.chroma import Store
    from assistant.store.lexical import MANIFEST, index_path
    from ingest.pipeline import ingest_paths

    texts = source_texts()
    vocab = source_vocab(texts)
    path = work / "corpus" / f"replicas-{marker}.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for j in range(NEW_IDS_FROM, NEW_IDS_FROM + n_new):
            text = perturb(texts[j % len(texts)], random.Random(j), vocab)
            f.write(json.dumps({"id": f"synth-{marker}-{j}", "text": f"{text} Keyword: {marker}."}) + "\n")
    pool = np.load(work / "vectors.npz")["chunks"]
    store = Store(settings_for(work, port), FINGERPRINT)
    start = time.time()
    report = ingest_paths([path], store, PoolEmbedder(pool), progress=False)
    end = time.time()
    settings = settings_for(work, port)
    flushed = os.stat(index_path(settings.data_dir, settings.collection_prefix) / MANIFEST).st_mtime  # its last flush
    print(json.dumps({"start": start, "end": end, "added": report.added, "docs": store.docs.count(),
                      "flushed": flushed}), flush=True)


def _lat(rows: list[dict[str, Any]]) -> dict[str, float]:
    ms = [r["ms"] for r in rows if "error" not in r]
    if not ms:
        return {"n": 0}
    return {"n": len(ms), "p50_ms": round(percentile(ms, 50), 1), "p95_ms": round(percentile(ms, 95), 1),
            "max_ms": round(max(ms), 1)}


def summarize(rows: list[dict[str, Any]], ing: dict[str, float]) -> dict[str, Any]:
    ready, rows = rows[0], rows[1:]
    before = [r for r in rows if r["end"] < ing["start"]]
    during = [r for r in rows if r["end"] >= ing["start"] and r["t"] <= ing["end"]]
    after = [r for r in rows if r["t"] > ing["end"]]
    seen = [r for r in rows if r["marker"] and r.get("new")]
    first = seen[0] if seen else None
    grown = [r for r in rows if r.get("lex", 0) > ready["lex"]]
    refresh = grown[0] if grown else None  # the query that reloaded the index with the new abstracts
    return {
        "queries": len(rows), "errors": sum("error" in r for r in rows),
        "errors_during": sum("error" in r for r in during),
        "error_samples": sorted({r["error"] for r in rows if "error" in r})[:3],
        "dangling_ids": sum(r.get("dangling", 0) for r in rows),
        "refresh_after_flush_s": round(refresh["end"] - ing["flushed"], 2) if refresh else None,
        "refresh_query_ms": round(refresh["ms"], 1) if refresh else None,
        "marker_seen_after_flush_s": round(first["end"] - ing["flushed"], 2) if first else None,
        "marker_seen_after_ingest_end_s": round(first["end"] - ing["end"], 2) if first else None,
        "marker_hits_at_end": next((r.get("new", 0) for r in reversed(rows) if r["marker"]), 0),  # of K
        "before": _lat(before), "during": _lat(during), "after": _lat(after[1:]),
        "first_during_ms": round(during[0]["ms"], 1) if during else None,
        "first_after_ms": round(after[0]["ms"], 1) if after else None,
        "rss_ready_mib": round(ready["rss_mib"]), "rss_end_mib": round(rows[-1]["rss_mib"]) if rows else None,
    }


def _spawn(args: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANONYMIZED_TELEMETRY": "False", "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen([sys.executable, "-m", "evals.experiments.bench_replicas", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_ready(logs: list[Path], procs: list[subprocess.Popen[str]], timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while not all(p.exists() and p.read_text().strip() for p in logs):
        for proc in procs:
            if proc.poll() is not None:
                raise RuntimeError(f"a replica exited: {proc.stderr.read() if proc.stderr else ''}")
        if time.monotonic() > deadline:
            raise RuntimeError("replicas not ready in time")
        time.sleep(0.2)


def run(work: Path, n_new: int, n_queries: int, before: float, after: float) -> dict[str, Any]:
    from evals.chroma_server import ChromaServer

    marker = f"zorblaxine{int(time.time())}"  # a made-up word, new each run (the work folder keeps earlier runs')
    server = ChromaServer(work / "chroma").start()
    stop, logs = work / "replicas.stop", [work / f"replica-{i}.jsonl" for i in range(2)]
    stop.unlink(missing_ok=True)
    common = ["--work", str(work), "--port", str(server.port), "--marker", marker]
    procs = [_spawn(["--replica", str(log), "--queries", str(n_queries), *common]) for log in logs]
    try:
        _wait_ready(logs, procs)
        server_rss = {"before": rss_mib(server.proc.pid) if server.proc else 0.0}
        time.sleep(before)
        ing = _spawn(["--ingest", "--new", str(n_new), *common])
        out, err = ing.communicate(timeout=1800)
        if ing.returncode != 0:
            raise RuntimeError(f"the ingest failed: {err[-2000:]}")
        ingest = json.loads(out.strip().splitlines()[-1])
        time.sleep(after)
        stop.touch()
        for proc in procs:
            proc.wait(timeout=120)
        server_rss["after"] = rss_mib(server.proc.pid) if server.proc else 0.0
    finally:
        stop.touch()
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        server.stop()
    replicas = [summarize([json.loads(line) for line in log.read_text().splitlines()], ingest) for log in logs]
    return {"marker": marker, "ingest": {**ingest, "seconds": round(ingest["end"] - ingest["start"], 2),
                                 "flush_before_end_s": round(ingest["end"] - ingest["flushed"], 2)},
            "server_rss_mib": {k: round(v) for k, v in server_rss.items()}, "replicas": replicas}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="a copy of a bench_scale work folder (written into)")
    ap.add_argument("--new", type=int, default=200, help="new abstracts the third process ingests")
    ap.add_argument("--queries", type=int, default=20, help="SciFact claims in each replica's loop (+ the marker query)")
    ap.add_argument("--before", type=float, default=20.0, help="seconds of steady searching before the ingest")
    ap.add_argument("--after", type=float, default=20.0, help="seconds of searching after it")
    ap.add_argument("--json", type=Path, help="also write the result here")
    ap.add_argument("--replica", type=Path, help=argparse.SUPPRESS)  # internal: run one replica, log here
    ap.add_argument("--ingest", action="store_true", help=argparse.SUPPRESS)  # internal: the third process
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--marker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.replica:
        replica(args.work, args.port, args.marker, args.queries, args.replica, args.work / "replicas.stop")
        return 0
    if args.ingest:
        ingester(args.work, args.port, args.marker, args.new)
        return 0
    if not (args.work / "chroma").is_dir() or not (args.work / "vectors.npz").exists():
        raise SystemExit(f"{args.work}: not a bench_scale work folder (needs chroma/ and vectors.npz)")
    return emit(run(args.work, args.new, args.queries, args.before, args.after), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
