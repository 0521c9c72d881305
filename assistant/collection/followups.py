"""A follow-up on a list whose filter no listed abstract writes, answered by meaning.

Users state a filter in their own words ("which of these need less compute to train?") while the
abstracts state it in theirs ("over 1,000x training efficiency"): when no listed abstract writes
every word of the filter (``Candidate.mentions``), "none of them mentions it" is true of the words
and often false of the meaning. The abstracts of a list are all on one topic, so one that states
the filter stands out of the rest by its best sentence's cosine with the filter as asked
(``Shape.predicate``: "use reinforcement learning") and with its topic ("reinforcement
learning"), averaged: the verb of the one alone matches generic sentences ("learning from
randomness"), the other alone loses the relation asked; a filter none of them states leaves their
cosines close together. An abstract is cited when that cosine reaches ``followup_meaning_bar``,
``followup_meaning_ratio`` x the best listed abstract's and the listed abstracts' median +
``followup_meaning_margin`` (all three fitted by 5-fold CV, folds by session, over the list split's
follow-ups and both hand-written sets: ``python -m evals.list_followups meaning``). The answer
says first that none writes the filter's words and that these may state it in other words: a hedge
(``caveat_kind`` "list_by_meaning"), never a plain answer.

**The quote** of every abstract a follow-up shows (``quote_stating``) is the
sentence that states the filter, chosen from language: where an abstract of the list writes every
word of the filter's topic, the sentence that writes most of them (``topics.best_sentence``); among
equals, and where none of them writes the words, a sentence in the first person ("we show", "our
method", ``own_claim``) first, since an abstract opens with its field's background and others' work
and states its own in the first person, and the filter asks what the listed papers do; then the
sentence closest in meaning to the filter as asked and its topic (their mean cosine). Measured
against the rule that gives a tie to the abstract's first sentence (its background) and a match by
meaning to the closest sentence, background or not (``python -m evals.experiments.followup_quotes
fit``, no constant fitted; 5 folds by session; evals/experiments/INDEX.md): the quote holds the
gold's phrase for 0.814 +- 0.117 of the 90 listed gold abstracts that write it vs 0.709 +- 0.199;
answers' key points 0.855 vs 0.782 (naive 0.545).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import replace

import numpy as np

from assistant.collection.topics import Candidate, alias_of, sentence_scores
from assistant.evidence.parts import Parts
from assistant.evidence.scoring import embed, terms
from assistant.question.reading import Question
from assistant.question.shape import Shape
from assistant.search.hits import Hits
from assistant.store.chroma import StoredDoc

# A sentence in the first person states the paper's own work ("we propose", "our method", "this paper
# shows", "here, we"): an abstract opens with its field's background and others' work, then states its own.
# The words are English's first-person forms and the self-references of academic writing (no evaluation
# question's words). Known over-read, left as measured: with re.I, "us" also matches the acronym "US".
_OWN = re.compile(r"\b(?:we|our|us|this\s+(?:paper|work|study|article|note))\b|\bhere\b", re.I)


def docs_of_quotes(parts: Parts, lines: list[str]) -> list[StoredDoc]:
    """The abstracts holding each listed line's quoted sentence (found through BM25 on it). A label
    or a sentence may hold " — " itself: the longest tail after one that an abstract holds wins."""
    out: dict[str, StoredDoc] = {}
    for line in lines:
        pieces = line.split(" — ")
        for i in range(1, len(pieces)):
            quote = " ".join(" — ".join(pieces[i:]).split())
            ranked = parts.retriever.signals(quote, 3, names=["bm25"]).get("bm25", [])
            docs = parts.retriever.fetch([d for d, _ in ranked])
            doc = next((docs[d] for d, _ in ranked if d in docs and quote in " ".join(docs[d].original.split())), None)
            if doc is not None:
                out.setdefault(doc.doc_id, doc)
                break
    return list(out.values())


def own_claim(sentence: str) -> bool:
    """Whether ``sentence`` states the paper's own work (``_OWN``)."""
    return bool(_OWN.search(sentence))


def stating_index(text: str, spans: list[tuple[int, int]], cos: np.ndarray, eligible: list[bool] | None = None) -> int:
    """The index of the sentence quoted (module doc, "The quote"): among the ``eligible`` (all by
    default), one in the first person first, then the closest by ``cos``."""
    ok = eligible or [True] * len(spans)
    return max(range(len(spans)), key=lambda i: (ok[i], own_claim(text[spans[i][0] : spans[i][1]]), float(cos[i])))


def filter_vectors(parts: Parts, shape: Shape) -> np.ndarray:
    """The vectors of the filter as asked and of its topic (one embedding call, shared by both rules)."""
    return embed(parts.cache.embedder, [shape.predicate or shape.topic, shape.topic])


def quote_stating(parts: Parts, shape: Shape, found: list[Candidate], q_vecs: np.ndarray) -> None:
    """Sets each candidate's quoted sentence to the one that states the filter (module doc, "The
    quote"; ``q_vecs`` from ``filter_vectors``); its scores, and so what is listed, do not change."""
    if not found:
        return
    written, idf, q_terms = any(c.mentions for c in found), parts.idf(), terms(shape.topic)
    _, alias = alias_of(shape.topic, [c.doc.original for c in found], parts.settings.collection.min_acronym)
    for c, (spans, vecs) in zip(found, parts.cache.get([c.doc.original for c in found]), strict=True):
        if not len(vecs):
            continue
        best = [score >= c.lexical - 1e-9 for score, _ in sentence_scores(c.doc.original, q_terms, idf, alias)] if written else None
        if best is not None and len(best) != len(spans):
            continue  # the sentence split differs (it never should): keep the lexical choice
        c.sentence = spans[stating_index(c.doc.original, spans, (vecs @ q_vecs.T).mean(axis=1), best)]


def closest_in_meaning(parts: Parts, shape: Shape, ranked: list[Candidate], q_vecs: np.ndarray) -> list[Candidate]:
    """The listed abstracts whose best sentence for the filter as asked stands out (see the module
    doc), most similar first, each quoting that sentence; [] when the rule is off or none does."""
    cfg = parts.settings.collection
    if cfg.followup_meaning_bar <= 0 or not ranked:
        return []
    best: list[tuple[float, tuple[int, int]]] = []
    for c, (spans, vecs) in zip(ranked, parts.cache.get([c.doc.original for c in ranked]), strict=True):
        if not len(vecs):
            best.append((0.0, c.sentence))
            continue
        sims = vecs @ q_vecs.T  # sentences x (the filter as asked, its topic)
        i = stating_index(c.doc.original, spans, sims.mean(axis=1))  # the sentence quoted (module doc, "The quote")
        best.append((float(sims.max(axis=0).mean()), spans[i]))  # as fitted: the mean of each one's best sentence
    cos = [s for s, _ in best]
    bar = max(cfg.followup_meaning_bar, cfg.followup_meaning_ratio * max(cos),
              statistics.median(cos) + cfg.followup_meaning_margin)
    picked = [replace(c, dense=s, sentence=span) for c, (s, span) in zip(ranked, best, strict=True) if s >= bar]
    return sorted(picked, key=lambda c: -c.dense)


def caveat(shape: Shape, listed_before: int, picked: int) -> str:
    """The head of a follow-up answered by meaning: what was checked (the words), then what was
    matched (the quoted sentence is the one closest in meaning to the filter as asked)."""
    which = "the one" if picked == 1 else f"the {picked}"
    return (f"None of the {listed_before} abstracts listed before writes {shape.topic!r}; {which} closest to it in "
            f"meaning, which may state it in other words (the sentence closest to it quoted):")


def scope_to_listed(parts: Parts, question: Question, lists: dict[str, list[tuple[str, float]]], query: str) -> tuple[Hits, str] | None:
    """A superlative over the listed works ("Which of them is fastest?", ``Shape.over_listed``;
    ``assistant.question.shape_sets``) is one fact whose comparison class is the previous answer's list: its
    evidence is those works only. The hits are the listed abstracts in the order the whole
    collection's fused ranking puts them (a listed abstract no signal ranked comes after them), and
    each signal's ranked list is kept whole: the decision reads where the listed abstracts stand
    among all the abstracts, so one ranked low for the question is no confident answer for being the
    only one read (restricting the lists made a lone off-topic listed abstract look first in every
    signal). Returns the hits and the refusal's words when only they were read; None for any other question, or
    when the listed abstracts cannot be found again."""
    if not question.listed or not question.shape.over_listed:
        return None
    docs = [d for d in docs_of_quotes(parts, question.listed) if d.work_id not in (question.exclude or ())]
    if not docs:
        return None
    ids, wide = {d.doc_id for d in docs}, sum(len(r) for r in lists.values())
    ranked = parts.retriever.retrieve(query, wide, exclude=question.exclude, lists=lists, filters=question.filters)
    hits = [(d, s) for d, s in ranked if d.doc_id in ids]
    seen, low = {d.doc_id for d, _ in hits}, min((s for _, s in ranked), default=0.0)
    # only the listed works were read: a refusal says that of them, not of the whole collection
    return hits + [(d, low) for d in docs if d.doc_id not in seen], f"None of the {len(docs)} abstracts listed before answers this question."
