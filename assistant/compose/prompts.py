"""Prompts: the models' requests built from the templates (``assistant.language.prompt_texts``), token
counting (tiktoken), the packing of evidence sentences into the model's prompt budget, and reading the replies."""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any

from assistant.language.patterns import INSTRUCTION_LIKE
from assistant.language.prompt_texts import DEFAULTS as _DEFAULTS
from assistant.language.prompt_texts import load_prompt, render, system_prompt
from assistant.settings import PromptsSection

if TYPE_CHECKING:
    from assistant.evidence.scoring import Evidence, Sentence



@cache
def _tokenizer() -> Any:
    """llama-index's tokenizer (tiktoken cl100k_base from the cache llama-index ships: no download)."""
    from llama_index.core.utils import get_tokenizer

    return get_tokenizer()


def count_tokens(text: str) -> int:
    return len(_tokenizer()(text))


def as_data(text: str) -> str:
    """Retrieved text made inert for the prompt: no citation-like markers, no source delimiters."""
    text = re.sub(r"\[(\s*\d+(?:\s*[,;–-]\s*\d+)*\s*)\]", r"(\1)", text)
    text = re.sub(r"</?\s*sources?\b[^>]*>", " ", text, flags=re.I)
    return " ".join(text.split())


def prompt_budget(model: Any, max_answer_tokens: int, system: str, cfg: PromptsSection = _DEFAULTS) -> int:
    """Tokens for the user message (sources and question): the backend's budget, within what the
    model's context window leaves after the system prompt and the answer."""
    window = int(getattr(model, "context_window", 4096)) - max_answer_tokens - 64 - count_tokens(system)
    return max(200, min(window, cfg.budget(getattr(model, "name", ""))))


def build_messages(model: Any, evidence: Evidence, labels: list[str], max_answer_tokens: int,
                   cfg: PromptsSection = _DEFAULTS) -> tuple[list[dict[str, str]], list[int]]:
    """System and user messages holding the best evidence sentences of the relevant sources, packed
    into the prompt budget; also the hit index of each source number shown ([1] -> shown[0])."""
    system = system_prompt(getattr(model, "name", ""), cfg)
    question = as_data(evidence.question)
    budget = prompt_budget(model, max_answer_tokens, system, cfg)
    budget -= count_tokens(render("answer_user", sources="", question=question))
    best: dict[int, float] = {}
    for s in evidence.sentences:
        best[s.doc_index] = max(best.get(s.doc_index, 0.0), s.lexical + s.dense)
    top = max(best.values(), default=0.0)
    blocks: list[str] = []
    shown: list[int] = []
    for i in sorted(best, key=lambda i: -best[i]):
        if best[i] < top * cfg.source_floor:
            break
        ranked = sorted((s for s in evidence.of_doc(i) if not INSTRUCTION_LIKE.search(s.text)),
                        key=lambda s: -(s.lexical + s.dense))
        if not ranked:
            continue
        for n_sent in range(min(cfg.evidence_per_source, len(ranked)), 0, -1):
            chosen = sorted(ranked[:n_sent], key=lambda s: s.start)
            block = render("source_block", n=str(len(shown) + 1), label=as_data(labels[i]),
                           evidence=" ".join(as_data(s.text) for s in chosen))
            cost = count_tokens(block) + 1
            if cost <= budget:
                budget -= cost
                blocks.append(block)
                shown.append(i)
                break
        else:
            break
    user = render("answer_user", sources="\n".join(blocks), question=question)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}], shown


def condense_messages(question: str, history: list[dict[str, str]], cfg: PromptsSection = _DEFAULTS) -> list[dict[str, str]]:
    """The request that rewrites a follow-up as a standalone question."""
    turns = [m for m in history if m.get("role") in ("user", "assistant") and m.get("content")][-2 * cfg.history_turns :]
    lines = [f"{m['role'].capitalize()}: {' '.join(m['content'].split())[:400]}" for m in turns]
    return [{"role": "user", "content": render("condense_question", history="\n".join(lines), question=question)}]


# --- the numbered-sentence designs ("lead", "pick"; settings.prompts.designs) ---------------------
def numbered_messages(design: str, question: str, sentences: list[Sentence], labels: list[str],
                      cfg: PromptsSection = _DEFAULTS) -> list[dict[str, str]]:
    """The request of the "lead" / "pick" designs: ``sentences`` numbered from 1, under the label
    of the abstract each comes from (so the model can name the work instead of "we")."""
    lines: list[str] = []
    last = -1
    for n, s in enumerate(sentences, start=1):
        if s.doc_index != last:
            lines.append(f"Paper: {as_data(labels[s.doc_index])}")
            last = s.doc_index
        lines.append(f"[{n}] {as_data(s.text)}")
    user = render(f"answer_user_{design}", sentences="\n".join(lines), question=as_data(question))
    return [{"role": "system", "content": load_prompt(f"answer_system_{design}")}, {"role": "user", "content": user}]


def _numbers(text: str, k: int) -> list[int]:
    """The distinct numbers 1..k in ``text``, in the order written (0-based)."""
    out: list[int] = []
    for m in re.findall(r"\d+", text):
        if 1 <= int(m) <= k and int(m) - 1 not in out:
            out.append(int(m) - 1)
    return out


def picked(raw: str, sentences: list[Sentence]) -> list[Sentence]:
    """The sentences a "pick" answer names, in its order; empty for "none" or no valid number."""
    if "none" in raw.lower() or "not in sources" in raw.lower():
        return []
    return [sentences[i] for i in _numbers(raw, len(sentences))]


def lead_draft(raw: str, sentences: list[Sentence]) -> str:
    """A "lead" answer's sentence with its [n] (a numbered sentence) turned into the source number
    of that sentence's abstract ([doc_index + 1], as ``extractive.draft`` writes); the verifier
    re-points it when another source supports it better."""
    marks = _numbers(" ".join(re.findall(r"\[([\d\s,]+)\]", raw)), len(sentences))
    text = re.sub(r"\s*\[[^\]]*\]", "", raw).strip()
    text += "" if text.endswith((".", "!", "?")) else "."  # a full stop keeps it apart from the quotes
    docs = list(dict.fromkeys(sentences[i].doc_index for i in marks))
    return text + (" " + "".join(f"[{d + 1}]" for d in docs) if docs else "")


def lead_preview(text: str) -> str:
    """What of a "lead" answer streaming in may be shown yet: nothing while it could still be the
    decline, then the sentence up to its citation marker."""
    head = text.lstrip()
    if "NOT IN SOURCES".startswith(head[:14]):
        return ""
    return head.split("[", 1)[0].rstrip()


# --- list / comparison / overview synthesis of a "lead" backend (assistant/collection/answer.py) ---------
def clipped(text: str, words: int) -> str:
    """``text`` cut to its first ``words`` words (an ellipsis marks the cut)."""
    parts = text.split()
    return " ".join(parts) if len(parts) <= words else " ".join(parts[:words]) + " …"


def summary_messages(shape: str, question: str, items: list[Any], cfg: PromptsSection = _DEFAULTS) -> list[dict[str, str]]:
    """The synthesis request of a list / comparison / overview for a backend answering with the
    "lead" design, in the lead's frame: its system prompt and the head of its user turn (the bytes
    the warm-up cached), then the first ``cfg.summary_items`` items, each numbered by its number in
    the list under its label, its sentence (and a comparison's reported result) clipped to
    ``cfg.summary_words`` words; the shape's closing instruction (prompts/answer_<shape>_lead.txt)
    comes last, after the question, as the lead's does."""
    lines: list[str] = []
    for item in items[: cfg.summary_items]:
        said = [clipped(as_data(t), cfg.summary_words) for t in (item.text, item.reports) if t]
        lines += [f"Paper: {as_data(item.label)}", f"[{item.n}] {' '.join(said)}"]
    user = render(f"answer_{shape}_lead", sentences="\n".join(lines), question=as_data(question))
    return [{"role": "system", "content": load_prompt("answer_system_lead")}, {"role": "user", "content": user}]


_SENTENCE_DONE = re.compile(r"(\]\s*[.!?]|[.!?]\s*(?:\[\d+\])+)(?=\s+\S)|(?<=\S)\s*\n")


def first_cited_sentence(text: str) -> str | None:
    """The synthesis's first sentence once it is complete (it ends in a full stop with its citation
    markers, and more text follows, or a line ends); None while it is still being written."""
    if "[" not in text:
        return None
    m = _SENTENCE_DONE.search(text)
    return text[: m.end(1) if m.group(1) else m.start()].strip() if m else None
