"""The learned reading of a question's shape: one fact, a list of papers, a comparison, an overview.

A multinomial logistic model over the TF-IDF of the question's word 1-3-grams and whether it
follows an earlier turn, fitted on readers' labelled questions (``evals/datasets/
questions_written.jsonl`` and the earlier hand-written shape sets) by ``python -m evals.fit_shapes
fit`` (part of ``make fit``); the weights ship as package data (``assistant/models/shape.json``)
and are read with numpy alone. The vectorizer is scikit-learn's ``TfidfVectorizer`` (its token
pattern, sublinear term frequency, L2 norm), written out here so the product needs no scikit-learn.

It decides the kind; the frame rules (``assistant.shape.detect``) still say what a list,
comparison or overview is about (its topic, the names compared) — see ``assistant.shape.read``.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

# scikit-learn's default token pattern: words of two or more word characters
TOKEN_PATTERN = re.compile(r"(?u)\b\w\w+\b")


@dataclass(frozen=True)
class ShapeReader:
    kinds: tuple[str, ...]
    vocabulary: dict[str, int]
    idf: np.ndarray
    ngrams: tuple[int, int]
    coef: np.ndarray  # kinds x (vocabulary + 1): the last column weighs "follows an earlier turn"
    bias: np.ndarray

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ShapeReader:
        return cls(tuple(d["kinds"]), d["vocabulary"], np.asarray(d["idf"], np.float64), tuple(d["ngrams"]),
                   np.asarray(d["coef"], np.float64), np.asarray(d["bias"], np.float64))

    def probabilities(self, question: str, follows: bool) -> dict[str, float]:
        words = TOKEN_PATTERN.findall(question.lower())
        grams: Counter[int] = Counter()
        lo, hi = self.ngrams
        for n in range(lo, hi + 1):
            for i in range(len(words) - n + 1):
                j = self.vocabulary.get(" ".join(words[i : i + n]))
                if j is not None:
                    grams[j] += 1
        weights = {j: (1.0 + math.log(c)) * self.idf[j] for j, c in grams.items()}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        z = self.bias + self.coef[:, -1] * (1.0 if follows else 0.0)
        for j, w in weights.items():
            z = z + self.coef[:, j] * (w / norm)
        e = np.exp(z - z.max())
        return {k: float(v) for k, v in zip(self.kinds, e / e.sum(), strict=True)}

    def kind(self, question: str, follows: bool) -> str:
        p = self.probabilities(question, follows)
        return max(p, key=lambda k: p[k])


@cache
def reader() -> ShapeReader:
    """The shipped model (``assistant/models/shape.json``)."""
    return ShapeReader.from_json(json.loads(resources.files("assistant").joinpath("models", "shape.json").read_text()))
