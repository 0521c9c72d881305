"""LLM backends: ``openai`` (any OpenAI-compatible endpoint) and ``local`` (embedded llama.cpp).

The third engine, ``extractive``, needs no LLM and lives in ``assistant.extractive``.
"""

from __future__ import annotations

from assistant.backends.base import ChatModel, LLMError
from assistant.settings import Settings


def make_chat_model(name: str, settings: Settings) -> ChatModel:
    if name == "openai":
        from assistant.backends.openai_backend import OpenAIChatModel

        return OpenAIChatModel(settings)
    if name == "local":
        from assistant.backends.local import LocalChatModel

        return LocalChatModel(settings)
    raise ValueError(f"no LLM for backend {name!r} (choose openai, local or extractive)")


__all__ = ["ChatModel", "LLMError", "make_chat_model"]
