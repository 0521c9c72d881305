"""Comparisons of named papers ("how do Ring Attention and LASP-2 differ?"), and the parts every
collection answer is built of (each line's claim checked by the citation ``Verifier``, its item,
its citation); ``assistant.collection.answer`` composes the lists and overviews from them.

A comparison resolves each name to the best-ranked abstract that mentions it (one abstract per
name), and shows side by side what each does (the sentence best matching the name) and what it
reports (its sentence with the most figures); every line is verified as any answer is. Fewer than
two resolved: None, the ordinary answer (whose grounding names what is missing).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from assistant.collection.topics import best_sentence
from assistant.evidence.parts import Parts
from assistant.evidence.scoring import terms
from assistant.language.names import mentioned
from assistant.language.text import split_sentences
from assistant.question.shape import COMPARE, Shape
from assistant.search.hits import to_hit
from assistant.store.chroma import StoredDoc
from assistant.types import Answer, AnswerSentence, Citation, Evidence, ListItem
from assistant.verify.citations import Verifier

# a figure as abstracts write results: a number, maybe with a decimal, a percent sign or a times sign
# (orthography; moved unchanged from assistant/collection/answer.py)
_FIGURE = re.compile(r"\d+(?:[.,]\d+)?\s*(?:%|x\b|×)?")


def verify_claims(parts: Parts, doc: StoredDoc, claims: list[str]) -> list[tuple[bool, list[Evidence]]]:
    """Each claim checked against ``doc`` by the citation Verifier (as every answer is)."""
    verifier = Verifier([doc.original], parts.cache, parts.idf(), parts.settings.verify)
    out = []
    for claim in claims:
        result = verifier.verify(f"{claim} [1]")
        ok = bool(result.sentences) and all(s.supported for s in result.sentences)
        out.append((ok, result.evidence.get(0, [])))
    return out


def list_item(doc: StoredDoc, n: int, text: str, score: float, **extra: Any) -> ListItem:
    hit = to_hit(doc, score, max(n, 1))
    return ListItem(n=n, doc_id=doc.doc_id, label=doc.label, text=" ".join(text.split()), source=hit.source,
                    score=round(score, 4), **extra)


def make_citation(doc: StoredDoc, n: int, score: float, evidence: list[Evidence]) -> Citation:
    hit = to_hit(doc, score, n)
    return Citation(n=n, doc_id=doc.doc_id, label=doc.label, text=doc.original, source=hit.source,
                    evidence=sorted(evidence, key=lambda e: e.start), score=round(score, 4))


def _resolve(parts: Parts, name: str, taken: set[str], exclude: set[str] | None) -> tuple[StoredDoc, float] | None:
    """The best-ranked abstract for ``name`` that mentions it and is not taken by another name."""
    for doc, score in parts.retriever.retrieve(name, 5, exclude=exclude):
        if doc.work_id not in taken and mentioned(name, doc.original):
            return doc, score
    return None


def _reports(doc: StoredDoc, does: tuple[int, int]) -> str:
    spans = [(s.start, s.end) for s in split_sentences(doc.original) if (s.start, s.end) != does]
    if not spans:
        return ""
    figures = [len(_FIGURE.findall(doc.original[a:b])) for a, b in spans]
    a, b = spans[int(np.argmax(figures))] if max(figures) else spans[-1]
    return doc.original[a:b]


def compared_answer(parts: Parts, base: Answer, shape: Shape, exclude: set[str] | None) -> Answer | None:
    idf = parts.idf()
    resolved: list[tuple[str, StoredDoc, float]] = []
    missing: list[str] = []
    for name in shape.names:
        got = _resolve(parts, name, {d.work_id for _, d, _ in resolved}, exclude)
        if got is None:
            missing.append(name)
        else:
            resolved.append((name, *got))
    if len(resolved) < 2:
        return None  # one paper (or none): the ordinary answer, whose grounding names what is missing
    lines = [f"Comparison of {len(resolved)} named papers, side by side:"]
    for name, doc, score in resolved:
        _, does = best_sentence(doc.original, list(dict.fromkeys(terms(name))), idf)
        what, reports = doc.original[does[0] : does[1]], _reports(doc, does)
        claims = [what] + ([reports] if reports else [])
        checks = verify_claims(parts, doc, claims)
        if not checks[0][0]:
            continue
        n = len(base.citations) + 1
        reports_ok = len(checks) > 1 and checks[1][0]
        evidence = [e for ok, ev in checks if ok for e in ev]
        base.citations.append(make_citation(doc, n, score, evidence))
        base.items.append(list_item(doc, n, what, score, name=name, reports=" ".join(reports.split()) if reports_ok else ""))
        base.sentences += [AnswerSentence(text=" ".join(c.split()), citations=[n]) for c, (ok, _) in zip(claims, checks, strict=True) if ok]
        item = base.items[-1]
        called = f"{name} ({doc.label})" if doc.label.casefold() != name.casefold() else name  # not "Ring Attention (Ring Attention)"
        lines.append(f"[{n}] {called} — what it does: {item.text}"
                     + (f" What it reports: {item.reports} [{n}]" if item.reports else ""))
    if missing:
        lines.append(f"None of the abstracts found mentions {', '.join(repr(m) for m in missing)}.")
    base.shape, base.text = COMPARE, "\n".join(lines)
    return base if base.citations else None


__all__ = ["compared_answer", "list_item", "make_citation", "verify_claims"]
