"""Inverse document frequency over the collection (``Idf``): from texts, or from the lexical index's
document frequencies, which hold the same terms (``assistant.language.text.tokens``)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from functools import cache
from typing import Any

from assistant.language.text import tokens as terms


class Idf:
    """Inverse document frequency over the collection: from texts, or from any document-frequency
    function (the lexical index's, which holds the same terms: ``Idf.of_index``)."""

    def __init__(self, texts: Iterable[str] = ()) -> None:
        df: Counter[str] = Counter()
        n = 0
        for t in texts:
            n += 1
            df.update(set(terms(t)))
        self.n = max(n, 1)
        self._df: Any = df.get

    @classmethod
    def of_index(cls, n: int, doc_freq: Any) -> Idf:
        idf = cls()
        idf.n = max(n, 1)
        idf._df = cache(doc_freq)
        return idf

    def without(self, texts: Iterable[str]) -> Idf:
        """This IDF with ``texts`` taken out of the collection (each counted once per term)."""
        gone: Counter[str] = Counter()
        n = 0
        for t in texts:
            n += 1
            gone.update(set(terms(t)))
        if not n:
            return self
        idf = Idf()
        idf.n = max(self.n - n, 1)
        base = self._df
        idf._df = lambda term: max((base(term) or 0) - gone[term], 0)
        return idf

    def __call__(self, term: str) -> float:
        return math.log((self.n + 1) / ((self._df(term) or 0) + 0.5))

    def holds(self, term: str) -> bool:
        """Whether any document of the collection has ``term``."""
        return bool(self._df(term))
