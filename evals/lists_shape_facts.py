"""Single-fact questions about one abstract, worded with the words list questions use (plural heads,
partitives, requests, digest nouns): the shape detector's over-reads (helper A3, session 9, #21).

    python -m evals.lists_shape_facts build [--data-dir D]  # -> datasets/shape_facts_written.jsonl (checks every anchor), lists_absent_written.jsonl
    python -m evals.lists shapes                            # the detector's confusion, this split included
    assistant eval --dataset shape_facts_written            # the answers' shapes (a fact must stay a fact)

Written by hand from reading each gold abstract, thinking how researchers phrase one-paper questions
that contain list-looking words ("Which paper introduced X?", "What methods does X combine?", "What
datasets was X evaluated on?", "Which of the two … is faster?", "What are the limitations of X?"),
not from the shape detector's frames nor any evaluation question. Each question's gold is one work:
its anchor is a verbatim phrase of that abstract, and ``build`` refuses an anchor that no stored
abstract, or more than one work, holds. Tuning data for the shape detector, never a judge.

``lists_absent_written.jsonl`` (``PA*``, type ``list_absent``, gold empty): list questions, written
by the same hand, about a method the corpus studies applied to a domain no abstract names (each
domain word checked absent from every abstract, or, for the last ten, every word written but no
abstract holding both the method and the domain); the honest answer lists nothing or says none. The
list fit (``python -m evals.lists fit``) reads them beside lists_written's absent topics.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from evals.data import LISTS_ABSENT_WRITTEN_PATH, SHAPE_FACTS_WRITTEN_PATH, resolve_anchors

MADE = ("hand-written by helper A3 (session 9, #21): single-fact questions about one abstract worded with list-looking "
        "words (plural heads, partitives, requests, digest nouns), written from reading each gold abstract, not from the "
        "shape detector's frames nor any evaluation question; tuning data for the shape detector, never a judge")
# (question, a verbatim phrase of its one gold abstract)
QUESTIONS = [
 ("Which paper introduced the Diff Transformer?", "we introduce Diff Transformer, which amplifies attention to the relevant context while canceling noise"),
 ("What sensors does TransFuser combine?", "integrate image and LiDAR representations using self-attention"),
 ("What datasets was MambaMIL evaluated on?", "Extensive experiments on two public challenging tasks across nine diverse datasets"),
 ("What are the limitations of existing MIL approaches according to the MambaMIL abstract?", "existing MIL approaches suffer from limitations in facilitating comprehensive and efficient interactions among instances"),
 ("Which of the two TTT instantiations is already faster than Transformer at 8k context?", "TTT-Linear is already faster than Transformer at 8k context"),
 ("What methods does LRP-QViT use to measure each layer's contribution?", "we employ the Layer-wise Relevance Propagation (LRP) method"),
 ("List the models LRP-QViT was applied to.", "we employ LRP-QViT across ViT, DeiT, and Swin transformer models"),
 ("Name the architectures MaskMamba combines.", "a novel hybrid model that combines Mamba and Transformer architectures"),
 ("What are the key ideas in Zebra?", "by employing grouped local-global attention layers"),
 ("Give me a summary of the LION paper.", "We introduce LION, the first framework to systematically extend Linear Transformers to the bidirectional setting"),
 ("Which of the papers on Matryoshka Representation Learning replaces it with sparse coding?", "we show that sparse coding offers a compelling alternative for achieving adaptive representation"),
 ("What models does MaTVLM outperform?", "surpassing both Mamba-based VLMs and models of comparable parameter scales"),
 ("Which approaches did GPO outperform?", "outperforming existing strategies such as in-context steering and fine-tuning methods"),
 ("What are the two subsystems of Linear-MoE?", "The Linear-MoE system comprises: 1) Modeling subsystem"),
 ("How many model series were used to evaluate Linear-MoE?", "Evaluations on two model series, A0.3B-2B and A1B-7B"),
 ("Which bidirectional forms does LION generalize?", "bidirectional RNN, and chunkwise parallel form"),
 ("What tasks was GPO evaluated on?", "three human opinion adaptation tasks"),
 ("Which work reports a 48% reduction in collisions per kilometer?", "TransFuser reduces the average collisions per kilometer by 48%"),
 ("What techniques are used in FlashAttention to cut memory traffic?", "uses tiling to reduce the number of memory reads/writes"),
 ("Is there any paper showing that DPT implements Bayesian posterior sampling?", "we show DPT can be viewed as an efficient implementation of Bayesian posterior sampling"),
 ("Show me the work that introduced Group Preference Optimization.", "We introduce Group Preference Optimization (GPO), an alignment framework"),
 ("Find me the study that proposed Contrastive Sparse Representation.", "We propose Contrastive Sparse Representation (CSR)"),
 ("What improvements does CSR report over MRL?", "CSR consistently outperforms MRL in terms of both accuracy and retrieval speed"),
 ("What are the main contributions of the MaskMamba abstract?", "replacing causal convolutions with standard convolutions"),
 ("What are the main findings in the TTT layers paper?", "Both TTT-Linear and TTT-MLP match or exceed the baselines"),
 ("Which algorithms can DPT learn faster than?", "prove that it can learn faster than algorithms used to generate the pretraining data"),
 ("What strategies does GPO use for few-shot learning?", "train it via meta-learning on several groups"),
 ("What techniques has LRP-QViT introduced to remove outliers?", "a clipped channel-wise quantization aimed at eliminating outliers"),
 ("Which two attention maps does Diff Transformer subtract?", "the difference between two separate softmax attention maps"),
 ("List the three LION variants.", "LION-LIT, the bidirectional extension"),
 ("What systems does the MaTVLM paper distil from?", "using the pre-trained VLM as the teacher model"),
 ("Which of the abstracts about Mamba in pathology reports results on nine datasets?", "The code is released at https://github.com/isyangshu/MambaMIL"),
 ("Which is faster at 8k context, TTT-Linear or Transformer?", "With preliminary systems optimization, TTT-Linear is already faster than Transformer"),
]

MADE_ABSENT = ("hand-written by helper A3 (session 9, #21): list questions about a subject no abstract is about, a method the "
               "collection has applied to a domain it never names (or names only apart from that method); checked against every abstract; "
               "gold empty (listing nothing, or saying none, is right); tuning data, never a judge")
# A method or model family the corpus studies, applied to a domain no abstract names: the trap is a list of
# neighbours by meaning (the method's papers) given as the answer.
ABSENT = [
    "Which papers use transformers to detect credit card fraud?",
    "Are there papers applying Mamba to stock price prediction?",
    "Which abstracts use attention models for dialect identification?",
    "Any work on large language models for legal contract review?",
    "Which papers apply vision transformers to agricultural field images?",
    "What papers here use state space models for weather forecasting?",
    "Which papers detect sarcasm with pretrained language models?",
    "Do any papers here use diffusion models for surgical video?",
    "Which papers use transformers to predict emoji in tweets?",
    "List the papers on reinforcement learning for wildlife conservation.",
    "Which works use graph neural networks for earthquake detection?",
    "Which papers use knowledge distillation for seismic imaging?",
    # every word written somewhere, the pair in no abstract (each checked: no abstract holds both the method
    # and the domain): the neighbours by meaning are the method's papers
    "Which papers use Mamba for protein structure prediction?",
    "Which papers apply reinforcement learning to music generation?",
    "Which papers use diffusion models for speech recognition?",
    "Which papers use knowledge distillation for time series forecasting?",
    "Which papers apply mixture-of-experts models to handwriting recognition?",
    "Do any papers here use state space models to play chess?",
    "Which papers combine graph neural networks with tabular data?",
    "Which papers fine-tune with LoRA for drug discovery?",
    "Which papers use speculative decoding for speech synthesis?",
    "Which papers apply vision transformers to sign language recognition?",
]


def absent_rows() -> list[dict[str, Any]]:
    return [{"id": f"PA{i:03d}", "question": q, "type": "list_absent", "shape": "list", "split": "lists_absent_written",
             "gold_anchors": [], "key_points": [], "previous": None, "made": MADE_ABSENT} for i, q in enumerate(ABSENT, 1)]


def rows() -> list[dict[str, Any]]:
    return [{"id": f"SF{i:03d}", "question": q, "type": "fact_written", "shape": "fact", "split": "shape_facts_written",
             "gold_anchors": [a], "key_points": [], "previous": None, "made": MADE} for i, (q, a) in enumerate(QUESTIONS, 1)]


def build(data_dir: str | None = None) -> dict[str, Any]:
    """Write the split after checking that each anchor names exactly one work of the bundled corpus."""
    from evals.lists import open

    made = rows()
    questions, problems = resolve_anchors(made, open(data_dir).retriever.docs())
    problems += [f"{q.id}: its anchor is in {len(q.gold)} works" for q in questions if len(q.gold) != 1]
    if problems:
        raise SystemExit("\n".join(problems))
    SHAPE_FACTS_WRITTEN_PATH.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in made), encoding="utf-8")
    LISTS_ABSENT_WRITTEN_PATH.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in absent_rows()), encoding="utf-8")
    return {"rows": len(made), "path": str(SHAPE_FACTS_WRITTEN_PATH), "absent": len(ABSENT), "absent_path": str(LISTS_ABSENT_WRITTEN_PATH)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.lists_shape_facts", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["build"])
    ap.add_argument("--data-dir", default=None, help="index of the bundled corpus (default: the harness's cache)")
    print(json.dumps(build(ap.parse_args(argv).data_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
