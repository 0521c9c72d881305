"""Verification: every cited sentence checked against its source, and what an answer leaves unstated.

- ``citations``: citation verification and repair (``Verifier``).
- ``markers``: the [n] markers in an answer's text: reading, renumbering, stripping.
- ``attribution``: whether a source's sentence says a claim of the same things.
- ``support``: the learned support check: whether a cited abstract states a claim (weights in
  ``assistant/models/support.json``, read with numpy).
- ``degenerate``: claims that relate a thing to itself.
- ``focus``: the item a question asks for, and whether an answer states it.
"""
