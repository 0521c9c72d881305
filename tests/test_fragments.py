"""Incomplete sentences (#20): a claim that stops where English grammar needs more is never shown
as verified, whatever its words share with the cited abstract; nor is a claim said of several
works ("Both papers ...") that cites one; a verbatim quote of a source and a complete paraphrase
keep passing (real abstracts of the corpus, real MiniLM)."""

from __future__ import annotations

from typing import Any

import pytest

from assistant import Assistant
from assistant.verify.attribution import collective, incomplete
from assistant.verify.citations import COLLECTIVE, INCOMPLETE, Verifier

RING = "Ring Attention distributes long sequences across multiple devices while overlapping the communication of key-value blocks"
FLASH = "FlashAttention IO-aware exact attention tiling reduces reads and writes between GPU HBM and SRAM"

# each stops before what its last word needs: a determiner's noun, a copula's complement, a
# preposition's object (the marker is the citation, not the object), a transitive verb's object
FRAGMENTS = [
    "Ring Attention leverages blockwise computation of self-attention to distribute long sequences across the [1].",
    "Ring Attention enables training and inference of sequences that are device count times longer than those of [1].",
    "The memory efficiency of Ring Attention is [1].",
    "FlashAttention uses tiling to reduce the number of memory reads and writes between [2].",
    "FlashAttention achieves [2].",
    "FlashAttention has achieved [2].",
]
COMPLETE = [
    "Ring Attention distributes long sequences across multiple devices [1].",
    "FlashAttention uses tiling to reduce memory reads and writes between GPU HBM and on-chip SRAM [2].",
    "FlashAttention trains Transformers faster than existing baselines [2].",
]


@pytest.fixture(scope="module")
def assistant(corpus_dir: Any) -> Assistant:
    return Assistant(data_dir=corpus_dir, backend="extractive")


@pytest.fixture(scope="module")
def verifier(assistant: Assistant) -> Verifier:
    texts = [assistant.search(q, k=1)[0].text for q in (RING, FLASH)]
    assert "Ring Attention" in texts[0] and "FlashAttention" in texts[1]
    return Verifier(texts, assistant.engine.cache, assistant.engine.idf())


@pytest.mark.parametrize("fragment", FRAGMENTS)
def test_an_incomplete_sentence_is_dropped_with_its_reason(
    verifier: Verifier, fragment: str
) -> None:
    out = verifier.verify(fragment)
    (s,) = out.sentences
    assert not s.supported and s.citations == [] and s.reason and s.reason.startswith(INCOMPLETE)
    assert out.text == ""


def test_complete_sentences_beside_a_fragment_keep_their_citations(verifier: Verifier) -> None:
    out = verifier.verify(" ".join([COMPLETE[0], "FlashAttention achieves [2].", *COMPLETE[1:]]))
    assert [s.supported for s in out.sentences] == [True, False, True, True]
    assert [s.citations for s in out.sentences] == [[1], [], [2], [2]]
    assert "“achieves”" in (out.sentences[1].reason or "") and "achieves" not in out.text


def test_a_verbatim_quote_is_its_source_statement_even_ending_in_a_preposition(
    assistant: Assistant,
) -> None:
    source = (
        "We study sparse attention kernels for long inputs. Our kernel is the one that prior systems "
        "were built on. It runs on commodity GPUs."
    )
    quote = "Our kernel is the one that prior systems were built on."
    assert incomplete(quote)  # as a claim of its own it stops at a preposition
    v = Verifier([source], assistant.engine.cache, assistant.engine.idf())
    (s,) = v.verify(f"{quote} [1]").sentences
    assert s.supported and s.citations == [1] and s.reason is None


@pytest.mark.parametrize(
    "sentence",
    [
        "FlashAttention is faster than standard attention is.",  # comparative ellipsis
        "The paper explains what attention is.",  # an interrogative gap
        "This is what the method is based on.",
        "It supports text, images, audio, and so on.",
        "The gains are small, as the results show.",
        "Significant speedups are achieved.",  # a passive needs no object
        "Its accuracy is higher than Llama's.",
        "The main contributions are:",  # a colon announces what follows
        "The model is trained with method A.",
        "It outperforms the baseline by 15.2%.",
        "It bypasses the transformer computation in-between.",  # a compound adverb
    ],
)
def test_complete_endings_are_not_fragments(sentence: str) -> None:
    assert incomplete(sentence) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "Sana's main feature is.",
        "The method achieves.",
        "X is based on.",
        "It builds on Google's.",
        "The results show that the.",
        "Sana uses a linear DiT and",
        "We propose.",
        "The method can achieve.",
        "Sana is designed as a model whose main feature is.",
    ],
)
def test_endings_that_need_more_are_fragments(sentence: str) -> None:
    assert incomplete(sentence)


def test_a_claim_said_of_several_works_needs_a_source_for_each(verifier: Verifier) -> None:
    claim = "Both papers distribute long sequences across multiple devices"
    one, two = (
        verifier.verify(f"{claim} [1].").sentences,
        verifier.verify(f"{claim} [1, 2].").sentences,
    )
    assert not one[0].supported and one[0].reason == COLLECTIVE
    assert two[0].reason != COLLECTIVE  # two cited: judged by the usual support check
    kept = verifier.verify(
        "Ring Attention distributes long sequences across multiple devices [1]."
    ).sentences
    assert kept[0].supported


def test_a_claim_said_of_several_works_cites_every_source_that_states_it(
    assistant: Assistant,
) -> None:
    sources = [
        "We introduce Mega, a gated attention model. Mega is evaluated on the Long Range Arena benchmark.",
        "We propose S4, a structured state space model. S4 is evaluated on the Long Range Arena benchmark.",
        "We study protein folding with diffusion models. The models fold proteins quickly.",
    ]
    v = Verifier(sources, assistant.engine.cache, assistant.engine.idf())
    (s,) = v.verify("Both papers are evaluated on the Long Range Arena benchmark [1].").sentences
    assert (
        s.supported and s.citations == [1, 2] and s.repaired and "several works" in (s.reason or "")
    )


@pytest.mark.parametrize(
    ("sentence", "said_of_several"),
    [
        ("Both papers present training-free activation sparsity methods.", True),
        (
            "The abstracts introduce a transformer, and they are both about model architecture.",
            True,
        ),
        ("All three recent papers use X.", True),
        ("These two studies use X.", True),
        ("Both TTT-Linear and TTT-MLP match or exceed the baselines.", False),  # names, each cited
        ("The model works well on long inputs.", False),  # "works" is the verb
        ("The paper studies attention sinks.", False),
    ],
)
def test_said_of_several_works(sentence: str, said_of_several: bool) -> None:
    assert collective(sentence) is said_of_several
