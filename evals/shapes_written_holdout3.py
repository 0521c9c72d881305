"""The third hold-out batch of question shapes (ids SR*, types ending "_holdout3"), written by hand by
helper Q (session 15, 2026-12-02, #21) from the bundled abstracts, before any change to the shape
detector for the three readings of #21 it examines, and never tuned on:

- single facts worded with list-looking words and superlatives ("Which optimizer works best for
  X?": a singular head and a singular verb ask for one thing);
- single facts about one publication named by a genre noun ("the survey on X", "the thesis", "the
  review of X");
- lists, overviews and a comparison in the same words, so that a rule for the facts is seen to
  leave them alone;
- two-turn sessions: a list question, then a degree follow-up on its members ("How much faster are
  they?": a follow-up on the list, ``follow_up`` true) or a fact follow-up ("What is the first one's
  speed-up?", a single fact, ``follow_up`` false).

Labels were decided from each question's language alone (see evals/shapes_written.py). Measured
once, before (on the commit before the fixes) and after them:

    python -m evals.shapes_written_holdout3 build     # -> datasets/shapes_written_holdout3.jsonl
    python -m evals.shapes_written_holdout3 measure   # shape confusion and follow-up reading on it
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from typing import Any

from evals.data import DATASETS_DIR

PATH = DATASETS_DIR / "shapes_written_holdout3.jsonl"
MADE = (
    "hand-written by helper Q (session 15, 2026-12-02, #21) from the bundled abstracts before any change to the "
    "shape detector for the readings it examines; labelled from language alone; hold-out, never tuned on"
)
OV, L, C, F = "overview", "list", "compare", "fact"
SINGLE: list[tuple[str, str, str]] = [
    # --- facts: a singular head with a superlative or a singular verb --------------------------
    (
        F,
        "fact_superlative",
        "Which activation function works best against catastrophic forgetting on Split-MNIST?",
    ),
    (F, "fact_superlative", "What positional encoding works best for length generalisation?"),
    (
        F,
        "fact_superlative",
        "Which optimizer works well for class-incremental learning with sparse activations?",
    ),
    (F, "fact_superlative", "What kind of attention works best for long malware sequences?"),
    (F, "fact_superlative", "Which sparsity level gives the largest decoding speedup?"),
    (F, "fact_superlative", "What is the fastest way to train minimal recurrent networks?"),
    (
        F,
        "fact_superlative",
        "Which embedding size works best for Matryoshka retrieval on ImageNet?",
    ),
    (F, "fact_superlative", "Which benchmark shows the biggest speed-up for FlashAttention?"),
    # --- facts: one publication named by a genre noun -------------------------------------------
    (
        F,
        "fact_one_work",
        "What methods are reviewed in the survey of Mamba models for medical imaging?",
    ),
    (F, "fact_one_work", "Which state space models are categorised in the SSM survey?"),
    (F, "fact_one_work", "What finetuning methods are introduced in the thesis?"),
    (
        F,
        "fact_one_work",
        "What are the main approaches to long-context extension covered by the review of long-context LLMs?",
    ),
    (F, "fact_one_work", "Summarise the survey on state space models for sequence modelling."),
    (F, "fact_one_work", "What does the review of recurrent neural networks say about LSTMs?"),
    (
        F,
        "fact_one_work",
        "What models are compared in the technical report on embedding models for RAG?",
    ),
    (F, "fact_one_work", "Give me an overview of the survey on visual autoregressive models."),
    (
        F,
        "fact_one_work",
        "What open problems does the survey on autoregressive vision models list?",
    ),
    (F, "fact_one_work", "Which generative models are discussed in this survey?"),
    (F, "fact_one_work", "What architectures are covered in the review?"),
    (
        F,
        "fact_one_work",
        "Which datasets were used in the study of vision transformers under few-shot tuning?",
    ),
    # --- lists, overviews, a comparison in the same words ---------------------------------------
    (L, "list", "Which papers report speed-ups from activation sparsity?"),
    (L, "list", "Are there any surveys on Mamba here?"),
    (L, "list", "What studies look at in-context learning in reinforcement learning?"),
    (L, "list", "Show me papers that replace softmax attention with a point-wise activation."),
    (L, "list", "Has anyone tried Mamba inside vision-language models?"),
    (L, "list", "List the papers on activation steering."),
    (OV, "overview", "What is known about compositional generalisation in transformers?"),
    (OV, "overview", "Give me an overview of activation sparsity for faster inference."),
    (OV, "overview", "Summarise the research on the theory of in-context learning."),
    (OV, "overview", "What approaches exist for extending the context window of LLMs?"),
    (C, "compare", "How does TabICL differ from TabPFN?"),
]
# (list question, (shape of the follow-up, its type, whether it is a follow-up on the list, the follow-up))
SESSIONS: list[tuple[str, tuple[str, str, bool, str]]] = [
    (
        "Which papers report faster training than Transformers?",
        (L, "followup_degree", True, "How much faster are they?"),
    ),
    (
        "What papers here use activation sparsity to speed up decoding?",
        (L, "followup_degree", True, "How big are their speedups?"),
    ),
    (
        "Which works propose linear-time alternatives to attention?",
        (L, "followup_degree", True, "How much memory do they save?"),
    ),
    (
        "Show me papers on compressing embeddings for retrieval.",
        (L, "followup_degree", True, "How much smaller are their embeddings?"),
    ),
    (
        "Which papers evaluate on the Long Range Arena?",
        (L, "followup_degree", True, "How well do they do on it?"),
    ),
    (
        "Are there papers on in-context learning for tabular data?",
        (L, "followup_degree", True, "By how much do they beat boosted trees?"),
    ),
    (
        "Which papers train transformers to do reinforcement learning in context?",
        (L, "followup_degree", True, "How large are the gains they report?"),
    ),
    (
        "Which papers study efficient attention for vision transformers?",
        (F, "followup_fact", False, "What is the first one's speed-up?"),
    ),
    (
        "Which papers apply Mamba to vision?",
        (F, "followup_fact", False, "What does the medical imaging survey cover?"),
    ),
    (
        "Which papers propose new activation functions?",
        (F, "followup_fact", False, "How does the Adaptive SwisH activation work?"),
    ),
]


def batch_rows(
    prefix: str,
    suffix: str,
    made: str,
    single: list[tuple[str, str, str]],
    sessions: list[tuple[str, tuple[str, str, bool, str]]],
) -> list[dict[str, Any]]:
    """A hand-written batch's rows: ``single`` questions, then each session's list question and its
    follow-up (``previous`` its list question's id), ids ``prefix`` + number, types ending ``suffix``."""

    def row(
        i: int, shape: str, kind: str, q: str, previous: str | None = None, follow_up: bool = False
    ) -> dict[str, Any]:
        return {
            "id": f"{prefix}{i:03d}",
            "question": q,
            "type": kind + suffix,
            "shape": shape,
            "split": "shapes_written",
            "gold_anchors": [],
            "key_points": [],
            "previous": previous,
            "follow_up": follow_up,
            "made": made,
        }

    out = [row(i, shape, kind, q) for i, (shape, kind, q) in enumerate(single, 1)]
    for first, (shape, kind, follow, q) in sessions:
        out.append(row(len(out) + 1, L, "list_session", first))
        out.append(row(len(out) + 1, shape, kind, q, previous=out[-1]["id"], follow_up=follow))
    return out


def fact_sessions(out: list[dict[str, Any]], openers: set[str], suffix: str) -> list[dict[str, Any]]:
    """A session opened by a fact question (one of ``openers``): its first row is no list."""
    for r in out:
        if r["question"] in openers:
            r["shape"], r["type"] = "fact", f"fact_session{suffix}"
    return out


def batch_main(path: Any, build: Any, measure: Any, doc: str | None, argv: list[str] | None = None) -> int:
    """A hand-written batch's command line: ``build`` writes ``path``, ``measure`` prints its table."""
    command = (argv if argv is not None else sys.argv[1:])[:1] or ["build"]
    if command == ["build"]:
        print(f"{path}: {len(build())} rows")
    elif command == ["measure"]:
        print(json.dumps(measure(), indent=1))
    else:
        print(doc)
        return 2
    return 0


def rows() -> list[dict[str, Any]]:
    return batch_rows("SR", "_holdout3", MADE, SINGLE, SESSIONS)


def build() -> list[dict[str, Any]]:
    from evals.shapes_written import build as checked_write

    return checked_write(PATH, rows())


def measure(batch: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Per type: the detected shapes, and for a follow-up whether it was read as one on the list (the
    previous question's detected shape is taken as the previous answer's, as ``shape_confusion`` does);
    ``batch``: another batch's rows (default: this one's)."""
    from assistant.question.shape import LIST, detect

    batch = rows() if batch is None else batch
    out: dict[str, Any] = defaultdict(lambda: {"shapes": Counter(), "right": 0, "n": 0})
    by_id = {r["id"]: r for r in batch}
    for r in batch:
        prev = by_id.get(r["previous"] or "")
        shape = detect(r["question"], prev is not None and detect(prev["question"]).kind == LIST)
        cell = out[r["type"]]
        cell["shapes"][shape.kind] += 1
        cell["n"] += 1
        cell["right"] += int(
            shape.kind == r["shape"] and (prev is None or shape.follow_up == r["follow_up"])
        )
    total = {"n": sum(c["n"] for c in out.values()), "right": sum(c["right"] for c in out.values())}
    return {**{t: {**c, "shapes": dict(c["shapes"])} for t, c in out.items()}, "all": total}


def main(argv: list[str] | None = None) -> int:
    return batch_main(PATH, build, measure, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
