"""Attribution: whether a source's sentence says a claim *of the same things*, not only in the
same words.

Word overlap and cosine measure what a claim talks about; they do not see who it is said of.
"Ring Attention achieves 15.2% over LASP" shares every word with LASP-2's "LASP-2 achieves 15.2%
over LASP and 36.6% over Ring Attention", so a check of words alone passes it. The rules here
come from how English writes names, numbers and comparisons (names decided by
``assistant.language.names``'s orthography), never from any question set:

- **Names are mentioned** (``unmentioned``): a name cannot be paraphrased, so a claim naming
  something its cited abstract never mentions is not supported by that abstract.
- **The subject is the source's** (``substituted``): when the claim's subject names (before its
  comparison, or all of them when it makes none) are absent from the supporting sentence while
  that sentence's own subject holds a name the claim never uses, the claim put one name where the
  source has another ("LASP rethinks ..." against "LASP-2 rethinks ...").
- **Comparisons keep their direction** (``flipped``): English puts the compared-against thing
  after "than", "over", "outperforms", "compared to", ... (or before the comma of a fronted
  "Compared to X, ..."), and a passive "outperformed by" turns it around. A name on the subject
  side of the claim that the source has only on its compared side, or the reverse, reverses the
  relation ("A beats B" is not "B beats A"; the subject of LASP-2's result is not Ring Attention).
- **Numbers occur, with the same unit and attached to the same thing** (``numbers``): every
  number of the claim ("15.2%", "2.7x", "64 GPUs") is in the cited abstract (a claim may join
  figures of several of its sentences); a number that the claim attaches to one name ("36.6% over
  LASP") but the abstract to another ("36.6% over Ring Attention") is a mismatch where both attach one.

A claim that quotes a sentence of its source verbatim is that source's statement: no rule
applies to it (the extractive engine's sentences pass unchanged). Each check returns the reason
it failed, or None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from assistant.language.names import compound_head, is_acronym, mentioned, names

# is_acronym: the same initials rule as grounding (LLM = large language model)
from assistant.language.patterns import WORD
from assistant.language.text import name_like

# Comparison markers: the closed set of English words and phrases that introduce what a thing is
# compared against (comparative "than", the prepositions of comparison, the comparing verbs).
_COMPARE = re.compile(
    r"\b(?:than|over|unlike|versus|vs\.?|against|relative to|compared (?:to|with)|in comparison (?:to|with)|"
    r"outperform(?:s|ed|ing)?|surpass(?:es|ed|ing)?|beat(?:s|ing)?|exceed(?:s|ed|ing)?|"
    r"outpac(?:e|es|ed|ing)|improv(?:e|es|ed|ing) (?:up)?on)\b", re.I)
# the passive of a comparing verb puts the winner after it: "A is outperformed by B"
_PASSIVE = re.compile(r"\b(?:outperformed|surpassed|beaten|exceeded|outpaced|bettered)\s+by\b", re.I)
# a fronted comparison: "Compared to X, Y ..." / "Unlike X, Y ..." (the compared thing up to the comma)
_FRONTED = re.compile(r"^\W*(?:compared (?:to|with)|in comparison (?:to|with)|relative to|unlike|versus|"
                      r"against|over)\s+([^,]+),", re.I)
# a number, not the digits of a name (GPT-4, A100, LASP-2, Llama3): no letter or letter+hyphen before it
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])(?<![A-Za-z]-)(\d+(?:[.,]\d+)*)(\s?%|x\b|×)?")
# where the compared phrase ends: clause punctuation or a subordinating / contrasting conjunction
# opening the next clause (English grammar's closed class, not words taken from any question)
_CLAUSE_END = re.compile(r"[,;:]|\b(?:while|whereas|although|though|but|which|because|since)\b")
# punctuation that ends a name's neighbourhood when a number is attached to the nearest name
_STOP = re.compile(r"[,;:()\[\]]")
# function words that may open a sentence capitalised without starting a name
_OPENERS = {"the", "a", "an", "this", "that", "these", "those", "our", "we", "it", "its", "their", "they", "in",
            "on", "for", "by", "with", "to", "from", "of", "as", "at", "unlike", "compared", "while", "when",
            "although", "however", "moreover", "furthermore", "additionally", "specifically", "finally",
            "first", "second", "third", "then", "thus", "hence", "here", "both", "each", "all", "such", "some",
            "many", "most", "several", "using", "recent", "existing", "previous", "prior", "new", "novel", "and", "or",
            "but", "if", "since", "because", "after", "before", "during", "through", "via", "without", "across",
            "among", "between", "under", "over", "into", "one", "two", "three", "no", "not", "only", "even", "also"}
# a capitalised word where a sentence or a bracket opens, right before a name word ("(Ring Attention")
_OPENING = re.compile(r"(?:^|[.!?:;]\s+|[\"'(\[]\s*)([A-Z][a-z]+)[ -]$")


@dataclass(frozen=True)
class Sides:
    """A sentence split at its comparison: the subject side and the compared-against side."""

    subject: str
    compared: str


@lru_cache(maxsize=4096)
def _names(text: str) -> tuple[str, ...]:
    """grounding's ``names`` (its cost grows with the text's length squared), once per text."""
    return tuple(names(text))


def claim_names(text: str) -> list[str]:
    """Names of ``text`` (grounding's orthography), numbers left out, with a capitalised opening
    word (of the sentence or after a bracket or quote) joined to the name word after it ("Ring
    Attention enables ...", "(Ring Attention)"): such a capital proves nothing alone, but
    followed by a name word it is that name's first word — unless it is a function word or an
    -ing/-ed/-ly word ("Using GPT-4", "Specifically, ...")."""
    found = [n for n in _names(text) if not _is_number(n)]
    out = []
    for n in found:
        for m in re.finditer(re.escape(n), text):
            head = _OPENING.search(text[: m.start()])
            word = head.group(1) if head else ""
            if word and word.lower() not in _OPENERS and not (len(word) > 4 and re.search(r"(ing|ed|ly)$", word)):
                n = f"{word}{text[head.end(1): m.start()]}{n}"
                break
        out.append(n)
    return list(dict.fromkeys(out))


def _is_number(name: str) -> bool:
    return bool(re.match(r"^\d", name))


def _runs(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())




def occurs(name: str, text: str) -> bool:
    """Whether ``text`` holds ``name`` as whole words (LASP is not in "LASP-2"; Ring Attention =
    RingAttention = ring-attention; singular or plural), or an acronym as its words' initials.
    Neighbouring names joined by ``names`` ("GPU HBM") occur when each is a name by itself (an
    inner capital or digit: "Ring" alone is a word, not a name) and occurs."""
    parts = name.split()
    if len(parts) > 1 and all(name_like(p, first=True) for p in parts):
        return all(_occurs(p, text) for p in parts)
    return _occurs(name, text)


def _occurs(name: str, text: str) -> bool:
    target = "".join(_runs(name))
    if not target:
        return True
    variants = {target, target[:-1] if target.endswith("s") else target + "s"}
    toks = _tokens(text)
    for i in range(len(toks)):
        acc = ""
        for j in range(i, len(toks)):
            acc += toks[j]
            if acc in variants:
                return True
            if len(acc) >= len(target) + 1:
                break
    return _acronym_like(name) and is_acronym(name, _source_runs(text))


@lru_cache(maxsize=1024)
def _tokens(text: str) -> tuple[str, ...]:
    """Each word of ``text`` as its letters and digits (texts recur: one answer's sources); a
    compound modifier as the name it is made of ("ViT-based" holds ViT; grounding.compound_head)."""
    return tuple("".join(_runs(compound_head(t.rstrip(".")))) for t in WORD.findall(text))


@lru_cache(maxsize=256)
def _source_runs(text: str) -> list[str]:
    return _runs(text)


def _acronym_like(name: str) -> bool:
    core = name[:-1] if name.endswith("s") else name
    return core.isalpha() and sum(c.isupper() for c in core) >= 2 and len(core) <= 6


def sides(sentence: str) -> Sides | None:
    """The sentence split at its first comparison marker (see the module docstring), or None."""
    m = _FRONTED.match(sentence)
    if m:
        return Sides(subject=sentence[m.end():], compared=m.group(1))
    m = _COMPARE.search(sentence)
    if not m:
        return None
    before, after = sentence[: m.start()], sentence[m.end():]
    p = _PASSIVE.search(sentence)
    if p and p.start() <= m.start() + 1:
        return Sides(subject=_clause(sentence[p.end():]), compared=sentence[: p.start()])
    return Sides(subject=before, compared=_clause(after))


def _clause(text: str) -> str:
    """The compared phrase ends where its clause does ("... compared to X, while Y ..." -> X)."""
    m = _CLAUSE_END.search(text)
    return text[: m.start()] if m else text


def _subject_names(sentence: str) -> list[str]:
    s = sides(sentence)
    return claim_names(s.subject if s else sentence)


def unmentioned(claim: str, source: str) -> list[str]:
    """Names of the claim that the source never mentions. A name of several words is one name
    ("Blockwise Parallel Transformer": its words apart are plain words the source may use for
    anything); only neighbouring names that are names by themselves ("GPU HBM") may occur apart."""
    out = []
    runs = _source_runs(source)
    for n in claim_names(claim):
        parts = n.split()
        if mentioned(n, source, runs) or (len(parts) > 1 and all(name_like(p, first=True) and mentioned(p, source, runs)
                                                                 for p in parts)):
            continue
        out.append(n)
    return out


def substituted(claim: str, evidence: str) -> tuple[list[str], list[str]] | None:
    """(claim names, evidence names) when the claim's subject names are absent from the evidence
    sentence while the evidence's subject holds names the claim never uses; else None."""
    absent = [n for n in _subject_names(claim) if not occurs(n, evidence)]
    if not absent:
        return None
    extra = [n for n in _subject_names(evidence) if not occurs(n, claim)]
    return (absent, extra) if extra else None


def flipped(claim: str, evidence: str) -> list[str]:
    """Names whose side of the comparison differs between claim and evidence."""
    c, e = sides(claim), sides(evidence)
    if c is None or e is None:
        return []
    out = [n for n in claim_names(c.subject) if occurs(n, e.compared) and not occurs(n, e.subject)]
    out += [n for n in claim_names(c.compared) if occurs(n, e.subject) and not occurs(n, e.compared)]
    return list(dict.fromkeys(out))


def number_mentions(text: str) -> list[tuple[str, str, int]]:
    """(value, unit symbol, end offset) of each number: "15.2%" -> ("15.2", "%", ...); 1,800 = 1800."""
    out = []
    for m in _NUMBER.finditer(text):
        unit = (m.group(2) or "").strip().replace("×", "x")
        out.append((m.group(1).replace(",", ""), unit, m.end()))
    return out


def _attached(text: str, end: int) -> str | None:
    """The name a number is said of: the first name after it, before the next number or clause
    mark, within five words ("36.6% over Ring Attention" -> Ring Attention)."""
    tail = text[end:]
    cut = _STOP.search(tail)
    tail = tail[: cut.start()] if cut else tail
    nxt = _NUMBER.search(tail)
    tail = tail[: nxt.start()] if nxt else tail
    tail = " ".join(tail.split()[:5])
    found = [n for n in _names(" x " + tail) if not _is_number(n)]
    return found[0] if found else None


def numbers(claim: str, sentences: list[str]) -> str | None:
    """Why the claim's numbers are not the abstract's (its ``sentences``; see the module docstring), or None."""
    ev = [(v, u, s, end) for s in sentences for v, u, end in number_mentions(s)]
    for value, unit, end in number_mentions(claim):
        same = [(s, e_end) for v, u, s, e_end in ev if v == value and (not unit or not u or unit == u)]
        if not same:
            return f"the number {value}{unit} is not in the abstract"
        said_of = _attached(claim, end)
        if said_of is None:
            continue
        theirs = [_attached(s, e_end) for s, e_end in same]
        if all(t is not None and not occurs(said_of, t) and not occurs(t, said_of) for t in theirs):
            return f"the source gives {value}{unit} for {theirs[0]}, not for {said_of}"
    return None


def _quote(claim: str, sentences: list[str]) -> bool:
    key = " ".join(claim.split()).rstrip(".")
    return any(key and key in " ".join(s.split()) for s in sentences)


def check(claim: str, source: str, evidence: list[str], source_sentences: list[str]) -> str | None:
    """Why ``source`` does not support ``claim`` as attributed, or None when it does.
    ``evidence``: the source's supporting sentences, best first; ``source_sentences``: all of them."""
    if _quote(claim, source_sentences):
        return None  # a verbatim quote is its source's own statement
    missing = unmentioned(claim, source)
    if missing:
        return f"it never mentions {_join(missing)}"
    why = numbers(claim, source_sentences or evidence)
    if why:
        return why
    reasons = []
    for sentence in evidence or [""]:  # a supporting sentence that says it of the same things
        if f := flipped(claim, sentence):
            reasons.append(f"it has {_join(f)} on the other side of the comparison (the relation is reversed)")
        elif sub := substituted(claim, sentence):
            reasons.append(f"it says this of {_join(sub[1])}, not of {_join(sub[0])}")
        else:
            return None
    return reasons[0]


def _join(items: list[str]) -> str:
    return ", ".join(f'"{x}"' for x in items)


# An incomplete claim: English grammar leaves no sentence ending in a word that needs what follows
# it. Closed word classes, not words of any question set: articles and determiners that need
# their noun, coordinators and subordinators that need their clause, a copula / auxiliary that
# needs its complement ("Sana's main feature is."), a preposition that needs its object
# ("X is based on [1]." once the marker is read as the citation), a possessive that needs its
# noun, and the finite forms of verbs that are transitive in every sense ("The method
# achieves."). An auxiliary, a possessive or such a verb may end a clause with an ellipsis or a
# gap ("faster than the baseline is", "as the results show", "than Llama's", "what it is"), a
# preposition with a gap only ("what it is based on") or in "and so on": licensed by such a word
# among the last words of the clause. A sentence ending at a colon announces what follows; a
# compound ending in a preposition ("in-between", "built-in", "add-on") is an adverb or a noun.
_NEEDS_NOUN = set("the a an every its their our my your whose".split())
_NEEDS_CLAUSE = set("and or but nor because although whereas unless if whether than".split())
AUX = set(
    (
        "is are was were be been being am has have had do does did "
        "can could may might must shall should will would"
    ).split()
)
PREPOSITIONS = set(
    (
        "of in on at by for with from to into onto upon via as between among within without against toward "
        "towards during despite including across through about like per over under beyond versus"
    ).split()
)
# verbs with no intransitive sense, and no noun or adjective spelled like their -s form
_TRANSITIVE = set(
    (
        "achieve outperform propose introduce provide enable require contain include utilize utilise employ "
        "surpass exceed obtain attain comprise involve incorporate describe present leverage demonstrate "
        "reveal show"
    ).split()
)
_THIRD_PERSON = {v + ("es" if v.endswith(("s", "sh")) else "s") for v in _TRANSITIVE}
# a verb's base form ends a clause after a modal, "to", "not" or a plural pronoun subject ("we propose"):
# closed classes of English
_BEFORE_BASE = set("can could may might must shall should will would to we they not".split())
# the perfect auxiliary: a transitive verb's -ed form after it is active and needs its object ("has
# achieved"); elsewhere -ed may be a passive participle ("is achieved"), which ends a clause
_PERFECT = {"has", "have", "had"}
# a gap (relative, interrogative) is licensed by a wh-word; an ellipsis (of a verb phrase, of a
# possessive's noun) also by a comparative or correlative ("than X is", "as X does", "than Y's")
_WH = set("which what who whom where when how whatever whichever wherever whoever".split())
_ELLIPSIS = _WH | {"than", "as", "so", "too", "nor", "neither"}
_LICENSOR_WINDOW = 5  # words before the last one where a gap's or an ellipsis's licensor stands
# the claim's last word (letters and apostrophes) before closing punctuation and quotes: orthography
_LAST = re.compile(r"([A-Za-z][A-Za-z'\u2019]*)[\s.!?;,\"'\u2019\u201d]*$")


def incomplete(claim: str) -> str | None:
    """What a claim ends in that needs a continuation (the reason), or None when it may end there."""
    text = claim.rstrip()
    m = _LAST.search(text)
    if not m or text.endswith(":") or text[: m.start()].endswith("-"):  # "in-between", "built-in"
        return None
    word = m.group(1).replace("\u2019", "'").rstrip("'")  # a closing quote is no apostrophe
    low = word.lower()
    clause = re.split(r"[,;:()\u2014]", text[: m.start()])[-1].lower().split()
    window, before = set(clause[-_LICENSOR_WINDOW:]), clause[-2:]
    if low in _NEEDS_NOUN and word != "A":  # "A" alone may be a label (method A)
        return f"it ends in \u201c{word}\u201d, which needs its noun"
    if low in _NEEDS_CLAUSE:
        return f"it ends in \u201c{word}\u201d, which needs what it joins"
    if low in PREPOSITIONS:  # "and so on" is an idiom
        gap = _WH & window or before[-1:] == ["so"]
        return None if gap else f"it ends in \u201c{word}\u201d, which needs its object"
    if _ELLIPSIS & window:
        return None
    if low in AUX:
        return f"it ends in \u201c{word}\u201d, which needs its complement"
    if low.endswith("'s") and len(low) > 2:
        return f"it ends in the possessive \u201c{word}\u201d, which needs its noun"
    verb = (
        low in _THIRD_PERSON
        or (low in _TRANSITIVE and before[-1:] and before[-1] in _BEFORE_BASE)
        or (low.endswith("ed") and _base(low) in _TRANSITIVE and _PERFECT & set(before))
    )
    return f"it ends in \u201c{word}\u201d, which needs its object" if verb else None


def _base(participle: str) -> str:
    """The base form of a regular past participle ("achieved" -> "achieve", "showed" -> "show")."""
    stem = participle[:-2]
    return stem if stem in _TRANSITIVE else stem + "e"


# A claim said of several works: its subject opens with a quantifier or a definite plural over the
# nouns that name documents ("Both papers ...", "The abstracts ...", "All three recent papers ..."),
# or it says "they are both" / "they both". English states it of each of them, so one abstract
# supports it for one work only: it needs a cited source per work, at least two. "works" and
# "studies" are also verbs ("The model works", "The paper studies X"): no modifier before them.
_COLLECTIVE = re.compile(
    r"^\W*(?:both|all|the|these|those)\s+(?:(?:two|three|four|five|several|\d+)\s+)?"
    r"(?:(?:\w+\s+)?(?:papers|abstracts|articles)|works|studies)\b"
    r"|\bthey\s+(?:are\s+)?both\b",
    re.I,
)


def collective(claim: str) -> bool:
    """Whether the claim is said of several works (``_COLLECTIVE``)."""
    return bool(_COLLECTIVE.search(claim))
