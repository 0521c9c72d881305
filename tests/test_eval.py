"""The evaluation harness: metric functions on hand-computed cases, a --limit run's outputs, and
--compare failing on a regression."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from conftest import MockChatModel

from assistant import Assistant
from evals import harness
from evals.metrics import (
    key_point_coverage,
    mrr_at_k,
    ndcg_at_k,
    percentile,
    recall_at_k,
    retrieval_scores,
    slope_per_1000,
)


# --- metrics ----------------------------------------------------------------------------------
def test_rss_slope_reads_only_the_second_half() -> None:
    warm_then_flat = {250: 500.0, 500: 700.0, 1000: 800.0, 1500: 800.0, 2000: 800.0}
    assert slope_per_1000(warm_then_flat) == pytest.approx(0.0)
    one_percent = {n: 1000.0 + n / 100 for n in range(1000, 2001, 250)}  # +10 MiB per 1,000 from 1,010 MiB
    assert slope_per_1000({100: 100.0, **one_percent}) == pytest.approx(100 * 10 / 1010)
    assert slope_per_1000({100: 1.0}) is None


def test_recall_at_k_hand_computed() -> None:
    retrieved = ["a", "x", "b", "y", "z", "c"]
    assert recall_at_k({"a", "b", "c"}, retrieved, 1) == pytest.approx(1 / 3)
    assert recall_at_k({"a", "b", "c"}, retrieved, 5) == pytest.approx(2 / 3)
    assert recall_at_k({"a", "b", "c"}, retrieved, 10) == pytest.approx(1.0)
    assert recall_at_k({"q"}, retrieved, 10) == 0.0
    assert recall_at_k({"a"}, [], 5) == 0.0  # no results: 0, not an exception
    assert recall_at_k(set(), retrieved, 5) == 0.0


def test_mrr_hand_computed() -> None:
    assert mrr_at_k({"b"}, ["a", "b", "c"]) == pytest.approx(0.5)
    assert mrr_at_k({"c", "b"}, ["a", "b", "c"]) == pytest.approx(0.5)  # first relevant counts
    assert mrr_at_k({"k"}, [str(i) for i in range(10)] + ["k"], 10) == 0.0  # beyond the cut-off
    assert mrr_at_k({"a"}, []) == 0.0


def test_ndcg_hand_computed() -> None:
    # one relevant doc at rank 3: 1/log2(4) = 0.5
    assert ndcg_at_k({"c"}, ["a", "b", "c"]) == pytest.approx(0.5)
    # two relevant at ranks 1 and 3: (1 + 0.5) / (1 + 1/log2(3))
    assert ndcg_at_k({"a", "c"}, ["a", "b", "c"]) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert ndcg_at_k({"a"}, ["a"]) == 1.0
    assert ndcg_at_k({"z"}, ["a", "b"]) == 0.0
    # ideal DCG is cut at k: 12 relevant docs all retrieved in the top 10 is a perfect nDCG@10
    rel = {f"d{i}" for i in range(12)}
    assert ndcg_at_k(rel, [f"d{i}" for i in range(10)], 10) == pytest.approx(1.0)


def test_ndcg_agrees_with_llama_index_when_few_relevant() -> None:
    from llama_index.core.evaluation.retrieval.metrics import NDCG

    retrieved = ["a", "x", "b", "y", "c", "z", "w", "v", "u", "t"]
    for expected in (["a"], ["b", "c"], ["x", "q", "t"]):
        ours = ndcg_at_k(expected, retrieved, 10)
        theirs = NDCG().compute(expected_ids=expected, retrieved_ids=retrieved).score
        assert ours == pytest.approx(theirs)


def test_retrieval_scores_keys_and_dedup_of_expected() -> None:
    s = retrieval_scores(["a", "a", "b"], ["b", "a"])
    assert set(s) == {"recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10"}
    assert s["recall@1"] == pytest.approx(0.5) and s["recall@5"] == 1.0 and s["mrr@10"] == 1.0


def test_percentile_and_key_points() -> None:
    assert percentile([1, 2, 3, 4], 50) == pytest.approx(2.5)
    assert percentile([5.0], 95) == 5.0
    assert math.isnan(percentile([], 50))
    assert key_point_coverage("Uses Blockwise computation on many devices", ["blockwise computation", "multiple devices"]) == 0.5
    assert math.isnan(key_point_coverage("anything", []))


def test_compare_gates() -> None:
    prev = {"summary": {"hybrid.ndcg@10": 0.80, "hybrid.recall@5": 0.9, "answers.citation_precision": 0.7,
                        "answers.false_refusal_rate": 0.10, "bm25.ndcg@10": 0.7}}
    ok = {"summary": {"hybrid.ndcg@10": 0.79, "hybrid.recall@5": 0.95, "answers.citation_precision": 0.69,
                      "answers.false_refusal_rate": 0.14, "bm25.ndcg@10": 0.5}}
    assert harness.compare(ok, prev)["regressions"] == []  # within tolerance; bm25 is not gated
    bad = {"summary": {**ok["summary"], "hybrid.ndcg@10": 0.77, "answers.false_refusal_rate": 0.16}}
    got = {r["metric"] for r in harness.compare(bad, prev)["regressions"]}
    assert got == {"hybrid.ndcg@10", "answers.false_refusal_rate"}


# --- a real (small) run -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def smoke_run(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    out = tmp_path_factory.mktemp("run") / "run"
    rc = harness.main(["dev", "--limit", "5", "--data-dir", str(corpus_dir), "--out-dir", str(out), "--quiet"])
    return out, rc


def test_limit_run_writes_results_report_and_plots(smoke_run: tuple[Path, int]) -> None:
    out, rc = smoke_run
    assert rc == 0
    results = json.loads((out / "results.json").read_text())
    assert results["n_questions"] == 5 and results["dataset"] == "dev"
    assert set(results["retrieval"]) == {"bm25", "dense", "baseline", "hybrid"}
    assert len({q["type"] for q in results["per_question"]}) == 5  # --limit takes every type in turn
    for mode in ("bm25", "dense", "baseline", "hybrid"):
        assert 0.0 <= results["summary"][f"{mode}.ndcg@10"] <= 1.0
    answers = results["answers"]["all"]
    assert answers["n"] == 5 and "total" in answers["latency"]
    assert 0.0 <= answers["citation_validity"] <= 1.0
    report = (out / "report.md").read_text()
    assert "| hybrid |" in report and "Answers (extractive)" in report
    for png in ("recall_at_k.png", "latency.png", "per_type.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_exits_non_zero_on_regression(smoke_run: tuple[Path, int], corpus_dir: Path, tmp_path: Path) -> None:
    out, _ = smoke_run
    previous = json.loads((out / "results.json").read_text())
    previous["summary"]["hybrid.ndcg@10"] = previous["summary"]["hybrid.ndcg@10"] + 0.5  # a better past
    fabricated = tmp_path / "previous.json"
    fabricated.write_text(json.dumps(previous))
    rc = harness.main(["dev", "--limit", "5", "--data-dir", str(corpus_dir), "--out-dir", str(tmp_path / "again"),
                       "--compare", str(fabricated), "--no-plots", "--quiet"])
    assert rc == 1
    again = json.loads((tmp_path / "again" / "results.json").read_text())
    assert [r["metric"] for r in again["compare"]["regressions"]] == ["hybrid.ndcg@10"]
    assert harness.compare(again, again)["regressions"] == []  # the same run compared with itself passes


# --- the CI regression gate ---------------------------------------------------------------------
BASELINE = Path(__file__).resolve().parent.parent / "evals" / "baselines" / "dev-smoke.json"


def test_smoke_subset_has_not_regressed_against_the_committed_baseline(corpus_dir: Path, tmp_path: Path) -> None:
    """`assistant eval dev --limit 12 --compare evals/baselines/dev-smoke.json` must pass (exit 0)."""
    out = tmp_path / "gate"
    rc = harness.main(["dev", "--limit", "12", "--data-dir", str(corpus_dir), "--out-dir", str(out),
                       "--compare", str(BASELINE), "--no-plots", "--quiet"])
    results = json.loads((out / "results.json").read_text())
    assert results["compare"]["regressions"] == [], results["compare"]
    assert rc == 0


def test_leave_one_out_records_whether_the_model_declined(mock_model: MockChatModel, corpus: Assistant) -> None:
    """A model decline is counted apart on both sides of leave-one-out: answered as asked, declined
    with the gold abstract left out (the figure that calibrates the decline, issue 9)."""
    from evals.answers import agg_answers, agg_leave_one_out, answer_question
    from evals.data import Question

    docs = corpus.retriever.docs()
    ring = next(d for d in docs.values() if d.label == "Ring Attention")
    q = Question(id="t1", text="What does Ring Attention distribute across devices?", type="lookup",
                 gold={ring.work_id}, key_points=["multiple devices"])
    mock_model.enqueue("Ring Attention distributes long sequences across multiple devices. [1]", "NOT IN SOURCES")
    rec: dict[str, Any] = {}
    answer_question(corpus, q, q.text, [], "mock", 5, docs, rec, loo=True)
    assert rec["answer"]["backend"] == "mock" and rec["loo"]["model_declined"] is True
    assert not rec["loo"]["refused"] and rec["loo"]["caveated"]  # a decline is heard: the quote is caveated
    assert rec["loo"]["caveat_kind"] == "model_declined" and rec["answer"]["caveat_kind"] is None
    assert agg_leave_one_out([rec])["model_declined"] == 1.0
    assert agg_leave_one_out([{**rec, "type": "lookup"}])["by_kind"] == {"model_declined": 1.0}
    assert agg_leave_one_out([{**rec, "type": "lookup"}])["by_type"]["lookup"]["by_kind"] == {"model_declined": 1.0}
    assert agg_answers([{**rec, "type": "lookup"}])["model_declined"] == 0


def test_hedging_and_catching_are_counted_by_caveat_kind() -> None:
    from evals.answers import by_kind, kind_of
    from evals.report import kind_rows

    outcomes = [{"refused": False, "caveated": True, "caveat_kind": "weak_match"},
                {"refused": False, "caveated": True, "caveat_kind": "asked_item"},
                {"refused": False, "caveated": True, "caveat_kind": "weak_match"},
                {"refused": True, "caveated": False, "caveat_kind": "missing_name"},
                {"refused": True, "caveated": False, "caveat_kind": None}]
    assert [kind_of(a) for a in outcomes[3:]] == ["refused:missing_name", "refused"]
    assert by_kind(outcomes[:3], 10) == {"asked_item": 0.1, "weak_match": 0.2}
    from evals.answers import agg_answers

    recs = [{"type": "paraphrase", "answer": {**a, "timings": {}, "usage": {}, "sentences": 1, "supported_sentences": 1,
                                              "citation_valid": True, "first_cited_gold": i == 0}} for i, a in enumerate(outcomes[:3])]
    agg = agg_answers(recs)
    assert agg["hedged_first_right"] == pytest.approx(1 / 3) and agg["hedged_first_wrong"] == pytest.approx(2 / 3)
    assert kind_of({"refused": False, "caveated": True}) == "unknown"  # a run made before kinds were recorded
    results = {"answers": {"all": {"hedged_by_kind": {"weak_match": 0.2, "asked_item": 0.1}, "unanswerable_by_kind": {}},
                           "by_type": {"paraphrase": {"hedged_by_kind": {"weak_match": 0.5}}}},
               "leave_one_out": {"by_kind": {"refused": 0.3}, "by_type": {"paraphrase": {"by_kind": {"refused": 0.25}}}}}
    rows = dict(kind_rows(results))
    assert rows["answerable hedged by kind"] == "weak_match 0.200, asked_item 0.100 (source [1] right –, wrong –)"
    assert rows["  paraphrase hedged by kind"] == "weak_match 0.500"
    assert rows["leave-one-out caught by kind"] == "refused 0.300"
    assert rows["  paraphrase leave-one-out caught by kind"] == "refused 0.250"


def test_summary_puts_backends_of_one_split_side_by_side(tmp_path: Path) -> None:
    from evals import summary

    def run(backend: str, declined: int, first_token: float | None) -> Path:
        latency = {"total": {"p50": 4.0}, **({"first_token": {"p50": first_token}} if first_token else {})}
        res = {"dataset": "locked", "split": "all", "kind": "dev", "backend": backend, "n_questions": 3,
               "retrieval": {"hybrid": {"all": {"recall@5": 0.5}, "by_type": {}}},
               "answers": {"all": {"key_point_coverage": 0.25, "model_declined": declined, "latency": latency}},
               "leave_one_out": {"refused_or_caveated": 0.5, "model_declined": 0.5 if declined else 0.0}}
        path = tmp_path / backend
        path.mkdir()
        (path / "results.json").write_text(json.dumps(res), encoding="utf-8")
        return path

    text = summary.table([run("extractive", 0, None), run("local", 2, 3.5)])
    lines = {line.split(" | ")[0].strip("| "): line for line in text.splitlines()}
    assert "locked (extractive)" in text and "locked (local)" in text
    assert lines["model declined (asks)"].endswith("| – | 2 |")  # an extractive run has no model to decline
    assert lines["first token p50 s"].endswith("| – | 3.500 |") and "0.250 | 0.250" in lines["key points"]
