"""The English the assistant reads, in one audited place: closed word classes, token and
number patterns, sentence spans and terms, the names a text writes, the prompt texts.

- ``text``: sentence spans, the one term function (BM25's tokens), the shared character classes.
- ``names``: the named things a text writes and whether another text mentions them.
"""
