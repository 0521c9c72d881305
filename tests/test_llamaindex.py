"""The assistant's index inside a LlamaIndex query engine (assistant/llamaindex.py)."""

from __future__ import annotations

from llama_index.core.llms.mock import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine

from assistant import Assistant
from assistant.llamaindex import as_retriever


def test_retriever_returns_abstract_nodes(corpus: Assistant) -> None:
    nodes = as_retriever(corpus, k=3).retrieve("ring attention across devices")
    assert len(nodes) == 3 and nodes[0].node.metadata["label"] == "Ring Attention"
    assert nodes[0].score >= nodes[1].score >= nodes[2].score


def test_query_engine_answers_over_the_retrieved_abstracts(corpus: Assistant) -> None:
    engine = RetrieverQueryEngine.from_args(as_retriever(corpus, k=2), llm=MockLLM(max_tokens=8))
    response = engine.query("What does Ring Attention distribute across devices?")
    assert len(response.source_nodes) == 2
    assert "Ring Attention" in response.source_nodes[0].node.get_content()
