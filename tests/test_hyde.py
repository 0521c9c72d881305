"""The pure parts of evals/hyde.py (no model, no index): cleaning the model's sentence, the
balanced question choice, the cache key and the fold summary."""

from types import SimpleNamespace

from evals.hyde import (
    GROUP_ORDER,
    balanced,
    cache_key,
    clean_sentence,
    group_of,
    percentile,
    summarise,
)


def test_clean_sentence_keeps_the_first_line_without_label_or_quotes():
    assert clean_sentence('Sentence: "We show X improves Y."\nMore text') == "We show X improves Y."
    assert clean_sentence("\n\n  Plain one.  \n") == "Plain one."
    assert clean_sentence("") == ""


def test_balanced_takes_groups_in_turn_up_to_the_limit():
    items = [("dev:lookup", f"l{i}") for i in range(5)] + [("dev:paraphrase", f"p{i}") for i in range(2)]
    got = balanced(items, 5)
    assert [q for _, q in got] == ["p0", "l0", "p1", "l1", "l2"]
    assert len(balanced(items, 100)) == 7


def test_group_of_measures_only_answerable_first_questions():
    def q(**kw):
        base = {"gold": {"w"}, "previous": None, "type": "lookup", "raw": {"_set": "dev"}}
        return SimpleNamespace(**{**base, **kw})

    assert group_of(q()) == "dev:lookup"
    assert group_of(q(gold=set(), type="unanswerable")) is None
    assert group_of(q(previous="D1")) is None
    assert group_of(q(raw={"_set": "calibration", "derivation": "far"})) == "calibration:far"
    assert group_of(q(raw={"_set": "calibration", "derivation": "near"})) is None
    assert all(g.split(":")[0] in ("dev", "calibration") for g in GROUP_ORDER)


def test_cache_key_changes_with_prompt_and_question():
    assert cache_key("q", "p") == cache_key("q", "p")
    assert len({cache_key("q", "p"), cache_key("q2", "p"), cache_key("q", "p2")}) == 3


def test_summarise_is_mean_and_sd_of_fold_means_over_members():
    values = [1.0, 0.0, 1.0, 1.0]
    parts = [[0, 1], [2, 3]]
    assert summarise(values, parts, {0, 1, 2, 3}) == "0.750 +- 0.354"
    assert summarise(values, parts, {0, 2}) == "1.000 +- 0.000"
    assert summarise(values, parts, set()) == "-"
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
