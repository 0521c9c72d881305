"""The public result types of the Python API: Hit, Evidence, Citation, ListItem, Answer.

Their field names are a public contract (JSON keys of the CLI too): extend, never rename.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

# What an answer's caveat (or a refusal's statement) says is missing: ``Answer.caveat_kind``. Public
# strings (JSON values too): extend, never rename. None: no caveat (or a refusal that names nothing).
CAVEAT_WEAK_MATCH = "weak_match"  # the decision's weak match: "The abstracts found may not answer this directly ..."
CAVEAT_ASKED_ITEM = "asked_item"  # assistant/verify/focus.py: "... describe X but do not state the N asked for"
CAVEAT_FIGURE = "figure"  # kept as a value readers may test for; no check writes it (docs/learned.md, the caveat rules)
CAVEAT_MODEL_ABSENCE = "model_absence"  # the model's "does not specify X": "... do not state X"
CAVEAT_MODEL_DECLINED = "model_declined"  # the model's NOT IN SOURCES: "The model found no direct answer ..."
CAVEAT_MISSING_NAME = "missing_name"  # a name or number of the question no abstract mentions (caveat or refusal)
CAVEAT_LIST_UNWRITTEN = "list_unwritten"  # a list topic with a word no abstract writes (assistant/collection/answer.py)
CAVEAT_LIST_BY_MEANING = "list_by_meaning"  # a list found by meaning, not by the topic's words
CAVEAT_LIST_NONE = "list_none"  # a list question no abstract is about
CAVEAT_LIST_BELOW_CUTOFF = "list_below_cutoff"  # "more on X" after a list: only abstracts that mention X below the cut-off are left
CAVEAT_KINDS = (CAVEAT_WEAK_MATCH, CAVEAT_ASKED_ITEM, CAVEAT_FIGURE, CAVEAT_MODEL_ABSENCE, CAVEAT_MODEL_DECLINED,
                CAVEAT_MISSING_NAME, CAVEAT_LIST_UNWRITTEN, CAVEAT_LIST_BY_MEANING, CAVEAT_LIST_NONE,
                CAVEAT_LIST_BELOW_CUTOFF)


@dataclass
class Hit:
    """One retrieved abstract."""

    doc_id: str
    label: str
    text: str  # the full abstract (original text, for display)
    score: float
    source: str  # "path:line" of its first location
    rank: int = 0
    sources: list[str] = field(default_factory=list)  # every location, repeats included
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Evidence:
    """A sentence of an abstract that supports a claim, with its character span in ``text``."""

    text: str
    start: int
    end: int
    score: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Citation:
    """A numbered source [n] of an answer and the evidence sentences it was cited for."""

    n: int
    doc_id: str
    label: str
    text: str  # the full abstract
    source: str
    evidence: list[Evidence] = field(default_factory=list)
    score: float = 0.0
    metadata: dict[str, Any] = field(default_factory=dict)  # the stored doc's title, authors, year, venue, doi, ...

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class AnswerSentence:
    """One sentence of the answer, the sources it cites and whether they support it."""

    text: str
    citations: list[int] = field(default_factory=list)
    supported: bool = True
    repaired: bool = False
    reason: str | None = None  # why it was dropped or re-pointed (assistant/verify/citations.py)


@dataclass
class ListItem:
    """One abstract of a list, comparison or overview answer ("[n] label — what it does about the
    topic"). ``cited``: shown with its verified citation [n]; items left out by the relevance cut-off
    or the display cap are kept with ``cited=False`` (n = 0) so they stay reachable."""

    n: int
    doc_id: str
    label: str
    text: str  # the abstract's sentence that best matches the topic (what it does about it)
    source: str
    score: float = 0.0  # relevance to the topic (assistant/collection/answer.py)
    cited: bool = True
    reports: str = ""  # comparisons: the sentence stating what the paper reports
    name: str = ""  # comparisons: the name in the question this abstract stands for
    group: str = ""  # overviews: the kind of contribution it is listed under
    above_cutoff: bool = True  # False: it mentions the topic but ranks below the relevance cut-off

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Answer:
    question: str
    text: str
    citations: list[Citation] = field(default_factory=list)
    refused: bool = False
    backend: str = "extractive"
    usage: dict[str, Any] = field(default_factory=dict)  # prompt_tokens, completion_tokens, cost_usd
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage
    sentences: list[AnswerSentence] = field(default_factory=list)
    closest: list[Hit] = field(default_factory=list)  # offered when refused
    fallback_reason: str | None = None  # set when the extractive fallback replaced a failed LLM
    standalone_question: str | None = None  # the follow-up rewritten with the history
    caveat: str | None = None  # what the sources do not state (an answer is still given unless refused)
    fallback_from: str | None = None  # the backend that failed or declined when the text is extracted
    relevance: float | None = None  # P(the collection answers the question), assistant/evidence/decision.py
    shape: str = "fact"  # fact | list | compare | overview (assistant/question/shape.py)
    items: list[ListItem] = field(default_factory=list)  # list / compare / overview answers: every abstract found
    caveat_kind: str | None = None  # which caveat ``caveat`` is (one of CAVEAT_KINDS); None without one

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["answer"] = d.pop("text")
        return d

    def to_markdown(self) -> str:
        """The answer with [n] marks and a numbered reference list (assistant/export.py)."""
        from assistant.export import answer_markdown

        return answer_markdown(self)

    def to_bibtex(self) -> str:
        """The cited works as BibTeX entries: the source's own entry when it was BibTeX."""
        from assistant.export import answer_bibtex

        return answer_bibtex(self)
