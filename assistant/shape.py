"""The shape of a question about the collection: a single fact, a list of papers, a comparison of
named papers, or an overview of a topic.

Decided from how English asks these things, never from any evaluation question:

- **list**: an interrogative determiner with a *plural* noun that denotes works as its head
  ("Which papers…", "What abstracts…", "Which two works…", "How many studies…"), an imperative that
  asks for works ("List / Name / Find / Show (me) the papers…"), an existential ("Are there papers
  on…"), or a follow-up that picks out of the previous list ("Which of these / them / those…",
  only when the previous answer was a list). Grammatical number carries the asker's expectation:
  "Which work proposes X?" (singular) expects one paper and stays a fact question, and a plural
  head that is the *object* of another subject (do-support after the noun: "How many papers does
  the survey review?", unless that subject is the collection; or a named subject after a form of
  be / have: "How many documents was PaECTER tuned on?") asks about one paper's content — a fact.
- **compare**: an explicit comparison frame — the imperative "compare / contrast A and B",
  "how do A and B differ / compare", "(the) difference(s) between A and B", "A vs. B" — with two
  or more names (``assistant.grounding.names``). "X compared to Y" inside another question is a
  fact about one paper and is not a comparison frame.
- **overview**: "what is known about X", "what has been tried / done / proposed for X",
  "(an) overview of X", "summarise the work on X", "what do the papers say about X".

Everything else is a fact question. The evidence guard (a comparison needs its names in distinct
abstracts) is applied where the abstracts are known: ``assistant.collection``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from assistant.grounding import names

FACT, LIST, COMPARE, OVERVIEW = "fact", "list", "compare", "overview"
SHAPES = (FACT, LIST, COMPARE, OVERVIEW)

# Plural nouns English uses for written works (a closed set of the language, not of any question).
_WORKS = r"(?:papers|abstracts|works|studies|articles|publications|preprints|entries|documents|sources|ones)"
_NUMBER = r"(?:two|three|four|five|six|seven|eight|nine|ten|several|some|all|\d+)"
_MOD = r"(?:[\w-]+\s+){0,3}?"  # a few modifiers between the determiner and the head noun
_WH_LIST = re.compile(rf"^\s*(?:so\s+|and\s+|then\s+)?(?:which|what|how\s+many)\s+(?:{_NUMBER}\s+)?{_MOD}{_WORKS}\b(?P<rest>.*)$", re.I)
_IMPERATIVE = re.compile(rf"^\s*(?:please\s+)?(?:list|name|find|show(?:\s+me)?|give\s+me|enumerate)\s+(?:me\s+)?"
                         rf"(?:(?:all|the|any|every|each)\s+)*(?:{_NUMBER}\s+)?{_MOD}{_WORKS}\b(?P<rest>.*)$", re.I)
_EXISTENTIAL = re.compile(rf"^\s*(?:are|is)\s+there\s+(?:any\s+|other\s+|more\s+)*{_MOD}{_WORKS}\b(?P<rest>.*)$", re.I)
_OF_THESE = re.compile(r"^\s*(?:and\s+|so\s+)?(?:which|what|how\s+many)\s+of\s+(?:these|those|them|the\s+(?:above|listed)\b|the\s+\w+\s+(?:listed|above))(?P<rest>.*)$", re.I)
_AUX_AFTER_HEAD = re.compile(r"^\s*(?:do|does|did|was|were|is|are|has|have|had)\s+(?P<subject>.*)$", re.I)

_COMPARE = [
    re.compile(r"^\s*(?:please\s+)?(?:compare|contrast)\b(?P<rest>.*)$", re.I),
    re.compile(r"^\s*how\s+(?:do|does|did)\b(?P<rest>.*?)\b(?:differ|compare|contrast)\b.*$", re.I),
    re.compile(r"\bdifferences?\s+between\b(?P<rest>.*)$", re.I),
    re.compile(r"(?P<rest>.*\S\s+(?:vs\.?|versus)\s+\S.*)$", re.I),
]
_OVERVIEW = re.compile(
    r"^\s*(?:what\s+(?:is|has\s+been|was)\s+(?:known|learned|learnt|found|reported|shown)\s+(?:about|on|regarding)"
    r"|what\s+(?:has|have)\s+been\s+(?:tried|done|proposed|studied|explored)\s+(?:for|on|about|to|in)"
    r"|what\s+do\s+(?:the\s+)?(?:papers|abstracts|works|studies|sources)\s+(?:say|report|show)\s+(?:about|on)"
    r"|(?:give\s+(?:me\s+)?)?(?:an?\s+)?(?:overview|summary|survey)\s+of"
    r"|summari[sz]e\s+(?:the\s+)?(?:work|research|papers|abstracts|literature|findings)\s+(?:on|about|in))"
    r"\s+(?P<rest>.+)$", re.I)

# The frame before the topic. After a works noun English puts a preposition ("papers on X") or a
# predicate: an optional relative word and auxiliaries, then one verb ("that have studied X",
# "study X", "are about X"), then prepositions and determiners.
_PLACE = re.compile(r"^(?:here|in\s+(?:the|this|my)\s+(?:collection|corpus|library)|of\s+the\s+(?:collection|corpus))\s+", re.I)
_PREPS = re.compile(r"^(?:(?:about|on|of|with|for|to|in|into|at|by|regarding|concerning|a|an|the|any|some|there)\s+)+", re.I)
_NEXT_CLAUSE = re.compile(r"(?:[,;:]\s*(?:(?:and|or|but)\s+)?|\s+(?:and|or|but)\s+)\b(?:what|how|which|why|when|where|who|do|does|did|is|are|was|were)\b.*$", re.I)
_PREDICATE = re.compile(r"^(?:(?:that|which|who)\s+)?(?:d(?:o|oes|id)\s+(?:(?:the|this|my|your)\s+)?(?:collection|corpus|library|index|you)\s+)?(?:(?:do|does|did|are|is|were|was|have|has|had|can|also)\s+)*[\w-]+\s+", re.I)


@dataclass
class Shape:
    kind: str = FACT
    topic: str = ""  # what the list / overview is about (the question without its frame)
    names: list[str] = field(default_factory=list)  # the papers a comparison names
    follow_up: bool = False  # picks out of the previous answer's list

    @property
    def is_fact(self) -> bool:
        return self.kind == FACT


def _clean(text: str) -> str:
    return " ".join(text.strip().rstrip("?.!").split())


def _topic(rest: str) -> str:
    """The topic after the frame: "here study state space models" -> "state space models"."""
    rest = _PLACE.sub("", _NEXT_CLAUSE.sub("", _clean(rest)))
    if _PREPS.match(rest):
        topic = _PREPS.sub("", rest, count=1)
    else:
        topic = _PREPS.sub("", _PREDICATE.sub("", rest, count=1), count=1)
    return topic.strip() or rest


def _named_subject(rest: str) -> bool:
    """An auxiliary right after the head noun, then a name: the noun is the object of that named
    subject ("What datasets does FlashAttention use?", "How many documents was PaECTER tuned on?")."""
    m = _AUX_AFTER_HEAD.match(rest)
    if not m:
        return False
    subject = m.group("subject")
    if re.match(r"\s*d(?:o|oes|id)\b", rest, re.I):  # do-support: the works noun is the object of another subject
        return not re.match(r"(?:(?:the|this|my|your)\s+)?(?:collection|corpus|library|index|you)\b", subject, re.I)
    subject = re.sub(r"^the\s+", "", subject, flags=re.I)
    found = names("The " + subject)
    return bool(found) and subject.startswith(found[0])


def detect(question: str, previous_was_list: bool = False) -> Shape:
    """The question's shape (see the module docstring). ``previous_was_list``: the previous answer
    of the conversation was a list (a "which of these…" follow-up picks from it)."""
    q = " ".join((question or "").split())
    if previous_was_list and (m := _OF_THESE.match(q)):
        return Shape(LIST, _topic(m.group("rest")), follow_up=True)
    if m := _OVERVIEW.match(q):  # its frames are specific: "what do the papers say about" is no list
        return Shape(OVERVIEW, _clean(m.group("rest")))
    for pattern in (_WH_LIST, _IMPERATIVE, _EXISTENTIAL):
        m = pattern.match(q)
        if m and not (pattern is _WH_LIST and _named_subject(m.group("rest"))):
            return Shape(LIST, _topic(m.group("rest")))
    for pattern in _COMPARE:
        m = pattern.search(q)
        if m:
            # "The" keeps a first word from reading as a sentence opener; "vs." is no full stop
            found = names("The " + re.sub(r"\b(vs|versus)\.", r"\1", m.group("rest")))
            if len(found) >= 2:
                return Shape(COMPARE, _clean(m.group("rest")), names=found)
    return Shape(FACT)
