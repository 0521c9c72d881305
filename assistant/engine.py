"""The answering engine: question -> retrieval -> evidence -> decision -> answer -> verification.

``AnswerEngine`` owns the parts and caches of one index (retriever, sentence vectors, IDF) and
streams text deltas followed by the final, verified ``Answer``. The answer comes from the
extractive engine or an LLM backend given the selected evidence (``assistant.backends``); every
citation is then checked against the cited abstract (``assistant.verify.citations``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from assistant import types as kinds
from assistant.backends.grammars import grammar_for
from assistant.collection.answer import shaped_answer
from assistant.collection.followups import scope_to_listed
from assistant.collection.summary import with_summary
from assistant.compose.answer_text import (  # noqa: F401 (the fixed texts are imported from here too)
    DECLINED_REASON,
    EMPTY_TEXT,
    MODEL_REFUSAL,
    REFUSAL_TEXT,
    add_usage,
    caveat_for,
    caveat_kind,
    citations,
    cited_parts,
    described,
    join_names,
    model_absence,
)
from assistant.compose.extractive import draft, second_look, unstated
from assistant.compose.prompts import (
    build_messages,
    condense_messages,
    lead_draft,
    lead_preview,
    numbered_messages,
    picked,
)
from assistant.evidence import decision as decision_mod
from assistant.evidence.parts import Parts
from assistant.evidence.scorer import scorer
from assistant.evidence.scoring import Evidence, SentenceCache, coverage, score_evidence, terms
from assistant.filters import Filters
from assistant.language.names import missing_names, names
from assistant.language.text import ANY_CONTROL
from assistant.question.conversation import (
    evidence_question,
    resolved_question,
    standalone_question,
)
from assistant.question.reading import Question, read
from assistant.search.hits import Hits, to_hit
from assistant.search.retrieval import HybridRetriever
from assistant.settings import Settings, VerifySettings
from assistant.store.idf import Idf
from assistant.types import Answer, AnswerSentence
from assistant.verify import support
from assistant.verify.citations import Verifier
from assistant.verify.focus import nominal, unstated_focus

# fallback_reason of a "lead" decline that the decision overrules (_model_declined)
DECLINE_OVERRULED = "the model declined (no direct answer in the sources), overruled: the decision is confident"


@dataclass
class Turn:
    """One question on its way through the engine."""

    question: str
    history: list[dict[str, str]]
    backend: str
    k: int
    exclude: set[str] | None = None
    note: str = ""
    absent: str = ""  # what the model said the sources do not state (answer_text.model_absence), kept for a fallback
    t0: float = field(default_factory=time.perf_counter)
    timings: dict[str, float] = field(default_factory=dict)
    hits: Hits = field(default_factory=list)
    lists: dict[str, list[tuple[str, float]]] = field(default_factory=dict)  # each signal's ranked list
    asked: str = ""  # what evidence is scored against
    scoped: str = ""  # the refusal's words when only the listed works were read (followups.scope_to_listed)
    read: Question | None = None  # the question, read once (question.reading)
    evidence: Evidence | None = None
    decision: decision_mod.Decision | None = None
    filters: Filters | None = None  # retrieval ranks within the abstracts these admit (assistant/filters.py)
    relevances: list[float] = field(default_factory=list)  # each abstract read: the decision's relevance on its own


class AnswerEngine:
    def __init__(self, settings: Settings, retriever: HybridRetriever, cache: SentenceCache,
                 model_factory: Callable[[str, Settings], Any]) -> None:
        self.settings = settings
        self.retriever = retriever
        self.cache = cache
        self.model_factory = model_factory

    @property
    def parts(self) -> Parts:
        """What the stages are handed: the settings and the parts of this index."""
        return Parts(self.settings, self.retriever, self.cache, self.model_factory)

    def idf(self) -> Idf:
        return self.retriever.idf()

    # --- the pipeline ---------------------------------------------------------------------------
    def analyze(self, question: str, k: int, exclude: set[str] | None = None,
                history: list[dict[str, str]] | None = None) -> Turn:
        """Retrieval, evidence and the decision for ``question``, without answering (for the fit
        and evaluation scripts)."""
        turn = Turn(question, history or [], "extractive", k, exclude)
        self._retrieve(turn, Answer(question=question, text=""))
        self._decide(turn)
        return turn

    def stream(self, question: str, history: list[dict[str, str]], backend: str, k: int,
               exclude: set[str] | None = None, filters: Filters | None = None) -> Iterator[str | Answer]:
        turn = Turn(" ".join(ANY_CONTROL.sub(" ", question or "").split()), history, backend, k, exclude, filters=filters)
        base = Answer(question=turn.question, text="", backend=backend)
        if not any(t.isascii() for t in terms(turn.question)):  # the embedder and corpus are English
            base.text, base.refused = EMPTY_TEXT, True
            yield self._finish(base, turn)
            return
        limit = self.settings.answer.max_question_chars
        if len(turn.question) > limit:
            turn.question = turn.question[:limit].rsplit(" ", 1)[0]
            base.question = turn.question
            turn.note = f"(Only the first {limit:,} characters of the question were used.)"
        self._retrieve(turn, base)
        self._decide(turn)
        assert turn.decision is not None
        assert turn.read is not None
        shaped = shaped_answer(self.parts, base, turn.read, turn.hits, turn.decision)  # lists, comparisons, overviews (H3)
        turn.timings.update(shaped.timings)
        if shaped.answer is not None:
            turn.note = " ".join(filter(None, [turn.note, shaped.note]))
            yield shaped.answer.text  # the extracted list at once; an LLM's synthesis (seconds) goes above it
            answer, seconds = with_summary(self.parts, turn.backend, shaped.answer)
            if seconds is not None:
                turn.timings["summary"] = seconds
            yield self._finish(answer, turn)
            return
        if turn.decision.outcome == "refuse":
            yield self._refusal(base, turn)
            return
        if backend == "extractive":
            answer = self._extractive(base, turn)
            yield answer.text
            yield self._finish(answer, turn)
            return
        yield from self._llm(base, turn)

    def _retrieve(self, turn: Turn, base: Answer) -> None:
        q = turn.read = read(turn.question, turn.history, turn.backend, turn.k, turn.exclude, turn.filters,
                             self.settings.answer.short_question_terms)
        query = q.standalone
        condensed = query != turn.question and turn.backend == "openai"
        if condensed:
            query = self._condense(turn, base)
        base.standalone_question = query if query != turn.question else None
        n = max(self.settings.candidates, turn.k + 5)
        turn.lists = self.retriever.signals(query, n, filters=turn.filters, exclude=turn.exclude)
        turn.hits = self.retriever.retrieve(query, turn.k, exclude=turn.exclude, lists=turn.lists, filters=turn.filters)
        scoped = scope_to_listed(self.parts, q, turn.lists, query)  # a superlative over a list reads the listed works only
        if scoped is not None:
            turn.hits, turn.scoped = scoped
        turn.asked = query if condensed else evidence_question(turn.question, turn.history, turn.hits[0][0].original if turn.hits else "", self.settings.answer.short_question_terms)
        turn.timings["retrieve"] = time.perf_counter() - turn.t0

    def _decide(self, turn: Turn) -> None:
        t = time.perf_counter()
        if not turn.hits:
            turn.decision = decision_mod.Decision("refuse", 0.0)
            return
        read = turn.hits[: self.settings.answer.evidence_docs]
        idf = self.retriever.idf(turn.exclude)  # leave-one-out: as if the excluded works were never indexed
        turn.evidence = score_evidence(turn.asked, [d.original for d, _ in read], self.cache, idf)
        # the second look (extractive.py): the abstract whose sentence answers leads
        turn.hits[: len(read)], turn.evidence = second_look(turn.evidence, read, self.settings.answer.second_look)
        read = turn.hits[: len(read)]
        q_terms = terms(turn.asked)
        doc_terms = [set(terms(d.text)) for d, _ in read]
        read_lexical = coverage(q_terms, set().union(*doc_terms), idf)
        lexical = [coverage(q_terms, t, idf) for t in doc_terms]
        ids = [d.doc_id for d, _ in turn.hits]
        visible = decision_mod.visible_lists(turn.lists, turn.exclude, self.retriever.docs)
        rare = decision_mod.rare_coverage(q_terms, doc_terms, idf)
        feats = decision_mod.features_of(0, ids, turn.lists, lexical[0], turn.evidence, read_lexical, visible, rare)
        # a follow-up is checked with the names it refers to (conversation.resolved_question)
        resolved = resolved_question(turn.question, turn.history, turn.asked, self.settings.answer.short_question_terms)
        missing = missing_names(resolved, [d.original for d, _ in turn.hits])
        cfg = self.settings.decision
        turn.decision = decision_mod.decide(feats, missing, cfg)
        # each abstract's relevance as if it were the only one found (the decline fit's gap between
        # the first and the rest: evals/declines.py)
        turn.relevances = [turn.decision.relevance] + [decision_mod.relevance(decision_mod.features_of(
            j, ids, turn.lists, lexical[j], turn.evidence, read_lexical, visible, rare), cfg.weights(), cfg.bias)
            for j in range(1, len(read))]
        turn.timings["evidence"] = time.perf_counter() - t

    # --- outcomes -------------------------------------------------------------------------------
    def _extractive(self, base: Answer, turn: Turn, model_declined: bool = False) -> Answer:
        assert turn.evidence is not None
        chosen = scorer().pick(turn.evidence)
        # the sentences come from the abstracts read for evidence: verify against those only
        # (each further abstract would cost its sentence vectors, ~0.1 s a sentence on 2 busy cores)
        answer = self._verified(base, turn.hits[: len(turn.evidence.texts)], draft(chosen))
        return self._caveated(answer, turn, model_declined)

    def _caveated(self, answer: Answer, turn: Turn, model_declined: bool = False) -> Answer:
        d, said = turn.decision, " ".join(s.text for s in answer.sentences if s.supported)
        turn.absent = turn.absent or model_absence(answer.sentences)  # the model's "does not specify X"
        # the item the question asks for, unstated by the sentences (assistant/verify/focus.py)
        # (after a model's decline too: its caveat then names what is unstated, not only "no direct answer")
        item = None if d is None or d.missing or not self.settings.caveat.asked_item \
            else unstated_focus(turn.asked, said, cited_parts(answer.sentences))
        absent = "" if d is None or d.missing or not self.settings.caveat.asked_item else turn.absent
        if d is None or (d.outcome != "caveat" and not model_declined and not (item or absent)) or not answer.citations:
            return answer
        # which caveat: the order lives in answer_text.caveat_kind alone; the text follows the kind
        kind = answer.caveat_kind = caveat_kind(bool(d.missing), model_declined, bool(absent),
                                                item is not None and not model_declined)  # a decline stays its kind
        words = unstated(turn.asked, said, self.idf(), nouns=nominal(turn.asked)) \
            if kind in (kinds.CAVEAT_WEAK_MATCH, kinds.CAVEAT_MODEL_DECLINED) else []
        answer.caveat = caveat_for(kind, described(turn.asked, said), d.missing, absent,
                                   item and (item.phrase, item.quantity), words)
        answer.text = f"{answer.caveat} {answer.text}"
        return answer

    def _refusal(self, base: Answer, turn: Turn) -> Answer:
        base.refused = True
        base.text = turn.scoped or REFUSAL_TEXT
        missing = turn.decision.missing if turn.decision else []
        if missing:
            base.text += f" None of the abstracts found mentions {join_names(missing)}."
            base.caveat, base.caveat_kind = base.text, caveat_kind(missing=True)
        base.closest = [to_hit(doc, score, i + 1) for i, (doc, score) in enumerate(turn.hits[:3])]
        if base.closest:
            base.text += " The closest abstracts are listed below; none of them states it."
        return self._finish(base, turn)

    def _llm(self, base: Answer, turn: Turn) -> Iterator[str | Answer]:
        """The model's part, by the backend's design (settings.prompts.designs; docs/local-model.md):
        "write" streams the model's own cited sentences; "lead" streams one direct sentence and
        quotes extraction's sentences under it; "pick" has the model name which candidate sentences
        answer. A decline goes to ``_model_declined``; a failure falls back to extraction."""
        from assistant.backends import LLMError

        settings = self.settings
        assert turn.evidence is not None
        design = settings.prompts.design(turn.backend)
        shown_text = ""
        try:
            model = self.model_factory(turn.backend, settings)
            messages, shown, numbered, tokens = self._request(model, turn, design)
            grammar = grammar_for(design, len(numbered)) if getattr(model, "grammar", False) else None
            t = time.perf_counter()
            parts: list[str] = []
            for delta in model.stream(messages, max_tokens=tokens, temperature=settings.temperature,
                                      **({"grammar": grammar} if grammar else {})):
                if not parts:
                    turn.timings["first_token"] = time.perf_counter() - turn.t0
                parts.append(delta)
                visible = delta if design == "write" else _preview(design, "".join(parts), turn)[len(shown_text):]
                shown_text += visible
                if visible:
                    yield visible
                if design == "lead" and "]" in delta:  # the lead sentence ends at its citation
                    break
            turn.timings["generate"] = time.perf_counter() - t
        except (LLMError, RuntimeError, ValueError) as exc:
            answer = self._fallback(base, turn, f"the {turn.backend} backend failed, so this answer was extracted from the sources: {exc}")
            yield "\n\n" + answer.text
            yield self._finish(answer, turn)
            return
        raw = "".join(parts).strip()
        add_usage(base, model, messages, raw)
        if design == "write":
            yield self._after_model(base, turn, raw, [turn.hits[i] for i in shown])
            return
        text, lead, dropped = self._composed(design, raw, numbered, turn)
        answer = self._after_model(base, turn, text, turn.hits[: len(turn.evidence.texts)], lead=lead)
        if dropped is not None:  # the page and --json show the lead that was dropped, and why
            answer.sentences = answer.sentences + [dropped]
        if answer.text:  # the rest of the final text, so that the stream reads as the answer
            same = shown_text and answer.text.startswith(shown_text)
            yield answer.text[len(shown_text):] if same else ("\n\n" if shown_text else "") + answer.text
        yield answer

    def _request(self, model: Any, turn: Turn, design: str) -> tuple[list[dict[str, str]], list[int], list[Any], int]:
        """(messages, hit index of each source shown, the numbered sentences, answer tokens)."""
        assert turn.evidence is not None
        cfg, labels = self.settings.prompts, [d.label for d, _ in turn.hits]
        if design == "write":
            messages, shown = build_messages(model, turn.evidence, labels, self.settings.max_answer_tokens, cfg)
            return messages, shown, [], self.settings.max_answer_tokens
        # "lead": extraction's own sentences; "pick": a wider pool, the scorer's likeliest, from which
        # the model chooses (evals/pick_pool.py: the hand-written pool it replaced held an answer no more often)
        numbered = scorer().pick(turn.evidence) if design == "lead" else scorer().ranked(turn.evidence, cfg.pick_candidates)
        if not numbered:
            raise ValueError("no evidence sentence to show the model")
        # the lead is written from the first ``lead_shown`` of them (extraction's best first);
        # all are quoted under it (_composed)
        shown = numbered[: cfg.lead_shown] if design == "lead" else numbered
        messages = numbered_messages(design, turn.evidence.question, shown, labels, cfg)
        return messages, [], numbered, cfg.lead_tokens if design == "lead" else cfg.pick_tokens

    def _composed(self, design: str, raw: str, numbered: list[Any], turn: Turn) -> tuple[str, bool, AnswerSentence | None]:
        """The text to verify: the picked sentences verbatim, or the lead sentence followed by
        extraction's sentences (the numbered ones); the decline marker when the model declined.
        Also whether the text opens with a lead sentence, and the lead when its check dropped it."""
        if design == "pick":
            chosen = picked(raw, numbered)
            return (draft(chosen) if chosen else MODEL_REFUSAL), False, None
        if not raw or MODEL_REFUSAL.lower() in raw.lower():
            return MODEL_REFUSAL, False, None
        lead = lead_draft(raw, numbered[: self.settings.prompts.lead_shown])  # the numbers it was shown
        # a name the lead writes must be written in what it was shown (an abstract or its label):
        # a 1.5B model copies the question's "TEAL++" onto TEAL's sentence, and the support check
        # reads the two as one (measured on generated_unanswerable); without the lead, extraction's
        # sentences stand alone
        shown = [s.text for s in numbered] + [turn.hits[s.doc_index][0].label for s in numbered]
        if any(not any(n.lower() in t.lower() for t in shown) for n in names(re.sub(r"\[[^\]]*\]", "", lead))):
            return draft(numbered), False, None
        # the lead needs the learned check's lead bar (settings.prompts.lead_support): below it,
        # extraction's sentences stand alone, the quote the lead would have replaced among them
        checked = self._lead_checked(turn, lead)
        if checked is not None:
            return draft(numbered), False, checked
        # the lead stands in place of a quote it restates (most of the quote's terms), not above it
        said = set(terms(lead))
        quoted = [s for s in numbered if not restated(said, set(terms(s.text)))]
        return (f"{lead} {draft(quoted)}" if quoted else lead), True, None

    def _lead_checked(self, turn: Turn, lead: str) -> AnswerSentence | None:
        """The lead sentence dropped, with its reason, when it does not pass the check at the lead's
        bar; None when it passes."""
        assert turn.evidence is not None
        cfg = support.at_lead_bar(self.settings.verify, self.settings.prompts.lead_support)
        result = self._verifier(turn.hits[: len(turn.evidence.texts)], cfg).verify(lead)
        first = next(iter(result.sentences), None)
        if first is None or first.supported:
            return None
        return AnswerSentence(text=first.text, supported=False, reason=f"the lead sentence: {first.reason or 'not supported'}")

    def _after_model(self, base: Answer, turn: Turn, raw: str, shown: Hits, lead: bool = False) -> Answer:
        if not raw or MODEL_REFUSAL.lower() in raw.lower():
            return self._model_declined(base, turn)
        t = time.perf_counter()
        answer = self._verified(base, shown, raw)
        if lead and answer.sentences and answer.sentences[0].supported:  # the quotes start a paragraph
            first = answer.sentences[0]
            head = first.text + (" " + "".join(f"[{n}]" for n in first.citations) if first.citations else "")
            if answer.text.startswith(head) and answer.text != head:
                answer.text = f"{head}\n\n{answer.text[len(head):].strip()}"
        answer = self._caveated(answer, turn)
        turn.timings["verify"] = time.perf_counter() - t
        if not answer.citations:
            # the model's dropped sentences stay, with their reasons, after the extracted ones
            # (the page and --json show what was dropped and why); they cite nothing
            dropped = [s for s in answer.sentences if not s.supported]
            answer = self._fallback(base, turn, "no sentence of the model's answer was supported by the sources; answered from the evidence")
            answer.sentences = answer.sentences + dropped
        return self._finish(answer, turn)

    def _model_declined(self, base: Answer, turn: Turn) -> Answer:
        """The model's NOT IN SOURCES is heard: when the question names something no source
        mentions, it is a refusal (never a neighbour's figures as the answer); otherwise the
        closest statements are quoted under a caveat saying the model found no direct answer —
        "the sources describe X but do not state Y" rather than refusing a question the
        collection may well answer. A "lead" decline on a plain answer whose relevance reaches
        ``settings.prompts.decline_relevance`` is overruled (evals/caveat_rules.py --declines)."""
        d = turn.decision
        if d is not None and d.missing:
            return self._refusal(base, turn)
        bar = self.settings.prompts.decline_relevance
        if bar is not None and d is not None and d.outcome == "answer" and d.relevance >= bar \
                and self.settings.prompts.design(turn.backend) == "lead":
            # overruled: the decision is confident and names nothing unmatched, so extraction's
            # answer stands without the lead (settings.prompts.decline_relevance; evals/declines.py)
            reason = f"{DECLINE_OVERRULED} (relevance {d.relevance:.2f} >= {bar:g}); extraction's answer stands"
            return self._finish(self._fallback(base, turn, reason), turn)
        answer = self._extractive(base, turn, model_declined=True)
        answer.fallback_from = turn.backend
        answer.backend = f"{turn.backend}→extractive"  # the text is extracted, as in every fallback
        answer.fallback_reason = DECLINED_REASON
        return self._finish(answer, turn)

    def _fallback(self, base: Answer, turn: Turn, reason: str) -> Answer:
        answer = self._extractive(base, turn)
        answer.fallback_from = turn.backend
        answer.backend = f"{turn.backend}→extractive"  # public contract: the text is the extractive one
        answer.fallback_reason = reason
        return answer

    def _condense(self, turn: Turn, base: Answer) -> str:
        """The follow-up rewritten as a standalone question by the LLM; the heuristic if that fails."""
        from assistant.backends import LLMError

        t = time.perf_counter()
        try:
            model = self.model_factory("openai", self.settings)
            messages = condense_messages(turn.question, turn.history, self.settings.prompts)
            text = model.complete(messages, max_tokens=80, temperature=0.0).strip().strip('"').splitlines()
            add_usage(base, model, messages, "\n".join(text))
            rewritten = text[0].strip() if text else ""
        except (LLMError, RuntimeError, ValueError):
            rewritten = ""
        turn.timings["condense"] = time.perf_counter() - t
        return rewritten if terms(rewritten) else standalone_question(turn.question, turn.history)

    # --- shared pieces --------------------------------------------------------------------------
    def _verifier(self, hits: Hits, cfg: VerifySettings | None = None) -> Verifier:
        """The support check over ``hits``' abstracts (``cfg``: the verify settings, by default the engine's)."""
        return Verifier([doc.original for doc, _ in hits], self.cache, self.idf(), cfg or self.settings.verify,
                        labels=[d.label for d, _ in hits])

    def _verified(self, base: Answer, hits: Hits, raw: str) -> Answer:
        result = self._verifier(hits).verify(raw)
        base.text = result.text
        base.sentences = result.sentences
        base.citations = citations(hits, result.order, result.evidence)
        return base

    def _finish(self, answer: Answer, turn: Turn) -> Answer:
        if turn.note:
            answer.text = f"{answer.text}\n\n{turn.note}"
        turn.timings["total"] = time.perf_counter() - turn.t0
        answer.timings = {k: round(v, 3) for k, v in turn.timings.items()}
        if turn.decision is not None:
            answer.relevance = round(turn.decision.relevance, 3)
        return answer


# a quote restated: this share of its terms in the lead (a sanity bound: the lead is one sentence
# written from the quotes; below it the quote says something the lead does not)
RESTATED = 0.6


def restated(lead_terms: set[str], quote_terms: set[str]) -> bool:
    return bool(quote_terms) and len(lead_terms & quote_terms) / len(quote_terms) >= RESTATED


def _preview(design: str, text: str, turn: Turn) -> str:
    """What of a numbered design's reply streaming in is shown: the lead sentence (not under a
    caveat, which will open the text); no numbers."""
    caveat = turn.decision is not None and turn.decision.outcome == "caveat"
    return lead_preview(text) if design == "lead" and not caveat else ""
