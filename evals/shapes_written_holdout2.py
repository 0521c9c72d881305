"""The second hold-out batch of shapes_written (ids SQ*, types ending "_holdout2"), written by hand by
helper G2 (session 13, #21) from English, before any figure of the evidence-based overview detector
was looked at, and never tuned on: the figure for wording nobody tuned on, after the SH* batch was
seen. Fifteen overviews on general topics of the corpus (in-context learning, interpretability,
recurrent and efficient attention, retrieval, transformers in RL), many in the plain forms a
researcher types ("How does X work?", "What is X?", "Why does X help Y?"), and fifteen single facts,
about half naming a work and half pointing at one work by a general noun ("the paper on ...").
Labels were decided from the question's language alone (see evals/shapes_written.py)."""
from __future__ import annotations

OV, F = "overview", "fact"
MADE_HOLDOUT2 = ("hand-written by helper G2 (session 13, #21) before any figure of the evidence-based overview detector was "
                 "seen; labelled from language alone; hold-out, never tuned on")
HOLDOUT2: list[tuple[str, str]] = [
    (OV, "How does in-context learning work in transformers?"),
    (OV, "What is mechanistic interpretability?"),
    (OV, "Why does chain-of-thought prompting help reasoning?"),
    (OV, "What are the main ideas behind linear recurrent models for long sequences?"),
    (OV, "How are sparse autoencoders used to interpret language models?"),
    (OV, "Why do transformers struggle to generalise to longer inputs?"),
    (OV, "How do people steer the behaviour of LLMs through their activations?"),
    (OV, "What makes retrieval-augmented generation work well?"),
    (OV, "How are transformers being applied to reinforcement learning?"),
    (OV, "What ideas have shaped the work on replacing softmax attention?"),
    (OV, "How do vision-language models process images?"),
    (OV, "What is the state of embedding models for retrieval?"),
    (OV, "Why do neural networks grok?"),
    (OV, "How do transformers represent concepts internally?"),
    (OV, "What explains the emergence of in-context learning during training?"),
    (F, "What does SOLO use instead of a separate vision encoder?"),
    (F, "What problem does DevFormer address?"),
    (F, "What kind of prompts does SoftSRV use to generate synthetic data?"),
    (F, "What activation replaced the softmax in the paper on ReLU attention?"),
    (F, "What method reduces KV cache size in the paper on cross-layer attention sharing?"),
    (F, "Which benchmark does the Decision Transformer paper evaluate on?"),
    (F, "What does the Linear Representation Hypothesis state?"),
    (F, "What does the pointer network paper propose?"),
    (F, "What accuracy drop did the study of point-wise attention activations observe?"),
    (F, "How was the embedding model trained in the paper on embeddings for RAG?"),
    (F, "What does the thesis on task-agnostic methods conclude?"),
    (F, "What failure mode of transformer language models does the paper on counting highlight?"),
    (F, "What speed-up over attention does the linear recurrence paper report?"),
    (F, "What is the main contribution of the paper on composite image degradations?"),
    (F, "How does the iterative inference paper test its hypothesis?"),
]
