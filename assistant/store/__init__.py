"""What ingest writes and the query side reads: the abstracts, their vectors and the lexical index.

- ``chroma``: the Chroma collections of abstracts and chunks (``Store``, ``StoredDoc``).
- ``embeddings``: the embedding functions (offline MiniLM ONNX, or an OpenAI-compatible endpoint).
- ``lexical``: the persisted, incremental BM25 index over abstracts and its policy.
- ``lexical_segments``: one segment of the lexical index on disk.
- ``bm25_scoring``: the BM25 score matrix built from a segment's token ids.
- ``idf``: inverse document frequency over the collection (``Idf``).
- ``mirror``: a memory-mapped copy of a small collection's vectors, for cold starts.
"""
