"""Follow-up questions in a conversation: detection and the standalone retrieval query.

A follow-up leans on the conversation ("And how much memory does it save?"): it opens with a
connective, is very short, or refers back with a pronoun or a definite description ("the
method") before naming anything of its own. These are the ways English marks anaphora; the
lists below are closed word classes (pronouns, connectives), not words taken from questions.
"""

from __future__ import annotations

import re

from assistant.language.names import mentioned, names
from assistant.language.text import tokens

# Closed classes of English: connectives that continue a turn, personal pronouns, and definite
# descriptions of the thing last discussed ("the method", "this approach,"); carried over unchanged
# from the earlier follow-up detection (tests/test_multiturn.py).
_CONNECTIVE = re.compile(r"^\s*(and|also|so|then|what about|how about|and what about)\b", re.I)
_ANAPHOR = re.compile(r"\b(it|it's|they|them|the (?:method|model|paper|work|approach|authors)|"
                      r"(?:this|that|these|those)\s+\w+\s*[,?.!])", re.I)
_POSSESSIVE = re.compile(r"\b(its|their)\b", re.I)


def previous_question(history: list[dict[str, str]]) -> str:
    users = [m["content"] for m in history if m.get("role") == "user" and m.get("content")]
    return users[-1] if users else ""


def is_follow_up(question: str, history: list[dict[str, str]], short_terms: int = 8) -> bool:
    """See the module docstring. ``short_terms``: a longer question carries its own referents."""
    if not previous_question(history):
        return False
    own = names(question)
    n_terms = len(tokens(question))
    if (n_terms <= 2 and not own) or _CONNECTIVE.search(question):
        return True
    if n_terms > short_terms:
        return False
    first_name = min((question.find(n) for n in own), default=len(question))
    if (m := _ANAPHOR.search(question)) and m.start() < first_name:
        return True
    return bool(_POSSESSIVE.search(question)) and not own


def referent_names(history: list[dict[str, str]]) -> list[str]:
    """The names a follow-up's pronoun refers back to: those of the latest user question that
    names anything (after "What is Ring Attention?" and "How does it work?", "it" is still Ring
    Attention)."""
    for m in reversed(history):
        if m.get("role") == "user" and (found := names(m.get("content") or "")):
            return found
    return []


def standalone_question(question: str, history: list[dict[str, str]], short_terms: int = 8) -> str:
    """The retrieval query: a follow-up gets the previous question prepended, and the names it
    refers to when the previous question is itself a follow-up that names nothing (heuristic;
    the openai backend asks the model to rewrite it instead)."""
    if is_follow_up(question, history, short_terms):
        previous = previous_question(history)
        carried = [n for n in referent_names(history) if not mentioned(n, f"{previous} {question}")]
        return " ".join([*carried, previous, question])
    return question


def evidence_question(question: str, history: list[dict[str, str]], top_text: str, short_terms: int = 8) -> str:
    """What evidence is scored against: a follow-up plus those names it refers to (its previous
    named question's) that the top abstract holds."""
    if not is_follow_up(question, history, short_terms) or not top_text:
        return question
    found = [n for n in referent_names(history) if mentioned(n, top_text) and not mentioned(n, question)]
    return f"{question} ({', '.join(dict.fromkeys(found))})" if found else question


def refers_back(question: str) -> bool:
    """Whether the question leans on a referent it does not name: it names nothing of its own, or
    a pronoun / definite description ("it", "the method") comes before its first own name ("how
    does it compare to BPT?"). "What about BPT?" names its new referent instead."""
    own = names(question)
    if not own:
        return True
    first_name = min(question.find(n) for n in own)
    return bool((m := _ANAPHOR.search(question)) and m.start() < first_name)


def resolved_question(question: str, history: list[dict[str, str]], asked: str = "", short_terms: int = 8) -> str:
    """What a turn asks about, its references resolved, for the check of names no source mentions:
    the rewrite when the question was rewritten (``asked``, the openai backend's condensed
    question); otherwise a follow-up that refers back gets the names it refers to ("how much
    faster is it than blockwise attention?" after "What is Ring Attention?" asks about Ring
    Attention too). A standalone question is itself."""
    if not is_follow_up(question, history, short_terms):
        return question
    if asked and not asked.startswith(question) and asked != standalone_question(question, history, short_terms):
        return asked
    if not refers_back(question):
        return question
    carried = [n for n in referent_names(history) if not mentioned(n, question)]
    # "(about X)": X does not open a sentence or bracket, so grounding reads its capitals as a name's
    return f"{question} (about {', '.join(carried)})" if carried else question


# The last answer's list lines (the listed set a follow-up is asked of).
_ITEM_LINE = re.compile(r"^\s*\[(\d+)\]\s+(?P<line>.+?\s+—\s+.+?)\s*$")


def previous_list(history: list[dict[str, str]]) -> list[str]:
    """The last answer's list lines ("[n] label — sentence"), without their numbers."""
    answers = [m.get("content", "") for m in history if m.get("role") == "assistant"]
    if not answers:
        return []
    return [m.group("line") for line in answers[-1].splitlines() if (m := _ITEM_LINE.match(line))]
