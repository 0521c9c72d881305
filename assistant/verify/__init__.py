"""Verification: every cited sentence checked against its source, and what an answer leaves unstated.

- ``citations``: citation verification and repair (``Verifier``).
- ``markers``: the [n] markers in an answer's text: reading, renumbering, stripping.
- ``attribution``: whether a source's sentence says a claim of the same things.
- ``degenerate``: claims that relate a thing to itself.
- ``focus``: the item a question asks for, and whether an answer states it.
"""
