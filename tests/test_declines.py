"""The local model's decline, arbitrated (issue #20; settings.prompts.decline_relevance, fitted by
evals/declines.py): a "lead" model's NOT IN SOURCES is heard when the decision is unsure (its
relevance below the bar, a caveat, a name no source mentions) and overruled when it is confident,
extraction's answer then standing. The real engine and corpus; the model is the conftest mock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import streamed

from assistant import Assistant
from assistant.engine import DECLINE_OVERRULED, DECLINED_REASON
from assistant.settings import Settings
from assistant.types import CAVEAT_MODEL_DECLINED
from evals.declines import SETS, choose, figures, gap, per_set, sample, value

QUESTION = "What does Ring Attention distribute across devices?"
UNANSWERABLE = "On which GPU model were the speedups of FlashAttention measured?"


def lead(corpus_dir: Path, bar: float | None, design: str = "lead", **prompts: Any) -> Assistant:
    return Assistant(data_dir=corpus_dir, backend="extractive",
                     prompts={"designs": {"mock": design}, "decline_relevance": bar, **prompts})


def relevance(corpus: Assistant, question: str) -> float:
    turn = corpus.engine.analyze(question, corpus.settings.top_k)
    assert turn.decision.outcome == "answer" and not turn.decision.missing  # a plain answer, no name unmatched
    return turn.decision.relevance


def test_the_default_bar_is_the_one_fitted_on_readers_questions() -> None:
    # python -m evals.caveat_rules --declines: the bar chosen on every row, and held out it costs less
    # than hearing every decline in each fold
    import json

    fit = json.loads((Path(__file__).resolve().parent.parent / "evals" / "fits" / "declines_written.json").read_text())
    assert Settings().prompts.decline_relevance == fit["decline_relevance"]["bar"]
    assert all(f["cost_minus_every_heard"] <= 0 for f in fit["decline_relevance"]["folds"])


def test_a_decline_above_the_bar_is_overruled(corpus_dir: Path, corpus: Assistant, mock_model: Any) -> None:
    bar = relevance(corpus, QUESTION) - 0.05
    mock_model.enqueue("NOT IN SOURCES")
    text, answer = streamed(lead(corpus_dir, bar), QUESTION, backend="mock")
    extracted = corpus.ask(QUESTION, backend="extractive")
    assert mock_model.prompts and not mock_model.replies  # the model was asked, and declined
    assert (answer.fallback_reason or "").startswith(DECLINE_OVERRULED)
    assert answer.caveat is None and answer.caveat_kind is None and not answer.refused
    assert answer.text == extracted.text and answer.citations and answer.backend == "mock→extractive"
    assert "NOT IN SOURCES" not in text and text.strip() == answer.text


def test_a_decline_below_the_bar_is_heard(corpus_dir: Path, corpus: Assistant, mock_model: Any) -> None:
    bar = relevance(corpus, QUESTION) + 0.05
    mock_model.enqueue("NOT IN SOURCES")
    _, answer = streamed(lead(corpus_dir, bar), QUESTION, backend="mock")
    assert answer.fallback_reason == DECLINED_REASON and answer.caveat_kind == CAVEAT_MODEL_DECLINED
    assert answer.caveat and answer.citations and not answer.refused


def test_an_unanswerable_questions_decline_is_heard(corpus_dir: Path, corpus: Assistant, mock_model: Any) -> None:
    relevance(corpus, UNANSWERABLE)  # the decision would answer it plainly: only the model's decline hedges
    assert corpus.ask(UNANSWERABLE, backend="extractive").caveat is None
    mock_model.enqueue("NOT IN SOURCES")
    _, answer = streamed(lead(corpus_dir, None), UNANSWERABLE, backend="mock")  # None: every decline heard
    assert mock_model.prompts and answer.fallback_reason == DECLINED_REASON
    assert answer.caveat_kind == CAVEAT_MODEL_DECLINED and answer.caveat and not answer.refused


def test_other_designs_declines_are_always_heard(corpus_dir: Path, mock_model: Any) -> None:
    mock_model.enqueue("NOT IN SOURCES")  # the "write" design (the openai backend's): not fitted, heard
    _, answer = streamed(lead(corpus_dir, 0.0, design="write"), QUESTION, backend="mock")
    assert answer.fallback_reason == DECLINED_REASON and answer.caveat_kind == CAVEAT_MODEL_DECLINED


def test_a_lead_that_answers_is_untouched_by_the_bar(corpus_dir: Path, mock_model: Any) -> None:
    mock_model.enqueue("Ring Attention distributes long sequences across multiple devices. [1]")
    # the decline's bar only (lead_support 0; the lead's support bar: test_answer_designs.py)
    _, answer = streamed(lead(corpus_dir, 0.0, lead_support=0.0), QUESTION, backend="mock")
    assert answer.fallback_reason is None and answer.backend == "mock"
    assert answer.text.startswith("Ring Attention distributes long sequences across multiple devices.")


# --- the fit (evals/declines.py) on made-up cache rows ---------------------------------------------
def row(answerable: bool, relevance: float, declined: bool, loo: bool = False, right: bool = True) -> dict[str, Any]:
    plain = {"refused": False, "caveated": False, "first_cited_gold": answerable and right}
    return {"answerable": answerable, "loo": loo, "type": "lookup", "relevance": relevance, "outcome": "answer",
            "missing": [], "declined": declined, "source": "s", "lead_shown": 1,
            "local": {"refused": False, "caveated": declined}, "extractive": plain}


def test_the_fit_hears_declines_below_the_confident_answers() -> None:
    rows = [row(True, 0.8, True), row(True, 0.7, True), row(True, 0.9, False),
            row(False, 0.3, True), row(False, 0.25, True, loo=True)]
    t = choose(rows, weight=2.0)
    assert t is not None and 0.3 < t <= 0.7 + 1e-5
    kept = figures(rows, t)
    assert kept["answerable_hedged"] == 0.0 and kept["unanswerable_caught"] == 1.0 and kept["loo_caught"] == 1.0
    assert figures(rows, None)["answerable_hedged"] == 2 / 3  # always heard: both declines hedge


def test_the_fit_keeps_a_catch_worth_more_than_a_hedge() -> None:
    rows = [row(True, 0.5, True), row(False, 0.6, True)]  # overruling the hedge would lose the catch above it
    assert figures(rows, choose(rows, weight=2.0))["unanswerable_caught"] == 1.0
    assert figures(rows, choose(rows, weight=0.5))["answerable_hedged"] == 0.0  # a cheap catch is given up


def test_a_hedge_on_a_wrong_answer_is_earned() -> None:
    rows = [row(True, 0.8, True, right=False), row(True, 0.9, False)]  # the declined answer's [1] is not gold
    assert choose(rows, weight=2.0) is None  # hearing it costs nothing: the decline stays heard
    assert figures(rows, None)["wrong_caught"] == 1.0 and figures(rows, None)["right_hedged"] == 0.0


def test_the_gap_is_how_far_the_first_abstract_stands_above_the_rest() -> None:
    assert gap([0.6, 0.2, 0.4]) == pytest.approx(0.2) and gap([0.3, 0.5]) == pytest.approx(-0.2) and gap([0.7]) == 0.0
    r = row(True, 0.6, True) | {"relevances": [0.6, 0.2, 0.4]}
    assert value(r, "gap") == pytest.approx(0.2) and value(r, "-gap") == pytest.approx(-0.2)
    assert choose([r, row(False, 0.3, True) | {"relevances": [0.3, 0.29]}], 2.0, "gap") is not None  # the gap tells them apart


def test_per_set_counts_what_only_the_decline_catches() -> None:
    caught = row(False, 0.4, True) | {"set": "s", "id": "u"}  # extraction answers it plainly, the decline hedges
    hedged = row(True, 0.8, True) | {"set": "s", "id": "a"}
    out = per_set([caught, hedged])["s"]
    assert out["unanswerable"]["only_decline"] == ["u"] and out["unanswerable"]["hedged_extractive"] == 0
    assert out["answerable"]["only_decline"] == ["a"] and out["right"] == {"n": 1, "hedged_extractive": 0, "hedged_always": 1}


def test_paraphrase_written_is_sampled_without_follow_ups(corpus: Assistant) -> None:
    picked = sample(corpus.retriever.docs(), {"paraphrase_written": SETS["paraphrase_written"]}, {"paraphrase_written": 37})
    plain = [q for _, q, loo in picked if not loo]
    held = [q for _, q, loo in picked if loo]
    assert len(plain) == 52 and not any(q.previous for q in plain)  # the 7 follow-ups need their history
    assert sum(not q.answerable for q in plain) == 15 and len(held) == 37 and all(q.answerable for q in held)


def test_refresh_replaces_a_stale_extractive_state_with_todays(corpus: Assistant) -> None:
    from evals.declines_refresh import refresh

    stale = {"refused": True, "caveated": False, "caveat_kind": None}  # as if an older commit had refused it
    r = row(True, 0.5, False) | {"key": "dev:q001:plain:lead1", "outcome": "answer", "extractive": stale}
    moved = refresh(corpus, [r], "abc1234")
    assert moved["rows"] == 1 and moved["missing"] == 0 and moved["extractive_changed"] == 1
    assert r["extractive_at"] == "abc1234" and r["extractive"]["refused"] is False and "text" in r["extractive"]
    lost = row(True, 0.5, False) | {"key": "dev:no-such-question:plain:lead1", "extractive": stale}
    assert refresh(corpus, [lost], "abc1234")["missing"] == 1 and lost["extractive"] is stale


def test_a_declines_caveat_names_the_item_the_sources_leave_unstated(corpus_dir: Path, mock_model: Any) -> None:
    """The decline is a hedge either way; where the asked-for item check (assistant/verify/focus.py) finds
    what the quoted statements leave unstated, the caveat says it ("describe LASP-2 but do not state
    the license"), not only that the model found no answer. It stays a decline by its kind."""
    mock_model.enqueue("NOT IN SOURCES")
    _, answer = streamed(lead(corpus_dir, None), "What is the license of the LASP-2 code?", backend="mock")
    assert answer.fallback_reason == DECLINED_REASON and answer.caveat_kind == CAVEAT_MODEL_DECLINED
    assert answer.caveat is not None and answer.caveat.startswith("The abstracts found describe LASP-2 but do not state the license")
    assert answer.text.startswith(answer.caveat) and answer.citations and not answer.refused
    mock_model.enqueue("NOT IN SOURCES")
    _, plain = streamed(lead(corpus_dir, None), QUESTION, backend="mock")
    assert plain.caveat_kind == CAVEAT_MODEL_DECLINED and (plain.caveat or "").startswith("The model found no direct answer")


# --- the decline cache's refresh: the checks on the statements a decline would quote ---------------
def test_the_checks_on_a_declines_quotes_name_what_is_missing(corpus: Assistant) -> None:
    from evals.declines_refresh import checks

    clean = checks(corpus, QUESTION, None)  # Ring Attention's statements say what it distributes
    assert clean["quoted"] and not clean["item_unstated"] and clean["unstated"] == [] and clean["sentences"]
    word = checks(corpus, "What does Ring Attention distribute across images?", None)
    assert word["unstated"] == ["images"] and '"images"' in word["caveat"]  # the decline's caveat names it
    item = checks(corpus, "Which license is Ring Attention released under?", None)
    assert item["item_unstated"] and item["item"] == "license"


def test_the_refresh_refuses_an_empty_index_and_keeps_the_cache(tmp_path: Path) -> None:
    from evals.declines_refresh import main as refresh_main

    cache = tmp_path / "cache.jsonl"
    cache.write_text('{"key": "dev:q001:plain:lead1"}\n')
    with pytest.raises(SystemExit, match="no abstracts indexed"):  # it once rewrote every row as refused
        refresh_main(["--data-dir", str(tmp_path / "empty"), "--cache", str(cache)])
    assert cache.read_text() == '{"key": "dev:q001:plain:lead1"}\n'


def test_the_declines_bar_is_fitted_by_its_cost_on_held_out_folds() -> None:
    """evals.caveat_rules.fit_bar: a decline heard below the bar hedges; above it extraction's answer
    stands. Declines at high relevance on answerable questions (needless hedges) and at low relevance
    on absent details (earned ones): the bar falls between them and beats hearing every decline."""
    from evals.caveat_rules import fit_bar, with_bar

    def row(i: int, absent: bool, rel: float, declined: bool, caveat: bool) -> dict[str, Any]:
        return {"id": f"q{i}", "absent": absent, "relevance": rel, "declined": declined, "refused": False,
                "caveat": "model_declined" if declined else ("weak" if caveat else None)}

    local = [row(i, True, 0.2 + 0.01 * i, True, True) for i in range(20)]
    local += [row(20 + i, False, 0.8 + 0.005 * i, True, True) for i in range(20)]
    local += [row(40 + i, False, 0.9, False, False) for i in range(10)]
    extractive = [{**r, "declined": False, "caveat": None} for r in local]
    assert [r["caveat"] for r in with_bar(local, extractive, 0.5)][:20] == ["model_declined"] * 20
    assert all(r["caveat"] is None for r in with_bar(local, extractive, 0.5)[20:])
    fit = fit_bar(local, extractive, folds=5)
    assert 0.39 < fit["bar"] <= 0.8
    assert fit["held_out"]["cost_minus_every_heard"][0] < 0
    assert fit["frontier"]["9.0"]["answerable_caveated"] > fit["frontier"][str(fit["bar"])]["answerable_caveated"] == 0.0
