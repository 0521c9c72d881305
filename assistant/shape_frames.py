"""The frames English uses to ask for a comparison or an overview, the frame words a list's topic
is cut from (auxiliaries, reporting verbs, particles), and the noun classes they share with
``assistant.shape`` (split out of it to keep each module short; ``assistant.shape`` applies them
and its docstring argues each frame)."""

from __future__ import annotations

import re

# Plural nouns English uses for written works, and for what works propose (closed sets of the
# language, not of any question).
_WORKS = r"(?:papers|abstracts|works|studies|articles|publications|preprints|entries|documents|sources|ones)"
_METHODS = r"(?:methods|approaches|models|techniques|frameworks|architectures|algorithms|systems|strategies|solutions)"
# Nouns for a collection of documents (the words a reader uses for what this tool holds).
_COLL = r"(?:collection|corpus|library|index|set|database)"

# How English asks for a comparison: the verbs compare / contrast, "how do A and B differ", "what
# distinguishes", "the difference(s) between", "what do A and B have in common", "which is better, A or B",
# and "A vs B".
_COMPARE = [
    re.compile(r"^\s*(?:please\s+|can\s+you\s+)?(?:compare|contrast)\b(?P<rest>.*)$", re.I),
    re.compile(r"^\s*(?:how|in\s+what\s+(?:ways?|respects?|sense))\s+(?:do|does|did|is|are)\b(?P<rest>.*?\b(?:differ|different|compare|contrast|stack\s+up)\b.*)$", re.I),
    re.compile(r"^\s*what\s+(?:distinguishes|separates|sets)\b(?P<rest>.*)$", re.I),
    re.compile(r"\b(?:differences?|similarit(?:y|ies)|contrast|distinction)\s+between\b(?P<rest>.*)$", re.I),
    re.compile(r"^\s*what\s+do\b(?P<rest>.*)\bhave\s+in\s+common\b.*$", re.I),
    re.compile(r"^\s*which\s+(?:one\s+)?(?:is|performs|works|scales|does)\b[^,]*,\s*(?P<rest>.+\bor\b.+)$", re.I),
    re.compile(r"(?P<rest>.*\S\s+(?:vs\.?|versus)\s+\S.*)$", re.I),
]
_PROPERTY_OF = re.compile(r"^the\s+(?:[\w-]+\s+){1,2}?of\s+(?:the\s+)?(?P<owner>.+)$", re.I)
_PROPERTY = re.compile(r"\w's\s+\w+|\bthat\s+of\b", re.I)
# An overview asks for the state of knowledge: past participles of knowing and reporting ("what is known
# about"), of doing ("what has been tried for"), verbs of saying ("what do papers say about"), who says
# it (works, researchers, the field), nouns for a digest of a body of work ("a summary / rundown / the gist /
# the landscape of"), nouns for its content ("the main ideas / key findings on"), verbs of summarising and
# briefing ("outline / walk me through / brief me on"), how people tackled a problem, and the current
# thinking on it; and the prepositions that introduce its topic.
_KNOWN = r"(?:known|learned|learnt|found|reported|shown|said|written|published|understood)"
_DONE = r"(?:tried|done|proposed|studied|explored|attempted|suggested|developed|achieved|investigated|published|written)"
_SAY = r"(?:say|report|show|find|conclude|tell(?:\s+us)?|suggest|claim|write)"
_DET = r"(?:(?:the|these|those|this|my|your|our)\s+)"
_WHO = rf"(?:{_WORKS}|researchers|people|authors|the\s+field|the\s+community|the\s+literature|the\s+{_COLL}|{_DET}?(?:{_COLL}|literature|field))"
# who tackles a problem: the field or a body of works, never "the authors" (one paper's)
_FIELD = rf"(?:{_DET}?{_WORKS}|researchers|people|the\s+field|the\s+community|the\s+literature|{_DET}{_COLL})"
_HERE = rf"(?:\s+(?:here|in\s+(?:the|this|my|your)\s+{_COLL}))?"
_ON = r"(?:about|on|regarding|concerning|of|for|to|in|towards|with)"
_BODY_NOUN = r"(?:work|research|papers|abstracts|literature|findings|results|state\s+of\s+the\s+art)"
_BODY = (rf"(?:\s+(?:(?:the|these)\s+)?{_BODY_NOUN}{_HERE}\s+(?:on|about|in|of|for|regarding|with)"
         rf"|\s+what(?:'s|\s+has|\s+have|\s+is)\s+(?:been\s+)?(?:{_DONE}|{_KNOWN}|out\s+there)\s+(?:on|about|in|of|for|regarding|with))?")
_DIGEST = (r"(?:overview|summary|survey|review|rundown|synthesis|gist|outline|recap|digest|round-?up|picture|landscape"
           r"|state\s+of\s+(?:the\s+art|research|the\s+field|work|things|play|knowledge))")
_ASK = (r"(?:(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:give|provide|write|get|show)\s+(?:me\s+|us\s+)?|i(?:'d|\s+would)\s+like\s+|"
        r"i\s+(?:want|need)\s+|can\s+i\s+(?:get|have)\s+|help\s+me\s+understand\s+|what(?:'s|\s+is)\s+|tell\s+me\s+|describe\s+)")
_ADJ = r"(?:(?:brief|short|quick|high-level|general|broad|rough|current|overall|big|research|literature)\s+)"
_CONTENT = r"(?:ideas|findings|results|themes|takeaways|trends|insights|lessons|conclusions|challenges|directions|contributions|open\s+(?:problems|questions))"
_KEY = r"(?:main|major|key|different|various|principal|common|existing|important|central|recent)"
_SUMMARISE = (r"(?:summari[sz]e|sum\s+up|survey|review|overview|outline|synthesi[sz]e|recap|walk\s+(?:me|us)\s+through|"
              r"take\s+(?:me|us)\s+through|run\s+(?:me|us)\s+through|brief\s+(?:me|us)\s+on|fill\s+(?:me|us)\s+in\s+on)")
_OVERVIEW = re.compile(
    rf"^\s*(?:(?:please\s+|can\s+you\s+)?(?:summari[sz]e|sum\s+up)\s+)?(?:what\s+(?:is|has\s+been|was)\s+{_KNOWN}(?:\s+so\s+far)?{_HERE}\s+(?:about|on|regarding|concerning|of)"
    rf"|what\s+(?:has|have)\s+been\s+{_DONE}(?:\s+so\s+far)?\s+{_ON}"
    rf"|what\s+(?:progress|advances|headway|developments)\s+(?:has|have)\s+been\s+made\s+(?:on|in|with|towards|for)"
    rf"|what\s+(?:has|have)\s+{_DET}?{_WHO}{_HERE}\s+(?:{_DONE}|found|shown|said|reported)\s+{_ON}"
    rf"|(?:tell\s+me\s+|i'd\s+like\s+to\s+know\s+)?what\s+(?:do(?:es)?\s+)?{_DET}?{_WHO}{_HERE}\s+(?:{_SAY}|says|reports|shows|finds|tells\s+us|suggests|claims)\s+(?:about|on|regarding|concerning)"
    rf"|{_ASK}?(?:an?\s+|the\s+)?{_ADJ}*{_DIGEST}\s+(?:of|on|for|about|in|regarding){_BODY}"
    rf"|(?:please\s+|can\s+you\s+|could\s+you\s+)?{_SUMMARISE}\s+(?:the\s+)?{_BODY_NOUN}\s+(?:on|about|in|of|for|regarding)"
    rf"|(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:brief|fill)\s+(?:me|us)\s+(?:in\s+)?on"
    rf"|tell\s+me\s+about\s+(?:the\s+)?(?:work|research|papers|literature)\s+(?:on|about|in)"
    rf"|what(?:'s|\s+is)\s+the\s+(?:current\s+|general\s+|prevailing\s+)?(?:thinking|understanding|consensus|view)\s+(?:on|of|about|regarding|around)"
    rf"|what\s+are\s+(?:the\s+)?{_KEY}\s+(?:{_METHODS}|{_CONTENT})\s+(?:to|for|in|on|towards|about|regarding|across){_BODY}"
    rf"|what\s+are\s+(?:the\s+)?(?:{_KEY}\s+)?{_CONTENT}\s+(?:in|from|across)\s+(?:the\s+|these\s+)?(?:papers|abstracts|work|research|literature){_HERE}\s+(?:on|about|regarding))"
    rf"\s+(?P<rest>.+)$", re.I)
_HOW_HAS = re.compile(r"^\s*how\s+(?:has|have)\s+(?P<rest>.+?)\s+been\s+(?:approached|tackled|addressed|studied|handled|solved|improved)\b.*$", re.I)
# "How have people tackled X", "How do the papers here approach X": the field's ways with a problem.
_HOW_TACKLED = re.compile(rf"^\s*how\s+(?:have|has|do|does|did)\s+{_FIELD}{_HERE}\s+(?:tackled?|approach(?:ed)?|address(?:ed)?|handled?|"
                          rf"solved?|studied|study|dealt\s+with|deal\s+with|attacked?|treated?|treat)\s+(?P<rest>.+)$", re.I)

# The frame before the topic. After a works noun English puts a preposition ("papers on X") or a
# predicate: an optional relative word and auxiliaries, then one verb ("that have studied X",
# "study X", "are about X"), then prepositions and determiners.
_PREPS = re.compile(r"^(?:(?:about|on|upon|of|with|for|to|in|into|at|by|against|regarding|concerning|related|a|an|the|any|some|there)\s+)+", re.I)
_NEXT_CLAUSE = re.compile(r"(?:[,;:]\s*(?:(?:and|or|but)\s+)?|\s+(?:and|or|but)\s+)\b(?:what|how|which|why|when|where|who|do|does|did|is|are|was|were)\b.*$", re.I)
# "have" is the verb unless a past participle follows ("that have theoretical results" / "that have studied X").
_AUXES = (r"^(?:(?:that|which|who)\s+)?(?:d(?:o|oes|id)\s+(?:(?:the|this|my|your)\s+)?(?:collection|corpus|library|index|you)\s+)?(?:(?:do|does|did|are|is|were|was|can|also|been)\s+"
                        r"|ha(?:ve|s|d)\s+(?=(?:been|\w+(?:ed|en|wn)|done|made|built|found|run|brought|taught|put|got)\b))*")
_AUXES_RE = re.compile(_AUXES, re.I)
_PREDICATE = re.compile(_AUXES + r"[\w-]+\s+", re.I)
# The verbs English uses for what a text does with its subject matter: the reporting verbs of academic
# writing (discourse, research and cognition acts: "a paper discusses / studies / proposes / argues X"), the
# verbs of a work's relation to a method ("uses / applies / includes X") and of treating a subject ("covers /
# addresses / tackles X"). After them the topic is their object ("which papers study SSMs" -> "SSMs"); any
# other verb is the topic's own ("which papers route each token to an expert": the routing is the topic).
_FRAME_BASES = ("study discuss mention describe report present propose introduce review survey argue claim suggest state "
                "note show demonstrate outline summarize summarise cite consider examine investigate explore analyse analyze "
                "assess evaluate test compare observe identify address cover treat tackle focus deal concern involve touch talk "
                "look work write publish research offer provide develop explain handle use employ apply adopt leverage utilize utilise "
                "exploit incorporate feature include contain have target").split()
_IRREGULAR = {"has", "had", "wrote", "written", "shown", "dealt", "done", "does", "did", "do"}


def _inflections(base: str) -> set[str]:
    forms = {base, base + "s", base + "es", base + "ed", base + "ing"}
    if base.endswith("e"):
        forms |= {base + "d", base[:-1] + "ing"}
    if base.endswith("y") and base[-2] not in "aeiou":
        forms |= {base[:-1] + "ies", base[:-1] + "ied"}
    return forms


_FRAME_VERBS = frozenset(f for b in _FRAME_BASES for f in _inflections(b)) | _IRREGULAR
_PARTICLE = re.compile(r"^(?:about|on|upon|of|with|for|to|in|into|at|by|from|against|through|regarding|concerning)\b", re.I)
_ADVERB = re.compile(r"^(?:(?:\w+ly|only|just|even|still|ever|already|being)\s+)+", re.I)
# a verb's own particle before a coordinated verb ("build on, or use X"; "look at and use X")
_OWN_PARTICLE = re.compile(r"^(?:on|upon|at|into|with|about|from|to)\s*(?=,|\s+(?:and|or)\b)", re.I)
_COORD_VERB = re.compile(r"^(?:,\s*)?(?:(?:and|or|and/or)\s+)?(?P<verb>[\w-]+)\s+", re.I)
# A naming apposition ("a model called Zebra", "the method known as X") refers by the name: the
# name is what the abstracts write, and the noun before it only says what kind of thing it is. A
# given name is a proper noun (capitalised or with a digit), which keeps "named entity …" a term.
_NAMED_AS = re.compile(r"^(?:(?:a|an|the)\s+)?(?:(?!(?:a|an|the)\s)[\w-]+\s+){1,3}?(?:called|named|dubbed|termed|known\s+as|referred\s+to\s+as)"
                       r"\s+(?P<name>(?-i:[A-Z0-9]).*)$", re.I)
# A politeness marker closing a request ("papers on X, please"; "thanks") is a discourse particle,
# not part of what is asked about.
_POLITE = re.compile(r"[\s,;]+(?:please|pls|plz|thanks|thank\s+you)$", re.I)
# A copula left dangling once the locative is gone ("What approaches to X are [in the collection]?") is no topic.
_TAIL = re.compile(r"\s+(?:(?:are|is)\s+there|exist|are\s+available|(?:do\s+)?you\s+have|at\s+all|are|is|were)$", re.I)
