"""Composing the answer's text from the evidence.

- ``extractive``: the extractive answer: evidence sentences, verbatim.
- ``prompts``: the models' requests built from the prompt templates, and reading their replies.
- ``answer_text``: the fixed texts, the numbered citations and the usage of an answer.
"""
