"""Hand-written tuning questions about the collection, worded as researchers ask them (helper L2,
session 8, issue #21): overviews in many frames, and two-turn sessions (a list question, then a
follow-up that filters "these" / "them" / "the ones that…").

    python -m evals.written_sessions [build]   # -> evals/datasets/overview_written.jsonl, lists_followups_written.jsonl
    python -m evals.written_sessions shapes    # the shape detector's confusion on every tuning split and these
    assistant eval --dataset overview_written  # (or lists_followups_written) recall / precision, hedged, beside the baseline

Tuning data, never a judge. How they were made: the topics are gold groups of
``datasets/lists.jsonl`` (the works holding a term the abstracts define, evals/lists.py), so an
overview's gold is that group. Each follow-up's gold is the subset of the previous list's gold
whose abstract states the property asked for: candidate abstracts were found with a regular
expression for the property's words (speed-up / faster / N x, memory, prove / theoretical,
survey, medical / clinical / biomedical, image, reinforcement learning) and each was then read
by hand; an abstract that only mentions the property as background (another paper's speed-up, a
problem it does not address) is not gold. Two follow-ups have an empty gold (none of the listed
abstracts states the property): the honest answer says so. The wording of every question was
written by hand, not from a template, and not from any evaluation question. Indices below are
positions in the lists.jsonl row's ``gold_anchors``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from evals.data import FOLLOWUPS_WRITTEN_PATH as FOLLOWUPS_PATH
from evals.data import LISTS_PATH
from evals.data import OVERVIEW_WRITTEN_PATH as OVERVIEW_PATH

SHAPE_SPLITS = ("dev", "generated", "generated_unanswerable", "calibration", "lists", "lists_written", "overview_written",
                "lists_followups_written", "shape_facts_written")
MADE = "hand-written by helper L2 (session 8, #21): wording by hand; gold = the lists.jsonl group (overview) or its subset read by hand (follow-up)"

# (lists.jsonl list id, question)
OVERVIEWS = [
    ("LL030", "What do these abstracts say about knowledge distillation?"),
    ("LL031", "Summarise the work on layer normalization."),
    ("LL032", "What approaches to low-rank adaptation are in the collection?"),
    ("LL015", "Give me the state of things on mixture-of-experts."),
    ("LL026", "How have people tackled named entity recognition?"),
    ("LL019", "What's the current thinking on chain-of-thought?"),
    ("LL037", "Can you give me a rundown of the research on reward models?"),
    ("LL023", "I'd like a summary of what's been done with decision transformers."),
    ("LL025", "Tell me what the collection says about masked language models."),
    ("LL029", "What does the literature here tell us about incremental learning?"),
    ("LL035", "Walk me through the work on matryoshka representation learning."),
    ("LL036", "Help me understand the research landscape for multimodal large language models."),
    ("LL038", "What are the main ideas in the papers on self-supervised learning?"),
    ("LL009", "What have these papers found about induction heads?"),
    ("LL012", "Give me a short synthesis of the work on retrieval-augmented generation."),
    ("LL017", "What's the gist of the research on diffusion transformers?"),
    ("LL033", "Brief me on markov decision processes in this collection."),
    ("LL024", "How do the papers here approach feed-forward networks?"),
    ("LL018", "What are the key findings on long range arena?"),
    ("LL013", "What progress has been made on vision-language models?"),
    ("LL041", "Could you outline the research on linear recurrent units?"),
    ("LL021", "What is the current understanding of reinforcement learning with human feedback?"),
]

# (lists.jsonl list id, list question, follow-up, gold indices, key points)
FOLLOWUPS = [
    ("LL015", "What papers do you have on mixture-of-experts?", "Which of these report a speed-up?", [1, 3, 6], ["speed"]),
    ("LL010", "Show me the work on key-value caches.", "Do any of them reduce memory use?", [1, 3, 5, 9, 10], ["memory"]),
    ("LL009", "Which papers look at induction heads?", "Which of those have theoretical results?", [1, 2, 5], ["theoretical"]),
    ("LL005", "Find me papers on computer vision.", "Are any of them surveys?", [5, 12], ["survey"]),
    ("LL006", "Which papers here are about question answering?", "Which of them are about the biomedical domain?", [3], ["biomedical"]),
    ("LL017", "Any papers on diffusion transformers?", "Show me only the ones that make generation faster.", [0, 3], ["faster"]),
    ("LL018", "Which papers evaluate on long range arena?", "Any of those evaluated on images?", [0, 3], ["image"]),
    ("LL022", "What do you have on beam search?", "Is any of them about reinforcement learning?", [1], ["reinforcement learning"]),
    ("LL013", "Which abstracts are about vision-language models?", "The ones that use reinforcement learning?", [4, 8], ["reinforcement learning"]),
    ("LL012", "List work on retrieval-augmented generation.", "Which of the listed papers deal with medical data?", [6], ["disease"]),
    ("LL007", "Which papers discuss transformer-based models?", "Which of these are surveys?", [3, 4], ["survey"]),
    ("LL033", "Papers about markov decision processes?", "Of those, which give a theoretical analysis?", [0, 2, 3], ["theoretical"]),
    ("LL036", "Are there any papers on multimodal large language models?", "Are any of them medical?", [2], ["disease"]),
    ("LL004", "Which studies use vision transformers?", "Which of them work on medical images?", [8], ["medical"]),
    ("LL003", "Which papers here deal with multi-layer perceptrons?", "Among these, which ones report being faster?", [1, 2, 12], ["faster"]),
    ("LL001", "Which papers study state space models?", "Which of them claim speed-ups?", [1, 3, 17, 18, 24], ["faster"]),
    ("LL008", "I'm after papers on convolutional neural networks.", "How many of these are about medical imaging?", [6], ["medical"]),
    ("LL019", "Which papers here study chain-of-thought?", "Do any of these use images?", [], []),
    ("LL031", "What papers cover layer normalization?", "Which of them use reinforcement learning?", [], []),
]

# Added by helper C2 (session 9, #21), the same way: a short follow-up referring back ("which of
# those…", "any of them…"), worded by hand; gold read by hand over every abstract of the list's
# group (a regular expression for the property's words found the candidates, each was read whole;
# a property named only as background, "applications such as speech recognition", is not gold).
# Some properties are written in other words than asked (proofs / "we prove", video games / Atari,
# release their code / "available at github"), as users ask them; three have an empty gold.
MADE_C2 = "hand-written by helper C2 (session 9, #21): wording by hand; gold = the subset of the lists.jsonl group read by hand"
FOLLOWUPS_C2 = [
    ("LL014", "Any papers on information retrieval?", "Which of those release their code?", [4], ["github"]),
    ("LL016", "What is there on supervised fine-tuning?", "Are any of them about robots?", [4], ["robot"]),
    ("LL021", "Show me papers about reinforcement learning with human feedback.", "Which of these look at math problems?", [5], ["MATH"]),
    ("LL023", "Papers on the decision transformer?", "Any of those tested on video games?", [1, 4], ["games"]),
    ("LL024", "What papers study the feed-forward network of a transformer?", "Which of them report a speed-up?", [2, 3], ["speed"]),
    ("LL002", "Which papers analyse gradient descent?", "Do any of these come with proofs?", [1, 6, 11, 13], ["prove"]),
    ("LL026", "What work is there on named entity recognition?", "Any of them on handwritten documents?", [0], ["handwrit"]),
    ("LL025", "Which papers use masked language models?", "Which of those are about ranking?", [0], ["ranking"]),
    ("LL020", "Anything on data augmentations?", "Do any of them use reinforcement learning?", [], []),
    ("LL024", "Papers on feed-forward networks?", "Are any of these about healthcare?", [], []),
    ("LL027", "Which abstracts cover unsupervised representation learning?", "Which of them work on speech?", [], []),
]


def _lists() -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in (json.loads(line) for line in LISTS_PATH.read_text(encoding="utf-8").splitlines() if line.strip())}


def rows() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    lists = _lists()
    overview = [{"id": f"OW{i:03d}", "question": q, "type": "overview", "shape": "overview", "split": "written",
                 "gold_anchors": lists[lid]["gold_anchors"], "key_points": [], "previous": None,
                 "term": lists[lid]["term"], "made": MADE} for i, (lid, q) in enumerate(OVERVIEWS, 1)]
    sessions: list[dict[str, Any]] = []
    made = [MADE] * len(FOLLOWUPS) + [MADE_C2] * len(FOLLOWUPS_C2)
    for i, ((lid, first, follow, gold, keys), by) in enumerate(zip(FOLLOWUPS + FOLLOWUPS_C2, made, strict=True), 1):
        anchors = lists[lid]["gold_anchors"]
        sessions.append({"id": f"WL{i:03d}", "question": first, "type": "list", "shape": "list", "split": "written",
                         "gold_anchors": anchors, "key_points": [], "previous": None, "term": lists[lid]["term"], "made": by})
        sessions.append({"id": f"WF{i:03d}", "question": follow, "type": "followup", "shape": "list", "split": "written",
                         "gold_anchors": [anchors[j] for j in gold], "key_points": keys, "previous": f"WL{i:03d}",
                         "term": lists[lid]["term"], "expect_none": not gold, "made": by})
    return overview, sessions


def main(argv: list[str] | None = None) -> int:
    if (argv if argv is not None else sys.argv[1:])[:1] == ["shapes"]:  # a fact question turned list / overview shows here
        from evals.lists_metrics import shape_confusion

        print(json.dumps(shape_confusion(SHAPE_SPLITS), indent=1))
        return 0
    overview, sessions = rows()
    for path, out in ((OVERVIEW_PATH, overview), (FOLLOWUPS_PATH, sessions)):
        Path(path).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8")
        print(f"{path}: {len(out)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
