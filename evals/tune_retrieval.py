"""Offline grid for the retrieval design (how the defaults in assistant/retrieval.py were chosen).

    python -m evals.tune_retrieval --data-dir /tmp/scifact_idx --dataset scifact-2101 --split train
    python -m evals.tune_retrieval --data-dir /tmp/ad --dataset dev --split tune

Everything is computed once per query as full score vectors in numpy (exact dense scores over all
chunks, BM25 via bm25s), then each variant (BM25 parameters, dense pooling, fusion mode/weight,
candidate depth, pseudo-relevance feedback) is a cheap re-combination. Query vectors are cached
in the data dir. Prints nDCG@10 / Recall@5 per variant.
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


def load_corpus(assistant: Any) -> Corpus:
    store = assistant.store
    docs = store.all_docs()
    doc_ids = sorted(docs)
    index = {d: i for i, d in enumerate(doc_ids)}
    got = store.docs.get(ids=doc_ids, include=["embeddings"])
    dv = np.zeros((len(doc_ids), 384), dtype=np.float32)
    for i, e in zip(got["ids"], got["embeddings"], strict=True):
        dv[index[i]] = e
    owners, vecs = [], []
    total = store.chunks.count()
    for off in range(0, total, 2000):
        g = store.chunks.get(include=["embeddings", "metadatas"], limit=2000, offset=off)
        for m, e in zip(g["metadatas"], g["embeddings"], strict=True):
            owners.append(index[m["doc_id"]])
            vecs.append(e)
    order = np.argsort(np.asarray(owners), kind="stable")
    owners_arr = np.asarray(owners)[order]
    cv = np.asarray(vecs, dtype=np.float32)[order]
    starts = np.searchsorted(owners_arr, np.arange(len(doc_ids)))
    return Corpus(doc_ids, [docs[d].work_id for d in doc_ids], [docs[d].text for d in doc_ids], dv, cv, starts)


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
    results.sort(key=lambda r: -r[1])
    print("\nTOP 25")
    for name, nd, r5 in results[:25]:
        print(f"{name:70s} nDCG@10 {nd:.4f}  R@5 {r5:.4f}")
    out = Path(args.data_dir) / f"refine_{args.dataset}_{args.split}.json"
    out.write_text(json.dumps(results, indent=1))
    print(f"({time.perf_counter() - t0:.0f}s; all results in {out})")
    return 0


def main(argv: list[str] | None = None) -> int:
    from assistant import Assistant

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--dataset", default="scifact-2101")
    ap.add_argument("--split", default="train")
    ap.add_argument("--types", default="", help="dev: comma-separated question types to keep")
    ap.add_argument("--quick", action="store_true", help="skip the BM25 parameter grid")
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
    bm_default = bms[("lucene", 1.5, 0.75, True)]  # what BM25Retriever.from_defaults builds

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

    results.sort(key=lambda r: -r[1])
    print("\nTOP 25")
    for name, nd, r5 in results[:25]:
        print(f"{name:70s} nDCG@10 {nd:.4f}  R@5 {r5:.4f}")
    out = Path(args.data_dir) / f"tune_{args.dataset}_{args.split}.json"
    out.write_text(json.dumps(results, indent=1))
    print(f"({time.perf_counter() - t0:.0f}s; all results in {out})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
