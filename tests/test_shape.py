"""The question's shape (assistant/question/shape.py): fact, list, compare, overview — from English alone."""

from __future__ import annotations

import pytest

from assistant.question.shape import COMPARE, FACT, LIST, OVERVIEW, detect


@pytest.mark.parametrize(("question", "topic"), [
    ("which papers here study state space models?", "state space models"),
    ("Which abstracts mention mixture of experts?", "mixture of experts"),
    ("List the papers that mention speculative decoding.", "speculative decoding"),
    ("Are there any papers about retrieval-augmented generation?", "retrieval-augmented generation"),
    ("How many papers are there on linear attention?", "linear attention"),
    ("Which papers study how transformers do arithmetic?", "how transformers do arithmetic"),
    ("Which abstracts introduce a model called Zebra, and what is each one designed for?", "Zebra"),  # a naming apposition: the name
    ("What works in the collection deal with beam search?", "beam search"),
])
def test_plural_works_questions_are_lists_with_their_topic(question: str, topic: str) -> None:
    shape = detect(question)
    assert shape.kind == LIST and shape.topic == topic


@pytest.mark.parametrize("question", [
    "Which work proposes alternating between a memorizing phase and a squeezing phase?",  # singular: one paper
    "What methods does FlashAttention use?",  # plural object of a named subject
    "How many patent documents was PaECTER fine-tuned on?",
    "What datasets does the Ring Attention paper use?",
    "What is the performance of Mamba compared to that of the Transformer?",  # a comparison inside one paper
    "What is Ring Attention?",
    "Which of these report speed-ups?",  # "these" without a previous list
    "Which works best for detecting concepts?",  # "works" before a degree adverb is the verb: which one works best
    "And which works better on small datasets?",
    "",
])
def test_single_fact_questions_stay_facts(question: str) -> None:
    assert detect(question).kind == FACT


@pytest.mark.parametrize(("question", "names"), [
    ("How do Ring Attention and FlashAttention differ?", ["Ring Attention", "FlashAttention"]),
    ("Compare Mamba and HGRN.", ["Mamba", "HGRN"]),
    ("Mamba vs. Hyena: which is faster?", ["Mamba", "Hyena"]),
    ("What is the difference between RetNet and RWKV?", ["RetNet", "RWKV"]),
])
def test_comparison_frames_with_two_names(question: str, names: list[str]) -> None:
    shape = detect(question)
    assert shape.kind == COMPARE and shape.names == names


def test_a_comparison_frame_needs_two_names() -> None:
    assert detect("How do the two methods differ?").kind == FACT
    assert detect("Compare the approaches.").kind == FACT


@pytest.mark.parametrize(("question", "topic"), [
    ("What is known about state space models?", "state space models"),
    ("What has been tried for long-context extrapolation?", "long-context extrapolation"),
    ("Give an overview of knowledge distillation.", "knowledge distillation"),
    ("What do the papers say about layer normalization?", "layer normalization"),
])
def test_overviews(question: str, topic: str) -> None:
    shape = detect(question)
    assert shape.kind == OVERVIEW and shape.topic == topic


def test_which_of_these_picks_from_a_previous_list() -> None:
    shape = detect("Which of these report speed-ups?", previous_was_list=True)
    assert shape.kind == LIST and shape.follow_up and shape.topic == "speed-ups"


def test_do_support_makes_the_works_noun_an_object() -> None:
    assert detect("How many papers does the survey of Mamba models review?").kind == FACT
    assert detect("Which papers does the collection have on mixture of experts?").topic == "mixture of experts"
    assert detect("Which papers are about Mamba?").kind == LIST


# --- how else English asks about a collection (phrasings made up for these tests) ------------------
@pytest.mark.parametrize(("question", "topic"), [
    ("What methods in this collection reduce the memory of the KV cache?", "reduce the memory of the KV cache"),  # the verb is the topic's (#21)
    ("Which approaches here handle long documents?", "long documents"),
    ("Which techniques have been proposed for pruning attention heads?", "pruning attention heads"),  # selective "which"
    ("Which models use rotary position embeddings?", "rotary position embeddings"),
    ("Which approaches exist for detecting hallucinations?", "detecting hallucinations"),
    ("Are there any techniques for quantizing activations?", "quantizing activations"),
    ("Is there any work on protein folding in the corpus?", "protein folding"),
    ("Do any papers here discuss federated learning?", "federated learning"),
    ("Does the collection have anything on curriculum learning?", "curriculum learning"),
    ("Do you have papers about speech recognition?", "speech recognition"),
    ("Papers on graph neural networks?", "graph neural networks"),
    ("Anything on sparse autoencoders?", "sparse autoencoders"),
    ("I'm looking for papers on contrastive learning.", "contrastive learning"),
    ("Show me work on tokenization.", "tokenization"),
    ("What are some papers on instruction tuning?", "instruction tuning"),
    ("What is there on active learning in this collection?", "active learning"),
    ("Which studies among these papers evaluate on ImageNet?", "ImageNet"),
    ("List the methods proposed for low-rank adaptation.", "low-rank adaptation"),
    ("What models in the corpus are trained with reinforcement learning?", "reinforcement learning"),
])
def test_collection_phrasings_are_lists(question: str, topic: str) -> None:
    shape = detect(question)
    assert shape.kind == LIST and shape.topic == topic and not shape.follow_up


@pytest.mark.parametrize("question", [
    "What techniques are used in Ring Attention?",  # a name after a preposition: one work's content
    "Which models were used as baselines for Zebra?",  # past tense: one paper's report
    "How many models did the authors evaluate?",
    "What approaches does the paper compare against?",
    "Which architectures are compared with FlashAttention?",
    "What models does the proposed method outperform?",
    "What are the two models combined in the hybrid?",  # a definite plural: a set the context fixes
    "Which technique allows diffusion models to interpolate?",  # singular head before a plural noun
    "What kind of models clean up noisy satellite images?",  # "kind of": one category asked for
    "How many layers and heads did the distilled model keep?",
    "Is there a paper that proposes ring attention?",  # singular: one paper
])
def test_one_work_phrasings_stay_facts(question: str) -> None:
    assert detect(question).kind == FACT


@pytest.mark.parametrize(("question", "topic"), [
    ("What is known here about retrieval augmentation?", "retrieval augmentation"),
    ("What has been proposed to speed up diffusion sampling?", "speed up diffusion sampling"),
    ("What have researchers tried for reducing label noise?", "reducing label noise"),
    ("Summarise the research on speculative decoding.", "speculative decoding"),
    ("Survey the literature on model merging.", "model merging"),
    ("Give me a brief overview of the work on continual learning.", "continual learning"),
    ("What do the abstracts in this collection say about tokenization?", "tokenization"),
    ("How has length generalization been approached?", "length generalization"),
    ("What is the state of the art on text-to-SQL?", "text-to-SQL"),
    ("What are the main approaches to model compression?", "model compression"),
    ("Summarize what is known about grokking.", "grokking"),
    ("What does the literature say about scaling laws?", "scaling laws"),
])
def test_overview_phrasings(question: str, topic: str) -> None:
    shape = detect(question)
    assert shape.kind == OVERVIEW and shape.topic == topic


@pytest.mark.parametrize(("question", "names"), [
    ("How does Mamba differ from RetNet?", ["Mamba", "RetNet"]),
    ("How does FlashAttention compare to Ring Attention?", ["FlashAttention", "Ring Attention"]),
    ("In what ways do LoRA and QLoRA differ?", ["LoRA", "QLoRA"]),
    ("What distinguishes RWKV from Hyena?", ["RWKV", "Hyena"]),
    ("What are the similarities between BERT and ELECTRA?", ["BERT", "ELECTRA"]),
    ("What do Mamba and S4 have in common?", ["Mamba", "S4"]),
    ("Which is faster, Mamba or Hyena?", ["Mamba", "Hyena"]),
    ("Contrast GPT-2 with BERT.", ["GPT-2", "BERT"]),
])
def test_comparison_phrasings(question: str, names: list[str]) -> None:
    shape = detect(question)
    assert shape.kind == COMPARE and shape.names == names


def test_a_property_compared_is_one_papers_fact() -> None:
    assert detect("How does Mamba's accuracy compare to that of Hyena?").kind == FACT
    assert detect("What is known about the speed of FlashAttention compared to standard attention?").kind == FACT
    assert detect("What is known about Mamba's memory use?").kind == FACT
    assert detect("What is known about the training of state space models?").kind == OVERVIEW  # no name: a topic


@pytest.mark.parametrize(("question", "topic"), [
    ("Which of these papers report speed-ups?", "speed-ups"),
    ("Of these, which use a GPU?", "GPU"),
    ("Do any of them release code?", "code"),
    ("Which ones evaluate on ImageNet?", "ImageNet"),
    ("Among those, which report accuracy?", "accuracy"),
])
def test_follow_ups_on_a_list(question: str, topic: str) -> None:
    shape = detect(question, previous_was_list=True)
    assert shape.kind == LIST and shape.follow_up and shape.topic == topic


@pytest.mark.parametrize("question", ["Of these, which use a GPU?", "Do any of them release code?", "Among those, which report accuracy?"])
def test_a_pronoun_follow_up_needs_a_previous_list(question: str) -> None:
    assert detect(question).kind == FACT


def test_list_follow_up_edges() -> None:
    assert detect("Which of them reaches the highest accuracy?", previous_was_list=True).kind == FACT  # a superlative picks one
    shape = detect("What about diffusion models?", previous_was_list=True)
    assert shape.kind == LIST and shape.topic == "diffusion models" and not shape.follow_up
    assert detect("What about diffusion models?").kind == FACT


# --- overviews in the other ways English asks for one (frames, not topics; made up for these tests) --
@pytest.mark.parametrize(("question", "topic"), [
    ("What do these abstracts say about curriculum learning?", "curriculum learning"),
    ("Tell me what the corpus says about tokenization.", "tokenization"),
    ("What have these papers found about grokking?", "grokking"),
    ("Give me the state of things on model merging.", "model merging"),
    ("What's the state of play in speculative decoding?", "speculative decoding"),
    ("Can you give me a rundown of the research on sparse attention?", "sparse attention"),
    ("I'd like a summary of what's been done with graph transformers.", "graph transformers"),
    ("What's the gist of the work on weight decay?", "weight decay"),
    ("Help me understand the research landscape for protein language models.", "protein language models"),
    ("Give me a short synthesis of the literature on data pruning.", "data pruning"),
    ("Walk me through the research on positional encodings.", "positional encodings"),
    ("Could you outline the work on quantization?", "quantization"),
    ("Brief me on federated learning in this collection.", "federated learning"),
    ("How have people tackled hallucination?", "hallucination"),
    ("How do the papers here approach long-context retrieval?", "long-context retrieval"),
    ("What's the current thinking on emergent abilities?", "emergent abilities"),
    ("What is the current understanding of in-context learning?", "in-context learning"),
    ("What are the key findings on length generalization?", "length generalization"),
    ("What are the main ideas in the papers on contrastive learning?", "contrastive learning"),
    ("What progress has been made on machine translation?", "machine translation"),
])
def test_more_overview_frames(question: str, topic: str) -> None:
    shape = detect(question)
    assert shape.kind == OVERVIEW and shape.topic == topic


@pytest.mark.parametrize("question", [
    "What does the paper say about its training data?",  # one paper (singular) says it
    "How do the authors approach the evaluation?",  # the authors: one paper's
    "How does the model approach the task?",
    "What are the key findings of the Mamba paper?",  # findings *of* a work: its fact
    "What is the summary of FlashAttention's results?",  # a property of a named work
    "What is the main idea of the proposed method?",
    "What are the results on ImageNet?",  # no digest noun, no key adjective: one report
])
def test_overview_frames_leave_one_works_facts(question: str) -> None:
    assert detect(question).kind == FACT


@pytest.mark.parametrize(("question", "topic", "predicate"), [
    ("Any of those evaluated on images?", "images", "evaluated on images"),
    ("The ones that use reinforcement learning?", "reinforcement learning", "that use reinforcement learning"),
    ("Show me only the ones that release code.", "code", "that release code"),
    ("How many of these are about medical imaging?", "medical imaging", "are about medical imaging"),
    ("Which of those have theoretical results?", "theoretical results", "have theoretical results"),  # "have" is the verb here
    ("Do any of them reduce memory use?", "memory use", "reduce memory use"),
])
def test_more_follow_up_frames_keep_the_filter_as_asked(question: str, topic: str, predicate: str) -> None:
    shape = detect(question, previous_was_list=True)
    assert shape.kind == LIST and shape.follow_up and shape.topic == topic and shape.predicate == predicate


def test_the_ones_without_a_previous_list_is_no_follow_up() -> None:
    assert detect("The ones that use reinforcement learning?").kind == FACT
    assert not detect("Any of those evaluated on images?").follow_up


def test_british_requests_and_a_dangling_copula() -> None:
    assert detect("I'm after papers on convolutional neural networks.").topic == "convolutional neural networks"
    assert detect("What approaches to low-rank adaptation are in the collection?").topic == "low-rank adaptation"
    assert detect("Which papers have studied state space models?").topic == "state space models"


def test_no_fact_question_of_a_tuning_split_becomes_an_overview() -> None:
    from evals.lists_metrics import shape_confusion

    confusion = shape_confusion(("dev", "generated", "generated_unanswerable", "calibration"))
    assert not [(split, t) for split, types in confusion.items() for t, kinds in types.items() if "overview" in kinds]
    assert all(not kinds.get("list") for t, kinds in confusion["calibration"].items())


def test_an_overview_frame_anchored_to_one_work_is_its_fact() -> None:
    assert detect("What are the main challenges in long-context modelling that the paper identifies?").kind == FACT
    assert detect("How have researchers approached the problem this paper raises?").kind == FACT
    assert detect("What is known about its memory use?").kind == FACT
    assert detect("How have researchers approached hallucination?").kind == OVERVIEW


@pytest.mark.parametrize(("question", "topic"), [
    ("What work is there on state space models?", "state space models"),  # a mass noun for writing + what exists
    ("What mechanistic interpretability work is there on induction heads?", "induction heads"),
    ("What research exists here on mixture of experts?", "mixture of experts"),
    ("What kind of work has been done on mixture of experts?", "mixture of experts"),
    ("What literature is available on speculative decoding?", "speculative decoding"),
    ("Has there been any work on state space models?", "state space models"),  # existential, present perfect
    ("Have any papers here used RoPE?", "RoPE"),  # any auxiliary before "any papers"
    ("Are any papers here about RoPE?", "RoPE"),
    ("Anything in here on state space models?", "state space models"),  # the bare question with a locative
    ("Any papers in the collection on beam search?", "beam search"),
    ("Has anyone worked on mixture of experts?", "mixture of experts"),  # an indefinite pronoun: does work exist
    ("Has anything been published on mixture of experts?", "mixture of experts"),
    ("Is anybody here studying speculative decoding?", "speculative decoding"),
])
def test_what_work_exists_is_a_list(question: str, topic: str) -> None:
    shape = detect(question)
    assert (shape.kind, shape.topic) == (LIST, topic)


@pytest.mark.parametrize("question", [
    "What research is there in this paper?",  # one work's
    "What work does the paper build on?",  # the mass noun is an object of "the paper"
    "What research question does the paper address?",  # "research" modifies the head
    "Has anyone shown that very deep networks generalise long after fitting their data?",  # a claim: one finding
    "What does the paper on state space models report?",  # ONE work
    "What does the work on state space models report?",
    "Which work proposes routing tokens to experts?",  # singular: one paper
])
def test_one_work_or_a_claim_stays_a_fact(question: str) -> None:
    assert detect(question).kind == FACT


@pytest.mark.parametrize(("question", "topic", "verbal"), [
    ("Which papers route each token to an expert?", "route each token to an expert", True),  # the verb is the topic's
    ("Are there papers that route each token to an expert?", "route each token to an expert", True),
    ("Does anyone here route tokens to experts?", "route tokens to experts", True),
    ("Which papers reduce the memory of the KV cache?", "reduce the memory of the KV cache", True),
    ("Which papers compress or evict cached attention states?", "compress or evict cached attention states", True),
    ("Which papers use or extend LoRA?", "use or extend LoRA", True),  # a coordination with a verb of the topic's
    ("Which papers study state space models?", "state space models", False),  # a verb of what a text does: the frame
    ("Which papers explicitly study state space models?", "state space models", False),
    ("Which papers propose routing each token to an expert?", "routing each token to an expert", False),
    ("Which abstracts introduce, build on, or use the RASP language?", "RASP language", False),
    ("Any work that uses or compares against gated recurrent networks?", "gated recurrent networks", False),
    ("Which papers look at prompting models?", "prompting models", False),  # a verb whose object a preposition takes
    ("Which papers are about state space models?", "state space models", False),
    ("Which papers have theoretical results?", "theoretical results", False),
])
def test_a_verb_of_the_topic_stays_in_it(question: str, topic: str, verbal: bool) -> None:
    shape = detect(question)
    assert (shape.kind, shape.topic, shape.verbal) == (LIST, topic, verbal)


def test_a_follow_ups_topic_drops_its_verb_and_its_predicate_keeps_it() -> None:
    shape = detect("Do any of them reduce memory use?", previous_was_list=True)
    assert (shape.follow_up, shape.topic, shape.predicate) == (True, "memory use", "reduce memory use")


def test_no_fact_question_of_a_tuning_split_becomes_a_list() -> None:
    from evals.lists_metrics import shape_confusion

    confusion = shape_confusion(("dev", "generated_unanswerable", "calibration"))
    assert [(split, t) for split, types in confusion.items() for t, kinds in types.items() if kinds.get("list")] == [("dev", "multi")]


@pytest.mark.parametrize("question", [
    "List the models Hyena was benchmarked against.",  # a name as the subject of a relative without "that"
    "Name the techniques RetNet combines.",
    "Which algorithms can Mamba beat at 1B parameters?",  # a modal inverts like do-support: the named subject's object
    "Which models can RWKV match in perplexity?",
    "Which of the two papers on sparse attention is faster?",  # a partitive with a singular verb picks one
    "Which of the papers on linear attention reports a 4x speed-up?",
    "Show me the work that introduced Ring Attention.",  # the one work that originated a named thing
    "Find research that first proposed LoRA.",
    "Give me a summary of the Hyena paper.",  # a definite singular work noun after modifiers is one work
    "What are the key findings in RetNet?",  # a content noun "in" a name: inside that one work
])
def test_list_looking_fact_questions_stay_facts(question: str) -> None:
    assert detect(question).kind == FACT


@pytest.mark.parametrize(("question", "kind"), [
    ("List the models that Hyena was benchmarked against.", FACT),  # the relative with "that": the same named subject
    ("List the models proposed for long-context retrieval.", LIST),  # no named subject: still a list
    ("Which of the papers on sparse attention report speed-ups?", LIST),  # plural verb: several
    ("Which of the papers discuss linear attention?", LIST),
    ("Show me the work on Ring Attention.", LIST),  # a mass noun without origination: the body of work
    ("Find research that uses LoRA.", LIST),
    ("What are the key findings in the papers on state space models?", OVERVIEW),  # "in the papers": the collection
    ("What are the key findings on long-context models?", OVERVIEW),
])
def test_the_fact_rules_leave_lists_and_overviews(question: str, kind: str) -> None:
    assert detect(question).kind == kind


@pytest.mark.parametrize(("question", "kind", "topic"), [
    ("Papers on the decision transformer, please.", "list", "decision transformer"),
    ("Could you list papers on RLHF please", "list", "RLHF"),
    ("What is known about distillation, thanks!", "overview", "distillation"),
])
def test_a_closing_politeness_marker_is_not_part_of_the_topic(question: str, kind: str, topic: str) -> None:
    shape = detect(question)
    assert (shape.kind, shape.topic) == (kind, topic)


@pytest.mark.parametrize(("question", "topic"), [
    ("Which papers use a method known as LoRA?", "LoRA"),
    ("Which papers use an architecture termed S4?", "S4"),
    ("Papers on named entity recognition", "named entity recognition"),  # a participle, no name given
    ("Papers on a technique named knowledge distillation", "technique named knowledge distillation"),  # not a proper name
])
def test_a_naming_apposition_lists_by_the_name(question: str, topic: str) -> None:
    assert detect(question).topic == topic


@pytest.mark.parametrize(("question", "topic"), [
    ("What research addresses catastrophic forgetting?", "catastrophic forgetting"),
    ("Which literature covers retrieval augmentation?", "retrieval augmentation"),
    ("What research has examined tokenization?", "tokenization"),
])
def test_a_mass_noun_for_writing_doing_something_asks_for_a_list(question: str, topic: str) -> None:
    # "research" / "literature" have no singular work reading: as a verb's subject they name the body of writing
    shape = detect(question)
    assert shape.kind == LIST and shape.topic == topic


@pytest.mark.parametrize("question", [
    "What research shows that scaling helps?",  # a claim's fact: the that-clause
    "What research does the LASP-2 paper build on?",  # an auxiliary: a question about one work
    "What research inspired the Mamba paper?",  # one work's background
])
def test_a_mass_noun_subject_about_one_work_or_a_claim_stays_a_fact(question: str) -> None:
    assert detect(question).is_fact
