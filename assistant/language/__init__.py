"""The English that several stages share, defined once: sentence spans and terms, the names a text
writes, the shared token patterns, the prompt texts. Depends on nothing in the project but the
settings. (The patterns one stage alone reads stay beside it: the shape frames in
``assistant.question.shape_frames``, the verifier's rule patterns in ``assistant.verify``; the
grammar's closed word classes are here, ``support_words``.)

- ``text``: sentence spans, the one term function (BM25's tokens), the shared character classes.
- ``names``: the named things a text writes and whether another text mentions them.
- ``patterns``: token and text patterns shared by several stages, one copy each.
- ``prompt_texts``: the prompt templates and the fixed texts every model request starts with.
- ``support_words``: closed word classes (comparison, direction, negation, universal quantity,
  hedges) that the learned support check reads.
"""
