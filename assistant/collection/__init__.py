"""Answers about the collection rather than one fact: lists, comparisons, overviews, follow-ups.

- ``answer``: the engine's branch for a list, comparison or overview (``shaped_answer``).
- ``compare``: comparisons of named papers, and the item builders every collection answer uses.
- ``topics``: the topic candidates a list, overview or follow-up may name.
- ``followups``: follow-ups on a list, answered by meaning.
- ``summary``: the LLM backends' synthesis above a collection answer.
"""
