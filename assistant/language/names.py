"""Grounding of the named things a question asks about: which of its names and numbers no source
mentions.

A method, model, dataset, version, piece of hardware or quantity is named, not described: it
cannot be paraphrased, so a source that never mentions "FlashAttention-3", "H100" or "8-bit" is
not about it, however close its topic. Plain words are different ("speed up" may be written
"accelerate"), so their absence proves nothing and they are not checked here.

What counts as a name is decided from how English writes names, not from any question set:
a word with a capital or digit after its first character (RetNet, GPT-2, H100, LLMs), or a
capitalised word that does not start the sentence (Ring Attention); neighbouring name words
form one name. A name is mentioned when the source holds the same letters and digits on word
boundaries (RingAttention = Ring Attention = ring-attention), in the singular or plural, or —
for an acronym — as words with those initials (LLM = large language model, MoE = mixture of
experts); a number with a unit ("2.7x", "8-bit") is mentioned when the number is.
"""

from __future__ import annotations

import re

from assistant.language.patterns import WORD
from assistant.language.text import name_like

# Orthography, not any question set: a word (``patterns.WORD``) may hold inner . + / - (GPT-3.5, Llama-3.1-8B, C++);
# a word opens a sentence after the start, a full stop/colon, or an opening quote/bracket;
# names are compared as runs of letters and digits on word boundaries.
_SENTENCE_START = re.compile(r"(^|[.!?:;]\s+|[\"'(\[]\s*)$")
_RUN = re.compile(r"[a-z0-9]+")
# 2.7x, 8-bit, 95%, 7B; a quantity compounded with what it measures ("128K-context", "7B-parameter"),
# as "8-bit" is: the name a source must write is the quantity (it may say "128K long-context")
_NUMBER = re.compile(r"^(\d+(?:[.,]\d+)?)(?:[a-z%]{0,3})(?:-[a-z]+)?$", re.I)


# A compound modifier: a name + hyphen + a lower-case participle ("API-served", "LLM-generated",
# "GPU-accelerated", "BERT-based", "CLIP-guided") or one of English's suffix-like combining forms
# that make adjectives of nouns ("SAM-like", "GPU-bound", "task-specific"). English writes the
# modifier after the hyphen and the thing it is said of before it, so the name is the part before
# ("API"); the whole is no name a source must spell. A lower-case tail that is neither
# ("BERT-large", "Llama-2-chat", "GPT-4-turbo") stays part of the name: variant tags, not
# derivational morphology. Past participles: regular -ed and the irregular ones compounds use.
_PARTICIPLE = re.compile(r"^[a-z]{2,}(?:ed|ing)$|^(?:driven|written|known|grown|made|built|bound|"
                         r"chosen|given|shown|taken|run)$")
_COMBINING = {"free", "like", "aware", "specific", "agnostic", "wise", "friendly", "centric",
              "intensive", "efficient", "style", "only", "ready", "heavy"}


def compound_head(word: str) -> str:
    """The name a compound modifier is made of ("API-served" -> "API"); ``word`` otherwise. A
    prefix is not stripped: it changes what is named ("non-LLM" is no LLM; Pre-Norm, Post-Norm)."""
    head, sep, tail = word.rpartition("-")
    if sep and head and tail.islower() and (_PARTICIPLE.match(tail) or tail in _COMBINING):
        return compound_head(head)
    return word


def _name_like(word: str, starts_sentence: bool) -> bool:
    if len(word) == 1 and not word.isdigit():
        return False  # "I", "A": letters, not names
    return name_like(word, first=starts_sentence)


def names(text: str) -> list[str]:
    """Name-like phrases of ``text`` in order (neighbouring name words joined)."""
    out: list[str] = []
    last_end = -1
    for m in WORD.finditer(text):
        word = m.group(0).rstrip(".")
        head = compound_head(word)
        starts = bool(_SENTENCE_START.search(text[: m.start()]))
        if not _name_like(head, starts):
            last_end = -1
            continue
        if out and last_end >= 0 and text[last_end : m.start()] in (" ", "-"):
            out[-1] = out[-1] + text[last_end : m.start()] + head
        else:
            out.append(head)
        # a compound modifier ends its name: "GPU-accelerated FlashAttention" names two things
        last_end = m.start() + len(word) if head == word else -1
    return list(dict.fromkeys(out))


def _runs(text: str) -> list[str]:
    return _RUN.findall(text.lower())


def _joined_at_boundaries(target: str, runs: list[str]) -> bool:
    """Whether consecutive runs of the source concatenate to exactly ``target``."""
    for i, r in enumerate(runs):
        if not target.startswith(r):
            continue
        acc = r
        j = i + 1
        while len(acc) < len(target) and j < len(runs):
            acc += runs[j]
            j += 1
        if acc == target:
            return True
    return False


def is_acronym(word: str, runs: list[str]) -> bool:
    """An acronym (2-6 letters, 2+ capitals, an optional plural s) spelled by word initials."""
    core = word[:-1] if word.endswith("s") and not word.isupper() else word
    if not (2 <= len(core) <= 6 and core.isalpha() and sum(c.isupper() for c in core) >= 2):
        return False
    letters = core.lower()
    words = [r for r in runs if not r.isdigit()]
    n = len(letters)
    for i in range(len(words) - n + 1):
        if all(words[i + k][0] == letters[k] for k in range(n)):
            return True
    # short function words inside ("mixture of experts" for MoE) are written in lower case
    return any(_initials_with_of(words, i, letters) for i in range(len(words)))


def _initials_with_of(words: list[str], i: int, letters: str) -> bool:
    k = 0
    j = i
    while j < len(words) and k < len(letters):
        if words[j][0] == letters[k]:
            k += 1
        elif words[j] not in ("of", "and", "for", "the", "to", "in"):
            return False
        j += 1
    return k == len(letters) and k > 0


def mentioned(name: str, text: str, runs: list[str] | None = None) -> bool:
    """Whether ``text`` mentions ``name`` (see the module docstring for what counts)."""
    runs = _runs(text) if runs is None else runs
    m = _NUMBER.match(name)
    if m:
        number = m.group(1).replace(",", "")
        return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text.replace(",", "")) is not None
    target = "".join(_runs(name))
    if not target:
        return True
    if "+" in name and re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9+])", text, re.I) is None:
        # a plus is part of how a name is written (C++, TEAL++, A+): "TEAL" does not mention TEAL++
        return False
    variants = {target, target[:-1] if target.endswith("s") else target + "s"}
    if any(_joined_at_boundaries(v, runs) for v in variants if v):
        return True
    return is_acronym(name, runs)


def missing_names(question: str, texts: list[str]) -> list[str]:
    """The names and numbers of ``question`` that none of ``texts`` mentions."""
    found = names(question)
    if not found:
        return []
    all_runs = [(t, _runs(t)) for t in texts]

    def seen(name: str) -> bool:
        return any(mentioned(name, t, r) for t, r in all_runs)

    out: list[str] = []
    for name in found:
        if seen(name):
            continue
        parts = name.split()
        # "H100 GPUs": report the part that is missing; a joined name whose parts all occur
        # apart is mentioned, unless a part is a bare number ("GPT 4": the version is the name).
        missing_parts = [p for p in parts if not seen(p)] if len(parts) > 1 else [name]
        if missing_parts:
            out += missing_parts
        elif any(p.isdigit() for p in parts):
            out.append(name)
    return list(dict.fromkeys(out))
