"""Offline grid for the retrieval design (how the defaults in assistant/retrieval.py were chosen).

    python -m evals.tune_retrieval --data-dir evals/runs/_cache/scifact --dataset scifact-2101 --split train
    python -m evals.tune_retrieval --data-dir D --dataset scifact-2101 --split train --refine
    python -m evals.tune_retrieval --data-dir D --dataset scifact-2101 --split train --explore --prf-grid
    python -m evals.tune_retrieval --data-dir .assistant --dataset dev --split tune --refine

``--data-dir`` must hold the dataset's corpus, ingested (``assistant ingest evals/datasets/scifact-2101
--data-dir D``). Stages: default = BM25 grid (k1, b, variant, stemming), dense pooling (max, mean,
top-2, mixes), RM3, fusion grid; ``--refine`` = fusion mode x dense weight x candidate depth;
``--explore`` = chunk-level BM25, chunk-level fusion, dense pseudo-relevance feedback, and the
ranks of the misses. Selection was made on the train split; the test split is only reported.

Everything is computed once per query as full score vectors in numpy (exact dense scores over all
chunks, BM25 via bm25s, what BM25Retriever wraps), then each variant is a cheap re-combination.
Query vectors are cached in the data dir. Prints nDCG@10 / Recall@5 per variant and saves them
as JSON in the data dir. The live pipeline reproduces these figures (`assistant eval scifact-2101
--split train`: 0.783 / 0.808 / 0.842 for bm25 / dense / hybrid).
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evals.data import DATASETS_DIR, load_beir, load_dev, resolve_anchors
from evals.metrics import ndcg_at_k, recall_at_k


@dataclass
class Corpus:
    doc_ids: list[str]
    work_ids: list[str]
    texts: list[str]
    doc_vecs: np.ndarray  # mean-of-chunks vector per doc (docs collection)
    chunk_vecs: np.ndarray  # chunk vectors, sorted by doc
    chunk_starts: np.ndarray  # first chunk index per doc (for reduceat)
    chunk_texts: list[str]


def load_corpus(assistant: Any) -> Corpus:
    store = assistant.store
    docs = store.all_docs()
    doc_ids = sorted(docs)
    index = {d: i for i, d in enumerate(doc_ids)}
    got = store.docs.get(ids=doc_ids, include=["embeddings"])
    dv = np.zeros((len(doc_ids), len(got["embeddings"][0]) if len(got["ids"]) else 0), dtype=np.float32)
    for i, e in zip(got["ids"], got["embeddings"], strict=True):
        dv[index[i]] = e
    owners, vecs, ctexts = [], [], []
    total = store.chunks.count()
    for off in range(0, total, 2000):
        g = store.chunks.get(include=["embeddings", "metadatas", "documents"], limit=2000, offset=off)
        for m, e, t in zip(g["metadatas"], g["embeddings"], g["documents"], strict=True):
            owners.append(index[m["doc_id"]])
            vecs.append(e)
            ctexts.append(t or "")
    order = np.argsort(np.asarray(owners), kind="stable")
    owners_arr = np.asarray(owners)[order]
    cv = np.asarray(vecs, dtype=np.float32)[order]
    starts = np.searchsorted(owners_arr, np.arange(len(doc_ids)))
    return Corpus(doc_ids, [docs[d].work_id for d in doc_ids], [docs[d].text for d in doc_ids], dv, cv, starts,
                  [ctexts[i] for i in order])


def embed_queries(assistant: Any, texts: list[str], cache: Path) -> np.ndarray:
    if cache.exists():
        data = np.load(cache, allow_pickle=False)
        if list(data["texts"]) == texts:
            return data["vecs"]
    vecs = np.asarray(assistant.embedder(texts), dtype=np.float32)
    np.savez(cache, texts=np.asarray(texts), vecs=vecs)
    return vecs


# --- BM25 -------------------------------------------------------------------------------------
def bm25_index(texts: list[str], k1: float, b: float, method: str, stem: bool) -> Any:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english") if stem else None
    tok = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    bm = bm25s.BM25(k1=k1, b=b, method=method)
    bm.index(tok, show_progress=False)
    bm._stemmer = stemmer  # type: ignore[attr-defined]
    return bm


def query_term_ids(bm: Any, query: str) -> list[int]:
    import bm25s

    tok = bm25s.tokenize([query], stopwords="en", stemmer=bm._stemmer, show_progress=False, return_ids=False)[0]
    return [bm.vocab_dict[t] for t in tok if t in bm.vocab_dict]


def bm25_scores(bm: Any, ids: list[int]) -> np.ndarray:
    if not ids:
        return np.zeros(int(bm.scores["num_docs"]), dtype=np.float32)
    return bm.get_scores_from_ids(ids).astype(np.float32)


def rm3_scores(bm: Any, doc_tokens: list[np.ndarray], ids: list[int], base: np.ndarray, fb_docs: int, fb_terms: int,
               orig_weight: float) -> np.ndarray:
    """RM3: expansion terms from the top ``fb_docs`` docs (P(w|d) weighted by the doc's score),
    mixed with the original query; the weighted query is scored term by term with BM25."""
    if not ids:
        return base
    top = np.argsort(-base)[:fb_docs]
    weights: dict[int, float] = {}
    sw = base[top] / (base[top].sum() or 1.0)
    for d, w in zip(top, sw, strict=True):
        toks = doc_tokens[d]
        if len(toks) == 0:
            continue
        uniq, counts = np.unique(toks, return_counts=True)
        for t, c in zip(uniq, counts, strict=True):
            weights[int(t)] = weights.get(int(t), 0.0) + w * c / len(toks)
    exp = sorted(weights.items(), key=lambda kv: -kv[1])[:fb_terms]
    norm = sum(v for _, v in exp) or 1.0
    q: dict[int, float] = {}
    for t in ids:
        q[t] = q.get(t, 0.0) + orig_weight / len(ids)
    for t, v in exp:
        q[t] = q.get(t, 0.0) + (1 - orig_weight) * v / norm
    out = np.zeros_like(base)
    for t, w in q.items():
        out += w * bm.get_scores_from_ids([t]).astype(np.float32)
    return out


# --- dense ------------------------------------------------------------------------------------
def dense_pools(c: Corpus, qv: np.ndarray) -> dict[str, np.ndarray]:
    sims = c.chunk_vecs @ qv
    mx = np.maximum.reduceat(sims, c.chunk_starts)
    mean_vec = c.doc_vecs @ qv
    # sum of the two best chunks (a doc with one chunk counts it once)
    top2 = np.full(len(c.doc_ids), -1.0, dtype=np.float32)
    ends = np.append(c.chunk_starts[1:], len(sims))
    for i, (s, e) in enumerate(zip(c.chunk_starts, ends, strict=True)):
        part = np.sort(sims[s:e])[::-1]
        top2[i] = part[:2].sum() if len(part) > 1 else part[0]
    return {"max": mx, "mean": mean_vec, "top2": top2, "max+mean": (mx + mean_vec) / 2}


# --- fusion -----------------------------------------------------------------------------------
def topn(scores: np.ndarray, n: int) -> np.ndarray:
    idx = np.argpartition(-scores, min(n, len(scores) - 1))[:n]
    return idx[np.argsort(-scores[idx], kind="stable")]


def fuse(lists: list[tuple[np.ndarray, np.ndarray]], weights: list[float], mode: str, n: int, rrf_k: float = 60) -> np.ndarray:
    """``lists``: (candidate indices, their scores) per retriever. Returns fused order (indices)."""
    total: dict[int, float] = {}
    for (idx, sc), w in zip(lists, weights, strict=True):
        if len(idx) == 0:
            continue
        if mode == "rrf":
            norm = 1.0 / (rrf_k + np.arange(1, len(idx) + 1))
        elif mode == "minmax":  # LlamaIndex relative_score
            lo, hi = sc.min(), sc.max()
            norm = (sc - lo) / (hi - lo) if hi > lo else np.ones_like(sc)
        elif mode == "dist":  # LlamaIndex dist_based_score: mean +- 3 std
            mu, sd = sc.mean(), sc.std()
            lo, hi = mu - 3 * sd, mu + 3 * sd
            norm = (sc - lo) / (hi - lo) if hi > lo else np.ones_like(sc)
        elif mode == "z":
            sd = sc.std() or 1.0
            norm = (sc - sc.mean()) / sd
        elif mode == "max":  # divide by the best score only
            norm = sc / (sc.max() or 1.0)
        else:
            raise ValueError(mode)
        for i, v in zip(idx, norm, strict=True):
            total[int(i)] = total.get(int(i), 0.0) + w * float(v)
    return np.asarray(sorted(total, key=lambda i: -total[i])[:n], dtype=np.int64)


# --- evaluation -------------------------------------------------------------------------------
def evaluate(order_fn: Callable[[int], np.ndarray], c: Corpus, gold: list[set[str]]) -> tuple[float, float]:
    nd, r5 = [], []
    for qi, g in enumerate(gold):
        works: list[str] = []
        for d in order_fn(qi):
            w = c.work_ids[d]
            if w not in works:
                works.append(w)
            if len(works) >= 10:
                break
        nd.append(ndcg_at_k(g, works, 10))
        r5.append(recall_at_k(g, works, 5))
    return float(np.mean(nd)), float(np.mean(r5))


def refine(args: Any, c: Corpus, qv: np.ndarray, texts: list[str], gold: list[set[str]], report: Any,
           results: list[tuple[str, float, float]], t0: float) -> int:
    bm = bm25_index(c.texts, 1.5, 0.75, "lucene", True)  # = BM25Retriever.from_defaults
    bscores = [bm25_scores(bm, query_term_ids(bm, t)) for t in texts]
    pools = [dense_pools(c, qv[i]) for i in range(len(texts))]
    report("bm25 default", lambda qi: topn(bscores[qi], 40))
    report("dense max", lambda qi: topn(pools[qi]["max"], 40))
    for pool, mode, w, n in itertools.product(["max", "0.7max"], ["minmax", "dist", "z", "rrf"],
                                              [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8], [20, 40, 80]):
        def fn(qi: int, pool: str = pool, mode: str = mode, w: float = w, n: int = n) -> np.ndarray:
            p = pools[qi]
            d = p["max"] if pool == "max" else 0.7 * p["max"] + 0.3 * p["mean"]
            di, bi = topn(d, n), topn(bscores[qi], n)
            return fuse([(di, d[di]), (bi, bscores[qi][bi])], [w, 1 - w], mode, n)
        report(f"hybrid {pool} {mode} w={w} n={n}", fn)
    return _save_top(results, args, "refine", t0)


def prf_grid(c: Corpus, qv: np.ndarray, bscores: list[np.ndarray], dmax: list[np.ndarray], sims: list[np.ndarray],
             hyb: Any, report: Any, bm: Any) -> None:
    """Finer grid over dense pseudo-relevance feedback (Rocchio on the query vector)."""
    import bm25s

    ends = np.append(c.chunk_starts[1:], len(c.chunk_vecs))
    for src, vec, m, beta in itertools.product(("hybrid", "dense"), ("mean", "bestchunk"), (1, 2), (0.4, 0.5, 0.6, 0.8)):
        def fnp(qi: int, src: str = src, vec: str = vec, m: int = m, beta: float = beta) -> np.ndarray:
            first = (hyb(dmax[qi], bscores[qi]) if src == "hybrid" else topn(dmax[qi], m))[:m]
            if vec == "mean":
                fb = c.doc_vecs[first].mean(axis=0)
            else:
                fb = np.mean([c.chunk_vecs[c.chunk_starts[d] + int(np.argmax(sims[qi][c.chunk_starts[d]:ends[d]]))] for d in first], axis=0)
            q2 = qv[qi] + beta * fb
            q2 /= np.linalg.norm(q2)
            return hyb(np.maximum.reduceat(c.chunk_vecs @ q2, c.chunk_starts), bscores[qi])
        report(f"dense PRF src={src} vec={vec} m={m} beta={beta}", fnp)
    # the feedback doc's terms for BM25 as well (RM3 from the hybrid top-1), on top of dense PRF m=1 beta=0.6
    toks = bm25s.tokenize(c.texts, stopwords="en", stemmer=bm._stemmer, show_progress=False, return_ids=False)
    dtoks = [np.asarray([bm.vocab_dict[t] for t in d if t in bm.vocab_dict]) for d in toks]
    for ft, ow in ((10, 0.7), (20, 0.7), (20, 0.5)):
        def fnr(qi: int, ft: int = ft, ow: float = ow) -> np.ndarray:
            first = hyb(dmax[qi], bscores[qi])[:1]
            q2 = qv[qi] + 0.6 * c.doc_vecs[first].mean(axis=0)
            q2 /= np.linalg.norm(q2)
            # RM3 with the hybrid's top doc as the feedback set
            weights: dict[int, float] = {}
            t = dtoks[first[0]]
            uniq, counts = np.unique(t, return_counts=True)
            for u, cnt in zip(uniq, counts, strict=True):
                weights[int(u)] = cnt / len(t)
            exp = sorted(weights.items(), key=lambda kv: -kv[1])[:ft]
            norm = sum(v for _, v in exp) or 1.0
            extra = np.zeros_like(bscores[qi])
            for u, v in exp:
                extra += (v / norm) * bm.get_scores_from_ids([u]).astype(np.float32)
            b2 = ow * bscores[qi] + (1 - ow) * extra * (bscores[qi].max() / (extra.max() or 1.0))
            return hyb(np.maximum.reduceat(c.chunk_vecs @ q2, c.chunk_starts), b2)
        report(f"dense PRF m=1 beta=0.6 + BM25 RM3 from hybrid top-1 terms={ft} orig={ow}", fnr)


def explore(args: Any, c: Corpus, qv: np.ndarray, texts: list[str], gold: list[set[str]], report: Any,
            results: list[tuple[str, float, float]], t0: float) -> int:
    bm = bm25_index(c.texts, 1.5, 0.75, "lucene", True)
    bscores = [bm25_scores(bm, query_term_ids(bm, t)) for t in texts]
    cbm = bm25_index(c.chunk_texts, 1.5, 0.75, "lucene", True)
    cb_chunk = [bm25_scores(cbm, query_term_ids(cbm, t)) for t in texts]
    cb_max = [np.maximum.reduceat(x, c.chunk_starts) for x in cb_chunk]
    sims = [c.chunk_vecs @ qv[i] for i in range(len(texts))]
    dmax = [np.maximum.reduceat(x, c.chunk_starts) for x in sims]
    W, N = 0.6, 40

    def hyb(d: np.ndarray, b: np.ndarray, w: float = W, mode: str = "dist", n: int = N) -> np.ndarray:
        di, bi = topn(d, n), topn(b, n)
        return fuse([(di, d[di]), (bi, b[bi])], [w, 1 - w], mode, n)

    report("bm25 doc", lambda qi: topn(bscores[qi], 40))
    report("bm25 chunk max", lambda qi: topn(cb_max[qi], 40))
    report("dense max", lambda qi: topn(dmax[qi], 40))
    report("chosen: hybrid dense max + bm25 doc, dist w=0.6", lambda qi: hyb(dmax[qi], bscores[qi]))
    report("hybrid dense max + bm25 chunk max", lambda qi: hyb(dmax[qi], cb_max[qi]))
    for a in (0.3, 0.5, 0.7):
        def fn3(qi: int, a: float = a) -> np.ndarray:
            d, b, cb = dmax[qi], bscores[qi], cb_max[qi]
            di, bi, ci = topn(d, N), topn(b, N), topn(cb, N)
            return fuse([(di, d[di]), (bi, b[bi]), (ci, cb[ci])], [W, (1 - W) * (1 - a), (1 - W) * a], "dist", N)
        report(f"3-way dense max + bm25 doc + bm25 chunk (chunk share {a})", fn3)
    # chunk-level fusion: z-normalise dense and BM25 over all chunks, mix, then max per doc
    for w in (0.5, 0.6, 0.7):
        def fnc(qi: int, w: float = w) -> np.ndarray:
            d, b = sims[qi], cb_chunk[qi]
            zd = (d - d.mean()) / (d.std() or 1)
            zb = (b - b.mean()) / (b.std() or 1)
            return topn(np.maximum.reduceat(w * zd + (1 - w) * zb, c.chunk_starts), 40)
        report(f"chunk-level z fusion w={w}, max per doc", fnc)
    # dense pseudo-relevance feedback (Rocchio on the query vector), feedback from the first hybrid pass
    for m, beta in itertools.product((1, 3, 5), (0.3, 0.6, 1.0)):
        def fnp(qi: int, m: int = m, beta: float = beta) -> np.ndarray:
            first = hyb(dmax[qi], bscores[qi])[:m]
            fb = c.doc_vecs[first].mean(axis=0)
            q2 = qv[qi] + beta * fb
            q2 /= np.linalg.norm(q2)
            d2 = np.maximum.reduceat(c.chunk_vecs @ q2, c.chunk_starts)
            return hyb(d2, bscores[qi])
        report(f"dense PRF (doc mean vecs of hybrid top-{m}, beta={beta}) + bm25", fnp)
    if getattr(args, "prf_grid", False):
        prf_grid(c, qv, bscores, dmax, sims, hyb, report, bm)
    # failure analysis of the chosen design
    ranks = []
    for qi, g in enumerate(gold):
        order = list(hyb(dmax[qi], bscores[qi], n=2101))
        rb = np.argsort(-bscores[qi]).tolist()
        rd = np.argsort(-dmax[qi]).tolist()
        gi = [i for i, w in enumerate(c.work_ids) if w in g]
        ranks.append((min(order.index(i) if i in order else 9999 for i in gi), min(rb.index(i) for i in gi), min(rd.index(i) for i in gi)))
    miss = [r for r in ranks if r[0] >= 10]
    print(f"misses@10 (hybrid rank, bm25 rank, dense rank): {len(miss)} {sorted(miss)}")
    print(f"({time.perf_counter() - t0:.0f}s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    from assistant import Assistant

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--dataset", default="scifact-2101")
    ap.add_argument("--split", default="train")
    ap.add_argument("--types", default="", help="dev: comma-separated question types to keep")
    ap.add_argument("--quick", action="store_true", help="skip the BM25 parameter grid")
    ap.add_argument("--explore", action="store_true", help="third stage: chunk-level BM25, chunk-level fusion, dense PRF")
    ap.add_argument("--prf-grid", action="store_true", help="with --explore: a finer dense-PRF grid")
    ap.add_argument("--limit", type=int, default=0, help="only the first N questions (a quick smoke run)")
    ap.add_argument("--refine", action="store_true", help="only the second-stage grid: BM25 defaults, dense max-pool, "
                    "fusion mode x dense weight x candidate depth")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    a = Assistant(data_dir=args.data_dir, backend="extractive")
    c = load_corpus(a)
    docs = a.store.all_docs()
    if args.dataset == "dev":
        qs, probs = resolve_anchors(load_dev(split=args.split), docs)
        qs = [q for q in qs if q.gold and (not args.types or q.type in args.types.split(","))]
        # follow-ups: the search query is the previous question + this one (as answering does)
        prev = {r["id"]: r["question"] for r in load_dev()}
        texts = [f"{prev[q.previous]} {q.text}" if q.previous else q.text for q in qs]
    else:
        qs, probs = load_beir(DATASETS_DIR / args.dataset, args.split, docs)
        texts = [q.text for q in qs]
    if args.limit:
        qs, texts = qs[: args.limit], texts[: args.limit]
    if probs:
        print("\n".join(probs[:10]))
    gold = [q.gold for q in qs]
    qv = embed_queries(a, texts, Path(args.data_dir) / f"tune_q_{args.dataset}_{args.split}.npz")
    print(f"{len(qs)} questions, {len(c.doc_ids)} docs, {len(c.chunk_vecs)} chunks; setup {time.perf_counter() - t0:.1f}s")

    results: list[tuple[str, float, float]] = []

    def report(name: str, fn: Callable[[int], np.ndarray]) -> tuple[float, float]:
        nd, r5 = evaluate(fn, c, gold)
        results.append((name, nd, r5))
        print(f"{name:70s} nDCG@10 {nd:.4f}  R@5 {r5:.4f}", flush=True)
        return nd, r5

    if args.explore:
        return explore(args, c, qv, texts, gold, report, results, t0)
    if args.refine:
        return refine(args, c, qv, texts, gold, report, results, t0)

    # BM25 grid
    bms: dict[tuple[Any, ...], Any] = {}
    grid = [("lucene", 1.2, 0.75, True), ("lucene", 1.5, 0.75, True), ("lucene", 1.2, 0.75, False)]
    if not args.quick:
        grid += [(m, k1, b, True) for m, k1, b in itertools.product(
            ["lucene", "robertson", "bm25+"], [0.9, 1.2, 1.5, 2.0], [0.6, 0.75, 0.9, 1.0])]
    for key in dict.fromkeys(grid):
        bm = bm25_index(c.texts, key[1], key[2], key[0], key[3])
        ids = [query_term_ids(bm, t) for t in texts]
        scores = [bm25_scores(bm, i) for i in ids]
        bms[key] = (bm, ids, scores)
        report(f"bm25 {key}", lambda qi, s=scores: topn(s[qi], 40))
    best_bm = max(((k, v) for k, v in bms.items()), key=lambda kv: evaluate(lambda qi, s=kv[1][2]: topn(s[qi], 40), c, gold)[0])
    print("best bm25", best_bm[0])

    # dense pools
    pools = [dense_pools(c, qv[i]) for i in range(len(qs))]
    for p in ("max", "mean", "top2", "max+mean"):
        report(f"dense {p}", lambda qi, p=p: topn(pools[qi][p], 40))
    for a_ in (0.3, 0.7):
        report(f"dense {a_}*max+{1 - a_:.1f}*mean", lambda qi, a_=a_: topn(a_ * pools[qi]["max"] + (1 - a_) * pools[qi]["mean"], 40))

    # RM3 on BM25 (both BM25 settings)
    tok_cache: dict[tuple[Any, ...], list[np.ndarray]] = {}
    for key in (("lucene", 1.5, 0.75, True), best_bm[0]):
        bm, ids, scores = bms[key]
        if key not in tok_cache:
            import bm25s

            toks = bm25s.tokenize(c.texts, stopwords="en", stemmer=bm._stemmer, show_progress=False, return_ids=False)
            tok_cache[key] = [np.asarray([bm.vocab_dict[t] for t in d if t in bm.vocab_dict]) for d in toks]
        for fd, ft, ow in [(3, 10, 0.5), (5, 20, 0.5), (10, 20, 0.5), (5, 20, 0.7), (10, 30, 0.7)]:
            rm = [rm3_scores(bm, tok_cache[key], ids[qi], scores[qi], fd, ft, ow) for qi in range(len(qs))]
            bms[(*key, "rm3", fd, ft, ow)] = (bm, ids, rm)
            report(f"bm25 {key} rm3 docs={fd} terms={ft} orig={ow}", lambda qi, s=rm: topn(s[qi], 40))

    # fusion grid
    def hybrid(bkey: tuple[Any, ...], pool: str, mode: str, w: float, n: int, rrf_k: float = 60) -> Callable[[int], np.ndarray]:
        _, _, bscores = bms[bkey]

        def fn(qi: int) -> np.ndarray:
            d = pools[qi][pool] if pool in pools[qi] else 0.5 * pools[qi]["max"] + 0.5 * pools[qi]["mean"]
            di, bi = topn(d, n), topn(bscores[qi], n)
            return fuse([(di, d[di]), (bi, bscores[qi][bi])], [w, 1 - w], mode, n, rrf_k)
        return fn

    bkeys = [("lucene", 1.5, 0.75, True), best_bm[0]] + [k for k in bms if "rm3" in k]
    bkeys = list(dict.fromkeys(bkeys))
    for mode, w, n in itertools.product(["minmax", "dist", "z", "rrf"], [0.3, 0.4, 0.5, 0.6], [40]):
        report(f"hybrid default-bm25 max {mode} w={w} n={n}", hybrid(("lucene", 1.5, 0.75, True), "max", mode, w, n))
    for bkey, pool, mode, w in itertools.product(bkeys, ["max", "mean", "max+mean"], ["minmax", "dist", "z"], [0.3, 0.4, 0.5]):
        report(f"hybrid {bkey} {pool} {mode} w={w}", hybrid(bkey, pool, mode, w, 40))
    for n in (10, 20, 40, 80, 160):
        report(f"hybrid best-bm25 max+mean z w=0.4 n={n}", hybrid(best_bm[0], "max+mean", "z", 0.4, n))
        report(f"hybrid best-bm25 max+mean minmax w=0.4 n={n}", hybrid(best_bm[0], "max+mean", "minmax", 0.4, n))

    return _save_top(results, args, "tune", t0)


def _save_top(results: list[Any], args: argparse.Namespace, prefix: str, t0: float) -> int:
    """Print the 25 best settings and keep every result next to the index."""
    results.sort(key=lambda r: -r[1])
    print("\nTOP 25")
    for name, nd, r5 in results[:25]:
        print(f"{name:70s} nDCG@10 {nd:.4f}  R@5 {r5:.4f}")
    out = Path(args.data_dir) / f"{prefix}_{args.dataset}_{args.split}.json"
    out.write_text(json.dumps(results, indent=1))
    print(f"({time.perf_counter() - t0:.0f}s; all results in {out})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
