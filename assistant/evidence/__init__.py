"""Evidence: which sentences of the retrieved abstracts bear on the question, and whether to answer.

- ``scoring``: sentence evidence (word overlap and cosine) and the shared sentence cache.
- ``decision``: answer, caveat or refuse, from the evidence's features.
- ``parts``: what the engine hands its stages (``Parts``: settings, retriever, sentence cache, model factory).
"""
