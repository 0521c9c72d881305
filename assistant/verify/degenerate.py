"""Degenerate claims: a sentence that relates a thing to itself says nothing a source could support.

Every name of "TTT layers are two variants: TTT layers and TTT layers." occurs in the TTT
abstract, so a check of names and words passes it; its grammar says it states nothing. Two
constructions of English, decided from grammar and closed word classes, never from any question:

- **A coordination of identical conjuncts** (``repeated``): "A and A", "A, B and A", "both A and
  A", "between A and A", a bracket enumerating "(A, A, B)". Coordination joins *different* things; joining a phrase to itself adds
  no second thing, so a list of "two variants: A and A" names one. English reduplication ("more
  and more", "again and again", "tried and tried": intensity or iteration) coordinates a single
  plain word, so a repeated single word that is not a name is that idiom and stays. A number may
  repeat ("80.1% and 80.1% on X and Y": two measurements can share a value); a conjunct that
  differs in any word ("X and X-Large", "X-1 and X-2", "Llama and Llama with retrieval") is
  another thing.
- **Reflexive predication** (``reflexive``): a copula or a comparison whose two sides are the same
  phrase ("X is X", "X outperforms X", "X is better than X") is true or false by logic alone,
  whatever any abstract says. It is only that when nothing else in the sentence tells the two
  sides apart: "A outperforms A without pretraining" compares two settings of A and stays.

Conjuncts are delimited by clause punctuation and closed classes (determiners, prepositions,
pronouns, auxiliaries, subordinators, a word in -s before them: a finite verb or a plural noun,
which English does not use as a prenominal modifier). A conjunct after the coordinator ends only at
punctuation, another coordinator or the sentence's end, so any word after it ("Llama and Llama
with retrieval", "Mamba and Mamba on long inputs": the phrase may modify the second conjunct) keeps
the sentence; where the coordination is a subject (it opens the sentence or a colon's list, or
follows "both", "either", "neither", "between") its predicate's auxiliary also ends it ("A and A
are ..."; a plural verb in its base form cannot be told from a noun without a lexicon, so "A and A
use X" passes). A verbatim quote of a source sentence is the source's own
statement and is exempt (the caller, ``assistant.verify.citations``).
"""

from __future__ import annotations

import re

from assistant.language.text import name_like

# the same closed classes as the incomplete-sentence rule (auxiliaries, prepositions)
from assistant.verify.attribution import AUX, PREPOSITIONS

# Where these come from (orthography and English closed classes; none from an evaluation question):
# a token is a word as names are written (letters and digits joined by ' + / . -, a trailing %: "GPT-4",
# "C++", "80.1%", "it's"), or one of the punctuation marks that bound a conjunct; grounding's _TOKEN
# with the apostrophe, percent and those marks added because a conjunct's edges are read here.
_TOKEN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9'\u2019+/.-]*[A-Za-z0-9+%])?%?|[,;:()\[\]\u2014\"]")
_PUNCT = set(',;:()[]\u2014"')
# English's coordinating conjunctions that join noun phrases (the closed class; "but", "yet", "so"
# join clauses and stand with the subordinators below)
_COORDINATORS = {"and", "or", "nor"}
# a number, with a unit or a magnitude ("80.1%", "2.7x", "7B", "16k"): a value, which two things may share
_NUMBER = re.compile(r"^\d[\d.,]*(?:%|x|\u00d7|[kmbt])?$", re.I)
# a conjunct's determiner or possessive is not part of what it names ("the X and the X")
_DETERMINERS = set(
    "the a an this that these those its their our his her my your each every some any no".split()
)
# the first halves of English's correlative coordinators ("both A and B", "either A or B", "neither
# A nor B") and "between A and B": a closed class; words that coordinate noun phrases after them
_CORRELATIVES = {"both", "either", "neither", "between"}
_PRONOUNS = set("we they it he she i you one".split())
_SUBORDINATORS = set(
    "which who whom whose where when while whereas although though because since if unless "
    "than versus vs but".split()
)
_STOP_LEFT = (
    _DETERMINERS | _CORRELATIVES | _PRONOUNS | _SUBORDINATORS | AUX | PREPOSITIONS | _COORDINATORS
)
# a fronted adjunct ("For Llama, ...") opens with a preposition or a subordinator: not a list item
_FRONTED = PREPOSITIONS | _SUBORDINATORS


def _finite_s(word: str) -> bool:
    """A lowercase word in -s that is not -ss/-us/-is: a finite verb or a plural noun, neither of
    which modifies a noun after it in English (compound modifiers are singular), so it is outside
    the conjunct that follows it ("uses A and A")."""
    return (
        word.islower()
        and len(word) > 2
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is"))
    )


def _norm(words: list[str]) -> tuple[str, ...]:
    i = 0
    while i < len(words) and words[i].lower() in _DETERMINERS:
        i += 1
    return tuple(w.casefold() for w in words[i:])


def _left(tokens: list[str], end: int) -> tuple[list[str], int]:
    """The conjunct ending before ``end`` and the index where it stops (-1: the sentence's start)."""
    i = end - 1
    while i >= 0 and tokens[i] not in _PUNCT and tokens[i].lower() not in _STOP_LEFT:
        if _finite_s(tokens[i]) and i < end - 1:  # its last word may be a plural ("TTT layers")
            break
        i -= 1
    return tokens[i + 1 : end], i


def _right(tokens: list[str], start: int, subject: bool) -> list[str]:
    """The conjunct from ``start``: to punctuation, a coordinator or the end; in a subject, also
    to its predicate's auxiliary or a subordinator (a word in -s may be its plural noun)."""
    j = start
    while j < len(tokens) and tokens[j] not in _PUNCT and tokens[j].lower() not in _COORDINATORS:
        low = tokens[j].lower()
        if subject and j > start and (low in AUX or low in _SUBORDINATORS):
            break
        j += 1
    return tokens[start:j]


def _items(tokens: list[str], at: int) -> list[list[str]]:
    """The conjuncts of the coordinator at ``at``: the one after it, the one before it, and the
    comma-separated ones before that ("A, B(,) and C"), a fronted adjunct ("For X, ...") left out."""
    end = at - 1 if at > 0 and tokens[at - 1] == "," else at  # the serial comma
    first, stop = _left(tokens, end)
    if stop >= 0 and tokens[stop].lower() in _DETERMINERS:  # its determiner is the conjunct's
        first, stop = tokens[stop:end], stop - 1
    subject = stop < 0 or tokens[stop].lower() in _CORRELATIVES or tokens[stop] == ":"
    items = [_right(tokens, at + 1, subject), first]
    while stop >= 0 and tokens[stop] == ",":
        item, stop = _left(tokens, stop)
        if stop == 0 and tokens[0].lower() in _FRONTED:
            break
        items.append(item)
    return items


def _counts(words: tuple[str, ...], occurrences: list[list[str]]) -> bool:
    """Whether a repeated conjunct names something: not a number; several words, or a single word
    written as a name in each occurrence (an inner capital or a digit, or a capital initial every
    time: "More and more" is the reduplication idiom, "Llama and Llama" a name twice), or a noun
    with its determiner ("the encoder and the encoder": the idiom coordinates bare words)."""
    if not words or all(_NUMBER.match(w) for w in words):
        return False
    if len(words) > 1 or any(len(o) > len(words) for o in occurrences):
        return True
    return all(name_like(o[-1], first=True) or o[-1][:1].isupper() for o in occurrences)


def _bracketed(tokens: list[str]) -> list[list[list[str]]]:
    """The comma-separated phrases of each bracket ("(GPT-Neo, BLOOM)", "(e.g., X, Y)"): a bracket
    of phrases separated by commas enumerates them, with or without a coordinator. A semicolon
    ends one enumeration ("(Smith, 2020; Smith, 2021)")."""
    out, group, item, depth = [], [], [], 0
    for tok in tokens:
        if tok in "([":
            depth, group, item = depth + 1, [], []
        elif depth and tok in ")];":
            if len(group) >= 1:
                out.append([*group, item])
            group, item = [], []
            depth -= tok != ";"
        elif depth and tok == ",":
            group.append(item)
            item = []
        elif depth:
            item.append(tok)
    return out


def repeated(claim: str) -> str | None:
    """The conjunct coordinated with itself ("A and A", "A, B and A", "(A, A)"), or None."""
    tokens = _TOKEN.findall(claim)
    lists = [_items(tokens, at) for at, tok in enumerate(tokens) if tok.lower() in _COORDINATORS]
    for items in lists + _bracketed(tokens):
        seen: dict[tuple[str, ...], list[str]] = {}
        for item in items:
            key = _norm(item)
            if key in seen and _counts(key, [seen[key], item]):
                return " ".join(item[len(item) - len(key) :])
            seen.setdefault(key, item)
    return None


# "X is X", "X outperforms X", "X is (2x) better than X": the two sides of a copula or a comparison.
# From English grammar: the copula's forms, a comparative ("-er / more / less ... than") after a verb
# of performance, and the comparing verbs of attribution._COMPARE (the same closed set the
# direction-flip check reads, plus "rival"); a few degree adverbs that may stand before them.
_RELATION = re.compile(
    r"\s+(?:(?:is|are|was|were|performs?|performed|works?|runs?|scales?)\s+(?:\S+\s+)?(?:\w+er|worse|more\s+\w+|less\s+\w+)\s+than"
    r"|(?:consistently\s+|significantly\s+|clearly\s+)?(?:outperform|surpass|beat|exceed|outpace|rival)\w*"
    r"|(?:is|are|was|were)(?:\s+(?:also|simply|just|essentially|exactly))?)\s+",
    re.I,
)
# a fronted adjunct or connective ("On ImageNet, ", "Thus, ") separates nothing of the two sides:
# English sets a fronted adverbial off with a comma (punctuation; 80 characters a sanity bound)
_FRONT = re.compile(r"^[^,]{1,80},\s+")


def reflexive(claim: str) -> str | None:
    """The phrase said to be, or compared with, itself ("X outperforms X"), or None."""
    text = _FRONT.sub("", claim.strip().rstrip(".!?").strip())
    for m in _RELATION.finditer(text):
        a, b = _TOKEN.findall(text[: m.start()]), _TOKEN.findall(text[m.end() :])
        # a tautology even of a plain word ("Attention is attention"), not of a number
        key = _norm(a)
        if (
            key
            and key == _norm(b)
            and not set(a) & _PUNCT
            and not all(_NUMBER.match(w) for w in key)
        ):
            return " ".join(b)
    return None


def degenerate(claim: str) -> str | None:
    """Why the claim states nothing checkable (it repeats itself), or None."""
    if same := repeated(claim):
        return f"\u201c{same}\u201d is coordinated with itself, so it names one thing as two"
    if same := reflexive(claim):
        return f"it relates \u201c{same}\u201d to itself, which no source can state or refute"
    return None
