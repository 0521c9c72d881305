"""The extractive answer's parts that are not the learned choice (``assistant.evidence.scorer``
picks the sentences): the draft with its citations, the words a caveat names as unstated, and the
second look.

**The second look** (``second_look``): before the decision and the answer, the abstracts read for
evidence are re-ranked by a mix of their fused retrieval score and their best evidence sentence.
Retrieval scores a whole abstract (or a chunk) against the question; the abstract that answers is
the one with a sentence that states it, which the sentence scores see and the fused score blurs
(fitted by ``python -m evals.fit answer``: evals/fits/answer.json "second_look").
"""

from __future__ import annotations

import dataclasses
from typing import Any

from assistant.evidence.scoring import Evidence, Sentence, terms
from assistant.language.patterns import WORD


def second_look(evidence: Evidence, read: list[Any], fused_share: float) -> tuple[list[Any], Evidence]:
    """The abstracts read (``read``: (doc, fused score) pairs, ``evidence.texts`` in the same order)
    and their evidence, re-ranked by ``fused_share`` x the fused score + (1 - ``fused_share``) x the
    best evidence sentence (term share and cosine in equal shares), each scaled by its best among
    them; ties keep the fused order. ``fused_share`` 1: the fused order, unchanged."""
    n = len(evidence.texts)
    if fused_share >= 1.0 or n < 2:
        return read, evidence
    best = [0.0] * n
    for s in evidence.sentences:
        best[s.doc_index] = max(best[s.doc_index], s.score(0.5))
    fused = [sc for _, sc in read[:n]]
    top_f, top_b = max(fused) or 1.0, max(best) or 1.0
    order = sorted(range(n), key=lambda j: -(fused_share * fused[j] / top_f + (1 - fused_share) * best[j] / top_b))
    if order == list(range(n)):
        return read, evidence
    new = {old: i for i, old in enumerate(order)}
    sentences = sorted((dataclasses.replace(s, doc_index=new[s.doc_index]) for s in evidence.sentences),
                       key=lambda s: (s.doc_index, s.start))
    return [read[j] for j in order] + read[n:], Evidence(evidence.question, [evidence.texts[j] for j in order], sentences)


def draft(chosen: list[Sentence]) -> str:
    """The answer text before verification: each sentence with its source number."""
    return " ".join(f"{s.text} [{s.doc_index + 1}]" for s in chosen)


def unstated(question: str, answer_text: str, idf: Any, n: int = 3, nouns: set[str] | None = None) -> list[str]:
    """The question's words (as written) whose terms no sentence of the answer holds, the ``n``
    rarest in the collection (the most specific), in question order: what a caveat names as not
    stated. A word no abstract of the collection uses is the asker's own wording, not a gap the
    sources leave, so it is not named; common words are stop words already (``terms``).
    ``nouns``: when given, only these words may be named (``focus.nominal``: the question's noun
    phrases and names; a verb such as "take" or a quantifier such as "every" is not a thing the
    sources leave unstated). ``idf``: ``assistant.evidence.scoring.Idf``."""
    said = set(terms(answer_text))
    found: dict[str, tuple[float, int, str]] = {}
    for pos, m in enumerate(WORD.finditer(question)):
        stems = terms(m.group(0))
        if not stems or any(t in said for t in stems) or stems[0] in found or (nouns is not None and m.group(0) not in nouns):
            continue
        if all(idf.holds(t) for t in stems):
            found[stems[0]] = (max(idf(t) for t in stems), pos, m.group(0))
    rarest = sorted(found.values(), key=lambda v: -v[0])[:n]
    return [w for _, _, w in sorted(rarest, key=lambda v: v[1])]
