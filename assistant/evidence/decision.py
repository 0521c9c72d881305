"""Whether and how to answer: ``answer``, ``caveat`` (answer, saying what no source states) or
``refuse`` (no answer: the collection does not cover the question).

Two signals, both argued from what a question is, not from any question set:

- **Relevance**: how well the best abstract matches the question at all — its best MiniLM cosine
  (whole-abstract or chunk vector), the IDF-weighted share of the question's terms it holds, and
  its best sentence's cosine and term share. A logistic score of these four, fitted by
  ``python -m evals.fit decision`` on leave-one-out data: each answerable question asked once
  with its gold abstract in the index (answerable) and once with it removed (the collection no
  longer answers it). The refusal threshold is chosen by cross-validation to keep refusals of
  answerable questions rare (a refusal of a plainly answerable question is the worst outcome).
- **Answer evidence**: whether a sentence of the best abstract answers rather than the abstract
  merely sharing the topic. Abstracts are written as context, then contribution, then results, so
  the question's terms gather in the one sentence that answers it; when an abstract is only on the
  topic (the answering work is missing), its matches scatter over several sentences and its best
  sentence does not stand out from the next abstract's. ``sentence_share``: the best sentence's
  term share over the whole abstract's; ``sentence_margin``: the best sentence's score minus the
  best sentence of the other abstracts read. Measured by the fit beside the shipped features,
  they did not separate better (``CANDIDATE_FEATURES``), so the decision does not use them.
- **Grounding** (``assistant.language.names``): names and numbers of the question that no retrieved
  abstract mentions. The topic may be covered, but not the thing asked about: the answer then
  says so first ("None of the abstracts mentions FlashAttention-3.") and gives what the closest
  sources do state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from assistant.evidence.scoring import coverage

FEATURES = ("dense", "lexical", "sentence_dense", "sentence_lexical", "dense_margin", "read_lexical",
            "agreement", "bm25_margin")  # the last two: of SEPARATION_FEATURES
# Computed and measured beside (evals/fits/decision.json "with_answer_evidence"), not used: on the
# same folds they leave the held-out separation of answerable from leave-one-out / unanswerable rows
# where it was (AUC 0.7726 +- 0.0097 with them, 0.7719 +- 0.0131 without), so they do not ship.
CANDIDATE_FEATURES = ("sentence_share", "sentence_margin")
# Telling "the answering abstract is absent, a neighbour on the topic is there" (leave-one-out,
# unanswerable) from "it is there, worded differently" (paraphrases):
# ``agreement``: the share of the retrieval signals (chunk, abstract, BM25) that rank the top abstract
# first: an abstract that answers tends to win under every signal, while the neighbours of a missing
# one split them. ``bm25_margin``: how far the best BM25 abstract stands out from the second, relative
# to its score (a clear lexical winner vs a field). ``rare_top``: the IDF-weighted share of the
# question's two rarest words (of those the collection holds) that the abstract holds: the rarest
# words of a question name what it is about, which a neighbour lacks while its topic words match.
# Measured by the same CV (evals/fits/decision.json "candidates" and the main fit): with agreement
# and bm25_margin the held-out AUC is 0.788 vs 0.776 +- 0.016 without, higher in each of the 5 folds
# (+0.012 +- 0.006); at the same policy answerable hedged 0.036 vs 0.043, leave-one-out and
# unanswerable refused-or-caveated unchanged. rare_top is not used: beside the others its fitted
# weight is negative (more of the rarest words held, less relevance), against its own argument;
# its gain (AUC 0.790 with all three) is the logistic correcting ``lexical``, not the idea.
SEPARATION_FEATURES = ("agreement", "bm25_margin", "rare_top")
RARE_TERMS = 2  # the question's rarest words for rare_top; sanity bound: a question names one or two specific things


@dataclass
class Decision:
    outcome: str  # "answer", "caveat" or "refuse"
    relevance: float  # P(the collection answers the question), from the fitted logistic score
    missing: list[str] = field(default_factory=list)  # names/numbers no source mentions
    features: dict[str, float] = field(default_factory=dict)


def _dense(doc_id: str, lists: dict[str, list[tuple[str, float]]]) -> float:
    """The abstract's best cosine over the chunk and whole-abstract lists."""
    dense = []
    for name in ("chunk", "abstract"):
        ranked = lists.get(name) or []
        score = next((s for d, s in ranked if d == doc_id), None)
        if score is None and ranked:  # not in that list's candidates: at most its last score
            score = ranked[-1][1]
        if score is not None:
            dense.append(score)
    return max(dense, default=0.0)


def sentence_value(s: Any) -> float:
    """A sentence's evidence score for the decision: term share and cosine in equal shares (sanity:
    neither signal is privileged here; the logistic weights do the weighing)."""
    return 0.5 * s.lexical + 0.5 * s.dense


def features(hit_ids: list[str], lists: dict[str, list[tuple[str, float]]], top_lexical: float,
             top_sentences: list[Any], read_lexical: float = 0.0,
             other_sentences: list[Any] | None = None, visible: dict[str, list[tuple[str, float]]] | None = None,
             rare_top: float = 0.0) -> dict[str, float]:
    """The relevance features of the top abstract (see the module docstring). ``dense_margin``:
    how far the top abstract stands out from the next one (an answering abstract usually does;
    when the answer is missing, several neighbours tie). ``read_lexical``: the IDF-weighted share
    of the question's terms found in any abstract read for evidence (a detail asked about that
    none of them mentions lowers it). ``other_sentences``: the sentences of the other abstracts
    read, for ``sentence_margin`` (none: the margin is the best sentence's own score). ``visible``:
    the signals' lists as the collection ranks them (leave-one-out: without the excluded works), for
    ``agreement`` and ``bm25_margin``; ``rare_top``: see ``rare_coverage``."""
    top = _dense(hit_ids[0], lists)
    second = _dense(hit_ids[1], lists) if len(hit_ids) > 1 else 0.0
    best_lex = max((s.lexical for s in top_sentences), default=0.0)
    best = max((sentence_value(s) for s in top_sentences), default=0.0)
    rival = max((sentence_value(s) for s in other_sentences or []), default=0.0)
    return {
        "dense": top,
        "dense_margin": top - second,
        "read_lexical": read_lexical,
        "lexical": top_lexical,
        "sentence_dense": max((s.dense for s in top_sentences), default=0.0),
        "sentence_lexical": best_lex,
        "sentence_share": best_lex / top_lexical if top_lexical > 0 else 0.0,
        "sentence_margin": best - rival,
        **separation(hit_ids[0], visible if visible is not None else lists, rare_top),
    }


def separation(top_id: str, visible: dict[str, list[tuple[str, float]]], rare_top: float) -> dict[str, float]:
    """The ``SEPARATION_FEATURES`` of the abstract ``top_id`` (see their comment)."""
    firsts = [r[0][0] for r in visible.values() if r]
    bm25 = visible.get("bm25") or []
    margin = (bm25[0][1] - bm25[1][1]) / bm25[0][1] if len(bm25) > 1 and bm25[0][1] > 0 else float(bool(bm25))
    return {"agreement": sum(f == top_id for f in firsts) / len(firsts) if firsts else 0.0,
            "bm25_margin": margin, "rare_top": rare_top}


def rare_coverage(q_terms: list[str], doc_terms: list[set[str]], idf: Any) -> list[float]:
    """For each abstract read, the IDF-weighted share of the question's ``RARE_TERMS`` rarest words
    that it holds, among the words the collection holds (a word no abstract uses is the asker's own
    wording, as in ``extractive.unstated``). Leave-one-out: ``idf`` is the collection's without the
    excluded works (``HybridRetriever.idf(exclude)``), so a word only they held is not held."""
    n = idf.n + 1
    held = [t for t in dict.fromkeys(q_terms) if round(n * math.exp(-idf(t)) - 0.5) >= 1]
    rarest = sorted(held, key=lambda t: -idf(t))[:RARE_TERMS]
    return [coverage(rarest, d, idf) if rarest else 0.0 for d in doc_terms]


def visible_lists(lists: dict[str, list[tuple[str, float]]], exclude: set[str] | None,
                  docs: Any) -> dict[str, list[tuple[str, float]]]:
    """The signals' lists without the excluded works; ``docs``: a callable giving every stored
    abstract (only called to exclude)."""
    if not exclude:
        return lists
    every = docs()
    return {s: [(d, v) for d, v in r if d in every and every[d].work_id not in exclude] for s, r in lists.items()}


def features_of(j: int, hit_ids: list[str], lists: dict[str, list[tuple[str, float]]], lexical: float,
                evidence: Any, read_lexical: float, visible: dict[str, list[tuple[str, float]]] | None = None,
                rare: list[float] | None = None) -> dict[str, float]:
    """The features of abstract ``j`` as if it were the one found first (``j = 0``: the decision's
    own features): its vectors against the best other abstract, its sentences against the others'."""
    order = [hit_ids[j], *(h for i, h in enumerate(hit_ids) if i != j)]
    return features(order, lists, lexical, evidence.of_doc(j), read_lexical,
                    [s for s in evidence.sentences if s.doc_index != j], visible, rare[j] if rare else 0.0)


def relevance(feats: dict[str, float], weights: dict[str, float], bias: float) -> float:
    z = bias + sum(weights.get(k, 0.0) * feats.get(k, 0.0) for k in FEATURES)
    return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))


def outcome(p: float, missing: bool, refuse_below: float, caveat_below: float,
            missing_below: float | None = None) -> str:
    """The rule, in one place for the product and the fitting code (evals/fit.py).
    ``missing_below``: the match a question naming something no source mentions needs not to be
    refused (default ``caveat_below``). It is the pooled hedging quantile, not the per-group one:
    bounding how often answerable questions are hedged says nothing about whether a source holds
    the topic of a question whose named thing is absent (an off-topic question naming a country
    scores near the per-group threshold)."""
    if p < refuse_below or (missing and p < (caveat_below if missing_below is None else missing_below)):
        # a caveat says "the sources describe X but none mentions Y"; with the named Y absent and
        # the match too weak to hold X either, there is nothing the sources describe: refuse
        return "refuse"
    return "caveat" if missing or p < caveat_below else "answer"


def decide(feats: dict[str, float], missing: list[str], cfg: Any) -> Decision:
    """``cfg`` is ``settings.decision`` (weights, bias, thresholds)."""
    p = relevance(feats, cfg.weights(), cfg.bias)
    return Decision(outcome(p, bool(missing), cfg.refuse_below, cfg.caveat_below, cfg.missing_refuse_below), p, missing, feats)
