"""The Verifier's verbatim-quote fast path (assistant/verify/citations.py) over real abstracts and the
real MiniLM: a sentence quoting its cited abstract is kept without embedding anything; everything
else (a quote cited to the wrong abstract, an edited quote) takes the full path and its checks."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import CountingEmbedder

from assistant import Assistant
from assistant.evidence.scoring import SentenceCache
from assistant.language.text import split_sentences
from assistant.verify.citations import Verifier, verbatim_key

RING = "Ring Attention distributes long sequences across multiple devices while overlapping the communication of key-value blocks"
FLASH = "FlashAttention IO-aware exact attention tiling reduces reads and writes between GPU HBM and SRAM"


@pytest.fixture(scope="module")
def sources(corpus_dir: Any) -> tuple[list[str], Assistant]:
    assistant = Assistant(data_dir=corpus_dir, backend="extractive")
    texts = [assistant.search(q, k=1)[0].text for q in (RING, FLASH)]
    assert "Ring Attention" in texts[0] and "FlashAttention" in texts[1]
    return texts, assistant


def sentence_with(text: str, needle: str) -> str:
    return next(text[s.start : s.end] for s in split_sentences(text) if needle in text[s.start : s.end])


def fresh(sources: tuple[list[str], Assistant]) -> tuple[Verifier, CountingEmbedder]:
    texts, assistant = sources
    counting = CountingEmbedder(assistant.embedder)
    return Verifier(texts, SentenceCache(counting), assistant.engine.idf()), counting


def test_key_normalises_layout_not_words() -> None:
    assert verbatim_key("We  propose X ( a model ) , which is “fast”.") == 'We propose X (a model), which is "fast"'
    assert verbatim_key("Speed-ups of 2.4x – 3x.") == verbatim_key("Speed-ups of 2.4x - 3x")
    assert verbatim_key("It improves accuracy by 2.4%.") != verbatim_key("It improves accuracy by 2.5%.")
    assert verbatim_key("it improves accuracy") != verbatim_key("It improves accuracy")


def test_a_quote_of_its_cited_source_is_kept_without_embedding(sources: tuple[list[str], Assistant]) -> None:
    texts, _ = sources
    verifier, counting = fresh(sources)
    quote = sentence_with(texts[0], "Ring Attention")
    result = verifier.verify(f"{' '.join(quote.rstrip('.').split())} [1]")
    [s] = result.sentences
    assert s.supported and s.citations == [1] and not s.repaired and s.reason is None
    ev = result.evidence[0][0]
    assert texts[0][ev.start : ev.end] == quote and ev.score > 0.9
    assert counting.texts == []  # nothing embedded: not the claim, not any source sentence


def test_a_quote_cited_to_another_source_is_re_pointed(sources: tuple[list[str], Assistant]) -> None:
    texts, _ = sources
    verifier, counting = fresh(sources)
    quote = sentence_with(texts[0], "Ring Attention")
    [s] = verifier.verify(f"{quote} [2]").sentences
    assert s.supported and s.repaired and s.citations == [1]  # numbered in order of use: source 1 is [1]
    assert verifier.verify(f"{quote} [2]").order == [0]
    assert counting.texts  # the full path ran


def test_an_edited_quote_takes_the_full_path(sources: tuple[list[str], Assistant]) -> None:
    texts, _ = sources
    verifier, counting = fresh(sources)
    quote = sentence_with(texts[1], "FlashAttention")
    swapped = quote.replace("FlashAttention", "Ring Attention", 1)
    assert swapped != quote
    [s] = verifier.verify(f"{swapped} [2]").sentences
    assert counting.texts  # not a quote any more: embedded and checked in full
    assert not (s.supported and s.citations == [2] and not s.repaired)  # said of another name: never kept as cited
