"""Evidence: which sentences of the retrieved abstracts bear on a question, and how strongly.

A sentence's score mixes word overlap (IDF-weighted, over stemmed content words) with MiniLM
cosine similarity. Sentence spans and vectors are computed once per abstract (``SentenceCache``)
and shared by evidence scoring, the extractive answer and citation verification.

Refusal looks at the *facet* of a question: its content words minus the words that name the
topic (method and paper names, and words of the retrieved abstract's label). An abstract that
is about the topic but has no sentence covering the facet ("Which GPU ...", "... license?")
does not answer the question. See ``Evidence.answerability``.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from assistant.prompts import INSTRUCTION_LIKE
from ingest.chunking import split_sentences

_WORD = re.compile(r"[a-z0-9]+(?:[-.][a-z0-9]+)*")
_RAW_WORD = re.compile(r"[A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)*")
STOPWORDS = frozenset(
    """a an the of to in on for and or but with by from as at is are was were be been being this that these
    those it its they their them we our you your he she his her what which who whom whose when where why how
    does do did done can could should would may might will shall has have had not no yes than then there
    here about into over under between through during before after above below up down out off again further
    once all any both each few more most other some such only own same so too very s t just don also paper
    papers work works study studies propose proposed proposes present presents show shows shown method methods
    approach approaches use used uses using based new novel model models result results i me my tell explain
    describe give please much many one achieve achieves anyone instead unlike way kind abstracts""".split()
)
NUMERIC_QUESTION = re.compile(  # the question asks for a quantity: its answer holds a number
    r"\b(how (many|much)|by what|what (percentage|share|fraction|proportion|number|year|score|accuracy|rate|"
    r"speedup|size)|what \S+ (does|did|do) .*\b(achieve|reach|obtain|attain|get)\b)",
    re.I,
)
_NUMBER = re.compile(r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|twice|half|double)\b", re.I)


@cache
def _stemmer() -> Any:
    import Stemmer  # PyStemmer: a dependency of the BM25 retriever

    return Stemmer.Stemmer("english")


def terms(text: str) -> list[str]:
    """Content words, lowercased and stemmed (Snowball)."""
    words = [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) >= 2]
    return list(_stemmer().stemWords(words)) if words else []


def topic_terms(question: str, top_text: str, label: str = "") -> set[str]:
    """Terms that name the topic: words written like names (FlashAttention, RetNet, Sana-0.6B, a
    capitalised word inside the sentence) that the top abstract contains, and its label's words.
    A name the abstract lacks ("A100", "FID", "WikiText-103") is part of what is asked."""
    names: list[str] = []
    for i, m in enumerate(_RAW_WORD.finditer(question)):
        w = m.group(0)
        inner_caps = any(c.isupper() for c in w[1:])
        if inner_caps or any(c.isdigit() for c in w) or (i > 0 and w[0].isupper()):
            names.append(w)
    named = set(terms(label)) if label and not label.endswith("…") else set()
    return (set(terms(" ".join(names))) & set(terms(top_text))) | named


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


def coverage(query_terms: Iterable[str], sentence_terms: set[str], idf: Idf) -> float:
    """IDF-weighted share of the query's content words found in the sentence."""
    q = set(query_terms)
    total = sum(idf(t) for t in q)
    found = sum(idf(t) for t in q if t in sentence_terms)
    return found / total if total else 0.0


class SentenceCache:
    """Sentence spans and unit vectors of each abstract, embedded once (bounded, thread-safe)."""

    def __init__(self, embedder: Any, max_texts: int = 5000) -> None:
        self.embedder = embedder
        self.max_texts = max_texts
        self._data: OrderedDict[str, tuple[list[tuple[int, int]], np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, texts: list[str]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
        with self._lock:
            found = {t: self._data[t] for t in texts if t in self._data}
            for t in found:
                self._data.move_to_end(t)
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            for t in missing:  # one batch per abstract: its vectors never depend on the others
                spans = [(s.start, s.end) for s in split_sentences(t)]
                found[t] = (spans, embed(self.embedder, [t[a:b] for a, b in spans]))
            with self._lock:
                self._data.update((t, found[t]) for t in missing)
                while len(self._data) > self.max_texts:
                    self._data.popitem(last=False)
        return [found[t] for t in texts]


def embed(embedder: Any, texts: list[str]) -> np.ndarray:
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return np.asarray(embedder(texts), dtype=np.float32)


# Answerability of the top abstract (only its sentences holding a number count for facet words
# when the question asks for a quantity): a linear score of the best facet coverage, the best
# cosine with the facet-only question and the best cosine with the whole question. Weights from
# a logistic fit and threshold from the dev set's tune split (see evals/answer_quality.py).
FACET_LEXICAL_WEIGHT = 0.35
FACET_DENSE_WEIGHT = 0.4
DENSE_WEIGHT = 0.25
TOPIC_WEIGHT = 0.25  # a topic word counts this much in facet coverage (a name can be asked about)
REFUSE_BELOW = 0.355


@dataclass
class Sentence:
    doc_index: int  # position of its abstract among the hits (0-based)
    text: str
    start: int
    end: int
    lexical: float = 0.0  # IDF-weighted share of the question's words it holds
    dense: float = 0.0  # cosine with the question
    facet: float = 0.0  # weighted share of the question's facet words it holds
    facet_dense: float = 0.0  # cosine with the question less its topic words
    has_number: bool = False
    vector: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32), repr=False)

    @property
    def score(self) -> float:
        return 0.5 * self.lexical + 0.5 * self.dense

    @property
    def answer_score(self) -> float:
        """How well this sentence answers the asked facet."""
        return FACET_LEXICAL_WEIGHT * self.facet + FACET_DENSE_WEIGHT * self.facet_dense + DENSE_WEIGHT * self.dense


@dataclass
class Evidence:
    """Scored sentences of the retrieved abstracts, and the question analysis behind refusal."""

    question: str
    texts: list[str]
    sentences: list[Sentence]
    topic: set[str]
    facet_terms: list[str]
    numeric: bool  # the question asks for a quantity

    @property
    def strength(self) -> float:
        return max((s.score for s in self.sentences), default=0.0)

    def answerability(self) -> float:
        """How well the top abstract answers the asked-for facet (refuse below REFUSE_BELOW)."""
        top = [s for s in self.sentences if s.doc_index == 0]
        fit = [s for s in top if s.has_number or not self.numeric]
        if not fit:
            return 0.0
        return (FACET_LEXICAL_WEIGHT * max(s.facet for s in fit) + FACET_DENSE_WEIGHT * max(s.facet_dense for s in fit)
                + DENSE_WEIGHT * max(s.dense for s in top))

    def answers(self) -> bool:
        return bool(self.sentences) and self.answerability() >= REFUSE_BELOW

    def of_doc(self, i: int) -> list[Sentence]:
        return [s for s in self.sentences if s.doc_index == i]


def facet_question(question: str, topic: set[str]) -> str:
    """The question without its topic words: what is asked about the topic."""
    return " ".join(w for w in _RAW_WORD.findall(question) if not set(terms(w)) & topic)


def score_evidence(question: str, texts: list[str], labels: list[str], cache: SentenceCache, idf: Idf) -> Evidence:
    """Every sentence of every text, scored against the question."""
    q_terms = list(dict.fromkeys(terms(question)))
    topic = topic_terms(question, texts[0], labels[0]) if texts else set()
    facet = [t for t in q_terms if t not in topic]
    weights = {t: idf(t) * (TOPIC_WEIGHT if t in topic else 1.0) for t in q_terms}
    total = sum(weights.values()) or 1.0
    q_vec, f_vec = embed(cache.embedder, [question, facet_question(question, topic) or question])
    sentences: list[Sentence] = []
    for i, (text, (spans, vecs)) in enumerate(zip(texts, cache.get(texts), strict=True)):
        for (a, b), v in zip(spans, vecs, strict=True):
            s_text = text[a:b]
            if INSTRUCTION_LIKE.search(s_text):  # text addressing the model is data, never evidence
                continue
            s_terms = set(terms(s_text))
            sentences.append(Sentence(
                i, s_text, a, b, lexical=coverage(q_terms, s_terms, idf), dense=float(v @ q_vec),
                facet=sum(w for t, w in weights.items() if t in s_terms) / total,
                facet_dense=float(v @ f_vec), has_number=bool(_NUMBER.search(s_text)), vector=v,
            ))
    return Evidence(question, texts, sentences, topic, facet, bool(NUMERIC_QUESTION.search(question)))
