"""Shared text base: the one term function used by BM25 and by evidence scoring."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

_WORD = re.compile(r"(?u)\b\w\w+\b")  # bm25s's default token pattern


@cache
def _stemmer() -> Any:
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer("english")


@cache
def _stopwords() -> frozenset[str]:
    # NLTK's published English list (179 words, shipped by bm25s as STOPWORDS_EN_PLUS): it holds
    # the question words (what, how, does ...) that Lucene's 33-word list lacks.
    from bm25s.stopwords import STOPWORDS_EN_PLUS

    return frozenset(STOPWORDS_EN_PLUS)


def tokens(text: str) -> list[str]:
    """Lowercased words of 2+ characters, minus English stopwords, Snowball-stemmed."""
    stop = _stopwords()
    words = [w for w in _WORD.findall(text.lower()) if w not in stop]
    return list(_stemmer().stemWords(words)) if words else []
