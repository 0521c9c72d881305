"""Answer engines: ``openai`` (any OpenAI-compatible endpoint), ``local`` (embedded llama.cpp) and
``extractive`` (no LLM: the answer is the evidence sentences, built by ``assistant.compose.extractive``).

Which engines exist and which this installation can use is decided in ``registry``.
"""

from __future__ import annotations

from assistant.backends.base import ChatModel, LLMError
from assistant.backends.registry import (
    EXTRACTIVE,
    available_backends,
    is_available,
    make_chat_model,
    names,
    register,
    resolve,
    unregister,
)

__all__ = ["EXTRACTIVE", "ChatModel", "LLMError", "available_backends", "is_available", "make_chat_model",
           "names", "register", "resolve", "unregister"]
