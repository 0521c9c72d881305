"""The shared text base: sentence spans, the one term function, and the character classes that
ingest and the query side both need. Depends on nothing else in the project.

- ``split_sentences``: sentence spans (exact character offsets into the original text), used by
  chunking, evidence and citation verification. Written here rather than using LlamaIndex's
  SentenceSplitter because citations need exact spans of every sentence of the original abstract.
  Sentences end at . ! ? (and Arabic ؟) before whitespace and a capital, digit, opening quote or a
  letter of a script without case (Arabic, Hebrew, CJK...), or at the CJK full stops 。！？ with no
  space needed.
- ``tokens``: what BM25 indexes and what evidence overlap counts — bm25s's own tokenization
  (lowercase, its ``(?u)\\b\\w\\w+\\b`` pattern, its English stopword list, PyStemmer's English
  Snowball stemmer), so a word matches in both or in neither.
- ``CONTROL``, ``NO_SPACE_SCRIPT``, ``name_like``: one definition each instead of three copies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

# --- character classes ---------------------------------------------------------------------------
# Control characters other than tab/newline/CR (C0, DEL, C1): never part of prose.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Every control character, tab and newline included: what a one-line question replaces by spaces.
ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, kana, CJK ideographs
# with extensions and compatibility forms, Hangul syllables): each character counts as a word.
NO_SPACE_SCRIPT_CHARS = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f"
)
NO_SPACE_SCRIPT = re.compile(f"[{NO_SPACE_SCRIPT_CHARS}]")


def name_like(word: str, first: bool = False) -> bool:
    """A word written like a name (RetNet, Llama-3.1-8B, A100, or a capitalised word that does
    not open the sentence): an inner capital, any digit, or a capital initial after the first word."""
    if not word:
        return False
    return any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word) or (not first and word[0].isupper())


# --- sentences -------------------------------------------------------------------------------------
_ABBREVIATIONS = {"e.g", "i.e", "al", "vs", "cf", "fig", "eq", "approx", "resp", "no", "etc", "sec", "ref", "dr"}
_END = re.compile(r"[.!?\u061f][\"')\]\u201d\u2019]*(?=\s+[\"'(\[\u201c\u2018]?(\w))|[\u3002\uff01\uff1f]+[\"')\]\u201d\u2019\u300d\u300f\uff09\u300b]*")


@dataclass(frozen=True)
class Span:
    start: int
    end: int


def _starts_sentence(ch: str) -> bool:
    return ch.isupper() or ch.isdigit() or (ch.isalpha() and not ch.islower())


def split_sentences(text: str) -> list[Span]:
    """Sentence spans in ``text``, without surrounding whitespace."""
    spans: list[Span] = []
    pos = 0
    for m in _END.finditer(text):
        if m.group(1) is not None and not _starts_sentence(m.group(1)):
            continue
        word = text[max(pos, m.start() - 8) : m.start()].split()
        prev = word[-1].lower().lstrip("(") if word else ""
        if prev in _ABBREVIATIONS or (m.group(0).startswith(".") and len(prev) == 1 and prev.isalpha()):
            continue  # "e.g. X", "et al. X", initials like "J. Smith"
        spans.append(Span(pos, m.end()))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    end = len(text.rstrip())
    if pos < end:
        spans.append(Span(pos, end))
    return [sp for sp in spans if text[sp.start : sp.end].strip()]


# --- terms ---------------------------------------------------------------------------------------
# bm25s.tokenize's default token pattern (scikit-learn's CountVectorizer): words of 2+ characters.
TOKEN_PATTERN = re.compile(r"(?u)\b\w\w+\b")


@cache
def stopwords() -> frozenset[str]:
    """The English stopword list shared by BM25 and evidence."""
    # NLTK's published English list (179 words, shipped by bm25s as STOPWORDS_EN_PLUS): unlike
    # Lucene's 33-word list it holds the question words (what, how, does ...), which otherwise
    # weigh as rare terms in evidence scoring. BM25 over the same terms: evals/fits/retrieval.json.
    from bm25s.stopwords import STOPWORDS_EN_PLUS

    return frozenset(STOPWORDS_EN_PLUS)


@cache
def stemmer() -> Any:
    """PyStemmer's English Snowball stemmer (BM25Retriever's default), built once per process."""
    import Stemmer

    return Stemmer.Stemmer("english")


def tokens(text: str) -> list[str]:
    """Lowercased, stopword-free, stemmed terms of ``text`` — the same as
    ``bm25s.tokenize(text, stopwords="en", stemmer=stemmer(), return_ids=False)[0]``."""
    stop = stopwords()
    words = [w for w in TOKEN_PATTERN.findall(text.lower()) if w not in stop]
    return list(stemmer().stemWords(words)) if words else []
