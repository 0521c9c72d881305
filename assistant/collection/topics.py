"""Topic candidates for collection answers: the abstracts a list, overview or follow-up may name,
each with its relevance features (``assistant.collection.answer`` decides which are listed).

A candidate's lexical score is its best sentence's: half the IDF-weighted share of the topic's
terms, half for holding them side by side in order; a sentence writing the topic's other name
(the acronym the abstracts define for it, or an acronym's expansion) scores 1. Its dense score is
its best chunk's cosine from the retriever's own lists (no embedding beyond the query's); its rank
is its place in the retriever's fused ranking. When no abstract writes the topic (``written``),
``by_meaning`` picks by rank and cosine relative to the best candidate instead, those of the topic
restated by pseudo-relevance feedback (``feedback``) when asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from assistant.evidence.parts import Parts
from assistant.evidence.scoring import coverage, embed, terms
from assistant.language.text import TOKEN_PATTERN, split_sentences
from assistant.store.chroma import StoredDoc


@dataclass
class Candidate:
    doc: StoredDoc
    lexical: float  # IDF-weighted share of the topic's terms in the best sentence
    dense: float  # cosine of the best chunk (or sentence) with the topic
    sentence: tuple[int, int]  # span of the best sentence in doc.original
    mentions: bool  # every topic term is somewhere in the abstract
    rank: int = 0  # position in the retriever's fused ranking for the topic (0 = best; alias finds after it)
    feedback: float = 0.0  # cosine of the whole abstract with the feedback query (``feedback``; 0 without it)
    feedback_rank: int = 0  # position in the feedback ranking (``feedback``; the fused rank without it)

    def relevance(self, lexical_weight: float) -> float:
        return lexical_weight * self.lexical + (1.0 - lexical_weight) * self.dense

    @property
    def quote(self) -> str:
        return self.doc.original[self.sentence[0] : self.sentence[1]]


# --- candidates -----------------------------------------------------------------------------------
def has_run(seq: list[str], run: list[str]) -> bool:
    n = len(run)
    return n > 0 and any(seq[i : i + n] == run for i in range(len(seq) - n + 1))


def sentence_scores(text: str, q_terms: list[str], idf: Any, alias: re.Pattern[str] | None = None) -> list[tuple[float, tuple[int, int]]]:
    """Each sentence's lexical score for the topic and its span (``best_sentence`` reads the best)."""
    out = []
    for s in split_sentences(text):
        sentence = text[s.start : s.end]
        seq = terms(sentence)
        if alias is not None and alias.search(sentence):
            score = 1.0
        else:
            score = 0.5 * coverage(q_terms, set(seq), idf) + 0.5 * float(has_run(seq, q_terms))
        out.append((score, (s.start, s.end)))
    return out


def best_sentence(text: str, q_terms: list[str], idf: Any, alias: re.Pattern[str] | None = None) -> tuple[float, tuple[int, int]]:
    """The sentence that best names the topic and its lexical score: half for the share of the
    topic's terms it holds (IDF-weighted), half for holding them in the topic's order, side by side
    (a multiword term is a fixed expression: "state space models", not "state ... models"; a
    one-word topic is held wherever its word is). A sentence that writes the topic's other name
    (``alias``: its acronym, or for an acronym its expansion) names it in full."""
    best, span = -1.0, (0, len(text))
    for score, at in sentence_scores(text, q_terms, idf, alias):
        if score > best + 1e-9:
            best, span = score, at
    return max(best, 0.0), span


def _candidate(doc: StoredDoc, q_terms: list[str], idf: Any, dense: float, alias: re.Pattern[str] | None = None,
               rank: int = 0) -> Candidate:
    lexical, span = best_sentence(doc.original, q_terms, idf, alias)
    doc_terms = set(terms(doc.text))
    mentions = bool(q_terms) and all(t in doc_terms for t in q_terms) or bool(alias and alias.search(doc.original))
    return Candidate(doc, lexical, dense, span, mentions, rank)


def acronym_of(topic: str, texts: list[str], min_chars: int) -> str | None:
    """The acronym the abstracts define for ``topic`` ("state space models (SSMs)" -> "SSM"):
    English technical writing introduces a term with its acronym in brackets."""
    words = re.findall(r"[A-Za-z0-9]+", topic)
    if len(words) < 2:
        return None
    body = r"[\s-]+".join(re.escape(w) for w in words)
    pattern = re.compile(rf"\b{body}s?\s*\(([A-Z][A-Za-z0-9-]*?[A-Z][A-Za-z0-9-]*?)s?\)", re.I)
    for text in texts:
        m = pattern.search(text)
        if m and len(m.group(1)) >= min_chars and m.group(1)[0].isupper():
            return m.group(1)
    return None


_FUNCTION = frozenset({"of", "and", "for", "the", "a", "an", "with", "to", "in", "on", "by"})
_ACRONYM = re.compile(r"[A-Z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*")


def expansion_of(acronym: str, texts: list[str], min_chars: int) -> str | None:
    """The words the abstracts define ``acronym`` by ("SSM" -> "state space models"): the words
    before a bracketed "(SSMs)" whose initials (function words aside) spell its capitals."""
    if len(acronym) < min_chars or not _ACRONYM.fullmatch(acronym):
        return None
    caps = "".join(c for c in acronym if c.isupper())
    pattern = re.compile(rf"((?:[A-Za-z][\w-]*\s+){{1,8}})\(\s*{re.escape(acronym)}s?\s*\)")
    for text in texts:
        for m in pattern.finditer(text):
            words = m.group(1).split()
            for n in range(2, len(words) + 1):
                parts = [p for w in words[-n:] for p in w.split("-") if p and p.lower() not in _FUNCTION]
                if "".join(p[0].upper() for p in parts) == caps:
                    return " ".join(words[-n:])
    return None


def alias_of(topic: str, texts: list[str], min_chars: int) -> tuple[str | None, re.Pattern[str] | None]:
    """The topic's other name as the abstracts define it (its acronym; for an acronym, its
    expansion) and a pattern for the topic written either way."""
    if acronym := acronym_of(topic, texts, min_chars):
        return acronym, re.compile(rf"\b{re.escape(acronym)}s?\b")
    word = topic.strip()
    if len(word) < min_chars or not _ACRONYM.fullmatch(word):
        return None, None
    own = rf"\b{re.escape(word)}s?\b"
    expansion = expansion_of(word, texts, min_chars)
    if expansion is None:
        return None, re.compile(own)
    body = r"[\s-]+".join(re.escape(w) for w in re.findall(r"[A-Za-z0-9]+", expansion))
    return expansion, re.compile(rf"{own}|(?i:\b{body}s?\b)")


def candidates(parts: Parts, topic: str, n: int, exclude: set[str] | None = None) -> list[Candidate]:
    """The ``n`` best abstracts for ``topic`` (one per work) with their relevance features, and the
    abstracts BM25 finds for the topic's other name (``alias_of``) when the abstracts define one."""
    lists = parts.retriever.signals(topic, n)
    hits = parts.retriever.retrieve(topic, n, exclude=exclude, lists=lists)
    chunk = dict(lists.get("chunk", []))
    floor = min(chunk.values(), default=0.0)  # an abstract outside the chunk list is at most this close
    idf, q_terms = parts.idf(), terms(topic)
    other, alias = alias_of(topic, [d.original for d, _ in hits], parts.settings.collection.min_acronym)
    if other:
        seen = {d.work_id for d, _ in hits} | set(exclude or ())
        ranked = parts.retriever.signals(other, n, names=["bm25"]).get("bm25", [])
        docs = parts.retriever.fetch([d for d, _ in ranked])
        for doc_id, _ in ranked:
            doc = docs.get(doc_id)
            if doc is not None and doc.work_id not in seen:
                seen.add(doc.work_id)
                hits.append((doc, 0.0))
    return [_candidate(doc, q_terms, idf, chunk.get(doc.doc_id, floor), alias, i) for i, (doc, _) in enumerate(hits)]


def written(found: list[Candidate], phrase: float) -> bool:
    """Whether some abstract writes the topic: a sentence holding its words side by side in order
    (or its other name) scores above ``phrase`` (0.5: without that run a sentence scores at most
    half, ``best_sentence``)."""
    return any(c.lexical > phrase for c in found)


# Where the topic's own phrase ends: a relative or subordinate clause, or an appositive after a comma,
# describes its subject in the asker's words ("the dense blocks that sit between attention layers").
_CLAUSE = re.compile(r",|\b(?:that|which|who|whom|whose|where|when|what|how|why|while|without|whereby|the\s+(?:kind|sort))\b", re.I)


def unwritten(topic: str, idf: Any) -> list[str]:
    """The words of the topic's own phrase (before ``_CLAUSE``; adverbs in -ly aside) that no
    abstract of the collection writes in any spelling (document frequency 0 for each of the word's
    terms, ``idf`` of the collection in use): no abstract can be about that subject by its name, so
    whatever is listed for it is a neighbour by meaning at best ("dialect" in "attention models for
    dialect identification" when no abstract has the word)."""
    def absent(word: str) -> bool:
        return bool(ts := terms(word)) and not any(idf.holds(t) for t in ts)

    words = [w.strip(".;:!?()'\"") for w in _CLAUSE.split(topic, maxsplit=1)[0].split() if not w.lower().endswith("ly")]
    return list(dict.fromkeys(w for w in words if absent(w) and all(absent(v) for v in _spellings(w))))


# British and American spellings of one word (-ise / -ize, -isation / -ization, -yse / -yze, -our / -or,
# -tre / -ter, -ogue / -og), and an acronym's plural ("TBM" / "TBMs", which the stemmer keeps apart): a
# word is written when any of its spellings is.
_SPELLINGS = [(r"is(e|ed|es|ing|er|ers|ation|ations)$", r"iz\1"), (r"iz(e|ed|es|ing|er|ers|ation|ations)$", r"is\1"),
              (r"ys(e|ed|es|ing)$", r"yz\1"), (r"yz(e|ed|es|ing)$", r"ys\1"), (r"our(s|ed|ing)?$", r"or\1"),
              (r"(\w{3})or(s|ed|ing)?$", r"\1our\2"), (r"tre(s)?$", r"ter\1"), (r"ogue(s)?$", r"og\1"),
              (r"^([A-Z0-9-]{2,})$", r"\1s"), (r"^([A-Z0-9-]{2,})s$", r"\1")]


def _spellings(word: str) -> list[str]:
    return [v for pattern, repl in _SPELLINGS if (v := re.sub(pattern, repl, word, flags=0 if pattern.startswith("^") else re.I)) != word]


def by_meaning(found: list[Candidate], max_rank: int, ratio: float, floor: float, fed: bool = False) -> list[Candidate]:
    """For a topic no abstract writes (a user's own words for it): the candidates among the
    retriever's ``max_rank`` best whose cosine is at least ``ratio`` x the best candidate's, in the
    retriever's order; none when even the best candidate's cosine is below ``floor`` (no abstract
    is about it). Without the topic's words a lexical score says little about any candidate, so the
    evidence left is how the fused ranking and the dense similarity place them, relative to the
    best match for this question (a cosine's level varies with the wording). ``fed``: rank and
    cosine are the feedback's (``feedback``: ``feedback_rank``, ``feedback``); the floor stays the
    best chunk cosine for the topic as asked (whether anything is about it at all)."""
    top = max((c.dense for c in found), default=0.0)
    if top < floor:
        return []
    rank = (lambda c: c.feedback_rank) if fed else (lambda c: c.rank)
    score = (lambda c: c.feedback) if fed else (lambda c: c.dense)
    best = max((score(c) for c in found), default=0.0)
    return sorted((c for c in found if rank(c) < max_rank and score(c) >= ratio * best), key=rank)


def feedback(parts: Parts, topic: str, found: list[Candidate], docs: int, exclude: set[str] | None = None) -> None:
    """Pseudo-relevance feedback for a topic no abstract writes: the retriever's ``docs`` best
    candidates are taken as relevant and the topic is restated from them, twice, and the two
    restatements' rankings of ``found`` fused (sets ``feedback`` and ``feedback_rank``).

    - by meaning (Rocchio 1971, SMART's alpha 1 / beta ``feedback_beta``): the topic's vector plus
      beta x the centroid of those abstracts' whole-abstract vectors (the retriever's own, read from
      the store), each candidate's cosine with it;
    - by words (RM3, Lavrenko & Croft 2001): the topic's words plus the ``feedback_terms`` terms
      that weigh most in those abstracts (term share x IDF) and that at least two of them write
      (a subject several of them share, not one abstract's own), searched with BM25.

    A user's words for a topic ("a fixed-size memory updated token by token") seldom are the
    abstracts' ("state space model"), but the abstracts closest to them write the field's terms,
    and the abstracts on the topic share those (standard query expansion for topical queries).
    Fused by reciprocal rank (``rrf_k`` of the retriever's settings, Cormack et al. 2009)."""
    if docs <= 0 or not found:
        return
    cfg, retriever = parts.settings.collection, parts.retriever
    top = sorted(found, key=lambda c: c.rank)[:docs]
    ids = [c.doc.doc_id for c in found]
    got = retriever.store.call("searching", retriever.store.docs.get, ids=ids, include=["embeddings"])
    vecs = {i: _unit(np.asarray(v, dtype=np.float32)) for i, v in zip(got["ids"], got["embeddings"], strict=True)}
    held = [vecs[c.doc.doc_id] for c in top if c.doc.doc_id in vecs]
    query = _unit(np.asarray(retriever.embed_query(topic), dtype=np.float32))
    if held:
        query = _unit(query + cfg.feedback_beta * _unit(np.mean(held, axis=0)))
    for c in found:
        c.feedback = float(vecs[c.doc.doc_id] @ query) if c.doc.doc_id in vecs else -1.0
    words = expansion([c.doc.original for c in top], cfg.feedback_terms, parts.idf())
    ranked = retriever.signals(" ".join([topic, *words]), len(found), names=["bm25"], exclude=exclude).get("bm25", [])
    lexical = {d: i for i, (d, _) in enumerate(ranked)}
    dense = {id(c): i for i, c in enumerate(sorted(found, key=lambda c: -c.feedback))}
    k, last = parts.settings.retrieval.rrf_k, len(found)
    fused = sorted(found, key=lambda c: -(1 / (k + dense[id(c)]) + 1 / (k + lexical.get(c.doc.doc_id, last))))
    for i, c in enumerate(fused):
        c.feedback_rank = i


def expansion(texts: list[str], n: int, idf: Any, shared: int = 2) -> list[str]:
    """The ``n`` terms (as the texts write them) that weigh most in ``texts``: each text's share of
    the term x its IDF, summed; only terms at least ``shared`` of the texts hold (RM3's expansion)."""
    weight: dict[str, float] = {}
    holders: dict[str, int] = {}
    surface: dict[str, str] = {}
    for text in texts:
        seq = terms(text)
        for t in set(seq):
            weight[t] = weight.get(t, 0.0) + seq.count(t) / len(seq) * idf(t)
            holders[t] = holders.get(t, 0) + 1
        for word in TOKEN_PATTERN.findall(text.lower()):
            if (ts := terms(word)) and ts[0] not in surface:
                surface[ts[0]] = word
    need = min(shared, len(texts))
    chosen = sorted((t for t in weight if holders[t] >= need), key=lambda t: (-weight[t], t))[:n]
    return [surface.get(t, t) for t in chosen]


def _unit(v: np.ndarray) -> np.ndarray:
    return v / (float(np.linalg.norm(v)) or 1.0)


def rescored(parts: Parts, topic: str, docs: list[StoredDoc]) -> list[Candidate]:
    """``docs`` (a previous list) scored for ``topic``; dense = their best sentence's cosine."""
    idf, q_terms = parts.idf(), terms(topic)
    q_vec = embed(parts.cache.embedder, [topic])[0]
    _, alias = alias_of(topic, [d.original for d in docs], parts.settings.collection.min_acronym)
    out = []
    for doc, (_, vecs) in zip(docs, parts.cache.get([d.original for d in docs]), strict=True):
        dense = float(np.max(vecs @ q_vec)) if len(vecs) else 0.0
        out.append(_candidate(doc, q_terms, idf, dense, alias, len(out)))
    return out
