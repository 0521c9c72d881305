"""The question's shape re-read by the model where the question reads as a fact (assistant/question/shape_model.py)."""

from __future__ import annotations

import json
from typing import Any

from local_model import model_settings  # noqa: F401  (fixture: the real packaged model, or a skip)

from assistant import Assistant
from assistant.backends.local import LocalChatModel
from assistant.language.prompt_texts import shape_messages as messages
from assistant.question.shape import learned_shape
from assistant.question.shape_model import (
    GRAMMAR,
    NOTE,
    eligible,
    overview_probability,
    parse,
    probabilities,
)
from assistant.settings import Settings
from evals.shapes_model import CACHE, FIT_PATH, cached_readings
from evals.shapes_model_fit import fit

# written for these tests (no evaluation question): an overview request in wording the frames read as a fact
OVERVIEW_ASKED = "Paint me a picture of research on protein language models."
# an overview request the learned reader takes for a fact: the one the model is asked to re-read
READ_AS_FACT = "Give me the lay of the land in protein language models."


def _with_mock_backend(corpus: Assistant) -> Assistant:
    settings = corpus.settings.model_copy(deep=True)
    settings.collection.shape_model_backends = ["mock"]
    return Assistant(settings=settings, embedder=corpus.embedder, store=corpus.store)


def test_reply_and_probabilities_are_read_from_the_four_words() -> None:
    assert parse("overview") == "overview" and parse(" List") == "list" and parse("no idea") == "fact"
    top = [{"token": "overview", "logprob": -0.5}, {"token": " overview", "logprob": -0.1}, {"token": "fact", "logprob": -1.5},
           {"token": "Overview", "logprob": -0.2}, {"token": "list", "logprob": -3.0}]
    p = probabilities(top)  # only the grammar's own tokens count; "compare" absent: probability 0
    assert abs(sum(p.values()) - 1) < 1e-3 and p["compare"] == 0.0 and p["overview"] > p["fact"] > p["list"]
    assert probabilities([]) == {"fact": 0.0, "list": 0.0, "compare": 0.0, "overview": 0.0}
    assert all(f'"{s}"' in GRAMMAR for s in ("fact", "list", "compare", "overview"))
    system, user = messages("  What is   known?")
    assert "overview" in system["content"] and user == {"role": "user", "content": "What is known?"}


def test_only_an_unnamed_unanchored_fact_is_eligible() -> None:
    assert learned_shape(READ_AS_FACT).is_fact and eligible(READ_AS_FACT, learned_shape(READ_AS_FACT))
    named = "Paint me a picture of research on FlashAttention."
    assert not eligible(named, learned_shape(named))  # a named work's fact stays a fact
    anchored = "Paint me a picture of what the paper found."
    assert not eligible(anchored, learned_shape(anchored))
    listed = "Which papers study protein language models?"
    assert not eligible(listed, learned_shape(listed))  # a list is never re-read


def test_the_model_turns_an_eligible_fact_into_an_overview_and_says_so(corpus: Assistant, mock_model: Any) -> None:
    assistant = _with_mock_backend(corpus)
    mock_model.enqueue("overview")  # the shape; no abstract writes "protein language models": a hedged overview
    ans = assistant.ask(READ_AS_FACT, backend="mock")
    assert mock_model.prompts[0] == messages(READ_AS_FACT)
    assert ans.shape == "overview"
    assert NOTE.format(backend="mock") in ans.text and "shape_model" in ans.timings
    # a hedged list gets no synthesis above its caveat (collection_summary.HEDGED): the model is asked the shape
    # only; whether the closest abstracts (Bio-xLSTM's proteins) reach the meaning floor or none is listed
    # depends on the chunk vectors
    assert ans.caveat_kind in ("list_unwritten", "list_none") and len(mock_model.prompts) == 1
    assert ans.fallback_reason is None and bool(ans.items) == (ans.caveat_kind == "list_unwritten")


def test_a_fact_reply_keeps_the_fact_and_other_backends_never_ask(corpus: Assistant, mock_model: Any) -> None:
    assistant = _with_mock_backend(corpus)
    mock_model.enqueue("fact", "An answer [1].")
    ans = assistant.ask(READ_AS_FACT, backend="mock")
    assert ans.shape == "fact" and "phrase rules" not in ans.text and mock_model.prompts[0] == messages(READ_AS_FACT)
    mock_model.prompts.clear()
    assert assistant.ask(READ_AS_FACT).shape == "fact"  # extractive: the reader's fact, never re-read
    named = "Paint me a picture of research on FlashAttention."
    mock_model.enqueue("An answer [1].")
    assistant.ask(named, backend="mock")
    assert all(p != messages(named) for p in mock_model.prompts)  # a named question is never re-read
    mock_model.prompts.clear()
    mock_model.enqueue("An answer [1].")
    corpus.ask(READ_AS_FACT, backend="mock")  # the default: only the local model (the one the bar was fitted on)
    assert all(p != messages(READ_AS_FACT) for p in mock_model.prompts)


def test_the_setting_is_the_committed_fit_and_the_fit_reruns_from_the_cache() -> None:
    saved = json.loads(FIT_PATH.read_text())
    assert Settings().collection.shape_model_bar == saved["bar_zero"]["bar_all"]
    rows = list(cached_readings(CACHE).values())
    again = fit(rows)
    assert again["bar_zero"]["bar_all"] == saved["bar_zero"]["bar_all"] and again["n"] == saved["n"]
    assert all(v["rate_overview"] <= 0.01 for k, v in again["bar_zero"]["held_out_by_group"].items() if k.endswith(" fact"))


def test_the_real_model_reads_an_overview_request_above_a_fact(model_settings: Settings) -> None:  # noqa: F811
    model = LocalChatModel(model_settings.model_copy(update={"local_threads": 2}))
    overview = overview_probability(model, OVERVIEW_ASKED)
    fact = overview_probability(model, "How much memory does activation checkpointing save during training?")
    assert 0.0 <= fact < overview <= 1.0
