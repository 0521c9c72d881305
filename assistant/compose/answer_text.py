"""What the engine's answers say and carry: the fixed texts, the caveat's wording, the numbered
citations of the sources an answer cites, and one LLM call's token usage and cost."""

from __future__ import annotations

import re
from typing import Any

from assistant.compose.prompts import count_tokens
from assistant.export import reference_metadata
from assistant.language.names import mentioned, names
from assistant.search.hits import to_hit
from assistant.store.chroma import StoredDoc
from assistant.types import (
    CAVEAT_ASKED_ITEM,
    CAVEAT_MISSING_NAME,
    CAVEAT_MODEL_ABSENCE,
    CAVEAT_MODEL_DECLINED,
    CAVEAT_WEAK_MATCH,
    Answer,
    Citation,
)
from assistant.types import Evidence as EvidenceSpan

REFUSAL_TEXT = "The collection does not answer this question."
EMPTY_TEXT = "Please ask a question in words (it was empty, only punctuation, or had no Latin-alphabet words to search for)."
MODEL_REFUSAL = "NOT IN SOURCES"
DECLINED_REASON = "the model declined (no direct answer in the sources); the closest statements are quoted, saying so"
Hits = list[tuple[StoredDoc, float]]


def caveat_text(missing: list[str], model_declined: bool = False, unstated: list[str] | None = None) -> str:
    """What the caveat says: the names no source mentions; else that the model found no direct
    answer; else that they may not answer; the last two name, where they can, the question's words
    the closest statements leave unstated (a checked statement of what is missing)."""
    if missing:
        return f"None of the abstracts found mentions {join_names(missing)}; the closest ones state:"
    head = "The model found no direct answer in the abstracts" if model_declined else "The abstracts found may not answer this directly"
    if unstated:
        return f"{head}: the closest statements below do not mention {join_names(unstated)}."
    return f"{head}; the closest statements are:"


def caveat_for(kind: str, named: list[str], missing: list[str], absent: str = "",
               item: tuple[str, bool] | None = None, unstated: list[str] | None = None) -> str:
    """The caveat's text for its kind (``caveat_kind``): ``named`` what the answer's sentences
    describe, ``item`` the asked-for item they leave unstated (phrase, whether a count), ``unstated``
    the question's words they do not mention. A model's decline says what the checks found missing
    where they found it (the item, else the words), not only that the model found no answer."""
    if kind == CAVEAT_MODEL_ABSENCE:
        return absence_caveat(absent, named)
    if item and kind in (CAVEAT_ASKED_ITEM, CAVEAT_MODEL_DECLINED):
        return focus_caveat(item[0], named, item[1])
    return caveat_text(missing, kind == CAVEAT_MODEL_DECLINED, unstated)


def caveat_kind(missing: bool, model_declined: bool = False, absent: bool = False, item: bool = False) -> str:
    """Which caveat the engine wrote (``Answer.caveat_kind``), in the order engine ``_caveated``
    chooses its text: the model's "does not specify X", the asked-for item, a name no
    source mentions, the model's decline, else the decision's weak match."""
    if absent:
        return CAVEAT_MODEL_ABSENCE
    if item:
        return CAVEAT_ASKED_ITEM
    if missing:
        return CAVEAT_MISSING_NAME
    return CAVEAT_MODEL_DECLINED if model_declined else CAVEAT_WEAK_MATCH


def focus_caveat(item: str, described: list[str], quantity: bool = False) -> str:
    """The caveat of an answer whose sentences are about the question's subject but do not state
    the item it asks for (``assistant.verify.focus``): "The abstracts found describe LASP-2 but do not
    state the license asked for; ..." ("the number of N" for "how many N")."""
    # a name of the item itself ("FID" of "FID score") is not what the sentences describe instead
    described = [d for d in described if not re.search(rf"(?<!\w){re.escape(d)}(?!\w)", item, re.I)]
    item = f"number of {item}" if quantity else item
    return f"The abstracts found {_describe(described)}do not state the {item} asked for; the closest statements are:"


def _describe(described: list[str]) -> str:
    """ "describe X but " when the answer's sentences are about the question's named X; "" when
    they name none of it (a neighbour's sentences: saying they describe X would be wrong)."""
    return f"describe {' and '.join(described)} but " if described else ""


def absence_caveat(item: str, described: list[str]) -> str:
    """The caveat when the model said the sources do not state ``item`` (its dropped sentence
    "The abstract does not specify the license" becomes the caveat, quoting what is missing)."""
    return f"The abstracts found {_describe(described)}do not state {item}; the closest statements are:"


def join_names(items: list[str]) -> str:
    quoted = [f'"{x}"' for x in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def citations(hits: Hits, order: list[int], spans: dict[int, list[EvidenceSpan]]) -> list[Citation]:
    out = []
    for n, i in enumerate(order, start=1):
        doc, score = hits[i]
        hit = to_hit(doc, score, i + 1)
        out.append(Citation(n=n, doc_id=doc.doc_id, label=doc.label, text=doc.original, source=hit.source,
                            evidence=sorted(spans.get(i, []), key=lambda e: e.start), score=round(score, 4),
                            metadata=reference_metadata(doc.metadata)))
    return out


def add_usage(answer: Answer, model: Any, messages: list[dict[str, str]], completion: str) -> None:
    """Add one LLM call's tokens (the server's count when it sent one, else tiktoken's) and cost."""
    reported = getattr(model, "last_usage", None) or {}
    prompt = int(reported.get("prompt_tokens") or sum(count_tokens(m["content"]) for m in messages))
    done = int(reported.get("completion_tokens") or count_tokens(completion))
    usage = answer.usage
    usage["prompt_tokens"] = usage.get("prompt_tokens", 0) + prompt
    usage["completion_tokens"] = usage.get("completion_tokens", 0) + done
    usage["model"] = model.model
    if model.name == "openai":
        from assistant.backends.openai_backend import estimate_cost

        cost = estimate_cost(model.model, usage["prompt_tokens"], usage["completion_tokens"])
        if cost is not None:
            usage["cost_usd"] = round(cost, 6)


# A sentence that states the sources' silence: English writes it with a reporting verb negated
# ("The abstract does not specify / mention / state / report X") or passive ("X is not specified
# in the abstract"), or with "no" before a noun of telling ("There is no information about X");
# the subject is the text itself (abstract, paper, source, context, text, passage), never a method.
# Origin: English's negated reporting verbs and nouns of telling (closed sets of the grammar), written
# for what a model says when it finds nothing, not from any evaluation question
# (docs/archive/measurements-diary.md, "The asked-for item not stated").
_TEXTS = r"(?:the\s+)?(?:provided\s+|given\s+)?(?:abstracts?|papers?|sources?|context|texts?|passages?|documents?|excerpts?)"
_TELL = r"(?:specify|mention|state|report|provide|give|describe|include|say|indicate|discuss|contain|detail|disclose|list)"
_TOLD = r"(?:specified|mentioned|stated|reported|provided|given|described|included|indicated|discussed|detailed|disclosed|listed)"
_ABSENCE = (
    re.compile(rf"^\s*{_TEXTS}\s+(?:does|do|did)\s+not\s+(?:explicitly\s+|directly\s+|clearly\s+)?{_TELL}\s+(?P<x>.+)$", re.I),
    re.compile(rf"^\s*{_TEXTS}\s+(?:doesn't|don't|didn't)\s+(?:explicitly\s+)?{_TELL}\s+(?P<x>.+)$", re.I),
    re.compile(rf"^\s*(?P<x>.+?)\s+(?:is|are|was|were)\s+not\s+(?:explicitly\s+|directly\s+|clearly\s+)?{_TOLD}\b.*$", re.I),
    re.compile(r"^\s*(?:there\s+is\s+)?no\s+(?:information|mention|details?|data|indication|figure)\s+(?:is\s+)?"
               r"(?:given\s+|provided\s+)?(?:about|on|regarding|of|for|concerning)\s+(?P<x>.+)$", re.I),
)
_TAIL = re.compile(rf"\s*(?:\[[\d,;\s]+\]|\b(?:in|by|within|from)\s+{_TEXTS}\b|[.!;:,\s])*$", re.I)
_ABSENCE_WORDS = 10  # sanity bound: what a sentence says is missing is a noun phrase, not a clause


def absence(sentence: str) -> str | None:
    """What ``sentence`` says the sources do not state ("The abstract does not specify the license
    of LASP-2 [1]." -> "the license of LASP-2"), or None when it says no such thing."""
    for pattern in _ABSENCE:
        m = pattern.match(sentence.strip())
        if m:
            x = _TAIL.sub("", m.group("x")).strip()
            if x and len(x.split()) <= _ABSENCE_WORDS and not re.match(_TEXTS + r"$", x, re.I):
                first, _, rest = x.partition(" ")  # it goes mid-sentence: "do not state the license"
                return f"{first.lower()} {rest}".strip() if first.lower() in _LOWER_FIRST else x
    return None


# a determiner or a wh-word goes lower case mid-sentence ("do not state the license")
_LOWER_FIRST = {"the", "its", "their", "his", "her", "this", "that", "these", "those", "a", "an", "any", "how", "what",
                "which", "whether", "who", "when", "where", "why"}


def model_absence(sentences: list) -> str:
    """What a model's dropped sentence says the sources do not state (``absence``), or "": the
    verifier drops "The abstract does not specify X" (no source supports a statement of silence),
    but it is the model's right reading, so the caveat says it."""
    return next((x for s in sentences if not s.supported and (x := absence(s.text))), "")


def described(question: str, said: str) -> list[str]:
    """The question's names that the answer's sentences mention (what they describe)."""
    return [n for n in names(question) if mentioned(n, said)]


def cited_parts(sentences: list) -> list[str]:  # the supported sentences of each source cited, joined
    by: dict[int, list[str]] = {}
    for s in sentences:
        for n in s.citations if s.supported else []:
            by.setdefault(n, []).append(s.text)
    return [" ".join(v) for v in by.values()]
