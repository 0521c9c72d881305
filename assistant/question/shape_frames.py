"""The frames English uses to ask for a comparison or an overview, the frame words a list's topic
is cut from (auxiliaries, reporting verbs, particles), and the noun classes they share with
``assistant.question.shape`` (which applies them; its docstring argues each frame)."""

from __future__ import annotations

import re

# Plural nouns English uses for written works, and for what works propose (closed sets of the
# language, not of any question).
# Plurals of a publication genre name works of that genre ("Are there any surveys on X?");
# "reviews" and "reports" are left out: after a singular noun they are as often its verb ("which benchmark reports X").
WORKS = r"(?:papers|abstracts|works|studies|articles|publications|preprints|entries|documents|sources|ones|surveys|theses|dissertations|monographs|tutorials)"
METHODS = r"(?:methods|approaches|models|techniques|frameworks|architectures|algorithms|systems|strategies|solutions)"
# Nouns for a collection of documents (the words a reader uses for what this tool holds).
_COLL = r"(?:collection|corpus|library|index|set|database)"

# How English asks for a comparison: the verbs compare / contrast, "how do A and B differ", "what
# distinguishes", "the difference(s) between", "what do A and B have in common", "which is better, A or B",
# and "A vs B".
COMPARE_FRAMES = [
    re.compile(r"^\s*(?:please\s+|can\s+you\s+)?(?:compare|contrast)\b(?P<rest>.*)$", re.I),
    # a wh-adverb of manner or respect with a verb or adjective of (dis)likeness: "how do A and B differ",
    # "in what ways are A and B alike", "how does A stack up against B"
    re.compile(r"^\s*(?:how|in\s+(?:what|which)\s+(?:ways?|respects?|sense))\s+(?:do|does|did|is|are)\b(?P<rest>.*?\b(?:differ|different|compare|contrast|stack\s+up|alike|similar)\b.*)$", re.I),
    # a deliberative modal over named options ("Should I use A or B for X?"): which to choose is a comparison
    # (a first- or second-person subject, a verb of choosing, "or" joining the options)
    re.compile(r"^\s*(?:should|would|could|do)\s+(?:i|we|you)\s+(?:use|pick|choose|go\s+with|prefer|recommend)\s+(?P<rest>.+?\bor\b.+)$", re.I),
    # "where" asks in which respects: "where do A and B differ"
    re.compile(r"^\s*where\s+(?:do|does|did)\b(?P<rest>.*?\bdiffer\b.*)$", re.I),
    # "how" + an adjective of likeness, then the copula, asks a degree of two things: "how similar are A and B"
    re.compile(r"^\s*how\s+(?:similar|different|alike|comparable|close)\s+(?:are|is|were)\b(?P<rest>.*)$", re.I),
    re.compile(r"^\s*what\s+(?:distinguishes|separates|sets)\b(?P<rest>.*)$", re.I),
    # relational nouns that take "between" two things: "the difference(s) / similarities / trade-offs between A and B"
    re.compile(r"\b(?:differences?|similarit(?:y|ies)|contrast|distinction|trade-?offs?)\s+between\b(?P<rest>.*)$", re.I),
    # nouns of weighing two things against each other: "the pros and cons of A versus B", "the relative merits of A and B"
    re.compile(r"\b(?:pros\s+and\s+cons|strengths\s+and\s+weaknesses|relative\s+(?:merits|strengths))\s+of\b(?P<rest>.*)$", re.I),
    re.compile(r"^\s*what\s+do\b(?P<rest>.*)\bhave\s+in\s+common\b.*$", re.I),
    # the alternatives set off from the question by any punctuation: "which is better, A or B" / "…: A or B"
    re.compile(r"^\s*which\s+(?:one\s+)?(?:is|performs|works|scales|does|(?:would|should|could|do)\s+(?:you|i|we)\s+(?:pick|choose|use|recommend|prefer|go\s+with))\b"
               r"[^,:;]*[,:;]\s*(?P<rest>.+\bor\b.+)$", re.I),
    # a disjunctive yes/no question with an evaluative comparative: "Is A or B better for X?"
    re.compile(r"^\s*(?:is|are|was|would)\s+(?P<rest>\S.*?\bor\b.+?)\s+(?:better|worse|preferable|superior)\b.*$", re.I),
    re.compile(r"(?P<rest>.*\S\s+(?:vs\.?|versus)\s+\S.*)$", re.I),
]
PROPERTY_OF = re.compile(r"^the\s+(?:[\w-]+\s+){1,2}?of\s+(?:the\s+)?(?P<owner>.+)$", re.I)
PROPERTY = re.compile(r"\w's\s+\w+|\bthat\s+of\b", re.I)
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
# (the) research / work / evidence: the mass nouns for a body of work speak for it as "the literature" does
_WHO = rf"(?:{WORKS}|researchers|people|authors|(?:the\s+)?(?:(?:current|recent|existing|published|prior|available)\s+)?(?:research|work|evidence)|the\s+field|the\s+community|the\s+literature|the\s+{_COLL}|{_DET}?(?:{_COLL}|literature|field))"
# who tackles a problem: the field or a body of works, never "the authors" (one paper's)
_FIELD = rf"(?:{_DET}?{WORKS}|researchers|people|the\s+field|the\s+community|the\s+literature|{_DET}{_COLL})"
_HERE = rf"(?:\s+(?:here|in\s+(?:the|this|my|your)\s+{_COLL}))?"
_ON = r"(?:about|on|regarding|concerning|of|for|to|in|towards|with)"
_BODY_NOUN = r"(?:work|research|papers|abstracts|literature|findings|results|state\s+of\s+the\s+art)"
_BODY = (rf"(?:\s+(?:(?:the|these)\s+)?{_BODY_NOUN}{_HERE}\s+(?:on|about|in|into|of|for|regarding|with)"
         rf"|\s+what(?:'s|\s+has|\s+have|\s+is)\s+(?:been\s+)?(?:{_DONE}|{_KNOWN}|out\s+there)\s+(?:on|about|in|of|for|regarding|with)"
         rf"|\s+where\s+things\s+(?:are|stand)\s+(?:with|on|in))?")
# a digest also as a first account of a subject ("a primer on", "an introduction to"), as the body's
# advance ("progress in", "advances on"), and as the newest of it ("the latest on": a superlative used as a noun)
_DIGEST = (r"(?:overview|summary|survey|review|rundown|synthesis|gist|outline|recap|digest|round-?up|picture|landscape"
           r"|primer|introduction|progress|advances|developments|latest|lay\s+of\s+the\s+land|lie\s+of\s+the\s+land|story(?:\s+so\s+far)?"
           r"|state\s+of\s+(?:the\s+art|research|the\s+field|work|things|play|knowledge))")
_ASK = (r"(?:(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:(?:give|provide|write|get|show)\s+(?:me\s+|us\s+)?|describe\s+|sketch\s+)|i(?:'d|\s+would)\s+(?:like|love)\s+|"
        r"i\s+(?:want|need)\s+|can\s+i\s+(?:get|have)\s+|help\s+me\s+understand\s+|what(?:'s|\s+is)\s+|tell\s+me\s+)")
_ADJ = r"(?:(?:brief|short|quick|high-level|general|broad|rough|current|overall|big|research|literature|recent|gentle)\s+)"
CONTENT = r"(?:ideas|findings|results|themes|takeaways|trends|insights|lessons|conclusions|challenges|directions|contributions|open\s+(?:problems|questions))"
_KEY = r"(?:main|major|key|different|various|principal|common|existing|important|central|recent|current|outstanding|remaining|big|core|dominant|leading|prevailing|popular|standard|typical|usual)"
# Nouns for what a field (not one work) has: a work has findings and contributions, a field has open
# problems, challenges, trends and directions; with them no key adjective is needed ("the open problems in X").
_FIELD_CONTENT = r"(?:open\s+(?:problems|questions|issues)|challenges|trends|(?:future\s+|research\s+)?directions|debates)"
# The verbs of briefing someone on a subject ("bring / get me up to speed on", "catch me up on").
_BRIEF = r"(?:(?:bring|get)\s+(?:me|us)\s+up\s+to\s+speed|catch\s+(?:me|us)\s+up|update\s+(?:me|us))\s+(?:on|with|about)"
_SUMMARISE = (r"(?:summari[sz]e|explain|describe|discuss|sum\s+up|survey|review|overview|outline|synthesi[sz]e|recap|walk\s+(?:me|us)\s+through|"
              r"take\s+(?:me|us)\s+through|run\s+(?:me|us)\s+through|brief\s+(?:me|us)\s+on|fill\s+(?:me|us)\s+in\s+on)")
OVERVIEW_FRAME = re.compile(
    rf"^\s*(?:(?:please\s+|can\s+you\s+)?(?:summari[sz]e|sum\s+up)\s+)?(?:what\s+(?:is|has\s+been|was)\s+{_KNOWN}(?:\s+so\s+far)?{_HERE}\s+(?:about|on|regarding|concerning|of)"
    rf"|what(?:\s+has|\s+have|'s)\s+been\s+{_DONE}(?:\s+so\s+far)?\s+{_ON}"
    rf"|what\s+(?:progress|advances|headway|developments)\s+(?:has|have)\s+been\s+made\s+(?:on|in|with|towards|for)"
    rf"|what\s+(?:has|have)\s+{_DET}?{_WHO}{_HERE}\s+(?:{_DONE}|found|shown|said|reported|concluded|established|learned|learnt|argued)\s+{_ON}"
    # "we" as the field's collective knower: "what do we know about X" is "what is known about X"
    rf"|what\s+do\s+we\s+(?:(?:currently|now|already|really|actually)\s+)?(?:know|understand)(?:\s+so\s+far)?\s+(?:about|on|regarding|of)"
    # a field's (or research's) position as a place: "where does the field stand on X", "where do things stand with X"
    rf"|where\s+(?:does|do|is|are)\s+(?:the\s+field|(?:the\s+)?research|the\s+literature|the\s+community|things|we|work)"
    rf"\s+(?:currently\s+|now\s+)?stand\s+(?:on|with|in|regarding)"
    rf"|(?:please\s+|can\s+you\s+|could\s+you\s+)?{_BRIEF}{_BODY}"
    # activity in a field ("what's been going on in X"), what has been learned from it ("what lessons have been
    # learned from X"), and the essentials a newcomer asks for ("what should I know about X")
    rf"|what(?:'s|\s+has|\s+is)\s+(?:been\s+)?(?:going\s+on|happening)\s+(?:in|with|on|around)(?:\s+the\s+(?:world|field|area|space)\s+of)?"
    rf"|what\s+{CONTENT}\s+(?:have|has)\s+been\s+(?:learned|learnt|drawn|found|gained)\s+(?:from|about|on|in)"
    rf"|what\s+(?:should|do|would|must)\s+(?:i|we|one)\s+(?:need\s+to\s+)?know\s+(?:about|on|regarding)"
    # the field's work under way ("what are people doing about X"), and a field's nouns arising ("what trends are emerging in X")
    rf"|what\s+(?:are|is|have|has)\s+(?:people|researchers|the\s+field|the\s+community)\s+(?:been\s+)?doing\s+(?:about|on|with|for|in)"
    rf"|what\s+(?:new\s+)?(?:{_FIELD_CONTENT}|{CONTENT}|{METHODS})\s+(?:are|have)\s+(?:emerging|emerged|appearing|appeared|developing)\s+(?:in|on|for|around)"
    rf"|(?:tell\s+me\s+|i'd\s+like\s+to\s+know\s+)?what\s+(?:do(?:es)?\s+)?{_DET}?{_WHO}{_HERE}\s+(?:\w+ly\s+)?(?:{_SAY}|says|reports|shows|finds|tells\s+us|suggests|claims)\s+(?:about|on|regarding|concerning)"
    rf"|{_ASK}?(?:an?\s+|the\s+)?{_ADJ}*{_DIGEST}\s+(?:of|on|for|about|in|regarding|to|into|around|surrounding){_BODY}"
    rf"|(?:please\s+|can\s+you\s+|could\s+you\s+)?{_SUMMARISE}\s+(?:the\s+)?{_BODY_NOUN}\s+(?:on|about|in|of|for|regarding)"
    rf"|(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:brief|fill)\s+(?:me|us)\s+(?:in\s+)?on"
    rf"|tell\s+me\s+about\s+(?:the\s+)?(?:work|research|papers|literature)\s+(?:on|about|in)"
    # the shared view of a body of work, with an adjective ("the research consensus") or the field's possessive
    rf"|what(?:'s|\s+is)\s+(?:the\s+|{_DET}?(?:field|community|literature|research)'s\s+)(?:(?:current|general|prevailing|research|scientific|overall|emerging)\s+)*"
    rf"(?:thinking|understanding|consensus|view|verdict|position|stance|take)\s+(?:on|of|about|regarding|around)"
    # a bare noun phrase of a key adjective and a content noun ("Key findings on X?"), as "the key findings on X"
    rf"|(?:the\s+)?{_KEY}\s+(?:{CONTENT}|{METHODS})\s+(?:on|in|for|about|to|regarding)"
    rf"|(?:what\s+are|{_SUMMARISE})\s+(?:the\s+)?{_KEY}\s+(?:{METHODS}|{CONTENT})\s+(?:to|for|in|on|towards|about|regarding|across){_BODY}"
    rf"|what\s+are\s+(?:the\s+)?(?:{_KEY}\s+)?{_FIELD_CONTENT}\s+(?:in|for|on|facing|around){_BODY}"
    rf"|what\s+are\s+(?:the\s+)?(?:{_KEY}\s+)?{CONTENT}\s+(?:in|from|across)\s+(?:the\s+|these\s+)?(?:papers|abstracts|work|research|literature){_HERE}\s+(?:on|about|regarding))"
    rf"\s+(?P<rest>.+)$", re.I)
# A definite singular noun for a system's part modified by a name ("the DALL-E 2 architecture"): that one
# work's own thing, so a digest of it is a fact about the work.
NAMED_PART = re.compile(r"^the\s+(?P<name>.+?)\s+(?:architecture|model|method|framework|design|pipeline|approach|system|algorithm|objective|recipe)$", re.I)
# A topic fronted before a colon ("Efficient transformers: what's the state of the art?", "A or B: which is
# better?"): a left-dislocated complement of the question after the colon.
DISLOCATED = re.compile(r"^\s*(?P<topic>[^:?]{3,80}?)\s*:\s*(?P<question>(?:what|which|how|where|who)\b[^:]*)$", re.I)
# A question embedded in a request ("Tell me what's been done on X", "I'd like to know where the field
# stands on X"): the embedded question is the one asked, and its frame decides the shape.
EMBED = re.compile(r"^\s*(?:(?:please\s+|can\s+you\s+|could\s+you\s+)?tell\s+(?:me|us)|i(?:'d|\s+would)\s+like\s+to\s+know|i\s+(?:want|need)\s+to\s+know"
                    r"|i\s+wonder|i'm\s+wondering|(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:explain|describe|outline))\s+(?=(?:what|how|where|which)\b)", re.I)
# An interrogative word or an auxiliary opening a question is capitalised by orthography, not as a name.
OPENER = re.compile(r"^\s*(?:What|Where|Which|How|Why|When|Who|Is|Are|Was|Were|Do|Does|Did|Can|Could|Should|Would|Has|Have)\b")
# The topic inside the subject: "What has research on X found?", "How far along is work on X?" (a body of
# work's findings, and its progress as distance; "does the work on X" is singular, one work's, left out).
_BODY_FOUND = re.compile(r"^\s*(?:what\s+(?:has|have|do)\s+(?:the\s+)?(?:(?:current|recent)\s+)?(?:research|work|literature|studies|papers)\s+(?:on|into|about|in)\s+(?P<rest>.+?)"
                         r"\s+(?:found|shown|concluded|established|say|show|suggest|tell\s+us)"
                         r"|how\s+far\s+(?:along\s+)?(?:is|are|has|have)\s+(?:the\s+)?(?:research|work|the\s+field)\s+(?:on|into|about|in)\s+(?P<far>.+?)"
                         r"(?:\s+(?:come|got(?:ten)?|progressed|gone))?)\W*$", re.I)
# The degree of a field's knowledge of a subject ("How well understood is X?"), and a digest noun as a
# label before the topic ("Survey: X", "Overview - X").
_HOW_WELL = re.compile(r"^\s*how\s+(?:well[-\s]+|thoroughly\s+|much\s+)?(?:understood|established|studied|researched|explored)\s+(?:is|are|has|have)\s+(?P<rest>.+?)(?:\s+been)?\W*$", re.I)
_DIGEST_LABEL = re.compile(rf"^\s*(?:an?\s+)?{_ADJ}*{_DIGEST}\s*[:\u2013\u2014-]\s*(?P<rest>\S.+)$", re.I)
# a body of work's history ("How has the research on X evolved?"): the same question over time
_HOW_EVOLVED = re.compile(r"^\s*how\s+(?:has|have)\s+(?:the\s+)?(?:research|work|literature|thinking|field|study|understanding)\s+(?:on|of|in|into|around)\s+"
                          r"(?P<rest>.+?)\s+(?:evolved|developed|changed|progressed|advanced|moved|shifted)\b.*$", re.I)
_HOW_HAS = re.compile(r"^\s*how\s+(?:has|have)\s+(?P<rest>.+?)\s+been\s+(?:approached|tackled|addressed|studied|handled|solved|improved)\b.*$", re.I)
# "How have people tackled X", "How do the papers here approach X": the field's ways with a problem.
# The progressive too ("how is the field tackling X"): the same question about the work under way.
_HOW_TACKLED = re.compile(rf"^\s*how\s+(?:have|has|do|does|did|is|are)\s+{_FIELD}{_HERE}\s+(?:\w+ly\s+)?(?:tackled?|evaluated?|measured?|benchmark(?:ed)?|approach(?:ed)?|address(?:ed)?|handled?|"
                          rf"solved?|studied|study|dealt\s+with|deal\s+with|attacked?|treated?|treat|tackling|approaching|addressing|"
                          rf"handling|solving|studying|dealing\s+with|attacking|treating)\s+(?P<rest>.+)$", re.I)

# The frame before the topic. After a works noun English puts a preposition ("papers on X") or a
# predicate: an optional relative word and auxiliaries, then one verb ("that have studied X",
# "study X", "are about X"), then prepositions and determiners.
PREPS = re.compile(r"^(?:(?:about|on|upon|of|with|for|to|in|into|at|by|against|regarding|concerning|related|a|an|the|any|some|there)\s+)+", re.I)
NEXT_CLAUSE = re.compile(r"(?:[,;:]\s*(?:(?:and|or|but)\s+)?|\s+(?:and|or|but)\s+)\b(?:what|how|which|why|when|where|who|do|does|did|is|are|was|were)\b.*$", re.I)
# "have" is the verb unless a past participle follows ("that have theoretical results" / "that have studied X").
_AUXES = (r"^(?:(?:that|which|who)\s+)?(?:d(?:o|oes|id)\s+(?:(?:the|this|my|your)\s+)?(?:collection|corpus|library|index|you)\s+)?(?:(?:do|does|did|are|is|were|was|can|also|been)\s+"
                        r"|ha(?:ve|s|d)\s+(?=(?:been|\w+(?:ed|en|wn)|done|made|built|found|run|brought|taught|put|got)\b))*")
AUXES_RE = re.compile(_AUXES, re.I)
PREDICATE = re.compile(_AUXES + r"[\w-]+\s+", re.I)
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


FRAME_VERBS = frozenset(f for b in _FRAME_BASES for f in _inflections(b)) | _IRREGULAR
PARTICLE = re.compile(r"^(?:about|on|upon|of|with|for|to|in|into|at|by|from|against|through|regarding|concerning)\b", re.I)
ADVERB = re.compile(r"^(?:(?:\w+ly|only|just|even|still|ever|already|being)\s+)+", re.I)
# a verb's own particle before a coordinated verb ("build on, or use X"; "look at and use X")
OWN_PARTICLE = re.compile(r"^(?:on|upon|at|into|with|about|from|to)\s*(?=,|\s+(?:and|or)\b)", re.I)
COORD_VERB = re.compile(r"^(?:,\s*)?(?:(?:and|or|and/or)\s+)?(?P<verb>[\w-]+)\s+", re.I)
# A naming apposition ("a model called Zebra", "the method known as X") refers by the name: the
# name is what the abstracts write, and the noun before it only says what kind of thing it is. A
# given name is a proper noun (capitalised or with a digit), which keeps "named entity …" a term.
NAMED_AS = re.compile(r"^(?:(?:a|an|the)\s+)?(?:(?!(?:a|an|the)\s)[\w-]+\s+){1,3}?(?:called|named|dubbed|termed|known\s+as|referred\s+to\s+as)"
                       r"\s+(?P<name>(?-i:[A-Z0-9]).*)$", re.I)
# A politeness marker closing a request ("papers on X, please"; "thanks") is a discourse particle,
# not part of what is asked about.
POLITE = re.compile(r"[\s,;]+(?:please|pls|plz|thanks|thank\s+you)$", re.I)
# A copula left dangling once the locative is gone ("What approaches to X are [in the collection]?") is no topic.
TAIL = re.compile(r"\s+(?:(?:are|is)\s+there|exist|are\s+available|(?:do\s+)?you\s+have|at\s+all|are|is|were)$", re.I)

# --- list-frame pieces ``assistant.question.shape`` applies (argued in its docstring) ---
# After ANYONE: a verb (with an optional "ever / already / here") followed by "that" introduces a
# content clause ("shown that", "found that", "proved that"): the claim's fact, not a list.
CLAIM = re.compile(r"^\s*(?:(?:ever|already|here)\s+)?[\w-]+\s+that\b", re.I)
COORD = re.compile(r"^\s*(?:and|or)\s+(?:[\w-]+\s+)??[\w-]+s\b")  # "models and tasks did…": a coordinated head
# "works" is a plural noun (papers) or a verb; before a degree adverb (a closed class) it is the verb
# ("which works best"): English's -s marks both. Seen on a tuning follow-up (paraphrase_written). The
# same holds after a head noun ("What learning rate schedule works best for X?", "Which optimizer works
# better?"): a degree adverb modifies a verb, never follows a plural subject before its verb, so the -s
# is the verb's third person singular, its subject the singular head, and one thing is asked: a fact
# (the head noun is passed over as WH_LIST's modifiers are).
WORKS_VERB = re.compile(r"^\W*(?:and\s+|so\s+)?(?:which|what)\s+(?:[\w-]+\s+){0,3}?works\s+(?:best|better|well|worst|most|least)\b", re.I)
# A modal before the subject inverts as do-support does ("Which algorithms can DPT learn faster than?").
AUX_AFTER_HEAD = re.compile(r"^\s*(?:do|does|did|was|were|is|are|has|have|had|can|could|will|would|should|may|might|must)\s+(?P<subject>.*)$", re.I)
# "Which of the papers ... reports X?": in a partitive the verb's number says how many are asked for; a
# third-person singular (a singular auxiliary, or a reporting verb's -s form) picks one work, as "which paper".
SINGULAR_VERB = re.compile(r"^(?:is|was|has|does)$", re.I)
# A determiner or an object pronoun: what follows a transitive verb, never a plural noun, in English.
OBJECT = re.compile(r"(?:the|a|an|it|them|its|their)", re.I)
# Verbs of origination: a named thing is introduced once, so "the work that introduced GPO" is one work.
ORIGIN = re.compile(r"^\s*(?:that|which)\s+(?:first\s+)?(?:introduc|propos|present|coin|invent|defin)(?:e[sd]?|ed)\s+(?:the\s+)?(?P<obj>.+)$", re.I)
# What exists, and the present perfect: the state of a field ("what methods exist / have been proposed").
EXISTS = re.compile(r"^\s*(?:(?:that|which)\s+)?(?:(?:are|is)\s+there|exist|are\s+available|(?:have|has)\s+been\b|(?:have|has)\s+\w+ed\b)", re.I)
PAST = re.compile(r"^\s*(?:(?:that|which)\s+)?(?:were|was|did|had|\w+ed)\b", re.I)
# One work's content: a name or a definite singular work after a preposition ("used in FlashAttention").
# A definite singular work noun after modifiers ("the LION paper", "this ViT study") is one work too.
# The nouns English uses for one publication of a genre: a thesis or a
# dissertation, a preprint or a manuscript, a monograph, a book or one of its chapters, a tutorial, a
# white paper; a survey and a review (the survey article, the review article) and a report (the technical
# report) are written works too, but these three are also verbs ("the papers report X", "methods that survey
# Y") and nouns of an activity ("the review process", "report generation"), so they anchor one work only as
# the head of their noun phrase: after "the / this / its / their" (not "that", a relative pronoun before
# a verb), past modifiers of which none is a plural (a plural subject takes the verb: "the papers
# report"), a preposition ("the papers on X survey ...") or a noun for the collection ("models in the
# collection report X"), and followed by what follows a head noun: the end, a preposition or a relative
# ("the survey on X", "the review of Y"), or a verb of what a text does ("the survey lists / covers X").
# "Overview" and "summary" are left out: asked of an assistant they name the digest it is to write ("give
# me the summary of X"), and "publication" names the act as often as the work ("the publication of X").
_PUBLICATION = r"(?:thesis|dissertation|preprint|manuscript|monograph|book|chapter|tutorial|white\s?paper)"
_GENRE = r"(?:survey|review|report)"
_HEAD_FOLLOWS = (r"(?=\s*(?:$|[?.,;:!)]|(?:on|of|about|in|into|for|by|from|to|with|that|which|and|or|says?|said|writes?|lists?|covers?|reviews?"
                 r"|describes?|discusses?|finds?|found|concludes?|argues?|notes?|mentions?|identifies?|claims?|reports?|proposes?"
                 r"|categori[sz]es?|compares?|examines?|suggests?|shows?|highlights?|outlines?|summari[sz]es?|surveys?)\b))")
ONE_WORK = re.compile(rf"\b(?:the|this|that|its|their)\s+(?:paper|study|work|article|abstract|authors?|proposed|method|model|approach|framework|{_PUBLICATION})\b"
                       rf"|\b(?:the|this|that)\s+(?:[\w-]+\s+){{1,3}}?(?:paper|study|article|abstract|{_PUBLICATION})\b(?!-)"
                       rf"|\b(?:the|this|its|their)\s+(?:(?!(?:on|of|in|for|about|with|to|by|from|that|which|{_COLL[3:-1]}|field|community)\b)[\w-]*[^\W_s]\s+){{0,3}}?"
                       rf"{_GENRE}\b(?!-){_HEAD_FOLLOWS}"
                       r"|\b(?:it|its)\b", re.I)
# A digest noun that names a publication genre, made definite inside an overview frame ("Summarise the survey
# on X", "Give me the gist of this review of X"): an existing survey, one work's fact; the indefinite ("give me
# a survey of X") asks for a digest to be written, an overview.
DEFINITE_GENRE = re.compile(rf"\b(?:the|this|its|their)\s+{_GENRE}\b", re.I)
ANCHOR_PREPS = re.compile(r"\b(?:in|by|of|from|within|against|than|with|behind|underlying|into)\s+(?:the\s+)?$", re.I)
WHAT_ABOUT = re.compile(r"^\s*(?:and\s+)?(?:what|how)\s+about\s+(?P<rest>.+)$", re.I)
WHAT_THERE = re.compile(r"^\s*what(?:'s|\s+is)\s+there\s+(?P<rest>.*)$", re.I)
# "every / each" quantifies over the members of a set with a singular noun ("give me every paper that
# reports X"): all the works, a list, as the plural "all the papers" is.
EVERY = re.compile(r"^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:list|name|find|show(?:\s+me)?|give\s+me|get\s+me|pull\s+up|point\s+me\s+to)\s+"
                    r"(?:every|each)\s+(?:single\s+)?(?:[\w-]+\s+){0,2}?(?:paper|abstract|study|article|work|publication|preprint)\b(?P<rest>.*)$", re.I)
# "Who has worked on X?", "Who has looked at X?": the wh-pronoun for agents with the present perfect, the
# tense of a field's state, asks which works (by their authors) have done it; the simple past ("Who
# introduced X?") asks for one event's agent, a fact, as does a perfect of origination with a named
# object ("Who has proposed LoRA?": a named thing is introduced once) or a that-clause ("Who has shown that…").
WHO_HAS = re.compile(r"^\s*(?:who(?:\s+else)?|which\s+(?:other\s+)?(?:researchers|authors|groups|labs|teams))\s+(?:has|have)\s+(?:(?:ever|already|also|previously)\s+)?(?P<rest>(?:\w+ed|done|written|been\s+\w+ing)\b.*)$", re.I)
# "What approaches exist for X?", "What techniques have been developed for X?", "What approaches to X are in
# the collection?": "what" (not the selective "which", which picks members of a set) with a methods noun whose
# complement is a purpose ("for / to X") and a verb of existence or the present perfect passive asks for the
# range of ways a problem is met, what the digest "what are the main approaches to X" asks: an overview.
WAYS = re.compile(rf"^\s*(?:so\s+|and\s+)?what\s+(?:(?:kinds?|sorts?|types?)\s+of\s+)?(?:(?:other|different|possible|existing|available)\s+)?{METHODS}\s+"
                   rf"(?:(?:to|for|towards)\s+(?P<topic>.+?)\s+(?:exist|are\s+there|are\s+available|are\s+(?:in\s+)?here|are\s+in\s+(?:the|this|my|your)\s+{_COLL}"
                   rf"|(?:have|has)\s+been\s+(?:\w+ed|put\s+forward))|(?:exist|are\s+there|are\s+available|(?:have|has)\s+been\s+(?:\w+ed|put\s+forward))"
                   rf"\s+(?:to|for|towards)\s+(?P<rest>.+?))\W*$", re.I)
# A comparison placed inside one work ("Compare the results on A and B in the Swin paper", "... according
# to the X abstract"): that work's own report, a fact about it.
IN_ONE_WORK = re.compile(r"\b(?:in|from|according\s+to|within)\s+(?:the|this|that|its)\s+(?:[\w-]+\s+){0,3}?"
                          r"(?:paper|study|article|abstract|preprint|survey|report)\b(?!-)", re.I)

# The list frames (``assistant.question.shape`` argues them in its docstring). A mass noun for a body of writing:
MASS = r"(?:work|research|literature|anything|something|everything)"  # "everything": the universal indefinite, all the works
_NUMBER = r"(?:two|three|four|five|six|seven|eight|nine|ten|several|some|all|\d+)"
# A few modifiers between the determiner and the head noun; a singular noun for a work or a method,
# or for a kind ("what type of models"), is itself the head ("Which technique allows diffusion
# models…", "What method can pre-trained models use…"): one thing asked for, a fact.
_SINGULAR = (r"(?:paper|abstract|work|study|article|method|approach|model|technique|framework|architecture|algorithm|"
             r"system|strategy|solution|type|kind|sort|form|class|one)")
# A preposition or an auxiliary is no modifier ("What about diffusion models?" has no head noun).
_NOT_MOD = r"(?:about|on|of|in|for|with|to|by|from|among|is|are|was|were|do|does|did|has|have|had|can|could|would|should)"
_MOD = rf"(?:(?!(?:{_SINGULAR}|{_NOT_MOD})\b)[\w-]+\s+){{0,3}}?"
# Discourse openers English puts before a question ("so", "and", "then", "okay", "now").
LEAD = r"^\s*(?:so\s+|and\s+|then\s+|ok(?:ay)?,?\s+|now,?\s+)?"
# Anaphora pointing back at a list just shown: demonstratives, "them", "the above / listed / previous".
THESE = rf"(?:these|those|them|the\s+(?:above|listed|previous)(?:\s+(?:{WORKS}|{METHODS}))?|the\s+\w+\s+(?:listed|above)|the\s+(?:{WORKS}|{METHODS})\s+(?:listed|above))"
# Where a question places its works in the collection: English locatives for a collection - the deictic
# "here", a preposition (in / of / across / among) before a collection noun or a demonstrative, and the
# possessive relatives "(that) you have", "the collection has / holds / contains".
LOCATIVE = re.compile(
    rf"\s*\b(?:(?:in\s+)?here|in\s+(?:the|this|my|your|our)\s+{_COLL}|of\s+the\s+{_COLL}|across\s+(?:the|this|my)\s+{_COLL}"
    rf"|among\s+(?:(?:these|those)(?:\s+{WORKS})?|them|the\s+{WORKS})|in\s+(?:these|the)\s+(?:{WORKS}|literature)"
    rf"|you\s+have|that\s+you\s+have|the\s+{_COLL}\s+(?:has|holds|contains))\b", re.I)

WH_LIST = re.compile(rf"{LEAD}(?:which|what|how\s+many)\s+(?:(?:are|were)\s+(?:the\s+|some\s+|any\s+)?)?(?:{_NUMBER}\s+)?"
                      rf"(?:(?:of|among)\s+(?:the|these|those)\s+)?{_MOD}{WORKS}\b(?P<rest>.*)$", re.I)
WH_METHODS = re.compile(rf"{LEAD}(?:which|what|how\s+many)\s+(?:(?:are|were)\s+(?:(?P<the>the\s+)|some\s+|any\s+)?)?(?:{_NUMBER}\s+)?"
                         rf"{_MOD}{METHODS}\b(?P<rest>.*)$", re.I)
IMPERATIVE = re.compile(rf"^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:list|name|find|show(?:\s+me)?|give\s+me|enumerate|"
                         rf"point\s+me\s+to|recommend|suggest|pull\s+up|search\s+for|look\s+for|get\s+me)\s+(?:me\s+)?"
                         rf"(?:(?:all|the|any|every|each|some)\s+)*(?:{_NUMBER}\s+)?{_MOD}(?P<noun>{WORKS}|{METHODS}|{MASS})\b(?P<rest>.*)$", re.I)
# A first-person statement of a need instead of a question ("I'm looking for papers on X", "I need
# work on X", "I'd like articles about X"): English's ways of stating a search (be + looking/searching
# for, be after / interested in, need / want / would like), then the works asked for.
REQUEST = re.compile(rf"^\s*(?:i(?:'m|\s+am)\s+(?:(?:looking|searching)\s+for|after|interested\s+in|trying\s+to\s+find)|i\s+(?:need|want)|i'd\s+like|looking\s+for|searching\s+for)\s+"
                      rf"(?:(?:all|the|any|some)\s+)*{_MOD}(?:{WORKS}|{MASS})\b(?P<rest>.*)$", re.I)
# English's auxiliaries that open a yes/no question (do-support, perfect have, copula be).
_AUX = r"(?:do|does|did|has|have|had|is|are|was|were)"
# "Are there any papers on X?", "Has there been work on X?": the existential there (present, perfect)
# asks whether works of a kind exist; its noun is a plural work / method noun or a mass noun for writing.
EXISTENTIAL = re.compile(rf"^\s*(?:(?:are|is)\s+there|(?:has|have)\s+there\s+been)\s+(?:any\s+|other\s+|more\s+|some\s+)*{_MOD}(?P<noun>{WORKS}|{METHODS}|{MASS})\b(?P<rest>.*)$", re.I)
# "Do any papers here use X?", "Have any of the studies measured X?", "Is any research on X?": a yes/no
# question whose subject is "any / some (of the)" + a work noun asks which works do it (singular work
# nouns too: "any paper", "any study", as English writes "any" with either number).
DO_ANY = re.compile(rf"^\s*{_AUX}\s+(?:any|some)\s+(?:of\s+the\s+)?{_MOD}(?:{WORKS}|paper|abstract|study|work|article|research|literature)\b(?P<rest>.*)$", re.I)
# "Has anyone worked on X?", "Has anything been published on X?", "Is anybody here studying X?": an
# indefinite pronoun asks whether any work exists; with a that-clause after a verb ("Has anyone shown that
# X…") it asks whether a claim is established, one finding's fact (``_list``).
ANYONE = re.compile(rf"^\s*{_AUX}\s+(?:anyone|anybody|someone|somebody|anything|something)\b(?P<rest>.*)$", re.I)
# "What work is there on X?", "What research has been done on X?", "What literature exists on X?": a mass
# noun for writing as the head of an interrogative determiner, then what exists (an existential, "exist",
# "available", the present perfect passive of doing or writing, what the collection has).
WH_MASS = re.compile(rf"{LEAD}(?:what|which)\s+(?:(?:kinds?|sorts?|types?)\s+of\s+)?{_MOD}(?:work|research|literature)\s+"
                      rf"(?:(?:is|are)\s+there|exists?|is\s+available|(?:has|have)\s+been\s+(?:done|carried\s+out|undertaken|\w+ed|written)"
                      rf"|(?:do|does)\s+(?:you|(?:the|this|my)\s+{_COLL})\s+(?:have|hold|contain)|(?:is|are)(?=\s+(?:in\s+)?here\b))\b(?P<rest>.*)$", re.I)
# "What research addresses X?", "What literature has examined X?": "research" and "literature" are mass
# nouns (no "a research", no plural), so as the subject of a lexical verb, present ("-s") or present perfect,
# they name the body of writing doing it, not one work; "work" is left out ("what work inspired X" may mean
# one paper, a count noun). A that-clause after the verb is a claim's fact (``CLAIM``, in ``_list``).
WH_MASS_VERB = re.compile(rf"{LEAD}(?:what|which)\s+{_MOD}(?:research|literature)\s+(?:(?:has|have)\s+(?!been\b))?"
                           rf"(?P<rest>(?!(?:is|was|has|does|says)\b)[a-z]+(?:s|ed)\b.*)$", re.I)
HAVE = re.compile(rf"^\s*(?:what\s+)?(?:do(?:es)?\s+)?(?:you|the\s+{_COLL}|this\s+{_COLL}|my\s+{_COLL})\s+(?:have|hold|contain|include)\s+"
                   rf"(?:(?:any|some)\s+)?(?:{_MOD}{WORKS}|{MASS})?\b(?P<rest>.*)$", re.I)
BARE = re.compile(rf"^\s*(?:any\s+)?(?:{WORKS}|{MASS})(?:\s+(?:in\s+)?here|\s+in\s+(?:the|this|my|your|our)\s+{_COLL})?\s+(?P<rest>(?:on|about|regarding|concerning|related\s+to|that|which)\b.*)$", re.I)
# Questions about a list just shown whose subject is an anaphor for its set: "they",
# or "these / those" alone or before a work or method noun, after an auxiliary that agrees with a plural ("Do they
# report X?", "Are they evaluated on X?", "Have they been tested on X?", "Can they train X?", "Do those papers
# give X?") ask whether the listed works do it, which the list's members that do answer (yes: these; none: none
# of them states it). A quantifier may float after the subject ("Do they all use X?"). "These / those" before a
# word with a plural -s is its determiner ("Do these results hold?": another subject, none of the listed works),
# unless the word is a noun for works or methods. The quantified partitive takes "one" and "each" as "any"
# ("Does one of them release code?": is there one that does), and any auxiliary ("Has any of them..."). An
# indefinite pronoun or "which" alone stands for the partitive it elides ("Any that beat X?", "Any with code?",
# "Are there any that use X?", "Do any use X?", "Which use X?"): "any" before a relative or "with" (never before a
# noun: "Any other papers on X?", "Any idea how X works?" are new questions), after do-support before a verb of
# what a text does (``_FRAME_BASES``); "which" before an auxiliary of the plural or such a verb that is not
# a noun heading a subject (a singular verb after it: "Which study reports X?" picks by its noun, no ellipsis).
_PLURAL_AUX = r"(?:do|did|are|were|have|had|can|could|will|would)"
_SET_SUBJECT = (rf"{_PLURAL_AUX}\s+(?:they|(?:these|those)(?:\s+(?:{WORKS}|{METHODS})|(?!\s+[a-z]+[^su\s]s\b)))"
                rf"(?:\s+(?:all|both|each|also|ever))?(?:\s+been(?=\s+\w+(?:ed|en|wn)\b))?")
_FRAME_BASE = rf"(?:{'|'.join(_FRAME_BASES)})"
_SINGULAR_NEXT = rf"(?:is|was|has|does|{'|'.join(sorted(f for f in FRAME_VERBS if f.endswith('s') and not f.endswith('ss')))})"
_ELIDED = (rf"(?:(?:are|is)\s+there\s+)?(?:any|some|none)(?:\s+ones?)?(?=\s+(?:that|which|who|with|using)\b(?!\s+(?:you|i|we)\b))"
           rf"|(?:do|did|can|could)\s+(?:any|some|none|all|both)(?=\s+{_FRAME_BASE}\s)"
           rf"|which(?=\s+(?:are|were|have|had|can|could|also|{_FRAME_BASE})\s+(?!{_SINGULAR_NEXT}\b))")
# What a follow-up on the set cannot filter by: a reciprocal or collective predicate relates
# the members to each other, with no third party as its complement ("Do they differ?", not "differ from X"; "Are
# they similar / related?", "Do they agree?", "Do they use the same datasets?", "Do they cite each other?"), a
# comparison among them as "How similar are they?" is (``DEGREE``);
# a light verb or an evaluative adjective alone names no property a text states ("Do they work?", "Are they any
# good?"); and the relative of "Any that ..." whose subject is the asker or the assistant ("Any that you
# recommend?", excluded in ``_ELIDED``) asks a judgment, not what the abstracts state.
NO_FILTER = re.compile(r"\b(?:(?:differ(?:s|ed|ent|ences?)?|similar|alike|related|agree|disagree|overlap)\b(?!\s+(?:from|to|with|than)\b)"
                        r"|(?:each\s+other|one\s+another|the\s+same|in\s+common)\b)"
                        r"|^(?:any\s+)?(?:work|help|matter|perform|good|bad|useful|better|worse|worth\s+it)$", re.I)
OF_THESE = re.compile(rf"{LEAD}(?:(?:which|what|how\s+many)(?:\s+ones?)?\s+of\s+{THESE}(?:\s+(?:{WORKS}|{METHODS}))?"
                       rf"|(?:do|does|did|are|is|were|was|has|have|had|can|could)\s+(?:any|some|all|none|either|both|one|each)\s+of\s+{THESE}"
                       rf"|{_SET_SUBJECT}|{_ELIDED}"
                       rf"|(?:of|among)\s+{THESE},?\s+(?:which|what|how\s+many)(?:\s+ones?|\s+{WORKS})?"
                       rf"|which\s+ones?|which\s+(?:these|those)\s+(?:{WORKS}|{METHODS})?"
                       rf"|(?:any|some|all|none|each|either|both)\s+of\s+{THESE}"
                       rf"|(?:(?:show|list|give|keep|tell)\s+(?:me\s+|us\s+)?|what\s+about\s+)?(?:only\s+|just\s+)?(?:the\s+ones?|those)(?=\s+(?:that|which|who|with|where|using|in|on|about)\b))"
                       rf"\b(?P<rest>.*)$", re.I)
# A degree follow-up on a list: "how" before an adjective, an adverb or a
# quantifier asks a degree ("How much faster are they?", "How big are their speed-ups?", "By how much do they
# beat X?"); before an auxiliary it asks a manner ("How do they work?"), no degree. With a plural anaphor
# ("they", "their", "these", "those") the degree is asked of each listed work, as "which of these" picks
# among them: a follow-up on the list, whose filter is the question's presupposition ("they are faster",
# "they have speed-ups", "they beat X": the degree asked, "much" or a positive adjective, is no part of it;
# a comparative is, it is what "they are faster" states). The auxiliary must be plural: a singular one
# picks one member ("How fast is the best of them?"). Adjectives of likeness ("How similar are they?")
# relate the members to each other, a comparison, and are left out, as are adjectives of age ("How recent
# are they?"): a work's age is its date, a field of its record that its abstract does not state.
DEGREE = re.compile(r"^\s*(?:so\s+|and\s+|then\s+)?(?:by\s+)?how\s+(?!(?:do|does|did|is|are|was|were|has|have|had|can|could|would|will|should|similar|different|alike|comparable|close|recent|old|new)\b)"
                     r"(?P<degree>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?P<aux>are|were|do|did|have|can|could|would|will)\s+(?P<rest>.+)$", re.I)
# the anaphor as subject, its possessive, or a noun with a relative clause whose subject it is ("the gains they report")
DEGREE_SUBJECT = re.compile(rf"^(?:(?:they|these|those)(?:\s+(?:{WORKS}|{METHODS}))?(?=\s|$)|(?P<owner>their|the|these|those)\s+"
                             rf"(?P<noun>[\w-]+(?:\s+(?!{_NOT_MOD}\b|than\b|they\b|that\b)[\w-]+)?)(?:\s+(?:that\s+|which\s+)?they\s+(?P<verb>[\w-]+))?)\s*(?P<rest>.*)$", re.I)
QUANTIFIER = re.compile(r"^(?:much|many|far|a\s+lot)\b\s*", re.I)
COMPARATIVE = re.compile(r"^(?:more|less|fewer|[\w-]{2,}er)\b", re.I)

# The overview frames whose topic is a group in the middle of the question (``assistant.question.shape.detect``).
TOPIC_INSIDE = (_HOW_HAS, _HOW_TACKLED, _HOW_EVOLVED, _BODY_FOUND, _HOW_WELL, _DIGEST_LABEL)
