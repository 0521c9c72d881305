"""Deterministic citation verification and repair.

For each sentence of an answer: citation numbers outside 1..k are dropped; support for each cited
source is measured against that abstract's sentences (word overlap + MiniLM cosine); a citation
that does not support its sentence is re-pointed to the source that does, or the sentence is
marked unsupported. Citations are then renumbered [1], [2], ... in order of first use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assistant.evidence import Idf, coverage, terms
from assistant.types import AnswerSentence, Evidence
from ingest.chunking import split_sentences

_MARK = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_MARK_ANY = re.compile(r"\s*\[(?:\d+(?:\s*[,;–-]\s*\d+)*)\]")

SUPPORT_THRESHOLD = 0.45  # support score a claim needs from its cited abstract
LEXICAL_WEIGHT = 0.5


@dataclass
class SourceText:
    text: str  # the abstract as displayed (spans index into it)
    sentences: list[tuple[int, int]] = field(default_factory=list)
    vectors: np.ndarray | None = None


@dataclass
class Verified:
    text: str  # the answer with repaired, renumbered markers
    sentences: list[AnswerSentence]
    order: list[int]  # original source index (0-based) for each final citation number
    evidence: dict[int, list[Evidence]]  # original source index -> supporting sentences


def parse_markers(sentence: str) -> list[int]:
    nums: list[int] = []
    for m in _MARK.finditer(sentence):
        nums += [int(x) for x in re.split(r"\s*[,;]\s*", m.group(1))]
    return nums


def strip_markers(sentence: str) -> str:
    return _MARK_ANY.sub("", sentence).strip()


def split_answer(text: str) -> list[str]:
    """Answer sentences; a citation marker after the full stop stays with its sentence."""
    text = re.sub(r"([.!?])\s*((?:\[\d+(?:\s*[,;]\s*\d+)*\]\s*)+)", r"\1 \2\n", text)
    out: list[str] = []
    for line in text.split("\n"):
        for s in split_sentences(line.strip()):
            piece = line.strip()[s.start : s.end]
            if out and _MARK_ANY.fullmatch(piece):
                out[-1] += " " + piece.strip()
            elif piece.strip():
                out.append(piece.strip())
    return out


class Verifier:
    def __init__(self, sources: list[str], embedder: Any, idf: Idf) -> None:
        self.embedder = embedder
        self.idf = idf
        self.sources = [SourceText(t, [(s.start, s.end) for s in split_sentences(t)]) for t in sources]
        flat = [t[a:b] for src, t in zip(self.sources, sources, strict=True) for a, b in src.sentences]
        vecs = np.asarray(embedder(flat), dtype=np.float32) if flat else np.zeros((0, 384), np.float32)
        i = 0
        for src in self.sources:
            src.vectors = vecs[i : i + len(src.sentences)]
            i += len(src.sentences)

    def support(self, claim: str, claim_vec: np.ndarray, index: int) -> tuple[float, int]:
        """Best support score of source ``index`` for ``claim`` and the sentence that gives it."""
        src = self.sources[index]
        if not src.sentences or src.vectors is None:
            return 0.0, -1
        claim_terms = terms(claim)
        dense = src.vectors @ claim_vec
        best, best_j = 0.0, -1
        for j, (a, b) in enumerate(src.sentences):
            lex = coverage(claim_terms, set(terms(src.text[a:b])), self.idf)
            score = LEXICAL_WEIGHT * lex + (1 - LEXICAL_WEIGHT) * float(dense[j])
            if score > best:
                best, best_j = score, j
        return best, best_j

    def verify(self, answer: str) -> Verified:
        k = len(self.sources)
        raw_sentences = split_answer(answer)
        claims = [strip_markers(s) for s in raw_sentences]
        vecs = np.asarray(self.embedder(claims), dtype=np.float32) if claims else np.zeros((0, 384))
        order: list[int] = []
        evidence: dict[int, list[Evidence]] = {}
        result: list[AnswerSentence] = []
        for raw, claim, vec in zip(raw_sentences, claims, vecs, strict=True):
            cited = [n - 1 for n in dict.fromkeys(parse_markers(raw)) if 1 <= n <= k]
            had_invalid = len(cited) != len(set(parse_markers(raw)))
            scores = {i: self.support(claim, vec, i) for i in range(k)}
            kept = [i for i in cited if scores[i][0] >= SUPPORT_THRESHOLD]
            repaired = had_invalid or len(kept) != len(cited)
            if not kept:
                best = max(scores, key=lambda i: scores[i][0]) if scores else None
                if best is not None and scores[best][0] >= SUPPORT_THRESHOLD:
                    kept, repaired = [best], True
            supported = bool(kept)
            if not claim:
                continue
            for i in kept:
                if i not in order:
                    order.append(i)
                j = scores[i][1]
                a, b = self.sources[i].sentences[j]
                ev = Evidence(self.sources[i].text[a:b], a, b, round(scores[i][0], 3))
                if all(e.start != a for e in evidence.setdefault(i, [])):
                    evidence[i].append(ev)
            result.append(AnswerSentence(text=claim, citations=kept, supported=supported, repaired=repaired or not cited))
        for s in result:
            s.citations = [order.index(i) + 1 for i in s.citations]
        text = " ".join(s.text + (" " + "".join(f"[{n}]" for n in s.citations) if s.citations else "") for s in result)
        return Verified(text=text.strip(), sentences=result, order=order, evidence=evidence)
