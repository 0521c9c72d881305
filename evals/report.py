"""report.md, the console table and the PNG plots of an evaluation run."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

RETRIEVAL_COLS = ("recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10")
ANSWER_ROWS = (
    ("citation_validity", "Citation validity (every [n] resolves)"),
    ("citation_precision", "Citation precision (cited abstracts among gold)"),
    ("citation_support_rate", "Citation support rate (supported sentences)"),
    ("key_point_coverage", "Key-point coverage"),
    ("refusal_precision", "Refusal precision"),
    ("refusal_recall", "Refusal recall (unanswerable refused)"),
    ("false_refusal_rate", "False-refusal rate (answerable refused)"),
    ("answerable_caveated_rate", "Answerable questions answered with a caveat"),
    ("unanswerable_refused_or_caveated", "Unanswerable refused or caveated"),
    ("baseline_key_point_coverage", "Key points of the naive baseline (2 closest sentences of its top abstract)"),
    ("baseline_citation_precision", "Citation precision of the naive baseline (its top abstract cited)"),
    ("model_declined", "Model declined (NOT IN SOURCES: the evidence quoted under a caveat)"),
)


def fmt(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def summary_table(results: dict[str, Any]) -> str:
    """A plain-text side-by-side table for the console."""
    lines = [f"{results['dataset']} ({results['split']}), {results['n_questions']} questions"]
    head = f"{'system':8s} " + " ".join(f"{c:>9s}" for c in RETRIEVAL_COLS) + f" {'p50 ms':>8s} {'p95 ms':>8s}"
    lines.append(head)
    for mode, agg in results["retrieval"].items():
        a = agg["all"]
        lines.append(f"{mode:8s} " + " ".join(f"{fmt(a.get(c)):>9s}" for c in RETRIEVAL_COLS)
                     + f" {agg['latency']['p50_ms']:8.1f} {agg['latency']['p95_ms']:8.1f}")
    qe = results.get("query_embedding", {})
    lines.append(f"one query embedding: p50 {qe.get('p50_ms', float('nan')):.1f} ms")
    ans = (results.get("answers") or {}).get("all")
    if ans:
        lines.append(f"answers ({results.get('backend')}): " + ", ".join(f"{k} {fmt(ans.get(k))}" for k, _ in ANSWER_ROWS))
    for t, row in per_type_rows(results):
        lines.append(f"  {t:12s} " + ", ".join(f"{k} {v}" for k, v in row.items()))
    loo = results.get("leave_one_out")
    if loo:
        lines.append("leave-one-out (gold left out): " + ", ".join(f"{k} {fmt(v)}" for k, v in loo.items() if not isinstance(v, dict)))
    lines += [f"{label}: {text}" for label, text in kind_rows(results)]
    lines.append(f"run folder: {results.get('run_dir')}")
    return "\n".join(lines)


def kinds(shares: dict[str, float] | None) -> str:
    """ "weak_match 0.035, asked_item 0.005": each caveat kind's share (``evals.answers.by_kind``)."""
    return ", ".join(f"{k} {fmt(v)}" for k, v in sorted((shares or {}).items(), key=lambda kv: -kv[1])) or "none"


def kind_rows(results: dict[str, Any]) -> list[tuple[str, str]]:
    """Which caveat does the hedging and which does the catching (``Answer.caveat_kind``): answerable
    hedged, unanswerable and leave-one-out refused or caveated, by kind, overall and per type."""
    ans, loo = results.get("answers") or {}, results.get("leave_one_out") or {}
    out = []
    if "hedged_by_kind" in (ans.get("all") or {}):
        a = ans["all"]
        out.append(("answerable hedged by kind", kinds(a["hedged_by_kind"])
                    + f" (source [1] right {fmt(a.get('hedged_first_right'))}, wrong {fmt(a.get('hedged_first_wrong'))})"))
        out += [(f"  {t} hedged by kind", kinds(a.get("hedged_by_kind"))) for t, a in ans.get("by_type", {}).items()
                if t != "unanswerable" and a.get("hedged_by_kind")]
        if ans["all"].get("unanswerable_by_kind") is not None and (ans.get("by_type") or {}).get("unanswerable"):
            out.append(("unanswerable caught by kind", kinds(ans["all"]["unanswerable_by_kind"])))
    if "by_kind" in loo:
        out.append(("leave-one-out caught by kind", kinds(loo["by_kind"])))
        out += [(f"  {t} leave-one-out caught by kind", kinds(v.get("by_kind"))) for t, v in (loo.get("by_type") or {}).items()]
    return out


PER_TYPE = (("answerable_caveated_rate", None, "hedged"), ("false_refusal_rate", None, "refused"),
            ("citation_precision", "baseline_citation_precision", "citation precision (baseline)"),
            ("key_point_coverage", "baseline_key_point_coverage", "key points (baseline)"))


def per_type_rows(results: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    """Per answerable question type: hedge rate, refusal rate, citation precision and key points,
    the naive baseline's beside the last two (it never hedges or refuses)."""
    by_type = (results.get("answers") or {}).get("by_type") or {}
    out = []
    for t, a in by_type.items():
        if t == "unanswerable":
            continue
        row = {"n": str(a.get("n"))}
        for key, base, label in PER_TYPE:
            row[label] = fmt(a.get(key)) + (f" ({fmt(a.get(base))})" if base else "")
        out.append((t, row))
    return out


def write_report(results: dict[str, Any]) -> str:
    r = results
    lines = [f"# Evaluation: {r['dataset']} ({r['split']})", "",
             f"{r['n_questions']} questions{' (limit ' + str(r['limit']) + ')' if r.get('limit') else ''}; "
             f"created {r['created']}; commit {r.get('commit') or '?'}; {r.get('seconds', '?')} s.", "",
             f"Settings: {', '.join(f'{k}={v}' for k, v in r['settings'].items())}. Index: `{r['index']['data_dir']}`.", "",
             "## Retrieval (one result per work)", ""]
    rows = []
    for mode, agg in r["retrieval"].items():
        a = agg["all"]
        rows.append([mode] + [fmt(a.get(c)) for c in RETRIEVAL_COLS] + [f"{agg['latency']['p50_ms']:.1f}", f"{agg['latency']['p95_ms']:.1f}",
                                                                      fmt(agg["latency"]["p50_over_embedding"], 2)])
    lines += _table(["system", *RETRIEVAL_COLS, "p50 ms", "p95 ms", "p50 / query embedding"], rows)
    qe = r.get("query_embedding", {})
    lines += ["", f"One query embedding: p50 {qe.get('p50_ms', float('nan')):.1f} ms, p95 {qe.get('p95_ms', float('nan')):.1f} ms.", ""]
    types = list(next(iter(r["retrieval"].values()))["by_type"])
    if len(types) > 1:
        lines += ["### Recall@5 / nDCG@10 per question type", ""]
        rows = []
        for t in types:
            n = next(iter(r["retrieval"].values()))["by_type"][t]["n"]
            if not n:
                continue
            rows.append([t, str(n)] + [f"{fmt(r['retrieval'][m]['by_type'][t]['recall@5'])} / {fmt(r['retrieval'][m]['by_type'][t]['ndcg@10'])}"
                                       for m in r["retrieval"]])
        lines += _table(["type", "n", *r["retrieval"]], rows) + [""]
    ans = r.get("answers")
    if ans:
        a = ans["all"]
        lines += [f"## Answers ({r.get('backend')})", ""]
        lines += _table(["metric", "all", *[t for t in ans["by_type"]]],
                        [[label, fmt(a.get(key)), *[fmt(ans["by_type"][t].get(key)) for t in ans["by_type"]]] for key, label in ANSWER_ROWS])
        typed = per_type_rows(r)
        if typed:
            lines += ["", "### Answerable questions per type, beside the naive baseline (in brackets)", ""]
            lines += _table(["type", *typed[0][1]], [[t, *row.values()] for t, row in typed])
        if kr := kind_rows(r):
            lines += ["", "### Caveats by kind (`Answer.caveat_kind`: which caveat hedges, which catches)", ""]
            lines += _table(["outcome", "share of the questions, by kind"], [[k.strip(), v] for k, v in kr])
        lines += ["", "Latency per stage (s):", ""]
        lines += _table(["stage", "p50", "p95"], [[s, fmt(v["p50"]), fmt(v["p95"])] for s, v in a["latency"].items()])
        tok = a["tokens"]["total"]
        lines += ["", "Tokens: " + (", ".join(f"{k} {int(v)}" for k, v in tok.items()) if tok else "none (no LLM call)"), ""]
    cmp = r.get("compare")
    if cmp:
        lines += ["## Compared with an earlier run", "", f"Against `{cmp['against']}`.", ""]
        lines += [f"- note: {n}" for n in cmp["notes"]]
        lines += _table(["metric", "delta", "gated regression"],
                        [[k, f"{d:+.4f}", "**yes**" if k in {x['metric'] for x in cmp['regressions']} else ""]
                         for k, d in sorted(cmp["deltas"].items())])
        lines.append("")
    if r.get("plots"):
        lines += ["## Plots", ""] + [f"![{Path(p).stem}]({Path(p).name})" for p in r["plots"]] + [""]
    if r["index"].get("problems"):
        lines += ["## Dataset problems", ""] + [f"- {p}" for p in r["index"]["problems"]] + [""]
    return "\n".join(lines)


def write_plots(results: dict[str, Any], run_dir: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return [_plot_recall(results, run_dir, plt), _plot_latency(results, run_dir, plt),
            _plot_per_type(results, run_dir, plt)]


def _plot_recall(results: dict[str, Any], run_dir: Path, plt: Any) -> str:
    """Recall@k curves, one per system."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for mode, agg in results["retrieval"].items():
        curve = agg["all"].get("curve") or []
        if curve:
            ax.plot(range(1, len(curve) + 1), curve, marker="o", label=mode)
    ax.set_xlabel("k")
    ax.set_ylabel("Recall@k")
    ax.set_title(f"Recall@k — {results['dataset']} ({results['split']})")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, run_dir / "recall_at_k.png", plt)


def _plot_latency(results: dict[str, Any], run_dir: Path, plt: Any) -> str:
    """Latency histograms: search per system; answer stages (dev) on their own panel."""
    retr = results["retrieval"]
    per_q = results["per_question"]
    stages = sorted({k for q in per_q if "answer" in q for k in q["answer"]["timings"]})
    fig, axes = plt.subplots(1, 2 if stages else 1, figsize=(12 if stages else 6, 4), squeeze=False)
    _hist(axes[0][0], {m: [q["systems"][m]["latency_s"] * 1e3 for q in per_q] for m in retr},
          "search latency (ms)", "Search latency per question")
    if stages:
        _hist(axes[0][1], {s: [q["answer"]["timings"][s] * 1e3 for q in per_q if s in q.get("answer", {}).get("timings", {})] for s in stages},
              "answer stage latency (ms)", f"Answer latency per stage ({results.get('backend')})")
    return _save(fig, run_dir / "latency.png", plt)


def _plot_per_type(results: dict[str, Any], run_dir: Path, plt: Any) -> str:
    """Per-question-type bars: Recall@5 per system, and (dev) the answer metrics beside it."""
    retr = results["retrieval"]
    types = [t for t, v in next(iter(retr.values()))["by_type"].items() if v["n"]]
    ans = results.get("answers")
    n_panels = 2 if ans else 1
    fig, axes = plt.subplots(1, n_panels, figsize=(6 * n_panels, 4), squeeze=False)
    ax = axes[0][0]
    width = 0.8 / max(len(retr), 1)
    for j, (mode, agg) in enumerate(retr.items()):
        vals = [agg["by_type"][t]["recall@5"] for t in types]
        ax.bar([i + j * width for i in range(len(types))], vals, width=width, label=mode)
    ax.set_xticks([i + width * (len(retr) - 1) / 2 for i in range(len(types))], types, rotation=20)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("Recall@5")
    ax.set_title("Retrieval per question type")
    ax.legend(fontsize=8, ncol=len(retr), loc="upper center")
    if ans:
        _answer_bars(axes[0][1], ans, results.get("backend"))
    return _save(fig, run_dir / "per_type.png", plt)


def _answer_bars(ax: Any, ans: dict[str, Any], backend: str | None) -> None:
    atypes = list(ans["by_type"])
    keys = [("key_point_coverage", "key points"), ("citation_precision", "citation precision"), ("refusal_recall", "refusal recall")]
    width = 0.8 / len(keys)
    for j, (key, label) in enumerate(keys):
        vals = [ans["by_type"][t].get(key) for t in atypes]
        vals = [0.0 if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in vals]
        ax.bar([i + j * width for i in range(len(atypes))], vals, width=width, label=label)
    ax.set_xticks([i + width for i in range(len(atypes))], atypes, rotation=20)
    ax.set_ylim(0, 1.15)
    ax.set_title(f"Answers per question type ({backend})")
    ax.legend(fontsize=8, ncol=len(keys), loc="upper center")


def _hist(ax: Any, series: dict[str, list[float]], xlabel: str, title: str) -> None:
    """Overlaid histograms on log-spaced bins (latencies span orders of magnitude)."""
    vals = [v for vs in series.values() for v in vs if v > 0]
    if not vals:
        return
    lo, hi = min(vals), max(vals)
    hi = hi * 1.01 if hi > lo else lo * 2
    bins = [lo * (hi / lo) ** (i / 30) for i in range(31)]
    for name, vs in series.items():
        ax.hist([v for v in vs if v > 0], bins=bins, alpha=0.5, label=name)
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("questions")
    ax.set_title(title)
    ax.legend(fontsize=8)


def _save(fig: Any, path: Path, plt: Any) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return str(path)
