"""The synthesis above a list / comparison / overview (assistant/collection/summary.py): which shapes
a "lead" backend (the local default) writes it for, and the bench that times those answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from assistant import Assistant

COMPARE_Q = "How do Ring Attention and FlashAttention differ?"
LIST_Q = "Which papers study state space models?"


def test_a_lead_backend_shows_a_comparison_side_by_side_without_asking_the_model(corpus_dir: Path, mock_model: Any) -> None:
    """A "lead" backend writes no contrast above a comparison (settings.prompts.summary_shapes): the
    model is not asked, the answer is extraction's side by side, with no "list alone" fallback; a
    list still gets its synthesis from the same backend."""
    lead = Assistant(data_dir=corpus_dir, backend="extractive", prompts={"designs": {"mock": "lead"}})
    extractive = lead.ask(COMPARE_Q, backend="extractive")
    mock_model.enqueue("Ring Attention and FlashAttention both compute exact attention [1][2].")
    ans = lead.ask(COMPARE_Q, backend="mock")
    assert ans.shape == "compare" and mock_model.prompts == []
    assert ans.text == extractive.text and ans.fallback_reason is None and "summary" not in ans.timings
    listed = lead.ask(LIST_Q, backend="extractive")
    mock_model.replies.clear()
    mock_model.enqueue(f"{listed.items[0].text.rstrip('.')} [1].\n")
    ans = lead.ask(LIST_Q, backend="mock")
    assert ans.shape == "list" and len(mock_model.prompts) == 1 and ans.text.endswith(listed.text)
    assert ans.text != listed.text and ans.fallback_reason is None


def test_comparison_summary_follows_the_setting_and_the_write_design(corpus_dir: Path, mock_model: Any) -> None:
    """With "compare" among ``summary_shapes`` a lead backend is asked again; a "write" backend (no
    design given: every shape) is asked for a comparison's synthesis whatever that setting says."""
    lead = Assistant(data_dir=corpus_dir, backend="extractive",
                     prompts={"designs": {"mock": "lead"}, "summary_shapes": ["list", "overview", "compare"]})
    lead.ask(COMPARE_Q, backend="mock")  # nothing enqueued: the model fails, the list stays
    assert len(mock_model.prompts) == 1
    writer = Assistant(data_dir=corpus_dir, backend="extractive", prompts={"summary_shapes": []})
    ans = writer.ask(COMPARE_Q, backend="mock")
    assert len(mock_model.prompts) == 2 and ans.shape == "compare" and "list alone" in (ans.fallback_reason or "")


def test_bench_lists_by_shape_asks_each_tuning_question_once() -> None:
    """``bench_local --lists N --shape S``: only questions of that shape, from the three collection
    sets (overview_written too), no follow-ups, none twice."""
    from evals.bench_local import SHAPE_SETS, list_questions

    root = Path(__file__).resolve().parent.parent / "evals" / "datasets"
    rows = {json.loads(line)["question"]: json.loads(line) for name in SHAPE_SETS
            for line in (root / f"{name}.jsonl").read_text().splitlines() if line.strip()}
    for shape in ("list", "compare", "overview"):
        questions = list_questions(12, shape, SHAPE_SETS)
        assert len(questions) == 12 == len(set(questions))
        assert all(rows[q]["shape"] == shape and not rows[q].get("previous") for q in questions)
    overviews = list_questions(40, "overview", SHAPE_SETS)
    assert any(rows[q]["split"] == "written" for q in overviews)  # overview_written's own questions


def test_the_synthesis_is_verified_against_the_items_the_model_was_shown(corpus_dir: Path, mock_model: Any) -> None:
    """A synthesis sentence is checked against the abstracts of the items in its prompt only: one that
    only a later item (never shown) states is dropped, not re-pointed to it; one a shown item states
    keeps that item's list number and adds its span to that citation's evidence."""
    lead = Assistant(data_dir=corpus_dir, backend="extractive", prompts={"designs": {"mock": "lead"}})
    listed = lead.ask(LIST_Q, backend="extractive")
    k = lead.settings.prompts.summary_items
    assert len(listed.citations) > k + 1
    unseen = listed.items[k + 1]
    mock_model.enqueue(f"{unseen.text.rstrip('.')} [1].\n")
    ans = lead.ask(LIST_Q, backend="mock")
    assert unseen.label in listed.text and unseen.label not in mock_model.prompts[0][1]["content"]
    assert ans.text == listed.text and "list alone" in (ans.fallback_reason or "")
    second = listed.items[1]
    mock_model.enqueue(f"{second.text.rstrip('.')} [2].\n")
    ans = lead.ask(LIST_Q, backend="mock")
    summary, _, rest = ans.text.partition("\n\n")
    assert rest == listed.text and summary.endswith("[2]") and ans.fallback_reason is None
    assert ans.sentences[0].citations == [2] and len(ans.citations[1].evidence) >= len(listed.citations[1].evidence)


def test_the_list_streams_before_the_models_synthesis(corpus_dir: Path, mock_model: Any) -> None:
    """The extracted list is the first text streamed; the synthesis, written after it, opens the
    final answer above the same list (the page shows the list while the model writes)."""
    lead = Assistant(data_dir=corpus_dir, backend="extractive", prompts={"designs": {"mock": "lead"}})
    listed = lead.ask(LIST_Q, backend="extractive")
    mock_model.enqueue(f"{listed.items[0].text.rstrip('.')} [1].\n")
    parts = list(lead.stream(LIST_Q, backend="mock"))
    first, final = parts[0], parts[-1]
    assert first == listed.text and mock_model.prompts  # streamed before the summary, then the model asked
    assert final.text.endswith(listed.text) and final.text != listed.text and "summary" in final.timings
