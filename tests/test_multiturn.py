"""Follow-up questions: detection, rewrite before retrieval (heuristic; the LLM for openai)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from assistant import Assistant
from assistant.language.names import names
from assistant.question.conversation import is_follow_up, resolved_question, standalone_question

DEV = Path(__file__).resolve().parent.parent / "evals" / "datasets" / "dev.jsonl"
ROWS = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
BY_ID = {r["id"]: r for r in ROWS}
FOLLOW_UPS = [r for r in ROWS if r.get("previous")]


@pytest.fixture(scope="module")
def corpus(corpus_dir: Path) -> Assistant:
    """One extractive Assistant for the module (building the BM25 index costs a CPU-second)."""
    return Assistant(data_dir=corpus_dir, backend="extractive")


def openai_assistant(corpus: Assistant, fake: Any) -> Assistant:
    assistant = Assistant(data_dir=corpus.settings.data_dir, backend="openai", openai_base_url=fake.base_url,
                          openai_api_key="k", openai_max_retries=0)
    assistant.embedder, assistant.retriever = corpus.embedder, corpus.retriever  # same index: reuse them
    return assistant


def history(row: dict[str, Any], answer: str = "") -> list[dict[str, str]]:
    return [{"role": "user", "content": BY_ID[row["previous"]]["question"]}, {"role": "assistant", "content": answer}]


def has_gold(text: str, row: dict[str, Any]) -> bool:
    return any(" ".join(a.split()).lower() in " ".join(text.split()).lower() for a in row["gold_anchors"])


def test_dev_follow_ups_are_detected_and_standalone_questions_are_not() -> None:
    assert len(FOLLOW_UPS) >= 10
    assert all(is_follow_up(r["question"], history(r)) for r in FOLLOW_UPS)
    standalone = [r for r in ROWS if not r.get("previous")]
    wrongly = [r["id"] for r in standalone if is_follow_up(r["question"], [{"role": "user", "content": "Hi"}])]
    assert len(wrongly) <= len(standalone) // 20, wrongly
    assert not is_follow_up("And what about it?", [])  # no history: nothing to lean on


def test_names() -> None:
    found = names("Which GPU did FlashAttention and Ring Attention use for Llama-3.1-8B on Path-X?")
    assert found == ["GPU", "FlashAttention", "Ring Attention", "Llama-3.1-8B", "Path-X"]


def test_dev_follow_ups_retrieve_their_gold(corpus: Assistant) -> None:
    missed = []
    for row in FOLLOW_UPS:
        query = standalone_question(row["question"], history(row))
        assert query != row["question"]
        if not any(has_gold(h.text, row) for h in corpus.search(query, k=corpus.settings.top_k)):
            missed.append(row["id"])
    assert not missed


@pytest.mark.parametrize("qid", ["q038", "q016"])
def test_extractive_follow_up_answer(corpus: Assistant, qid: str) -> None:
    row = BY_ID[qid]
    first = corpus.ask(BY_ID[row["previous"]]["question"])
    answer = corpus.ask(row["question"], history=history(row, first.text))
    assert answer.standalone_question and row["question"] in answer.standalone_question
    assert not answer.refused and any(has_gold(c.text, row) for c in answer.citations)


def test_openai_condenses_the_follow_up_with_the_llm(corpus: Assistant, fake_openai: Any) -> None:
    row = BY_ID["q038"]
    condensed = "How much data was the universal variant of the FAST robot action tokenizer trained on?"
    fake_openai.enqueue(condensed)
    fake_openai.enqueue("The universal variant, FAST+, was trained on 1M real robot action trajectories [1].")
    assistant = openai_assistant(corpus, fake_openai)
    answer = assistant.ask(row["question"], history=history(row, "FAST is based on the discrete cosine transform [1]."))
    rewrite, reply = fake_openai.chat_requests
    assert BY_ID[row["previous"]]["question"] in rewrite["messages"][0]["content"]
    assert "discrete cosine transform" in rewrite["messages"][0]["content"]
    assert answer.standalone_question == condensed and condensed in reply["messages"][-1]["content"]
    assert not answer.refused and answer.fallback_reason is None
    assert any(has_gold(c.text, row) for c in answer.citations)
    assert re.search(r"\[1\]", answer.text) and answer.usage["prompt_tokens"] > 0
    assert "condense" in answer.timings


def test_openai_condense_failure_uses_the_heuristic(corpus: Assistant, fake_openai: Any) -> None:
    row = BY_ID["q038"]
    fake_openai.enqueue_fault("500")
    fake_openai.enqueue("FAST+ was trained on 1M real robot action trajectories [1].")
    assistant = openai_assistant(corpus, fake_openai)
    answer = assistant.ask(row["question"], history=history(row))
    assert answer.standalone_question == standalone_question(row["question"], history(row))
    assert not answer.refused and any(has_gold(c.text, row) for c in answer.citations)


def test_standalone_question_with_history_is_not_rewritten(corpus: Assistant, fake_openai: Any) -> None:
    fake_openai.enqueue("Decision Transformer conditions on the desired return, past states and actions [1].")
    assistant = openai_assistant(corpus, fake_openai)
    question = BY_ID["q026"]["question"]
    answer = assistant.ask(question, history=[{"role": "user", "content": "What is Ring Attention?"}])
    assert len(fake_openai.chat_requests) == 1 and answer.standalone_question is None


# --- the names a follow-up asks about (conversation.resolved_question) -------------------------------
RING = [{"role": "user", "content": "What is Ring Attention?"}, {"role": "assistant", "content": "..."}]


def test_a_follow_up_that_refers_back_carries_its_referent() -> None:
    assert "Ring Attention" in names(resolved_question("how much faster is it than blockwise attention?", RING))
    resolved = resolved_question("how does it compare to Quorvex?", RING)
    assert names(resolved) == ["Quorvex", "Ring Attention"], resolved
    assert resolved_question("What about Quorvex?", RING) == "What about Quorvex?"  # a new referent, named
    standalone = "Which tokenizer compresses robot actions with the discrete cosine transform?"
    assert resolved_question(standalone, RING) == standalone
    condensed = "How much faster is Ring Attention than blockwise attention?"
    assert resolved_question("how much faster is it?", RING, asked=condensed) == condensed


def test_the_missing_name_check_reads_the_resolved_follow_up(corpus: Assistant) -> None:
    k = corpus.settings.top_k
    turn = corpus.engine.analyze("how much faster is it than blockwise attention?", k, history=RING)
    assert turn.decision is not None and turn.decision.missing == []
    made_up = [{"role": "user", "content": "What is Quorvex Attention?"}, {"role": "assistant", "content": "..."}]
    turn = corpus.engine.analyze("how much memory does it save?", k, history=made_up)
    assert turn.decision is not None and turn.decision.missing == ["Quorvex"], turn.decision  # the part no source has
    turn = corpus.engine.analyze("how does it compare to Quorvex?", k, history=RING)
    assert turn.decision is not None and turn.decision.missing == ["Quorvex"], turn.decision
