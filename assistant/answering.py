"""Answering: follow-up rewrite -> hybrid retrieval -> evidence -> refusal decision -> answer
(extractive, or an LLM given the selected evidence sentences) -> citation verification."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant.citations import Verifier
from assistant.evidence import Idf, Sentence, score_sentences, terms
from assistant.prompts import load_prompt, render
from assistant.types import Answer, Citation, Evidence

if TYPE_CHECKING:
    from assistant.core import Assistant
    from assistant.store import StoredDoc

REFUSAL_TEXT = "The collection does not answer this question."
MODEL_REFUSAL = "NOT IN SOURCES"
# Evidence strength below which we refuse (calibrated on the dev set's tune split, see evals/).
REFUSE_BELOW = 0.45
EVIDENCE_PER_SOURCE = 3
_FOLLOW_UP = re.compile(r"\b(it|its|it's|they|them|their|this|that|these|those|the method|the paper|the model|same)\b", re.I)


@cache
def _tokenizer() -> Any:
    import llama_index.core

    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(Path(llama_index.core.__file__).parent / "_static" / "tiktoken_cache"))
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    return len(_tokenizer().encode(text, disallowed_special=()))


def standalone_question(question: str, history: list[dict[str, str]]) -> str:
    """A follow-up ("and its memory cost?") gets the previous question's subject prepended."""
    previous = [m["content"] for m in history if m.get("role") == "user" and m.get("content")]
    if not previous:
        return question
    if len(terms(question)) <= 3 or _FOLLOW_UP.search(question) or question.lower().startswith(("and ", "what about", "how about")):
        return f"{previous[-1]} {question}"
    return question


def answer_stream(assistant: Assistant, question: str, *, history: list[dict[str, str]], backend: str | None, k: int) -> Iterator[str | Answer]:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    question = (question or "").strip()
    name = backend or assistant.settings.resolved_backend()
    if not terms(question):
        yield Answer(question=question, text="Please ask a question in words (it was empty or only punctuation).",
                     refused=True, backend=name, timings={"total": 0.0})
        return
    query = standalone_question(question, history)
    hits = assistant.retriever.retrieve(query, k)
    timings["retrieve"] = time.perf_counter() - t0

    t1 = time.perf_counter()
    idf = _idf(assistant)
    texts = [doc.original for doc, _ in hits]
    sentences = score_sentences(query, texts, assistant.embedder, idf)
    strength = max((s.score for s in sentences), default=0.0)
    timings["evidence"] = time.perf_counter() - t1
    base = Answer(question=question, text="", backend=name, standalone_question=query if query != question else None)

    if strength < REFUSE_BELOW:
        yield _refusal(assistant, base, hits, timings, t0)
        return
    if name == "extractive":
        answer = _extractive(assistant, base, hits, sentences, idf)
        yield answer.text
        yield _finish(answer, timings, t0)
        return

    from assistant.backends import LLMError, make_chat_model

    try:
        model = make_chat_model(name, assistant.settings)
        messages = _messages(model, query, hits, sentences)
        t2 = time.perf_counter()
        parts: list[str] = []
        for delta in model.stream(messages, max_tokens=assistant.settings.max_answer_tokens, temperature=assistant.settings.temperature):
            if not parts:
                timings["first_token"] = time.perf_counter() - t0
            parts.append(delta)
            yield delta
        timings["generate"] = time.perf_counter() - t2
    except (LLMError, RuntimeError, ValueError) as exc:
        answer = _extractive(assistant, base, hits, sentences, idf)
        answer.fallback_reason = f"{name} backend failed: {exc}"
        answer.text = answer.text
        yield "\n\n"
        yield answer.text
        yield _finish(answer, timings, t0)
        return
    raw = "".join(parts).strip()
    prompt_tokens = sum(count_tokens(m["content"]) for m in messages)
    completion_tokens = count_tokens(raw)
    base.usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "model": model.model}
    if name == "openai":
        from assistant.backends.openai_backend import estimate_cost

        base.usage["cost_usd"] = estimate_cost(model.model, prompt_tokens, completion_tokens)
    if MODEL_REFUSAL.lower() in raw.lower() or not raw:
        # Strong evidence outranks a small model's refusal: answer from the evidence instead.
        answer = _extractive(assistant, base, hits, sentences, idf)
        answer.backend = name
        answer.fallback_reason = "the model declined although the sources hold relevant evidence; answered from the evidence"
        yield _finish(answer, timings, t0)
        return
    yield _finish(_verified(assistant, base, hits, raw, idf), timings, t0)


def _idf(assistant: Assistant) -> Idf:
    docs = assistant.retriever.docs()
    cached = getattr(assistant, "_idf_cache", None)
    if cached is None or cached[0] != len(docs):
        cached = (len(docs), Idf(d.text for d in docs.values()))
        assistant._idf_cache = cached  # type: ignore[attr-defined]
    return cached[1]


def _messages(model: Any, question: str, hits: list[tuple[StoredDoc, float]], sentences: list[Sentence]) -> list[dict[str, str]]:
    system = load_prompt("answer_system")
    budget = model.context_window - 400 - count_tokens(system) - count_tokens(question) - 100
    blocks: list[str] = []
    for i, (doc, _) in enumerate(hits):
        chosen = sorted((s for s in sentences if s.doc_index == i), key=lambda s: -s.score)[:EVIDENCE_PER_SOURCE]
        chosen.sort(key=lambda s: s.start)
        block = render("source_block", n=str(i + 1), label=doc.label, evidence=" ".join(s.text for s in chosen))
        if count_tokens(block) > budget:
            break
        budget -= count_tokens(block)
        blocks.append(block)
    user = render("answer_user", sources="\n".join(blocks), question=question)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _citations(assistant: Assistant, hits: list[tuple[StoredDoc, float]], order: list[int], evidence: dict[int, list[Evidence]]) -> list[Citation]:
    out = []
    for n, i in enumerate(order, start=1):
        doc, score = hits[i]
        hit = assistant._hit(doc, score, i + 1)
        out.append(Citation(n=n, doc_id=doc.doc_id, label=doc.label, text=doc.original, source=hit.source,
                            evidence=sorted(evidence.get(i, []), key=lambda e: e.start), score=round(score, 4)))
    return out


def _verified(assistant: Assistant, base: Answer, hits: list[tuple[StoredDoc, float]], raw: str, idf: Idf) -> Answer:
    verifier = Verifier([doc.original for doc, _ in hits], assistant.embedder, idf)
    result = verifier.verify(raw)
    base.text = result.text
    base.sentences = result.sentences
    base.citations = _citations(assistant, hits, result.order, result.evidence)
    return base


def _extractive(assistant: Assistant, base: Answer, hits: list[tuple[StoredDoc, float]], sentences: list[Sentence], idf: Idf) -> Answer:
    """The best evidence sentences, verbatim, each with its citation (at most 2 per abstract)."""
    chosen: list[Sentence] = []
    per_doc: dict[int, int] = {}
    top = max(s.score for s in sentences)
    for s in sorted(sentences, key=lambda s: -s.score):
        if len(chosen) >= 3 or s.score < top * 0.8:
            break
        if per_doc.get(s.doc_index, 0) >= 2:
            continue
        per_doc[s.doc_index] = per_doc.get(s.doc_index, 0) + 1
        chosen.append(s)
    raw = " ".join(f"{s.text} [{s.doc_index + 1}]" for s in chosen)
    answer = _verified(assistant, base, hits, raw, idf)
    answer.backend = "extractive" if base.backend == "extractive" else base.backend
    if base.backend != "extractive":
        answer.backend = f"{base.backend}→extractive"
    return answer


def _refusal(assistant: Assistant, base: Answer, hits: list[tuple[StoredDoc, float]], timings: dict[str, float], t0: float) -> Answer:
    base.refused = True
    base.text = REFUSAL_TEXT
    base.closest = [assistant._hit(doc, score, i + 1) for i, (doc, score) in enumerate(hits[:3])]
    if base.closest:
        base.text += " The closest abstracts are listed below; none of them states it."
    return _finish(base, timings, t0)


def _finish(answer: Answer, timings: dict[str, float], t0: float) -> Answer:
    timings["total"] = time.perf_counter() - t0
    answer.timings = {k: round(v, 3) for k, v in timings.items()}
    return answer
