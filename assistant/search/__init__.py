"""Search: a question's ranked abstracts.

- ``retrieval``: hybrid retrieval, three ranked lists fused into one (``HybridRetriever``).
- ``fusion``: the pure parts of ranking (reciprocal-rank fusion, exact vector ranking).
- ``hits``: stored abstracts as the public ``Hit`` type.
"""
