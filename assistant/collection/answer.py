"""Answers about the collection: lists of papers, comparisons of named papers, overviews of a topic.

``shaped_answer`` is the engine's one branch after its decision (``AnswerEngine.stream``): a
question whose shape (``assistant.question.shape``) is not a single fact is answered here, extractively,
with one line per abstract; ``None`` hands it back to the ordinary answer path.

- **list**: more candidates than ``top_k`` are read (``topics.candidates``); each gets a
  relevance to the topic — ``lexical_weight`` x its best sentence's lexical score (half the
  IDF-weighted share of the topic's terms, half for holding them side by side in order; a sentence
  writing the topic's acronym, as the abstracts define it, scores 1) + the rest x its best chunk's
  cosine (the retriever's own vectors: no embedding beyond the query's) — and those at or above
  ``cutoff`` are listed, most relevant first (both
  constants fitted by 5-fold CV, ``python -m evals.lists fit``). When no candidate writes the topic
  (a question in the user's own words: no sentence holds its words in order, ``topics.written``),
  the lexical score says little about any abstract and the list goes by meaning instead: of the
  ``meaning_rank`` best, those whose cosine is at least ``meaning_ratio`` x the best candidate's
  (``topics.by_meaning``; when the best chunk cosine is below ``meaning_floor`` and every word of the
  topic is written somewhere, the same rule without the floor, under the same head; fitted by the
  same CV on the term lists and hand-written ones; only when the words list fewer than
  ``min_listed``, and a topic naming something lists only abstracts that mention the name); rank
  and cosine are those of the topic restated by pseudo-relevance feedback from the retriever's
  ``meaning_feedback`` best (``topics.feedback``: Rocchio on the whole-abstract vectors, RM3 terms
  through BM25, fused by RRF). The answer says so ("closest in meaning"), and that head is its
  caveat (``caveat_kind`` "list_by_meaning"): such a list is a hedge, never a plain answer.
  Each line quotes the abstract's sentence that best matches the topic; every line is checked by
  the citation ``Verifier`` like any answer. Abstracts beyond the display cap, and candidates below
  the cut-off that still hold every topic term, stay in ``Answer.items`` (``cited=False``) and the
  closing line counts them. A topic with a word no abstract writes in any spelling
  (``topics.unwritten``: "dialect" in "attention models for dialect identification") is written by
  none: when nothing is listed the answer is a refusal that says so ("No abstract in the collection
  mentions 'dialect', so none is about …") with the closest three; what the rule by meaning lists
  for it (``meaning_unwritten``, fitted True by the same CV; off: nothing, the refusal) comes under
  the statement ("… the 8 closest in meaning are listed, which may not be about it"), never as the
  answer.
- **follow-up** on a list ("which of these report speed-ups?"): the abstracts of the previous
  list (read back from the conversation's last answer) are scored against the filter — lexically
  for its topic, by their sentences' vectors for the filter as asked — and only they can be
  listed, with the follow-up's own weight and cut-off (``followup_lexical_weight`` /
  ``followup_cutoff``, 5-fold CV: ``python -m evals.list_followups fit``); when none reaches it
  the answer says what was checked: that none of the n listed abstracts writes it (then those whose
  best sentence stands out by meaning are cited under that statement, ``assistant.collection.followups``; if
  none does, the closest three, uncited), or, when some write its words apart, that none clearly
  states it (the closest three cited, the words they write named).
- **compare**: each name of the question is resolved to the abstract that mentions it and ranks
  best for it (distinct abstracts, else the question is one paper's fact); each is shown side by
  side with what it does (its sentence best matching the name) and what it reports (its sentence
  with the most figures, else its last: abstracts close with their results), all cited
  (``assistant.collection.compare``).
- **overview**: the list, at most ``overview_max`` items, grouped by the kind of contribution the
  abstract states in the first person (we propose / we show / a benchmark or survey).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from assistant.collection.compare import compared_answer, list_item, make_citation, verify_claims
from assistant.collection.followups import caveat as meaning_caveat
from assistant.collection.followups import (
    closest_in_meaning,
    docs_of_quotes,
    filter_vectors,
    quote_stating,
)
from assistant.collection.topics import (
    Candidate,
    by_meaning,
    candidates,
    feedback,
    rescored,
    unwritten,
    written,
)
from assistant.evidence.decision import Decision
from assistant.evidence.parts import Parts
from assistant.evidence.scoring import terms
from assistant.language.names import mentioned
from assistant.language.names import names as name_phrases
from assistant.language.text import TOKEN_PATTERN
from assistant.question import shape_model
from assistant.question.conversation import previous_list
from assistant.question.reading import Question
from assistant.question.shape import COMPARE, LIST, OVERVIEW, Shape
from assistant.search.hits import Hits, to_hit
from assistant.store.chroma import StoredDoc
from assistant.types import (
    CAVEAT_LIST_BELOW_CUTOFF,
    CAVEAT_LIST_BY_MEANING,
    CAVEAT_LIST_NONE,
    CAVEAT_LIST_UNWRITTEN,
    Answer,
    AnswerSentence,
    ListItem,
)

# How abstracts state their contribution in the first person (English academic register).
_GROUPS = [
    ("Methods and models proposed", re.compile(r"\bwe\s+(?:propose|introduce|present|develop|design|build|devise)\b", re.I)),
    ("Analyses and findings", re.compile(r"\bwe\s+(?:show|find|prove|demonstrate|analy[sz]e|study|investigate|examine|observe|argue|identify)\b", re.I)),
    ("Benchmarks, datasets and surveys", re.compile(r"\b(?:benchmark|dataset|survey|review)s?\b", re.I)),
]
OTHER_GROUP = "Other work"


# --- the engine's branch --------------------------------------------------------------------------
@dataclass
class Shaped:
    """The collection branch's result: its answer (None: the ordinary path answers), the time each
    of its steps took, and its note below the answer."""

    answer: Answer | None
    timings: dict[str, float] = field(default_factory=dict)
    note: str = ""
    reading: shape_model.Reread | None = None  # the shape as the model re-read it


def shaped_answer(parts: Parts, base: Answer, question: Question, hits: Hits, decision: Decision | None) -> Shaped:
    """The answer for a list / compare / overview question, or None for the ordinary path; the
    LLM backends' synthesis is added above it afterwards (``collection.summary.with_summary``), so
    the extracted list can be shown while the model writes."""
    t = time.perf_counter()
    shaped = Shaped(None)
    answer = shaped.answer = _shaped(parts, base, question, hits, decision, shaped)
    if answer is not None and shaped.reading is not None:
        shaped.timings["collection"] = time.perf_counter() - t
        shaped.note = shape_model.note(shaped.reading, answer, question.backend)  # an overview the model chose says so
    return shaped


def _shaped(parts: Parts, base: Answer, question: Question, hits: Hits, decision: Decision | None,
            shaped: Shaped) -> Answer | None:
    quotes, shape = question.listed, question.shape
    # The model's re-reading (shape_model.reread) is shown the question alone and its bar was fitted on
    # standalone questions only (evals/shapes_model: no follow-up among them). A follow-up leans on the
    # conversation for its referent ("do they use images?" after a list asks about that list), so an
    # overview of its own words would answer about the whole collection: it keeps the frames' reading.
    # (The engine rewrites exactly the follow-ups, conversation.is_follow_up, into a standalone question.)
    shaped.reading = shape_model.Reread(shape)
    if base.standalone_question is None:
        shaped.reading = shape_model.reread(parts.settings, parts.model_factory, question)
        if shaped.reading.seconds is not None:
            shaped.timings["shape_model"] = shaped.reading.seconds
        shape = shaped.reading.shape
    if shape.is_fact:
        return None
    cfg = parts.settings.collection
    if shape.kind == COMPARE:
        return compared_answer(parts, base, shape, question.exclude)
    if shape.follow_up:
        docs = docs_of_quotes(parts, quotes)
        if not docs:
            return None
        picked = _follow_up(parts, base, shape, docs)
        return picked  # no synthesis of abstracts that do not state the filter (with_summary: list_none)
    found = candidates(parts, shape.topic, max(cfg.candidates, question.k), question.exclude)
    missing = decision.missing if decision is not None else []
    if any(not any(mentioned(name, c.doc.original) for c in found) for name in missing):
        return None  # a named thing none of the abstracts read mentions: the refusal says so
    # (the decision looked at the top k; a name one of the wider list's abstracts writes is not missing)
    ranked = sorted(found, key=lambda c: -c.relevance(cfg.lexical_weight))
    # A topic worded unlike any term ("the memory the KV cache takes") scores lexically below a
    # cut-off fitted on terms: the few most relevant abstracts are listed all the same when their
    # cosine alone reaches the cut-off (and the decision does not refuse the question).
    answerable = decision is not None and decision.outcome != "refuse"
    floor = cfg.min_listed if answerable else 0
    listed = [c for i, c in enumerate(ranked) if (i < floor and c.dense >= cfg.cutoff)
              or c.relevance(cfg.lexical_weight) >= cfg.cutoff]
    # By meaning only when the words list fewer than min_listed: abstracts that write the topic's
    # key words ("RASP" of "the RASP programming language for Transformers") are the evidence,
    # even when none writes the whole phrase in order.
    meaning = (answerable and cfg.meaning_rank > 0 and len(listed) < cfg.min_listed
               and not written(found, cfg.phrase_lexical))
    below = False  # by meaning, even the best candidate is below the floor
    if meaning:  # no abstract writes the topic's words: by the retriever's rank and relative cosine
        listed, below = _by_meaning(parts, shape, found, question.exclude)
    absent = unwritten(shape.topic, parts.retriever.idf(question.exclude))
    if absent and (below or not cfg.meaning_unwritten):
        listed = []  # no abstract can be about a subject none names: the refusal says so, with the closest
    further = [c for c in ranked if c not in listed and c.mentions]
    before = _listed_before(parts, shape, quotes) & {c.doc.work_id for c in listed + further}  # those on this topic
    if before:  # "Any other papers on X?": the same rule, less the works the last list showed
        listed = [c for c in listed if c.doc.work_id not in before]
        further = [c for c in further if c.doc.work_id not in before]
        if not listed:
            return _none_besides(parts, base, shape, len(before), further)
    if not listed:
        return _none_about(base, shape, hits, absent) if absent else None
    cap = cfg.overview_max if shape.kind == OVERVIEW else cfg.display_max
    if absent:
        # a word of the topic no abstract writes: nothing listed writes the topic, say so before the neighbours
        base.caveat = (f"No abstract in the collection mentions {' or '.join(repr(w) for w in absent)}; the "
                       f"{min(len(listed), cap)} closest in meaning to {_topic_text(shape)} are listed, which may not be about it:")
        base.caveat_kind = CAVEAT_LIST_UNWRITTEN
    answer = _listing(parts, base, shape, listed, further, cap, meaning, len(before))
    if meaning and not answer.caveat:
        # none of the listed abstracts writes the topic: a list by meaning is a hedge, never a plain answer
        answer.caveat, answer.caveat_kind = answer.text.split("\n", 1)[0], CAVEAT_LIST_BY_MEANING
    return answer


def _by_meaning(parts: Parts, shape: Shape, found: list[Candidate], exclude: set[str] | None) -> tuple[list[Candidate], bool]:
    """The list by meaning (``topics.by_meaning``, the topic restated by ``topics.feedback``) and
    whether even the best candidate is below ``meaning_floor``; below it, the closest by the same
    rank and ratio, a hedge like any list by meaning (the head says what was checked, no more; a
    single-fact answer would quote one neighbour plainly: docs/archive/measurements-diary.md, "a list
    no abstract is close to in meaning")."""
    cfg = parts.settings.collection
    feedback(parts, shape.topic, found, cfg.meaning_feedback, exclude)  # restated from its best candidates
    # A topic that names something ("the RASP language", "a model called Zebra") is about that
    # thing: an abstract that never mentions the name is not on it, however close in meaning.
    named = name_phrases(shape.topic)
    # by_meaning's floor only decides whether anything is listed (the best chunk cosine, as there):
    # the rule runs once without it and the floor is read here, to say which of the two it was
    below = max((c.dense for c in found), default=0.0) < cfg.meaning_floor
    listed = by_meaning(found, min(cfg.meaning_rank, cfg.display_max), cfg.meaning_ratio, 0.0, fed=cfg.meaning_feedback > 0)
    return [c for c in listed if all(mentioned(n, c.doc.original) for n in named)], below


def _listed_before(parts: Parts, shape: Shape, quotes: list[str]) -> set[str]:
    """The works the last list showed, when the question asks for more of a kind ("Any other papers
    on X?", ``Shape.more``): "other / more / else" presuppose that list, so its works are known to
    the user and are not the new ones asked for (a list repeating them would answer "no" as "yes")."""
    return {d.work_id for d in docs_of_quotes(parts, quotes)} if shape.more and quotes else set()


def _none_besides(parts: Parts, base: Answer, shape: Shape, shown: int, further: list[Candidate]) -> Answer:
    """Nothing on the topic reaches the cut-off besides the works listed before: the answer says exactly
    that ("No abstract in the collection is on X" would be false: the ones listed before are). Those
    left that share the topic's words below the cut-off are counted and kept in ``items``, uncited, as
    the last list's closing line kept them: sharing a stem is not being about the topic ("continual"
    and "continuous" share one), so none is cited as if it were."""
    w = parts.settings.collection.lexical_weight
    base.shape, base.caveat_kind = shape.kind, CAVEAT_LIST_BELOW_CUTOFF if further else CAVEAT_LIST_NONE
    base.text = base.caveat = f"No abstract besides the {shown} listed before reaches the relevance cut-off for {_topic_text(shape)}."
    if further:
        n = len(further)
        base.text += (f" {n} more share{'s' if n == 1 else ''} its words but rank{'s' if n == 1 else ''} below the cut-off "
                      "(see the full list).")
        base.items = [_uncited(c, w, above_cutoff=False) for c in further]
    return base


def _none_about(base: Answer, shape: Shape, hits: Hits, absent: list[str]) -> Answer:
    """A list of nothing whose topic has a word no abstract writes: a refusal that says so, with the
    retriever's closest three (as the engine's refusal shows them), instead of the ordinary answer
    path, which would quote the closest sentences for a subject the collection never names."""
    base.refused, base.shape = True, shape.kind
    base.text = (f"No abstract in the collection mentions {' or '.join(repr(w) for w in absent)}, so none is about "
                 f"{_topic_text(shape)}.")
    base.caveat, base.caveat_kind = base.text, CAVEAT_LIST_NONE
    base.closest = [to_hit(doc, score, i + 1) for i, (doc, score) in enumerate(hits[:3])]
    if base.closest:
        base.text += " The closest abstracts are listed below; none of them is about it."
    return base


def _follow_up(parts: Parts, base: Answer, shape: Shape, docs: list[StoredDoc]) -> Answer:
    """The listed abstracts that state the follow-up's filter: lexical score for its topic, cosine
    of the best sentence with the filter as asked (its verb kept: ``Shape.predicate``), weighed and
    cut by the follow-up's own constants (fitted by ``python -m evals.list_followups fit``: the
    abstracts are already on the list's topic). When none reaches the cut-off the answer says so
    and shows the closest three under that statement (``_none_follows``)."""
    cfg = parts.settings.collection
    found = rescored(parts, shape.topic, docs)
    if shape.predicate and shape.predicate != shape.topic:
        for c, p in zip(found, rescored(parts, shape.predicate, docs), strict=True):
            c.dense = p.dense
    quote_stating(parts, shape, found, q_vecs := filter_vectors(parts, shape))  # the sentence stating the filter
    w = cfg.followup_lexical_weight
    ranked = sorted(found, key=lambda c: -c.relevance(w))
    listed = [c for c in ranked if c.relevance(w) >= cfg.followup_cutoff]
    if listed:
        return _listing(parts, base, shape, listed, [], cfg.display_max)
    meant = [] if any(c.mentions for c in ranked) else closest_in_meaning(parts, shape, ranked, q_vecs)
    if meant:  # none writes the filter's words; these state something close to it (assistant/collection/followups.py)
        base.caveat, base.caveat_kind = meaning_caveat(shape, len(ranked), len(meant)), CAVEAT_LIST_BY_MEANING
        return _listing(parts, base, shape, meant, [], cfg.display_max)
    return _none_follows(parts, base, shape, ranked)


def _none_follows(parts: Parts, base: Answer, shape: Shape, ranked: list[Candidate]) -> Answer:
    """No listed abstract reaches the follow-up's cut-off. The answer claims only what was checked,
    the words. When no listed abstract writes all of the filter's words, "none mentions 'X'" is
    true, and the closest three (by meaning alone) are neighbours, not cited: a citation marks a
    source for what the answer says, and these support nothing it says (as the refusal's closest).
    When one writes them all, apart (an abstract may say "theoretical frameworks … analysis", or
    "Theoretically, we show" for "a theoretical analysis"), it may state the filter in other
    words: the answer says none *clearly* states it and cites the closest three, naming the
    filter's words they write."""
    closest, w = ranked[:3], parts.settings.collection.followup_lexical_weight
    base.caveat_kind, base.shape = CAVEAT_LIST_NONE, shape.kind
    if not any(c.mentions for c in ranked):
        base.caveat = (f"None of the {len(ranked)} abstracts listed before mentions {shape.topic!r}; the "
                       f"{len(closest)} closest in meaning, which may not be about it:")
        base.items = [_uncited(c, w, above_cutoff=False) for c in closest]
        base.text = "\n".join([base.caveat] + [f"- {i.label} — {i.text}" for i in base.items])
        return base
    idf = parts.idf()
    words = sorted({word: t[0] for word in TOKEN_PATTERN.findall(shape.topic) if len(t := terms(word)) == 1}.items(),
                   key=lambda wt: -idf(wt[1]))
    held = [{t for _, t in words} & set(terms(c.quote)) for c in closest]
    closest = [c for c, h in zip(closest, held, strict=True) if h] + [c for c, h in zip(closest, held, strict=True) if not h]
    shared = " or ".join(repr(word) for word, t in words if any(t in h for h in held))
    which = "" if not shared else f", which write {shared}" if all(held) else f", some of which write {shared}"
    base.caveat = (f"None of the {len(ranked)} abstracts listed before clearly states {shape.topic!r}; "
                   f"the closest {len(closest)} of them{which}:")
    return _listing(parts, base, shape, closest, [], parts.settings.collection.display_max)


# --- verification ---------------------------------------------------------------------------------
# --- lists and overviews --------------------------------------------------------------------------
def _uncited(c: Candidate, w: float, above_cutoff: bool = True) -> ListItem:
    """A candidate kept in ``Answer.items`` but not cited: beyond the display cap, or below the cut-off."""
    return list_item(c.doc, 0, c.quote, c.relevance(w), cited=False, above_cutoff=above_cutoff)


def _group(doc: StoredDoc) -> str:
    return next((name for name, pattern in _GROUPS if pattern.search(doc.original)), OTHER_GROUP)


def _listing(parts: Parts, base: Answer, shape: Shape, listed: list[Candidate], further: list[Candidate], cap: int,
             meaning: bool = False, besides: int = 0) -> Answer:
    w = parts.settings.collection.lexical_weight
    shown, beyond = listed[:cap], listed[cap:]
    items: list[ListItem] = []
    for c in shown:
        [(ok, evidence)] = verify_claims(parts, c.doc, [c.quote])
        if not ok:
            beyond.append(c)
            continue
        n = len(base.citations) + 1
        items.append(list_item(c.doc, n, c.quote, c.relevance(w), group=_group(c.doc) if shape.kind == OVERVIEW else ""))
        base.citations.append(make_citation(c.doc, n, c.relevance(w), evidence))
        base.sentences.append(AnswerSentence(text=items[-1].text, citations=[n]))
    rest = [_uncited(c, w) for c in beyond]
    rest += [_uncited(c, w, above_cutoff=False) for c in further]
    base.shape, base.items = shape.kind, items + rest
    base.text = _list_text(shape, items, len(beyond), len(further), base.caveat, meaning, besides)
    return base


def _topic_text(shape: Shape) -> str:
    return f"'{shape.topic}'" if shape.verbal else shape.topic  # a verb phrase ("route each token to an expert") quoted


def _list_text(shape: Shape, items: list[ListItem], beyond: int, further: int, caveat: str | None = None,
               meaning: bool = False, besides: int = 0) -> str:
    topic = _topic_text(shape)
    scope = " listed before" if shape.follow_up else ""  # "2 abstracts listed before on X"
    if shape.kind == OVERVIEW:
        head = f"Overview of {topic} from {len(items)} abstract{'s' if len(items) != 1 else ''}, grouped by the kind of work:"
        lines = [caveat or head]
        for group in [g for g, _ in _GROUPS] + [OTHER_GROUP]:
            members = [i for i in items if i.group == group]
            if members:
                lines.append(f"{group}:")
                lines += [f"[{i.n}] {i.label} — {i.text}" for i in members]
    else:
        how = "closest in meaning to" if meaning else "on"
        others = f", besides the {besides} listed before" if besides else ""  # "Any other papers on X?"
        lines = [caveat or f"{len(items)} abstract{'s' if len(items) != 1 else ''}{scope} {how} {topic}{others} "
                 f"({'no sentence writes those words together; ' if meaning else ''}answered as a list, most relevant first):"]
        lines += [f"[{i.n}] {i.label} — {i.text}" for i in items]
    if beyond:
        lines.append(f"{beyond} further abstract{'s' if beyond != 1 else ''} on {topic} "
                     f"{'are' if beyond != 1 else 'is'} not shown here (see the full list).")
    if further:
        lines.append(f"{further} further abstract{'s' if further != 1 else ''} mention{'' if further != 1 else 's'} "
                     f"{topic} but rank{'' if further != 1 else 's'} below the relevance cut-off.")
    return "\n".join(lines)


# --- comparisons ----------------------------------------------------------------------------------
__all__ = ["LIST", "OVERVIEW", "Candidate", "candidates", "previous_list", "rescored", "shaped_answer"]
