"""Evidence: which sentences of the retrieved abstracts bear on a question, and how strongly.

Scores mix word overlap (IDF-weighted, over content words) with MiniLM cosine similarity. The same
measure serves the refusal decision, the extractive answers and citation verification.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ingest.chunking import split_sentences

_WORD = re.compile(r"[a-z0-9]+(?:[-.][a-z0-9]+)*")
STOPWORDS = frozenset(
    """a an the of to in on for and or but with by from as at is are was were be been being this that these
    those it its they their them we our you your he she his her what which who whom whose when where why how
    does do did done can could should would may might will shall has have had not no yes than then there
    here about into over under between through during before after above below up down out off again further
    once all any both each few more most other some such only own same so too very s t just don also paper
    papers work works study studies propose proposed proposes present presents show shows shown method methods
    approach approaches use used uses using based new novel model models result results i me my tell explain
    describe give please much many one two achieve achieves""".split()
)


def terms(text: str) -> list[str]:
    """Content words, lowercased, crude plural folding."""
    out = []
    for w in _WORD.findall(text.lower()):
        if w in STOPWORDS or len(w) < 2:
            continue
        if len(w) > 4 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


class Idf:
    def __init__(self, texts: Iterable[str]) -> None:
        df: Counter[str] = Counter()
        n = 0
        for t in texts:
            n += 1
            df.update(set(terms(t)))
        self.n = max(n, 1)
        self.df = df

    def __call__(self, term: str) -> float:
        return math.log((self.n + 1) / (self.df.get(term, 0) + 0.5))


@dataclass
class Sentence:
    doc_index: int  # position of its abstract among the hits (0-based)
    text: str
    start: int
    end: int
    lexical: float = 0.0
    dense: float = 0.0

    @property
    def score(self) -> float:
        return 0.5 * self.lexical + 0.5 * self.dense


def coverage(query_terms: list[str], sentence_terms: set[str], idf: Idf) -> float:
    """IDF-weighted share of the query's content words found in the sentence."""
    if not query_terms:
        return 0.0
    total = sum(idf(t) for t in set(query_terms))
    found = sum(idf(t) for t in set(query_terms) if t in sentence_terms)
    return found / total if total else 0.0


def score_sentences(question: str, texts: list[str], embedder: Any, idf: Idf) -> list[Sentence]:
    """Every sentence of every text, scored against the question."""
    sentences = [
        Sentence(i, text[s.start : s.end], s.start, s.end) for i, text in enumerate(texts) for s in split_sentences(text)
    ]
    if not sentences:
        return []
    q_terms = terms(question)
    for s in sentences:
        s.lexical = coverage(q_terms, set(terms(s.text)), idf)
    vectors = np.asarray(embedder([question] + [s.text for s in sentences]), dtype=np.float32)
    sims = vectors[1:] @ vectors[0]
    for s, sim in zip(sentences, sims, strict=True):
        s.dense = float(sim)
    return sentences
