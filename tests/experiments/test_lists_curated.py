"""The curated list tuning set (evals/experiments/lists_curated.py, evals/datasets/lists_curated_written.jsonl):
its rows resolve against the bundled corpus as ingested, the validator catches a bad row, and the
harness scores its questions as their own list type."""

from __future__ import annotations

import copy
import json

from assistant import Assistant
from evals.data import load_for_tuning, resolve_anchors, resolve_path
from evals.experiments import lists_curated as C
from evals.lists_metrics import CURATED, agg_lists, list_record


def _rows() -> list[dict]:
    return load_for_tuning(C.PATH)


def test_every_curated_row_resolves_to_the_works_judged_in(corpus: Assistant) -> None:
    docs = corpus.retriever.docs()
    rows = _rows()
    assert C.check(docs, rows) == []
    questions, problems = resolve_anchors(rows, docs)
    assert problems == []
    lists = [q for q in questions if q.type == C.TYPE]
    assert len(lists) >= 20 and all(1 <= len(q.gold) <= 10 for q in lists)
    assert sum(q.type == C.ABSENT and not q.gold for q in questions) >= 5
    assert all(r["made"] and "not an independent judge" in r["made"] for r in rows)
    assert resolve_path("lists_curated_written")[1] == C.PATH


def test_the_validator_catches_a_bad_row(corpus: Assistant) -> None:
    docs = corpus.retriever.docs()
    rows = _rows()
    listed = next(r for r in rows if r["type"] == C.TYPE and r["judged_out"])
    absent = next(r for r in rows if r["type"] == C.ABSENT)
    both = copy.deepcopy(listed)
    both["judged_out"].append(both["judged_in"][0])  # a work judged in and out
    vague = copy.deepcopy(listed)
    vague["judged_in"][0] = vague["gold_anchors"][0] = "the"  # an anchor naming many works
    gold_off = copy.deepcopy(listed)
    gold_off["gold_anchors"] = gold_off["gold_anchors"][1:] or gold_off["judged_out"][:1]
    written = copy.deepcopy(absent)
    written["absent_words"] = ["transformer"]  # every other abstract writes it
    problems = C.check(docs, [both, vague, gold_off, written])
    assert any("judged both in and out" in p for p in problems)
    assert any("anchor names" in p for p in problems)
    assert any("gold differs" in p for p in problems)
    assert any("writes 'transformer'" in p for p in problems)


def test_the_harness_reports_curated_lists_apart(corpus: Assistant) -> None:
    docs = corpus.retriever.docs()
    questions, _ = resolve_anchors(_rows(), docs)
    q = next(q for q in questions if q.type == C.TYPE and len(q.gold) >= 3)
    ans = corpus.ask(q.text)
    rec = {"type": q.type, **list_record(corpus, q, ans, docs)}
    assert rec["list"]["expected"] == CURATED
    assert 0.0 <= rec["list"]["recall"] <= 1.0 and 0.0 <= rec["list"]["baseline_recall"] <= 1.0
    assert CURATED in agg_lists([rec])["by_shape"]
    json.dumps(rec)  # the run's record stays serialisable


def _synthetic(i: int, gold: bool) -> dict:
    """A topic no candidate writes: two gold works well above the rest by every score, or (absent) none."""
    x = [{"w": f"q{i}w{j}", "rank": j, "fb_rank": j, "lex": 0.3 if not gold else 0.1,
          "dense": (0.6 if gold and j < 2 else 0.4) - 0.01 * j, "sent": (0.7 if gold and j < 2 else 0.45) - 0.01 * j,
          "fb": (0.8 if gold and j < 2 else 0.5) - 0.01 * j} for j in range(8)]
    fed = {fb: ([(c["fb_rank"], c["fb"], c["w"]) for c in x], max(c["fb"] for c in x)) for fb in (3, 5, 8)}
    return {"id": f"q{i}", "type": C.TYPE if gold else C.ABSENT, "group": f"g{i}", "gold": {f"q{i}w0", f"q{i}w1"} if gold else set(),
            "x": x, "fed": fed, "unwritten": [], "cands": [(c["lex"], c["dense"], c["w"], c["rank"]) for c in x]}


def test_the_membership_variants_are_measured_by_folds_of_topics() -> None:
    feats = [_synthetic(i, gold=i % 3 != 0) for i in range(10)]
    listed, absent = feats[1], feats[0]
    assert C._knee(listed, "fb", 8, 0.0) == ["q1w0", "q1w1"]  # cut at the largest drop
    assert C._knee(absent, "fb", 8, 0.5) == []  # the best cosine below the floor: nothing
    assert C._gated(absent, 8, 0.9, 5, 0.25, 0.5, 0.0) == []  # a topic partly written: the high floor
    assert C._gated(listed, 8, 0.9, 5, 0.25, 0.5, 0.0) == ["q1w0", "q1w1"]  # in the asker's words: the low one
    out = C.variants(feats)
    assert set(out) >= {"settings now", "shipped rule refit", "logistic membership", "lexically gated floor"}
    assert out["shipped rule refit"]["f1"][0] == 1.0 and out["knee on feedback cosine"]["f1"][0] == 1.0  # separable by construction
    assert out["logistic membership"][f"{C.TYPE} recall"][0] == 1.0
