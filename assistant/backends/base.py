"""The one interface every answer engine's LLM implements."""

from __future__ import annotations

import queue
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": str}


class LLMError(RuntimeError):
    """The LLM could not produce an answer (after retries); the message says why, for a user."""


class ChatModel(ABC):
    """A chat LLM that streams text deltas. Implementations never touch retrieval or citations."""

    name: str = "llm"  # backend name shown to users: "openai" or "local"
    model: str = ""  # model identifier, for the answer's usage report
    context_window: int = 4096  # tokens the prompt plus answer may use
    grammar: bool = False  # True: ``stream`` takes ``grammar=`` (llama.cpp GBNF) to constrain the output

    @abstractmethod
    def stream(self, messages: list[Message], *, max_tokens: int, temperature: float = 0.0) -> Iterator[str]:
        """Yield text deltas. Raise LLMError with a clear message on failure (even mid-stream)."""

    def complete(self, messages: list[Message], *, max_tokens: int, temperature: float = 0.0) -> str:
        return "".join(self.stream(messages, max_tokens=max_tokens, temperature=temperature))


DONE = object()  # the producer thread's last item


def drain(items: queue.Queue[Any], deadline: float, on_timeout: Callable[[], Exception]) -> Iterator[Any]:
    """Items a producer thread puts on ``items`` until ``DONE``, re-raising an exception it put,
    and raising ``on_timeout()`` once the monotonic ``deadline`` passes (the answer's total
    deadline, whatever the producer is doing)."""
    while True:
        try:
            if (remaining := deadline - time.monotonic()) <= 0:
                raise queue.Empty
            item = items.get(timeout=remaining)
        except queue.Empty:
            raise on_timeout() from None
        if item is DONE:
            return
        if isinstance(item, BaseException):
            raise item
        yield item
