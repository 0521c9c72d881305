"""Answer quality on the dev set: refusal calibration, citation precision, key points, latency.

Usage: python -m evals.answer_quality [--split tune|test|all] [--backend extractive]
                                      [--data-dir DIR] [--limit N] [--show] [--json FILE]

Runs ``Assistant.ask`` on every question of the split (follow-ups get the previous question and
our answer to it as history) and prints:
- false-refusal rate on answerable questions;
- refusal recall on unanswerable ones, all and adjacent (those with a ``near_anchor``: they sit
  next to a real abstract that lacks the asked fact);
- citation precision: share of cited abstracts that hold a gold anchor (answered questions);
- key-point coverage: share of key points found in the answer text (answered questions);
- follow-up retrieval hit rate: follow-ups whose retrieved abstracts include a gold one;
- mean and p95 latency per answer.
The refusal threshold in ``assistant.evidence`` was chosen on ``--split tune`` only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "evals" / "datasets" / "dev.jsonl"


def norm(text: str) -> str:
    return " ".join(text.split()).lower()


def load(split: str, path: Path = DEV) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_id = {r["id"]: r for r in rows}
    return [r for r in rows if split == "all" or r["split"] == split], by_id


def is_gold(text: str, row: dict[str, Any]) -> bool:
    return any(norm(a) in norm(text) for a in row.get("gold_anchors", []))


def history_for(row: dict[str, Any], by_id: dict[str, dict[str, Any]], answers: dict[str, Any],
                assistant: Any, backend: str | None) -> list[dict[str, str]]:
    prev = by_id.get(row.get("previous") or "")
    if prev is None:
        return []
    if prev["id"] not in answers:
        answers[prev["id"]] = assistant.ask(prev["question"], backend=backend)
    return [{"role": "user", "content": prev["question"]}, {"role": "assistant", "content": answers[prev["id"]].text}]


def evaluate(assistant: Any, rows: list[dict[str, Any]], by_id: dict[str, dict[str, Any]],
             backend: str | None = None) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    records = []
    for row in rows:
        history = history_for(row, by_id, answers, assistant, backend)
        t = time.perf_counter()
        ans = assistant.ask(row["question"], history=history, backend=backend)
        latency = time.perf_counter() - t
        answers[row["id"]] = ans
        rec: dict[str, Any] = {"id": row["id"], "type": row["type"], "refused": ans.refused, "latency": latency,
                               "answerable": row["type"] != "unanswerable", "adjacent": "near_anchor" in row,
                               "text": ans.text, "fallback": ans.fallback_reason}
        if rec["answerable"] and not ans.refused:
            cited = [is_gold(c.text, row) for c in ans.citations]
            rec["citation_precision"] = sum(cited) / len(cited) if cited else 0.0
            points = row.get("key_points") or []
            rec["key_points"] = sum(norm(p) in norm(ans.text) for p in points) / len(points) if points else None
        if row.get("previous"):
            query = ans.standalone_question or row["question"]
            rec["followup_hit"] = any(is_gold(h.text, row) for h in assistant.search(query, k=assistant.settings.top_k))
        records.append(rec)
    return {"summary": summarize(records), "records": records}


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in records if r["answerable"]]
    unanswerable = [r for r in records if not r["answerable"]]
    adjacent = [r for r in unanswerable if r["adjacent"]]
    precision = [r["citation_precision"] for r in answerable if "citation_precision" in r]
    points = [r["key_points"] for r in answerable if r.get("key_points") is not None]
    follow = [r["followup_hit"] for r in records if "followup_hit" in r]
    latency = sorted(r["latency"] for r in records)
    return {
        "answerable_n": len(answerable),
        "false_refusal_rate": _rate(sum(r["refused"] for r in answerable), len(answerable)),
        "unanswerable_n": len(unanswerable),
        "refusal_recall": _rate(sum(r["refused"] for r in unanswerable), len(unanswerable)),
        "adjacent_n": len(adjacent),
        "refusal_recall_adjacent": _rate(sum(r["refused"] for r in adjacent), len(adjacent)),
        "citation_precision": round(statistics.mean(precision), 3) if precision else None,
        "key_point_coverage": round(statistics.mean(points), 3) if points else None,
        "followup_retrieval_hit": _rate(sum(follow), len(follow)),
        "mean_latency_s": round(statistics.mean(latency), 3) if latency else None,
        "p95_latency_s": round(latency[int(0.95 * (len(latency) - 1))], 3) if latency else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.answer_quality", description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=["tune", "test", "all"], default="test")
    parser.add_argument("--backend", default="extractive")
    parser.add_argument("--data-dir", type=Path, default=None, help="an ingested index (default: settings')")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--show", action="store_true", help="print each false refusal / missed refusal")
    parser.add_argument("--json", type=Path, default=None, help="write per-question records here")
    args = parser.parse_args(argv)

    from assistant import Assistant

    assistant = Assistant(data_dir=args.data_dir, backend=args.backend)
    if assistant.store.counts()["abstracts"] == 0:
        print("index is empty: ingesting the bundled corpus (a few minutes) ...", file=sys.stderr)
        assistant.ingest()
    rows, by_id = load(args.split)
    rows = rows[: args.limit] if args.limit else rows
    result = evaluate(assistant, rows, by_id, backend=args.backend)
    if args.show:
        for r in result["records"]:
            wrong = r["refused"] == r["answerable"] or r.get("citation_precision", 1.0) < 1.0
            if wrong:
                print(f"{r['id']} {r['type']:12} refused={r['refused']} precision={r.get('citation_precision')}: "
                      f"{r['text'][:160]!r}")
    print(f"split={args.split} backend={args.backend}")
    for key, value in result["summary"].items():
        print(f"  {key:26} {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
