"""Follow-ups on a list worded as researchers ask them, NOT in the abstracts' words (helper E2,
session 12, issue #21): "which of these need less compute to train?" of abstracts that write
"1,000x training efficiency", "which of them deal with financial markets?" of one that writes
"algorithmic trading".

    python -m evals.followups_meaning_written [build]   # -> evals/datasets/followups_meaning_written.jsonl
    assistant eval --dataset followups_meaning_written  # recall / precision of the follow-ups, beside the baseline
    python -m evals.list_followups fit                  # fits on these beside the list split's and written sessions

Why: the other follow-up sessions' gold was found by a regular expression for the filter's words,
so they cannot show a filter stated in other words (the case behind the judge's follow-up recall
0.375). How these were made: each list question was asked of the assistant as it answers now
(extractive, session 12 at 013f3c4), and every abstract it listed was read whole and judged for
the follow-up: it states the property (in any words) or not. Every judged abstract is kept with
its verdict (``judged``: an anchor — for a gold abstract the phrase that states it — the verdict,
a note on a negative); a property named only as background (another paper's, or an example of a
task) is not stated. The follow-ups were worded after reading, in a user's words, avoiding the
stating words where English allows; three have an empty gold (no listed abstract states it). The
writer works on this project and read the abstracts: tuning data, never a judge (``made``).
A list the assistant answers differently later (a list change) may list works not judged here;
``judged`` says which were.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from evals.data import FOLLOWUPS_MEANING_WRITTEN_PATH as PATH
from evals.data import LISTS_PATH

MADE = ("hand-written by helper E2 (session 12, #21): follow-ups worded by hand unlike the abstracts; gold = the "
        "abstracts the assistant listed (at 013f3c4) read whole and judged; tuning data, not an independent judge")

# (lists.jsonl list id, list question, follow-up, key points, [(anchor, states it, note)] per listed abstract)
SESSIONS = [
    ('LL030', 'Which papers here are on knowledge distillation?', 'Which of these need less compute to train?', ['efficien'], [
        ('Large pre-trained language models often struggle to incorporate new', False, 'vocabulary expansion by KL distillation; states no training cost'),
        ('reducing the amount of viewed training samples up to 195x', True, ''),
        ('Large language models (LLMs) have demonstrated their ability to', False, 'distils a dense retriever; states no cost'),
        ('achieving over 1,000x training efficiency', True, ''),
    ]),
    ('LL032', 'What papers do you have on low-rank adaptation?', 'Which of these generate pictures?', ['image'], [
        ('We introduce asymmetric low-rank adaptation (LoRA) for image generation', True, ''),
        ('our pipeline generates high-fidelity image sets', True, ''),
        ('a transformer architecture specifically designed for generating images', True, ''),
        ('Large Language Models (LLMs) exhibit impressive capabilities but often', False, 'reduces hallucination of LLMs and vision-language models; generates no images'),
    ]),
    ('LL011', 'Papers on long short-term memory networks?', 'Which of them deal with financial markets?', ['trading'], [
        ('The scalability limitations of Transformers regarding sequence length have', False, 'parallel minimal RNNs'),
        ('Countless learning tasks require dealing with sequential data. Image', False, 'survey of RNNs; no finance'),
        ('Zero-shot and in-context learning enable solving tasks without model', False, 'in-context approximation'),
        ('Sequence modeling is a crucial area across various domains,', False, 'survey of state space models; domains listed, no finance'),
        ('Despite their stellar performance on a wide range of', False, 'planning in partially observed environments'),
        ('Recent neural network sequence models with softmax classifiers have', False, 'language modelling'),
        ('Memory-based meta-learning is a technique for approximating Bayes-optimal predictors.', False, 'meta-learning'),
        ('This work proposes an attention-based sequence-to-sequence model for handwritten', False, 'handwritten word recognition'),
        ('Large language models (LMs) such as GPT-3 have the', False, 'in-context learning theory'),
        ('ensuring robust and scalable solutions for real-world algorithmic trading', True, ''),
    ]),
    ('LL011', 'Papers on long short-term memory networks?', 'Which of them read handwriting?', ['handwrit'], [
        ('The scalability limitations of Transformers regarding sequence length have', False, 'parallel minimal RNNs'),
        ('Countless learning tasks require dealing with sequential data. Image', False, 'a survey naming handwriting recognition only as one task LSTMs have done well (background)'),
        ('Zero-shot and in-context learning enable solving tasks without model', False, 'in-context approximation'),
        ('Sequence modeling is a crucial area across various domains,', False, 'survey of state space models'),
        ('Despite their stellar performance on a wide range of', False, 'planning'),
        ('Recent neural network sequence models with softmax classifiers have', False, 'language modelling'),
        ('Memory-based meta-learning is a technique for approximating Bayes-optimal predictors.', False, 'meta-learning'),
        ('an attention-based sequence-to-sequence model for handwritten word recognition', True, ''),
        ('Large language models (LMs) such as GPT-3 have the', False, 'in-context learning theory'),
        ('Regardless of the selected asset class and the level', False, 'trading loss function'),
    ]),
    ('LL015', 'What do you have on mixture-of-experts?', 'Which of these are about spreading training across machines?', ['parallelism'], [
        ('Exploiting activation sparsity is a promising approach to significantly', False, 'activation sparsity for faster decoding'),
        ('Large Language Models (LLMs) exhibit impressive capabilities but often', False, 'activation steering'),
        ('The growing computational demands of large language models (LLMs)', False, 'training-free sparse activation'),
        ('All-MLP architectures have attracted increasing interest as an alternative', False, 'sparse all-MLPs; training efficiency, not distribution'),
        ('Sparse mixture of expert architectures (MoEs) scale model capacity', False, 'Soft MoE; inference cost'),
        ('incorporating various advanced parallelism technologies, particularly Sequence Parallelism', True, ''),
        ('Linear sequence modeling methods, such as linear attention, state', False, 'memory states of linear models'),
        ('with a sequence length of 2048K across 64 GPUs', True, ''),
    ]),
    ('LL010', 'Show me work on key-value caches.', 'Which of these shorten the input the model sees?', ['compress'], [
        ('incrementally compress the intermediate activation of a specified span of tokens into compact ones', True, ''),
        ('subsequently passing only the important tokens to the model for inference', True, ''),
        ('Transformer-based large language models (LLMs) demonstrate impressive performance in', False, 'offloads the KV cache to CPU; input kept whole'),
        ('In this paper, we introduce Writing in the Margins', False, 'segment-wise prefill; input kept whole'),
        ('Selective state-space models (SSMs) like Mamba overcome some of', False, 'Mamba vs Transformer comparison'),
    ]),
    ('LL037', 'Which papers study reward models?', 'Which of these save compute?', ['cost'], [
        ('which leads to significant cost savings', True, ''),
        ('Large language models (LLMs) have been widely deployed across', False, "interpretable reward model; the costly annotations are other work's"),
        ('outperform all baselines in terms of both training efficiency and memory consumption', True, ''),
        ('Large language models (LLMs) have demonstrated their ability to', False, 'retriever of in-context examples; no cost claim'),
    ]),
    ('LL022', 'What do you have on beam search?', 'Which of these stop generations that never end?', ['terminat'], [
        ('Neural sequence models are widely used to model time-series', False, 'diverse beam search: near-identical beams, not endless outputs'),
        ('The remarkable capability of large language models (LLMs) for', False, 'example selection for in-context learning'),
        ('This thesis provides methods and analysis of models which', False, 'conditional beam search against empty or repetitive outputs, not non-termination'),
        ('Reinforcement learning (RL) is typically concerned with estimating stationary', False, 'beam search as planning in RL'),
        ('to address the issue of non-terminating sequences', True, ''),
    ]),
    ('LL031', 'Which papers cover layer normalization?', 'Which of these are about keeping data private?', ['privacy'], [
        ('Transformers have become the de facto architecture for a', False, 'normalization placement'),
        ('Despite their widespread use, the mechanisms by which large', False, 'entropy neurons'),
        ('Vision transformers (ViTs) have demonstrated remarkable performance across various', False, 'quantization of vision transformers'),
        ('Modern cryptographic methods for implementing privacy-preserving LLMs', True, ''),
    ]),
    ('LL031', 'Which papers cover layer normalization?', 'Any of these about robotics?', [], [
        ('Transformers have become the de facto architecture for a', False, 'normalization placement'),
        ('Despite their widespread use, the mechanisms by which large', False, 'entropy neurons'),
        ('Vision transformers (ViTs) have demonstrated remarkable performance across various', False, 'quantization of vision transformers'),
        ('Modern cryptographic methods for implementing privacy-preserving LLMs such as', False, 'homomorphic encryption'),
    ]),
    ('LL025', 'Which papers use masked language models?', 'Which of these work with pictures?', ['image'], [
        ('image token masking differs from token masking in text', True, ''),
        ('This thesis provides methods and analysis of models which', False, 'thesis on transformer LMs for text'),
        ('In this paper, we generalize text infilling (e.g., masked', False, 'text span rewriting'),
        ('Even though term-based methods such as BM25 provide strong', False, 'BERT re-ranking of passages'),
        ('While contrastive learning is proven to be an effective', False, 'contrastive learning for text; computer vision named only as where it was proven (background)'),
    ]),
    ('LL026', 'What papers are there on named entity recognition?', 'Which of these are about languages other than English?', ['hebrew'], [
        ('The extraction of relevant information carried out by named', False, 'handwritten documents; no language stated'),
        ('Incremental Learning (IL) has been a long-standing problem in', False, 'incremental learning with PLMs'),
        ('Recent research in mechanistic interpretability has attempted to reverse-engineer', False, 'Transformer Programs'),
        ('current state-of-the-art LMs for Hebrew are both under-parameterized and under-trained', True, ''),
        ('Sequence modeling is a crucial area across various domains,', False, 'survey of state space models'),
    ]),
    ('LL017', 'What papers cover diffusion transformers?', 'Which of these handle any image size?', ['resolution'], [
        ('generating images with unrestricted resolutions and aspect ratios', True, ''),
        ('Generating temporally-consistent high-fidelity videos can be computationally expensive, especially', False, 'video generation speed-up'),
        ('Recent research arXiv:2410.15027 arXiv:2410.23775 has highlighted the inherent in-context', False, 'interactive visual generation'),
        ('A hallmark of human intelligence is the ability to', False, 'procedural sequences'),
        ('Recent research arXiv:2410.15027 has explored the use of diffusion', False, 'in-context LoRA image sets'),
        ('This paper presents the Large Vision Diffusion Transformer (LaVin-DiT),', False, 'unified vision tasks'),
        ('We introduce Sana, a text-to-image framework that can efficiently', False, 'high resolution up to a fixed size (4096), not any size'),
    ]),
    ('LL017', 'What papers cover diffusion transformers?', 'Which of them work on medical scans?', [], [
        ('Nature is infinitely resolution-free. In the context of this', False, 'image resolution'),
        ('Generating temporally-consistent high-fidelity videos can be computationally expensive, especially', False, 'video generation'),
        ('Recent research arXiv:2410.15027 arXiv:2410.23775 has highlighted the inherent in-context', False, 'visual design tasks'),
        ('A hallmark of human intelligence is the ability to', False, 'procedural tutorials'),
        ('Recent research arXiv:2410.15027 has explored the use of diffusion', False, 'image sets'),
        ('This paper presents the Large Vision Diffusion Transformer (LaVin-DiT),', False, 'computer vision tasks; no medical data'),
        ('We introduce Sana, a text-to-image framework that can efficiently', False, 'text-to-image'),
    ]),
    ('LL016', 'Papers on supervised fine-tuning?', 'Which of these keep the generated outputs varied?', ['diversity'], [
        ('The emergence of Large Language Models (LLMs) such as', False, 'domain-specific RLHF'),
        ('Techniques that learn improved representations via offline data or', False, 'goal-conditioned reward models; steers complexity, not variety'),
        ('Classification is a core task in machine learning. Recent', False, 'few-shot image classification'),
        ('in particular for retaining diversity while maximizing task performance', True, ''),
        ('Vision-Language-Action (VLA) models enable robots to understand and perform', False, 'RL for robot policies'),
        ('Large Language Models (LLMs) exhibit impressive capabilities but often', False, 'activation steering against hallucination'),
        ('Reinforcement learning (RL) has recently shown strong potential in', False, 'RL framework for VLMs'),
        ('Large language models (LLMs) have shown remarkable advances in', False, 'KV cache eviction'),
    ]),
    ('LL014', 'Which abstracts are about information retrieval?', 'Which of these need less memory?', ['footprint'], [
        ('Recent developments in representational learning for information retrieval can', False, 'sparse retrieval framework'),
        ('reducing the space footprint of late interaction models by 6--10times', True, ''),
        ('reduce the memory requirements by 5-16x', True, ''),
        ('Many recent approaches towards neural information retrieval mitigate their', False, 'first-stage ranker latency'),
        ('Despite the recent progress in long-context language models, it', False, 'retrieval heads; KV compression only as future work'),
        ('Semantic textual similartiy (STS) and information retrieval tasks (IR)', False, 'reasoning retrieval benchmark'),
        ('Large Language Models (LLMs) exhibit positional bias, struggling to', False, 'positional bias'),
        ('The emergence of large language models (LLMs) has revolutionized', False, 'retrieval-augmented framework'),
        ('Countless learning tasks require dealing with sequential data. Image', False, 'survey of RNNs'),
        ('DIFF Transformer improves attention allocation by enhancing focus on', False, 'parameter redundancy, not memory'),
        ('Transformer tends to overallocate attention to irrelevant context. In', False, 'differential attention'),
    ]),
    ('LL014', 'Which abstracts are about information retrieval?', 'Which of these answer searches quickly?', ['latenc'], [
        ('Recent developments in representational learning for information retrieval can', False, 'sparse retrieval framework'),
        ('Neural information retrieval (IR) has greatly advanced search and', False, 'space footprint, no speed claim'),
        ('maintain near memory levels of query latency even for large query batch sizes', True, ''),
        ('passage retrieval using CoRT can be realized with surprisingly low latencies', True, ''),
        ('Despite the recent progress in long-context language models, it', False, 'retrieval heads'),
        ('Semantic textual similartiy (STS) and information retrieval tasks (IR)', False, 'benchmark'),
        ('Large Language Models (LLMs) exhibit positional bias, struggling to', False, 'positional bias'),
        ('The emergence of large language models (LLMs) has revolutionized', False, 'retrieval-augmented framework'),
        ('Countless learning tasks require dealing with sequential data. Image', False, 'survey of RNNs'),
        ('DIFF Transformer improves attention allocation by enhancing focus on', False, 'efficiency of attention, no search speed'),
        ('Transformer tends to overallocate attention to irrelevant context. In', False, 'differential attention'),
    ]),
    ('LL030', 'Which papers here are on knowledge distillation?', 'Which of them are about speech?', [], [
        ('Large pre-trained language models often struggle to incorporate new', False, 'code generation'),
        ('In this paper, we question if well pre-trained vision', False, 'image classification'),
        ('Large language models (LLMs) have demonstrated their ability to', False, 'in-context example retrieval'),
        ('Training high-performing Small Language Models (SLMs) remains costly, even', False, 'small language models'),
    ]),
]


def rows() -> list[dict[str, Any]]:
    lists = {r["id"]: r for r in (json.loads(line) for line in LISTS_PATH.read_text(encoding="utf-8").splitlines() if line.strip())}
    out: list[dict[str, Any]] = []
    for i, (lid, first, follow, keys, judged) in enumerate(SESSIONS, 1):
        out.append({"id": f"ML{i:03d}", "question": first, "type": "list", "shape": "list", "split": "written",
                    "gold_anchors": lists[lid]["gold_anchors"], "key_points": [], "previous": None,
                    "term": lists[lid]["term"], "made": MADE})
        gold = [a for a, states, _ in judged if states]
        out.append({"id": f"MF{i:03d}", "question": follow, "type": "followup", "shape": "list", "split": "written",
                    "gold_anchors": gold, "key_points": keys if gold else [], "previous": f"ML{i:03d}",
                    "term": lists[lid]["term"], "expect_none": not gold, "made": MADE,
                    "judged": [{"anchor": a, "states": states, "note": note} for a, states, note in judged]})
    return out


def main(argv: list[str] | None = None) -> int:
    out = rows()
    Path(PATH).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8")
    print(f"{PATH}: {len(out)} rows ({len(SESSIONS)} sessions, {sum(not r['gold_anchors'] for r in out if r['previous'])} with empty gold)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
