"""Near-duplicate *versions* of one paper (exact repeats are caught earlier by content id).

Two measures, either of which makes a candidate pair a version:

- TF-IDF cosine over the project's terms (assistant.language.text.tokens: the lexical index's, so at
  ingest the corpus-wide document frequencies come from that index instead of re-reading every
  stored abstract). On the bundled seeds the two versions of the FiT paper score 0.67, the two
  versions of the low-rank FFN paper 0.67, while Blockwise Parallel Transformer vs Ring Attention
  (same authors, shared sentences, different papers) score 0.46 and every other pair sharing a
  6-word shingle at most 0.31 (measured over all 649 such seed pairs).
  ``VERSION_THRESHOLD`` = 0.55 sits between.
- Word-bigram containment (shared bigrams / bigrams of the shorter text). TF-IDF needs a corpus:
  ingested alone (a 6-abstract file), the same pairs score only 0.46-0.49, because IDF from six
  documents gives shared words little weight. Containment does not depend on the corpus: FiT
  0.68, low-rank FFN 0.63, BPT vs Ring Attention 0.53, every other seed pair at most 0.18.
  ``CONTAINMENT_THRESHOLD`` = 0.58 sits between.

Candidates share a 6-word shingle. Within one ingest they are found exactly (a shingle table of
the new abstracts); among stored abstracts, through ``minhash`` values kept in each abstract's
metadata (one value per band; a stored abstract is a candidate when any band matches, which
needs a shared shingle). A pair whose 6-shingle Jaccard is J is found with probability
1 - (1 - J)^BANDS: FiT (J 0.167) 0.9998, low-rank FFN (J 0.090) 0.989.

Either way, two abstracts that each introduce a differently named method are never versions
(this alone keeps BPT and Ring Attention apart if a corpus pushes their scores up).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable

import numpy as np

from assistant.language.text import tokens as terms
from ingest.normalize import make_label

VERSION_THRESHOLD = 0.55
CONTAINMENT_THRESHOLD = 0.58
MIN_BIGRAMS = 20  # containment of a very short text says little
_WORD = re.compile(r"[a-z0-9]+")
_SHINGLE = 6
# MinHash bands (one min value each) stored per abstract: the recall figures in the module doc;
# 48 keeps the weakest measured version pair's miss chance near 1%.
BANDS = 48
MINHASH_KEYS = [f"mh{b:02d}" for b in range(BANDS)]
_PRIME = (1 << 61) - 1
_RNG = np.random.default_rng(20240601)  # fixed: stored values must mean the same in every run
_A = _RNG.integers(1, 1 << 32, BANDS, dtype=np.uint64)
_B = _RNG.integers(0, 1 << 32, BANDS, dtype=np.uint64)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _shingles(ws: list[str]) -> set[tuple[str, ...]]:
    return {tuple(ws[i : i + _SHINGLE]) for i in range(len(ws) - _SHINGLE + 1)}


def minhash(text: str) -> dict[str, int]:
    """Band key -> min over the text's 6-word shingles of a fixed hash (empty if none)."""
    shingles = _shingles(_words(text))
    if not shingles:
        return {}
    x = np.fromiter((int.from_bytes(hashlib.blake2b(" ".join(s).encode(), digest_size=4).digest(), "little")
                     for s in shingles), dtype=np.uint64, count=len(shingles))
    values = ((_A[:, None] * x[None, :] + _B[:, None]) % _PRIME) & 0xFFFFFFFF  # < 2^64: no overflow
    return {k: int(v) for k, v in zip(MINHASH_KEYS, values.min(axis=1), strict=True)}


def _is_name(label: str) -> bool:
    return not label.endswith("…")


def _names_differ(a: str, b: str) -> bool:
    la, lb = make_label(a), make_label(b)
    if not (_is_name(la) and _is_name(lb)):
        return False
    la, lb = la.lower(), lb.lower()
    return la not in lb and lb not in la


def bigrams(words: list[str]) -> set[tuple[str, str]]:
    return set(zip(words, words[1:], strict=False))


def containment(a: list[str], b: list[str]) -> float:
    """Share of the shorter text's word bigrams that also occur in the other (0 if too short)."""
    return _contained(bigrams(a), bigrams(b))


def _contained(ba: set[tuple[str, str]], bb: set[tuple[str, str]]) -> float:
    small = min(len(ba), len(bb))
    return len(ba & bb) / small if small >= MIN_BIGRAMS else 0.0


def find_versions(
    new: dict[str, str], existing: dict[str, str], doc_freq: Callable[[str], int] | None = None, n_docs: int = 0,
) -> dict[str, str]:
    """Map each new doc id that is a version of an earlier doc to that doc's id.

    ``new`` and ``existing`` map doc id -> normalised text; ``existing`` may be only the stored
    candidates (those sharing a MinHash band), with ``doc_freq``/``n_docs`` then giving the
    corpus-wide document frequencies (by default: counted over ``existing`` and ``new``).
    Candidates share a 6-word shingle; they are confirmed by TF-IDF cosine >= VERSION_THRESHOLD or
    bigram containment >= CONTAINMENT_THRESHOLD (see the module docstring for the measured figures).
    """
    corpus = {**existing, **new}
    words = {k: _words(t) for k, t in corpus.items()}
    if doc_freq is None:
        counts = Counter(w for t in corpus.values() for w in set(terms(t)))
        doc_freq, n_docs = counts.__getitem__, len(corpus)

    def vector(text: str) -> dict[str, float]:
        v = {w: (1 + math.log(c)) * math.log(n_docs / max(doc_freq(w), 1)) for w, c in Counter(terms(text)).items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {w: x / norm for w, x in v.items()}

    shingles: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for k, ws in words.items():
        for sh in _shingles(ws):
            shingles[sh].append(k)

    order = {k: i for i, k in enumerate(corpus)}  # existing first, then new in ingest order
    # Each doc's TF-IDF vector and bigram set, built once (py-spy on a 200k-abstract ingest: they
    # were rebuilt for every candidate pair, ``setdefault`` evaluating its default each time).
    vectors: dict[str, tuple[dict[str, float], set[tuple[str, str]]]] = {}

    def features(doc: str) -> tuple[dict[str, float], set[tuple[str, str]]]:
        if doc not in vectors:
            vectors[doc] = (vector(corpus[doc]), bigrams(words[doc]))
        return vectors[doc]

    result: dict[str, str] = {}
    for k in new:
        candidates = {other for sh in _shingles(words[k]) for other in shingles[sh] if other != k and order[other] < order[k]}
        best, best_score = None, 0.0
        for other in sorted(candidates, key=order.__getitem__):
            (va, ba), (vb, bb) = features(k), features(other)
            cosine = sum(x * vb.get(w, 0.0) for w, x in va.items())
            score = max(cosine / VERSION_THRESHOLD, _contained(ba, bb) / CONTAINMENT_THRESHOLD)
            if score > best_score:
                best, best_score = other, score
        if best is not None and best_score >= 1.0 and not _names_differ(corpus[k], corpus[best]):
            result[k] = result.get(best, best)  # chain to the earliest version
    return result
