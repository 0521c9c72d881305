"""The hand-written caveat rules measured with and without, on reader-written questions no rule was
written on: does an answer say plainly when the abstract does not state the detail asked, without
hedging the answerable ones?

    python -m evals.caveat_rules --bundled-dir D --scifact-dir S [--answerable 400] [--out RUN.json]

The rule family (engine ``_caveated``): the asked-for item (``assistant/verify/focus.py``,
``settings.caveat.asked_item``: "... describe X but do not state the N asked for"). The figure rule
(a question asking for a number whose answer states none) was measured here too and retired for want
of a gain (docs/learned.md). The questions: every one-fact question and fact
follow-up of ``evals/datasets/questions_written.jsonl`` whose detail its abstract does not state
(``absent``), a seeded sample of ``--answerable`` of the others, and all of ``ab_written.jsonl``'s;
each asked extractively over its own corpus's index (``D``: the bundled corpus, ``S``: SciFact-2101's).
Per variant: absent questions refused or caveated, answerable ones refused, caveated; per writer's
batch, and the paired difference against the shipped rules with a bootstrap 95% interval.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
DATASETS = ROOT / "datasets"
VARIANTS = ("shipped", "no asked item")


def questions(answerable: int, seed: int = 29) -> list[dict[str, Any]]:
    def rows(path: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def fact(r: dict[str, Any]) -> bool:
        return r["shape"] == "fact" or (r["shape"] == "followup" and r.get("followup_shape") == "fact")

    written = [r for r in rows(DATASETS / "questions_written.jsonl") if fact(r)]
    absent = [r for r in written if r.get("absent")]
    others = [r for r in written if not r.get("absent")]
    random.Random(seed).shuffle(others)
    held = [r for r in rows(DATASETS / "ab_written.jsonl") if fact(r)]
    return absent + others[:answerable] + held


def variant(name: str) -> dict[str, Any]:
    """The settings overrides of ``name``."""
    return {"caveat": {"asked_item": name != "no asked item"}}


def run(dirs: dict[str, Path], qs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    from assistant import Assistant
    from assistant.settings import Settings

    out: dict[str, list[dict[str, Any]]] = {}
    for name in VARIANTS:
        overrides = variant(name)
        assistants: dict[str, Any] = {}
        rows = []
        for r in qs:
            corpus = r.get("corpus", "bundled")
            if corpus not in assistants:
                s = Settings.load(data_dir=dirs[corpus])
                s = s.model_copy(update={"caveat": s.caveat.model_copy(update=overrides["caveat"])})
                assistants[corpus] = Assistant(settings=s)
            ans = assistants[corpus].ask(r["question"], history=r.get("history") or [], backend="extractive")
            rows.append({"id": r["id"], "batch": r["id"].split("-")[0], "absent": bool(r.get("absent")),
                         "refused": ans.refused, "caveat": ans.caveat_kind if ans.caveat else None})
        out[name] = rows
        print(f"{name}: {len(rows)} answers", file=sys.stderr, flush=True)
    return out


def figures(rows: list[dict[str, Any]]) -> dict[str, float]:
    absent = [r for r in rows if r["absent"]]
    ok = [r for r in rows if not r["absent"]]
    return {"absent": len(absent), "absent_refused_or_caveated": round(np.mean([r["refused"] or bool(r["caveat"]) for r in absent]), 3) if absent else None,
            "answerable": len(ok), "answerable_refused": round(np.mean([r["refused"] for r in ok]), 3) if ok else None,
            "answerable_caveated": round(np.mean([bool(r["caveat"]) and not r["refused"] for r in ok]), 3) if ok else None}


def paired(a: list[dict[str, Any]], b: list[dict[str, Any]], absent: bool, seed: int = 29) -> dict[str, Any]:
    """Variant ``b`` minus ``a`` on the share hedged (refused or caveated), with a bootstrap 95% interval."""
    x = np.array([float(r["refused"] or bool(r["caveat"])) for r in a if r["absent"] == absent])
    y = np.array([float(r["refused"] or bool(r["caveat"])) for r in b if r["absent"] == absent])
    rng = np.random.default_rng(seed)
    boots = [float((y[i] - x[i]).mean()) for i in (rng.integers(0, len(x), len(x)) for _ in range(2000))]
    return {"difference": round(float((y - x).mean()), 3), "ci95": [round(float(np.percentile(boots, q)), 3) for q in (2.5, 97.5)],
            "questions_changed": int((x != y).sum())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.caveat_rules", description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundled-dir", type=Path, default=ROOT / "runs" / "_cache" / "sentences-bundled")
    ap.add_argument("--scifact-dir", type=Path, default=ROOT / "runs" / "_cache" / "scifact-fit")
    ap.add_argument("--answerable", type=int, default=400)
    ap.add_argument("--out", type=Path, default=None, help="also write every answer's outcome here (JSON)")
    args = ap.parse_args(argv)
    runs = run({"bundled": args.bundled_dir, "scifact": args.scifact_dir}, questions(args.answerable))
    report: dict[str, Any] = {}
    for name, rows in runs.items():
        report[name] = {"all": figures(rows), **{b: figures([r for r in rows if r["batch"] == b])
                                                 for b in sorted({r["batch"] for r in rows})}}
        if name != "shipped":
            report[name]["against_shipped"] = {"absent_hedged": paired(runs["shipped"], rows, True),
                                               "answerable_hedged": paired(runs["shipped"], rows, False)}
    print(json.dumps(report, indent=1))
    if args.out:
        args.out.write_text(json.dumps(runs) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
