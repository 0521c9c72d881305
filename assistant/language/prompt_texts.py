"""The prompt templates (the top-level ``prompts/`` folder, one text file each) and the fixed texts
every request starts with: the system prompts, the warm-up request, the shape reader's request."""

from __future__ import annotations

import re
from functools import cache

from assistant.settings import PROMPTS_DIR, PromptsSection

DEFAULTS = PromptsSection()  # budgets and packing: settings.prompts (each value's provenance is there)


@cache
def load_prompt(name: str) -> str:
    path = PROMPTS_DIR / f"{name}.txt"
    try:
        return path.read_text(encoding="utf-8").strip("\n")
    except OSError as exc:
        raise RuntimeError(f"prompt file {path} is missing ({exc.strerror})") from exc


def render(name: str, **values: str) -> str:
    """Fill ``{name}`` placeholders in one pass. Values are inserted verbatim and never
    re-interpreted, so braces or placeholder names inside retrieved text are harmless."""
    text = load_prompt(name)
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), text)


def system_prompt(backend: str, cfg: PromptsSection = DEFAULTS) -> str:
    """The fixed system message of every answer for ``backend``: the local backend reads it once at
    warm-up (assistant.backends.local.warm) and keeps its KV cached, so it must not vary per question.
    Backends in ``cfg.examples_for`` also get the worked examples of prompts/answer_examples.txt;
    a backend whose answer design is "lead" or "pick" gets that design's prompt instead."""
    design = cfg.design(backend)
    if design != "write":
        return load_prompt(f"answer_system_{design}")
    text = load_prompt("answer_system")
    if backend in cfg.examples_for:
        text += "\n\n" + load_prompt("answer_examples")
    return text


WARM_QUESTION = "Reply OK."  # the user turn of a warm-up with no fixed head (and of bench_local's bare-system timing)


def user_template(backend: str, cfg: PromptsSection = DEFAULTS) -> str:
    """The name of the user-turn template of ``backend``'s answer design."""
    design = cfg.design(backend)
    return "answer_user" if design == "write" else f"answer_user_{design}"


def fixed_head(name: str) -> str:
    """The text of template ``name`` before its first placeholder: the same in every request."""
    return re.split(r"\{\w+\}", load_prompt(name), maxsplit=1)[0]


def warm_messages(backend: str, cfg: PromptsSection = DEFAULTS) -> list[dict[str, str]]:
    """The warm-up request of ``backend``: its system prompt and the fixed head of its user turn
    (the text before the sources), so that llama.cpp's prompt cache holds everything every answer
    request starts with, the first question included. The lead's closing instruction stays after
    the question, uncached: moved into the head, the model's decline fell from 9 to 1 of 40
    unanswerable questions (docs/local-model.md, "Latency")."""
    head = fixed_head(user_template(backend, cfg))  # verbatim: its last newline is part of a token
    head = head if head.strip() else WARM_QUESTION
    return [{"role": "system", "content": system_prompt(backend, cfg)}, {"role": "user", "content": head}]


def shape_messages(question: str) -> list[dict[str, str]]:
    """The shape reader's request (``assistant.question.shape_model``): the cached system prompt,
    then the question as data."""
    return [{"role": "system", "content": load_prompt("shape_system")},
            {"role": "user", "content": " ".join((question or "").split())}]
