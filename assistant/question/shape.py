"""The shape of a question about the collection: a single fact, a list of papers, a comparison of
named papers, or an overview of a topic.

Decided from how English asks these things, never from any evaluation question:

- **list**: a plural noun for written works as the head of an interrogative determiner ("Which
  papers…", "What abstracts…", "Which two works…", "How many studies…", "What are the papers
  on…"), of an imperative or a request ("List / Name / Find / Show me the papers…", "I'm looking
  for work on…"), of an existential ("Are there papers on…", "Is there any research on…", "Do any
  papers here…", "Have any papers used…", "Has there been any work on…", "Does the collection have
  anything on…"), or alone as the question ("Papers on X?", "Anything in here on X?"). A mass noun
  for writing (work, research, literature) heads a list when the question asks what exists ("What
  work is there on…", "What research has been done on…", "What literature exists on…"), and so
  does an indefinite pronoun ("Has anyone worked on…", "Has anything been published on…") unless
  a that-clause makes it a claim ("Has anyone shown that X…": one finding's fact); so do "who" in
  the present perfect ("Who has worked on X?"; "Who introduced X?", one event, is a fact) and "every
  / each" with a singular work noun ("Give me every paper that…"). A plural noun for *methods*
  (methods, approaches, models, techniques…) asks about the collection when the question places it
  there (a collection locative: "in this collection", "here", "in the corpus", "among these
  papers"), when it asks what exists with "which" or "are there" ("Which methods exist for…"; "what"
  + a methods noun for a purpose is an overview, below), when it is in the present perfect, which
  English uses for the state of a
  field ("Which approaches have been proposed for…"), or when it is a present-tense plural
  question not anchored to one work ("Which models use RoPE?", but "What techniques are used in
  FlashAttention?" and "What methods does FlashAttention use?" ask about one paper's content).
  Grammatical number carries the asker's expectation: "Which work proposes X?" (singular)
  expects one paper and stays a fact question, and a plural head that is the *object* of another
  subject (do-support after the noun: "How many papers does the survey review?", unless that
  subject is the collection; or a named subject after a form of be / have, or after a modal:
  "Which algorithms can DPT beat?"; or a name as the subject of a relative clause, with or without
  "that": "List the models X was applied to" — a named work's own attributes) asks about one
  paper. So does a partitive whose verb is singular ("Which of the papers on X reports…":
  agreement picks one), a mass noun with a relative clause of origination and a named object ("the
  work that introduced GPO": a named thing is introduced once), and an overview of one work ("a
  summary of the LION paper", "the key ideas in Zebra"); a definite noun for one publication ("the
  survey on X", "this thesis", "the GPT-4 technical report": ``ONE_WORK``) is one work, as "the paper" is.
  A **follow-up** picks out of the previous list ("Which of these / them / those papers…", "Of
  these, which…", "Do any of them…", "Which ones…", the elliptical partitive "Any of those…?", and
  "the ones" / "those" heading a restrictive relative — English's one-anaphora for a set just
  named: "The ones that use X?", "Show me only the ones that…", "Those with code?" — only when the
  previous answer was a list; the filter is kept as asked, its verb too, in ``Shape.predicate``);
  "What about X?" after a list asks the same list question of X; a degree question with a plural
  anaphor ("How much faster are they?", "How big are their gains?") asks it of each listed work, a
  follow-up whose filter is its presupposition ("are faster", "have gains"; ``_degree``); so is a question
  whose subject is an anaphor for the listed set ("Do they report X?", "Are they evaluated on X?", "Does one
  of them release code?", "Any that beat X?", "Which use X?": ``shape_frames._SET_SUBJECT`` / ``_ELIDED``).
  So is the listed set as a preposition's object ("Is X used in any of them?"); "other / more / else"
  asks for more works of a kind, a new list ("Any other papers on X?", ``Shape.more``); a superlative over
  the set is one fact from the listed works only (``Shape.over_listed``): ``assistant.question.shape_sets``.
- **compare**: an explicit comparison frame — the imperative "compare / contrast A and B",
  "how do A and B differ / compare", "how does A differ from / compare to B", "in what ways do A
  and B differ", "what distinguishes A from B", "(the) difference(s) / similarities between A and
  B", "what do A and B have in common", "A vs. B", "which is better, A or B" (or "…: A or B"),
  "is A or B better", "the trade-offs between A and B", "the pros and cons of A versus B", "where /
  how similar are A and B", "which would you pick, A or B" — with two or more names
  (``assistant.language.names.names``). "X compared to Y" inside another question is a fact about one
  paper and is not a comparison frame, nor is one placed in one work ("compare A and B in the X
  paper": that paper's report).
- **overview**: "what is known (here) about X", "what has been tried / done / proposed for X",
  "what have researchers tried for X", "(give me an) overview / summary / survey of X",
  "summarise / survey the work on X", "what do the papers (here) say about X", "how has X been
  approached", "the state of the art on X", "what are the main approaches to X"; and the other
  ways English asks for a digest of a body of work: who says it with any determiner ("what do these
  abstracts say about", "tell me what the collection says about", "what have these papers found
  about"); a noun for a digest after a request ("a rundown / synthesis / the gist / the landscape /
  the state of things / of play of / on / for", "I'd like a summary of what's been done with");
  verbs of summarising and briefing ("outline / walk me through / brief me on the work on X");
  the field's ways with a problem ("how have people tackled X", "how do the papers here approach
  X"; never "the authors", one paper's); the current thinking / understanding / consensus on X;
  the content nouns of a body of work with a key adjective or placed in the papers ("the key
  findings on X", "the main ideas in the papers on X", not "the findings *of* a work"); "what
  progress has been made on X"; the frames argued one by one in shape_frames.py: "what
  do we know about X", "where does the field stand on X", "bring me up to speed on X", a digest noun
  alone ("overview of X", "recent progress in X", "the latest on X"), the field's work under way or
  its history ("how is the field tackling X", "what are people doing about X", "how has the research
  on X evolved"), the topic inside the subject ("what has research on X found"), a fronted topic ("X:
  what is known?"), a field's own nouns ("the open problems in X"), and "what" + a methods noun for a
  purpose ("what approaches exist for X"). A named work's own thing ("how FlashAttention saves memory",
  "an overview of the DALL-E 2 architecture") is that work's fact.

A list's topic is the predicate without its frame: the auxiliaries, and a verb of what a text does
with its subject (the reporting verbs of academic writing, "use / include / cover / address X", or
a verb whose object a preposition takes: "look at X") go ("Which papers study SSMs?" -> "SSMs");
any other verb is the topic's own and stays ("Which papers route each token to an expert?" ->
"route each token to an expert", ``Shape.verbal``), with the verbs coordinated with it.

Everything else is a fact question. The evidence guard (a comparison needs its names in distinct
abstracts) is applied where the abstracts are known: ``assistant.collection.answer``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from assistant.language.names import names
from assistant.question.shape_frames import (
    ADVERB,
    ANCHOR_PREPS,
    ANYONE,
    AUXES_RE,
    BARE,
    CLAIM,
    COMPARATIVE,
    COMPARE_FRAMES,
    CONTENT,
    COORD,
    COORD_VERB,
    DEFINITE_GENRE,
    DEGREE,
    DEGREE_SUBJECT,
    DISLOCATED,
    DO_ANY,
    EMBED,
    EVERY,
    EXISTENTIAL,
    EXISTS,
    FRAME_VERBS,
    HAVE,
    IMPERATIVE,
    IN_ONE_WORK,
    LEAD,
    LOCATIVE,
    METHODS,
    NAMED_AS,
    NEXT_CLAUSE,
    NO_FILTER,
    OBJECT,
    OF_THESE,
    ONE_WORK,
    OPENER,
    OVERVIEW_FRAME,
    OWN_PARTICLE,
    PARTICLE,
    PAST,
    POLITE,
    PREDICATE,
    PREPS,
    PROPERTY,
    QUANTIFIER,
    REQUEST,
    SINGULAR_VERB,
    TAIL,
    TOPIC_INSIDE,
    WAYS,
    WH_LIST,
    WH_MASS,
    WH_MASS_VERB,
    WH_METHODS,
    WHAT_ABOUT,
    WHAT_THERE,
    WHO_HAS,
    WORKS_VERB,
)
from assistant.question.shape_names import (
    contact_subject,
    named_part,
    named_subject,
    originated,
    property_of_name,
)
from assistant.question.shape_sets import more_of, object_set, over_set, superlative

FACT, LIST, COMPARE, OVERVIEW = "fact", "list", "compare", "overview"
SHAPES = (FACT, LIST, COMPARE, OVERVIEW)


@dataclass
class Shape:
    kind: str = FACT
    topic: str = ""  # what the list / overview is about (the question without its frame)
    names: list[str] = field(default_factory=list)  # the papers a comparison names
    follow_up: bool = False  # picks out of the previous answer's list
    predicate: str = ""  # a follow-up's filter as asked, its verb kept ("report a speed-up"; the topic drops the verb)
    verbal: bool = False  # the topic is a verb phrase ("route each token to an expert"), not a noun phrase
    over_listed: bool = False  # a fact whose evidence is the previous list's works ("Which of them is fastest?")
    more: bool = False  # a list asking for more works of a kind ("Any other papers on X?"): the listed ones are known

    @property
    def is_fact(self) -> bool:
        return self.kind == FACT


def clean(text: str) -> str:
    return POLITE.sub("", " ".join(text.strip().rstrip("?.!").split())).rstrip("?.!")


def _unplaced(text: str) -> str:
    return clean(LOCATIVE.sub(" ", text))


def _frame_verb(verb: str, after: str) -> bool:
    """A verb of what a text does with its subject (``FRAME_VERBS``), or one whose object a
    preposition introduces ("look at X", "focus on X", "learn from X"): its topic is that object."""
    return verb.lower() in FRAME_VERBS or bool(PARTICLE.match(after) or PREPS.match(verb + " "))


def _object(rest: str, keep_verb: bool) -> tuple[str, bool]:
    """``rest`` without its auxiliaries and a frame verb (coordinated ones too: "introduce, build on,
    or use X" -> "X"), and whether the verb was kept: a verb of the topic's own ("route each token to
    an expert") stays with its coordinated verbs ("compress or evict cached states") when
    ``keep_verb``; a follow-up's topic drops it (its filter keeps it: ``Shape.predicate``)."""
    if not keep_verb:
        return (PREDICATE.sub("", rest, count=1) if PREDICATE.match(rest) else rest), False
    verb_phrase = ADVERB.sub("", rest[AUXES_RE.match(rest).end():])  # type: ignore[union-attr]  # matches ""
    if not (m := re.match(r"[\w-]+(?=,?\s)", verb_phrase)):
        return rest, False
    verb, after = m.group(), OWN_PARTICLE.sub("", verb_phrase[m.end():].lstrip(" "), count=1)
    if not _frame_verb(verb, after):
        return verb_phrase, True
    while (m := COORD_VERB.match(after)) and (after[:1] == "," or re.match(r"(?:and|or)\b", after, re.I)):
        if not _frame_verb(m.group("verb"), after[m.end():]):
            return verb_phrase, True  # "use or extend X": the coordination is the topic
        after = OWN_PARTICLE.sub("", after[m.end():], count=1)
    return after.lstrip(", "), False


def _topic(rest: str, keep_verb: bool = True) -> str:
    """The topic after the frame: "here study state space models" -> "state space models"; "that
    route each token to an expert" -> "route each token to an expert" (``_object``)."""
    rest = TAIL.sub("", _unplaced(NEXT_CLAUSE.sub("", clean(rest))))
    topic = rest if PREPS.match(rest) else _object(rest, keep_verb)[0]
    topic = TAIL.sub("", PREPS.sub("", topic, count=1).strip()) or rest
    return m.group("name") if (m := NAMED_AS.match(topic)) else topic


def _verbal(rest: str) -> bool:
    """Whether the topic of ``rest`` keeps its verb (``_object``)."""
    rest = TAIL.sub("", _unplaced(NEXT_CLAUSE.sub("", clean(rest))))
    return not PREPS.match(rest) and _object(rest, True)[1]


def _singular_partitive(q: str, rest: str) -> bool:
    """"Which of the (two) papers ... is / reports X?": a partitive whose verb is singular (``SINGULAR_VERB``,
    or the -s form of a reporting verb, ``FRAME_VERBS``), the verb right after the head or its prepositional
    phrase; past that phrase, any -s word with a determiner or an object pronoun right after it ("... replaces
    it with X"): English puts no determiner straight after a plural noun, so the word is a verb, singular."""
    if not re.match(rf"{LEAD}(?:which|what)\s+of\s+(?:the|these|those)\b", q, re.I):
        return False
    words = ADVERB.sub("", rest.strip()).split()

    def singular(i: int, w: str) -> bool:
        frame = w in FRAME_VERBS and w.endswith("s") and not w.endswith("ss")
        with_object = i > 0 and bool(re.fullmatch(r"[a-z]+[^su]s", w)) and bool(OBJECT.fullmatch(" ".join(words[i + 1:i + 2])))
        return bool(SINGULAR_VERB.match(w)) or frame or with_object

    if words and PARTICLE.match(words[0]):  # past the head's prepositional phrase: the first verb-like word
        verbs = [(i, w) for i, w in enumerate(words) if SINGULAR_VERB.match(w) or (w in FRAME_VERBS and w.endswith("s")) or singular(i, w)]
        return bool(verbs) and singular(*verbs[0])
    return bool(words) and singular(0, words[0])


def _dislocated(q: str) -> Shape | None:
    """"X: what's the state of the art?" -> the question with X as its complement ("... on X"), and "A or B:
    which is better?" -> "which is better, A or B" (``DISLOCATED``); a question with its own shape after a
    label ("Question: which papers…") is that shape; only a shape other than a fact counts."""
    if not (m := DISLOCATED.match(q)):
        return None
    topic, question = m.group("topic"), m.group("question").rstrip("?.! ")
    for rebuilt in (question, f"{question} on {topic}", f"{question}, {topic}"):  # alone: the topic was a label
        if not (shape := detect(rebuilt)).is_fact:
            return shape
    return None


def _one_work(rest: str) -> bool:
    """The predicate is about one work: a definite singular work ("the paper", "its"), or a name
    after a preposition ("used in FlashAttention", "compared with Mamba")."""
    if ONE_WORK.search(rest):
        return True
    text = "The " + rest
    return any(ANCHOR_PREPS.search(text[: text.find(n)]) for n in names(text) if n in text)


def _methods_list(question: str, rest: str, finite: bool = True) -> bool:
    """A plural methods noun asks about the collection (module docstring). ``finite``: a verb after
    the noun is the question's own (a wh-question); after an imperative or "there are" it heads a
    reduced relative ("the methods proposed for X"), no past-tense report."""
    rest = COORD.sub("", rest)
    if contact_subject(rest):
        return False
    if named_subject(rest) or re.match(r"\s*d(?:o|oes|id)\b", rest, re.I):
        return bool(LOCATIVE.search(question)) and not named_subject(rest)
    if LOCATIVE.search(question) or EXISTS.match(rest):
        return not ONE_WORK.search(rest)  # "What methods have been used in this paper…": that work's own
    return not (finite and PAST.match(rest)) and not _one_work(rest)


def _listed(rest: str) -> Shape:
    return Shape(LIST, _topic(rest), verbal=_verbal(rest))


def _list(q: str, previous_was_list: bool) -> Shape | None:
    if previous_was_list and (m := OF_THESE.match(q)):
        rest, topic = m.group("rest"), _topic(m.group("rest"), keep_verb=False)  # no filter named ("Are these surveys?"): none
        predicate = TAIL.sub("", _unplaced(rest))
        return None if superlative(rest) or not topic or NO_FILTER.search(predicate) else Shape(LIST, topic, follow_up=True, predicate=predicate)
    if previous_was_list and (m := WHAT_ABOUT.match(q)):
        return Shape(LIST, TAIL.sub("", _unplaced(m.group("rest"))))
    if (more := more_of(q)) is not None:  # "Any other papers on X?": more works of a kind, a new list (shape_sets)
        return replace(_listed(more), more=True)
    if (m := WH_LIST.match(q)) and not WORKS_VERB.match(q) and not named_subject(m.group("rest")) and not _singular_partitive(q, m.group("rest")):
        return _listed(m.group("rest"))
    for pattern in (WH_MASS, WH_MASS_VERB, ANYONE):  # what work exists / does X, unless about one work or a claim
        if (m := pattern.match(q)) and not ONE_WORK.search(m.group("rest")) and not (pattern is not WH_MASS and CLAIM.match(m.group("rest"))):
            return _listed(m.group("rest"))
    if (m := WH_METHODS.match(q)) and (LOCATIVE.search(q) or not m.group("the")) and _methods_list(q, m.group("rest")):
        # "What are the (two main) models…": a definite plural is a set the context fixes (one work's)
        return _listed(m.group("rest"))
    for pattern in (IMPERATIVE, EXISTENTIAL):
        m = pattern.match(q)
        if m and re.fullmatch(r"work|research", m.group("noun"), re.I) and originated(m.group("rest")):
            return None
        if m and (not re.fullmatch(METHODS, m.group("noun"), re.I) or _methods_list(q, m.group("rest"), finite=False)):
            return _listed(m.group("rest"))
    if (m := WHO_HAS.match(q)) and not CLAIM.match(m.group("rest")) and not originated("that " + m.group("rest")):
        return _listed(m.group("rest"))
    for pattern in (REQUEST, EVERY, DO_ANY, HAVE, WHAT_THERE, BARE):
        m = pattern.match(q)
        if m and (pattern not in (HAVE, WHAT_THERE) or re.match(r"\s*(?:on|about|regarding|concerning|related)\b", m.group("rest"), re.I)):
            return _listed(m.group("rest"))
    return None


def _degree(q: str) -> Shape | None:
    """A degree question about the listed works (``DEGREE``): a follow-up whose filter is its
    presupposition ("are faster", "have speed-ups", "report gains", "save memory"), None without one."""
    if not (m := DEGREE.match(clean(q))) or not (s := DEGREE_SUBJECT.match(m.group("rest"))):
        return None
    degree, rest, noun = QUANTIFIER.sub("", m.group("degree")), s.group("rest"), s.group("noun")
    if m.group("aux").lower() in ("are", "were"):
        if noun and s.group("owner").lower() == "the" and not s.group("verb"):
            return None  # "How big are the models?": no anaphor, no list's members
        kept = degree if not noun or COMPARATIVE.match(degree) else ""  # the degree asked is no part of a noun's filter
        words = [s.group("verb") or ("have" if noun else "are"), kept, noun or "", rest]
        topic = " ".join(w for w in (kept, noun, "" if s.group("verb") else rest) if w)
    elif noun or not (v := re.match(r"([\w-]+)\s*(.*)$", rest)):
        return None
    else:  # do-support or a modal: the verb, and what "much / many" measured is its object ("save memory")
        words, topic = [v.group(1), degree if degree != m.group("degree") else "", v.group(2)], ""
    predicate = re.sub(r"(?:\s+(?:on|in|with|for|to|at|of))?\s+(?:it|them)$", "", " ".join(w for w in words if w))
    topic = re.sub(r"^(?:over|than)\s+", "", topic or _topic(predicate, keep_verb=False))
    light = re.fullmatch(r"(?:do|does|did|get|got|be|have|fare|go|perform)", topic, re.I)  # a light verb names no property
    return Shape(LIST, topic, follow_up=True, predicate=predicate) if topic and " " in predicate and not light else None


def _compare(q: str) -> Shape | None:
    for pattern in COMPARE_FRAMES:
        m = pattern.search(q)
        if m and pattern is COMPARE_FRAMES[1] and PROPERTY.search(m.group("rest")):
            continue  # "How does Mamba's performance compare to that of…": a property, one paper's report
        if m:
            # "The" keeps a first word from reading as a sentence opener; "vs." is no full stop
            rest = OPENER.sub(lambda o: o.group().lower(), m.group("rest"))
            found = names("The " + re.sub(r"\b(vs|versus)\.", r"\1", rest))
            if len(found) >= 2 and IN_ONE_WORK.search(m.group("rest")):
                return None  # compared inside one work: its report
            if len(found) >= 2:
                return Shape(COMPARE, clean(m.group("rest")), names=found)
    return None


def detect(question: str, previous_was_list: bool = False) -> Shape:
    """The question's shape (see the module docstring). ``previous_was_list``: the previous answer
    of the conversation was a list (a "which of these…" follow-up picks from it)."""
    q = " ".join((question or "").split())
    if previous_was_list and over_set(q):  # a superlative over the listed works: one fact, from them (shape_sets)
        return Shape(FACT, over_listed=True)
    if previous_was_list and (found := object_set(q)) and not NO_FILTER.search(found[1]) and not superlative(q):
        return Shape(LIST, found[0], follow_up=True, predicate=found[1])  # "Is X used in any of them?" (shape_sets)
    if previous_was_list and OF_THESE.match(q):
        return _list(q, True) or Shape(FACT)
    if previous_was_list and (degree := _degree(q)):
        return degree
    q = EMBED.sub("", q, count=1)
    if (m := OVERVIEW_FRAME.match(q)) and (topic := TAIL.sub("", _unplaced(m.group("rest")))):
        # its frames are specific: "what do the papers say about" is no list
        # a property of one named work, or a topic anchored to one work ("…that the paper identifies"), is its fact
        # and "the key ideas in Zebra": a content noun with "in" a name is inside that one work
        one = property_of_name(topic) or ONE_WORK.search(topic) or named_part(topic) or DEFINITE_GENRE.search(q[:m.start("rest")]) or (names("The " + topic) == [topic]
                                                                      and re.search(rf"\b{CONTENT}\s+in\s+{re.escape(topic)}\W*$", q, re.I))
        return Shape(FACT) if one else Shape(OVERVIEW, topic)
    if m := next((found for pattern in TOPIC_INSIDE if (found := pattern.match(q))), None):
        topic = TAIL.sub("", _unplaced(m.group("rest") or m.groupdict().get("far") or ""))
        return Shape(FACT) if ONE_WORK.search(topic) or named_part(topic) else Shape(OVERVIEW, topic)
    if (m := WAYS.match(q)) and (topic := TAIL.sub("", _unplaced(m.group("topic") or m.group("rest")))):
        return Shape(FACT) if ONE_WORK.search(topic) else Shape(OVERVIEW, topic)  # the ways of meeting a problem
    shape = _list(q, previous_was_list) or _compare(q) or _dislocated(q) or Shape(FACT)
    return shape if shape.kind in (FACT, COMPARE) or shape.topic else Shape(FACT)  # a list of nothing named is no list


def learned_shape(question: str, previous_was_list: bool = False, follows: bool = False) -> Shape:
    """The question's shape: its kind as the learned reader takes it (``assistant.question.shape_learned``,
    fitted on readers' labelled questions), what it is about as the frames read it (``detect``).
    Where the two kinds differ, the learned kind stands: a fact is a fact (its frame words were a
    figure of speech: "has anyone worked out which ..."), a list or an overview the frames took for
    a fact is about the question's own words, and a comparison needs two names to compare."""
    from assistant.question.shape_learned import reader

    rules = detect(question, previous_was_list)
    if previous_was_list:
        # a follow-up on a list keeps the frames' reading of the listed set (shape_sets: filter, more, a
        # superlative over them), measured on their own hold-outs; the readers' batches hold too few
        # list follow-ups (94) to fit or judge the learned reader on them
        return rules
    kind = reader().kind(question, follows)
    if kind == rules.kind:
        return rules
    if kind == FACT:
        return Shape(FACT)
    if kind == COMPARE:
        found = names("The " + question)
        return Shape(COMPARE, clean(question), names=found) if len(found) >= 2 else rules
    if rules.kind == FACT:
        return rules if previous_was_list else Shape(kind, clean(question))
    return replace(rules, kind=kind)
