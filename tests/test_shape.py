"""The question's shape (assistant/shape.py): fact, list, compare, overview — from English alone."""

from __future__ import annotations

import pytest

from assistant.shape import COMPARE, FACT, LIST, OVERVIEW, detect


@pytest.mark.parametrize(("question", "topic"), [
    ("which papers here study state space models?", "state space models"),
    ("Which abstracts mention mixture of experts?", "mixture of experts"),
    ("List the papers that mention speculative decoding.", "speculative decoding"),
    ("Are there any papers about retrieval-augmented generation?", "retrieval-augmented generation"),
    ("How many papers are there on linear attention?", "linear attention"),
    ("Which papers study how transformers do arithmetic?", "how transformers do arithmetic"),
    ("Which abstracts introduce a model called Zebra, and what is each one designed for?", "model called Zebra"),
    ("What works in the collection deal with beam search?", "beam search"),
])
def test_plural_works_questions_are_lists_with_their_topic(question: str, topic: str) -> None:
    shape = detect(question)
    assert shape.kind == LIST and shape.topic == topic


@pytest.mark.parametrize("question", [
    "Which work proposes alternating between a memorizing phase and a squeezing phase?",  # singular: one paper
    "What methods does FlashAttention use?",  # plural object of a named subject
    "How many patent documents was PaECTER fine-tuned on?",
    "What datasets does the Ring Attention paper use?",
    "What is the performance of Mamba compared to that of the Transformer?",  # a comparison inside one paper
    "What is Ring Attention?",
    "Which of these report speed-ups?",  # "these" without a previous list
    "",
])
def test_single_fact_questions_stay_facts(question: str) -> None:
    assert detect(question).kind == FACT


@pytest.mark.parametrize(("question", "names"), [
    ("How do Ring Attention and FlashAttention differ?", ["Ring Attention", "FlashAttention"]),
    ("Compare Mamba and HGRN.", ["Mamba", "HGRN"]),
    ("Mamba vs. Hyena: which is faster?", ["Mamba", "Hyena"]),
    ("What is the difference between RetNet and RWKV?", ["RetNet", "RWKV"]),
])
def test_comparison_frames_with_two_names(question: str, names: list[str]) -> None:
    shape = detect(question)
    assert shape.kind == COMPARE and shape.names == names


def test_a_comparison_frame_needs_two_names() -> None:
    assert detect("How do the two methods differ?").kind == FACT
    assert detect("Compare the approaches.").kind == FACT


@pytest.mark.parametrize(("question", "topic"), [
    ("What is known about state space models?", "state space models"),
    ("What has been tried for long-context extrapolation?", "long-context extrapolation"),
    ("Give an overview of knowledge distillation.", "knowledge distillation"),
    ("What do the papers say about layer normalization?", "layer normalization"),
])
def test_overviews(question: str, topic: str) -> None:
    shape = detect(question)
    assert shape.kind == OVERVIEW and shape.topic == topic


def test_which_of_these_picks_from_a_previous_list() -> None:
    shape = detect("Which of these report speed-ups?", previous_was_list=True)
    assert shape.kind == LIST and shape.follow_up and shape.topic == "speed-ups"


def test_do_support_makes_the_works_noun_an_object() -> None:
    assert detect("How many papers does the survey of Mamba models review?").kind == FACT
    assert detect("Which papers does the collection have on mixture of experts?").topic == "mixture of experts"
    assert detect("Which papers are about Mamba?").kind == LIST
