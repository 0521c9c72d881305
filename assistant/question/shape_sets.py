"""The shape detector's readings of a question about a set already listed, or about more of its kind;
``assistant.question.shape`` applies them and builds the ``Shape``. Each is argued
from English grammar, in closed word classes, never from an evaluation question's words:

- **The listed set as an object** ("Is replay used in any of them?", "Was ImageNet used by either of
  them?", "In which of these is X used?"). A quantified partitive over the anaphor ("any / either / one
  / some / all / each / none of them / these / those") that is the complement of a preposition closing a
  yes/no clause (after a form of *be* or *have*, whose subject is the filter's topic) ranges over the
  listed works exactly as the same partitive in subject position does ("Do any of them use replay?"):
  the question asks which members the clause holds of. Fronted ("In which of these is X used?"), the
  preposition is pied-piped with the wh-partitive, the same reading. The clause without its partitive is
  the filter ("replay used"); its subject, the noun phrase before the verb group, is the topic
  ("replay"). The verb group is a participle (English marks it with -ed / -en / -wn, or one of the few
  irregular participles, a closed class) with an optional particle, or nothing after "there" ("Is there
  code for any of them?": an existential, its subject the topic). Do-support ("Does X appear in any of
  them?") is left out: its bare verb is not marked, so the subject's end cannot be told from the words.
- **More of a kind** ("Any other papers on X?", "Any more papers on X?", "Are there more on X?",
  "Anything else on X?", "Are there others about X?"). "Other / more / further / additional" as a
  determiner before a noun for written works, or "more / others" and an indefinite pronoun with "else"
  as the head, presuppose a set already given and ask for further members of a kind: a list of the
  topic its preposition names, a new list question, never a filter of the listed set.
- **A superlative over the listed set** ("Which of them is fastest?", "Which of these reports the largest
  gain?", "Which one achieves the highest speed-up?", bare "Which is the most accurate?" after a list).
  A superlative picks one member (read as a fact), and its comparison class
  is the set the partitive or the elided partitive names: after a list, the listed works. English also
  drops the article of a superlative after a singular copula ("Which of them is fastest?"): singular
  agreement picks one. The evidence of such a question is the listed works only (``Shape.over_listed``,
  applied in ``assistant.collection.followups.scope_to_listed``).
"""

from __future__ import annotations

import re

from assistant.language.names import names
from assistant.question.shape_frames import LEAD, MASS, THESE, WORKS

# the quantifiers that head an English partitive ("any of them", "one of these"): a closed class
_QUANT = r"(?:any|either|one|some|all|each|none|both|neither)"
_PARTITIVE = rf"{_QUANT}\s+of\s+{THESE}(?:\s+{WORKS})?"
# the prepositions that take a partitive complement at a clause's end (a closed class)
_PREP = r"(?:in|by|for|from|across|among|within|on|with|to|throughout)"
# English's irregular past participles that close a passive's verb group (a closed class; the regular
# ones end in -ed, the strong ones in -en / -wn)
_IRREGULAR = r"(?:built|done|run|made|put|set|taught|brought|held|found|kept|met|read|sent|spent|told|got|won|beat|hit|cut)"
_PARTICIPLE = rf"(?:[\w-]+(?:ed|en|wn)|{_IRREGULAR})"
# the particles / prepositions a phrasal passive ends in ("compared against", "built on"): a closed class
PARTICLE = r"(?:against|on|for|with|to|from|as|out|up|over|upon|about|at)"
_OBJECT_SET = re.compile(
    rf"{LEAD}(?P<aux>is|are|was|were|has|have|had)\s+(?P<body>.+?)\s+{_PREP}\s+{_PARTITIVE}\s*[?.!]*\s*$",
    re.I,
)
_FRONTED = re.compile(
    rf"{LEAD}{_PREP}\s+(?:which|{_QUANT})\s+of\s+{THESE}(?:\s+{WORKS})?,?\s+(?P<aux>is|are|was|were|has|have|had)\s+(?P<body>.+?)\s*[?.!]*\s*$",
    re.I,
)
_VERB_GROUP = re.compile(
    rf"^(?P<subject>.+?)\s+(?:been\s+)?(?P<verb>{_PARTICIPLE}(?:\s+{PARTICLE})?)$", re.I
)
_THERE = re.compile(r"^there\s+(?:(?:any|some)\s+)?(?P<subject>.+)$", re.I)

# the determiners of "more of a kind" (module doc: they presuppose a set already given): a closed class
_MORE_DET = r"(?:other|more|further|additional)"
_MORE = re.compile(
    rf"{LEAD}(?:(?:are|is)\s+there\s+|(?:do|does)\s+you\s+have\s+|(?:list|show|find|give)\s+(?:me\s+)?)?(?:any\s+)?"
    rf"(?:{_MORE_DET}\s+(?:{WORKS}|work|research)|more|others|other\s+ones|{MASS}\s+else)"
    rf"(?:\s+(?:in\s+)?here)?\s+(?P<rest>(?:on|about|regarding|concerning|related\s+to|that|which)\b.+)$",
    re.I,
)

# an English superlative: -est, most / least, the suppletive best / worst (morphology, a closed class)
_SUPERLATIVE_FORM = r"(?:(?:the|its)\s+(?:[\w-]{3,}est|most|least|best|worst)|(?:is|was)\s+(?:[\w-]{3,}est|most|least|best|worst))\b"
_OVER_SET = re.compile(
    rf"{LEAD}(?:(?:which|what)(?:\s+ones?)?\s+of\s+{THESE}|(?:of|among)\s+{THESE},?\s+which|which\s+ones?|which(?=\s+(?:is|was)\b))"
    rf"\b(?P<rest>.*)$",
    re.I,
)


def object_set(q: str) -> tuple[str, str] | None:
    """(topic, filter) of a question with the listed set as a preposition's object (module doc), else None."""
    m = _OBJECT_SET.match(q) or _FRONTED.match(q)
    if not m:
        return None
    body = " ".join(m.group("body").split())
    if there := _THERE.match(body):
        return there.group("subject"), body
    if not (v := _VERB_GROUP.match(body)):
        return None
    subject = re.sub(r"^(?:the|a|an)\s+", "", v.group("subject"), flags=re.I)
    return (subject, f"{v.group('subject')} {v.group('verb')}") if subject else None


def more_of(q: str) -> str | None:
    """What follows "other / more / else" in a question asking for more works of a kind (module doc):
    the list's topic phrase (its preposition or relative kept, for ``assistant.question.shape``'s topic), else None."""
    m = _MORE.match(" ".join(q.split()))
    return m.group("rest") if m else None


def superlative(text: str) -> bool:
    """Whether ``text`` holds a superlative, with its article or after a singular copula (module doc)."""
    return bool(re.search(_SUPERLATIVE_FORM, text, re.I))


def over_set(q: str) -> bool:
    """A superlative whose comparison class is the listed set (module doc); only after a list. Bare "which"
    elides its partitive only when the question names no class of its own: "Which is the largest model in
    the Pythia suite?" compares within the named suite (``assistant.language.names.names``), not the list."""
    if not (m := _OVER_SET.match(q)) or not superlative(m.group("rest")):
        return False
    return not (
        re.match(rf"{LEAD}which\s+(?:is|was)\b", q, re.I) and names("The " + m.group("rest"))
    )
