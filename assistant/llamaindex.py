"""LlamaIndex integration: the hybrid retriever as a LlamaIndex ``BaseRetriever``, so the
assistant's index plugs into any LlamaIndex query engine, chat engine or evaluator.

    from assistant import Assistant
    from assistant.llamaindex import as_retriever
    from llama_index.core.query_engine import RetrieverQueryEngine

    engine = RetrieverQueryEngine.from_args(as_retriever(Assistant(), k=5), llm=my_llm)

The product's own search path does not import LlamaIndex (its import costs ~2.4 s of the 3 s
cold-start budget, see assistant/search/retrieval.py); this module is imported only by those who use it.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode


class AssistantRetriever(BaseRetriever):
    """Abstract-level hybrid retrieval (one node per work, text = the abstract, metadata = its
    label, sources and work id)."""

    def __init__(self, assistant: Any, k: int = 5, mode: str = "hybrid") -> None:
        super().__init__()
        self._assistant = assistant
        self._k = k
        self._mode = mode

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits = self._assistant.search(query_bundle.query_str, k=self._k, mode=self._mode)
        return [NodeWithScore(node=TextNode(id_=h.doc_id, text=h.text,
                                            metadata={"label": h.label, "source": h.source,
                                                      "work_id": h.metadata.get("work_id", h.doc_id)}),
                              score=h.score) for h in hits]


def as_retriever(assistant: Any, k: int = 5, mode: str = "hybrid") -> AssistantRetriever:
    return AssistantRetriever(assistant, k, mode)
