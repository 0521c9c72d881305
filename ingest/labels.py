"""Labels for abstracts that come without a title: the name the abstract introduces, else a short
key phrase of what it is about.

Argued from how English abstracts introduce a name, not from any question set:

- a contribution sentence ("we propose / introduce / present ...", "this paper presents ...")
  names its contribution with a *coined* word -- an inner capital or a digit (iCaRL, RetNet,
  GPT-4), an acronym (MRL) -- or a capitalised phrase defined by an acronym ("Matryoshka
  Representation Learning (MRL)"), or after "called / named / dubbed";
- an abstract may open with its name: "X: ..." or "X, a new ...";
- a bare capitalised common word ("a Transformer model") is a term, not a coined name.

Without a name, the key phrase is the object of the contribution sentence ("we study the
meaning of songs" -> "The meaning of songs"), else the subject of the first sentence (its
words up to the first verb-like word or punctuation).
"""

from __future__ import annotations

import re

from assistant.language.text import name_like

GENERIC = {
    "LLM", "LLMS", "RNN", "RNNS", "RL", "NLP", "NLU", "NLG", "MLP", "MLPS", "ICL", "MLLM", "MLLMS",
    "CNN", "CNNS", "GPU", "GPUS", "TPU", "VIT", "VITS", "LM", "LMS", "QA", "SOTA", "AI", "ML", "KV",
    "FFN", "FFNS", "SSM", "SSMS", "MOE", "GNN", "GNNS", "VLM", "VLMS", "RAG", "COT", "SGD", "PEFT",
}
MAX_NAME_CHARS = 40
MAX_PHRASE_WORDS = 6

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CONTRIB = re.compile(
    r"\b(?:we|this (?:paper|work|study|article|report)|here,? we|our (?:work|paper|method|approach))\s+"
    r"(?:\w+ly\s+|also\s+|then\s+|further\s+)?"
    r"(propos|introduc|present|develop|releas|design|build|buil|creat|construct|curat|describ|offer|unveil|call|nam|dub|term|coin|stud|investigat|explor|examin|analy[sz]|address|tackl|consider|focus)"
    r"\w*\b", re.I)
_NAMING = {"propos", "introduc", "present", "develop", "releas", "design", "build", "buil", "creat", "construct",
           "curat", "describ", "offer", "unveil", "call", "nam", "dub", "term", "coin"}
_CALLED = re.compile(r"\b(?:called|named|dubbed|termed|coined)\s+[\"'“]?([^\s,.;:()\"'”]+(?:[ -][^\s,.;:()\"'”]+){0,4})")
_ACRONYM_DEF = re.compile(r"((?:[A-Z][\w\-+]*\s+){1,5}[A-Z][\w\-+]*)\s+\(([A-Z][A-Za-z0-9\-]*[A-Z0-9][A-Za-z0-9\-]*)\)")
_OPENING_NAME = re.compile(r"^([^\s,:]+(?:[ -][^\s,:]+){0,3})(?::\s|,\s(?:a|an|the)\s)")
_WORD = re.compile(r"[^\s]+")
_CUT = re.compile(r"^(?:that|which|who|whose|to|by|using|via|through|where|wherein|whereby|when|while|and|as|from|with|in|on|is|are|was|were|has|have|can|could|may|might|will|would|should|remains?|plays?|provides?|enables?|shows?|allows?|requires?|relies|rely|aims?|achieves?|leads?|makes?|offers?|becomes?)$", re.I)
_ARTICLE = re.compile(r"^(?:a|an|the|novel|new|simple|general|first|two|three|several|some|our|this|these|its|their)$", re.I)


def _coined(word: str) -> bool:
    w = word.strip("()[]\"'“”‘’,.;:")
    if len(w) < 2 or w.upper().rstrip("S") in GENERIC or w.upper() in GENERIC:
        return False
    core = w.split("-")[0]
    return any(c.isupper() for c in core[1:]) or any(c.isdigit() for c in w)


def _name_run(words: list[str], start: int) -> str:
    """The name beginning at ``words[start]``: it and the name-like words right after it."""
    out = [words[start]]
    for w in words[start + 1 :]:
        if out[-1][-1] in ",.;:)" or not name_like(w.strip(",.;:()"), first=False) or w.lower().endswith("-based"):
            break
        out.append(w)
    return " ".join(out).strip(",.;:()\"'“”")


def _ok(name: str) -> bool:
    return 2 <= len(name) <= MAX_NAME_CHARS and name.upper().rstrip("S") not in GENERIC and name.upper() not in GENERIC


def _in_contribution(sentence: str, verb_end: int) -> str | None:
    rest = sentence[verb_end:]
    if (m := _CALLED.search(rest)) and _ok(name := m.group(1).strip(" .,-")):
        return name
    for m in _ACRONYM_DEF.finditer(rest):
        full = m.group(1).strip()
        if _ok(m.group(2)) and _ok(full) and len(full.split()) >= 2:
            return full
    words = _WORD.findall(rest)[:14]
    for i, w in enumerate(words):
        if w.lower().strip(",") in ("that", "which", "to", "for") and i > 4:
            break
        if _coined(w) and _ok(name := _name_run(words, i)):
            return name
    return None


def introduced_name(text: str) -> str | None:
    """The name the abstract introduces for its contribution, if it names one."""
    sentences = _SENTENCE_END.split(text)
    if sentences and (m := _OPENING_NAME.match(sentences[0])):
        head = m.group(1)
        if any(_coined(w) for w in head.split()) and _ok(head):
            return head
    for sentence in sentences:
        for m in _CONTRIB.finditer(sentence):
            if m.group(1).lower() in _NAMING and (name := _in_contribution(sentence, m.end())):
                return name
    return None


_DANGLING = {"of", "the", "a", "an", "for", "and", "or", "in", "on", "at", "with", "its", "their"}
_QUESTION = re.compile(r"^(?:how|whether|what|why|if|when|which|who|where|to)$", re.I)


def _phrase(words: list[str]) -> str:
    while words and _ARTICLE.match(words[0]):
        words = words[1:]
    if words and _QUESTION.match(words[0].strip("\"'“”")):
        return ""  # "we study how X ...": a question, not a noun phrase
    out: list[str] = []
    for w in words:
        bare = w.strip("\"'“”‘’")
        if _CUT.match(bare) or bare.startswith("("):
            break
        out.append(bare.rstrip(",;:."))
        if bare[-1:] in ",;:." or len(out) == MAX_PHRASE_WORDS:
            break
    while out and out[-1].lower() in _DANGLING:  # "the meaning of" -> "the meaning"
        out.pop()
    return " ".join(out)


def key_phrase(text: str) -> str:
    """What the abstract is about in a few words (see the module docstring); "" if nothing fits."""
    sentences = _SENTENCE_END.split(text)
    for sentence in sentences:
        if m := _CONTRIB.search(sentence):
            phrase = _phrase(_WORD.findall(sentence[m.end() :]))
            if len(phrase.split()) >= 2:
                return phrase[0].upper() + phrase[1:]
    first = _phrase(_WORD.findall(sentences[0])) if sentences else ""
    return first[0].upper() + first[1:] if len(first.split()) >= 2 else ""
