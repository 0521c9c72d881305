"""The learned sentence scorer: the probability that an evidence sentence answers the question,
and the sentences a single-fact answer shows.

A logistic model over what evidence scoring already computes (``assistant.evidence.scoring``): the
sentence's MiniLM cosine and IDF-weighted term share with the question, each also relative to the
best in its abstract and the best overall, its abstract's place among those read, its position and
length in the abstract, the share of the question's names and numbers it repeats, and the logit of
the sentence cross-encoder (MiniLM fine-tuned on the readers' (question, sentence) labels by ``make
train``, ``assistant/models/sentence_ce.onnx``; it reads the pair together, where the frozen
features and their vector products had reached their limit: docs/learned.md). Fitted on
readers' labels of (question, sentence) pairs (``evals/datasets/questions_written.jsonl``,
``sentences_retrieved_written.jsonl``) by ``python -m evals.fit_sentences fit --ce`` (part of ``make
fit``); the weights ship as package data (``assistant/models/sentence_scorer.json``), read with
numpy, and the cross-encoder runs with onnxruntime. The cross-encoder reads only the sentences the
logistic without its feature ranks first (``reads``, 4 of about 25: the answers of the held-out reader
batch are the same as reading all of them, at a sixth of the cost; docs/learned.md).

``pick`` is the answer a reader needs: the sentence most likely to answer, then a second sentence
of the same abstract, or one of another abstract, only when its own probability reaches the fitted
bars (``second``, ``other``), in reading order. The probabilities of the best sentence also give
the caveat decision its signal (``best``).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from assistant.evidence.scoring import Evidence, Sentence
from assistant.store.cross_encoder import CrossEncoder
from assistant.store.cross_encoder import load as load_cross_encoder

FEATURES = ("dense", "lexical", "dense_doc", "lexical_doc", "dense_all", "lexical_all", "rank0", "rank1",
            "position", "first", "last", "length", "numbers", "names", "has_number")
# digits with their decimal part (a figure the question repeats: "2.7", "128")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)?")
# a word with its inner hyphens and dots kept (GPT-4, Llama-3.1): orthography, from no question set
_WORD = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*\b")


def _names(text: str) -> set[str]:
    """Words written like names (an inner capital or a digit: RetNet, GPT-4, A100), lowercased."""
    return {w.lower() for w in _WORD.findall(text) if any(c.isupper() for c in w[1:]) or any(c.isdigit() for c in w)}


def positions(evidence: Evidence) -> list[tuple[int, int]]:
    """Each evidence sentence's (index in its abstract, sentences in that abstract)."""
    by_doc: dict[int, list[int]] = {}
    for j, s in enumerate(evidence.sentences):
        by_doc.setdefault(s.doc_index, []).append(j)
    out = [(0, 1)] * len(evidence.sentences)
    for js in by_doc.values():
        js.sort(key=lambda j: evidence.sentences[j].start)
        for n, j in enumerate(js):
            out[j] = (n, len(js))
    return out


def features(question: str, sentences: list[Sentence], where: list[tuple[int, int]]) -> np.ndarray:
    """One row of ``FEATURES`` per sentence."""
    if not sentences:
        return np.zeros((0, len(FEATURES)), np.float32)
    q_nums, q_names = set(_DIGITS.findall(question)), _names(question)
    dense = np.array([s.dense for s in sentences], np.float32)
    lexical = np.array([s.lexical for s in sentences], np.float32)
    best_d: dict[int, float] = {}
    best_l: dict[int, float] = {}
    for s in sentences:
        best_d[s.doc_index] = max(best_d.get(s.doc_index, -1.0), s.dense)
        best_l[s.doc_index] = max(best_l.get(s.doc_index, -1.0), s.lexical)
    top_d, top_l = float(dense.max()), float(lexical.max())
    rows = []
    for s, (pos, n) in zip(sentences, where, strict=True):
        nums = set(_DIGITS.findall(s.text))
        rows.append([
            s.dense, s.lexical, s.dense - best_d[s.doc_index], s.lexical - best_l[s.doc_index],
            s.dense - top_d, s.lexical - top_l,
            float(s.doc_index == 0), float(s.doc_index == 1),
            pos / max(n - 1, 1), float(pos == 0), float(pos == n - 1),
            math.log1p(len(s.text.split())) / 4.0,
            len(q_nums & nums) / len(q_nums) if q_nums else 0.0,
            len(q_names & _names(s.text)) / len(q_names) if q_names else 0.0,
            float(bool(nums)),
        ])
    return np.asarray(rows, np.float32)


def _logistic(x: np.ndarray, mean: np.ndarray, scale: np.ndarray, coef: np.ndarray, bias: float) -> np.ndarray:
    return (1.0 / (1.0 + np.exp(-(((x - mean) / scale) @ coef + bias)))).astype(np.float32)


@dataclass(frozen=True)
class SentenceScorer:
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    bias: float
    second: float  # a second sentence of the answering abstract is shown from this probability
    other: float  # a sentence of another abstract is shown (and cited) from this probability
    # the sentence cross-encoder whose logit for (question, sentence) is the model's last feature
    cross_encoder: CrossEncoder | None = None
    # the cascade: the same logistic fitted without the cross-encoder's feature (mean, scale, coef,
    # bias) ranks the sentences, and only its first ``reads`` are read by the cross-encoder; the
    # others get probability 0 (0 reads: every sentence is read)
    prefilter: tuple[np.ndarray, np.ndarray, np.ndarray, float] | None = None
    reads: int = 0

    def probabilities(self, evidence: Evidence) -> np.ndarray:
        return self._scores(evidence)[0]

    def ranked(self, evidence: Evidence, n: int) -> list[Sentence]:
        """The ``n`` sentences likeliest to answer, likeliest first (the "pick" design's candidates):
        those the cross-encoder read by their probability, then the others as the model without it
        ranks them."""
        p, pre = self._scores(evidence)
        order = sorted(range(len(p)), key=lambda j: (p[j] <= 0, -float(p[j]), -float(pre[j])))
        return [evidence.sentences[j] for j in order[:n]]

    def _scores(self, evidence: Evidence) -> tuple[np.ndarray, np.ndarray]:
        """Each sentence's probability, and the cascade's ranking score (the model without the
        cross-encoder's; the probability itself where there is no cascade)."""
        x = features(evidence.question, evidence.sentences, positions(evidence))
        if not len(x):
            return np.zeros(0, np.float32), np.zeros(0, np.float32)
        if self.cross_encoder is None:
            p = _logistic(x, self.mean, self.scale, self.coef, self.bias)
            return p, p
        pre = _logistic(x, *self.prefilter) if self.prefilter is not None else None
        read = np.arange(len(x))
        if pre is not None and 0 < self.reads < len(x):
            read = np.sort(np.argsort(-pre, kind="stable")[: self.reads])
        ce = self.cross_encoder.logits([(evidence.question, evidence.sentences[j].text) for j in read])
        out = np.zeros(len(x), np.float32)
        out[read] = _logistic(np.hstack([x[read], ce[:, None]]), self.mean, self.scale, self.coef, self.bias)
        return out, out if pre is None else pre

    def pick(self, evidence: Evidence, probs: np.ndarray | None = None) -> list[Sentence]:
        """The sentences a single-fact answer shows: the likeliest to answer, then the same
        abstract's next likeliest when it reaches ``second``, and the best of each other abstract
        when it reaches ``other``; the answering abstract's in reading order, then the others."""
        sents = evidence.sentences
        if not sents:
            return []
        p = self.probabilities(evidence) if probs is None else probs
        order = sorted(range(len(sents)), key=lambda j: -p[j])
        lead = order[0]
        doc = sents[lead].doc_index
        same = [j for j in order if j != lead and sents[j].doc_index == doc][:1]
        own = sorted([lead, *[j for j in same if p[j] >= self.second]], key=lambda j: sents[j].start)
        others: list[int] = []
        for j in order:
            d = sents[j].doc_index
            if d != doc and p[j] >= self.other and all(sents[o].doc_index != d for o in others):
                others.append(j)
        return [sents[j] for j in own + others[:1]]


@cache
def scorer() -> SentenceScorer:
    """The shipped model (``assistant/models/sentence_scorer.json``)."""
    models = resources.files("assistant").joinpath("models")
    d = json.loads(models.joinpath("sentence_scorer.json").read_text())
    m = d["model"]
    ce = None
    if d.get("cross_encoder"):
        ce = load_cross_encoder(str(models.joinpath(d["cross_encoder"])))
        if ce is None:
            raise FileNotFoundError(f"assistant/models/{d['cross_encoder']} is missing: the sentence scorer reads it")
    pre = d.get("prefilter")
    return SentenceScorer(*_weights(m), float(d["bars"]["second"]), float(d["bars"]["other"]), ce,
                          _weights(pre) if ce is not None and pre else None, int(d.get("reads", 0)))


def _weights(m: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    return (np.asarray(m["mean"], np.float32), np.asarray(m["scale"], np.float32),
            np.asarray(m["coef"], np.float32), float(m["bias"]))
