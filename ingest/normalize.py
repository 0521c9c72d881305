"""Text normalisation (for indexing and matching) and short human labels for citations."""

from __future__ import annotations

import hashlib
import re
import unicodedata

from assistant.language.text import CONTROL, NO_SPACE_SCRIPT
from ingest.labels import introduced_name, key_phrase

_LATEX_WRAPPERS = re.compile(r"\\(?:textit|textbf|emph|texttt|textsc|mathrm|mathbf|mathit|text|url|href)\{([^{}]*)\}")
_LATEX_ESCAPES = re.compile(r"\\([%&$#_{}])")
_LATEX_COMMANDS = re.compile(r"[ ~]*\\(?:cite[pt]?|ref|eqref|label)\{[^{}]*\}")
_WS = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """NFC, LaTeX escapes and wrappers resolved, control chars dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFC", text)
    latex = "\\" in text
    text = CONTROL.sub(" ", text)
    text = _LATEX_COMMANDS.sub("", text)
    for _ in range(3):  # nested wrappers: \textbf{\textit{x}}
        text = _LATEX_WRAPPERS.sub(r"\1", text)
    text = _LATEX_ESCAPES.sub(r"\1", text)
    text = text.replace("~", " ") if latex else text  # a LaTeX non-breaking space
    return _WS.sub(" ", text).strip()


def content_id(normalized: str) -> str:
    """Stable id from content: the same abstract always gets the same id."""
    key = _WS.sub(" ", normalized.lower()).strip()
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


_NAME = r"([A-Z][\w\-+.]*[A-Z0-9][\w\-+]*(?:[ -][A-Z][\w\-+]*)*|[A-Z][a-z]+(?:[ -][A-Z][\w\-+]*)+)"
_INTRO = re.compile(
    r"\b(?i:we|this paper|this work|here we)\s+(?i:propose|introduce|present|develop|release|call|name|dub)s?\s+"
    r"(?:a |an |the )?(?:[a-z]+,? ){0,3}"
    + _NAME
)
_CALLED = re.compile(r"\b(?:called|named|dubbed|termed|coined)\s+" + _NAME)
_ACRONYM_DEF = re.compile(r"\(([A-Z][A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*)\)")
_NAME_COLON = re.compile(r"\b" + _NAME + r"(?=:|,? (?:a|an) (?:new|novel|simple))")


GENERIC = {
    "LLM", "LLMS", "RNN", "RNNS", "RL", "NLP", "NLU", "NLG", "MLP", "MLPS", "ICL", "MLLM", "MLLMS",
    "CNN", "CNNS", "GPU", "GPUS", "TPU", "VIT", "VITS", "LM", "LMS", "QA", "SOTA", "AI", "ML", "KV",
    "FFN", "FFNS", "SSM", "SSMS", "MOE", "GNN", "GNNS", "VLM", "VLMS", "RAG", "COT", "SGD", "PEFT",
}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_INTRO_WORDS = re.compile(r"\b(?:we|our|this paper|this work)\b.*\b(?:propos|introduc|present|call|name|dub|term|coin)", re.I)


MAX_LABEL_CHARS = 60
MAX_CJK_LABEL_CHARS = 20


def make_label(text: str, max_words: int = 6) -> str:
    """The method name an abstract introduces, else its first words (ending in "…")."""
    name = method_name(text)
    return name if name is not None else _first_words(text, max_words)


def abstract_label(text: str) -> str:
    """The label of an abstract without a title: its name, else a key phrase, else its first words."""
    return method_name(text) or key_phrase(text) or _first_words(text, 6)


def method_name(text: str) -> str | None:
    """The name an abstract introduces (the patterns here first, then ingest/labels.py's)."""
    for sentence in _SENTENCE_END.split(text):
        if not _INTRO_WORDS.search(sentence):
            continue
        for pattern in (_INTRO, _CALLED, _NAME_COLON, _ACRONYM_DEF):
            for m in pattern.finditer(sentence):
                name = m.group(1).strip(" .,-")
                if 2 <= len(name) <= 40 and name.upper().rstrip("S") not in GENERIC and name.upper() not in GENERIC:
                    return name
    return introduced_name(text)


def _first_words(text: str, max_words: int) -> str:
    words = text.split()
    label = " ".join(words[:max_words])
    limit = MAX_CJK_LABEL_CHARS if NO_SPACE_SCRIPT.search(label) else MAX_LABEL_CHARS
    if len(label) > limit:  # scripts written without spaces (Chinese...), or very long words
        return label[:limit].rstrip() + "…"
    return label + ("…" if len(words) > max_words else "")
