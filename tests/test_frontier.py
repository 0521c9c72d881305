"""The hedge frontier (evals/frontier.py, issue #19): how much hedging each score the decision could
use costs for the catches the goals ask. Synthetic decline-cache rows; the committed cache is read
once, to check the published result is what the code computes from it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evals.frontier import OUT, auc, corners, main, sweep


def row(source: str, answerable: bool, relevance: float, *, loo: bool = False, gold_first: bool = True,
        fixed_kind: str | None = None) -> dict[str, Any]:
    return {"source": source, "set": "dev", "answerable": answerable, "loo": loo, "relevance": relevance,
            "best_sentence": relevance, "relevances": [relevance, 0.1], "declined": False, "missing": [],
            "lead_shown": 1,
            "extractive": {"refused": False, "caveat_kind": fixed_kind, "first_cited_gold": answerable and gold_first}}


def separable() -> list[dict[str, Any]]:
    right = [row(f"a{i}", True, 0.6 + i / 100) for i in range(20)]
    unanswerable = [row(f"u{i}", False, 0.2 + i / 100) for i in range(10)]
    loo = [row(f"l{i}", False, 0.3 + i / 100, loo=True) for i in range(10)]
    return right + unanswerable + loo


def test_a_score_that_separates_meets_every_goal() -> None:
    rows = separable()
    score = [r["relevance"] for r in rows]
    assert auc(rows, score) == 1.0
    c = corners(sweep(rows, score))
    assert c["all_goals_met"]
    assert c["within_hedge_goal"]["answerable_hedged"] == 0.0 and c["within_hedge_goal"]["loo_caught"] == 1.0


def test_a_score_that_does_not_separate_meets_none_at_once() -> None:
    rows = separable()
    for r in rows:  # every question to catch scores as well as the right answers
        if not r["answerable"]:
            r["relevance"] += 0.4
    score = [r["relevance"] for r in rows]
    assert auc(rows, score) < 0.5
    c = corners(sweep(rows, score))
    assert not c["all_goals_met"]
    assert c["meeting_catch_goals"]["answerable_hedged"] > 0.10  # catching them costs the right answers


def test_a_fixed_check_stays_hedged_under_every_bar() -> None:
    rows = separable() + [row("u_named", False, 0.9, fixed_kind="missing_name")]
    points = sweep(rows, [r["relevance"] for r in rows])
    unanswerable = [r for r in rows if not r["answerable"] and not r["loo"]]
    assert min(p["unanswerable_caught"] for p in points) == pytest.approx(1 / len(unanswerable))  # the bar at -inf
    assert points[0]["answerable_hedged"] == 0.0


def test_the_published_result_is_what_the_cache_gives(tmp_path: Path) -> None:
    out = tmp_path / "frontier.json"
    main(["--out", str(out)])
    assert json.loads(out.read_text()) == json.loads(OUT.read_text())
