"""Deterministic citation verification and repair.

For each sentence of an answer: citation numbers outside 1..k are dropped; the support of each
source for the sentence is measured against that abstract's sentences (word overlap + MiniLM
cosine, the vectors shared with evidence scoring through ``SentenceCache``). A cited source
that does not support its sentence (below ``SUPPORT_THRESHOLD``, or far below the source that
supports it best) is replaced by the best supporting source; a sentence no source supports is
dropped from the text (kept in ``sentences`` with ``supported=False``). Citations are then
renumbered [1], [2], ... in order of first use.

Support in words is not support of the claim as said: with ``verify.attribution`` on (the
default) a source also has to say it *of the same things* (``assistant.verify.attribution``: the names
the claim states are mentioned, its subject is the sentence's, its numbers are the abstract's,
its comparison keeps its direction), and with ``verify.learned`` on (the default) the learned
support check (``assistant.verify.support``) has to find it stated. A cited source that fails is
re-pointed to the best source that passes, else the sentence is dropped; ``AnswerSentence.reason``
says why.

A sentence that quotes a sentence of each source it cites verbatim (``verbatim_key``: whitespace,
typographic quotes and dashes, a space before punctuation and the closing stop normalised; words,
digits, signs and case not) is supported without any embedding: its best support is that sentence
(term overlap 1, cosine with itself 1), no other source can beat it by ``support_margin``, and
``quote_level`` makes it its source's own statement, so the full path would keep it as cited. It
still passes ``attribution.check``, and a sentence quoted from a source it does not cite takes the
full path. A sentence that stops where its grammar needs more ("Sana's main feature is.", "The
method achieves [1].": ``attribution.incomplete``) states nothing a source could support, however
many of its words the source holds: it is dropped with ``INCOMPLETE`` and why, unless it quotes a
sentence of a source verbatim (the source's statement as written). A sentence said of several
works ("Both papers use X [1]": ``attribution.collective``) that cites fewer than two is judged
against every source and cites those that state it, at least two, else it is dropped with
``COLLECTIVE``: one abstract states it of one work. A sentence that repeats itself ("A and A",
"X outperforms X": ``assistant.verify.degenerate``) states nothing checkable and is dropped with
``DEGENERATE`` and why, unless it quotes a source verbatim. The sources' sentence vectors
are embedded only when a claim takes the full path (a list
answer quotes one sentence of each of dozens of abstracts: embedding them all took seconds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assistant.evidence.scoring import SentenceCache, coverage, embed, terms
from assistant.language.patterns import INSTRUCTION_LIKE
from assistant.language.text import split_sentences
from assistant.store.idf import Idf
from assistant.types import AnswerSentence, Evidence
from assistant.verify import attribution, support
from assistant.verify.degenerate import degenerate
from assistant.verify.markers import dangling, parse_markers, split_answer, strip_markers
from assistant.verify.markers import (
    renumber_markers as renumber_markers,  # re-exported: the public name it had here
)

DANGLING = "dropped: a citation marker stands where a name should be, so the sentence cannot be read without it"
INCOMPLETE = "dropped: the sentence is incomplete"  # + why (attribution.incomplete)
COLLECTIVE = "dropped: it is said of several works, and fewer than two sources state it (attribution.collective)"
DEGENERATE = "dropped: it repeats itself, so it states nothing a source could support"  # + why (assistant.verify.degenerate)


@dataclass
class SourceText:
    text: str  # the abstract as displayed (spans index into it)
    sentences: list[tuple[int, int]] = field(default_factory=list)
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    terms: list[set[str]] = field(default_factory=list)


@dataclass
class Verified:
    text: str  # the answer: supported sentences with repaired, renumbered markers
    sentences: list[AnswerSentence]
    order: list[int]  # original source index (0-based) for each final citation number
    evidence: dict[int, list[Evidence]]  # original source index -> supporting sentences


_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                              "\u2014": "-", "\u2212": "-", "\u00a0": " "})


def verbatim_key(sentence: str) -> str:
    """A sentence as compared for a verbatim quote: typographic quotes and dashes as ASCII, runs of
    whitespace as one space, no space before , ; : . ! ? ) and none after (, no closing . ! ? ; :
    (a quoted sentence loses or gains its full stop). Words, digits, signs and case are kept."""
    s = " ".join(sentence.translate(_TYPOGRAPHIC).split())
    s = re.sub(r"\s+([,;:.!?)\]])", r"\1", re.sub(r"([(\[])\s+", r"\1", s))
    return s.rstrip(".!?;: ")


def fresh_dim(vectors: dict[str, np.ndarray]) -> int | None:
    return next((int(v.shape[0]) for v in vectors.values()), None)


class _Memo:
    """An IDF function that computes each term's weight once."""

    def __init__(self, idf: Idf) -> None:
        self._idf = idf
        self._seen: dict[str, float] = {}

    def __call__(self, term: str) -> float:
        if term not in self._seen:
            self._seen[term] = self._idf(term)
        return self._seen[term]


class Verifier:
    def __init__(self, sources: list[str], cache: SentenceCache, idf: Idf, cfg: Any = None,
                 labels: list[str] | None = None) -> None:
        from assistant.settings import VerifySettings

        self.cfg = cfg or VerifySettings()
        self.cache = cache
        self.idf = _Memo(idf)  # the same few terms are weighed for every sentence of every source
        self.labels = labels
        self.sources = []
        for text in sources:  # the spans SentenceCache uses; its vectors only when a claim needs them
            spans = [(s.start, s.end) for s in split_sentences(text)]
            self.sources.append(SourceText(text, spans, terms=[set(terms(text[a:b])) for a, b in spans]))
        self._quotes = [{verbatim_key(src.text[a:b]): j for j, (a, b) in enumerate(src.sentences)}
                        for src in self.sources]
        self._known: dict[str, np.ndarray] = {}  # text -> vector of the sources' sentences (and known claims)
        self._ready = False

    def _embedded(self) -> dict[str, np.ndarray]:
        """Embed (or read from the cache) every source's sentence vectors, once per Verifier."""
        if not self._ready:
            for src, (spans, vecs) in zip(self.sources, self.cache.get([s.text for s in self.sources]), strict=True):
                src.sentences, src.vectors = spans, vecs
                for j, (a, b) in enumerate(spans):
                    self._known.setdefault(" ".join(src.text[a:b].split()), vecs[j])
            self._ready = True
        return self._known

    def _vectors(self, claims: list[str]) -> np.ndarray:
        """Claim vectors; a claim quoting a source sentence reuses that sentence's vector."""
        known = self._embedded()
        keys = [" ".join(c.split()) for c in claims]
        todo = [c for c, k in zip(claims, keys, strict=True) if k not in known]
        fresh = dict(zip(todo, embed(self.cache.embedder, todo), strict=True))
        dim = next(iter(known.values())).shape[0] if known else (fresh_dim(fresh) or 0)
        out = np.zeros((len(claims), dim), np.float32)
        for i, (c, k) in enumerate(zip(claims, keys, strict=True)):
            out[i] = known[k] if k in known else fresh[c]
        return out

    def _quoted(self, claim: str, cited: list[int]) -> dict[int, int] | None:
        """The sentence of each cited source that the claim quotes verbatim, when it quotes one of
        every cited source and each passes the attribution check; else None (the full path)."""
        key = verbatim_key(claim)
        if not cited or not key or not terms(claim):
            return None
        shown: dict[int, int] = {}
        for i in cited:
            j = self._quotes[i].get(key)
            if j is None:
                return None
            src = self.sources[i]
            a, b = src.sentences[j]
            if INSTRUCTION_LIKE.search(src.text[a:b]):  # text addressing the model supports nothing
                return None
            if self.cfg.attribution and attribution.check(claim, src.text, [src.text[a:b]],
                                                          [src.text[x:y] for x, y in src.sentences]):
                return None
            shown[i] = j
        return shown

    def _empty(self, claim: str) -> str | None:
        """Why the claim states nothing a source could support: it stops where its grammar needs
        more (``attribution.incomplete``) or repeats itself (``assistant.verify.degenerate``); None when
        it does not, or quotes a sentence of a source verbatim (the source's statement, as written)."""
        gap = attribution.incomplete(claim)
        why = f"{INCOMPLETE}: {gap}" if gap else (f"{DEGENERATE}: {d}" if (d := degenerate(claim)) else None)
        return None if why is None or self._verbatim(claim) else why

    def _several(self, claim: str, vec: np.ndarray) -> tuple[list[int], dict[int, int], str | None]:
        """A claim said of several works, judged against every source: kept citing those that state
        it (at least two), else none."""
        kept, shown, _ = self._judge(claim, vec, list(range(len(self.sources))))
        if len(kept) < 2:
            return [], shown, COLLECTIVE
        return (
            kept,
            shown,
            f"re-pointed to {', '.join(self._name(i) for i in kept)} (it is said of several works)",
        )

    def _verbatim(self, claim: str) -> bool:
        return any(verbatim_key(claim) in quotes for quotes in self._quotes)

    def _quote_support(self, claim: str, index: int, j: int) -> float:
        """The support score of sentence ``j`` for a claim quoting it (its cosine with itself is 1)."""
        w = self.cfg.lexical_weight
        return w * coverage(terms(claim), self.sources[index].terms[j], self.idf) + (1 - w) * 1.0

    def ranked(self, claim: str, claim_vec: np.ndarray, index: int) -> list[tuple[float, int]]:
        """Support of each sentence of source ``index`` for ``claim``, best first."""
        self._embedded()
        src = self.sources[index]
        claim_terms = terms(claim)
        dense = src.vectors @ claim_vec if src.sentences else []
        scores = [0.0 if INSTRUCTION_LIKE.search(src.text[a:b]) else  # text addressing the model supports nothing
                  self.cfg.lexical_weight * coverage(claim_terms, st, self.idf) + (1 - self.cfg.lexical_weight) * float(d)
                  for (a, b), st, d in zip(src.sentences, src.terms, dense, strict=True)]
        return sorted(((sc, j) for j, sc in enumerate(scores)), key=lambda x: -x[0])

    def support(self, claim: str, claim_vec: np.ndarray, index: int) -> tuple[float, int]:
        """Best support score of source ``index`` for ``claim`` and the sentence that gives it."""
        best = self.ranked(claim, claim_vec, index)
        return best[0] if best else (0.0, -1)

    def _name(self, i: int) -> str:
        return f"[{i + 1}] ({self.labels[i]})" if self.labels and i < len(self.labels) else f"[{i + 1}]"

    def _attribution(self, claim: str, i: int, ranked: list[tuple[float, int]]) -> tuple[str | None, int]:
        """Why source ``i`` does not state the claim of the same things (None: it does), and the
        sentence shown as its evidence. Its supporting sentences: the best one and the next
        ``attribution_sentences - 1`` at or above the threshold and within ``attribution_gap`` of
        the best (a claim may join two sentences; a near-quote of one is that one's)."""
        if not ranked:
            return "it has no sentences", -1
        src = self.sources[i]
        best = ranked[0][0]
        top = [j for n, (sc, j) in enumerate(ranked[: self.cfg.attribution_sentences])
               if n == 0 or (sc >= self.cfg.support_threshold and sc >= best - self.cfg.attribution_gap)]
        texts = [src.text[a:b] for a, b in (src.sentences[j] for j in top)]
        why = attribution.check(claim, src.text, texts, [src.text[a:b] for a, b in src.sentences])
        return why, top[0]

    def _judge(self, claim: str, vec: np.ndarray, cited: list[int]) -> tuple[list[int], dict[int, int], str | None]:
        """The sources kept for a claim, the sentence each is shown with, and why the cited ones
        were dropped or re-pointed (None when kept as cited). A source whose sentence holds what
        the claim says (all but its names, ``quote_level``) of another name is the claim's origin:
        the claim is its statement misattributed, and no source that says less of it takes it."""
        ranked = {i: self.ranked(claim, vec, i) for i in range(len(self.sources))}
        score = {i: (r[0][0] if r else 0.0) for i, r in ranked.items()}
        top = max(score.values(), default=0.0)
        bar = max(self.cfg.support_threshold, top - self.cfg.support_margin)
        shown = {i: r[0][1] for i, r in ranked.items() if r}
        failed: dict[int, str] = {}

        said = self._said(claim) if self.cfg.attribution else {}
        memo: dict[int, tuple[str | None, int]] = {}

        def attributed(i: int) -> tuple[str | None, int]:
            if i not in memo:
                memo[i] = self._attribution(claim, i, ranked[i])
            return memo[i]

        origin = next((j for j in sorted(said, key=lambda j: -said[j]) if said[j] >= self.cfg.quote_level
                       and attributed(j)[0]), None)

        def passes(i: int) -> bool:
            if score[i] < bar:
                return False
            why, j = attributed(i) if self.cfg.attribution else (None, shown[i])
            if why is None and origin is not None and said[i] < self.cfg.quote_level:
                why = f"its words are those of {self._name(origin)}, which says them of another name"
            if why is None and self.cfg.learned:  # and the learned check (assistant.verify.support), fitted on labelled claims
                why = support.why_not(self, support.Judged(claim, vec, ranked, bar), i)
            if why:
                failed[i] = why
            else:
                shown[i] = j
            return why is None

        kept = [i for i in cited if passes(i)]
        if not kept and top >= self.cfg.support_threshold:
            kept = next(([i] for i in sorted(score, key=lambda i: -score[i]) if i not in cited and passes(i)), [])
        return kept, shown, self._reason(cited, kept, score, failed, top)

    def _said(self, claim: str) -> dict[int, float]:
        """What is said, apart from of whom: per source, the best IDF-weighted share of the
        claim's words other than its names found in one sentence. Only for a claim of at least
        ``quote_min_terms`` such words (a short predicate is common phrasing, no one's statement)."""
        own = set(terms(" ".join(attribution.claim_names(claim))))
        said = [t for t in dict.fromkeys(terms(claim)) if t not in own]
        if len(said) < self.cfg.quote_min_terms:
            return {}
        return {i: max((coverage(said, st, self.idf) for st in src.terms), default=0.0)
                for i, src in enumerate(self.sources)}

    def _reason(self, cited: list[int], kept: list[int], score: dict[int, float], failed: dict[int, str],
                top: float) -> str | None:
        if kept == cited and (kept or not failed):
            return None if kept else f"no source states this (best support {top:.2f}, needs {self.cfg.support_threshold})"
        why = "; ".join(f"{self._name(i)}: {failed[i]}" for i in cited + [i for i in failed if i not in cited]
                        if i in failed)
        weak = [self._name(i) for i in cited if i not in failed and i not in kept]
        if weak:
            why = "; ".join(x for x in (why, f"{', '.join(weak)} supports it too weakly") if x)
        if not kept:
            if top < self.cfg.support_threshold:
                return f"no source states this (best support {top:.2f}, needs {self.cfg.support_threshold})"
            return f"dropped: no source states it of the same things ({why})" if why else "dropped"
        return f"re-pointed to {', '.join(self._name(i) for i in kept)}" + (f" ({why})" if why else "")

    def verify(self, answer: str) -> Verified:
        k = len(self.sources)
        raw_sentences = split_answer(answer)
        claims = [strip_markers(s) for s in raw_sentences]
        marks = [list(dict.fromkeys(parse_markers(raw))) for raw in raw_sentences]
        quoted = [self._quoted(c, [n - 1 for n in m if 1 <= n <= k]) for c, m in zip(claims, marks, strict=True)]
        slow = [c for c, q in zip(claims, quoted, strict=True) if q is None and c]
        vecs = dict(zip(slow, self._vectors(slow), strict=True)) if slow else {}
        order: list[int] = []
        evidence: dict[int, list[Evidence]] = {}
        result: list[AnswerSentence] = []
        for raw, claim, marked, quote in zip(raw_sentences, claims, marks, quoted, strict=True):
            if not claim:
                continue
            if dangling(raw):  # "Both and mention X": a marker stood for a name (``_ORPHAN``)
                result.append(AnswerSentence(text=claim, supported=False, reason=DANGLING))
                continue
            why = self._empty(claim)  # "Sana's main feature is.", "TTT layers are TTT layers." claim nothing
            if why is not None:
                result.append(AnswerSentence(text=claim, supported=False, reason=why))
                continue
            if not terms(claim) and not marked:  # "Yes." / "In short:" holds no claim to cite
                result.append(AnswerSentence(text=claim))
                continue
            cited = [n - 1 for n in marked if 1 <= n <= k]
            several = len(cited) < 2 and attribution.collective(claim) and not self._verbatim(claim)
            if several:  # "Both papers present X. [1]": one abstract says it of one work
                kept, shown, reason = self._several(claim, vecs[claim])
                if not kept:
                    result.append(AnswerSentence(text=claim, supported=False, reason=COLLECTIVE))
                    continue
            elif quote is not None:  # quotes each cited source: kept as cited, no embedding (module docstring)
                kept, shown, reason = cited, quote, None
            else:
                kept, shown, reason = self._judge(claim, vecs[claim], cited)
            for i in kept:
                if i not in order:
                    order.append(i)
                a, b = self.sources[i].sentences[shown[i]]
                if all(e.start != a for e in evidence.setdefault(i, [])):
                    score = self._quote_support(claim, i, shown[i]) if quote is not None else self.support(claim, vecs[claim], i)[0]
                    evidence[i].append(Evidence(self.sources[i].text[a:b], a, b, round(score, 3)))
            if len(cited) != len(marked) and reason is None and kept:
                reason = f"citation {', '.join(f'[{n}]' for n in marked if not 1 <= n <= k)} names no source"
            result.append(AnswerSentence(text=claim, citations=kept, supported=bool(kept),
                                         repaired=kept != cited or len(cited) != len(marked), reason=reason))
        for s in result:
            s.citations = [order.index(i) + 1 for i in s.citations]
        text = " ".join(s.text + (" " + "".join(f"[{n}]" for n in s.citations) if s.citations else "")
                        for s in result if s.supported)
        return Verified(text=text.strip(), sentences=result, order=order, evidence=evidence)
