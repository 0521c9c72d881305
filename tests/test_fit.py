"""The fitting code (evals/fit.py, evals/cv.py): k-fold cross-validation, the logistic fit, and the locked test split's guard."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from evals.cv import cv, folds, logistic, settle, thresholds
from evals.data import LOCKED_PATH, LockedSplitError, Question, load_for_tuning


def test_tuning_code_cannot_read_the_locked_split(tmp_path: Path) -> None:
    with pytest.raises(LockedSplitError):
        load_for_tuning(LOCKED_PATH)
    mixed = tmp_path / "mine.jsonl"
    mixed.write_text(json.dumps({"id": "x", "question": "q?", "split": "locked"}) + "\n", encoding="utf-8")
    with pytest.raises(LockedSplitError):
        load_for_tuning(mixed)
    fine = tmp_path / "dev_like.jsonl"
    fine.write_text(json.dumps({"id": "x", "question": "q?", "split": "tune"}) + "\n", encoding="utf-8")
    assert load_for_tuning(fine)[0]["id"] == "x"


def test_the_fit_script_never_names_the_locked_file() -> None:
    evals_dir = Path(__file__).resolve().parent.parent / "evals"
    scripts = sorted([*evals_dir.glob("fit*.py"), evals_dir / "tuning.py"])
    assert {p.name for p in scripts} >= {"fit.py", "fit_decision.py", "fit_answer.py"}
    for path in scripts:
        source = path.read_text(encoding="utf-8")
        assert "LOCKED" not in source and "locked.jsonl" not in source, path.name


def _items(n: int) -> list[Question]:
    return [Question(id=str(i), text="q", raw={"_set": "a" if i % 3 else "b"}) for i in range(n)]


def test_folds_partition_and_stratify() -> None:
    items = _items(50)
    parts = folds(items, 5)
    assert sorted(i for p in parts for i in p) == list(range(50))
    for p in parts:
        assert {items[i].raw["_set"] for i in p} == {"a", "b"}


def test_cv_picks_the_config_that_wins_on_the_other_folds() -> None:
    items = _items(40)
    rng = random.Random(0)
    truth = {i: rng.random() for i in range(40)}

    def score(cfg: float, idx: list[int]) -> float:  # config 0.7 is best everywhere
        return -sum(abs(truth[i] * 0 + cfg - 0.7) for i in idx)

    held, chosen = cv(items, [0.1, 0.4, 0.7, 1.0], score, 5)
    assert chosen == [0.7] * 5 and len(held) == 5


def test_logistic_separates_and_thresholds_bound_refusals() -> None:
    rng = np.random.default_rng(0)
    pos = rng.normal(0.7, 0.1, (200, 1))
    neg = rng.normal(0.3, 0.1, (200, 1))
    w, b = logistic(np.vstack([pos, neg]), np.r_[np.ones(200), np.zeros(200)])
    assert w[0] > 0
    p_pos = 1 / (1 + np.exp(-(pos @ w + b)))
    t_ref, t_cav = thresholds(p_pos, 0.01, 0.10)
    assert t_ref <= t_cav
    assert (p_pos < t_ref).mean() <= 0.02


def test_refusal_threshold_holds_the_policy_for_every_question_type() -> None:
    # lookups score high, paraphrases lower: pooled, a 1% refusal bound would refuse paraphrases
    lookup = np.linspace(0.6, 1.0, 80)
    para = np.linspace(0.05, 0.6, 20)
    p = np.r_[lookup, para]
    groups = ["lookup"] * 80 + ["paraphrase"] * 20
    pooled_ref, pooled_cav = thresholds(p, 0.05, 0.10)
    per_type_ref, per_type_cav = thresholds(p, 0.05, 0.10, groups)
    assert np.mean(para < pooled_ref) > 0.05
    assert np.mean(para < per_type_ref) <= 0.05
    assert np.mean(lookup < per_type_ref) <= 0.05
    assert per_type_cav == pooled_cav  # hedging stays bounded on all answerable questions together


def test_settings_defaults_are_the_committed_fits() -> None:
    """Every constant described "fit: evals/fits/..." holds what that fit file chose."""
    from assistant.settings import AnswerSettings, DecisionSettings, RetrievalSettings

    fits = Path(__file__).resolve().parent.parent / "evals" / "fits"
    retrieval = json.loads((fits / "retrieval.json").read_text(encoding="utf-8"))["chosen"]
    r = RetrievalSettings()
    assert r.fusion == retrieval["method"]
    assert {k: getattr(r, f"weight_{k}") for k in retrieval["weights"]} == pytest.approx(retrieval["weights"])
    decision = json.loads((fits / "decision.json").read_text(encoding="utf-8"))["chosen"]
    assert DecisionSettings().model_dump() == pytest.approx(decision)
    answer = json.loads((fits / "answer.json").read_text(encoding="utf-8"))["chosen"]
    a = AnswerSettings()
    assert {k: getattr(a, k) for k in answer} == pytest.approx(answer)


def test_settle_keeps_the_current_constant_unless_the_best_wins_by_more_than_one_se() -> None:
    values = {"a": 0.800, "b": 0.804, "c": 0.95}
    held = [0.78, 0.82, 0.80, 0.79, 0.81]  # one standard error: 0.0063

    def score(cfg: str, idx: list[int]) -> float:
        return values[cfg]

    chosen, note = settle(["a", "b"], "a", score, held, 10)
    assert chosen == "a" and note["best"] == "b"  # a 0.004 gain is within the noise: keep "a"
    assert settle(["a", "b", "c"], "a", score, held, 10)[0] == "c"  # a clear win moves the constant


def test_hedging_bound_holds_for_every_group_when_asked() -> None:
    # far paraphrases score lowest: a pooled 10% hedging bound hedges most of them
    p = np.r_[np.linspace(0.5, 1.0, 90), np.linspace(0.1, 0.4, 10)]
    groups = ["generated:lookup"] * 90 + ["calibration:paraphrase"] * 10
    _, pooled = thresholds(p, 0.01, 0.10, groups)
    t_ref, per_group = thresholds(p, 0.01, 0.10, groups, group_caveat_rate=0.2)
    far = p[90:]
    assert np.mean(far < pooled) > 0.2
    assert np.mean(far < per_group) <= 0.2 and np.mean(p < per_group) <= 0.10
    assert t_ref <= per_group


def test_calibration_derivations_are_mechanical_and_keep_their_source() -> None:
    from evals.calibration import follow_up, short_form

    assert short_form("What are the types of linear layer approximations considered for the FFN?") == \
        "linear layer approximations considered"
    assert short_form("What kind of problem does the modular multitask setting address?") == \
        "problem modular multitask setting address"
    assert short_form("What is it?") is None
    assert follow_up("What is Diff Transformer?", "What does Diff Transformer do to noise?") == "What does it do to noise?"
    assert follow_up("What is Diff Transformer?", "What limits Diff Transformer's speed?") == "What limits its speed?"
    assert follow_up("What is Diff Transformer?", "What are Diff Transformer models good at?").startswith("And what are")
    rows = [json.loads(line) for line in (Path(__file__).resolve().parent.parent / "evals" / "datasets" /
                                          "calibration.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows and all(r["derived_from"] and r["split"] == "calibration" for r in rows)
    assert {r["type"] for r in rows} == {"paraphrase", "short", "followup"}


def test_every_fit_file_is_rebuilt_by_make_fit() -> None:
    """evals/fits/ holds only what settings read, and `make fit` rewrites each of its fit files."""
    root = Path(__file__).resolve().parent.parent
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nfit:", 1)[1].split("\n\n", 1)[0]
    writers = {"retrieval.json": "evals.fit all", "decision.json": "evals.fit all", "answer.json": "evals.fit all",
               "lists.json": "evals.lists fit", "list_followups.json": "evals.list_followups fit",
               "list_followups_answer.json": "evals.list_followups cutoff",
               "list_followups_meaning.json": "evals.list_followups meaning",
               "shapes_model.json": "evals.shapes_model fit", "declines.json": "evals.declines fit",
               "declines_written.json": "evals.caveat_rules --declines",
               "support.json": "evals.fit support"}
    # the local model's readings the fits read, and the cross-encoders' out-of-fold probabilities (make train)
    caches = {"shapes_model_cache.jsonl", "declines_cache.jsonl", "declines_written_cache.jsonl", "support_ce_oof.json", "sentence_ce_oof.json"}
    assert {p.name for p in (root / "evals" / "fits").iterdir()} == set(writers) | caches
    for name, command in writers.items():
        assert f"-m {command}" in recipe, name
    settings = (root / "assistant" / "settings.py").read_text(encoding="utf-8")
    assert all(f"evals/fits/{name}" in settings for name in writers)
