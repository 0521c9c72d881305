"""One table over several evaluation runs: every split side by side, the naive baseline next to
the pipeline (``python -m evals.summary evals/runs/<run> ...``; ``make eval`` prints it last).

Rows: Recall@5 / nDCG@10 of the naive baseline (BM25 + one vector per abstract, RRF) and of the
hybrid pipeline; paraphrase Recall@5 and multi-paper Recall@10 where the split has them; answers
(refused answerable, unanswerable refused or caveated, citation precision, key points, the
baseline's key points), leave-one-out outcomes, and for an LLM backend how often the model declined
and its seconds to the first token and to the whole answer; then per answerable question type the
hedge rate, refusal rate, citation precision and key points, each beside the naive baseline's; the
hedging and the catching by caveat kind (``Answer.caveat_kind``). A column is named by split and backend,
so runs of one split with different backends (``--backend local|extractive|openai``) sit side by side.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from evals.report import fmt


def _get(d: dict[str, Any], *path: str) -> Any:
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


def rows(results: dict[str, Any]) -> dict[str, Any]:
    r = results.get("retrieval", {})
    a = _get(results, "answers", "all") or {}
    out: dict[str, Any] = {"questions": results.get("n_questions")}
    llm = results.get("backend") not in (None, "extractive")  # a model that can decline
    for system in ("baseline", "hybrid"):
        out[f"{system} R@5"] = _get(r, system, "all", "recall@5")
        out[f"{system} nDCG@10"] = _get(r, system, "all", "ndcg@10")
        out[f"{system} paraphrase R@5"] = _get(r, system, "by_type", "paraphrase", "recall@5")
        out[f"{system} multi R@10"] = _get(r, system, "by_type", "multi", "recall@10")
    out.update({
        "answerable refused": a.get("false_refusal_rate"), "answerable caveated": a.get("answerable_caveated_rate"),
        "unanswerable refused or caveated": a.get("unanswerable_refused_or_caveated"),
        "citation precision": a.get("citation_precision"), "key points": a.get("key_point_coverage"),
        "baseline key points": a.get("baseline_key_point_coverage"),
        "leave-one-out refused or caveated": _get(results, "leave_one_out", "refused_or_caveated"),
        "model declined (asks)": a.get("model_declined") if llm else None,
        "leave-one-out model declined": _get(results, "leave_one_out", "model_declined") if llm else None,
        "first token p50 s": _get(a, "latency", "first_token", "p50"),
        "answer p50 s": _get(a, "latency", "total", "p50"),
        "baseline citation precision": a.get("baseline_citation_precision"),
    })
    for kind, v in (a.get("hedged_by_kind") or {}).items():
        out[f"answerable hedged: {kind}"] = v
    for kind, v in (a.get("unanswerable_by_kind") or {}).items():
        out[f"unanswerable caught: {kind}"] = v
    for kind, v in (_get(results, "leave_one_out", "by_kind") or {}).items():
        out[f"leave-one-out caught: {kind}"] = v
    for t, at in (_get(results, "answers", "by_type") or {}).items():
        if t == "unanswerable":
            continue
        out[f"{t}: hedged"] = at.get("answerable_caveated_rate")
        for kind, v in (at.get("hedged_by_kind") or {}).items():
            out[f"{t}: hedged {kind}"] = v
        out[f"{t}: refused"] = at.get("false_refusal_rate")
        out[f"{t}: citation precision"] = at.get("citation_precision")
        out[f"{t}: baseline citation precision"] = at.get("baseline_citation_precision")
        out[f"{t}: key points"] = at.get("key_point_coverage")
        out[f"{t}: baseline key points"] = at.get("baseline_key_point_coverage")
    return out


def table(runs: list[Path]) -> str:
    loaded = []
    for run in runs:
        p = run / "results.json" if run.is_dir() else run
        res = json.loads(p.read_text(encoding="utf-8"))
        name = f"{res['dataset']}{'/' + res['split'] if res.get('kind') == 'beir' else ''}"
        loaded.append((f"{name} ({res['backend']})" if res.get("backend") else name, rows(res)))
    every = list(dict.fromkeys(k for _, r in loaded for k in r))  # per-type rows differ between splits
    keys = [k for k in every if any(_present(r.get(k)) for _, r in loaded)]
    lines = ["| figure | " + " | ".join(name for name, _ in loaded) + " |", "|---" * (len(loaded) + 1) + "|"]
    for k in keys:
        lines.append(f"| {k} | " + " | ".join(fmt(r.get(k)) if r.get(k) is not None else "–" for _, r in loaded) + " |")
    return "\n".join(lines)


def _present(x: Any) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.summary", description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="run folders (or results.json files) of `assistant eval`")
    args = ap.parse_args(argv)
    print(table([Path(r) for r in args.runs]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
