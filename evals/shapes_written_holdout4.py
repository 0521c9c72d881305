"""The fourth hold-out batch of question shapes (ids SF*, types ending "_holdout4"), written by hand by
helper F (session 16, 2026-12-03, #21) from the bundled abstracts' topics, before any change to the
shape detector for the reading it examines, and never tuned on: after a list answer, a follow-up
framed as a yes/no or fact question about the listed works ("Do they report speed-ups?", "Are they
evaluated on ImageNet?", "Does one of them release code?", "Any that beat boosted trees?", "Which use
positional encodings?") asks about that set, a follow-up on the list (``follow_up`` true).

Controls, labelled from language as the follow-ups are:

- a superlative over the set ("And which is the fastest?", "Which one has the smallest embeddings?")
  picks one member: a single fact (the detector's convention since session 13, "a superlative picks
  one"), not a filter of the list;
- after a list, a new fact about a named paper, a fact with a noun subject of its own ("Do
  transformers need positional encodings?"), a singular "it", or a new list ("Any other papers on
  pruning?"): no follow-up on the list;
- after a fact answer, "Do they ..." has no listed set to point at: a fact;
- standalone questions with "any" / "do" that ask one fact, and two standalone lists.

Labels were decided from each question's language alone (see evals/shapes_written.py). Measured once
on the commit before the change and once after it:

    python -m evals.shapes_written_holdout4 build     # -> datasets/shapes_written_holdout4.jsonl
    python -m evals.shapes_written_holdout4 measure   # shape confusion and follow-up reading on it
"""

from __future__ import annotations

import sys
from typing import Any

from evals.data import DATASETS_DIR
from evals.shapes_written_holdout3 import batch_main, batch_rows, fact_sessions
from evals.shapes_written_holdout3 import measure as measure_batch

PATH = DATASETS_DIR / "shapes_written_holdout4.jsonl"
MADE = (
    "hand-written by helper F (session 16, 2026-12-03, #21) from the bundled abstracts' topics before any change to "
    "the shape detector for the reading it examines; labelled from language alone; hold-out, never tuned on"
)
L, F = "list", "fact"
SINGLE: list[tuple[str, str, str]] = [
    # --- standalone: "any" / "do" in a single fact, "they" with nothing listed -----------------
    (F, "fact_any", "Do state space models use attention at all?"),
    (F, "fact_any", "Does Mamba need positional encodings?"),
    (F, "fact_any", "Is any positional encoding needed for length generalisation?"),
    (F, "fact_any", "Do they scale better than transformers on long sequences?"),
    (F, "fact_any", "Any idea how rotary position embeddings work?"),
    (F, "fact_any", "Are sparse autoencoders trained on the residual stream?"),
    # --- standalone lists in the same words ------------------------------------------------------
    (L, "list", "Do any papers here prune attention heads?"),
    (L, "list", "Are there any papers that train embeddings at several sizes?"),
]
# (list question, (shape of the follow-up, its type, whether it is a follow-up on the list, the follow-up))
SESSIONS: list[tuple[str, tuple[str, str, bool, str]]] = [
    # --- yes/no about the set: a plural anaphor as subject --------------------------------------
    (
        "Which papers study state space models for long sequences?",
        (L, "followup_yes_no", True, "Do they report speed-ups over Transformers?"),
    ),
    (
        "Which papers apply Mamba to images?",
        (L, "followup_yes_no", True, "Are they evaluated on ImageNet?"),
    ),
    (
        "Show me papers on new activation functions.",
        (L, "followup_yes_no", True, "Do these work on images?"),
    ),
    (
        "Which works study the theory of in-context learning?",
        (L, "followup_yes_no", True, "Do those papers give proofs?"),
    ),
    (
        "List papers on retrieval-augmented generation.",
        (L, "followup_yes_no", True, "Have they been tested on medical questions?"),
    ),
    (
        "Which papers study sparse autoencoders?",
        (L, "followup_yes_no", True, "Do they all use language models?"),
    ),
    (
        "Which papers propose new optimizers?",
        (L, "followup_yes_no", True, "Can they train large language models?"),
    ),
    (
        "Which papers train text embedding models?",
        (L, "followup_yes_no", True, "Were these models trained on multilingual data?"),
    ),
    (
        "Papers on vision transformers?",
        (L, "followup_yes_no", True, "And do they use convolutions too?"),
    ),
    # --- "any" / "one of" / bare "which" over the set --------------------------------------------
    (
        "Which papers use mixture-of-experts layers?",
        (L, "followup_any", True, "Does one of them release code?"),
    ),
    (
        "Are there papers on in-context learning for tables?",
        (L, "followup_any", True, "Any that beat gradient-boosted trees?"),
    ),
    (
        "Which papers propose linear attention?",
        (L, "followup_any", True, "Do any use kernel feature maps?"),
    ),
    ("What papers here compress the KV cache?", (L, "followup_any", True, "Any with code?")),
    (
        "Which papers study length generalisation in transformers?",
        (L, "followup_any", True, "Which use positional encodings?"),
    ),
    (
        "Which papers study tokenization?",
        (L, "followup_any", True, "Are there any that work on code?"),
    ),
    (
        "Which studies look at catastrophic forgetting?",
        (L, "followup_any", True, "Is replay used in any of them?"),
    ),
    # --- superlatives over the set: one member, a fact -------------------------------------------
    (
        "Which papers propose efficient attention mechanisms?",
        (F, "followup_superlative", False, "And which is the fastest?"),
    ),
    (
        "Which papers compare state space models with transformers?",
        (F, "followup_superlative", False, "Which of these is the most accurate?"),
    ),
    (
        "Which papers propose Matryoshka embeddings?",
        (F, "followup_superlative", False, "Which one has the smallest embeddings?"),
    ),
    # --- after a list, a new question: no follow-up on the list ----------------------------------
    (
        "Which papers study Mamba?",
        (F, "followup_control", False, "Does Vision Mamba use bidirectional scans?"),
    ),
    (
        "Which papers apply transformers to reinforcement learning?",
        (F, "followup_control", False, "What is a decision transformer?"),
    ),
    (
        "Which papers study activation sparsity?",
        (F, "followup_control", False, "Do transformers need positional encodings?"),
    ),
    (
        "List papers on low-rank adaptation.",
        (F, "followup_control", False, "Does it work for diffusion models?"),
    ),
    (
        "Which papers study pruning of language models?",
        (L, "followup_control", False, "Any other papers on quantization?"),
    ),
    (
        "Which papers route tokens to experts?",
        (F, "followup_control", False, "How does expert routing balance the load?"),
    ),
    # --- after a fact answer: "they" points at no listed set -------------------------------------
    ("What is FlashAttention?", (F, "followup_after_fact", False, "Do they report speed-ups?")),
]

FACT_OPENERS = {"What is FlashAttention?"}


def rows() -> list[dict[str, Any]]:
    return fact_sessions(batch_rows("SF", "_holdout4", MADE, SINGLE, SESSIONS), FACT_OPENERS, "_holdout4")


def build() -> list[dict[str, Any]]:
    from evals.shapes_written import build as checked_write

    return checked_write(PATH, rows())


def measure() -> dict[str, Any]:
    return measure_batch(rows())


def main(argv: list[str] | None = None) -> int:
    return batch_main(PATH, build, measure, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
