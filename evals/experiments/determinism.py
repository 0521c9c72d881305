"""Are the extractive answers reproducible? (session 14, helper O, #21; tuning sets only)

The extractive path has no model, so one question on one corpus must get one answer. This asks
the tuning questions of ``--sets`` (never a locked split; ``shapes_written``'s hold-out batches
SH* / SQ* are left out) with ``Assistant.ask`` (backend ``extractive``) in fresh subprocesses and
diffs what they answered: the text, the cited doc ids, the list items, the shape, the caveat kind.

    python -m evals.experiments.determinism seeds --data-dir D [--seeds 1,2] [--sets ...] [--dev-sample 30]
        two runs on the same corpus, each with another PYTHONHASHSEED (set / dict-of-str order)
    python -m evals.experiments.determinism copies --data-dir D
        two runs with one seed, each on a fresh copy of the corpus (caches, Chroma's index read anew)
    python -m evals.experiments.determinism run --data-dir D --out F
        one run in this process (what ``seeds`` / ``copies`` start), one JSON line per question

Follow-ups are asked after their previous question's answer, as ``assistant eval`` asks them.
Every subprocess runs under ``nice``; the report lists each question that differs and how.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATASETS = ROOT / "evals" / "datasets"
DEFAULT_SETS = ["overview_written", "lists_curated_written", "lists_written", "shapes_written",
                "lists_followups_written", "followups_meaning_written", "dev"]
HOLDOUT_PREFIXES = ("SH", "SQ")  # shapes_written's hold-out batches: measured once by their owners, never here
FIELDS = ["text", "cited", "items", "shape", "caveat_kind", "refused"]


def questions(sets: list[str], dev_sample: int, seed: int = 14) -> list[dict[str, Any]]:
    """The rows asked: each set's rows (tuning files only), dev sampled (its follow-ups with their previous)."""
    from evals.data import load_for_tuning

    out: list[dict[str, Any]] = []
    for name in sets:
        rows = [dict(r, set=name) for r in load_for_tuning(DATASETS / f"{name}.jsonl")]
        rows = [r for r in rows if not str(r["id"]).startswith(HOLDOUT_PREFIXES)] if name == "shapes_written" else rows
        if name == "dev" and dev_sample and dev_sample < len(rows):
            picked = set(random.Random(seed).sample([r["id"] for r in rows], dev_sample))
            picked |= {r["previous"] for r in rows if r["id"] in picked and r.get("previous")}
            rows = [r for r in rows if r["id"] in picked]
        out += rows
    return out


def signature(ans: Any) -> dict[str, Any]:
    """What must not change between two runs of one question."""
    return {"text": ans.text, "cited": [c.doc_id for c in ans.citations],
            "items": [[i.doc_id, i.n, i.cited, i.text] for i in ans.items],
            "shape": ans.shape, "caveat_kind": ans.caveat_kind, "refused": bool(ans.refused)}


def run(data_dir: str, sets: list[str], dev_sample: int, out: Path) -> None:
    from assistant.core import Assistant

    assistant = Assistant(data_dir=data_dir)
    rows = questions(sets, dev_sample)
    by_key = {(r["set"], r["id"]): r for r in rows}
    answers: dict[tuple[str, str], Any] = {}
    with out.open("w", encoding="utf-8") as f:
        for r in rows:
            history: list[dict[str, str]] = []
            if r.get("previous"):
                prev_key = (r["set"], r["previous"])
                prev = answers.get(prev_key)
                if prev is None and prev_key in by_key:
                    prev = answers[prev_key] = assistant.ask(by_key[prev_key]["question"], backend="extractive")
                prev_q = by_key[prev_key]["question"] if prev_key in by_key else r.get("previous_question", "")
                history = [{"role": "user", "content": prev_q},
                           {"role": "assistant", "content": prev.text if prev is not None else ""}]
            ans = answers[(r["set"], r["id"])] = assistant.ask(r["question"], history=history, backend="extractive")
            f.write(json.dumps({"set": r["set"], "id": r["id"], "question": r["question"], **signature(ans)}) + "\n")


def _subprocess_run(data_dir: str, sets: list[str], dev_sample: int, out: Path, hash_seed: str) -> None:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed, HF_HUB_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
    cmd = ["nice", "-n", "5", sys.executable, "-m", "evals.experiments.determinism", "run", "--data-dir", data_dir,
           "--sets", ",".join(sets), "--dev-sample", str(dev_sample), "--out", str(out)]
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)


def diff(a: Path, b: Path) -> dict[str, Any]:
    """Per question, the fields that differ between two runs."""
    ra = {(r["set"], r["id"]): r for r in map(json.loads, a.read_text(encoding="utf-8").splitlines())}
    rb = {(r["set"], r["id"]): r for r in map(json.loads, b.read_text(encoding="utf-8").splitlines())}
    differ = []
    for key in ra:
        fields = [f for f in FIELDS if ra[key].get(f) != rb.get(key, {}).get(f)]
        if fields:
            differ.append({"set": key[0], "id": key[1], "question": ra[key]["question"], "fields": fields,
                           "a": {f: ra[key].get(f) for f in fields}, "b": {f: rb.get(key, {}).get(f) for f in fields}})
    per_set: dict[str, list[int]] = {}
    for key in ra:
        per_set.setdefault(key[0], [0, 0])[0] += 1
    for d in differ:
        per_set[d["set"]][1] += 1
    return {"questions": len(ra), "differ": len(differ), "per_set": {s: {"asked": n, "differ": k} for s, (n, k) in per_set.items()},
            "rows": differ}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.experiments.determinism", description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["run", "seeds", "copies", "diff"])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--sets", default=",".join(DEFAULT_SETS))
    ap.add_argument("--dev-sample", type=int, default=30)
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--out", default="")
    ap.add_argument("--work", default="", help="folder for the runs' files (default: a temporary one)")
    ap.add_argument("files", nargs="*", help="diff: two run files")
    args = ap.parse_args(argv)
    sets = [s for s in args.sets.split(",") if s]
    if any(s.startswith("locked") for s in sets):
        raise SystemExit("the locked splits are the coordinator's judge: never asked here")
    if args.mode == "run":
        run(args.data_dir, sets, args.dev_sample, Path(args.out))
        return 0
    if args.mode == "diff":
        report = diff(Path(args.files[0]), Path(args.files[1]))
    else:
        work = Path(args.work or tempfile.mkdtemp(prefix="determinism-"))
        work.mkdir(parents=True, exist_ok=True)
        seeds = args.seeds.split(",")
        runs = [work / f"run{i}.jsonl" for i in range(2)]
        for i, out in enumerate(runs):
            if args.mode == "seeds":
                _subprocess_run(args.data_dir, sets, args.dev_sample, out, seeds[i])
            else:  # a fresh copy of the corpus per run, one hash seed
                copy = work / f"corpus{i}"
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(args.data_dir, copy)
                try:
                    _subprocess_run(str(copy), sets, args.dev_sample, out, seeds[0])
                finally:
                    shutil.rmtree(copy, ignore_errors=True)
        report = diff(*runs)
        report.update(mode=args.mode, work=str(work))
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=1))
    for d in report["rows"]:
        print(f"{d['set']} {d['id']} {d['fields']}: {d['question']}")
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 1 if report["differ"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
