"""Rules for the generated question set (evals/generate_questions.py): the corpus as the product
reads it, gold anchors, the drop rules, and the mechanical "absent-name" unanswerables.

Everything here is pure and deterministic (no model): the tests call it directly. The thresholds
were fixed before the first generation run and are not tuned on its output.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.evidence.scoring import terms
from assistant.language.names import missing_names
from ingest.loaders import iter_files, load_file
from ingest.normalize import GENERIC, content_id, make_label, normalize_text

MIN_WORDS, MAX_WORDS = 5, 40  # question length bounds from the brief (issue 11): shorter is a fragment, longer a paragraph
ANCHOR_MIN, ANCHOR_MAX = 8, 16  # anchor words: evals/check_dataset.py accepts 8-20; 16 leaves room for a full clause
MAX_KEY_POINT_WORDS = 4  # evals/check_dataset.py rejects key points longer than 4 words
# Reworded questions: dropped when more than this share of their content words (stemmed, the
# product's own `terms`) occur in the abstract; 0.6 fixed a priori from the brief, never refit.
REWORDED_MAX_OVERLAP = 0.6
# References that cannot identify one paper among hundreds: the brief's list ("this paper", "the
# authors", "this study", "the proposed method", "the abstract", "the text") with "the"/"this" alike,
# and the abstract's own "we"/"our" (the authors again). Any "this"/"these" points into a text the
# reader of a standalone question does not have ("this statement", "this method").
DEICTIC = re.compile(r"\b(this|these)\b|\bthe (paper|study|work|article|abstract|text|authors?|research|"
                     r"proposed (method|approach|model|framework|technique))\b|\b(the|this) (method|approach|model|"
                     r"framework|technique|system) (described|presented|proposed|introduced)\b|(?-i:\b([Ww]e|[Oo]ur|us)\b)", re.I)
# A name-like token: starts with a letter and has a capital after its first character or a digit
# (FlashAttention, GPT-2, RetNet, T5); the rule from the brief for absent-name unanswerables.
NAME_TOKEN = re.compile(r"(?<![\w-])[A-Za-z][\w+-]*(?:[A-Z]|\d)[\w+-]*")
# Title Case runs of two or more words not at the question's start (the second form of the
# product's name pattern in ingest/normalize.py): Matryoshka Representation Learning.
TITLE_NAME = re.compile(r"(?<=\S )[A-Z][a-z]+(?:[ -][A-Z][\w+-]*)+")
# Suffixes that turn a name into a version that does not exist (checked against the corpus).
NAME_SUFFIXES = ("-3", " v4", "-XL", "-Lite", "++", "-Pro")
# A name is a paper's own (not a field-wide acronym such as LLM or GPU) when at most this many
# distinct abstracts use it: its own, a near-duplicate version, and one comparison (sanity bound).
MAX_NAME_DF = 3
# A direct question is vague when none of its content words (stemmed) is both in its abstract and
# used by at most this share of all abstracts ("What is the main finding of the softmax function?"
# passes, "What is the key idea of transformers?" does not): sanity bound, ~22 of 446. Not applied
# to reworded questions, whose words are meant to differ from the abstract's.
RARE_DF_SHARE = 0.05


@dataclass(frozen=True)
class Abstract:
    index: int  # 0-based position among the distinct abstracts, in file order
    doc_id: str  # the ingest's content id of the normalised text (ingest/normalize.py)
    text: str  # the abstract as found, whitespace collapsed
    source: str  # file:line of its first occurrence


def load_abstracts(corpus: Path) -> list[Abstract]:
    """Distinct abstracts of a corpus folder, read by the product's own loaders, in file order."""
    seen: dict[str, Abstract] = {}
    for f in iter_files([corpus]):
        records, _problems = load_file(f)
        for r in records:
            doc_id = content_id(normalize_text(r.text))
            if doc_id not in seen:
                where = Path(r.path).resolve()
                where = where.relative_to(corpus.resolve().parent.parent) if where.is_relative_to(corpus.resolve().parent.parent) else where
                seen[doc_id] = Abstract(len(seen), doc_id, " ".join(r.text.split()), f"{where}:{r.line}")
    return list(seen.values())


def distinctive_names(abstracts: list[Abstract]) -> frozenset[str]:
    """Lowercased name-like tokens used by 1..MAX_NAME_DF distinct abstracts, less the field-wide
    acronyms the product's citation labels already skip (ingest/normalize.py)."""
    df: dict[str, int] = {}
    for a in abstracts:
        for t in {t.lower() for t in NAME_TOKEN.findall(a.text)}:
            df[t] = df.get(t, 0) + 1
    return frozenset(t for t, n in df.items() if n <= MAX_NAME_DF and not _generic(t))


def _generic(name: str) -> bool:
    return name.upper() in GENERIC or name.upper().rstrip("S") in GENERIC


@dataclass(frozen=True)
class Vocab:
    names: frozenset[str]  # distinctive_names()
    rare: frozenset[str] | None = None  # stemmed content words in <= RARE_DF_SHARE of abstracts; None: no vagueness rule


def vocabulary(abstracts: list[Abstract]) -> Vocab:
    df: dict[str, int] = {}
    for a in abstracts:
        for t in set(terms(a.text)):
            df[t] = df.get(t, 0) + 1
    rare = frozenset(t for t, n in df.items() if n <= RARE_DF_SHARE * len(abstracts))
    return Vocab(distinctive_names(abstracts), rare)


def paper_name(text: str) -> str | None:
    """The method name the abstract introduces, as the product's citation label finds it, if any."""
    label = make_label(text)
    return None if label.endswith("…") or text.startswith(label) else label


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", text) if s]


def pick_anchor(abstract: Abstract, others: list[str], prefer: str = "") -> str | None:
    """A verbatim fragment of ANCHOR_MIN-ANCHOR_MAX words found in no other abstract of ``others``
    (whitespace-collapsed texts, this one included or not). Sentences holding ``prefer`` first."""
    lowered = [o.lower() for o in others if o != abstract.text]
    sents = _sentences(abstract.text)
    sents.sort(key=lambda s: prefer.lower() not in s.lower() if prefer else False)  # stable
    for sent in sents:
        words = sent.split()
        for start in range(0, max(1, len(words) - ANCHOR_MIN + 1)):
            frag = " ".join(words[start:start + ANCHOR_MAX]).rstrip(".,;:")
            if len(frag.split()) < ANCHOR_MIN or "\\" in frag or "{" in frag:
                continue
            if frag.lower() in abstract.text.lower() and not any(frag.lower() in o for o in lowered):
                return frag
    return None


def content_overlap(question: str, abstract: str) -> float:
    """Share of the question's distinct content words (stemmed) that occur in the abstract."""
    q = set(terms(question))
    return len(q & set(terms(abstract))) / len(q) if q else 1.0


def drop_reason(question: str, answer: str, abstract: str, style: str, vocab: Vocab) -> str | None:
    """The first rule that rejects this generated pair, or None when it is kept."""
    q = " ".join(question.split())
    if not q.endswith("?"):
        return "no_question_mark"
    if not MIN_WORDS <= len(q.split()) <= MAX_WORDS:
        return "word_count"
    if DEICTIC.search(q):
        return "deictic"
    if missing_names(q, [abstract]):  # names a method/model/number its own abstract never mentions:
        return "names_absent"  # it asks about another paper (or one the model made up)
    if style == "direct" and vocab.rare is not None and not set(terms(q)) & vocab.rare & set(terms(abstract)):
        return "vague"
    a = " ".join(answer.split()).strip(" .,;:\"'")
    if not a or a.lower() not in abstract.lower():
        return "answer_not_verbatim"
    if len(a.split()) > MAX_KEY_POINT_WORDS:
        return "answer_too_long"
    if style == "reworded":
        names = {t.lower() for t in NAME_TOKEN.findall(abstract)} & vocab.names
        if any(t.lower() in names for t in NAME_TOKEN.findall(q)):
            return "reworded_keeps_name"
        if content_overlap(q, abstract) > REWORDED_MAX_OVERLAP:
            return "reworded_overlap"
    return None


def _variants(name: str, rng: random.Random) -> list[str]:
    """Candidate absent versions of ``name``, in a seeded order: a bumped trailing number first."""
    out: list[str] = []
    m = re.search(r"(\d+)$", name)
    if m:
        out.append(name[: m.start()] + str(int(m.group(1)) + rng.randint(3, 7)))
    suffixes = list(NAME_SUFFIXES)
    rng.shuffle(suffixes)
    return out + [name + s for s in suffixes]


def make_unanswerable(item: dict[str, Any], corpus_lower: str, distinctive: frozenset[str],
                      rng: random.Random, own_name: str | None = None, corpus_text: str = "") -> dict[str, Any] | None:
    """A copy of a direct question whose name is replaced by a version that occurs nowhere in the
    corpus (case-insensitive), or None when the question names nothing. ``own_name``: the name its
    abstract introduces (paper_name), which may be several words; ``corpus_text``: the corpus as is,
    where Title Case names of the question (Matryoshka Representation Learning) must occur verbatim."""
    found = [n for n in dict.fromkeys(NAME_TOKEN.findall(item["question"])) if n.lower() in corpus_lower]
    own = [own_name] if own_name and re.search(rf"(?<![\w-]){re.escape(own_name)}(?![\w+-])", item["question"]) else []
    own += [t for t in TITLE_NAME.findall(item["question"]) if t in corpus_text] if corpus_text else []
    # A paper's own name first; else any corpus name that is not a field-wide acronym (GPT-2, BERT).
    names = [n for n in found if n.lower() in distinctive] or own or [n for n in found if not _generic(n)]
    if not names:
        return None
    name = rng.choice(names)
    for variant in _variants(name, rng):
        if variant.lower() not in corpus_lower:
            question = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w+-])", lambda _m, v=variant: v, item["question"])
            if question == item["question"]:
                continue
            return {"id": "GU" + item["id"][1:], "question": question, "type": "unanswerable",
                    "split": item["split"], "gold_anchors": [], "key_points": [], "previous": None,
                    "style": item.get("style", "direct"), "unanswerable_kind": "absent-name",
                    "near_anchor": item["gold_anchors"][0], "source_id": item["id"],
                    "absent_name": variant, "replaced_name": name}
    return None


def make_unanswerables(items: list[dict[str, Any]], corpus_text: str, distinctive: frozenset[str],
                       seed: int, own_names: dict[str, str | None] | None = None) -> list[dict[str, Any]]:
    """Absent-name variants of every direct item that names something; one seeded RNG, fixed order.
    ``own_names``: doc_id -> paper_name of that abstract."""
    rng, corpus_lower = random.Random(seed), corpus_text.lower()
    out = []
    for item in sorted(items, key=lambda r: r["id"]):
        own = (own_names or {}).get(item.get("doc_id", ""))
        u = make_unanswerable(item, corpus_lower, distinctive, rng, own, corpus_text) if item.get("style") == "direct" else None
        if u:
            out.append(u)
    return out
