"""The answer / caveat / refuse decision (assistant/decision.py)."""

from __future__ import annotations

from assistant.decision import FEATURES, decide, relevance
from assistant.settings import DecisionSettings


def feats(x: float) -> dict[str, float]:
    return dict.fromkeys(FEATURES, x)


def test_relevance_rises_with_every_positively_weighted_feature() -> None:
    cfg = DecisionSettings()
    w = cfg.weights()
    for f in FEATURES:
        lo, hi = feats(0.3), feats(0.3)
        hi[f] = 0.6
        assert (relevance(hi, w, cfg.bias) > relevance(lo, w, cfg.bias)) == (w[f] > 0)


def test_outcomes_follow_the_thresholds_and_missing_names() -> None:
    cfg = DecisionSettings(bias=0.0, w_dense=1.0, w_lexical=0.0, w_sentence_dense=0.0, w_sentence_lexical=0.0,
                           refuse_below=0.2, caveat_below=0.6, missing_refuse_below=0.6)
    # relevance = sigmoid(dense): dense -3 -> 0.047, 0 -> 0.5, 3 -> 0.95
    assert decide({"dense": -3.0}, [], cfg).outcome == "refuse"
    assert decide({"dense": 0.0}, [], cfg).outcome == "caveat"
    assert decide({"dense": 3.0}, [], cfg).outcome == "answer"
    d = decide({"dense": 3.0}, ["H100"], cfg)
    assert d.outcome == "caveat" and d.missing == ["H100"]
    assert decide({"dense": -3.0}, ["H100"], cfg).outcome == "refuse"
    # a missing name with a weak match (0.5 < caveat_below): neither the topic nor the thing is held
    assert decide({"dense": 0.0}, ["H100"], cfg).outcome == "refuse"
    # the missing-name bar is its own threshold: above it, the sources' statements under a caveat
    lower = cfg.model_copy(update={"missing_refuse_below": 0.4})
    assert decide({"dense": 0.0}, ["H100"], lower).outcome == "caveat"
    assert decide({"dense": -1.0}, ["H100"], lower).outcome == "refuse"  # 0.27 < 0.4
