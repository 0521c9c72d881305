"""The learned support check: whether a cited abstract states a claim, from labelled claims.

Word overlap and cosine say what a claim talks about, the attribution rules who it is said of;
neither sees a neighbouring abstract's finding written in the cited one's words, a comparison or
a direction the abstract does not state, or a detail it lacks. This check reads, for a claim and
one cited source among the answer's sources, the features below and gives the probability that
the source states the claim (a logistic model over standardised features; weights fitted by
grouped cross-validation on evals/datasets/claims_*.jsonl by ``python -m evals.fit support`` and
shipped as ``assistant/models/support.json``, read here with numpy).

Features (``FEATURES``): the MiniLM cosines of the claim's best sentences in the cited abstract
(top-1, top-2, mean of the top 3) and the verifier's support score; IDF-weighted containment of
the claim's content terms in its best sentence, its best two, and the whole abstract, and the
IDF mass of its terms the abstract lacks; its names and numbers the abstract (or its best
sentences) lacks; comparatives, direction, negation and universal words (``assistant.language.support_words``) the
claim uses and the best sentences do not, and a direction word whose opposite they use instead;
the comparison's object terms in the abstract; what the other sources shown with it share (their
best cosine and containment, the cited-minus-other margins, and the claim's terms, names and
numbers the cited abstract lacks and another source holds: a claim a neighbour states is likely
misattributed); the share of the claim's neighbouring term pairs found in order in its best
sentences and in the abstract; whether it quotes a sentence of the cited abstract; the verifier's
rule families (``attribution``: an unmentioned name, a number, a reversed or substituted
relation; below the support bar); and the elementwise product of the claim's vector with its best
sentence's (``product`` models only).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from assistant.evidence.scoring import coverage, terms
from assistant.language.support_words import (
    COMPARATIVE,
    DIRECTION,
    HEDGE,
    NEGATION,
    OPPOSITE,
    UNIVERSAL,
)
from assistant.settings import VerifySettings
from assistant.verify import attribution, support_ce

MODEL_PATH = Path(__file__).resolve().parents[1] / "models" / "support.json"

FEATURES = (
    "cos1", "cos2", "cos3_mean", "score1", "cov_best", "cov_best2", "cov_abstract", "missing_mass",
    "n_terms", "names", "names_missing", "names_not_best", "numbers", "numbers_missing", "numbers_not_best",
    "comparative", "comparative_missing", "compared_cov", "direction_missing", "negation_missing",
    "universal_missing", "hedge_dropped", "other_cos", "other_cov", "margin_cos", "margin_cov",
    "margin_score", "verbatim", "rule_unmentioned", "rule_numbers", "rule_relation", "rule_bar",
    "missing_best_mass", "missing_max_idf", "missing_in_other", "names_in_other", "numbers_in_other",
    "pairs_best", "pairs_abstract", "comparative_abstract_missing", "direction_reversed", "length_ratio",
)
RULES = ("rule_unmentioned", "rule_numbers", "rule_relation")


@dataclass
class Judged:
    """What the verifier computed for a claim against the sources of one answer."""

    claim: str
    vec: np.ndarray
    ranked: dict[int, list[tuple[float, int]]]  # per source: (support score, sentence index), best first
    bar: float  # the support score a source needs (threshold, or within margin of the best)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z][a-z-]*", text.lower()))


def features(v: Any, j: Judged, i: int, ce: bool = False) -> np.ndarray:
    """The feature vector (``FEATURES`` order, with ``ce`` the cross-encoder's logit, then the
    product part) of source ``i`` for the claim; ``v``: the Verifier (its sources' spans, terms
    and vectors, and its IDF)."""
    src = v.sources[i]
    claim = j.claim
    ct = terms(claim)
    ranked = j.ranked[i]
    dense = np.sort(src.vectors @ j.vec)[::-1] if len(src.sentences) else np.zeros(1, np.float32)
    top = [k for _, k in ranked[:2]]
    texts = [src.text[a:b] for a, b in (src.sentences[k] for k in top)]
    all_texts = [src.text[a:b] for a, b in src.sentences]
    best_terms = src.terms[top[0]] if top else set()
    best2 = set().union(*(src.terms[k] for k in top)) if top else set()
    abstract = _abstract_terms(v, i)
    idf = v.idf
    uniq = list(dict.fromkeys(ct))
    mass = sum(idf(t) for t in uniq) or 1.0
    names = attribution.claim_names(claim)
    unmentioned = attribution.unmentioned(claim, src.text) if names else []
    nums = [x for x, _, _ in attribution.number_mentions(claim)]
    abs_nums = {x for x, _, _ in attribution.number_mentions(src.text)}
    best_nums = {x for t in texts for x, _, _ in attribution.number_mentions(t)}
    cw, bw, aw = _words(claim), _words(" ".join(texts)), _words(src.text)
    comp = bool(COMPARATIVE.search(claim))
    sides = attribution.sides(claim) if comp else None
    others = [k for k in j.ranked if k != i and j.ranked[k]]
    other_cos = max((float(np.max(v.sources[k].vectors @ j.vec)) for k in others if len(v.sources[k].sentences)),
                    default=0.0)
    other_cov = max((coverage(ct, st, idf) for k in others for st in v.sources[k].terms), default=0.0)
    other_score = max((j.ranked[k][0][0] for k in others), default=0.0)
    score1 = ranked[0][0] if ranked else 0.0
    why_numbers = attribution.numbers(claim, all_texts) if nums else None
    relation = bool(texts) and not unmentioned and why_numbers is None and all(
        attribution.flipped(claim, t) or attribution.substituted(claim, t) for t in texts)
    verbatim = any(" ".join(claim.split()).rstrip(".") in " ".join(t.split()) for t in all_texts)
    absent = [t for t in uniq if t not in abstract]
    elsewhere = set().union(*(_abstract_terms(v, k) for k in others)) if others else set()
    other_texts = [v.sources[k].text for k in others]
    missing_nums = [n for n in nums if n not in abs_nums]
    other_nums = {x for t in other_texts for x, _, _ in attribution.number_mentions(t)}
    best_words = [w for t in texts for w in terms(t)]
    reversed_ = sum(1 for w in cw if w in OPPOSITE and OPPOSITE[w] & bw and w not in bw)
    x = [
        float(dense[0]), float(dense[1] if len(dense) > 1 else dense[0]), float(np.mean(dense[:3])), score1,
        coverage(ct, best_terms, idf), coverage(ct, best2, idf), coverage(ct, abstract, idf),
        sum(idf(t) for t in uniq if t not in abstract) / mass, float(np.log1p(len(uniq))),
        float(bool(names)), len(unmentioned) / max(len(names), 1),
        sum(not any(attribution.occurs(n, t) for t in texts) for n in names) / max(len(names), 1),
        float(bool(nums)), sum(n not in abs_nums for n in nums) / max(len(nums), 1),
        sum(n not in best_nums for n in nums) / max(len(nums), 1),
        float(comp), float(comp and not COMPARATIVE.search(" ".join(texts))),
        coverage(terms(sides.compared), abstract, idf) if sides else 1.0,
        float(len((cw & DIRECTION) - bw)), float(len((cw & NEGATION) - bw) + len((bw & NEGATION) - cw)),
        float(len((cw & UNIVERSAL) - aw)), float(bool(bw & HEDGE) and not (cw & HEDGE)),
        other_cos, other_cov, float(dense[0]) - other_cos, coverage(ct, best_terms, idf) - other_cov,
        score1 - other_score, float(verbatim),
        float(bool(unmentioned)), float(why_numbers is not None), float(relation), float(score1 < j.bar),
        sum(idf(t) for t in uniq if t not in best2) / mass, max((idf(t) for t in absent), default=0.0),
        sum(idf(t) for t in absent if t in elsewhere) / mass,
        sum(any(attribution.occurs(n, t) for t in other_texts) for n in unmentioned) / max(len(names), 1),
        sum(n in other_nums for n in missing_nums) / max(len(nums), 1),
        _pair_share(ct, _pairs(best_words)), _pair_share(ct, _abstract_pairs(v, i)),
        float(comp and not COMPARATIVE.search(src.text)), float(reversed_),
        len(uniq) / max(len(set(best_words)), 1),
    ]
    if ce:
        x.append(_ce_logit(v, j, i))
    best_vec = src.vectors[top[0]] if top else np.zeros_like(j.vec)
    return np.concatenate([np.asarray(x, np.float32), (j.vec * best_vec).astype(np.float32)])


def _ce_logit(v: Any, j: Judged, i: int) -> float:
    model = support_ce.load()
    if model is None:
        raise FileNotFoundError(f"{support_ce.MODEL_PATH} is missing: the support model reads it (make train)")
    p = float(np.clip(model.probs([(j.claim, evidence(v, j, i))])[0], 1e-6, 1 - 1e-6))
    return float(np.log(p / (1 - p)))


def evidence(v: Any, j: Judged, i: int, n: int = 3) -> str:
    """What the cross-encoder reads of source ``i`` for the claim: its ``n`` best sentences for it
    (``j.ranked``), in the abstract's order."""
    src = v.sources[i]
    best = sorted(k for _, k in j.ranked.get(i, [])[:n])
    return " ".join(src.text[a:b].strip() for a, b in (src.sentences[k] for k in best))


def _pairs(words: list[str]) -> set[tuple[str, str]]:
    return set(zip(words, words[1:], strict=False))


def _pair_share(claim_terms: list[str], pairs: set[tuple[str, str]]) -> float:
    """The share of the claim's neighbouring term pairs (in order) that ``pairs`` holds."""
    own = _pairs(claim_terms)
    return len(own & pairs) / len(own) if own else 1.0


def _abstract_pairs(v: Any, i: int) -> set[tuple[str, str]]:
    memo = v.__dict__.setdefault("_abstract_pairs", {})
    if i not in memo:
        src = v.sources[i]
        memo[i] = set().union(*(_pairs(terms(src.text[a:b])) for a, b in src.sentences)) if src.sentences else set()
    return memo[i]


def _abstract_terms(v: Any, i: int) -> set[str]:
    memo = v.__dict__.setdefault("_abstract_terms", {})
    if i not in memo:
        memo[i] = set().union(*v.sources[i].terms) if v.sources[i].terms else set()
    return memo[i]


class SupportModel:
    """Logistic weights over standardised features: P(the cited source states the claim)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.features = list(spec["features"])
        self.product = bool(spec.get("product", False))
        self.mean = np.asarray(spec["mean"], np.float32)
        self.scale = np.asarray(spec["scale"], np.float32)
        self.weights = np.asarray(spec["weights"], np.float32)
        self.bias = float(spec["bias"])
        self.threshold = float(spec["threshold"])
        # the bar of a "lead" sentence (settings.prompts.lead_support): evals/support_fit.py lead_threshold
        self.lead_threshold = float(spec.get("lead_threshold", self.threshold))
        self.ce = "ce" in self.features
        self._cols = [len(FEATURES) if f == "ce" else FEATURES.index(f) for f in self.features]

    def select(self, x: np.ndarray) -> np.ndarray:
        """The model's columns of full feature rows (``features`` output, with ``ce`` when it reads it)."""
        x = np.atleast_2d(x)
        parts = [x[:, self._cols]] + ([x[:, len(FEATURES) + self.ce:]] if self.product else [])
        return np.concatenate(parts, axis=1)

    def prob(self, x: np.ndarray) -> np.ndarray:
        z = (self.select(x) - self.mean) / self.scale
        return 1.0 / (1.0 + np.exp(-(z @ self.weights + self.bias)))

    def passes(self, x: np.ndarray, bar: float | None = None) -> tuple[bool, float]:
        p = float(self.prob(x)[0])
        return p >= (self.threshold if bar is None else bar), p


@lru_cache(maxsize=4)
def load(path: str = str(MODEL_PATH)) -> SupportModel | None:
    """The shipped model, or None when there is none (the check is then off)."""
    p = Path(path)
    return SupportModel(json.loads(p.read_text(encoding="utf-8"))) if p.exists() else None


def lead_bar(override: float | None = None) -> float | None:
    """The bar of a sentence a "lead" model writes (its lead, or its synthesis above a list):
    ``override`` (settings.prompts.lead_support), else the shipped ``lead_threshold``; None (the
    claims' own threshold) when no model is shipped."""
    if override is not None:
        return override
    model = load()
    return model.lead_threshold if model is not None else None


def at_lead_bar(cfg: VerifySettings, override: float | None = None) -> VerifySettings:
    """``cfg`` (VerifySettings) asking the lead's bar (``lead_bar``) of the learned check."""
    return cfg.model_copy(update={"learned_bar": lead_bar(override)})


def why_not(v: Any, judged: Judged, i: int) -> str | None:
    """Why the learned check finds that source ``i`` does not state the claim (None: it does, or
    no model is shipped)."""
    model = load()
    if model is None or not judged.ranked.get(i):
        return None
    bar = v.cfg.learned_bar
    ok, p = model.passes(features(v, judged, i, ce=model.ce), bar)
    need = model.threshold if bar is None else bar
    return None if ok else f"the learned support check finds it not stated (p={p:.2f}, needs {need:.2f})"
