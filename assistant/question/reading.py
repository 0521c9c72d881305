"""The question, read once: what the engine knows about it before searching, handed to every stage
that needs it (``Question``). Nothing downstream reads the question's shape or the listed works again."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.filters import Filters
from assistant.question.conversation import previous_list, standalone_question
from assistant.question.shape import Shape, learned_shape


@dataclass(frozen=True)
class Question:
    """One question as asked, and its reading.

    ``listed``: the last answer's list lines (``conversation.previous_list``), the works a follow-up
    may be asked of; ``shape``: the question's reading (``shape.learned_shape``, told whether
    a list came before); ``standalone``: the retrieval query the heuristic writes for a follow-up
    (``conversation.standalone_question``), the question itself otherwise."""

    text: str
    history: list[dict[str, str]]
    backend: str
    k: int
    exclude: set[str] | None
    filters: Filters | None
    listed: list[str]
    shape: Shape
    standalone: str


def read(text: str, history: list[dict[str, str]], backend: str, k: int, exclude: set[str] | None,
         filters: Filters | None, short_terms: int) -> Question:
    """``text`` in the conversation ``history``, read once: its kind as the learned shape reader
    takes it, what it is about as the frames read it (``shape.learned_shape``)."""
    listed = previous_list(history)
    shape = learned_shape(text, bool(listed), bool(history))
    return Question(text, history, backend, k, exclude, filters, listed, shape,
                    standalone_question(text, history, short_terms))
