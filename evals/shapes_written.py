"""Hand-written questions labelled with their shape (fact / list / compare / overview), for the
shape detector (helper E3, session 12, #21: "the question's shape decides the answer's shape").

    python -m evals.shapes_written build    # -> datasets/shapes_written.jsonl (validated)
    python -m evals.shapes_written shapes   # the detector's confusion on it and on every tuning split
    python -m evals.shapes_written misses   # this set's questions whose detected shape is not their label

Written by hand from English, not from any evaluation file: the ways a researcher asks for an
overview of a body of work ("what do we know about", "where does the field stand on", "bring me up
to speed on", noun phrases such as "overview of X"), for a list of papers, for a comparison of
named works ("how does A differ from B", "A vs B", "which is better, A or B"), and, about as many
as those together, single-fact questions that use the same words but ask one fact ("what is known
to cause X", "what approach does the X paper take", "how does X differ from full fine-tuning in
memory": one work's fact, one name). Each label was decided from the question's language alone:

- overview: the question asks for the state of a body of work on a topic (no one work named);
- list: it asks which works (papers, studies, anyone) hold a property;
- compare: it asks how two or more *named* works relate;
- fact: one fact, usually about one work, however list- or overview-like its words.

Five batches, each written before the frames were widened on it: ``QUESTIONS`` (SW*, 86), then
``FRESH`` (SX*), ``FRESH2`` (SY*), ``FRESH3`` (SZ*), each measured on the detector of the round before
(its types end "_fresh", "_fresh2", "_fresh3") and then tuned on; ``HOLDOUT`` (SH*, "_holdout", 44)
was never tuned on: its confusion is the figure for wording nobody tuned on. ``HOLDOUT2`` (SQ*,
"_holdout2", 30, evals/shapes_written_holdout2.py) was written after SH* had been seen, for the same role.

No gold abstracts: the split measures the shape only (``shapes``); ``build`` checks that every row
has a known shape, a unique id and question, and that no row repeats a question of another tuning
split. Tuning data for the shape detector, never a judge.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from evals.data import DATASETS_DIR, load_for_tuning, resolve_path
from evals.shapes_written_holdout2 import HOLDOUT2, MADE_HOLDOUT2

PATH = DATASETS_DIR / "shapes_written.jsonl"
MADE = ("hand-written by helper E3 (session 12, #21): questions a researcher might type, each labelled with its shape "
        "from its language alone; written from English, not from any evaluation file; tuning data for the shape detector")
SHAPES = ("fact", "list", "compare", "overview")
TYPES = {"fact": "fact_written", "list": "list", "compare": "compare", "overview": "overview"}
# every tuning split the confusion is printed for (never the locked ones)
SPLITS = ("dev", "generated", "generated_unanswerable", "calibration", "paraphrase_written", "lists", "lists_written",
          "overview_written", "lists_followups_written", "shape_facts_written", "lists_absent_written")

OV, L, C, F = "overview", "list", "compare", "fact"
# (shape, question)
QUESTIONS: list[tuple[str, str]] = [
    # --- overviews: the state of a body of work on a topic -------------------------------------
    (OV, "What do we know about curriculum learning for language models?"),
    (OV, "What do we currently know about grokking?"),
    (OV, "Where does the field stand on test-time compute scaling?"),
    (OV, "Where does research stand on machine unlearning?"),
    (OV, "What approaches exist for continual learning without catastrophic forgetting?"),
    (OV, "What techniques have been developed for KV-cache compression?"),
    (OV, "What has been tried to reduce hallucination in language models?"),
    (OV, "Bring me up to speed on speculative decoding."),
    (OV, "Get me up to speed on the work on model merging."),
    (OV, "Catch me up on research into sparse autoencoders."),
    (OV, "Overview of diffusion models."),
    (OV, "A quick overview of neural radiance fields, please."),
    (OV, "Recent progress in efficient attention?"),
    (OV, "Summary of the research on federated learning."),
    (OV, "Give me a primer on state space models."),
    (OV, "I need an introduction to the literature on graph neural networks."),
    (OV, "What does the research say about data quality in pretraining?"),
    (OV, "What do studies show about mixture-of-experts routing?"),
    (OV, "What has the literature concluded about the lottery ticket hypothesis?"),
    (OV, "How is the field tackling reward hacking?"),
    (OV, "Explain the main approaches to knowledge distillation."),
    (OV, "What are the open problems in reinforcement learning from human feedback?"),
    (OV, "What are the current challenges in long-context modelling?"),
    (OV, "What's the latest on instruction tuning?"),
    # --- lists: which works hold a property ----------------------------------------------------
    (L, "Which papers here evaluate on long-context benchmarks?"),
    (L, "Any studies on federated learning for healthcare?"),
    (L, "Point me to work on sparse autoencoders for interpretability."),
    (L, "What papers should I read on tokenisation?"),
    (L, "Which models in the collection use rotary position embeddings?"),
    (L, "Give me every paper that reports results on MMLU."),
    (L, "Has anybody here looked at quantising diffusion models?"),
    (L, "I want papers that combine retrieval with reinforcement learning."),
    (L, "Who has worked on watermarking the outputs of language models?"),
    (L, "Do you have anything on mixture-of-depths?"),
    (L, "Can you find studies that fine-tune on synthetic data?"),
    (L, "Which approaches have been proposed for pruning attention heads?"),
    # --- comparisons of named works -------------------------------------------------------------
    (C, "How does Mamba differ from RWKV?"),
    (C, "Mamba vs RWKV for long sequences?"),
    (C, "Contrast LoRA with QLoRA."),
    (C, "Which is better, DPO or PPO?"),
    (C, "What sets ColBERT apart from DPR?"),
    (C, "How do BERT and RoBERTa compare on GLUE?"),
    (C, "What are the trade-offs between Linformer and Performer?"),
    (C, "Which performs better on ImageNet: ViT or ResNet?"),
    (C, "Is Mamba or S4 better for audio?"),
    (C, "How is GPT-NeoX different from GPT-J?"),
    (C, "Differences between Longformer and BigBird?"),
    (C, "Pros and cons of Reformer versus Linformer?"),
    # --- single facts worded like the shapes above ---------------------------------------------
    (F, "What is known to cause mode collapse in GANs?"),
    (F, "What is known about the training cost of FlashAttention-2?"),
    (F, "What do we know about the size of the GPT-3 training set?"),
    (F, "What approach does the Mamba paper take to selection?"),
    (F, "How does LoRA differ from full fine-tuning in memory?"),
    (F, "How does Mamba's selection mechanism differ from earlier SSMs?"),
    (F, "Compare the results on ImageNet and COCO in the Swin paper."),
    (F, "How does Llama 2 compare to its predecessor?"),
    (F, "What is the difference between the base and large BERT models?"),
    (F, "Where does the ViT paper stand on convolutional inductive biases?"),
    (F, "Summarise the abstract of the Chinchilla paper."),
    (F, "Give me the gist of the Switch Transformer abstract."),
    (F, "What were the key findings of the Chinchilla paper?"),
    (F, "What is the main idea behind speculative decoding?"),
    (F, "What research question does the BitNet paper address?"),
    (F, "Which study first reported grokking?"),
    (F, "Who introduced layer normalization?"),
    (F, "What was tried to stabilise training in the BLOOM paper?"),
    (F, "What approaches to quantization does the GPTQ abstract mention?"),
    (F, "Which models does LLaMA outperform on reasoning benchmarks?"),
    (F, "List the datasets used to evaluate CLIP."),
    (F, "Name the two components of the RAG architecture."),
    (F, "Tell me about the training data of Phi-1."),
    (F, "What do the BERT authors say about next sentence prediction?"),
    (F, "What does the GPT-4 technical report say about safety?"),
    (F, "What does this paper say about data contamination?"),
    (F, "What state-of-the-art result does SETR report on ADE20K?"),
    (F, "What did researchers find when they scaled ViT to 22 billion parameters?"),
    (F, "What are the main approaches compared in the RLHF survey?"),
    (F, "What are the open problems listed in the Mamba abstract?"),
    (F, "What progress did AlphaFold 2 make over earlier methods?"),
    (F, "How has the Mamba architecture been evaluated?"),
    (F, "What is the current state of the art on ImageNet according to the ConvNeXt abstract?"),
    (F, "What has been proposed in the Hyena paper to replace attention?"),
    (F, "Who proposed the Transformer architecture?"),
    (F, "What is the latest version of the Llama models?"),
    (F, "What technique does the field use most for position encoding, according to the RoFormer abstract?"),
    (F, "Explain the main idea of the Reformer paper."),
]

# Written by the same hand after the frames above were widened and then left alone (not tuned on): a
# weak hold-out (its writer knew the frames), ids SX*, types with "_fresh" ("overview_fresh", ...).
FRESH: list[tuple[str, str]] = [
    (OV, "What's the research consensus on whether larger batch sizes hurt generalisation?"),
    (OV, "Can you give me the lay of the land on neural code generation?"),
    (OV, "Tell me what's been done on speech-to-speech translation."),
    (OV, "What are the big ideas in self-supervised vision?"),
    (OV, "How has the research on tokenization evolved?"),
    (OV, "Review the literature on adversarial robustness for me."),
    (OV, "What does current research say about emergent abilities?"),
    (OV, "An overview of the work on multilingual embeddings would help."),
    (OV, "What methods are there for detecting machine-generated text?"),
    (OV, "What is the field's understanding of in-context learning?"),
    (OV, "Sum up what the papers here find about prompt compression."),
    (OV, "Key findings on model calibration?"),
    (L, "Which papers in the collection train on synthetic instructions?"),
    (L, "Show me studies that benchmark long-context retrieval."),
    (L, "Is there any work here on graph transformers?"),
    (L, "Find me everything about quantization-aware training."),
    (L, "Who has looked at energy use in training large models?"),
    (L, "Name some papers that apply diffusion to text."),
    (C, "In what respects does Llama differ from Falcon?"),
    (C, "How do Mistral and Mixtral stack up against each other?"),
    (C, "Which is more efficient, Performer or Linformer?"),
    (C, "Contrast the training recipes of Chinchilla and Gopher."),
    (C, "GPTQ versus AWQ: which quantizes better?"),
    (C, "What do BLIP and Flamingo have in common?"),
    (F, "What is known to limit the context length of RNNs?"),
    (F, "What do we know about the parameter count of PaLM?"),
    (F, "Where does the Chinchilla paper stand on data versus parameters?"),
    (F, "What approach does LoRA take to reduce trainable parameters?"),
    (F, "How does Mixtral differ from a dense model of the same size?"),
    (F, "Give an overview of the method in the DINOv2 abstract."),
    (F, "What is the state-of-the-art result reported by Swin Transformer on COCO?"),
    (F, "Which paper first proposed the Transformer?"),
    (F, "Summarize the findings of the Llama 2 paper."),
    (F, "What are the open problems the RWKV authors mention?"),
    (F, "What progress does Gemini report on MMLU?"),
    (F, "What techniques does the DeepSpeed paper combine?"),
    (F, "Who has the best result on SQuAD according to the BERT abstract?"),
    (F, "What is the main approach to alignment in the InstructGPT paper?"),
    (F, "What are the challenges that the Mamba paper addresses?"),
    (F, "What research problem does FlashAttention address?"),
    (F, "What strategies have been used in the AlphaGo paper?"),
    (F, "Tell me about the architecture of Whisper."),
    (F, "What latest results does the Qwen abstract report?"),
    (F, "Compare Mamba's accuracy with and without the selection mechanism."),
]

# Written by the same hand after the frames were widened a second time (on FRESH) and then left alone:
# the last hold-out, ids SY*, types with "_fresh2".
FRESH2: list[tuple[str, str]] = [
    (OV, "What's the story so far on learned optimizers?"),
    (OV, "Could you summarise the literature about prompt tuning?"),
    (OV, "Give me a broad picture of research into robot learning from video."),
    (OV, "What has research on federated learning found?"),
    (OV, "What are people doing about jailbreaks?"),
    (OV, "How far along is work on automated theorem proving?"),
    (OV, "Efficient transformers: what's the state of the art?"),
    (OV, "What are the prevailing approaches to text-to-image alignment?"),
    (OV, "Provide a survey of methods for 3D scene reconstruction."),
    (OV, "What trends are emerging in retrieval-augmented generation?"),
    (OV, "What is the literature's verdict on linear attention?"),
    (OV, "Main approaches to neural network pruning?"),
    (OV, "What do the abstracts collectively say about instruction data quality?"),
    (OV, "How do researchers currently evaluate long-context models?"),
    (L, "Which articles discuss data contamination in benchmarks?"),
    (L, "Are there studies comparing RLHF with supervised fine-tuning?"),
    (L, "Can you list work that uses knowledge graphs for question answering?"),
    (L, "Papers about model editing, please."),
    (L, "Does anything in the collection address speculative sampling?"),
    (L, "Who else has studied in-context learning in small models?"),
    (L, "How many papers here use reinforcement learning?"),
    (L, "I'm searching for studies on video tokenizers."),
    (C, "How does GPT-4 compare with Claude on coding?"),
    (C, "Where do T5 and BART differ?"),
    (C, "Which would you pick for retrieval, ColBERT or Contriever?"),
    (C, "Compare Mamba to Transformers on long sequences."),
    (C, "Mamba or RWKV: which is the better choice?"),
    (C, "What separates SimCLR and MoCo?"),
    (C, "How similar are CLIP and ALIGN?"),
    (C, "Is DeBERTa an improvement over RoBERTa?"),
    (F, "What is known about the licence of the Falcon models?"),
    (F, "What has the Phi-2 paper shown about data quality?"),
    (F, "What does the Whisper abstract say about robustness?"),
    (F, "Give me an overview of the DALL-E 2 architecture."),
    (F, "What are the main contributions of GPT-NeoX?"),
    (F, "What approaches to tokenization does ByT5 compare?"),
    (F, "Which studies does the survey cite most?"),
    (F, "Who first showed that transformers can learn in context?"),
    (F, "How has Stable Diffusion been evaluated?"),
    (F, "What trends does the Chinchilla paper report?"),
    (F, "What's the latest model released by Mistral?"),
    (F, "What is the key finding of the lottery ticket paper?"),
    (F, "How do the authors of LLaMA tackle training instability?"),
    (F, "What is the state of the art on WMT14 reported in the Transformer paper?"),
    (F, "What do we know about why GPT-3 fails at arithmetic?"),
    (F, "Which is the largest model in the Pythia suite?"),
]

# Written by the same hand after the third widening (on FRESH2) and left alone: the final hold-out, ids
# SZ*, types with "_fresh3".
FRESH3: list[tuple[str, str]] = [
    (OV, "I'd love a summary of where things are with neural audio codecs."),
    (OV, "What's been going on in the world of sparse mixture-of-experts?"),
    (OV, "Explain what the research says about weight averaging."),
    (OV, "What lessons have been learned from scaling reinforcement learning?"),
    (OV, "Could you describe the research landscape around protein design?"),
    (OV, "What are the leading ideas for making transformers cheaper to run?"),
    (OV, "How well understood is double descent?"),
    (OV, "Survey: graph neural networks for recommendation."),
    (OV, "What should I know about dataset distillation?"),
    (OV, "Summarise the state of research on speculative decoding."),
    (OV, "What has been learned about how transformers store facts?"),
    (OV, "What's the general picture on quantization of large language models?"),
    (L, "Which publications in here deal with music generation?"),
    (L, "Are there any abstracts on graph coloring?"),
    (L, "Show me all the work on robotic grasping."),
    (L, "What papers discuss watermarking?"),
    (L, "Any preprints about weather forecasting with transformers?"),
    (L, "Do any of the studies use human raters?"),
    (L, "Which methods here rely on distillation from a teacher?"),
    (L, "Which researchers have looked at curriculum learning?"),
    (C, "How does Chinchilla stack up against Gopher?"),
    (C, "What's the difference between ViT and DeiT?"),
    (C, "Compare ResNet, ViT and ConvNeXt on ImageNet."),
    (C, "BERT versus GPT-2 for classification?"),
    (C, "In which ways are LoRA and IA3 alike?"),
    (C, "Which is more accurate, YOLO or DETR?"),
    (C, "What distinguishes Mixtral from Mistral 7B?"),
    (C, "Should I use FAISS or ScaNN for vector search?"),
    (F, "What is known about the inference speed of Mamba?"),
    (F, "What approach to routing does Switch Transformer use?"),
    (F, "What did the GPT-2 paper find about zero-shot transfer?"),
    (F, "Give me a rundown of the T5 paper's experiments."),
    (F, "How does Longformer differ from standard self-attention?"),
    (F, "What state of the art does DINO claim?"),
    (F, "What are the main results of the Gemini report?"),
    (F, "Which paper introduced the term foundation models?"),
    (F, "Who has the largest open model according to the BLOOM abstract?"),
    (F, "What are the limitations the Toolformer authors acknowledge?"),
    (F, "What's new in Llama 3 compared to Llama 2?"),
    (F, "Summarise the GPT-4 technical report."),
    (F, "What datasets were used to train CLIP?"),
    (F, "Where does the BitNet abstract report its largest gains?"),
    (F, "What is the overall picture of results in the PaLM paper?"),
]

# Written by the same hand after the fourth widening (on FRESH3) and never tuned on: the hold-out for the
# shipped frames, ids SH*, types with "_holdout".
HOLDOUT: list[tuple[str, str]] = [
    (OV, "what is the consensus in the literature on learning rate warmup"),
    (OV, "Give me the highlights of recent work on visual instruction tuning."),
    (OV, "Can you synthesise the findings on chain-of-thought faithfulness?"),
    (OV, "How have approaches to machine translation changed over time?"),
    (OV, "Is there a consensus on whether RLHF reduces diversity?"),
    (OV, "What's the big picture for sparse retrieval?"),
    (OV, "Tell me about the research landscape in embodied AI."),
    (OV, "What have we learned about scaling laws for data?"),
    (OV, "Where is research on continual pretraining heading?"),
    (OV, "Run me through what's known on positional encodings."),
    (OV, "What is the range of methods people use for uncertainty estimation?"),
    (OV, "What main strategies do the papers propose for reducing KV cache size?"),
    (OV, "Literature review on neural architecture search, please."),
    (OV, "Which directions look promising for efficient fine-tuning?"),
    (L, "Papers that evaluate on GSM8K?"),
    (L, "Could you point me to studies on data pruning?"),
    (L, "List every abstract mentioning contrastive decoding."),
    (L, "Which of the papers address multilingual retrieval?"),
    (L, "Has anyone here trained models on code?"),
    (L, "What works study hallucination in summarisation?"),
    (L, "Find papers where the authors release a new benchmark."),
    (L, "Which teams have published on speech enhancement?"),
    (C, "Mamba versus Hyena: how do they differ?"),
    (C, "How do Gemma and Phi-2 differ in training data?"),
    (C, "Which one is better for retrieval: E5 or BGE?"),
    (C, "What are the similarities between SimCLR and BYOL?"),
    (C, "Compare and contrast Whisper and wav2vec 2.0."),
    (C, "How does XLNet compare with BERT on reading comprehension?"),
    (C, "Is PaLM or Chinchilla more compute-efficient?"),
    (C, "Would you recommend Adam or Lion for training transformers?"),
    (F, "What is known about the training data of Falcon?"),
    (F, "What approaches does the DPO abstract contrast with RLHF?"),
    (F, "What did the PaLM paper find about chain-of-thought?"),
    (F, "What's the main idea of the Longformer abstract?"),
    (F, "Summarize the contributions of the Gemma paper."),
    (F, "Which paper proposed grouped-query attention?"),
    (F, "What does the Mistral 7B abstract say about sliding window attention?"),
    (F, "How much data was Llama 2 trained on?"),
    (F, "What are the key findings in the Phi-1 paper?"),
    (F, "How does the RetNet paper approach parallel training?"),
    (F, "Where does GPT-4 stand on the bar exam according to its report?"),
    (F, "What trends in accuracy does the EfficientNet paper show?"),
    (F, "What approach to long context does the Gemini report describe?"),
    (F, "What progress on MATH does Minerva report?"),
]


def rows() -> list[dict[str, Any]]:
    def row(prefix: str, i: int, shape: str, q: str, batch: str) -> dict[str, Any]:
        return {"id": f"{prefix}{i:03d}", "question": q, "type": TYPES[shape] + batch, "shape": shape,
                "split": "shapes_written", "gold_anchors": [], "key_points": [], "previous": None,
                "made": MADE_HOLDOUT2 if batch == "_holdout2" else MADE}

    return [row(prefix, i, shape, q, batch) for prefix, batch, questions in (("SW", "", QUESTIONS), ("SX", "_fresh", FRESH),
                                                                            ("SY", "_fresh2", FRESH2), ("SZ", "_fresh3", FRESH3),
                                                                            ("SH", "_holdout", HOLDOUT), ("SQ", "_holdout2", HOLDOUT2))
            for i, (shape, q) in enumerate(questions, 1)]


def problems(out: list[dict[str, Any]]) -> list[str]:
    """A row with an unknown shape, a repeated question, or a question another tuning split already has."""
    found = [f"{r['id']}: unknown shape {r['shape']!r}" for r in out if r["shape"] not in SHAPES]
    counts = Counter(r["question"].lower() for r in out)
    found += [f"repeated: {q!r}" for q, n in counts.items() if n > 1]
    others = {r["question"].lower() for name in SPLITS for r in load_for_tuning(resolve_path(name)[1])}
    return found + [f"{r['id']}: also in another tuning split: {r['question']!r}" for r in out if r["question"].lower() in others]


def build(path: Path = PATH, out: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Check ``out`` (default: this set's rows) and write it as JSONL to ``path``."""
    out = rows() if out is None else out
    if bad := problems(out):
        raise SystemExit("\n".join(bad))
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8")
    return out


def confusion() -> dict[str, Any]:
    """The detector's confusion on every tuning split and on this one (by question type)."""
    from evals.lists_metrics import shape_confusion

    return shape_confusion((*SPLITS, str(PATH)))


def misses() -> list[tuple[str, str, str]]:
    """This set's rows whose detected shape is not their label: (id, label -> detected, question)."""
    from assistant.question.shape import detect

    return [(r["id"], f"{r['shape']} -> {kind}", r["question"]) for r in rows() if (kind := detect(r["question"]).kind) != r["shape"]]


def main(argv: list[str] | None = None) -> int:
    command = (argv if argv is not None else sys.argv[1:])[:1] or ["build"]
    if command == ["build"]:
        print(f"{PATH}: {len(build())} rows")
    elif command == ["shapes"]:
        print(json.dumps(confusion(), indent=1))
    elif command == ["misses"]:
        for row in misses():
            print(*row, sep="\t")
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
