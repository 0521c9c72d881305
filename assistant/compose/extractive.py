"""The extractive answer: the evidence sentences that best answer the question, verbatim, each
with its citation. No LLM; also the fallback when a model fails.

A sentence's value is its evidence score (term overlap and cosine with the question) plus a
prior for how well its abstract was retrieved. Composition follows how an abstract is written —
context first ("In recent years, ...", "X has become ..."), then the authors' own voice ("we
propose / we show", "this paper ..."), then results:

- **The abstract of the best sentence answers.** Its lead is its best sentence with each
  *context* sentence (``context``: those before the abstract's first sentence in its own voice)
  counted at ``context_weight`` of its value: the scene every paper of the field shares is not
  what this one found, so the contribution or result that states the answer leads (issue 19:
  "opening with background"). The weight only orders sentences within the abstract; which
  abstract answers is decided by the undiscounted values.
- **Background never leads**: the sentence that opens its abstract and holds none of the
  question's content terms is not taken as support either (unless it is all the evidence there is).
- **A further abstract is cited only where it answers itself**: its own evidence passes the
  answer bar (``answers[i]``: the decision's relevance of the abstract as if it were the only one
  found, at least ``further_relevance``; computed by the engine) and its best sentence comes close
  to the lead (``other_doc_share``). One source or several follows from the evidence, never a
  fixed count; a neighbour that only shares the topic is not cited as filler.
- **Then the first abstract's support** takes the slots left: up to ``top_doc_sentences - 1``
  further sentences of it, ``max_sentences`` in all, in reading order. A slot no further abstract
  earns goes to the answering abstract, whose next sentences hold the rest of what it says.
- **A lead that leans back** ("Building on this, ...", "Specifically, ...", "It achieves ...") comes
  after the nearest earlier support sentence in the authors' voice, when there is one
  (``antecedent_first``): the same sentences, in an order that reads (tuning answers opening so:
  dev 11 -> 4, calibration 66 -> 36; key points, precision and caveats unchanged).

Measured on the tuning sets' 833 fact questions (``python -m evals.fit answer --sets
dev,generated,calibration``, evals/fits/answer.json, held out over 5 folds), beside the constants
the fit started from (the baseline: its "settle" "current", same folds): with these rules 17% of
the answers cite more than one abstract and a further abstract is gold 28 times in 187 (baseline: a
third, 42 gold in 409; filler the rest: a fact question asks about one work; those asking about
several are lists, composed by assistant/collection/answer.py). A further abstract's own relevance
does not separate gold from filler (medians 0.42 vs 0.35 beside a right first abstract, 0.37 vs
0.37 beside a wrong one), so the share rule and the slot order carry it. The lead is a context
sentence in 13% of answers (baseline 31%). Key points 0.680 (baseline 0.660), citation precision
0.697 (baseline 0.678); most of the precision still lost is the first abstract being wrong (30% of
the answers; for 65% of those no gold work is among the five retrieved).

**The second look** (``second_look``): before the decision and the answer, the abstracts read for
evidence are re-ranked by a mix of their fused retrieval score and their best evidence sentence.
Retrieval scores a whole abstract (or a chunk) against the question; the abstract that answers is
the one with a sentence that states it, which the sentence scores see and the fused score blurs
(fitted by ``python -m evals.fit answer``: evals/fits/answer.json "second_look").
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from assistant.evidence.scoring import Evidence, Sentence, terms
from assistant.language.patterns import WORD

# the authors' own voice, where an abstract's contribution begins: the first person, or the
# work named as "this paper / work / study ..." (how abstracts in English introduce what they do;
# the first-person pronouns and the genre nouns of scholarly writing, a closed list from English,
# not from any question or evaluation set)
_OWN = re.compile(r"\b(?:we|our|us)\b|\bth(?:is|e\s+present)\s+(?:paper|work|study|article|report|thesis|letter)\b", re.I)
# A sentence that opens by pointing back (English's closed classes: a demonstrative or personal pronoun
# as subject or determiner, or a connective that presupposes the sentence before: adding, contrasting,
# concluding, exemplifying, or building on "this / these"); "This paper / work ..." names the work itself.
_LEANS_BACK = re.compile(
    r"\s*(?:(?:this|these|those|such|it|its|they|their|them)\b"
    r"|(?:however|moreover|furthermore|additionally|also|besides|further|thus|therefore|hence|consequently"
    r"|nevertheless|nonetheless|instead|similarly|likewise|meanwhile|specifically|conversely|accordingly)\b"
    r"|(?:in\s+(?:addition|contrast|particular|turn|doing\s+so)|as\s+a\s+result|to\s+(?:this\s+end|do\s+(?:so|this))"
    r"|(?:building|based|relying|drawing)\s+(?:on|upon)\s+(?:this|these|that|those|it|them)"
    r"|to\s+(?:address|tackle|overcome|solve|mitigate|alleviate|bridge|fill)\s+(?:this|these|that|those|them|it)"
    r"|for\s+(?:this|that)\s+(?:purpose|reason))\b)",
    re.I)
# "This paper / these studies ..." names the work itself (the genre nouns of _OWN), not a sentence before
_OWN_WORK = re.compile(r"\s*th(?:is|ese)\s+(?:paper|work|study|article|report|thesis|letter)s?\b", re.I)


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


def background(evidence: Evidence) -> set[int]:
    """Indices (into ``evidence.sentences``) of background sentences: each abstract's opening
    sentence when it holds none of the question's content terms (see the module docstring)."""
    first: dict[int, int] = {}
    for j, s in enumerate(evidence.sentences):
        if s.doc_index not in first or s.start < evidence.sentences[first[s.doc_index]].start:
            first[s.doc_index] = j
    return {j for j in first.values() if evidence.sentences[j].lexical == 0.0}


def context(evidence: Evidence) -> set[int]:
    """Indices (into ``evidence.sentences``) of context sentences: those of an abstract before the
    first one in its authors' own voice (``_OWN``: "we ...", "our ...", "this paper ..."). An
    abstract is written context -> contribution -> results; until the authors speak of their own
    work it describes the field (what every paper on the topic shares), not what this one found.
    An abstract that never speaks in its own voice has no sentence marked."""
    by_doc: dict[int, list[int]] = {}
    for j, s in enumerate(evidence.sentences):
        by_doc.setdefault(s.doc_index, []).append(j)
    out: set[int] = set()
    for js in by_doc.values():
        js.sort(key=lambda j: evidence.sentences[j].start)
        own = next((n for n, j in enumerate(js) if _OWN.search(evidence.sentences[j].text)), 0)
        out.update(js[:own])
    return out


def choose(evidence: Evidence, hit_scores: list[float], cfg: Any, answers: list[bool] | None = None) -> list[Sentence]:
    """The sentences to answer with: the answering sentence first, then its support from the same
    abstract (reading order), then one sentence of each further abstract that answers itself.
    ``cfg`` is ``settings.answer``; ``answers[i]``: abstract i passes the answer bar on its own
    (None: only the ``other_doc_share`` rule decides). The abstract is chosen by its best sentence;
    within it, context sentences count ``cfg.context_weight`` of their value; the further
    abstracts that answer are cited first and the first abstract's support takes the slots left
    (at most ``top_doc_sentences`` from it, ``max_sentences`` in all)."""
    if not evidence.sentences:
        return []
    sents = evidence.sentences
    best_hit = max(hit_scores, default=0.0) or 1.0
    scene = background(evidence)

    def raw(j: int) -> float:
        return sents[j].score(cfg.lexical_weight) + cfg.retrieval_prior * hit_scores[sents[j].doc_index] / best_hit

    ranked = sorted(range(len(sents)), key=lambda j: (j in scene, -raw(j)))
    top, first = raw(ranked[0]), sents[ranked[0]].doc_index
    others: list[int] = []
    for j in ranked[1:]:
        d = sents[j].doc_index
        if (j in scene or d == first or any(sents[o].doc_index == d for o in others)
                or 1 + len(others) >= cfg.max_sentences):
            continue
        if raw(j) >= top * cfg.other_doc_share and (answers is None or (d < len(answers) and answers[d])):
            others.append(j)
    scene_ctx = context(evidence) if cfg.context_weight < 1.0 else set()
    own = sorted((j for j in range(len(sents)) if sents[j].doc_index == first),
                 key=lambda j: (j in scene, -raw(j) * (cfg.context_weight if j in scene_ctx else 1.0)))
    lead, rest = own[0], [j for j in own[1:] if j not in scene]
    support = sorted(rest[: max(0, min(cfg.top_doc_sentences - 1, cfg.max_sentences - 1 - len(others)))],
                     key=lambda j: sents[j].start)
    others.sort(key=lambda j: sents[j].doc_index)
    return [sents[j] for j in [*antecedent_first(sents, lead, support, scene_ctx), *others]]


def leans_back(text: str) -> bool:
    """Whether a sentence opens by pointing at the one before it ("Building on this, ...", "To this
    end, ...", "However, ...", "It achieves ..."): shown first, its referent is missing."""
    return bool(_LEANS_BACK.match(text)) and not _OWN_WORK.match(text)


def antecedent_first(sents: list[Sentence], lead: int, support: list[int], ctx: set[int]) -> list[int]:
    """The lead, then its support in reading order, unless the lead leans back on an earlier sentence:
    then the nearest earlier support sentence that is not context and does not lean back itself goes
    first (the same sentences, in an order that reads: "We introduce X. Building on this, ...")."""
    if not leans_back(sents[lead].text):
        return [lead, *support]
    before = [j for j in support if sents[j].start < sents[lead].start and j not in ctx and not leans_back(sents[j].text)]
    if not before:
        return [lead, *support]
    first = before[-1]
    return [first, lead, *[j for j in support if j != first]]


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
