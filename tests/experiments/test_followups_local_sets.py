"""The follow-up sessions by backend (evals/experiments/followups_local.py): the sets it writes are
tuning rows, each follow-up right after its previous question."""

from __future__ import annotations

from typing import Any


def test_the_follow_up_sessions_are_tuning_rows_each_right_after_its_previous(tmp_path: Any) -> None:
    import json

    from evals.experiments import followups_local as F

    counts = F.build(tmp_path)
    assert counts["fl"] == 30 and counts["calf"] == F.CALIBRATION_DRAWN and set(counts) == {"fl", "wf", "mf", "devf", "pwf", "calf"}
    for name in counts:
        rows = [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
        assert all("locked" not in str(r.get("split", "")) for r in rows)
        for i, r in enumerate(rows):
            if name == "calf":
                assert r["type"] == "followup" and r["previous_question"]  # the harness answers it first, unscored
            elif r.get("previous"):
                assert r["previous"] in {x["id"] for x in rows[:i]}  # asked before it
