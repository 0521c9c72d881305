"""List membership judged by an LLM backend (issue 21, helper K, session 14): for a list question
whose topic no abstract writes (the meaning branch of ``assistant.collection.answer``), the model is
shown the topic and the top ``n`` candidates by the ranking the list goes by (each as its
sentence closest in meaning to the topic, clipped), and replies under a GBNF grammar with
a yes / no verdict per candidate, in order (prompts/list_membership_system.txt,
list_membership_user.txt; the candidates' text is data, never instructions).

Not used by the engine: measured by ``python -m evals.lists_model`` on the 115 by-meaning
questions (docs/measurements.md, "Session 14, helper K"), neither this listwise design nor the
"point" one (one yes / no request per candidate) separates the gold candidates from the others
(AUC per question 0.44 / 0.48, the feedback cosine's 0.62), no rule with the model beats today's
beyond the CV spread without lowering the absent topics' said-none, and the request alone takes
p50 5.4 s near idle (225 prompt tokens read, 24 written), which would take the local list answer
past its 10 s budget."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from assistant.compose.prompts import as_data, clipped
from assistant.language.prompt_texts import load_prompt, render


def closest_sentence(engine: Any, topic_vec: np.ndarray, text: str) -> str:
    """The sentence of ``text`` whose vector (the engine's sentence cache) is closest to the topic's."""
    [(spans, vecs)] = engine.cache.get([text])
    if not spans:
        return text
    a, b = spans[int(np.argmax(vecs @ topic_vec))]
    return text[a:b]


# How abstracts state their own contribution in the first person (English academic register; the verbs
# of assistant.collection.answer's _GROUPS, "Methods and models proposed" and "Analyses and findings").
_CONTRIBUTION = re.compile(r"\bwe\s+(?:propose|introduce|present|develop|design|build|devise|show|find|prove|demonstrate|"
                           r"analy[sz]e|study|investigate|examine)\b", re.I)


def contribution_sentence(engine: Any, topic_vec: np.ndarray, text: str) -> str:
    """The abstract's first sentence stating its contribution in the first person ("we propose ..."),
    else its sentence closest to the topic (``closest_sentence``)."""
    [(spans, _)] = engine.cache.get([text])
    return next((text[a:b] for a, b in spans if _CONTRIBUTION.search(text[a:b])), None) or closest_sentence(engine, topic_vec, text)


def point_messages(topic: str, sentence: str, words: int) -> list[dict[str, str]]:
    """One paper's request (the "point" design): the topic, then its sentence clipped to ``words``;
    the system prompt and the topic are the same for every paper of a list (a cached prefix)."""
    user = render("list_membership_point_user", topic=as_data(topic), sentence=clipped(as_data(sentence), words))
    return [{"role": "system", "content": load_prompt("list_membership_point_system")}, {"role": "user", "content": user}]


POINT_GRAMMAR = 'root ::= "yes" | "no"'


def messages(topic: str, papers: list[str], words: int) -> list[dict[str, str]]:
    """The request: the topic, then each paper's sentence numbered from 1, clipped to ``words`` (a
    stored abstract's label is its first words or its acronym, not its title: left out)."""
    lines = [f"{i}. {clipped(as_data(sentence), words)}" for i, sentence in enumerate(papers, 1)]
    user = render("list_membership_user", topic=as_data(topic), papers="\n".join(lines))
    return [{"role": "system", "content": load_prompt("list_membership_system")}, {"role": "user", "content": user}]


def grammar(k: int) -> str:
    """One verdict per paper shown, in order: "1: yes" / "1: no", one a line. A free list of numbers
    ("2 5", or "none") was answered "1 2 3 4 5 6 7 8" (every paper, counted) on the first probes:
    a verdict written beside each number makes the model decide each paper."""
    lines = ' "\\n" '.join(f'"{i}: " v' for i in range(1, max(1, k) + 1))
    return f'root ::= {lines}\nv ::= "yes" | "no"'


_VERDICT = re.compile(r"(\d+)\s*[:.)-]?\s*(yes|no)\b", re.I)


def parse(reply: str, k: int) -> list[int] | None:
    """The 0-based positions the reply says yes to (in 1..k); [] when it says no to every one; None
    for a reply without a verdict (a model without the grammar may write prose)."""
    verdicts = {int(n) - 1: v.lower() == "yes" for n, v in _VERDICT.findall(reply) if 1 <= int(n) <= k}
    return [i for i in sorted(verdicts) if verdicts[i]] if verdicts else None


def judge(model: Any, topic: str, papers: list[str], words: int) -> tuple[str, list[int] | None]:
    """The model's raw reply and the positions it names (``parse``); a model that takes a grammar
    (``ChatModel.grammar``) answers under ``grammar``."""
    k = len(papers)
    extra = {"grammar": grammar(k)} if getattr(model, "grammar", False) else {}
    reply = "".join(model.stream(messages(topic, papers, words), max_tokens=5 * k + 2, temperature=0.0, **extra))
    return reply, parse(reply, k)


_YES, _NO = frozenset({"yes"}), frozenset({"no"})


def verdict_scores(logprobs: list[dict[str, Any]], k: int) -> list[float] | None:
    """Per paper, log P(yes) - log P(no) at its verdict token, from llama.cpp's ``top_logprobs``
    (the model's distribution before the grammar): a graded judgement where the verdicts are all
    "no" or all "yes". None when the reply holds fewer than ``k`` verdict tokens."""
    out = []
    for tok in logprobs:
        if tok.get("token", "").strip().lower() not in _YES | _NO:
            continue
        yes = [np.exp(t["logprob"]) for t in tok.get("top_logprobs", []) if t["token"].strip().lower() in _YES]
        no = [np.exp(t["logprob"]) for t in tok.get("top_logprobs", []) if t["token"].strip().lower() in _NO]
        out.append(float(np.log(sum(yes) + 1e-6) - np.log(sum(no) + 1e-6)))
    return out[:k] if len(out) >= k else None
