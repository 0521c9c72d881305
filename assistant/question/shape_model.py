"""The question's shape read by the local model, where the question reads as a fact.

``assistant.question.shape`` reads a question's shape from frames argued from English. Lists and comparisons
generalise to wording nobody tuned on; overviews do not ("What has been done on X", "Give me the
state of X" ... kept reading as facts). Here the chat model is asked, once per question the frames
read as a fact, which of the four shapes the question asks for: a fixed system prompt
(prompts/shape_system.txt, defining the shapes in general terms, examples only with placeholders;
llama.cpp caches it after the first request), the question as the user message, and a one-word
reply (GBNF ``GRAMMAR``); for the local model its first token's probabilities (llama.cpp ``top_logprobs``).
``evals.shapes_model`` fitted the rule: an overview when P(overview) >= ``collection.shape_model_bar``, for
the backends of ``collection.shape_model_backends`` (the local model, the one the bar was fitted on).

A single fact must never become an overview: the model's reply only ever turns a frames-read fact
that names no work (``assistant.language.names.names``) and has no one-work anchor (``ONE_WORK``: "the
paper", "its") into an overview; lists, comparisons and follow-ups stay as read. The fact re-read is the
learned reader's (``shape.learned_shape``).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from assistant.backends.base import ChatModel
from assistant.language.names import names
from assistant.language.prompt_texts import shape_messages
from assistant.question.reading import Question
from assistant.question.shape import FACT, OVERVIEW, SHAPES, Shape, clean
from assistant.question.shape_frames import ONE_WORK
from assistant.settings import Settings
from assistant.types import Answer

GRAMMAR = 'root ::= "fact" | "list" | "compare" | "overview"'
REPLY_TOKENS = 2  # one word (each of the four is one token in Qwen2.5's vocabulary) and the end


def parse(reply: str) -> str:
    """The shape a reply names (its first word of the four), else a fact."""
    m = re.search(r"\b(fact|list|compare|overview)\b", (reply or "").lower())
    return m.group(1) if m else FACT


def probabilities(top_logprobs: list[dict[str, Any]]) -> dict[str, float]:
    """The four shapes' probabilities, renormalised among themselves, from llama.cpp's ``top_logprobs``
    of the reply's first token (before the grammar: every word of the four is among the top ten)."""
    lp = {s: -math.inf for s in SHAPES}
    for t in top_logprobs:
        word = t.get("token", "").strip().lower()
        if word in lp and t.get("token", "") == word:  # the grammar's own token (no leading space, lower case)
            lp[word] = max(lp[word], float(t["logprob"]))
    top = max(lp.values())
    if top == -math.inf:
        return {s: 0.0 for s in SHAPES}
    z = sum(math.exp(v - top) for v in lp.values())
    return {s: round(math.exp(v - top) / z, 4) for s, v in lp.items()}


def eligible(question: str, shape: Shape) -> bool:
    """Whether the model may re-read this question: the frames read a fact, no work is named and
    nothing anchors it to one work (a single work's fact must stay a fact)."""
    q = " ".join((question or "").split())
    return shape.is_fact and not names(q) and not ONE_WORK.search(q)


def overview_probability(model: Any, question: str) -> float:
    """The model's probability that ``question`` asks for an overview: for a backend with token
    probabilities (the local model's ``first_token_logprobs``), its first token's probability of
    "overview" among the four words, as ``evals.shapes_model`` measured it; otherwise its greedy
    reply (1.0 when it says overview, else 0.0)."""
    scored = getattr(model, "first_token_logprobs", None)
    if scored is None:
        extra = {"grammar": GRAMMAR} if getattr(model, "grammar", False) else {}
        reply = "".join(model.stream(shape_messages(question), max_tokens=REPLY_TOKENS, temperature=0.0, **extra))
        return 1.0 if parse(reply) == OVERVIEW else 0.0
    _, top = scored(shape_messages(question), max_tokens=REPLY_TOKENS, grammar=GRAMMAR)
    return probabilities(top)[OVERVIEW]


@dataclass(frozen=True)
class Reread:
    """The shape after the model's re-reading: ``by_model`` when the model chose it (``note``);
    ``seconds``: the model's time, None when it was not asked."""

    shape: Shape
    by_model: bool = False
    seconds: float | None = None


def reread(settings: Settings, model_factory: Callable[[str, Settings], ChatModel], question: Question) -> Reread:
    """The question's shape, or an overview of the question when the backend is one of
    ``collection.shape_model_backends``, the question is ``eligible`` and the model's probability of
    an overview reaches ``collection.shape_model_bar``."""
    cfg, shape = settings.collection, question.shape
    if question.backend not in cfg.shape_model_backends or not eligible(question.text, shape):
        return Reread(shape)
    from assistant.backends import LLMError

    t = time.perf_counter()
    try:
        p = overview_probability(model_factory(question.backend, settings), question.text)
    except (LLMError, RuntimeError, ValueError, KeyError):
        return Reread(shape, seconds=time.perf_counter() - t)  # the frames' reading stands
    seconds = time.perf_counter() - t
    if p < cfg.shape_model_bar or not (topic := clean(question.text)):
        return Reread(shape, seconds=seconds)
    return Reread(Shape(OVERVIEW, topic), True, seconds)


NOTE = ("(Answered as an overview of the collection's work on the question's topic: the {backend} model read the "
        "question as asking for one, where the phrase rules read a single fact.)")


def note(reading: Reread, answer: Answer, backend: str) -> str:
    """What an overview the model chose says of itself below the answer ("" otherwise)."""
    return NOTE.format(backend=backend) if reading.by_model and answer.shape == OVERVIEW else ""
