"""The local model's decline against the checks (issue #20, session 13): overrule NOT IN SOURCES
when the checks find nothing missing in the statements it would quote?

The argument from language: a decline says "no source answers this". Where the quoted statements
state the item the question asks for (``assistant.verify.focus``), state a figure where one is asked for,
and mention every noun-phrase word of the question that the collection uses (``extractive.unstated``),
the decline is contradicted by the evidence; where they leave one of those unstated, it is
corroborated. ``evals/declines_refresh.py`` stores each cached row's ``checks`` (no model); this
reads the cache only and compares, held out by 5-fold CV (folds by source question, as
``evals.declines.cv``), rules of the form

    overrule the decline when the checks find at most ``m`` words unstated (and no item, figure
    or name), and the decision's relevance >= ``t`` (``m``, ``t`` chosen on the other folds)

and the two rules with nothing fitted ("clean": nothing missing; "clean, plain": nothing missing
and the decision's outcome a plain answer) beside today ("always": every decline heard) and
extraction alone. Cost as ``evals.declines.cost`` (right answers hedged + w x misses)::

    python -m evals.declines_checks [--weight 2] [--lead-shown 1]   -> evals/fits/declines_checks.json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evals.declines import CACHE, GROUPS, ROOT, cost, figures, grp

OUT = ROOT / "evals" / "fits" / "declines_checks.json"
Rule = Callable[[dict[str, Any]], bool]  # True: the row's decline is overruled (extraction's answer stands)


def corroborated(r: dict[str, Any], most: float = 0) -> bool:
    """The checks find something missing in the quoted statements: a name no source mentions, the
    asked-for item or figure unstated, or more than ``most`` of the question's words unmentioned
    (an int: a count; a float below 1: a share of the question's noun-phrase words the collection uses)."""
    c = r.get("checks") or {}
    if not c.get("quoted"):
        return True  # nothing quoted (a refusal): nothing contradicts the decline
    n = len(c["unstated"])
    over = n / max(1, c.get("nominal", 0)) > most if isinstance(most, float) else n > most
    return bool(c["missing"] or c["item_unstated"] or c["figure_unstated"]) or over


def rule(most: float | None, t: float | None, plain: bool = False) -> Rule:
    """Overrule when not corroborated (``most`` words allowed unstated; None: never overrule),
    the relevance reaches ``t`` (None: no bar) and, with ``plain``, the decision would answer plainly."""
    def over(r: dict[str, Any]) -> bool:
        if most is None or not r["declined"] or corroborated(r, most):
            return False
        return (t is None or r["relevance"] >= t) and (not plain or r["outcome"] == "answer")
    return over


def applied(rows: list[dict[str, Any]], over: Rule) -> list[dict[str, Any]]:
    """The rows as the user would see them under ``over``: an overruled decline shows extraction's
    answer (the engine's fallback), so its ``local`` state becomes the ``extractive`` one."""
    return [{**r, "local": r["extractive"]} if over(r) else r for r in rows]


def shown(rows: list[dict[str, Any]], over: Rule, weight: float) -> tuple[dict[str, float], float]:
    f = figures(applied(rows, over), None)
    return f, cost(f, weight)


GRID_MOST = (0, 1, 2)  # words allowed unstated (a count)
GRID_SHARE = (0.25, 0.34, 0.5)  # or a share of the question's words: a quarter, a third, a half


def choose(rows: list[dict[str, Any]], weight: float, grid: tuple[float, ...] = GRID_MOST) -> tuple[float | None, float | None]:
    """(m, t) of least cost on ``rows``; ties keep today (never overrule), then the smaller m and
    the higher t (which overrule less)."""
    best: tuple[float, float | None, float | None] = (shown(rows, rule(None, None), weight)[1], None, None)
    for m in grid:
        ts = sorted({r["relevance"] for r in rows if rule(m, None)(r)}, reverse=True)
        for t in ts:
            c = shown(rows, rule(m, t), weight)[1]
            if c < best[0] - 1e-9:
                best = (c, m, t)
    return best[1], best[2]


def folds_of(rows: list[dict[str, Any]], folds: int) -> dict[str, int]:
    sources = sorted({r["source"] for r in rows})
    random.Random(0).shuffle(sources)  # the same folds as evals.declines.cv
    return {s: i % folds for i, s in enumerate(sources)}


POLICIES = ("always", "extractive", "clean", "clean_plain", "fitted", "fitted_share")
COUNTS = (("right_hedged", "right"), ("unanswerable_caught", "unanswerable"), ("loo_caught", "loo"),
          ("wrong_caught", "wrong"), ("answerable_hedged", "answerable"))


def cv(rows: list[dict[str, Any]], weight: float, folds: int) -> dict[str, Any]:
    fold_of = folds_of(rows, folds)
    per: dict[str, list[tuple[dict[str, float], float]]] = {p: [] for p in POLICIES}
    chosen: list[Any] = []
    held: dict[str, list[dict[str, Any]]] = {p: [] for p in POLICIES}  # each row as shown held out
    for k in range(folds):
        train = [r for r in rows if fold_of[r["source"]] != k]
        test = [r for r in rows if fold_of[r["source"]] == k]
        m, t = choose(train, weight)
        ms, ts = choose(train, weight, GRID_SHARE)
        chosen.append([m, None if t is None else round(t, 4), ms, None if ts is None else round(ts, 4)])
        every = {"always": rule(None, None), "extractive": lambda r: r["declined"], "clean": rule(0, None),
                 "clean_plain": rule(0, None, plain=True), "fitted": rule(m, t),
                 "fitted_share": rule(ms, ts)}
        for p, over in every.items():
            if p == "extractive":  # extraction alone: every row's answer is extraction's
                f = figures(test, None, "extractive")
                per[p].append((f, cost(f, weight)))
                held[p] += [{**r, "local": r["extractive"]} for r in test]
            else:
                per[p].append(shown(test, over, weight))
                held[p] += applied(test, over)
    out: dict[str, Any] = {"weight": weight, "fold_choices": chosen}
    for p in POLICIES:
        out[p] = summary(per, held, p, "always")
    out["n"] = {g: round(sum(per["always"][i][0][f"n_{g}"] for i in range(folds))) for _, g in COUNTS}
    return out


def summary(per: dict[str, list[tuple[dict[str, float], float]]], held: dict[str, list[dict[str, Any]]],
            name: str, base: str) -> dict[str, Any]:
    """One policy's held-out figures: its cost, its cost minus ``base``'s per fold (mean, sd, each),
    the counts of COUNTS and the figures per set (also used by evals.declines_prob)."""
    costs = [c for _, c in per[name]]
    diff = [c - a for c, (_, a) in zip(costs, per[base], strict=True)]
    return {"cost": round(sum(costs), 2),
            f"minus_{base}": [round(statistics.mean(diff), 2), round(statistics.pstdev(diff), 2), [round(d, 2) for d in diff]],
            "counts": {m: round(sum(f[m] * f[f"n_{g}"] for f, _ in per[name])) for m, g in COUNTS},
            "per_set": per_set(held[name])}


def hedged(r: dict[str, Any]) -> bool:
    return r["local"]["refused"] or r["local"]["caveated"]


def per_set(rows: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Per set, held out: right answers hedged / right, unanswerable caught / n, LOO caught / n."""
    out = {}
    for name in sorted({r["set"] for r in rows}):
        rs = [r for r in rows if r["set"] == name]
        right = [r for r in rs if r["answerable"] and r["extractive"]["first_cited_gold"]]
        row = {"right_hedged": f"{sum(map(hedged, right))}/{len(right)}"}
        for g in ("unanswerable", "loo"):
            gs = [r for r in rs if grp(r) == g]
            row[f"{g}_caught"] = f"{sum(map(hedged, gs))}/{len(gs)}"
        out[name] = row
    return out


def catches(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Task 4 (read-only): the declines that catch what extraction answers plainly (an unanswerable
    or LOO question, or an answerable one whose [1] is not gold), and the declines that hedge a
    right answer extraction gives plainly, split by whether the checks corroborate the decline
    (something missing) or find nothing missing (m = 0, 1, 2 words allowed)."""
    def plain_extr(r: dict[str, Any]) -> bool:
        return not (r["extractive"]["refused"] or r["extractive"]["caveated"])

    d = [r for r in rows if r["declined"] and plain_extr(r)]
    right = [r for r in d if r["answerable"] and r["extractive"]["first_cited_gold"]]
    caught = {g: [r for r in d if grp(r) == g and not (g == "answerable" and r["extractive"]["first_cited_gold"])]
              for g in GROUPS}
    out: dict[str, Any] = {}
    for m in GRID_MOST:
        out[f"m={m}"] = {
            "right_hedged_by_decline": {"n": len(right), "corroborated": sum(corroborated(r, m) for r in right)},
            **{f"caught_{g}": {"n": len(rs), "corroborated": sum(corroborated(r, m) for r in rs),
                               "clean_ids": sorted(r["key"] for r in rs if not corroborated(r, m))}
               for g, rs in caught.items()}}
    why = {"missing": 0, "item_unstated": 0, "figure_unstated": 0, "words": 0, "not_quoted": 0}
    for r in d:
        c = r.get("checks") or {}
        if not c.get("quoted"):
            why["not_quoted"] += 1
            continue
        why["missing"] += bool(c["missing"])
        why["item_unstated"] += c["item_unstated"]
        why["figure_unstated"] += c["figure_unstated"]
        why["words"] += bool(c["unstated"])
    out["declines_extraction_plain"] = len(d)
    out["what_the_checks_find"] = why
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=str(CACHE))
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--lead-shown", type=int, default=1)
    ap.add_argument("--folds", type=int, default=5)
    args = ap.parse_args(argv)
    rows = [json.loads(line) for line in Path(args.cache).read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r["lead_shown"] == args.lead_shown]
    if not all("checks" in r for r in rows):
        raise SystemExit("rows without checks: run python -m evals.declines_refresh first")
    out = {"command": " ".join(["python -m evals.declines_checks"] + sys.argv[1:]), "rows": len(rows),
           "declined": sum(r["declined"] for r in rows),
           "cv": {f"w{w:g}": cv(rows, w, args.folds) for w in (2.0, 1.0)}, "catches": catches(rows)}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    for w, res in out["cv"].items():
        print(w, "fold (m, t, share, t):", res["fold_choices"], "n", res["n"])
        for p in POLICIES:
            print(f"  {p:12s} cost {res[p]['cost']:6.1f} minus always {res[p]['minus_always'][:2]} {res[p]['counts']}")
    print(json.dumps(out["catches"], indent=1))


if __name__ == "__main__":
    main()
