"""Near-duplicate *versions* of one paper (exact repeats are caught earlier by content id).

Two measures, either of which makes a candidate pair a version:

- TF-IDF cosine over words, IDF from the whole corpus (stored + new). On the bundled seeds the two
  versions of the FiT paper score 0.65, the two versions of the low-rank FFN paper 0.61, while
  Blockwise Parallel Transformer vs Ring Attention (same authors, shared sentences, different
  papers) score 0.48 and every other pair is below 0.35. ``VERSION_THRESHOLD`` = 0.55 sits between.
- Word-bigram containment (shared bigrams / bigrams of the shorter text). TF-IDF needs a corpus:
  ingested alone (a 6-abstract file), the same pairs score only 0.46-0.49, because IDF from six
  documents gives shared words little weight. Containment does not depend on the corpus: FiT
  0.68, low-rank FFN 0.63, BPT vs Ring Attention 0.53, every other seed pair at most 0.18.
  ``CONTAINMENT_THRESHOLD`` = 0.58 sits between.

Either way, two abstracts that each introduce a differently named method are never versions
(this alone keeps BPT and Ring Attention apart if a corpus pushes their scores up).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

from ingest.normalize import make_label

VERSION_THRESHOLD = 0.55
CONTAINMENT_THRESHOLD = 0.58
MIN_BIGRAMS = 20  # containment of a very short text says little
_WORD = re.compile(r"[a-z0-9]+")
_SHINGLE = 6


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _is_name(label: str) -> bool:
    return not label.endswith("…")


def _names_differ(a: str, b: str) -> bool:
    la, lb = make_label(a), make_label(b)
    if not (_is_name(la) and _is_name(lb)):
        return False
    la, lb = la.lower(), lb.lower()
    return la not in lb and lb not in la


def containment(a: list[str], b: list[str]) -> float:
    """Share of the shorter text's word bigrams that also occur in the other (0 if too short)."""
    ba, bb = set(zip(a, a[1:], strict=False)), set(zip(b, b[1:], strict=False))
    small = min(len(ba), len(bb))
    return len(ba & bb) / small if small >= MIN_BIGRAMS else 0.0


def find_versions(new: dict[str, str], existing: dict[str, str]) -> dict[str, str]:
    """Map each new doc id that is a version of an earlier doc to that doc's id.

    ``new`` and ``existing`` map doc id -> normalised text. Candidates share a 6-word shingle;
    they are confirmed by TF-IDF cosine >= VERSION_THRESHOLD or bigram containment >=
    CONTAINMENT_THRESHOLD (see the module docstring for the measured figures).
    """
    corpus = {**existing, **new}
    tokens = {k: _words(t) for k, t in corpus.items()}
    df = Counter(w for ws in tokens.values() for w in set(ws))
    n_docs = len(corpus)

    def vector(ws: list[str]) -> dict[str, float]:
        v = {w: (1 + math.log(c)) * math.log(n_docs / df[w]) for w, c in Counter(ws).items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {w: x / norm for w, x in v.items()}

    shingles: dict[int, list[str]] = defaultdict(list)
    for k, ws in tokens.items():
        for h in {hash(tuple(ws[i : i + _SHINGLE])) for i in range(len(ws) - _SHINGLE + 1)}:
            shingles[h].append(k)

    order = {k: i for i, k in enumerate(corpus)}  # existing first, then new in ingest order
    vectors: dict[str, dict[str, float]] = {}
    result: dict[str, str] = {}
    for k in new:
        ws = tokens[k]
        candidates = {
            other
            for i in range(len(ws) - _SHINGLE + 1)
            for other in shingles.get(hash(tuple(ws[i : i + _SHINGLE])), ())
            if other != k and order[other] < order[k]
        }
        best, best_score = None, 0.0
        for other in sorted(candidates, key=order.__getitem__):
            va = vectors.setdefault(k, vector(tokens[k]))
            vb = vectors.setdefault(other, vector(tokens[other]))
            cosine = sum(x * vb.get(w, 0.0) for w, x in va.items())
            score = max(cosine / VERSION_THRESHOLD, containment(tokens[k], tokens[other]) / CONTAINMENT_THRESHOLD)
            if score > best_score:
                best, best_score = other, score
        if best is not None and best_score >= 1.0 and not _names_differ(corpus[k], corpus[best]):
            result[k] = result.get(best, best)  # chain to the earliest version
    return result
