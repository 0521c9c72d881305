"""The frames English uses to ask for a comparison or an overview, and the noun classes they share
with ``assistant.shape`` (split out of it to keep each module short; ``assistant.shape`` applies
them and its docstring argues each frame)."""

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
