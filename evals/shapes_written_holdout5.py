"""The fifth hold-out batch of question shapes (ids SG*, types ending "_holdout5"), written by hand by
helper F2 (session 17, 2026-12-03, #21) from the bundled abstracts' topics, before any change to the
shape detector for the readings it examines, and never tuned on. Not blind: its author knew the three
misses it was written to measure (issue #21's follow-ups on a list):

- an object anaphor: after a list, the listed set as the object of a preposition ("Is replay used in any
  of them?", "Was ImageNet used by either of them?", "In which of these is X used?") asks which listed
  works do it: a follow-up on the list (``follow_up`` true);
- "other" / "more" / "else" after a list ("Any other papers on X?", "What other papers study X?", "Are
  there more on X?"): a new list question (its own topic), no filter of the listed set;
- a superlative over the listed set ("Which of them is fastest?"): one member, a fact (the detector's
  convention since session 13), whose evidence is the listed works only (``Shape.over_listed``; rows
  ``followup_superlative``), where a superlative standalone or about a named work is not.

Controls, labelled from language as the rest: single facts with "other" / "more" / "any" / a superlative,
follow-ups already read right (a plural subject anaphor, "which of these", "any that"), after a list a
fact of a named work or with "it", after a fact answer an object anaphor with no listed set, and a
superlative after a list about a named work.

Labels were decided from each question's language alone (see evals/shapes_written.py). Measured once
on the commit before the change and once after it:

    python -m evals.shapes_written_holdout5 build     # -> datasets/shapes_written_holdout5.jsonl
    python -m evals.shapes_written_holdout5 measure   # shape confusion, follow-up and scope reading on it
"""

from __future__ import annotations

import sys
from typing import Any

from evals.data import DATASETS_DIR
from evals.shapes_written_holdout3 import batch_main, batch_rows, fact_sessions
from evals.shapes_written_holdout3 import measure as measure_batch

PATH = DATASETS_DIR / "shapes_written_holdout5.jsonl"
MADE = (
    "hand-written by helper F2 (session 17, 2026-12-03, #21) from the bundled abstracts' topics before any change "
    "to the shape detector for the readings it examines; labelled from language alone; hold-out, never tuned on; "
    "not blind (its author knew the misses it measures)"
)
L, F = "list", "fact"
SINGLE: list[tuple[str, str, str]] = [
    # --- standalone: "other" / "more" / "any" / a superlative in a single fact ---------------------
    (F, "fact_other", "What other activation functions does the GELU paper compare against?"),
    (F, "fact_other", "Does more pre-training data always help downstream accuracy?"),
    (F, "fact_other", "Is any fine-tuning needed for in-context learning to work?"),
    (F, "superlative_standalone", "Which attention kernel is the fastest on long sequences?"),
    (
        F,
        "superlative_standalone",
        "What is the largest speed-up reported for speculative decoding?",
    ),
    # --- a standalone list with "other" ----------------------------------------------------------
    (L, "list_other", "Are there any other papers on speculative decoding?"),
]
# (list question, (shape of the follow-up, its type, whether it is a follow-up on the list, the follow-up))
SESSIONS: list[tuple[str, tuple[str, str, bool, str]]] = [
    # --- 1. the listed set as the object of a preposition: a filter of the list ------------------
    (
        "Which studies look at continual learning?",
        (L, "followup_object", True, "Is experience replay used in any of them?"),
    ),
    (
        "Which papers propose vision transformers?",
        (L, "followup_object", True, "Was ImageNet used by either of them?"),
    ),
    (
        "List papers on text embeddings.",
        (L, "followup_object", True, "Is contrastive learning used in any of those?"),
    ),
    (
        "Which papers study parameter-efficient fine-tuning?",
        (L, "followup_object", True, "Are adapters compared against in any of these papers?"),
    ),
    (
        "Which papers train mixture-of-experts models?",
        (L, "followup_object", True, "Is load balancing discussed by any of them?"),
    ),
    (
        "Which papers study in-context learning?",
        (L, "followup_object", True, "In which of these is linear regression used?"),
    ),
    # --- 2. "other" / "more" / "else" after a list: a new list -----------------------------------
    (
        "Which papers study pruning of language models?",
        (L, "followup_other", False, "Any other papers on knowledge distillation?"),
    ),
    (
        "Which papers here study state space models for language?",
        (L, "followup_other", False, "What other papers study linear recurrences?"),
    ),
    (
        "Which papers propose new optimizers?",
        (L, "followup_other", False, "Are there more on learning-rate schedules?"),
    ),
    (
        "Which papers study retrieval-augmented generation?",
        (L, "followup_other", False, "Any more papers on retrieval-augmented generation?"),
    ),
    (
        "Which papers study tokenization?",
        (L, "followup_other", False, "Are there other works on byte-level models?"),
    ),
    (
        "List papers on diffusion models.",
        (L, "followup_other", False, "Anything else on image generation?"),
    ),
    # --- 3. a superlative over the listed set: one member, a fact, evidence from the list only ---
    (
        "Which papers propose efficient attention mechanisms?",
        (F, "followup_superlative", False, "Which of them is fastest?"),
    ),
    (
        "Which papers study quantization of language models?",
        (F, "followup_superlative", False, "Which of these reports the largest gain?"),
    ),
    (
        "Which papers study speculative decoding?",
        (F, "followup_superlative", False, "And which one achieves the highest speed-up?"),
    ),
    (
        "Which papers compare Mamba with transformers?",
        (F, "followup_superlative", False, "Which of those scales to the longest sequences?"),
    ),
    # --- controls after a list: already read right, or no follow-up on the list -----------------
    (
        "Which papers study sparse autoencoders?",
        (L, "followup_control_set", True, "Do they use language models?"),
    ),
    (
        "Which papers study length generalisation?",
        (L, "followup_control_set", True, "Any that use rotary embeddings?"),
    ),
    (
        "Which papers study Mamba?",
        (F, "followup_control_new", False, "Does Vision Mamba use any other scan orders?"),
    ),
    (
        "Which papers study low-rank adaptation?",
        (F, "followup_control_new", False, "Is it used in any diffusion models?"),
    ),
    (
        "Which papers study efficient attention?",
        (
            F,
            "followup_control_new",
            False,
            "What is the largest speed-up FlashAttention-2 reports?",
        ),
    ),
    # --- after a fact answer: an object anaphor with no listed set --------------------------------
    (
        "What is FlashAttention?",
        (F, "followup_after_fact", False, "Is tiling used in any of them?"),
    ),
]

FACT_OPENERS = {"What is FlashAttention?"}
# the types whose follow-up's evidence is the listed works only (``Shape.over_listed``); every other row's is not
OVER_LISTED = {"followup_superlative_holdout5"}


def rows() -> list[dict[str, Any]]:
    return fact_sessions(batch_rows("SG", "_holdout5", MADE, SINGLE, SESSIONS), FACT_OPENERS, "_holdout5")


def build() -> list[dict[str, Any]]:
    from evals.shapes_written import build as checked_write

    return checked_write(PATH, rows())


def scope() -> dict[str, Any]:
    """Per type, how many rows' evidence is read as the listed works only (``Shape.over_listed``, False where
    the detector has no such reading) and how many of them are right (``OVER_LISTED``)."""
    from assistant.question.shape import LIST, detect

    batch, out = rows(), {}
    by_id = {r["id"]: r for r in batch}
    for r in batch:
        prev = by_id.get(r["previous"] or "")
        shape = detect(r["question"], prev is not None and detect(prev["question"]).kind == LIST)
        over = bool(getattr(shape, "over_listed", False))
        cell = out.setdefault(r["type"], {"over_listed": 0, "right": 0, "n": 0})
        cell["over_listed"] += int(over)
        cell["right"] += int(over == (r["type"] in OVER_LISTED))
        cell["n"] += 1
    return {**out, "all": {"n": len(batch), "right": sum(c["right"] for c in out.values())}}


def measure() -> dict[str, Any]:
    return {"shapes": measure_batch(rows()), "scope": scope()}


def main(argv: list[str] | None = None) -> int:
    return batch_main(PATH, build, measure, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
