"""The LLM backends' synthesis above a list / comparison / overview answer (the extracted list
itself is composed by assistant/collection/answer.py): one short cited summary,
verified against the listed abstracts like any answer, or the list alone when the model fails."""

from __future__ import annotations

import time
from typing import Any

from assistant.evidence.parts import Parts
from assistant.question.shape import COMPARE, LIST, OVERVIEW
from assistant.types import (
    CAVEAT_LIST_BELOW_CUTOFF,
    CAVEAT_LIST_BY_MEANING,
    CAVEAT_LIST_NONE,
    CAVEAT_LIST_UNWRITTEN,
    Answer,
)
from assistant.verify import support
from assistant.verify.citations import Verifier, renumber_markers

PROMPTS = {LIST: "answer_list", COMPARE: "answer_compare", OVERVIEW: "answer_overview"}
# Lists whose head is a hedge get no synthesis: "none of them states it" (list_none), "none writes it;
# the closest in meaning" (list_by_meaning: a follow-up's filter or a topic no sentence writes), "no
# abstract mentions it" (list_unwritten), "none besides those listed before reaches the cut-off" (list_below_cutoff). The synthesis says what the listed papers have in common on
# the question's topic, plainly and above the list, so above its hedge: it would state as their
# common ground what the answer's own head says no abstract writes.
HEDGED = (CAVEAT_LIST_NONE, CAVEAT_LIST_BY_MEANING, CAVEAT_LIST_UNWRITTEN, CAVEAT_LIST_BELOW_CUTOFF)
SUMMARY_FAILED = "the {backend} backend gave no supported summary, so the list alone is shown"


def with_summary(parts: Parts, backend: str, answer: Answer) -> tuple[Answer, float | None]:
    """With an LLM backend, a short synthesis of the listed excerpts above the list (prompt per
    shape: prompts/answer_list.txt, answer_compare.txt, answer_overview.txt), verified like any answer
    against the abstracts of the items it was shown (``_shown``); unsupported sentences are dropped. The list itself stays
    extracted and verified; when the model fails or declines, it is shown alone, saying so. Also the
    synthesis's time, None when none was verified."""
    if backend == "extractive" or not answer.citations or answer.caveat_kind in HEDGED \
            or not _writes_summary(parts, backend, answer):
        return answer, None  # (a hedged list: its abstracts are not known to state what was asked, see HEDGED)
    from assistant.backends import LLMError

    t = time.perf_counter()
    shown = _shown(parts, backend, answer)
    try:
        model = parts.model_factory(backend, parts.settings)
        raw = _summary_reply(parts, backend, answer, model, len(shown))
    except (LLMError, RuntimeError, ValueError) as exc:
        answer.fallback_reason = f"{SUMMARY_FAILED.format(backend=backend)} ({exc})"
        return answer, None
    # Verified against the abstracts the model was shown, each under its position among them: a
    # synthesis of those items is true of them or of none (a "both papers ..." re-pointed to an item it
    # never saw says nothing of that item's list), and reading every listed abstract took seconds.
    sources = [answer.citations[i].text for i in shown]
    position = {i + 1: p + 1 for p, i in enumerate(shown)}
    raw = renumber_markers(raw, lambda n: position.get(n, len(shown) + 1))  # [1, 2] and [2-3] too
    cfg = parts.settings.verify
    if parts.settings.prompts.design(backend) == "lead":  # a lead model's sentence: the lead's bar (engine._lead_checked)
        cfg = support.at_lead_bar(cfg, parts.settings.prompts.lead_support)
    result = Verifier(sources, parts.cache, parts.idf(), cfg).verify("" if "NOT IN SOURCES" in raw.upper() else raw)
    kept = []
    for s in result.sentences:
        if s.supported and s.citations:
            s.citations = [shown[result.order[c - 1]] + 1 for c in s.citations]  # back to the list's numbers
            kept.append(s)
    seconds = time.perf_counter() - t
    if not kept:
        answer.fallback_reason = SUMMARY_FAILED.format(backend=backend)
        return answer, seconds
    for i, spans in result.evidence.items():
        c = answer.citations[shown[i]]
        c.evidence = sorted({e.start: e for e in c.evidence + spans}.values(), key=lambda e: e.start)
    summary = " ".join(s.text + "".join(f"[{n}]" for n in s.citations) for s in kept)
    answer.text, answer.sentences = f"{summary}\n\n{answer.text}", kept + answer.sentences
    return answer, seconds


def _shown(parts: Parts, backend: str, answer: Answer) -> list[int]:
    """The citations (0-based) whose items the model is shown: the first ``prompts.summary_items``
    cited items for a "lead" backend, ``collection.overview_max`` for the others."""
    cfg = parts.settings
    k = cfg.prompts.summary_items if cfg.prompts.design(backend) == "lead" else cfg.collection.overview_max
    shown = [i.n - 1 for i in answer.items if i.cited and 0 < i.n <= len(answer.citations)][:k]
    return shown or list(range(len(answer.citations)))


def _writes_summary(parts: Parts, backend: str, answer: Answer) -> bool:
    """Whether the backend writes a synthesis for this shape: every shape for the "write" backends, a
    "lead" backend only ``settings.prompts.summary_shapes`` (not a comparison: see that setting)."""
    cfg = parts.settings.prompts
    return cfg.design(backend) != "lead" or answer.shape in cfg.summary_shapes


def _summary_reply(parts: Parts, backend: str, answer: Answer, model: Any, k: int) -> str:
    """The model's synthesis. A "lead" backend (the local default) writes ONE sentence in the
    lead's frame, from the first few items clipped (``prompts.summary_messages``: its prompt head is
    cached since warm-up), stopped once that sentence is complete: the full prompt (up to 8 items,
    whole sentences) and a 300-token reply took p50 33.7 s on the local model (docs/local-model.md,
    "fewer tokens per question"). Other backends get every shown item whole, by shape (prompts/answer_list.txt,
    answer_compare.txt, answer_overview.txt)."""
    from assistant.compose.prompts import first_cited_sentence, summary_messages
    from assistant.language.prompt_texts import render

    cfg, settings = parts.settings.prompts, parts.settings
    cited = [i for i in answer.items if i.cited][:k]  # the items of _shown, in order
    if cfg.design(backend) != "lead":
        blocks = "\n".join(render("source_block", n=str(i.n), label=i.label, evidence=f"{i.text} {i.reports}".strip())
                           for i in cited)
        messages = [{"role": "user", "content": render(PROMPTS[answer.shape], question=answer.question, sources=blocks)}]
        return model.complete(messages, max_tokens=settings.max_answer_tokens, temperature=settings.temperature)
    text = ""
    for delta in model.stream(summary_messages(answer.shape, answer.question, cited, cfg),
                              max_tokens=cfg.summary_tokens, temperature=settings.temperature):
        text += delta
        if (done := first_cited_sentence(text)) is not None:
            return done
    return text.strip()
