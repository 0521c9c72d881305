"""Retrieval ideas measured against the fitted fusion by the same cross-validation (``evals.fit``).

    python -m evals.retrieval_variants --scifact-dir D [--data-dir .assistant] [--folds 5]

Each variant gets the same grid of signal weights as ``python -m evals.fit retrieval`` and the
same objective (never below the naive baseline on any tuning set or question type, then the best
mean nDCG@10); the held-out figures per fold are printed as mean +- sd. Tuning sets only (dev,
generated, SciFact-2101 train): the locked split is never read.

Variants (each argued from how the signals behave, not from any question):
- ``fitted``: the product's fusion (``dist`` or ``rrf`` over chunk, abstract and BM25 lists);
- ``absolute``: scores kept on an absolute scale instead of each list's own distribution (cosine
  as is; BM25 divided by the query's own maximum, sum of idf * (k1 + 1) over its terms), so a weak
  lexical match weighs little however the list is spread;
- ``bm25_by_strength``: ``dist`` fusion whose BM25 weight shrinks with that same normalised top
  BM25 score (weight * min(1, s / tau) ** gamma): reworded questions match fewer of their
  abstract's words, so their lexical list is trusted less;
- ``rocchio``: a fourth list from the abstract vectors, searched with the query vector moved
  toward the mean vector of the fused top m (pseudo-relevance feedback, Rocchio 1971), exact
  cosine over all abstract vectors.
- ``whole exact`` / ``derived``: the fitted grid with the abstract list computed by exact cosine
  over the stored whole-abstract vectors, or over vectors derived from the chunk vectors (their
  normalised mean; the one chunk's vector when an abstract is one chunk), which would save
  embedding every abstract a second time at ingest (ingest/writer.py).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
from typing import Any

import numpy as np

from evals.cv import cv, folds, group_means
from evals.fit import (
    NAIVE,
    log,
    open_assistant,
    retrieval_configs,
    scifact_questions,
    tuning_questions,
)
from evals.metrics import ndcg_at_k, recall_at_k

GROUPS = ["all", "dev", "generated", "scifact_train", "type:lookup", "type:paraphrase", "type:multi"]


def collect(assistant: Any, questions: list[Any]) -> list[dict[str, Any]]:
    """Each question's signal lists, query vector, normalising BM25 maximum and work ids."""
    from assistant.language.text import tokens
    from assistant.store.bm25_scoring import K1

    r = assistant.retriever
    docs, lex = r.docs(), r._current()
    ids = sorted(docs)
    got = assistant.store.docs.get(ids=ids, include=["embeddings"])
    vec_of = dict(zip(got["ids"], np.asarray(got["embeddings"], dtype=np.float32), strict=True))
    matrix = np.vstack([vec_of[i] for i in ids])
    derived = _derived_matrix(assistant, ids)
    n = len(lex)
    out = []
    for q in questions:
        vec = r.embed_query(q.text)
        idf = [math.log(1 + (n - df + 0.5) / (df + 0.5)) for df in map(lex.doc_freq, set(tokens(q.text))) if df]
        lists = r.signals(q.text, assistant.settings.candidates, vector=vec)
        k = len(lists.get("abstract") or []) or assistant.settings.candidates
        unit = vec / np.linalg.norm(vec)
        for name, m in (("abstract_exact", matrix), ("abstract_derived", derived)):
            sims = m @ unit
            lists[name] = [(ids[j], float(sims[j])) for j in np.argsort(-sims)[:k]]
        out.append({"q": q, "lists": lists, "vec": vec,
                    "bm25_max": sum(idf) * (K1 + 1) or 1.0, "ids": ids, "matrix": matrix,
                    "work": {d: docs[d].work_id for d in ids}})
    return out


def _derived_matrix(assistant: Any, ids: list[str]) -> np.ndarray:
    """Per abstract, the normalised mean of its chunk vectors (rows in ``ids`` order)."""
    chunks = assistant.store.chunks
    sums: dict[str, np.ndarray] = {}
    total = chunks.count()
    for offset in range(0, total, 5000):
        got = chunks.get(include=["embeddings"], limit=5000, offset=offset)
        for cid, v in zip(got["ids"], got["embeddings"], strict=True):
            d = cid.rsplit("-", 1)[0]
            sums[d] = sums.get(d, 0) + np.asarray(v, dtype=np.float32)
    m = np.vstack([sums[i] for i in ids])
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def add_rocchio(row: dict[str, Any], fused: list[tuple[str, float]], m: int, beta: float, n: int) -> None:
    pos = {d: j for j, d in enumerate(row["ids"])}
    seeds = row["matrix"][[pos[d] for d, _ in fused[:m] if d in pos]]
    q = row["vec"] / np.linalg.norm(row["vec"]) + beta * seeds.mean(axis=0)
    sims = row["matrix"] @ (q / np.linalg.norm(q))
    row["lists"]["rocchio"] = [(row["ids"][j], float(sims[j])) for j in np.argsort(-sims)[:n]]


def rank(row: dict[str, Any], cfg: dict[str, Any]) -> list[tuple[str, float]]:
    from assistant.search.fusion import fuse

    lists, weights = row["lists"], dict(cfg["weights"])
    if cfg.get("abstract_list"):
        lists = {**lists, "abstract": lists[cfg["abstract_list"]]}
    strength = lists["bm25"][0][1] / row["bm25_max"] if lists.get("bm25") else 0.0
    if cfg["method"] == "bm25_by_strength":
        weights["bm25"] *= min(1.0, strength / cfg["tau"]) ** cfg["gamma"]
        return fuse(lists, weights, "dist")
    if cfg["method"] != "absolute":
        return fuse(lists, weights, cfg["method"])
    scaled = {s: {d: v / (row["bm25_max"] if s == "bm25" else 1.0) for d, v in ranked}
              for s, ranked in lists.items() if ranked and weights.get(s, 0.0) > 0}
    floor = {s: min(v.values()) for s, v in scaled.items()}  # an unlisted abstract scores below the list
    total = {d: sum(weights[s] * v.get(d, floor[s]) for s, v in scaled.items()) for v0 in scaled.values() for d in v0}
    return sorted(total.items(), key=lambda kv: -kv[1])


def report(name: str, rows: list[dict[str, Any]], configs: list[dict[str, Any]], k: int) -> dict[str, str]:
    items = [r["q"] for r in rows]
    cache: dict[tuple[int, str], tuple[float, float]] = {}

    def metrics(cfg: dict[str, Any], i: int) -> tuple[float, float]:
        key = (i, json.dumps(cfg, sort_keys=True))
        if key not in cache:
            works: list[str] = []
            for d, _ in rank(rows[i], cfg):
                w = rows[i]["work"].get(d, d)
                if w not in works:
                    works.append(w)
                if len(works) == 10:
                    break
            cache[key] = (ndcg_at_k(items[i].gold, works, 10), recall_at_k(items[i].gold, works, 5))
        return cache[key]

    def score(cfg: dict[str, Any], idx: list[int]) -> float:  # evals.fit's retrieval objective
        mine = group_means(items, idx, lambda i: metrics(cfg, i)[0])
        base = group_means(items, idx, lambda i: metrics(NAIVE, i)[0])
        worst = min(mine[g] - base[g] for g in mine)
        return statistics.fmean(mine.values()) if worst >= -1e-9 else worst - 1.0

    _, chosen = cv(items, configs, score, k)
    out, parts = {}, folds(items, k)
    for group in GROUPS:
        for j, m in ((0, "ndcg@10"), (1, "recall@5")):
            vals = []
            for f, part in enumerate(parts):
                idx = [i for i in part if group in ("all", items[i].raw["_set"], "type:" + items[i].type)]
                if idx:
                    vals.append(statistics.fmean(metrics(chosen[f], i)[j] for i in idx))
            out[f"{group}.{m}"] = f"{statistics.fmean(vals):.3f} ± {statistics.pstdev(vals):.3f}"
    log(f"{name}: chosen per fold {[{k: v for k, v in c.items() if k != 'weights'} | c['weights'] for c in chosen]}")
    return out


def variants(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    from assistant.search.fusion import fuse
    from assistant.settings import RetrievalSettings

    base = retrieval_configs()
    dist = [c for c in base if c["method"] == "dist"]
    current = RetrievalSettings().weights()  # the shipped fusion's weights seed the feedback
    for row in rows:
        add_rocchio(row, fuse(row["lists"], current, "dist"), m=3, beta=0.5, n=len(row["lists"]["abstract"]))
    grid = [round(x, 2) for x in np.arange(0.0, 1.01, 0.1)]
    rocchio = [{"method": "dist", "weights": {**c["weights"], "rocchio": wr, "bm25": round(c["weights"]["bm25"] - wr, 2)}}
               for c in dist for wr in grid if c["weights"]["bm25"] - wr > -1e-9]
    return {
        "naive baseline": [NAIVE],
        "fitted": base,
        "absolute": [{**c, "method": "absolute"} for c in dist],
        "bm25_by_strength": [{**c, "method": "bm25_by_strength", "gamma": g, "tau": t}
                             for c in dist for g, t in itertools.product((0.0, 1.0, 2.0), (0.1, 0.2, 0.3))],
        "rocchio": rocchio,
        "whole exact": [{**c, "abstract_list": "abstract_exact"} for c in base],
        "derived": [{**c, "abstract_list": "abstract_derived"} for c in base],
        # The shipped weights as they are, over each abstract list (no refit).
        "shipped": [{"method": "dist", "weights": current}],
        "shipped derived": [{"method": "dist", "weights": current, "abstract_list": "abstract_derived"}],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.retrieval_variants", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", help="an index of the bundled corpus (default ./.assistant)")
    ap.add_argument("--scifact-dir", required=True, help="SciFact-2101 index (as for evals.fit retrieval)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--variants", help="comma-separated names to run (default: all)")
    args = ap.parse_args(argv)
    a = open_assistant(args.data_dir)
    rows = collect(a, [q for q in tuning_questions(a, ["dev", "generated"]) if q.gold])
    sa, sq = scifact_questions(args.scifact_dir)
    rows += collect(sa, sq)
    wanted = set(args.variants.split(",")) if args.variants else None
    table = {name: report(name, rows, configs, args.folds) for name, configs in variants(rows).items()
             if wanted is None or name in wanted}
    keys = list(next(iter(table.values())))
    print("| held-out figure | " + " | ".join(table) + " |\n|---|" + "---|" * len(table))
    for key in keys:
        print(f"| {key} | " + " | ".join(t[key] for t in table.values()) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
