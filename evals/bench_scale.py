"""The whole hybrid path at scale on a ``chroma run`` server (``python -m evals.bench_scale``).

    python -m evals.bench_scale --sizes 1000,10000,100000           # chunks; cumulative
    python -m evals.bench_scale --sizes 1000,10000 --work .assistant/bench-scale --json out.json
    python -m evals.bench_scale --idf                                # segmented vs rebuilt BM25
    python -m evals.bench_scale --sizes 100000 --small 200            # + a 200-abstract ingest at the end
    python -m evals.bench_scale --sizes 100000,1000000 --work W --resume  # grow an earlier run's index

What is synthetic (embedding 1M chunks with MiniLM on 2 cores would take hours):
- texts: real abstracts (SciFact-2101 corpus + the bundled ones), each copy with every third word
  (from a random offset; a sentence's last word keeps its full stop) replaced by a random word of
  the pool's vocabulary, so copies are distinct abstracts: no 6 words in a row survive, so two
  copies share no 6-word shingle and version detection links none of them. (The first version
  kept sentence-final words: copies then shared shingles there, ~12% were linked at 22k
  abstracts, and with ~40 copies of each source at 1M chunks the candidate pairs grew
  quadratically: planning 200k new abstracts had not finished after 25 min. A real corpus has a
  few versions per work, not 40 near-copies.)
- vectors: real MiniLM vectors of ``VECTOR_POOL`` real chunks, computed once and cached in the work
  folder, plus Gaussian noise (``NOISE``), picked by a hash of the chunk text (not its meaning):
  the vector distribution (HNSW behaviour, latency) is real, dense relevance is not measured here;
- queries: real SciFact claims, embedded with MiniLM once (cached).
Everything else is the product's code: ingest_paths (chunking, version detection, Chroma writes,
the lexical index), Chroma over HTTP, assistant/store/lexical.py.

Per size (chunks, cumulative ingest into one server): ingest chunks/s for that increment, search
p50/p95 warm of the product's ``HybridRetriever.retrieve(q, 10)`` (chunk and abstract vectors,
BM25, fusion, abstract fetch, version collapse) and, as ``shape_*``, of the bare shape (dense chunk
query max-pooled per abstract + lexical top 40 + RRF; the only figure of runs before this one),
startup (a fresh process: import, open the store and the lexical index, first search), RSS of
that process and of the Chroma server. ``--measure`` times an existing work folder's index only.
``--small N``: then the seconds one ingest of N new abstracts takes into the largest index (the
everyday case; its cost should follow N, not the index size).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from evals.metrics import percentile

ROOT = Path(__file__).resolve().parent.parent
SCIFACT = ROOT / "evals" / "datasets" / "scifact-2101"
VECTOR_POOL = 3000  # real chunk vectors embedded once (~3 min of MiniLM on 2 cores)
NOISE = 0.02  # per-dimension sigma: keeps copies apart (cosine ~0.87 to their source) yet realistic
QUERIES = 200  # timed searches per size (after WARMUP)
WARMUP = 20
CANDIDATES = 40  # settings.candidates
RRF_K = 60  # reciprocal-rank constant (Cormack et al. 2009; LlamaIndex's default)
_WORD = re.compile(r"\S+")
FINGERPRINT = "onnx:all-MiniLM-L6-v2-int8"  # the embedder the synthetic stores are built with (pool vectors of it)


def source_texts() -> list[str]:
    rows = [json.loads(line) for line in (SCIFACT / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    texts = [f"{r['title']}. {r['text']}".strip(". ") for r in rows if len(r["text"]) > 200]
    from ingest.loaders import iter_files, load_file

    texts += [rec.text for p in iter_files([ROOT / "data" / "abstracts"]) for rec in load_file(p)[0]]
    return texts


def source_vocab(texts: list[str]) -> list[str]:
    """The words ``perturb`` draws replacements from: every alphabetic word of the source texts."""
    return sorted({w for t in texts for w in _WORD.findall(t) if w.isalpha()})


def scifact_queries() -> list[str]:
    """The SciFact claims, in file order (the benches' query set)."""
    rows = (SCIFACT / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in rows]


def emit(result: Any, json_path: Path | None) -> int:
    """A bench's last step: its figures printed as JSON, and written to ``--json`` when given; exit 0."""
    print(json.dumps(result, indent=2))
    if json_path:
        json_path.write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0


def perturb(text: str, rng: random.Random, vocab: list[str]) -> str:
    words = _WORD.findall(text)
    start = rng.randrange(3)
    for i in range(start, len(words), 3):
        end = words[i][-1] if words[i][-1] in ".!?" else ""  # keep sentence ends: chunking sees the same sentences
        words[i] = rng.choice(vocab) + end
    return " ".join(words)


def cached_vectors(work: Path, texts: list[str], queries: list[str]) -> tuple[np.ndarray, np.ndarray]:
    cache = work / "vectors.npz"
    if cache.exists():
        got = np.load(cache)
        return got["chunks"], got["queries"]
    from assistant.settings import Settings
    from assistant.store.embeddings import make_embedder
    from ingest.chunking import chunk_text

    embed = make_embedder(Settings(data_dir=work / "embed"))
    chunks = [c.text for t in texts for c in chunk_text(t, embed.count_tokens)][:VECTOR_POOL]
    started = time.perf_counter()
    vecs = np.asarray(embed(chunks), dtype=np.float32)
    qvecs = np.asarray(embed(queries), dtype=np.float32)
    print(f"embedded {len(chunks)} chunks + {len(queries)} queries once in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    np.savez(cache, chunks=vecs, queries=qvecs)
    return vecs, qvecs


class PoolEmbedder:
    """Real MiniLM vectors of real chunks + noise, chosen by a hash of the text (see module doc)."""

    def __init__(self, pool: np.ndarray) -> None:
        self.pool = pool

    def __call__(self, input: list[str]) -> np.ndarray:  # noqa: A002 - chromadb's name
        out = np.empty((len(input), self.pool.shape[1]), dtype=np.float32)
        for i, t in enumerate(input):
            h = zlib.crc32(t.encode("utf-8"))
            noise = np.random.default_rng(h).normal(0.0, NOISE, self.pool.shape[1])
            v = self.pool[h % len(self.pool)] + noise
            out[i] = v / np.linalg.norm(v)
        return out


FILE_DOCS = 50_000  # abstracts per increment file (~90 MB): under the loader's 200 MiB file limit


class QueryEmbedder:
    """The cached real MiniLM vector of a known query, else a pool vector (see module doc)."""

    def __init__(self, work: Path, queries: list[str]) -> None:
        got = np.load(work / "vectors.npz")
        self.known = {q: v for q, v in zip(queries, got["queries"], strict=False)}
        self.pool = PoolEmbedder(got["chunks"])

    def __call__(self, input: list[str]) -> np.ndarray:  # noqa: A002 - chromadb's name
        return np.stack([self.known[t] if t in self.known else self.pool([t])[0] for t in input])


def write_increment(work: Path, texts: list[str], vocab: list[str], first: int, n_docs: int) -> list[Path]:
    paths = []
    for start in range(first, first + n_docs, FILE_DOCS):
        path = work / "corpus" / f"part-{start:08d}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            for j in range(start, min(start + FILE_DOCS, first + n_docs)):
                rng = random.Random(j)
                f.write(json.dumps({"id": f"synth-{j}", "text": perturb(texts[j % len(texts)], rng, vocab)}) + "\n")
        paths.append(path)
    return paths


def hybrid(store: Any, lex: Any, qvec: np.ndarray, query: str, n_chunks: int, k: int = CANDIDATES) -> list[str]:
    """Dense chunks max-pooled per abstract + lexical top k, reciprocal-rank fused."""
    got = store.chunks.query(query_embeddings=[qvec], n_results=min(3 * k, n_chunks), include=["distances"])
    best: dict[str, float] = {}
    for cid, dist in zip(got["ids"][0], got["distances"][0], strict=True):
        doc = cid.rsplit("-", 1)[0]
        best[doc] = max(best.get(doc, -2.0), 1.0 - dist)
    dense = sorted(best, key=lambda d: -best[d])[:k]
    lexical = [d for d, _ in lex.search(query, k)]
    fused: dict[str, float] = {}
    for ranking in (dense, lexical):
        for rank, d in enumerate(ranking):
            fused[d] = fused.get(d, 0.0) + 1.0 / (RRF_K + rank + 1)
    return sorted(fused, key=lambda d: -fused[d])[:k]


STARTUP = """
import json, resource, sys, time
t0 = time.perf_counter()
import numpy as np
from assistant.store import lexical
from assistant.search.retrieval import HybridRetriever
from assistant.settings import Settings
from assistant.store.chroma import Store
from evals.bench_scale import QueryEmbedder, hybrid
from pathlib import Path
s = Settings(data_dir=sys.argv[1], chroma_host="127.0.0.1", chroma_port=int(sys.argv[2]))
qs = json.loads(open(sys.argv[4]).read())
store = Store(s, "onnx:all-MiniLM-L6-v2-int8")
retriever = HybridRetriever(s, store, QueryEmbedder(Path(sys.argv[3]).parent, qs))
t_open = time.perf_counter() - t0
retriever.retrieve(qs[0], 10)
t_first = time.perf_counter() - t0
lex = lexical.open_for(s.data_dir, s.collection_prefix)
n = store.chunks.count()
qv = np.load(sys.argv[3])["queries"]
times, shape = [], []
for i in range(%(warm)d + %(timed)d):
    t = time.perf_counter()
    retriever.retrieve(qs[i %% len(qs)], 10)
    t2 = time.perf_counter()
    hybrid(store, lex, qv[i %% len(qv)], qs[i %% len(qs)], n)
    if i >= %(warm)d:
        times.append((t2 - t) * 1000)
        shape.append((time.perf_counter() - t2) * 1000)
rss = int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024
print(json.dumps({"open_s": t_open, "first_s": t_first, "times_ms": times, "shape_ms": shape, "rss_mib": rss, "docs": len(lex)}))
"""


def measure_search(work: Path, port: int, queries: list[str]) -> dict[str, Any]:
    qfile = work / "queries.json"
    qfile.write_text(json.dumps(queries), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANONYMIZED_TELEMETRY": "False"}
    code = STARTUP % {"warm": WARMUP, "timed": QUERIES}
    out = subprocess.run([sys.executable, "-c", code, str(work / "app"), str(port), str(work / "vectors.npz"), str(qfile)],
                         env=env, capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    times, shape = got.pop("times_ms"), got.pop("shape_ms")
    return {**got, "p50_ms": percentile(times, 50), "p95_ms": percentile(times, 95),
            "shape_p50_ms": percentile(shape, 50), "shape_p95_ms": percentile(shape, 95)}


def measure_only(work: Path) -> dict[str, Any]:
    """Time the search of an index an earlier run left (``--measure``): a fresh server on it."""
    from evals.chroma_server import ChromaServer

    started = time.perf_counter()
    server = ChromaServer(work / "chroma").start(timeout=600)
    try:
        ready = time.perf_counter() - started
        row = measure_search(work, server.port, scifact_queries()[:QUERIES])
        return {"server_start_s": ready, **row, "server_rss_mib": rss_mib(server.proc.pid) if server.proc else 0.0}
    finally:
        server.stop()


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def existing_parts(work: Path) -> tuple[list[Path], int]:
    """The increment files an earlier run of this work folder wrote, and how many abstracts they hold."""
    files = sorted((work / "corpus").glob("part-*.jsonl"))
    files = [f for f in files if int(f.stem.split("-")[1]) < 10_000_000]  # not --small's files
    docs = 0
    for f in files:
        with open(f, encoding="utf-8") as fh:
            docs += sum(1 for _ in fh)
    return files, docs


def run_sizes(sizes: list[int], work: Path, small: int = 0, resume: bool = False) -> list[dict[str, Any]]:
    from assistant.settings import Settings
    from assistant.store.chroma import Store
    from evals.chroma_server import ChromaServer
    from ingest.chunking import chunk_text
    from ingest.pipeline import ingest_paths

    texts = source_texts()
    vocab = source_vocab(texts)
    queries = scifact_queries()[:QUERIES]
    pool, _ = cached_vectors(work, texts, queries)
    per_doc = np.mean([len(chunk_text(t, lambda s: len(s.split()) * 4 // 3)) for t in texts[:500]])
    server = ChromaServer(work / "chroma").start()
    results = []
    try:
        settings = Settings(data_dir=work / "app", chroma_host="127.0.0.1", chroma_port=server.port)
        store = Store(settings, FINGERPRINT)
        embedder, (files, docs) = PoolEmbedder(pool), (existing_parts(work) if resume else ([], 0))
        for size in sizes:
            target = int(round(size / per_doc))
            if resume and target <= docs:
                continue  # reached by the earlier run; its row is in that run's --json
            files += write_increment(work, texts, vocab, docs, max(target - docs, 0))
            docs = max(target, docs)
            report = ingest_paths(files, store, embedder, progress=False)
            if report.rejected:  # a bench row of a half-read corpus would be a wrong figure
                raise SystemExit(f"ingest rejected input: {report.rejected[:3]}")
            row = {"size": size, "chunks": store.chunks.count(), "docs": docs, "ingest_s": report.seconds,
                   "chunks_added": report.chunks_added, "ingest_chunks_per_s": report.chunks_added / report.seconds}
            row.update(measure_search(work, server.port, queries))
            row["server_rss_mib"] = rss_mib(server.proc.pid) if server.proc else 0.0
            print(json.dumps(row), file=sys.stderr, flush=True)
            results.append(row)
        if small and results:
            paths = write_increment(work, texts, vocab, docs + 10_000_000, small)  # ids apart from the sizes'
            report = ingest_paths(paths, store, embedder, progress=False)
            results[-1].update(small_added=report.added, small_ingest_s=report.seconds)
            print(json.dumps({"small_added": report.added, "small_ingest_s": report.seconds}), file=sys.stderr, flush=True)
    finally:
        server.stop()
    return results


def idf_drift(work: Path, batch: int = 24) -> dict[str, float]:
    """nDCG@10 (SciFact-2101 train+test claims, BM25 alone) of one rebuilt index vs the same corpus
    as a base + deltas just under the merge threshold (the worst case the merge policy allows)."""
    import shutil

    from assistant.language.text import tokens
    from assistant.store.lexical import MERGE_FRACTION, LexicalIndex
    from evals.metrics import ndcg_at_k

    rows = [json.loads(line) for line in (SCIFACT / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    docs = [(r["_id"], f"{r['title']} {r['text']}".strip()) for r in rows]
    qrels: dict[str, set[str]] = {}
    for split in ("train", "test"):
        for line in (SCIFACT / "qrels" / f"{split}.tsv").read_text().splitlines()[1:]:
            q, d, _ = line.split("\t")
            qrels.setdefault(q, set()).add(d)
    queries = {r["_id"]: r["text"] for r in map(json.loads, (SCIFACT / "queries.jsonl").read_text().splitlines()) if r["_id"] in qrels}
    terms = tokens
    base_n = int(len(docs) / (1 + MERGE_FRACTION * 0.99))
    out: dict[str, float] = {}
    for name, cuts in (("rebuilt", [len(docs)]), ("segmented", [base_n, *range(base_n + batch, len(docs), batch), len(docs)])):
        folder = work / f"idf-{name}"
        shutil.rmtree(folder, ignore_errors=True)
        index, start = LexicalIndex.open(folder, terms), 0
        for cut in cuts:
            index.add([d for d, _ in docs[start:cut]], [t for _, t in docs[start:cut]])
            index.flush()
            start = cut
        segments = len(json.loads((folder / "manifest.json").read_text())["segments"])
        out[f"{name}_segments"] = segments
        out[f"{name}_ndcg10"] = sum(ndcg_at_k(qrels[q], [d for d, _ in index.search(t, 10)], 10)
                                    for q, t in queries.items()) / len(queries)
    out["queries"] = len(queries)
    return out


def print_table(rows: list[dict[str, Any]]) -> None:
    print(f"{'chunks':>9} {'abstracts':>9} {'ingest/s':>9} {'p50 ms':>7} {'p95 ms':>7} {'open s':>7} {'first s':>7} "
          f"{'RSS MiB':>8} {'server MiB':>10}")
    for r in rows:
        print(f"{r['chunks']:>9} {r['docs']:>9} {r['ingest_chunks_per_s']:>9.0f} {r['p50_ms']:>7.1f} {r['p95_ms']:>7.1f} "
              f"{r['open_s']:>7.2f} {r['first_s']:>7.2f} {r['rss_mib']:>8.0f} {r['server_rss_mib']:>10.0f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000", help="chunk counts, comma-separated (cumulative)")
    ap.add_argument("--work", type=Path, default=Path(".assistant") / "bench-scale", help="working folder (kept)")
    ap.add_argument("--json", type=Path, help="also write the rows here")
    ap.add_argument("--idf", action="store_true", help="measure segmented vs rebuilt BM25 (nDCG@10, SciFact)")
    ap.add_argument("--small", type=int, default=0, help="then time one ingest of this many new abstracts")
    ap.add_argument("--resume", action="store_true", help="keep the work folder's index and grow it to the sizes not reached")
    ap.add_argument("--measure", action="store_true", help="only time search on the work folder's index (no ingest)")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.measure:
        print(json.dumps(measure_only(args.work), indent=2))
        return 0
    if args.idf:
        print(json.dumps(idf_drift(args.work), indent=2))
        return 0
    rows = run_sizes([int(s) for s in args.sizes.split(",")], args.work, args.small, args.resume)
    if args.resume and args.json and args.json.exists():
        rows = [r for r in json.loads(args.json.read_text(encoding="utf-8")) if r["size"] < rows[0]["size"]] + rows
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
