"""The hand-written caveat rules measured with and without, on reader-written questions no rule was
written on: does an answer say plainly when the abstract does not state the detail asked, without
hedging the answerable ones?

    python -m evals.caveat_rules --bundled-dir D --scifact-dir S [--answerable 400] [--out RUN.json]
    python -m evals.caveat_rules --declines [--answerable 160] ...   # the local model's decline, heard or not

The rule family (engine ``_caveated``): the asked-for item (``assistant/verify/focus.py``,
``settings.caveat.asked_item``: "... describe X but do not state the N asked for"). The figure rule
(a question asking for a number whose answer states none) was measured here too and retired for want
of a gain (docs/learned.md). The questions: every one-fact question and fact
follow-up of ``evals/datasets/questions_written.jsonl`` whose detail its abstract does not state
(``absent``), a seeded sample of ``--answerable`` of the others, and all of ``ab_written.jsonl``'s;
each asked extractively over its own corpus's index (``D``: the bundled corpus, ``S``: SciFact-2101's).
Per variant: absent questions refused or caveated, answerable ones refused, caveated; per writer's
batch, and the paired difference against the shipped rules with a bootstrap 95% interval.

``--declines`` measures the default local model's NOT IN SOURCES the same way: each question asked
with ``backend="local"`` as shipped (every decline heard: extraction's sentences under "the model
found no direct answer") and extractively; "decline not heard" is the local answer where the model
did not decline and extraction's where it did (what ``settings.prompts.decline_relevance`` = 0 gives
on a plain answer: engine ``_model_declined``). Between the two, ``settings.prompts.decline_relevance``:
the decline heard only when the decision's relevance is below a bar, chosen by 5-fold CV (folds by
question) to minimise ``DECLINE_WEIGHT`` x absent questions left unhedged + answerable ones hedged
(the weight of ``evals/declines.py``), on the writers' batches only: ``ab_written.jsonl``'s questions
are held out of the fit and reported at its bar; ``--from RUN.json`` refits from a saved run, asking nothing (``make fit``:
``--from evals/fits/declines_written_cache.jsonl --fit-out evals/fits/declines_written.json``).
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


def _fact(r: dict[str, Any]) -> bool:
    return r["shape"] == "fact" or (r["shape"] == "followup" and r.get("followup_shape") == "fact")


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def questions(answerable: int, seed: int = 29) -> list[dict[str, Any]]:
    written = [r for r in _rows(DATASETS / "questions_written.jsonl") if _fact(r)]
    absent = [r for r in written if r.get("absent")]
    others = [r for r in written if not r.get("absent")]
    random.Random(seed).shuffle(others)
    held = [r for r in _rows(DATASETS / "ab_written.jsonl") if _fact(r)]
    return absent + others[:answerable] + held


def variant(name: str) -> dict[str, Any]:
    """The settings overrides of ``name``."""
    return {"caveat": {"asked_item": name != "no asked item"}}


def held_ids() -> set[str]:
    """The ids of ``ab_written.jsonl``: asked and reported by ``--declines``, never read by its fit."""
    return {r["id"] for r in _rows(DATASETS / "ab_written.jsonl")}


DECLINE_WEIGHT = 2.0  # an absent detail left unhedged costs two hedged right answers (evals/declines.py)


def _hedged(r: dict[str, Any]) -> bool:
    return bool(r["refused"] or r["caveat"])


def with_bar(local: list[dict[str, Any]], extractive: list[dict[str, Any]], bar: float) -> list[dict[str, Any]]:
    """The local run with a decline overruled where the decision's relevance reaches ``bar``."""
    ex = {r["id"]: r for r in extractive}
    return [ex[r["id"]] if r["declined"] and not r["refused"] and (r.get("relevance") or 0.0) >= bar else r for r in local]


def _cost(rows: list[dict[str, Any]], weight: float, scale: float = 1.0) -> float:
    """``weight`` x absent questions left unhedged + answerable ones hedged, each of the latter
    counted ``scale`` times (the sample's answerable questions stand for that many each)."""
    return sum(weight * (r_absent and not h) + scale * ((not r_absent) and h) for r_absent, h in ((r["absent"], _hedged(r)) for r in rows))


def answerable_scale(fitted: list[dict[str, Any]]) -> float:
    """How many of the writers' answerable one-fact questions each answerable question of the
    sample stands for: ``questions`` takes every absent one but a sample of the others, so the
    sample holds far more absent details (about half) than researchers' questions do (162 of 1,490)."""
    answerable = sum(1 for r in _rows(DATASETS / "questions_written.jsonl") if _fact(r) and not r.get("absent"))
    return answerable / max(1, sum(1 for r in fitted if not r["absent"]))


def fit_bar(local: list[dict[str, Any]], extractive: list[dict[str, Any]], weight: float = DECLINE_WEIGHT,
            folds: int = 5, seed: int = 0, scale: float = 1.0) -> dict[str, Any]:
    """The decline's relevance bar by ``folds``-fold CV: per fold, the bar of least cost on the other
    folds, its held-out figures and cost against every decline heard; then the bar on every row."""
    absent = {r["id"]: r["absent"] for r in local}
    bars = sorted({0.0, 9.0} | {round(float(r["relevance"]), 3) for r in local if r["declined"] and r.get("relevance") is not None})
    ids = sorted(absent)
    random.Random(seed).shuffle(ids)
    parts = [set(ids[i::folds]) for i in range(folds)]

    def rows(bar: float, keep: set[str] | None, inside: bool) -> list[dict[str, Any]]:
        return [r for r in with_bar(local, extractive, bar) if keep is None or ((r["id"] in keep) == inside)]

    held: list[dict[str, Any]] = []
    for part in parts:
        bar = min(bars, key=lambda b: (_cost(rows(b, part, False), weight, scale), -b))
        test = rows(bar, part, True)
        held.append({"bar": bar, **figures(test), "cost_minus_every_heard":
                     round(_cost(test, weight, scale) - _cost(rows(9.0, part, True), weight, scale), 2)})
    bar = min(bars, key=lambda b: (_cost(rows(b, None, True), weight, scale), -b))
    spread = {k: [round(float(np.mean([h[k] for h in held])), 3), round(float(np.std([h[k] for h in held])), 3)]
              for k in ("absent_refused_or_caveated", "answerable_caveated", "cost_minus_every_heard")}
    return {"weight": weight, "answerable_scale": round(scale, 3), "bar": bar, "held_out": spread, "folds": held,
            "frontier": {str(b): figures(rows(b, None, True)) for b in (0.0, 0.3, 0.5, 0.7, bar, 9.0)}}


def run(dirs: dict[str, Path], qs: list[dict[str, Any]], variants: tuple[str, ...] = VARIANTS) -> dict[str, list[dict[str, Any]]]:
    from assistant import Assistant
    from assistant.compose.answer_text import DECLINED_REASON
    from assistant.settings import Settings

    out: dict[str, list[dict[str, Any]]] = {}
    for name in variants:
        overrides = variant(name)
        assistants: dict[str, Any] = {}
        rows = []
        for r in qs:
            corpus = r.get("corpus", "bundled")
            if corpus not in assistants:
                s = Settings.load(data_dir=dirs[corpus])
                s = s.model_copy(update={"caveat": s.caveat.model_copy(update=overrides["caveat"]),
                                         # the cache's local answers hear every decline: the bar is fitted on them
                                         "prompts": s.prompts.model_copy(update={"decline_relevance": None})})
                assistants[corpus] = Assistant(settings=s)
            backend = "local" if name == "local" else "extractive"
            ans = assistants[corpus].ask(r["question"], history=r.get("history") or [], backend=backend)
            rows.append({"id": r["id"], "batch": r["id"].split("-")[0], "absent": bool(r.get("absent")),
                         "refused": ans.refused, "caveat": ans.caveat_kind if ans.caveat else None,
                         "declined": ans.fallback_reason == DECLINED_REASON, "words": len(ans.text.split()),
                         "relevance": ans.relevance})
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
    x = np.array([float(_hedged(r)) for r in a if r["absent"] == absent])
    y = np.array([float(_hedged(r)) for r in b if r["absent"] == absent])
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
    ap.add_argument("--declines", action="store_true", help="the local model's decline heard or not (above)")
    ap.add_argument("--from", dest="from_run", type=Path, default=None, help="--declines: refit from this saved --out run")
    ap.add_argument("--fit-out", type=Path, default=None, help="--declines: write the report here (evals/fits/declines_written.json)")
    args = ap.parse_args(argv)
    dirs = {"bundled": args.bundled_dir, "scifact": args.scifact_dir}
    if args.declines:
        if args.from_run:
            cached = [json.loads(line) for line in args.from_run.read_text(encoding="utf-8").splitlines() if line.strip()]
            local = [{k: v for k, v in r.items() if k != "run"} for r in cached if r["run"] == "local"]
            extractive = [{k: v for k, v in r.items() if k != "run"} for r in cached if r["run"] == "extractive"]
            runs = {"local": local, "decline not heard": with_bar(local, extractive, 0.0), "extractive": extractive}
        else:
            asked = run(dirs, questions(args.answerable), ("shipped", "local"))
            runs = {"local": asked["local"], "decline not heard": with_bar(asked["local"], asked["shipped"], 0.0),
                    "extractive": asked["shipped"]}
        report = {name: {"all": figures(rows), "declined": sum(r.get("declined", False) for r in rows)}
                  for name, rows in runs.items()}
        report["decline not heard"]["against_local"] = {
            "absent_hedged": paired(runs["local"], runs["decline not heard"], True),
            "answerable_hedged": paired(runs["local"], runs["decline not heard"], False)}
        # the bar is fitted on the writers' batches only: ab_written's questions (the blind A/B's) are
        # held out of the fit and reported at the fitted bar
        held = held_ids()
        fitted = [r for r in runs["local"] if r["id"] not in held]
        report["decline_relevance"] = fit = fit_bar(fitted, [r for r in runs["extractive"] if r["id"] not in held],
                                                    scale=answerable_scale(fitted))
        fit["ab_written_held_out"] = {
            name: figures([r for r in rows if r["id"] in held])
            for name, rows in (("every decline heard", runs["local"]),
                               (f"heard below {fit['bar']:g}", with_bar(runs["local"], runs["extractive"], fit["bar"])),
                               ("never heard", runs["decline not heard"]))}
        print(json.dumps(report, indent=1))
        if args.fit_out:
            args.fit_out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        if args.out:  # the cache --from reads: one line per answer, its run named
            args.out.write_text("".join(json.dumps({"run": name, **r}) + "\n" for name in ("local", "extractive")
                                        for r in runs[name]), encoding="utf-8")
        return 0
    runs = run(dirs, questions(args.answerable))
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
