"""The evaluation harness (``assistant eval``; ``python -m evals.harness``).

One run, one process: BM25-only, dense-only and the configured hybrid pipeline are run side by
side on the same questions (``Assistant.search`` modes), then, for the dev set, every question is
answered with the chosen backend (extractive by default: offline, deterministic, no LLM judge).

    python -m evals.harness dev                        # dev set, bundled corpus
    python -m evals.harness scifact-2101 --split test  # a BEIR folder under evals/datasets/
    python -m evals.harness dev --limit 5 --compare evals/runs/<earlier-run>

Outputs a run folder ``evals/runs/<timestamp>-<dataset>/`` with results.json, report.md and PNG
plots. ``--compare RUN`` prints deltas against an earlier run's results.json and exits 1 when a
gated metric regresses beyond its tolerance (see ``GATES``).

The dataset's corpus is ingested into ``--data-dir`` when given, else into a cache folder keyed
by the corpus files' hash (``evals/runs/_cache/<dataset>-<hash>``), reused by later runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from evals.data import (
    Dataset,
    Question,
    file_hash,
    load_beir,
    load_dev,
    resolve_anchors,
    resolve_path,
)
from evals.metrics import K_VALUES, key_point_coverage, mean, percentile, retrieval_scores

RUNS_DIR = Path(__file__).resolve().parent / "runs"
CACHE_DIR = RUNS_DIR / "_cache"
SYSTEMS = ("bm25", "dense", "baseline", "hybrid")  # baseline: BM25 + one vector per abstract, RRF
SEARCH_K = 10
CURVE_K = tuple(range(1, SEARCH_K + 1))

# Gated metrics for --compare: (direction of "worse", tolerance). A change worse than the
# tolerance is a regression and makes the run exit non-zero.
GATES: dict[str, tuple[str, float]] = {
    "hybrid.ndcg@10": ("drop", 0.02),
    "hybrid.recall@5": ("drop", 0.02),
    "answers.citation_precision": ("drop", 0.02),
    "answers.false_refusal_rate": ("rise", 0.05),
}


# --- setup ----------------------------------------------------------------------------------------
def _corpus_hash(kind: str, path: Path) -> tuple[str, list[Path]]:
    from assistant.settings import DEFAULT_CORPUS

    if kind == "beir":
        files = [path / "corpus.jsonl"]
    else:
        files = sorted(f for f in DEFAULT_CORPUS.rglob("*") if f.is_file() and f.name.lower() != "readme.md")
    import hashlib

    joined = "".join(f"{f.name}:{file_hash(f)};" for f in files)
    return hashlib.sha256(joined.encode()).hexdigest()[:12], files


def _git_commit() -> str | None:
    try:  # read-only
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _limit(questions: list[Question], limit: int | None) -> list[Question]:
    """The first ``limit`` questions, taken round-robin over question types (in file order), so a
    smoke subset still covers every type."""
    if not limit or limit >= len(questions):
        return questions
    by_type: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_type[q.type].append(q)
    out: list[Question] = []
    queues = [list(v) for v in by_type.values()]
    while len(out) < limit and any(queues):
        for qu in queues:
            if qu and len(out) < limit:
                out.append(qu.pop(0))
    keep = {q.id for q in out}
    return [q for q in questions if q.id in keep]


def _open(dataset: str, data_dir: str | Path | None, split: str | None, backend: str | None, log: Any) -> tuple[Any, Dataset, dict[str, Any]]:
    from assistant import Assistant
    from assistant.settings import DEFAULT_CORPUS

    kind, path = resolve_path(dataset)
    name = "dev" if kind == "dev" and path.name == "dev.jsonl" else path.stem if kind == "dev" else path.name
    chash, _ = _corpus_hash(kind, path)
    ddir = Path(data_dir) if data_dir else CACHE_DIR / f"{name if kind == 'beir' else 'bundled'}-{chash}"
    overrides: dict[str, Any] = {"backend": backend} if backend else {}
    assistant = Assistant(data_dir=ddir, **overrides)
    corpus = path if kind == "beir" else DEFAULT_CORPUS
    t = time.perf_counter()
    log(f"index: {ddir} (ingesting {corpus} if needed) ...")
    report = assistant.ingest([corpus])
    ingest_s = time.perf_counter() - t
    log(f"  {report.summary().splitlines()[0]}")
    docs = assistant.retriever.docs()
    if kind == "dev":
        split = split or "all"
        questions, problems = resolve_anchors(load_dev(path, split), docs)
    else:
        split = split or "test"
        questions, problems = load_beir(path, split, docs)
    for p in problems:
        log(f"  warning: {p}")
    info = {"data_dir": str(ddir), "corpus": str(corpus), "corpus_hash": chash, "ingest_s": round(ingest_s, 2),
            "ingest": {k: v for k, v in report.to_dict().items() if k in ("added", "unchanged", "totals", "seconds")},
            "problems": problems}
    return assistant, Dataset(name=name, kind=kind, questions=questions, corpus=corpus, split=split), info


# --- running --------------------------------------------------------------------------------------
def _history(prev_q: str, prev_answer: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": prev_q}, {"role": "assistant", "content": prev_answer}]


def _answer_record(q: Question, ans: Any, docs: dict[str, Any]) -> dict[str, Any]:
    import re

    cited_docs = [c.doc_id for c in ans.citations]
    cited_works = list(dict.fromkeys(docs[d].work_id if d in docs else d for d in cited_docs))
    markers = [int(x) for m in re.finditer(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]", ans.text) for x in re.split(r"\s*[,;]\s*", m.group(1))]
    valid = all(1 <= n <= len(ans.citations) for n in markers) and all(
        1 <= n <= len(ans.citations) for s in ans.sentences for n in s.citations)
    rec: dict[str, Any] = {
        "answer": ans.text, "refused": bool(ans.refused), "backend": ans.backend,
        "caveated": bool(ans.caveat) and not ans.refused, "relevance": ans.relevance,
        "cited_works": cited_works, "n_citations": len(ans.citations), "markers": len(markers),
        "citation_valid": valid if not ans.refused else None,
        "sentences": len(ans.sentences), "supported_sentences": sum(1 for s in ans.sentences if s.supported),
        "timings": dict(ans.timings), "usage": {k: v for k, v in ans.usage.items() if isinstance(v, int | float)},
        "fallback_reason": ans.fallback_reason,
    }
    if q.answerable and not ans.refused and cited_works:
        rec["citation_precision"] = sum(1 for w in cited_works if w in q.gold) / len(cited_works)
    if q.answerable:
        rec["key_point_coverage"] = key_point_coverage(ans.text if not ans.refused else "", q.key_points)
    return rec


def _baseline_key_points(assistant: Any, q: Question, query: str) -> float:
    """The naive baseline's answer: the two sentences of its top abstract closest to the question."""
    import numpy as np

    from assistant.text import split_sentences

    hits = assistant.search(query, k=1, mode="baseline")
    if not hits:
        return 0.0
    text = hits[0].text
    sents = [text[s.start : s.end] for s in split_sentences(text)]
    vecs = np.asarray(assistant.embedder([query] + sents), dtype=np.float32)
    best = np.argsort(-(vecs[1:] @ vecs[0]))[:2]
    return key_point_coverage(" ".join(sents[i] for i in sorted(best)), q.key_points)


def _run(assistant: Any, ds: Dataset, backend: str | None, log: Any, loo: bool = False) -> dict[str, Any]:
    from assistant.conversation import standalone_question

    docs = assistant.retriever.docs()
    by_id = {q.id: q for q in ds.questions}
    all_dev = {r["id"]: r for r in load_dev()} if ds.kind == "dev" else {}
    with_answers = ds.kind == "dev"
    # warm up: BM25 index, Chroma, ONNX session
    for mode in SYSTEMS:
        assistant.search("warm up query", k=SEARCH_K, mode=mode)
    answers: dict[str, Any] = {}
    per_q: list[dict[str, Any]] = []
    embed_latency: list[float] = []
    k_answer = assistant.settings.top_k
    for i, q in enumerate(ds.questions, 1):
        history: list[dict[str, str]] = []
        if q.previous:
            prev = answers.get(q.previous)
            prev_text = by_id[q.previous].text if q.previous in by_id else all_dev.get(q.previous, {}).get("question", "")
            if prev is None and prev_text:  # --limit left the previous question out: answer it, unscored
                prev = assistant.ask(prev_text, backend=backend, k=k_answer)
            history = _history(prev_text, prev.text if prev is not None else "")
        query = standalone_question(q.text, history)
        rec: dict[str, Any] = {"id": q.id, "type": q.type, "split": q.split, "question": q.text, "query": query,
                               "gold": sorted(q.gold), "systems": {}}
        t = time.perf_counter()  # one query embedding, timed next to the searches (shared machines drift)
        assistant.embedder([query])
        embed_latency.append(time.perf_counter() - t)
        for mode in SYSTEMS:
            t = time.perf_counter()
            hits = assistant.search(query, k=SEARCH_K, mode=mode)
            dt = time.perf_counter() - t
            works = [h.metadata.get("work_id", h.doc_id) for h in hits]
            entry: dict[str, Any] = {"latency_s": dt, "retrieved": works}
            if q.gold:
                entry.update(retrieval_scores(q.gold, works))
                entry["curve"] = [sum(1 for w in works[:k] if w in q.gold) / len(q.gold) for k in CURVE_K]
            rec["systems"][mode] = entry
        if with_answers:
            ans = assistant.ask(q.text, history=history, backend=backend, k=k_answer)
            answers[q.id] = ans
            rec["answer"] = _answer_record(q, ans, docs)
            if q.gold and q.key_points:
                rec["baseline_key_points"] = _baseline_key_points(assistant, q, query)
            if loo and q.gold and not q.previous:
                held = assistant.ask(q.text, backend=backend, k=k_answer, exclude=set(q.gold))
                rec["loo"] = {"refused": held.refused, "caveated": bool(held.caveat) and not held.refused,
                              "cited_gold": any(c.doc_id in docs and docs[c.doc_id].work_id in q.gold for c in held.citations)}
        per_q.append(rec)
        if i % 25 == 0:
            log(f"  {i}/{len(ds.questions)} questions")
    return {"per_question": per_q, "embed_latency": embed_latency}


# --- aggregation ----------------------------------------------------------------------------------
def _agg_retrieval(recs: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    scored = [r["systems"][mode] for r in recs if r["gold"]]
    out: dict[str, Any] = {"n": len(scored)}
    for key in [f"recall@{k}" for k in K_VALUES] + ["mrr@10", "ndcg@10"]:
        out[key] = mean(s[key] for s in scored)
    out["curve"] = [mean(s["curve"][i] for s in scored) for i in range(len(CURVE_K))] if scored else []
    return out


def _rate(num: int, den: int) -> float:
    return num / den if den else float("nan")


def _agg_answers(recs: list[dict[str, Any]]) -> dict[str, Any]:
    rs = [r for r in recs if "answer" in r]
    ans = [r["answer"] for r in rs]
    answerable = [r["answer"] for r in rs if r["type"] != "unanswerable"]
    unanswerable = [r["answer"] for r in rs if r["type"] == "unanswerable"]
    refused = [r for r in rs if r["answer"]["refused"]]
    not_refused = [a for a in ans if not a["refused"]]
    sentences = sum(a["sentences"] for a in not_refused)
    out = {
        "n": len(ans),
        "citation_validity": mean(1.0 if a["citation_valid"] else 0.0 for a in not_refused),
        "citation_precision": mean(a["citation_precision"] for a in answerable if "citation_precision" in a),
        "citation_support_rate": _rate(sum(a["supported_sentences"] for a in not_refused), sentences),
        "key_point_coverage": mean(a["key_point_coverage"] for a in answerable if not math.isnan(a.get("key_point_coverage", math.nan))),
        "refusal_precision": _rate(sum(1 for r in refused if r["type"] == "unanswerable"), len(refused)),
        "refusal_recall": _rate(sum(1 for a in unanswerable if a["refused"]), len(unanswerable)),
        "false_refusal_rate": _rate(sum(1 for a in answerable if a["refused"]), len(answerable)),
        "answerable_caveated_rate": _rate(sum(1 for a in answerable if a.get("caveated")), len(answerable)),
        "unanswerable_refused_or_caveated": _rate(sum(1 for a in unanswerable if a["refused"] or a.get("caveated")), len(unanswerable)),
        "baseline_key_point_coverage": mean(r["baseline_key_points"] for r in rs if "baseline_key_points" in r),
        "fallbacks": sum(1 for a in ans if a.get("fallback_reason")),
    }
    stages = sorted({k for a in ans for k in a["timings"]})
    out["latency"] = {s: {"p50": percentile([a["timings"][s] for a in ans if s in a["timings"]], 50),
                          "p95": percentile([a["timings"][s] for a in ans if s in a["timings"]], 95)} for s in stages}
    tok = defaultdict(float)
    for a in ans:
        for k, v in a["usage"].items():
            tok[k] += v
    out["tokens"] = {"total": dict(tok), "per_answer": {k: v / len(ans) for k, v in tok.items()} if ans else {}}
    return out


def _summary(results: dict[str, Any]) -> dict[str, float]:
    flat: dict[str, float] = {}
    for mode, agg in results["retrieval"].items():
        for key, v in agg["all"].items():
            if isinstance(v, float):
                flat[f"{mode}.{key}"] = v
        flat[f"{mode}.latency_p50_ms"] = agg["latency"]["p50_ms"]
    for key, v in (results.get("answers") or {}).get("all", {}).items():
        if isinstance(v, float | int) and key != "n":
            flat[f"answers.{key}"] = float(v)
    for key, v in (results.get("leave_one_out") or {}).items():
        if key != "n":
            flat[f"loo.{key}"] = float(v)
    return flat


def aggregate(recs: list[dict[str, Any]], embed_latency: list[float]) -> dict[str, Any]:
    types = list(dict.fromkeys(r["type"] for r in recs))
    emb_p50 = percentile(embed_latency, 50)
    retrieval: dict[str, Any] = {}
    for mode in SYSTEMS:
        lat = [r["systems"][mode]["latency_s"] for r in recs]
        retrieval[mode] = {
            "all": _agg_retrieval(recs, mode),
            "by_type": {t: _agg_retrieval([r for r in recs if r["type"] == t], mode) for t in types},
            "latency": {"p50_ms": percentile(lat, 50) * 1e3, "p95_ms": percentile(lat, 95) * 1e3,
                        "p50_over_embedding": percentile(lat, 50) / emb_p50 if emb_p50 else float("nan")},
        }
    out: dict[str, Any] = {"retrieval": retrieval,
                           "query_embedding": {"p50_ms": emb_p50 * 1e3, "p95_ms": percentile(embed_latency, 95) * 1e3}}
    if any("answer" in r for r in recs):
        out["answers"] = {"all": _agg_answers(recs), "by_type": {t: _agg_answers([r for r in recs if r["type"] == t]) for t in types}}
    held = [r["loo"] for r in recs if "loo" in r]
    if held:
        out["leave_one_out"] = {"n": len(held), "refused": _rate(sum(h["refused"] for h in held), len(held)),
                                "caveated": _rate(sum(h["caveated"] for h in held), len(held)),
                                "refused_or_caveated": _rate(sum(h["refused"] or h["caveated"] for h in held), len(held)),
                                "answered_plainly": _rate(sum(not (h["refused"] or h["caveated"]) for h in held), len(held))}
    out["summary"] = _summary(out)
    return out


# --- compare --------------------------------------------------------------------------------------
def load_results(run: str | Path) -> dict[str, Any]:
    p = Path(run)
    if p.is_dir():
        p = p / "results.json"
    if not p.exists() and not Path(run).is_absolute():
        alt = RUNS_DIR / str(run)
        p = alt / "results.json" if alt.is_dir() else alt
    if not p.exists():
        raise FileNotFoundError(f"--compare: no results.json at {run}")
    return json.loads(p.read_text(encoding="utf-8"))


def compare(current: dict[str, Any], previous: dict[str, Any], gates: dict[str, tuple[str, float]] = GATES) -> dict[str, Any]:
    """Deltas of every summary metric; regressions of the gated ones beyond their tolerance."""
    cur, prev = current.get("summary", {}), previous.get("summary", {})
    deltas = {k: cur[k] - prev[k] for k in cur if k in prev and _finite(cur[k]) and _finite(prev[k])}
    regressions = []
    for key, (direction, tol) in gates.items():
        if key not in deltas:
            continue
        d = deltas[key]
        if (direction == "drop" and d < -tol) or (direction == "rise" and d > tol):
            regressions.append({"metric": key, "previous": prev[key], "current": cur[key], "delta": d,
                                "tolerance": tol, "direction": direction})
    notes = []
    for key in ("dataset", "split", "n_questions", "backend"):
        if current.get(key) != previous.get(key):
            notes.append(f"{key} differs: {previous.get(key)!r} -> {current.get(key)!r}")
    return {"against": previous.get("run_dir"), "deltas": deltas, "regressions": regressions, "notes": notes}


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def format_compare(cmp: dict[str, Any]) -> str:
    lines = [f"compared with {cmp.get('against')}"] + [f"  note: {n}" for n in cmp["notes"]]
    gated = {r["metric"] for r in cmp["regressions"]}
    for key, d in sorted(cmp["deltas"].items()):
        if abs(d) < 1e-12 and key not in GATES:
            continue
        flag = "  REGRESSION" if key in gated else ("  (gated)" if key in GATES else "")
        lines.append(f"  {key:40s} {d:+.4f}{flag}")
    lines.append(f"{len(cmp['regressions'])} gated regression(s)" if cmp["regressions"] else "no gated regression")
    return "\n".join(lines)


# --- entry points ---------------------------------------------------------------------------------
def run_eval(dataset: str = "dev", backend: str | None = None, data_dir: str | Path | None = None,
             out_dir: str | Path | None = None, compare: str | None = None, limit: int | None = None,
             split: str | None = None, plots: bool = True, quiet: bool = False, loo: bool = False) -> dict[str, Any]:
    """Run one evaluation; returns the results dict (also written to <run>/results.json).

    ``compare``: an earlier run folder or results.json; the result then holds ``compare`` with
    deltas and ``regressions`` (non-empty = a gated metric got worse beyond its tolerance)."""
    log = (lambda *_: None) if quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    started = time.perf_counter()
    previous = load_results(compare) if compare else None  # fail early on a bad path
    assistant, ds, info = _open(dataset, data_dir, split, backend, log)
    ds.questions = _limit(ds.questions, limit)
    chosen_backend = backend or ("extractive" if ds.kind == "dev" else None)
    log(f"{len(ds.questions)} questions ({ds.name}, split {ds.split}); systems {', '.join(SYSTEMS)}"
        + (f"; answers with {chosen_backend}" if ds.kind == "dev" else ""))
    raw = _run(assistant, ds, chosen_backend, log, loo=loo)
    results: dict[str, Any] = {
        "dataset": ds.name, "kind": ds.kind, "split": ds.split, "limit": limit, "n_questions": len(ds.questions),
        "backend": chosen_backend if ds.kind == "dev" else None,
        "created": datetime.now().isoformat(timespec="seconds"), "commit": _git_commit(),
        "settings": {k: getattr(assistant.settings, k) for k in ("candidates", "dense_weight", "top_k", "embed_backend", "embed_model")},
        "index": info,
    }
    results.update(aggregate(raw["per_question"], raw["embed_latency"]))
    results["per_question"] = raw["per_question"]
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    run_dir = Path(out_dir) if out_dir else RUNS_DIR / f"{stamp}-{ds.name}{'-' + ds.split if ds.kind == 'beir' else ''}"
    if not out_dir and run_dir.exists():  # two runs in one second
        run_dir = run_dir.with_name(f"{run_dir.name}-{os.getpid()}")
    run_dir.mkdir(parents=True, exist_ok=True)
    results["run_dir"] = str(run_dir)
    if previous is not None:
        results["compare"] = globals()["compare"](results, previous)
    results["seconds"] = round(time.perf_counter() - started, 1)
    from evals.report import write_plots, write_report

    results["plots"] = write_plots(results, run_dir) if plots else []
    (run_dir / "results.json").write_text(json.dumps(results, indent=1, default=_json_default), encoding="utf-8")
    (run_dir / "report.md").write_text(write_report(results), encoding="utf-8")
    log(f"run folder: {run_dir}")
    return results


def _json_default(o: Any) -> Any:
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, set):
        return sorted(o)
    return str(o)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="assistant eval", description="Evaluate retrieval (BM25, dense, hybrid side "
                                 "by side) and, on the dev set, answers. Offline and deterministic.")
    ap.add_argument("dataset", nargs="?", default="dev", help="'dev' (default), or a BEIR folder such as scifact-2101 "
                    "(under evals/datasets/ or a path)")
    ap.add_argument("--dataset", dest="dataset_opt", default=None, metavar="DATASET", help="same as the positional argument")
    ap.add_argument("--split", default=None, help="dev: tune|test|all (default all); BEIR: qrels split (default test)")
    ap.add_argument("--backend", default=None, help="answer backend: extractive (default), local, openai or another registered one")
    ap.add_argument("--data-dir", default=None, help="index to use (the dataset's corpus is ingested into it if missing); default: a cache keyed by the corpus hash")
    ap.add_argument("--out-dir", default=None, help="run folder (default evals/runs/<timestamp>-<dataset>)")
    ap.add_argument("--compare", default=None, metavar="RUN", help="earlier run folder or results.json: print deltas; exit 1 on a gated regression")
    ap.add_argument("--limit", type=int, default=None, help="only N questions (round-robin over types): a smoke subset")
    ap.add_argument("--loo", action="store_true", help="also ask every answerable question with its gold work left out "
                    "(leave-one-out: the right outcome is a refusal or a caveat)")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    try:
        results = run_eval(args.dataset_opt or args.dataset, backend=args.backend, data_dir=args.data_dir,
                           out_dir=args.out_dir, compare=args.compare, limit=args.limit, split=args.split,
                           plots=not args.no_plots, quiet=args.quiet, loo=args.loo)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from evals.report import summary_table

    print(summary_table(results))
    if "compare" in results:
        print(format_compare(results["compare"]))
        if results["compare"]["regressions"]:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
