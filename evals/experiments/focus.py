"""What the asked-for-item check (``assistant.verify.focus``) would change, read from eval runs.

``python -m evals.experiments.focus RUN_DIR [RUN_DIR ...]`` reads each run's ``results.json`` (per-question
records hold the answer's supported sentences, ``said``, and the leave-one-out answer) and counts,
among the answers shown plainly (neither refused nor caveated), how many the check would caveat:
per answerable question type (each one a new hedge), leave-one-out and unanswerable (each one a
gain). No constant is fitted: the check has none. The shipped figures come from
``assistant eval`` with the check in the engine; this is the quick look at runs made before it.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from assistant.verify.focus import unstated_focus


def fires(question: str, said: str) -> bool:
    return unstated_focus(question, said) is not None


def tally(results: dict[str, Any], show: int = 0) -> dict[str, dict[str, int]]:
    """{group: {n, plain, caught}}; groups: answerable types, ``loo``, ``unanswerable``."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"n": 0, "plain": 0, "caught": 0})
    shown: list[str] = []
    for rec in results.get("per_question", []):
        q = rec["question"]  # as the engine reads it (a follow-up: its own words, turn.asked)
        for group, a in ((rec["type"], rec.get("answer")), ("loo", rec.get("loo"))):
            if not a:
                continue
            row = out["unanswerable" if group == "unanswerable" else group]
            row["n"] += 1
            if a.get("refused") or a.get("caveated"):
                continue
            row["plain"] += 1
            if "said" in a and fires(q, a["said"]):
                row["caught"] += 1
                if len(shown) < show:
                    shown.append(f"[{group}] {q}\n    -> {a['said'][:200]}")
    for s in shown:
        print(s)
    return dict(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--show", type=int, default=0, help="print up to N caught answers")
    args = ap.parse_args(argv)
    for run in args.runs:
        path = run / "results.json" if run.is_dir() else run
        res = json.loads(path.read_text(encoding="utf-8"))
        print(f"{path}: {res.get('dataset')}")
        for group, row in sorted(tally(res, args.show).items()):
            print(f"  {group:14s} n {row['n']:4d}  plain {row['plain']:4d}  caught {row['caught']:4d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
