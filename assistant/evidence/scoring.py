"""Evidence: which sentences of the retrieved abstracts bear on a question, and how strongly.

A sentence's score mixes word overlap (IDF-weighted, over stemmed content words) with MiniLM
cosine similarity. Sentence spans and vectors are computed once per abstract (``SentenceCache``)
and shared by evidence scoring, the extractive answer and citation verification.

Whether to answer at all is decided elsewhere (``assistant.evidence.decision``): evidence only scores.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assistant.language.patterns import INSTRUCTION_LIKE
from assistant.language.text import split_sentences, tokens
from assistant.store.idf import Idf


def terms(text: str) -> list[str]:
    """The shared term function (``assistant.language.text.tokens``): the same terms BM25 indexes."""
    return tokens(text)


# English's prefixes that keep their base's kind: a "pretraining" is a training, a "finetuning" a
# tuning, a "subtask" a task, a "self-attention" an attention (English words are right-headed: the
# last part of a prefixed or compound word is its head). Written closed ("pretraining"), hyphenated
# ("pre-training", which ``terms`` already splits) or rarely open, it is one word. The negating and
# reversing prefixes (un-, non-, in-, dis-, anti-, de-) are left out: a "non-linear" is no linear.
# A closed class of English morphology, not from any question set.
_PREFIXES = ("pre", "re", "post", "co", "sub", "super", "over", "under", "self", "multi", "inter", "intra",
             "semi", "cross", "fine")
_BASE = 4  # sanity bound: the base of a prefixed word is a word ("train", "task"), not a fragment ("de", "sent")


def stated_terms(text: str) -> set[str]:
    """The terms ``text`` states: its own, and the base of each closed prefixed word in it
    ("pretraining projectors" states "training"; ``_PREFIXES``), as the focus check reads them."""
    out = set(terms(text))
    for word in re.findall(r"[A-Za-z]+", text):
        low = word.lower()
        out.update(t for p in _PREFIXES if low.startswith(p) and len(low) - len(p) >= _BASE
                   for t in terms(low[len(p):]))
    return out


def coverage(query_terms: Iterable[str], sentence_terms: set[str], idf: Idf) -> float:
    """IDF-weighted share of the query's content words found in the sentence."""
    q = list(dict.fromkeys(query_terms))  # summed in the query's order: a set's order (and the float sum's last bit) moves with PYTHONHASHSEED
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
        return np.zeros((0, int(getattr(embedder, "dimension", 0) or 0)), dtype=np.float32)
    return np.asarray(embedder(texts), dtype=np.float32)


@dataclass
class Sentence:
    doc_index: int  # position of its abstract among the hits (0-based)
    text: str
    start: int
    end: int
    lexical: float = 0.0  # IDF-weighted share of the question's terms it holds
    dense: float = 0.0  # cosine with the question
    vector: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32), repr=False)

    def score(self, lexical_weight: float) -> float:
        return lexical_weight * self.lexical + (1.0 - lexical_weight) * self.dense


@dataclass
class Evidence:
    """Scored sentences of the retrieved abstracts."""

    question: str
    texts: list[str]
    sentences: list[Sentence]

    def of_doc(self, i: int) -> list[Sentence]:
        return [s for s in self.sentences if s.doc_index == i]

    def best(self, lexical_weight: float) -> float:
        return max((s.score(lexical_weight) for s in self.sentences), default=0.0)


def score_evidence(question: str, texts: list[str], cache: SentenceCache, idf: Idf) -> Evidence:
    """Every sentence of every text, scored against the question."""
    q_terms = list(dict.fromkeys(terms(question)))
    q_vec = embed(cache.embedder, [question])[0]
    sentences: list[Sentence] = []
    for i, (text, (spans, vecs)) in enumerate(zip(texts, cache.get(texts), strict=True)):
        for (a, b), v in zip(spans, vecs, strict=True):
            s_text = text[a:b]
            if INSTRUCTION_LIKE.search(s_text):  # text addressing the model is data, never evidence
                continue
            sentences.append(Sentence(i, s_text, a, b, lexical=coverage(q_terms, set(terms(s_text)), idf),
                                      dense=float(v @ q_vec), vector=v))
    return Evidence(question, texts, sentences)


_CACHES: dict[str, SentenceCache] = {}
_CACHES_LOCK = threading.Lock()


def shared_cache(key: str, embedder: Any) -> SentenceCache:
    """Sentence vectors depend only on the embedding model: every engine of this process that
    uses the same model (``key``: its fingerprint and endpoint) shares one cache."""
    with _CACHES_LOCK:
        if key not in _CACHES:
            _CACHES[key] = SentenceCache(embedder)
        return _CACHES[key]
