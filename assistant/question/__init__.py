"""The question, read: its shape (fact, list, comparison, overview) and, in a conversation,
the standalone question it stands for.

- ``shape``: the shape of a question, from English frames alone (``detect``).
- ``shape_frames``: the frames and closed word classes the shape reader matches.
- ``shape_names``: the shape readings that turn on a name.
- ``shape_sets``: the shape readings of a question about a set already listed, or more of its kind.
- ``shape_model``: the shape re-read by the local model where the frames read a fact.
- ``conversation``: follow-ups: detection and the standalone retrieval query.
- ``reading``: the question read once (``Question``): its text, history, listed works, shape, standalone query.
"""
