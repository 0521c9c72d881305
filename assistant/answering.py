"""Answering: follow-up rewrite -> hybrid retrieval -> evidence -> refusal decision -> answer
(extractive, or an LLM given the selected evidence sentences) -> citation verification."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from assistant.citations import Verifier
from assistant.evidence import Evidence, Idf, SentenceCache, score_evidence, terms
from assistant.prompts import build_messages, condense_messages, count_tokens
from assistant.types import Answer, Citation
from assistant.types import Evidence as EvidenceSpan

if TYPE_CHECKING:
    from assistant.core import Assistant
    from assistant.store import StoredDoc

REFUSAL_TEXT = "The collection does not answer this question."
EMPTY_TEXT = "Please ask a question in words (it was empty, only punctuation, or had no Latin-alphabet words to search for)."
MODEL_REFUSAL = "NOT IN SOURCES"
SHORT_QUESTION_TERMS = 8  # follow-ups are short: a pronoun in a longer question refers inside it
MAX_QUESTION_CHARS = 1000  # longer questions are cut for retrieval and evidence (the note says so)
EXTRACTIVE_SENTENCES = 3
EVIDENCE_DOCS = 3  # abstracts read for evidence (all k when the question asks for several works)
SAME_DOC_SHARE = 0.8  # a second sentence of the best abstract needs this share of the best score
OTHER_DOC_SHARE = 0.9  # a sentence of another abstract needs this share (measured on tune)
MULTI_SENTENCES = 4
MULTI_OTHER_SHARE = 0.7
RETRIEVAL_PRIOR = 0.3  # weight of the abstract's retrieval score when picking sentences
_CONNECTIVE = re.compile(r"^\s*(and|also|so|then|what about|how about|and what about)\b", re.I)
_ANAPHOR = re.compile(r"\b(it|it's|they|them|the (?:method|model|paper|work|approach|authors)|"
                      r"(?:this|that|these|those)\s+\w+\s*[,?.!])", re.I)
_POSSESSIVE = re.compile(r"\b(its|their)\b", re.I)
_SEVERAL = re.compile(r"^\W*(which|what|list|name)\W+(\w+\W+)?(abstracts|papers|works|studies|methods|models|approaches)\b", re.I)
_TOKEN = re.compile(r"[A-Za-z0-9][\w.+/-]*[\w+]|[A-Za-z0-9]")
_QUESTION_WORDS = {"what", "which", "how", "who", "why", "when", "where", "does", "do", "did", "is", "are", "can",
                   "and", "in", "on", "for", "by", "up", "under", "has", "have"}


def names(text: str) -> list[tuple[int, str]]:
    """Name-like words (RetNet, Llama-3.1-8B, Ring Attention) with their positions: words with an
    inner capital or digit, or capitalised words after the first; neighbours are joined."""
    out: list[tuple[int, str]] = []
    end = -1
    for i, m in enumerate(_TOKEN.finditer(text)):
        w = m.group(0)
        inner = any(c.isupper() or c.isdigit() for c in w[1:]) or w[0].isdigit()
        if not (inner or (w[0].isupper() and i > 0)) or (i == 0 and w.lower() in _QUESTION_WORDS):
            continue
        if out and text[end : m.start()] in (" ", "-"):
            out[-1] = (out[-1][0], text[out[-1][0] : m.end()])
        else:
            out.append((m.start(), w))
        end = m.end()
    return out


Hits = list[tuple["StoredDoc", float]]


def previous_question(history: list[dict[str, str]]) -> str:
    users = [m["content"] for m in history if m.get("role") == "user" and m.get("content")]
    return users[-1] if users else ""


def is_follow_up(question: str, history: list[dict[str, str]]) -> bool:
    """A question that leans on the conversation ("And how much memory does it save?"): it opens
    with a connective, is very short, or refers back (a pronoun before any name of its own; "its"
    in a short question that names nothing)."""
    if not previous_question(history):
        return False
    own, n_terms = names(question), len(terms(question))
    if (n_terms <= 2 and not own) or _CONNECTIVE.search(question):
        return True
    if n_terms > SHORT_QUESTION_TERMS:  # a long question carries its own referents
        return False
    first_name = own[0][0] if own else len(question)
    if (m := _ANAPHOR.search(question)) and m.start() < first_name:
        return True
    return bool(_POSSESSIVE.search(question)) and not own


def standalone_question(question: str, history: list[dict[str, str]]) -> str:
    """The retrieval query: a follow-up gets the previous question prepended (heuristic)."""
    if is_follow_up(question, history):
        return f"{previous_question(history)} {question}"
    return question


def evidence_question(question: str, history: list[dict[str, str]], top_text: str) -> str:
    """What the evidence is scored against: a follow-up plus those names of its previous question
    that the top abstract holds (they join the topic; the facet stays the follow-up's own)."""
    if not is_follow_up(question, history) or not top_text:
        return question
    found = [n for _, n in names(previous_question(history)) if n.lower() in top_text.lower()]
    return f"{question} ({', '.join(dict.fromkeys(found))})" if found else question


_CACHES: dict[tuple[str, str], SentenceCache] = {}
_CACHES_LOCK = threading.Lock()


def sentence_cache(assistant: Assistant) -> SentenceCache:
    """Sentence vectors depend only on the embedding model, so every Assistant of this process
    that uses the same model shares one cache."""
    from assistant.embeddings import embedder_fingerprint

    settings = assistant.settings
    key = (embedder_fingerprint(settings), str(settings.embed_base_url or settings.openai_base_url or "")
           if settings.embed_backend == "openai" else "")
    with _CACHES_LOCK:
        if key not in _CACHES:
            _CACHES[key] = SentenceCache(assistant.embedder)
        return _CACHES[key]


def idf_for(assistant: Assistant) -> Idf:
    docs = assistant.retriever.docs()
    cached = getattr(assistant, "_idf_cache", None)
    if cached is None or cached[0] is not docs:
        cached = (docs, Idf(d.text for d in docs.values()))
        assistant._idf_cache = cached  # type: ignore[attr-defined]
    return cached[1]


def answer_stream(assistant: Assistant, question: str, *, history: list[dict[str, str]], backend: str | None,
                  k: int) -> Iterator[str | Answer]:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    question = " ".join(re.sub(r"[\x00-\x1f\x7f-\x9f]", " ", question or "").split())  # control chars (NUL ...) are spaces
    name = backend or assistant.settings.resolved_backend()
    if not terms(question):
        yield _finish(Answer(question=question, text=EMPTY_TEXT, refused=True, backend=name), timings, t0)
        return
    note = ""
    if len(question) > MAX_QUESTION_CHARS:
        question = question[:MAX_QUESTION_CHARS].rsplit(" ", 1)[0]
        note = f"(Only the first {MAX_QUESTION_CHARS:,} characters of the question were used.)"
    base = Answer(question=question, text="", backend=name)
    query = standalone_question(question, history)
    condensed = query != question and name == "openai"
    if condensed:
        query = _condense(assistant, question, history, base, timings)
    base.standalone_question = query if query != question else None
    hits = assistant.retriever.retrieve(query, k)
    asked = query if condensed else evidence_question(question, history, hits[0][0].original if hits else "")
    timings["retrieve"] = time.perf_counter() - t0

    t1 = time.perf_counter()
    idf = idf_for(assistant)
    cache = sentence_cache(assistant)
    read = hits if _SEVERAL.search(asked) else hits[:EVIDENCE_DOCS]  # sentence vectors cost CPU
    evidence = score_evidence(asked, [d.original for d, _ in read], [d.label for d, _ in read], cache, idf)
    timings["evidence"] = time.perf_counter() - t1

    if not evidence.answers():
        yield _refusal(assistant, base, hits, timings, t0, note)
        return
    if name == "extractive":
        answer = _extractive(assistant, base, hits, evidence, cache, idf)
        for i, s in enumerate(answer.sentences):
            yield (" " if i else "") + s.text + "".join(f" [{n}]" for n in s.citations)
        yield _finish(answer, timings, t0, note)
        return
    yield from _llm_answer(assistant, name, base, hits, evidence, cache, idf, timings, t0, note)


def _condense(assistant: Assistant, question: str, history: list[dict[str, str]], base: Answer,
              timings: dict[str, float]) -> str:
    """The follow-up rewritten as a standalone question by the LLM; the heuristic if that fails."""
    from assistant.backends import LLMError, make_chat_model

    t = time.perf_counter()
    try:
        model = make_chat_model("openai", assistant.settings)
        messages = condense_messages(question, history)
        text = model.complete(messages, max_tokens=80, temperature=0.0).strip().strip('"').splitlines()
        _add_usage(base, model, messages, "\n".join(text))
        rewritten = text[0].strip() if text else ""
    except (LLMError, RuntimeError, ValueError):
        rewritten = ""
    timings["condense"] = time.perf_counter() - t
    return rewritten if terms(rewritten) else standalone_question(question, history)


def _llm_answer(assistant: Assistant, name: str, base: Answer, hits: Hits, evidence: Evidence, cache: SentenceCache,
                idf: Idf, timings: dict[str, float], t0: float, note: str) -> Iterator[str | Answer]:
    from assistant.backends import LLMError, make_chat_model

    settings = assistant.settings
    try:
        model = make_chat_model(name, settings)
        messages, shown = build_messages(model, evidence, [d.label for d, _ in hits], settings.max_answer_tokens)
        t2 = time.perf_counter()
        parts: list[str] = []
        for delta in model.stream(messages, max_tokens=settings.max_answer_tokens, temperature=settings.temperature):
            if not parts:
                timings["first_token"] = time.perf_counter() - t0
            parts.append(delta)
            yield delta
        timings["generate"] = time.perf_counter() - t2
    except (LLMError, RuntimeError, ValueError) as exc:
        answer = _extractive(assistant, base, hits, evidence, cache, idf)
        answer.backend = f"{name}→extractive"  # the text is the extractive one
        answer.fallback_reason = f"the {name} backend failed, so this answer was extracted from the sources: {exc}"
        yield "\n\n" + answer.text
        yield _finish(answer, timings, t0, note)
        return
    raw = "".join(parts).strip()
    _add_usage(base, model, messages, raw)
    if not raw or MODEL_REFUSAL.lower() in raw.lower():
        answer = _extractive(assistant, base, hits, evidence, cache, idf)
        answer.backend = f"{name}→extractive"  # the text is the extractive one
        answer.fallback_reason = "the model declined although the sources hold relevant evidence; answered from the evidence"
        yield _finish(answer, timings, t0, note)
        return
    t3 = time.perf_counter()
    answer = _verified(assistant, base, [hits[i] for i in shown], raw, cache, idf)
    timings["verify"] = time.perf_counter() - t3
    if not answer.citations:
        answer = _extractive(assistant, base, hits, evidence, cache, idf)
        answer.backend = f"{name}→extractive"  # the text is the extractive one
        answer.fallback_reason = "no sentence of the model's answer was supported by the sources; answered from the evidence"
    yield _finish(answer, timings, t0, note)


def _add_usage(answer: Answer, model: Any, messages: list[dict[str, str]], completion: str) -> None:
    """Add one LLM call's tokens (the server's count when it sent one, else tiktoken's) and cost."""
    reported = getattr(model, "last_usage", None) or {}
    prompt = int(reported.get("prompt_tokens") or sum(count_tokens(m["content"]) for m in messages))
    done = int(reported.get("completion_tokens") or count_tokens(completion))
    usage = answer.usage
    usage["prompt_tokens"] = usage.get("prompt_tokens", 0) + prompt
    usage["completion_tokens"] = usage.get("completion_tokens", 0) + done
    usage["model"] = model.model
    if model.name == "openai":
        from assistant.backends.openai_backend import estimate_cost

        cost = estimate_cost(model.model, usage["prompt_tokens"], usage["completion_tokens"])
        if cost is not None:
            usage["cost_usd"] = round(cost, 6)


def _citations(assistant: Assistant, hits: Hits, order: list[int], spans: dict[int, list[EvidenceSpan]]) -> list[Citation]:
    out = []
    for n, i in enumerate(order, start=1):
        doc, score = hits[i]
        hit = assistant._hit(doc, score, i + 1)
        out.append(Citation(n=n, doc_id=doc.doc_id, label=doc.label, text=doc.original, source=hit.source,
                            evidence=sorted(spans.get(i, []), key=lambda e: e.start), score=round(score, 4)))
    return out


def _verified(assistant: Assistant, base: Answer, hits: Hits, raw: str, cache: SentenceCache, idf: Idf) -> Answer:
    result = Verifier([doc.original for doc, _ in hits], cache, idf).verify(raw)
    base.text = result.text
    base.sentences = result.sentences
    base.citations = _citations(assistant, hits, result.order, result.evidence)
    return base


def _extractive(assistant: Assistant, base: Answer, hits: Hits, evidence: Evidence, cache: SentenceCache,
                idf: Idf) -> Answer:
    """The best evidence sentences, verbatim, each with its citation: up to two from the abstract
    holding the best sentence, and one from each other abstract that is nearly as good (more of
    them for a question that asks for several works: "Which abstracts ...")."""
    best_hit = max((score for _, score in hits), default=0.0) or 1.0

    def value(s: Any) -> float:
        return s.score + s.answer_score + RETRIEVAL_PRIOR * hits[s.doc_index][1] / best_hit

    several = bool(_SEVERAL.search(evidence.question))
    limit, other_share = (MULTI_SENTENCES, MULTI_OTHER_SHARE) if several else (EXTRACTIVE_SENTENCES, OTHER_DOC_SHARE)
    ranked = sorted(evidence.sentences, key=lambda s: -value(s))
    top, first = value(ranked[0]), ranked[0].doc_index
    chosen: list[Any] = []
    per_doc: dict[int, int] = {}
    for s in ranked:
        share = SAME_DOC_SHARE if s.doc_index == first else other_share
        if len(chosen) < limit and value(s) >= top * share and per_doc.get(s.doc_index, 0) < (2 if s.doc_index == first else 1):
            per_doc[s.doc_index] = per_doc.get(s.doc_index, 0) + 1
            chosen.append(s)
    chosen.sort(key=lambda s: (s.doc_index != first, s.doc_index, s.start))
    raw = " ".join(f"{s.text} [{s.doc_index + 1}]" for s in chosen)
    return _verified(assistant, base, hits, raw, cache, idf)


def _refusal(assistant: Assistant, base: Answer, hits: Hits, timings: dict[str, float], t0: float, note: str) -> Answer:
    base.refused = True
    base.text = REFUSAL_TEXT
    base.closest = [assistant._hit(doc, score, i + 1) for i, (doc, score) in enumerate(hits[:3])]
    if base.closest:
        base.text += " The closest abstracts are listed below; none of them states it."
    return _finish(base, timings, t0, note)


def _finish(answer: Answer, timings: dict[str, float], t0: float, note: str = "") -> Answer:
    if note:
        answer.text = f"{answer.text}\n\n{note}"
    timings["total"] = time.perf_counter() - t0
    answer.timings = {k: round(v, 3) for k, v in timings.items()}
    return answer
