"""Token and text patterns shared by several stages, each defined once."""

from __future__ import annotations

import re

# A sentence of an abstract that speaks to the model ("ignore previous instructions ...") is never
# shown to it: an abstract states findings and has no reason to address an assistant.
INSTRUCTION_LIKE = re.compile(
    r"\b(ignore|disregard|forget)\b.{0,40}\b(instructions?|prompts?|rules)\b|\b(system prompt|you are (now )?an? "
    r"(ai|assistant|language model))\b|\b(reply|respond|answer|say|output)\b.{0,20}\b(only|exactly|with)\b.{0,20}(?-i:[\"'A-Z]{4,})",
    re.I,
)

# A word as written, names included: it may hold inner . + / - (GPT-3.5, Llama-3.1-8B, C++). Orthography,
# not any question set.
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+/-]*[A-Za-z0-9+]|[A-Za-z0-9]")
