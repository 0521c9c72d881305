"""The written list topics (evals/experiments/lists_written.py): the committed rows stay under the
overlap bounds, keep their term's gold, and the harness reports them apart from term lists."""

from __future__ import annotations

import json

from evals import lists as L
from evals.data import load_for_tuning
from evals.experiments import lists_written as LW


def test_the_written_lists_are_below_the_overlap_bound_and_keep_their_terms_gold() -> None:
    rows = [json.loads(line) for line in LW.OUT_PATH.read_text(encoding="utf-8").splitlines()]
    term_list = {r["term"]: r for r in load_for_tuning(L.LISTS_PATH) if r["type"] == "list" and "topic" not in r}
    written = [r for r in rows if r["type"] == LW.TYPE]
    absent = [r for r in rows if r["type"] == LW.ABSENT]
    assert len(written) >= 40 and len(absent) >= 10 and all(r["made"] == LW.MADE and r["shape"] == "list" for r in rows)
    for r in written:
        assert r["gold_anchors"] == term_list[r["term"]]["gold_anchors"] and r["term"] not in r["question"].lower()
        assert r["overlap"]["term_share"] <= LW.MAX_TERM_SHARE and r["overlap"]["rare_share"] <= LW.MAX_RARE_SHARE
    assert all(r["gold_anchors"] == [] for r in absent)
    assert LW.rare_words(["alpha beta gamma", "alpha beta", "delta"], lambda t: 1.0) == ["alpha", "beta"]  # held by two or more
    recs = [{"type": LW.TYPE, "shape": "list", "list": {"expected": LW.TYPE, "recall": 0.5, "precision": 0.5,
             "baseline_recall": 0.0, "baseline_precision": 0.0, "all_named_cited": False}}]
    assert L.agg_lists(recs)["by_shape"][LW.TYPE]["detected"] == 1.0  # reported apart from term lists
