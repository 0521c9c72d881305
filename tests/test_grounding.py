"""Grounding: the names and numbers of a question that no source mentions."""

from __future__ import annotations

import pytest

from assistant.grounding import mentioned, missing_names, names


def test_names_are_name_like_words_joined() -> None:
    assert names("Which GPU did FlashAttention and Ring Attention use for Llama-3.1-8B on Path-X?") == [
        "GPU", "FlashAttention", "Ring Attention", "Llama-3.1-8B", "Path-X"]
    assert names("What problem does Ring Attention solve?") == ["Ring Attention"]
    assert names("How do transformers generalize?") == []  # a capital that opens the sentence is orthography


@pytest.mark.parametrize(("name", "text"), [
    ("Ring Attention", "We present RingAttention, a blockwise approach."),
    ("RingAttention", "Ring Attention distributes blocks."),
    ("ring-attention", "Ring Attention distributes blocks."),
    ("GPUs", "trained on one GPU"),
    ("LLM", "large language models are costly"),
    ("MoE", "a mixture of experts layer"),
    ("2.7x", "up to 2.7times peak memory reduction"),
    ("8-bit", "weights quantised to 8 bits"),
    ("C++", "kernels written in C++ and CUDA"),
])
def test_mentioned_variants(name: str, text: str) -> None:
    assert mentioned(name, text)


@pytest.mark.parametrize(("name", "text"), [
    ("FlashAttention-3", "FlashAttention is IO-aware and 3 times faster."),
    ("H100", "trained on A100 GPUs"),
    ("GPT-4", "GPT-4o is evaluated"),
    ("LLM", "language models, large ones"),
    ("TEAL++", "We present TEAL, a training-free activation sparsity method."),
])
def test_not_mentioned(name: str, text: str) -> None:
    assert not mentioned(name, text)


def test_missing_names_checks_every_source_and_reports_the_missing_part() -> None:
    sources = ["FlashAttention is an IO-aware exact attention algorithm for GPUs.", "Ring Attention on TPUs."]
    assert missing_names("What speedup does FlashAttention-3 report on H100 GPUs?", sources) == ["FlashAttention-3", "H100"]
    assert missing_names("How does Ring Attention use TPUs?", sources) == []
    assert missing_names("how does attention work?", sources) == []
