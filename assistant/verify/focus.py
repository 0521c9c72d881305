"""The question's focus — the item a wh-question asks for — and whether an answer states it.

"What is the license of the LASP-2 code?" asks for a licence; LASP-2's sentences about its speed
answer the topic, not the question. The answer should then say so ("The abstracts found describe
LASP-2 but do not state the license") rather than stand as a plain answer. The focus is read from
the structure English gives a question, never from any question set:

- **"what / which N ..."**: a wh-determiner and its noun phrase ("Which GPU model ...", "What FID
  score does ...", "Under what software license is ...", "On which datasets was ..."): N is what
  the answer must be. A head "kind / type / sort / form / class / variety of" is the category's
  frame, not the item: the noun phrase after "of" is ("What type of attention mechanism ...").
- **"what is the N of X" / "what is X's N"**: a copula, a determiner or a possessive, and the noun
  phrase up to the preposition or verb that attaches it to X: the attribute N asked about X.
  "What is X?" (no determiner) asks what X is: any sentence about X answers; no focus.
- **"how many / how much N"**: N counted or measured.

The noun phrase ends at the first function word (English puts the wh-phrase before the auxiliary,
the preposition or the relative that follows it) and holds at most ``_MAX_NP`` words.

**What makes a focus checkable.** Nouns that name the role a statement plays (the discourse nouns
of scientific writing: "method", "result", "problem"; the document nouns: "paper", "study"; the
vague nouns: "thing", "aspect") and the top of the field's taxonomy ("model", "mechanism",
"framework", "AI", "neural network"), whose instances an answer names or describes without
repeating the kind, are not checked, nor are evaluative and deictic adjectives ("main", "new",
"proposed"); a focus that holds nothing else is no focus. The rest ("license", "GPU", "perplexity",
"FID") is stated when the answer's supported sentences hold its **head** (stemmed): English puts a
compound's head last and its modifiers restrict it (a "video platform" is a platform; video clips
do not state one). A modifier that is a name ("FID score") states it on its own; a generic or
category head ("GPU model") leaves its checkable modifiers to state it. The other modifiers are not
required ("an MIT license" states the "software license"; lenient by design), and there is no
synonym list (none ships offline; the stemmer joins a word's forms). A possessor inside the
wh-phrase ("Which video platform's clips") is what "which" asks for. Beyond the head: a count, a
value and an identification (``_counted``, ``_valued``, ``_identified``), and the bearer
(``unstated_focus``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.evidence.scoring import stated_terms, terms
from assistant.language.names import mentioned, names
from assistant.language.text import split_sentences

# words (inner . + / - and the possessive 's kept, as English and the field write names: "GPT-4",
# "C++", "Llama-2's", "TCP/IP"), and the punctuation that ends a phrase; a tokeniser, not a word list
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+/'’-]*[A-Za-z0-9+]|[A-Za-z0-9]|[?!,;:()\[\]\"]")
_PUNCTUATION = set("?!,;:()[]\"")
_MAX_NP = 4  # sanity bound: an English noun phrase before its verb is a few words ("standard VAT rate")
# what ends a noun phrase: auxiliaries and copulas (the verb after a wh-phrase), prepositions (its
# attachment to X), relatives and conjunctions, and the question words. These are English's closed
# word classes (the modal and primary auxiliaries, the copula's finite forms incl. the contraction
# 's, the common simple and compound prepositions), listed from grammar, not from any question set.
_AUX = {"do", "does", "did", "is", "are", "was", "were", "be", "been", "has", "have", "had", "can", "could",
        "will", "would", "should", "may", "might", "must", "shall"}
_COPULA = {"is", "are", "was", "were", "'s"}
_PREPOSITION = {"of", "for", "in", "on", "to", "with", "by", "from", "at", "as", "into", "onto", "over", "under",
                "about", "between", "against", "behind", "through", "across", "within", "without", "via", "per"}
_FUNCTION = _AUX | _PREPOSITION | _PUNCTUATION | {
    "than", "like", "that", "which", "who", "whom", "whose", "what", "when", "where", "why", "how", "if", "whether",
    "and", "or", "but", "nor", "so", "the", "a", "an", "this", "these", "those", "it", "its", "they", "their",
    # the participles that attach a reduced relative ("the accuracy reported on X")
    "used", "using", "achieved", "reported", "proposed", "introduced", "given", "obtained", "shown",
}
# English's degree words after "how much / how many" (more, less, fewer and the comparatives of
# the dimension adjectives): they ask for a difference, not for a thing. From grammar (the
# comparative forms of the common size / speed / cost / time adjectives), not from any question set
_COMPARATIVE = {"more", "less", "fewer", "better", "worse", "faster", "slower", "larger", "smaller", "bigger",
                "longer", "shorter", "higher", "lower", "greater", "cheaper", "quicker", "wider", "deeper",
                "earlier", "later", "further", "farther"}
# the verbs of occurrence and causation that open English subject questions ("What happens to X",
# "What makes X fast", "What causes", "What leads to"): a verb, not a noun phrase
_SUBJECT_VERB = {f"{v}{e}" for v in ("happen", "make", "cause", "lead", "drive", "determine", "allow", "enable",
                                     "help", "limit", "explain", "affect", "control") for e in ("", "s", "ed", "d")}
_DETERMINER = {"the", "its", "their", "his", "her", "this", "that", "these", "those", "a", "an"}
# a category frame: "what type of N" asks for an N
_FRAME = {"kind", "kinds", "type", "types", "sort", "sorts", "form", "forms", "class", "classes", "variety",
          "category", "categories", "version", "variant", "style", "family"}
# see the module docstring: nouns a statement fills by its content, not by naming them
_GENERIC = {
    # discourse nouns of scientific writing
    "method", "approach", "technique", "strategy", "way", "idea", "contribution", "result", "finding",
    "outcome", "conclusion", "purpose", "goal", "aim", "objective", "motivation", "problem", "challenge",
    "issue", "limitation", "drawback", "advantage", "benefit", "improvement", "innovation", "insight",
    "claim", "solution", "role", "effect", "impact", "difference", "reason", "focus", "principle",
    "concept", "process", "procedure", "design", "feature", "property", "characteristic", "strength",
    "weakness", "application", "use", "task", "question", "observation", "hypothesis", "trick",
    # document nouns
    "paper", "abstract", "work", "study", "article", "publication", "research", "survey", "author",
    "authors", "report", "literature",
    # vague nouns
    "thing", "aspect", "part", "element", "example", "case", "information", "detail", "factor", "point",
    "kind", "type", "sort", "form", "class", "means", "step", "stage",
    # quantity nouns: the figure answers, not the word
    "number", "percentage", "percent", "fraction", "proportion", "share", "amount", "ratio", "count", "quantity",
    # naming nouns: the answer gives the name, not the word "name"
    "name", "term", "acronym", "title", "label",
    # evaluation nouns, answered by figures or a description rather than by their word
    "performance", "ability", "relationship", "behavior", "behaviour",
}
# the top of the field's taxonomy: a category an answer fills by naming or describing an instance
# ("What mechanism does X use?" - "X routes each token to ..."; "What statistical method ..." -
# "KeyNMF"), and the field itself (AI, machine / deep learning, neural networks: in "what type of
# neural network" it is the category whose instance, "a transformer", answers). In "how many N"
# they are the count's unit, which English writes beside the number ("7B parameters", "64 GPUs"):
# checked there.
_CATEGORY = {
    "model", "architecture", "framework", "system", "mechanism", "algorithm", "component", "module",
    "tool", "structure", "scheme", "setting", "configuration", "variant", "version", "operation",
    "phenomenon", "measure", "metric", "function", "data", "technology", "capability", "parameter",
    "method", "approach", "technique", "strategy",
    "ai", "artificial", "intelligence", "machine", "learning", "deep", "neural", "network",
    "hardware", "software",  # collective mass nouns, answered by naming a member ("a 4090 GPU", "PyTorch")
}
# the field's words that English writes before a head ("deep / neural / artificial" are adjectives;
# "machine", "learning", "AI" premodify: "machine translation", "learning rate", "AI model"): a
# compound runs on past them, where a generic noun is the head (the field's premodifiers as its
# terms are spelled: "deep learning", "neural network", "machine translation", "software license")
_PREMODIFIER = {"ai", "artificial", "machine", "learning", "deep", "neural", "hardware", "software"}
_MODIFIER = {"main", "key", "primary", "principal", "central", "core", "major", "new", "novel", "proposed",
             "specific", "particular", "exact", "precise", "overall", "general", "basic", "unique", "different",
             "other", "first", "best", "current", "existing", "underlying", "common", "certain", "same", "own",
             "such", "important", "significant", "actual", "typical",
             "additional", "further", "alternative", "traditional", "standard",
             # evaluative adjectives: the asker's judgement, not a kind
             "innovative", "popular", "well-known", "famous", "fundamental", "crucial", "critical", "essential",
             "notable", "interesting", "effective", "powerful", "successful", "prominent", "recent", "special"}
_OPENERS = {"and", "so", "but", "then", "also", "ok", "okay", "now"}


@dataclass
class Focus:
    phrase: str  # the noun phrase as the question writes it ("software license")
    words: list[str]  # its checkable words ("software", "license")
    quantity: bool = False  # asked by "how many / how much"
    instance: bool = False  # the head is a category (_CATEGORY): an instance the answer names states it
    head: str = ""  # the compound's head when it is checkable (the last word); "" when generic: any word states it
    which: bool = False  # asked by "which N": an identification, stated by naming the instance (see _identified)
    value: bool = False  # the head is a noun of measure (_MEASURE): stated with a number (see _valued)


def _plural(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _phrase(words: list[str], i: int, closed: bool = False) -> list[str]:
    """The noun phrase starting at ``words[i]``: up to the first function word, at most _MAX_NP;
    ``closed``: it must end before an auxiliary or a preposition (or at a generic head)."""
    j = i
    while j < len(words) and words[j].lower() in _MODIFIER:
        j += 1  # "what special type of N"
    if j + 1 < len(words) and words[j].lower() in _FRAME and words[j + 1].lower() == "of":
        i = j + 2
    out: list[str] = []
    for j, w in enumerate(words[i:], start=i):
        if w.lower() in _FUNCTION or len(out) >= _MAX_NP:
            break
        if out and w.lower().endswith("ed") and (j + 1 == len(words) or words[j + 1].lower() in _FUNCTION):
            break  # a participle before its complement begins a reduced relative ("the vectors inserted into")
        out.append(w)
        if _generic(w) and w.lower() not in _PREMODIFIER:
            # English puts a compound's head last ("GPU model", "attention mechanism"), and a
            # generic noun is a head: what follows it is the verb of a subject question
            # ("Which abstracts mention X"), not the phrase
            return out
    end = i + len(out)
    after = words[end].lower() if end < len(words) else ""
    if closed and not (after in _AUX or after in _PREPOSITION or (out and after.endswith("ed"))):
        # an object wh-phrase is followed by its auxiliary ("What FID score does X achieve") or a
        # preposition ("Which GPU were X measured on"); a phrase running into anything else began
        # with the verb of a subject question ("What makes X fast", "What happens when")
        return []
    return out


def _generic(word: str, counted: bool = False) -> bool:
    """A word of _GENERIC (or, unless it is a count's unit, of _CATEGORY), singular or plural."""
    w = word.lower()
    sets = (_GENERIC,) if counted else (_GENERIC, _CATEGORY)
    return any(w in g or _plural(w) in g for g in sets)


def _possessed(words: list[str], i: int) -> int | None:
    """After a copula: the index where the attribute's noun phrase starts — after a determiner
    ("the N of X") or a possessive ("X's N"), None when the copula is followed by neither."""
    if i < len(words) and words[i].lower() in _DETERMINER:
        return i + 1
    for j in range(i, min(i + _MAX_NP, len(words))):
        if words[j].lower().endswith(("'s", "’s")) or words[j].endswith(("s'", "s’")):
            return j + 1
        if words[j].lower() in _FUNCTION:
            return None
    return None


def _wh_start(words: list[str]) -> int | None:
    """Index of the wh-word that opens the question (after "And", or a preposition: "Under what")."""
    lower = [w.lower() for w in words]
    j = 0
    while j < len(lower) and lower[j] in _OPENERS:
        j += 1
    if j < len(lower) and lower[j] in ("what", "which", "how"):
        return j
    if j + 1 < len(lower) and lower[j] in _FUNCTION and lower[j + 1] in ("what", "which"):
        return j + 1  # a preposition fronted with its wh-phrase ("On which datasets ...")
    return None


def focus(question: str) -> Focus | None:
    """The item ``question`` asks for (see the module docstring), or None: no wh-structure that
    names one, or a noun phrase of generic words only."""
    # "what's the N" is "what is the N" (the contraction is the copula)
    question = re.sub(r"\b(what|which|who|how)['’]s\b", r"\1 is", question, flags=re.I)
    words = [m.group(0) for m in _WORD.finditer(question)]
    i = _wh_start(words)
    if i is None or i + 1 >= len(words):
        return None
    wh, nxt = words[i].lower(), words[i + 1].lower()
    quantity = wh == "how" and nxt in ("many", "much")
    if quantity:
        # "how much faster / more": a degree, not a noun
        np = [] if i + 2 < len(words) and words[i + 2].lower() in _COMPARATIVE else _phrase(words, i + 2)
    elif wh == "how":
        return None  # "how does X work": a manner, answered by any description
    elif nxt in _COPULA:
        start = _possessed(words, i + 2)
        np = _phrase(words, start) if start is not None else []
    elif nxt in _SUBJECT_VERB:
        return None  # "what happens / makes / causes ...": the wh-word is the subject, no noun asked for
    else:
        np = _phrase(words, i + 1, closed=True)
    np = _possessor(np)
    checked = [w for w in np if not _generic(w, quantity) and w.lower() not in _MODIFIER and terms(w)]
    instance = bool(np) and not quantity and (np[-1].lower() in _CATEGORY or _plural(np[-1].lower()) in _CATEGORY)
    head = np[-1] if np and checked and np[-1] == checked[-1] else ""
    which = wh == "which" and not quantity and nxt not in _COPULA
    value = not quantity and bool(head) and _plural(head.lower()) in _MEASURE
    return Focus(" ".join(np), checked, quantity, instance, head, which, value) if checked else None


def _possessor(np: list[str]) -> list[str]:
    """The wh-phrase up to a possessive inside it: "which video platform's clips" asks which
    platform (the possessor takes the wh-determiner), so the item is "video platform"."""
    for k, w in enumerate(np[:-1]):
        if w.lower().endswith(("'s", "’s")):
            return [*np[:k], w[:-2]]
    return np


def stated(f: Focus, said: str, question: str = "") -> bool:
    """Whether the answer's supported sentences ``said`` hold the focus's head (``Focus.head``),
    or a name among its modifiers, or (a generic head) any of its checkable words; or, for a
    category (``Focus.instance``), name something the question does not (the instance)."""
    held = stated_terms(said)  # a prefixed word states its base ("pretraining": training)
    if f.head:
        if all(t in held for t in terms(f.head)) or any(mentioned(n, said) for n in names(f.phrase)):
            return _counted(f, said) and _valued(f, said) and _identified(f, said, question)  # a name: "FID score"
    elif any(t in held for w in f.words for t in terms(w)):
        return True
    return f.instance and any(not mentioned(n, question) for n in names(said))


# What the item asked for is, beyond its words (the head stated is necessary, not sufficient):
# - **a count** ("how many N"): English writes a count before the noun it counts, its unit
#   ("64 GPUs", "3B and 7B checkpoints", "a 12-layer model"); a number elsewhere counts something
#   else ("25 irrelevant patents" is no count of "patent documents").
# - **a value** ("what learning rate / batch size / FID score"): a noun of measure names a
#   dimension whose instances are values, so a sentence naming the dimension without a number
#   ("the effective learning rate remains constant") states that there is one, not which.
# - **an identification** ("which N"): "which" asks to pick among instances, by a name ("Which video
#   platform" - "YouTube") or a description ("Which two attention maps" - "two separate softmax
#   attention maps"); N written with only the question's own words ("data from five news sites")
#   picks none. So N must stand by a name or a premodifier (English puts a noun's restrictive
#   modifiers before it) the question lacks. "What N" asks for a kind as often ("a contrastive loss").
# The nouns of measure: those of English's dimension adjectives (long/length, wide/width, deep/depth,
# large/size, fast/speed, heavy/weight, far/distance, frequent/frequency, hot/temperature, costly/cost,
# old/age) and those naming a measured quantity as such (rate, value, score, level, accuracy, error,
# latency, throughput, budget, price): the grammar's and the field's measurement words, not a question set's.
_MEASURE = {"length", "width", "height", "depth", "size", "speed", "weight", "distance", "frequency", "temperature",
            "cost", "age", "rate", "value", "score", "level", "accuracy", "error", "latency", "throughput", "budget",
            "price"}
_NUMERAL = re.compile(r"^(?:~?\d[\d,.]*(?:[eE]-?\d+)?[%xX×]?[KMBTkmbt]?\+?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                      r"twelve|twenty|thirty|forty|fifty|single|dozens?|hundreds?|thousands?|millions?|billions?|trillions?)$", re.I)
_COUNT_SPAN = 3  # sanity bound: the modifiers English puts between a count and its noun ("7B OpenLLaMA checkpoints")
_NAME_SPAN = 6  # sanity bound: an instance's name stands by its kind ("on three datasets, ImageNet, COCO and ...")


def _sentences(said: str) -> list[str]:  # the project's splitter (abbreviations such as "e.g." kept inside)
    return [said[sp.start:sp.end] for sp in split_sentences(said)]


def _counted(f: Focus, said: str) -> bool:
    if not f.quantity or not f.head or not f.head.lower().endswith("s"):
        return True  # a plural unit is counted ("how many GPUs"); "how much N" measures a mass (any unit)
    unit = terms(_plural(f.head))  # singular or plural: "a single GPU" counts GPUs
    words = [m.group(0) for m in _WORD.finditer(said)]
    for k, w in enumerate(words):
        low = w.lower()
        if low[:1].isdigit() and "-" in low and terms(low.split("-", 1)[1])[-1:] == unit[-1:]:
            return True  # "a 12-layer model"
        if terms(_plural(w)) == unit and any(_NUMERAL.match(x) for x in words[max(0, k - _COUNT_SPAN):k]):
            return True
    return False


def _valued(f: Focus, said: str) -> bool:
    if not f.value:
        return True
    head, named = set(terms(f.head)), names(f.phrase)
    return any((head <= set(terms(s)) or any(mentioned(n, s) for n in named)) and any(_NUMERAL.match(w) for w in _WORD.findall(s)) for s in _sentences(said))


def _identified(f: Focus, said: str, question: str) -> bool:
    if not f.which:
        return True
    head, asked = terms(f.head), set(terms(question))
    for s in _sentences(said):
        words = [m.group(0) for m in _WORD.finditer(s)]
        for k in (k for k, w in enumerate(words) if terms(w) == head):
            before = list(reversed(words[max(0, k - _COUNT_SPAN):k]))
            modifiers = before[: next((j for j, w in enumerate(before) if w.lower() in _FUNCTION), len(before))]
            if any(not set(terms(w)) <= asked for w in modifiers):
                return True  # a description: "two separate softmax attention maps"
            span = " ".join(words[max(0, k - _NAME_SPAN):k + _NAME_SPAN + 1])
            if any(not mentioned(n, question) for n in names(span)):
                return True  # a name: "the YouTube platform", "three datasets: ImageNet, COCO and ADE20K"
    return False


# what opens an English noun phrase: the articles, demonstratives and possessive determiners, the
# quantifiers ("every", "each", "all", "some", "any", "no", "many", "few", "several", "most", "both"),
# the wh-determiners ("what / which / whose N") and the prepositions but "to" (which also marks an
# infinitive: "to teach") and "as" (also a conjunction before a clause: "as weights grow"). Closed classes of the grammar, not from any question set
_NP_OPENER = (_DETERMINER | (_PREPOSITION - {"to", "as"}) | {"what", "which", "whose", "my", "our", "your", "every", "each",
              "all", "some", "any", "no", "many", "much", "few", "several", "most", "both", "either", "neither",
              "more", "less", "fewer", "other", "another"})
# what ends one: the auxiliaries, "to", the pronouns, the conjunctions and the wh-adverbs, plus the
# focusing and degree adverbs (very, too, also, just, only, even); closed classes of the grammar,
# not from any question set
_NP_BREAK = _FUNCTION | {"i", "you", "we", "he", "she", "it", "they", "me", "us", "him", "them", "one", "there", "not",
                         "than", "as", "very", "too", "also", "just", "only", "even"}


_OBJECT = {"it", "them", "us", "me", "him"}  # the object pronouns (English's closed class; "her" is also a determiner)


def _head(run: list[str] | None) -> list[str]:
    """A noun phrase's head as a caveat names it: its last word, or when that is a generic noun
    ("the best way", "the main idea"), the last modifier before it that is not; evaluative
    adjectives are never named. (A category noun, "parameters", "model", is a thing the sources
    can leave unstated: named.)"""
    kept = [w for w in run or [] if not _generic(w, counted=True) and w.lower() not in _MODIFIER]
    return kept[-1:]


def nominal(question: str) -> set[str]:
    """The heads of the question's noun phrases, and its names: what a caveat may name as "not
    mentioned" (``extractive.unstated``). A noun phrase opens after a determiner, a quantifier, a
    wh-determiner, a preposition, a number or a possessive and runs over content words to the next
    function word; its head is its last word (English puts it last). Verbs stand after a subject or
    an auxiliary ("How long does training take") or inside a run that is not its last word ("every
    hospital teach nurses"); quantifiers are openers: "take", "teach", "every" are no missing thing."""
    words = [m.group(0) for m in _WORD.finditer(question)]
    out: set[str] = set()
    run: list[str] | None = None  # the content words of the noun phrase open now (None: none open)
    for w in words:
        low = w.lower()
        if low in _NP_OPENER or low.endswith(("'s", "’s")) or w[0].isdigit() or low in _OBJECT:
            if run and (len(run) > 1 or run[-1].lower().endswith("ing")) and low not in _PREPOSITION:
                # a noun phrase (or an object pronoun) straight after another: the run ends with a
                # verb, or is a gerund with its object ("every model teach a student", "help it",
                # "of putting every example")
                run.pop()
            out.update(_head(run))
            run = None if low in _OBJECT else []  # a verb follows the pronoun ("help it learn")
        elif low in _NP_BREAK or low in _PUNCTUATION or (run is not None and low.endswith("ed") and low not in _GENERIC):
            out.update(_head(run))  # (a past participle after a noun begins a reduced relative)
            run = None
        elif run is not None:
            run.append(w)
    out.update(_head(run))
    return out | {w for n in names(question) for w in n.split()}


def unstated_focus(question: str, said: str, parts: list[str] | None = None) -> Focus | None:
    """The question's focus when the answer's sentences do not state it; None otherwise.
    ``parts``: the sentences of each source cited. An attribute is stated of its bearer: "What FID
    score does Sana-0.6B achieve?" is not answered by another work's "Fluid achieves an FID of
    6.16", so where some source's sentences mention a name the question asks about (beside the
    focus's own), only those sources can state the focus (an abstract speaks of its work as "we" /
    "our model" in its other sentences: a source, not a sentence, is the bearer's scope)."""
    f = focus(question)
    if f is None or not said.strip():
        return None
    own = names(f.phrase)
    bearers = [n for n in names(question) if not any(mentioned(n, o) for o in own)]
    about = [p for p in parts or [] if any(mentioned(n, p) for n in bearers)]
    return None if stated(f, " ".join(about) if about else said, question) else f
