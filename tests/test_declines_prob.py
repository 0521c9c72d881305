"""The local model's decline by its probability (evals/declines_prob.py, issue #20 / #19): P(decline)
from the first token's top log-probabilities, the probe that reads it from the engine's own lead
request, and the bar's fit. The real engine and corpus; the model is the conftest mock with the
one method the probe needs (llama.cpp's ``first_token_logprobs``, below the model boundary)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from assistant import Assistant
from assistant.compose.answer_text import DECLINED_REASON
from evals.declines_prob import Probing, choose, decline_probability, policy, score

QUESTION = "What does Ring Attention distribute across devices?"


def lp(p: float) -> float:
    return math.log(p)


def test_decline_probability_sums_the_decline_tokens_without_renormalising() -> None:
    top = [{"token": "Ring", "logprob": lp(0.5)}, {"token": "NOT", "logprob": lp(0.2)},
           {"token": " NOT", "logprob": lp(0.05)}, {"token": "Not", "logprob": lp(0.1)}]
    assert abs(decline_probability(top) - 0.25) < 1e-9  # "Not" opens an English sentence; mass 0.85 kept as is
    assert decline_probability([{"token": "The", "logprob": 0.0}]) == 0.0


class Scored:
    """The conftest mock model with the local backend's ``first_token_logprobs``."""

    def __init__(self, inner: Any, top: list[dict[str, Any]]) -> None:
        self.inner, self.top, self.asked = inner, top, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def first_token_logprobs(self, messages: Any, *, max_tokens: int, grammar: str | None = None,
                             top: int = 10) -> tuple[str, list[dict[str, Any]]]:
        self.asked.append(messages)
        return self.top[0]["token"], self.top

    def last_timings(self) -> dict[str, Any]:
        return {"prompt_n": 1}


def test_the_probe_reads_the_engines_lead_request(corpus_dir: Path, mock_model: Any) -> None:
    a = Assistant(data_dir=corpus_dir, backend="extractive", prompts={"designs": {"mock": "lead"}})
    scored = Scored(mock_model, [{"token": "NOT", "logprob": lp(0.7)}, {"token": "Ring", "logprob": lp(0.2)}])
    seen: dict[str, Any] = {}
    factory = a.engine.model_factory
    a.engine.model_factory = lambda backend, settings: Probing(scored if backend == "mock" else factory(backend, settings), seen)
    answer = a.ask(QUESTION, backend="mock")
    assert len(scored.asked) == 1 and not mock_model.prompts  # the lead request went to the probe, not to a stream
    assert "Question: " + QUESTION in scored.asked[0][-1]["content"]
    assert abs(decline_probability(seen["top"]) - 0.7) < 1e-3 and seen["reply"] == "NOT"
    assert answer.fallback_reason == DECLINED_REASON and answer.caveat  # nothing streamed: the decline path


def row(i: int, p: float, greedy: bool, answerable: bool, right: bool = True) -> dict[str, Any]:
    plain = {"refused": False, "caveated": False, "first_cited_gold": right}
    hedged = {"refused": False, "caveated": True, "first_cited_gold": right}
    return {"source": f"s{i}", "set": "x", "type": "lookup", "loo": False, "answerable": answerable,
            "lead_asked": True, "p": p, "greedy": greedy, "declined": greedy, "outcome": "answer", "missing": [],
            "local": plain, "extractive": plain, "declined_state": hedged}


def test_the_bar_hears_confident_declines_and_overrules_weak_ones() -> None:
    rows = [row(0, 0.9, True, False), row(1, 0.8, False, False),  # unanswerable: a confident decline
            row(2, 0.35, True, True), row(3, 0.05, False, True)]  # answerable: a weak greedy decline
    b = choose(rows, 2.0)
    assert isinstance(b, float) and 0.35 < b <= 0.8
    assert score(rows, b, 2.0)[1] < score(rows, "today", 2.0)[1]
    shown = policy(rows, b)
    assert [s["local"]["caveated"] for s in shown] == [True, True, False, False]
    assert shown[2]["local"] is rows[2]["extractive"]  # an overruled decline shows extraction's answer


def test_a_probability_that_separates_nothing_keeps_today() -> None:
    rows = [row(0, 0.6, True, False), row(1, 0.6, True, True), row(2, 0.1, False, True), row(3, 0.1, False, False)]
    assert choose(rows, 1.0) == "today"
