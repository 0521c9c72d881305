"""Loads the prompt templates from the top-level ``prompts/`` folder (one text file each)."""

from __future__ import annotations

from functools import cache

from assistant.settings import PROMPTS_DIR


@cache
def load_prompt(name: str) -> str:
    path = PROMPTS_DIR / f"{name}.txt"
    try:
        return path.read_text(encoding="utf-8").strip("\n")
    except OSError as exc:
        raise RuntimeError(f"prompt file {path} is missing ({exc.strerror})") from exc


def render(name: str, **values: str) -> str:
    """Fill ``{name}`` placeholders. Values are inserted verbatim and never re-interpreted,
    so braces inside retrieved text are harmless."""
    text = load_prompt(name)
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text
