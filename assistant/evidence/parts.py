"""What the engine hands its stages (``Parts``): the settings and the parts of one index. A stage
reads these and returns what it found; it never reaches back into the engine or its turn."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from assistant.backends.base import ChatModel
from assistant.evidence.scoring import SentenceCache
from assistant.search.retrieval import HybridRetriever
from assistant.settings import Settings
from assistant.store.idf import Idf


@dataclass(frozen=True)
class Parts:
    """The settings, the retriever, the sentence cache and the chat-model factory of one index."""

    settings: Settings
    retriever: HybridRetriever
    cache: SentenceCache
    model_factory: Callable[[str, Settings], ChatModel]

    def idf(self, exclude: set[str] | None = None) -> Idf:
        """The collection's IDF (without the ``exclude``d works: leave-one-out)."""
        return self.retriever.idf(exclude)
