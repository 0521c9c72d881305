"""The shared text base: one term function for BM25 and evidence, sentence spans, character classes."""

from __future__ import annotations

import bm25s
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.language.text import (
    CONTROL,
    NO_SPACE_SCRIPT,
    name_like,
    split_sentences,
    stemmer,
    stopwords,
    tokens,
)


def test_tokens_are_bm25s_tokens() -> None:
    text = "FlashAttention reduces the number of HBM reads and writes, and it is 3x faster on GPT-2."
    expected = bm25s.tokenize(text, stopwords=list(stopwords()), stemmer=stemmer(), show_progress=False, return_ids=False)[0]
    assert tokens(text) == list(expected)
    assert "the" not in tokens(text) and "and" not in tokens(text)
    assert "reduc" in tokens(text) and "flashattent" in tokens(text)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from("abcXYZ019 -.,éß中"), max_size=60))
def test_tokens_match_bm25s_on_any_text(text: str) -> None:
    expected = bm25s.tokenize(text, stopwords=list(stopwords()), stemmer=stemmer(), show_progress=False, return_ids=False)[0]
    assert tokens(text) == list(expected)


def test_stopwords_are_the_published_list() -> None:
    from bm25s.stopwords import STOPWORDS_EN_PLUS

    assert stopwords() == frozenset(STOPWORDS_EN_PLUS)
    assert tokens("it is the") == []


def test_split_sentences_spans_are_exact() -> None:
    text = "We propose X, e.g. for long inputs. It is 2x faster!  Et al. J. Smith agrees? 我们提出了方法。它很好。"
    spans = split_sentences(text)
    parts = [text[s.start : s.end] for s in spans]
    assert parts == ["We propose X, e.g. for long inputs.", "It is 2x faster!", "Et al. J. Smith agrees?",
                     "我们提出了方法。", "它很好。"]


def test_control_and_scripts() -> None:
    assert CONTROL.sub(" ", "a\x00b\tc\nd\x85e") == "a b\tc\nd e"  # tab and newline stay
    assert len(NO_SPACE_SCRIPT.findall("ภาษาไทย 中文 한국어 abc")) == 12


def test_name_like() -> None:
    assert name_like("RetNet") and name_like("A100") and name_like("Llama-3.1-8B")
    assert name_like("Ring") and not name_like("Ring", first=True)
    assert not name_like("attention") and not name_like("")
