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
follow-ups and both hand-written sets: ``python -m evals.list_followups meaning``). The quote is
that sentence (what was matched), and the answer says first that none writes the filter's words
and that these may state it in other words: a hedge (``caveat_kind`` "list_by_meaning"), never a
plain answer.
"""

from __future__ import annotations

import statistics
from dataclasses import replace
from typing import Any

import numpy as np

from assistant.evidence import embed
from assistant.shape import Shape
from assistant.topics import Candidate


def closest_in_meaning(engine: Any, shape: Shape, ranked: list[Candidate]) -> list[Candidate]:
    """The listed abstracts whose best sentence for the filter as asked stands out (see the module
    doc), most similar first, each quoting that sentence; [] when the rule is off or none does."""
    cfg = engine.settings.collection
    if cfg.followup_meaning_bar <= 0 or not ranked:
        return []
    q_vecs = embed(engine.cache.embedder, [shape.predicate or shape.topic, shape.topic])
    best: list[tuple[float, tuple[int, int]]] = []
    for c, (spans, vecs) in zip(ranked, engine.cache.get([c.doc.original for c in ranked]), strict=True):
        if not len(vecs):
            best.append((0.0, c.sentence))
            continue
        sims = vecs @ q_vecs.T  # sentences x (the filter as asked, its topic)
        i = int(np.argmax(sims.mean(axis=1)))  # the sentence quoted: closest to both on average
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
