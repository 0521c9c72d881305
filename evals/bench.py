"""Speed benchmarks (``assistant bench``; ``python -m evals.bench``), printed as one table.

Rows (each with its goal where there is one):
- ingest of the bundled corpus into a fresh dir vs the raw embedder over the same chunk texts
  (ratio; goal <= 1.15: the pipeline adds little to the embedding work itself);
- re-ingest unchanged (goal <= 2 s);
- search latency p50/p95 per mode over the dev questions vs one query embedding (ratio);
- cold start of ``assistant search "q"`` as a subprocess (goal <= 3 s; skipped with a message when
  the command fails);
- scale: add rate and search latency p50/p95 at 1k / 10k / 100k chunks (1M with --million) of
  synthetic random vectors of the MiniLM embedder's size (384-d), embedded Chroma vs a Chroma server (``chroma run``).

    python -m evals.bench                    # everything (a few minutes: it embeds the corpus twice)
    python -m evals.bench --sizes 1000       # quick check
    python -m evals.bench --skip ingest,scale --data-dir .assistant
    python -m evals.bench --json out.json

Timings on a shared machine are noisy: compare ratios, and rerun before believing a change.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from assistant.store.embeddings import MINILM_DIMENSION
from evals.metrics import percentile
from evals.net import free_port

ROWS: list[dict[str, Any]] = []
SECTIONS = ("ingest", "search", "cold", "scale", "local")


def row(name: str, value: str, goal: str = "", note: str = "", **data: Any) -> None:
    ROWS.append({"benchmark": name, "value": value, "goal": goal, "note": note, **data})
    print(f"  {name}: {value}" + (f"  (goal {goal})" if goal else "") + (f"  [{note}]" if note else ""), file=sys.stderr, flush=True)


def _ok(flag: bool | None) -> str:
    return "" if flag is None else ("ok" if flag else "MISSED")


EMBED_BATCH = 256  # texts per embedder call (ingest/pipeline.py wrote 64 abstracts x ~4 chunks a batch when this was set)


# --- ingest -------------------------------------------------------------------------------------
def bench_ingest(work: Path) -> Path:
    from assistant import Assistant

    data_dir = work / "ingest"
    a = Assistant(data_dir=data_dir, backend="extractive")
    a.embedder(["warm up the ONNX session"])  # model load is not ingest work; timed separately below
    t = time.perf_counter()
    report = a.ingest()
    ingest_s = time.perf_counter() - t
    got = a.store.chunks.get(include=["documents"])
    texts = [d for d in got["documents"] if d]
    t = time.perf_counter()
    for i in range(0, len(texts), EMBED_BATCH):  # same order of work as the pipeline: many small batches
        a.embedder(texts[i : i + EMBED_BATCH])
    raw_s = time.perf_counter() - t
    r = ingest_s / raw_s
    row("ingest bundled corpus (fresh dir)", f"{ingest_s:.1f} s for {report.added} abstracts, {len(texts)} chunks "
        f"(embedding inside: {report.embed_seconds:.1f} s)", seconds=ingest_s, chunks=len(texts))
    row("raw embedder, same chunk texts", f"{raw_s:.1f} s (calls of {EMBED_BATCH} texts)", seconds=raw_s)
    row("ingest / raw embedder", f"{r:.2f}", "<= 1.15", _ok(r <= 1.15), ratio=r)
    b = Assistant(data_dir=data_dir, backend="extractive")  # a new process would open the index afresh
    t = time.perf_counter()
    report2 = b.ingest()
    re_s = time.perf_counter() - t
    row("re-ingest unchanged", f"{re_s:.2f} s ({report2.unchanged} unchanged, {report2.added} added)", "<= 2 s", _ok(re_s <= 2.0), seconds=re_s)
    return data_dir


# --- search -------------------------------------------------------------------------------------
def bench_search(data_dir: Path, n: int = 60) -> None:
    from assistant import Assistant
    from evals.data import load_dev

    a = Assistant(data_dir=data_dir, backend="extractive")
    questions = [r["question"] for r in load_dev()][:n]
    for mode in ("hybrid", "dense", "bm25"):
        a.search("warm up", k=10, mode=mode)
    # interleaved per question, so that load changes on a shared machine hit every column alike
    emb: list[float] = []
    lat: dict[str, list[float]] = {m: [] for m in ("hybrid", "dense", "bm25")}
    for q in questions:
        t = time.perf_counter()
        a.embedder([q])
        emb.append(time.perf_counter() - t)
        for mode, values in lat.items():
            t = time.perf_counter()
            a.search(q, k=10, mode=mode)
            values.append(time.perf_counter() - t)
    e50 = percentile(emb, 50)
    row("one query embedding", f"p50 {e50 * 1e3:.1f} ms, p95 {percentile(emb, 95) * 1e3:.1f} ms", p50_ms=e50 * 1e3)
    for mode, values in lat.items():
        p50, p95 = percentile(values, 50), percentile(values, 95)
        r = p50 / e50
        goal = "<= 2.0" if mode == "hybrid" else ""
        row(f"search {mode} (k=10)", f"p50 {p50 * 1e3:.1f} ms, p95 {p95 * 1e3:.1f} ms; p50 / embedding {r:.2f}", goal,
            _ok(r <= 2.0) if mode == "hybrid" else "", p50_ms=p50 * 1e3, p95_ms=p95 * 1e3, ratio=r)


# --- cold start ---------------------------------------------------------------------------------
def bench_cold(data_dir: Path, runs: int = 3) -> None:
    exe = Path(sys.executable).parent / "assistant"
    cmd = [str(exe) if exe.exists() else "assistant", "search", "ring attention long context", "--k", "5", "--json",
           "--data-dir", str(data_dir)]
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        except (OSError, subprocess.TimeoutExpired) as exc:
            row("cold start `assistant search`", "skipped", "<= 3 s", f"command failed: {exc}")
            return
        dt = time.perf_counter() - t
        if proc.returncode != 0:
            msg = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            row("cold start `assistant search`", "skipped", "<= 3 s", f"command failed (rc {proc.returncode}): {msg[0][:120]}")
            return
        times.append(dt)
    best, med = min(times), percentile(times, 50)
    row("cold start `assistant search` (subprocess)", f"median {med:.2f} s, best {best:.2f} s of {runs}", "<= 3 s",
        _ok(med <= 3.0), seconds=med)


# --- scale --------------------------------------------------------------------------------------
def _start_server(path: Path) -> tuple[subprocess.Popen[bytes], int]:
    exe = Path(sys.executable).parent / "chroma"
    port = free_port()
    proc = subprocess.Popen([str(exe if exe.exists() else "chroma"), "run", "--host", "127.0.0.1", "--port", str(port),
                             "--path", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import urllib.request

    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"chroma server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1):
                return proc, port
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise RuntimeError("chroma server did not start within 60 s")


def _scale_one(client: Any, n: int, rng: np.random.Generator, queries: np.ndarray) -> dict[str, float]:
    name = f"bench_{n}"
    try:
        client.delete_collection(name)
    except Exception:  # noqa: BLE001  (absent: fine)
        pass
    col = client.create_collection(name, metadata={"hnsw:space": "cosine"}, embedding_function=None)
    batch = min(5000, client.get_max_batch_size())
    t = time.perf_counter()
    for i in range(0, n, batch):
        m = min(batch, n - i)
        v = rng.standard_normal((m, MINILM_DIMENSION)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        col.add(ids=[f"c{i + j}" for j in range(m)], embeddings=v, metadatas=[{"doc_id": f"d{(i + j) // 4}"} for j in range(m)])
    add_s = time.perf_counter() - t
    col.query(query_embeddings=queries[:1], n_results=10)
    lat = []
    for q in queries:
        t = time.perf_counter()
        col.query(query_embeddings=q[None, :], n_results=10, include=["metadatas", "distances"])
        lat.append(time.perf_counter() - t)
    client.delete_collection(name)
    return {"add_per_s": n / add_s, "p50_ms": percentile(lat, 50) * 1e3, "p95_ms": percentile(lat, 95) * 1e3}


def bench_scale(work: Path, sizes: list[int], n_queries: int = 50) -> None:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    rng = np.random.default_rng(0)
    queries = rng.standard_normal((n_queries, MINILM_DIMENSION)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    cs = ChromaSettings(anonymized_telemetry=False)
    embedded = chromadb.PersistentClient(path=str(work / "scale_embedded"), settings=cs)
    server = None
    try:
        server, port = _start_server(work / "scale_server")
        http = chromadb.HttpClient(host="127.0.0.1", port=port, settings=cs)
    except (OSError, RuntimeError) as exc:
        http = None
        row("chroma server", "skipped", note=str(exc))
    try:
        for n in sizes:
            for label, client in (("embedded", embedded), ("server", http)):
                if client is None:
                    continue
                r = _scale_one(client, n, rng, queries)
                row(f"scale {n:,} chunks, {label}", f"add {r['add_per_s']:,.0f}/s; search p50 {r['p50_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms",
                    size=n, client=label, **r)
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


# --- main ---------------------------------------------------------------------------------------
def bench_local_model(tokens: int = 32) -> None:
    """The local LLM's prompt and generation speed (evals/bench_local.py), when it is installed."""
    from assistant.backends import is_available
    from assistant.settings import Settings

    if not is_available("local", Settings()):
        row("local model", "skipped", note="the local extra is not installed")
        return
    from evals.bench_local import bench, physical_cores

    runs = bench(physical_cores(), tokens, 1800)
    cached = next((r for r in runs if r.label == "cached sys"), runs[-1])
    row("local: prompt reading", f"{cached.prompt_tok_s:.1f} tok/s", note=f"{cached.prompt_tokens} prompt tokens")
    row("local: generation", f"{cached.gen_tok_s:.1f} tok/s", note=f"{cached.generated} tokens")
    row("local: first token, system prompt cached", f"{cached.ttft_s:.1f} s", goal="<= 3 s")


def table(rows: list[dict[str, Any]]) -> str:
    w = max((len(r["benchmark"]) for r in rows), default=10)
    v = max((len(r["value"]) for r in rows), default=10)
    lines = [f"{'benchmark':{w}s}  {'result':{v}s}  {'goal':8s}  note", "-" * (w + v + 24)]
    lines += [f"{r['benchmark']:{w}s}  {r['value']:{v}s}  {r['goal']:8s}  {r['note']}" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="assistant bench", description="Speed benchmarks (ingest, search, cold start, scale).")
    ap.add_argument("--skip", default="", help=f"comma-separated sections to skip: {', '.join(SECTIONS)}")
    ap.add_argument("--data-dir", default=None, help="an ingested bundled corpus for the search/cold rows (default: the one the ingest row builds)")
    ap.add_argument("--sizes", default="1000,10000,100000", help="chunk counts for the scale rows")
    ap.add_argument("--million", action="store_true", help="add 1,000,000 chunks to the scale rows (slow, ~GBs of disk)")
    ap.add_argument("--json", default=None, help="also write the rows as JSON to this file")
    ap.add_argument("--queries", type=int, default=60, help="questions for the search rows and queries per scale row (default 60)")
    ap.add_argument("--cold-runs", type=int, default=3, help="subprocess starts for the cold-start row (default 3)")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    unknown = skip - set(SECTIONS)
    if unknown:
        ap.error(f"unknown section(s) {sorted(unknown)}; choose from {SECTIONS}")
    ROWS.clear()
    work = Path(tempfile.mkdtemp(prefix="assistant-bench-"))
    try:
        data_dir = Path(args.data_dir) if args.data_dir else None
        if "ingest" not in skip:
            built = bench_ingest(work)
            data_dir = data_dir or built
        if data_dir is None and ({"search", "cold"} - skip):
            from assistant import Assistant

            data_dir = work / "ingest"
            Assistant(data_dir=data_dir, backend="extractive").ingest()
        if "search" not in skip:
            bench_search(data_dir, args.queries)  # type: ignore[arg-type]
        if "cold" not in skip:
            bench_cold(data_dir, args.cold_runs)  # type: ignore[arg-type]
        if "scale" not in skip:
            sizes = [int(s) for s in args.sizes.split(",") if s.strip()] + ([1_000_000] if args.million else [])
            bench_scale(work, sizes, args.queries)
        if "local" not in skip:
            bench_local_model()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(table(ROWS))
    if args.json:
        Path(args.json).write_text(json.dumps(ROWS, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
