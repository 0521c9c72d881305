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

from evals.answers import agg_answers, agg_leave_one_out, answer_question
from evals.data import (
    CACHE_DIR,
    RUNS_DIR,
    Dataset,
    Question,
    corpus_hash,
    load_beir,
    load_dev,
    resolve_anchors,
    resolve_path,
)
from evals.lists_metrics import agg_lists, format_lists, list_record
from evals.metrics import K_VALUES, mean, percentile, retrieval_scores

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
def _git_commit() -> str | None:
    try:  # read-only
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def limit_questions(questions: list[Question], limit: int | None) -> list[Question]:
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


def open(dataset: str, data_dir: str | Path | None, split: str | None, backend: str | None, log: Any) -> tuple[Any, Dataset, dict[str, Any]]:
    from assistant import Assistant
    from assistant.settings import DEFAULT_CORPUS

    kind, path = resolve_path(dataset)
    name = "dev" if kind == "dev" and path.name == "dev.jsonl" else path.stem if kind == "dev" else path.name
    chash, _ = corpus_hash(kind, path)
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


def _run(assistant: Any, ds: Dataset, backend: str | None, log: Any, loo: bool = False) -> dict[str, Any]:
    from assistant.question.conversation import standalone_question

    docs = assistant.retriever.docs()
    by_id = {q.id: q for q in ds.questions}
    all_dev = {r["id"]: r for r in load_dev()} if ds.kind == "dev" else {}
    with_answers = ds.kind == "dev"
    # warm up: BM25 index, Chroma, ONNX session
    for mode in SYSTEMS:
        assistant.search("warm up query", k=SEARCH_K, mode=mode)
    if backend == "local":  # the page's own warm-up (load, the shape reader's and the answer's prompts),
        from assistant.backends import local  # so the first question's timings are not a cold read

        local.warm(assistant.settings).join()
    answers: dict[str, Any] = {}
    per_q: list[dict[str, Any]] = []
    embed_latency: list[float] = []
    k_answer = assistant.settings.top_k
    for i, q in enumerate(ds.questions, 1):
        history: list[dict[str, str]] = []
        if q.previous:
            prev = answers.get(q.previous)
            prev_text = by_id[q.previous].text if q.previous in by_id else all_dev.get(q.previous, {}).get("question", "")
            prev_text = prev_text or q.raw.get("previous_question", "")  # a derived follow-up carries it
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
            answers[q.id] = answer_question(assistant, q, query, history, backend, k_answer, docs, rec, loo=loo)
            rec.update(list_record(assistant, q, answers[q.id], docs))  # shape + list metrics (evals/lists.py)
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
        if key != "n" and isinstance(v, float | int):
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
        out["answers"] = {"all": agg_answers(recs), "by_type": {t: agg_answers([r for r in recs if r["type"] == t]) for t in types}}
    if lists := agg_lists(recs):
        out["lists"] = lists
    held = agg_leave_one_out(recs)
    if held:
        out["leave_one_out"] = held
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
    assistant, ds, info = open(dataset, data_dir, split, backend, log)
    ds.questions = limit_questions(ds.questions, limit)
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
    if (args.dataset_opt or args.dataset) == "misattribution":  # the verifier's set: its own table (evals/misattribution.py)
        from evals.misattribution import main as misattribution_main

        return misattribution_main(["eval", *(["--limit", str(args.limit)] if args.limit else []),
                                    *(["--out-dir", args.out_dir] if args.out_dir else [])])
    try:
        results = run_eval(args.dataset_opt or args.dataset, backend=args.backend, data_dir=args.data_dir,
                           out_dir=args.out_dir, compare=args.compare, limit=args.limit, split=args.split,
                           plots=not args.no_plots, quiet=args.quiet, loo=args.loo)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from evals.report import summary_table

    print(summary_table(results))
    if results.get("lists"):
        print(format_lists(results["lists"]))
    if "compare" in results:
        print(format_compare(results["compare"]))
        if results["compare"]["regressions"]:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
