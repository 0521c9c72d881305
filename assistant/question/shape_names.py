"""The shape detector's readings that turn on a name (``assistant.language.names.names``): a name as the subject
after the head noun ("What datasets does FlashAttention use?"), in a contact relative ("the models X was
applied to"), as the object of origination ("the work that introduced GPO"), as the owner of a property
("the speed of FlashAttention", "how FlashAttention saves memory") or as the modifier of a system's part
("the DALL-E 2 architecture"): each makes the question one named work's fact.
``assistant.question.shape`` applies them and argues each reading in its docstring."""

from __future__ import annotations

import re

from assistant.language.names import names
from assistant.question.shape_frames import (
    AUX_AFTER_HEAD,
    COORD,
    NAMED_PART,
    ORIGIN,
    PROPERTY_OF,
)


def named_subject(rest: str) -> bool:
    """An auxiliary right after the head noun, then a name: the noun is the object of that named
    subject ("What datasets does FlashAttention use?", "How many documents was PaECTER tuned on?")."""
    rest = COORD.sub("", rest)
    # past the head's own complement ("approaches to tokenization does ByT5 compare"): do-support then the subject
    rest = re.sub(
        r"^\s*(?:to|for|of|on|towards)\s+(?:[\w-]+\s+){1,4}?(?=(?:do|does|did)\s)",
        "",
        rest,
        flags=re.I,
    )
    m = AUX_AFTER_HEAD.match(rest)
    if not m:
        return False
    subject = m.group("subject")
    if re.match(
        r"\s*d(?:o|oes|id)\b", rest, re.I
    ):  # do-support: the works noun is the object of another subject
        return not re.match(
            r"(?:(?:the|this|my|your)\s+)?(?:collection|corpus|library|index|you)\b", subject, re.I
        )
    subject = re.sub(r"^the\s+", "", subject, flags=re.I)
    return _starts_with_name(subject)


def _starts_with_name(text: str) -> bool:
    found = names("The " + text)
    return bool(found) and text.startswith(found[0])


def contact_subject(rest: str) -> bool:
    """A name right after the head noun, then a verb: a relative clause without "that" whose subject
    is that name ("List the models LRP-QViT was applied to", "the architectures MaskMamba combines"), or
    with one ("the models that Hyena beats"): the head is the named work's own attribute, a fact about it."""
    text = re.sub(r"^(?:that|which)\s+", "", rest.lstrip(), flags=re.I)
    found = names("The " + text)
    return (
        bool(found)
        and text.startswith(found[0])
        and bool(
            re.match(
                r"\s+(?!(?:and|or|but|in|on|of|for|with|to|by|from|as|at|vs|versus)\b)[a-z]",
                text[len(found[0]) :],
            )
        )
    )


def originated(rest: str) -> bool:
    """A mass noun for writing with a relative clause of origination and a named object ("the work that
    introduced Group Preference Optimization"): the one work that introduced it (``ORIGIN``)."""
    m = ORIGIN.match(rest)
    return bool(m) and _starts_with_name(m.group("obj"))


def property_of_name(topic: str) -> bool:
    """The topic is a property of one named work ("the speed of FlashAttention…", "Mamba's
    accuracy"), or an embedded question whose subject is a name ("how FlashAttention saves memory": that
    work's own behaviour): what is known about it is that work's fact, not a topic of the collection."""
    if (
        m := re.match(r"^(?:how|why|whether|when|where|what)\s+(?P<subject>.+)$", topic, re.I)
    ) and _starts_with_name(m.group("subject")):
        return True
    if (m := PROPERTY_OF.match(topic)) and (found := names("The " + m.group("owner"))):
        return m.group("owner").startswith(found[0])
    possessive = re.match(r"^(?P<owner>\S+)'s\s", topic)
    return bool(possessive and names("The " + possessive.group("owner")))


def named_part(topic: str) -> bool:
    """ "the DALL-E 2 architecture": a system's part named by one work (``NAMED_PART``)."""
    m = NAMED_PART.match(topic)
    return bool(m) and names("The " + m.group("name")) == [m.group("name")]
