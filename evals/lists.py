"""The list split: questions about the collection ("which papers…", "compare A and B", "what is
known about X"), made reproducibly from the corpus, and the fit of the list's relevance cut-off.

    python -m evals.lists build [--data-dir D]   # -> evals/datasets/lists.jsonl (+ lists.meta.json)
    python -m evals.lists fit [--data-dir D]     # 5-fold CV -> evals/fits/lists.json
    python -m evals.lists shapes                 # the shape detector's confusion on dev, generated, lists
    assistant eval --dataset lists               # list recall / precision per shape beside the baseline

**Topic groups** are the technical terms the abstracts define: English technical writing
introduces a term with its acronym in brackets ("state space models (SSMs)"), so a run of words
whose initials spell the bracketed capitals is a term (at least two words, hyphens read as
spaces). Expansions of one acronym that share at least half their stems are one term (vision /
visual language models, VLM); an acronym with unrelated expansions (GSS) is ambiguous and only
its expansions' words count. A work holds a term when its text has an expansion's words (last
word singular or plural) or, for an unambiguous acronym of ``MIN_ACRONYM`` or more characters,
the acronym as a word. Groups with ``MIN_DF``..``MAX_DF`` works are kept, largest first, skipping
one whose works overlap a kept group by a Jaccard index of ``MAX_OVERLAP`` or more. Each group is
a gold set. Questions come from fixed templates; a comparison pairs two works of one group that
each have a name (assistant.language.names) used twice in their abstract and found in no other work.
Nothing here reads an evaluation question.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from evals.data import (
    CACHE_DIR,
    DATASETS_DIR,
    EVALS_DIR,
    LISTS_ABSENT_WRITTEN_PATH,
    LISTS_CURATED_WRITTEN_PATH,
    LISTS_PATH,
    LISTS_WRITTEN_PATH,
    corpus_hash,
    load_for_tuning,
    resolve_anchors,
)
from evals.lists_metrics import (
    agg_lists,
    diagnosis,
    expected_shape,
    format_lists,
    list_record,
    mean_sd,
    scores,
    shape_confusion,
)
from evals.lists_reworded import kept as kept_rewordings
from evals.lists_rule import PARAMS, RP, best_params, rp, writes_topic

__all__ = ["agg_lists", "expected_shape", "format_lists", "list_record", "scores"]  # the harness imports them from here

META_PATH = DATASETS_DIR / "lists.meta.json"
FIT_PATH = EVALS_DIR / "fits" / "lists.json"
MIN_DF, MAX_DF = 3, 25  # sanity bounds: a list of at least three; at most display_max (one screen)
MIN_ACRONYM = 3  # shorter acronyms (IR, CV, AI) are read as other things too: only their expansions count
MAX_OVERLAP = 0.5  # sanity bound: two gold sets sharing half their works are one topic
N_OVERVIEW, N_COMPARE = 15, 20
N_FOLLOWUP = 15
# One template per question, in turn. Besides the plain frames, the other ways English asks about a
# collection (assistant/question/shape.py's docstring): a methods noun placed in the collection, do-any and
# is-there-any existentials, the bare noun phrase, a request, and what the collection has.
LIST_TEMPLATES = ["Which papers study {t}?", "Which abstracts mention {t}?", "List the papers on {t}.",
                  "What works in the collection deal with {t}?", "Are there papers about {t}?",
                  "Which studies discuss {t}?", "What methods in this collection address {t}?",
                  "Do any papers here discuss {t}?", "Is there any work on {t} in the corpus?", "Papers on {t}?",
                  "I'm looking for papers about {t}.", "What does the collection have on {t}?",
                  "Which approaches here use {t}?"]
OVERVIEW_TEMPLATES = ["What is known about {t}?", "Give an overview of {t}.", "What has been tried for {t}?",
                      "What is known here about {t}?", "What has been proposed for {t}?", "Summarise the research on {t}.",
                      "What do the abstracts in this collection say about {t}?"]
COMPARE_TEMPLATES = ["How do {a} and {b} differ?", "Compare {a} and {b}.", "What is the difference between {a} and {b}?",
                     "{a} vs. {b}: how do they compare?", "How does {a} differ from {b}?", "What distinguishes {a} from {b}?",
                     "In what ways do {a} and {b} differ?"]
# The same lists asked by the acronym the abstracts define (English writes a defined term by it).
ACRONYM_TEMPLATES = ["Which papers mention {a}?", "Do any papers here use {a}?", "What works in the collection discuss {a}?"]
# A follow-up picks out of the list just given (only its works can answer).
FOLLOWUP_TEMPLATES = ["Which of these mention {h}?", "Of these, which use {h}?", "Do any of them discuss {h}?",
                      "Which ones report {h}?", "Among those, which involve {h}?"]


# --- terms ----------------------------------------------------------------------------------------
_DEFINED = re.compile(r"((?:[A-Za-z][A-Za-z-]*\s+){1,5}[A-Za-z][A-Za-z-]*)\s*\(([A-Z][A-Za-z0-9-]{1,9}?)s?\)")
_FUNCTION = frozenset({"of", "and", "for", "the", "a", "an", "with", "to", "in", "on", "by"})


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower().replace("-", " "))


def defined_terms(works: dict[str, str]) -> dict[str, set[str]]:
    """Acronym -> the expansions the abstracts give it ("SSM" -> {"state space models", ...})."""
    out: dict[str, set[str]] = defaultdict(set)
    for text in works.values():
        for m in _DEFINED.finditer(text):
            words, acronym = m.group(1).split(), m.group(2)
            capitals = "".join(c for c in acronym if c.isupper())
            for n in range(1, len(words) + 1):
                parts = [p for w in words[-n:] for p in w.split("-") if p and p.lower() not in _FUNCTION]
                if "".join(p[0].upper() for p in parts) == capitals:
                    expansion = " ".join(_words(" ".join(words[-n:])))
                    if len(expansion.split()) >= 2:
                        out[acronym].add(expansion)
                    break
    return out


def _stems_of(term: str) -> set[str]:
    from assistant.language.text import stemmer

    return set(stemmer().stemWords(_words(term)))


def _holds(words: str, expansions: set[str], acronym: str | None, text: str) -> bool:
    for e in expansions:
        alts = {e, e + "s", e[:-1] if e.endswith("s") else e}
        if any(re.search(rf"\b{re.escape(alt)}\b", words) for alt in alts):
            return True
    return acronym is not None and re.search(rf"\b{re.escape(acronym)}s?\b", text) is not None


def term_groups(works: dict[str, str]) -> list[dict[str, Any]]:
    """Topic groups of ``works`` (work id -> text) by the rules of the module docstring."""
    return _choose(defined_groups(works))


def defined_groups(works: dict[str, str]) -> list[dict[str, Any]]:
    """Every defined term held by ``MIN_DF``..``MAX_DF`` works, before overlapping ones are dropped."""
    normal = {w: " ".join(_words(t)) for w, t in works.items()}
    found = []
    for acronym, expansions in sorted(defined_terms(works).items()):
        stems = [_stems_of(e) for e in expansions]
        one_sense = all(len(a & b) * 2 >= min(len(a), len(b)) for a in stems for b in stems)
        for sense in [expansions] if one_sense else [{e} for e in sorted(expansions)]:
            use = acronym if one_sense and len(acronym) >= MIN_ACRONYM else None
            members = sorted(w for w in works if _holds(normal[w], sense, use, works[w]))
            if MIN_DF <= len(members) <= MAX_DF:
                found.append({"term": _surface(sense, works), "acronym": acronym,
                              "expansions": sorted(sense), "acronym_counts": use is not None, "works": members})
    return found


def _surface(sense: set[str], works: dict[str, str]) -> str:
    """The term as the abstracts most often write it (hyphens kept), lower case."""
    forms: Counter[str] = Counter()
    for e in sorted(sense):
        pattern = re.compile(r"\b" + r"[\s-]+".join(re.escape(w) for w in e.split()) + r"s?\b", re.I)
        forms.update(m.group(0).lower() for t in works.values() for m in pattern.finditer(t))
    return max(sorted(forms), key=lambda f: forms[f]) if forms else sorted(sense)[0]


def _choose(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    chosen: list[dict[str, Any]] = []
    for g in sorted(found, key=lambda g: (-len(g["works"]), g["term"])):
        ws = set(g["works"])
        if all(len(ws & set(c["works"])) / len(ws | set(c["works"])) < MAX_OVERLAP for c in chosen):
            chosen.append(g)
    return chosen


# --- names for comparisons ------------------------------------------------------------------------
_INTRODUCES = re.compile(r"\bwe\s+(?:propose|introduce|present|develop|design|call|term|dub|name)\b|\b(?:called|named|dubbed|termed)\b", re.I)


def own_names(works: dict[str, str]) -> dict[str, str]:
    """Work id -> the name its abstract introduces (in a sentence where "we propose / introduce /
    call …" or "called / named …"), uses twice or more, and no other abstract mentions."""
    from assistant.language.names import mentioned, names
    from assistant.language.text import split_sentences

    out: dict[str, str] = {}
    for wid, text in works.items():
        intro = " ".join(text[s.start : s.end] for s in split_sentences(text) if _INTRODUCES.search(text[s.start : s.end]))
        for name in names(intro):
            if text.count(name) < 2 or len(name) < 3 or len(name.split()) > 3 or not re.search(r"[A-Za-z]", name):
                continue
            if any(mentioned(name, other) for o, other in works.items() if o != wid):
                continue
            out[wid] = name
            break
    return out


# --- the split ------------------------------------------------------------------------------------
def _anchor(text: str, works: dict[str, str]) -> str:
    """A verbatim opening of ``text`` (8-20 words) that no other work holds."""
    words = text.split()
    for n in range(8, min(20, len(words)) + 1):
        anchor = " ".join(words[:n])
        if sum(1 for t in works.values() if anchor in " ".join(t.split())) == 1:
            return anchor
    return " ".join(words[:20])


def build_rows(works: dict[str, str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    groups = term_groups(works)
    named = own_names(works)
    rows: list[dict[str, Any]] = []

    def row(kind: str, i: int, question: str, gold: list[str], prefix: str = "", **extra: Any) -> dict[str, Any]:
        return {"id": f"{prefix or kind[0].upper() + 'L'}{i:03d}", "question": question, "type": kind, "shape": kind, "split": "lists",
                "gold_anchors": [_anchor(works[w], works) for w in gold], "key_points": [], "previous": None, **extra}

    for i, g in enumerate(groups, 1):
        rows.append(row("list", i, LIST_TEMPLATES[i % len(LIST_TEMPLATES)].format(t=g["term"]), g["works"],
                        term=g["term"], acronym=g["acronym"]))
    reworded = kept_rewordings()  # the topic as a user words it (evals/lists_reworded.py), gold unchanged
    for i, g in enumerate([g for g in groups if g["term"] in reworded], 1):
        rows.append(row("list_reworded", i, LIST_TEMPLATES[i % len(LIST_TEMPLATES)].format(t=reworded[g["term"]]), g["works"],
                        prefix="RL", shape="list", term=g["term"], acronym=g["acronym"], topic=reworded[g["term"]]))
    for i, g in enumerate([g for g in groups if g["acronym_counts"]], 1):
        rows.append(row("list", i, ACRONYM_TEMPLATES[i % len(ACRONYM_TEMPLATES)].format(a=g["acronym"]), g["works"],
                        prefix="AL", term=g["term"], acronym=g["acronym"], topic=g["acronym"]))
    for i, g in enumerate(groups[:: max(1, len(groups) // N_OVERVIEW)][:N_OVERVIEW], 1):
        rows.append(row("overview", i, OVERVIEW_TEMPLATES[i % len(OVERVIEW_TEMPLATES)].format(t=g["term"]), g["works"],
                        term=g["term"], acronym=g["acronym"]))
    pairs: list[tuple[str, str]] = []
    used: set[str] = set()
    for g in groups:
        have = [w for w in g["works"] if w in named and w not in used]
        if len(have) >= 2 and len(pairs) < N_COMPARE:
            pairs.append((have[0], have[1]))
            used.update(have[:2])
    for i, (a, b) in enumerate(pairs, 1):
        rows.append(row("compare", i, COMPARE_TEMPLATES[i % len(COMPARE_TEMPLATES)].format(a=named[a], b=named[b]), [a, b],
                        names=[named[a], named[b]]))
    lists = {r["term"]: r["id"] for r in rows if r["type"] == "list" and "topic" not in r}
    for i, (g, h, gold) in enumerate(followups(groups, defined_groups(works)), 1):
        term = h["term"]
        rows.append(row("followup", i, FOLLOWUP_TEMPLATES[i % len(FOLLOWUP_TEMPLATES)].format(h=term), gold, shape="list",
                        previous=lists[g["term"]], term=term, acronym=h["acronym"],
                        key_points=[term[:-1] if term.endswith("s") else term]))
    meta = {"groups_found": len(groups), "rows": Counter(r["type"] for r in rows), "works": len(works),
            "rules": {"MIN_DF": MIN_DF, "MAX_DF": MAX_DF, "MIN_ACRONYM": MIN_ACRONYM, "MAX_OVERLAP": MAX_OVERLAP},
            "groups": [{k: g[k] for k in ("term", "acronym", "expansions", "acronym_counts")} | {"n": len(g["works"])}
                       for g in groups]}
    return rows, meta


def followups(groups: list[dict[str, Any]], found: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any], list[str]]]:
    """(list group, second term, gold) for up to ``N_FOLLOWUP`` follow-ups: the gold is the list's
    works that also hold a second defined term of unrelated words, at least two and not all of
    them (the largest such share; ties by term)."""
    out = []
    for g in groups:
        stems, ws = _stems_of(g["term"]), set(g["works"])
        fits = [(sorted(ws & set(h["works"])), h) for h in found
                if not stems & _stems_of(h["term"]) and 2 <= len(ws & set(h["works"])) < len(ws)]
        if fits and len(out) < N_FOLLOWUP:
            gold, h = max(fits, key=lambda x: (len(x[0]), [-ord(c) for c in x[1]["term"]]))
            out.append((g, h, gold))
    return out


def open(data_dir: str | None) -> Any:
    from assistant import Assistant
    from assistant.settings import DEFAULT_CORPUS

    chash, _ = corpus_hash("dev", DEFAULT_CORPUS)
    a = Assistant(data_dir=Path(data_dir) if data_dir else CACHE_DIR / f"bundled-{chash}", backend="extractive")
    a.ingest([DEFAULT_CORPUS])
    return a


def corpus_works(assistant: Any) -> dict[str, str]:
    """One text per work: its first abstract by id."""
    docs = assistant.retriever.docs()
    first: dict[str, str] = {}
    for doc_id in sorted(docs):
        first.setdefault(docs[doc_id].work_id, doc_id)
    return {w: docs[d].original for w, d in first.items()}


def build(data_dir: str | None = None, out: Path = LISTS_PATH) -> dict[str, Any]:
    rows, meta = build_rows(corpus_works(open(data_dir)))
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    META_PATH.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


# --- the fit of the relevance cut-off -----------------------------------------------------------
# The fit the settings cite is on the term-worded lists and the hand-written ones (list_written,
# evals/experiments/lists_written.py); the model's rewordings (list_reworded) are measured with --types: they
# lost the term's sense too often to calibrate anything (docs/archive/measurements-diary.md).
FIT_TYPES = ("list", "list_written", "list_absent")
TOPIC = "frames"  # what a list is about: "frames" (shape.detect's topic), "question" (the question's own words)


def list_features(assistant: Any, questions: list[Any], n: int | None = None) -> list[dict[str, Any]]:
    """Each list question's candidates: (lexical, dense, is gold), and the baseline's top-k works."""
    from assistant.collection.topics import candidates, feedback, unwritten, written
    from assistant.question.shape import detect
    from evals.lists_rule import FEEDBACK, PHRASE, RANKS

    engine, k = assistant.engine, assistant.settings.top_k
    idf = engine.idf()
    out = []
    for q in questions:
        topic = (detect(q.text).topic or q.text) if TOPIC == "frames" else q.text
        cands = candidates(engine.parts, topic, n or assistant.settings.collection.candidates)
        base = [h.metadata.get("work_id", h.doc_id) for h in assistant.search(q.text, k=k, mode="baseline")]
        fed = {}  # by meaning with feedback from the best fb candidates: (rank, cosine, work) by rank, and the best cosine
        for fb in [x for x in FEEDBACK if x and not written(cands, PHRASE)]:
            feedback(engine.parts, topic, cands, fb)
            ranked = sorted(cands, key=lambda c: c.feedback_rank)
            fed[fb] = ([(c.feedback_rank, c.feedback, c.doc.work_id) for c in ranked[: max(RANKS)]],
                       max(c.feedback for c in cands))
        out.append({"fed": fed, "id": q.id, "type": q.type, "group": (q.raw or {}).get("term") or q.id, "gold": set(q.gold), "baseline": base,
                    "cands": [(c.lexical, c.dense, c.doc.work_id, c.rank) for c in cands], "unwritten": unwritten(topic, idf)})
    return out


def fit(data_dir: str | None = None, folds: int = 5, n: int | None = None, out: Path | None = FIT_PATH,
        m: int | None = None, types: tuple[str, ...] = FIT_TYPES, meaning: bool = True, feedback: bool = True) -> dict[str, Any]:
    """5-fold CV of (lexical_weight, cutoff, meaning_rank, meaning_ratio, meaning_floor, meaning_unwritten,
    meaning_feedback) on the list questions of
    the list split and the written lists (``types``: only these question types); ``m``: the floor
    of works always listed (default ``collection.min_listed``); ``meaning``: False fits the rule
    without ``by_meaning``; ``feedback``: False fits it without pseudo-relevance feedback. Held-out figures per fold and per question type; each type's figures
    with the constants in settings now (``settings_now``) and with ``by_meaning`` off (``old_rule``)."""
    assistant = open(data_dir)
    cs = assistant.settings.collection
    m = cs.min_listed if m is None else m
    # the curated set (evals/experiments/lists_curated.py, its absent topics too) only when its type is asked for: the default fit is unchanged
    paths = (LISTS_PATH, LISTS_WRITTEN_PATH, LISTS_ABSENT_WRITTEN_PATH) + ((LISTS_CURATED_WRITTEN_PATH,) if "list_curated" in types else ())
    rows = [r for path in paths for r in load_for_tuning(path)
            if r.get("shape") == "list" and not r.get("previous") and r.get("type") in types]
    questions, problems = resolve_anchors(rows, assistant.retriever.docs())
    feats = list_features(assistant, sorted(questions, key=lambda q: q.id), n)
    per_fold = []
    types = tuple(sorted({f["type"] for f in feats}))
    groups = sorted({f["group"] for f in feats})  # a topic's questions (term, acronym, written) stay in one fold
    fold_of = {g: j % folds for j, g in enumerate(groups)}
    for i in range(folds):
        train = [f for f in feats if fold_of[f["group"]] != i]
        test = [f for f in feats if fold_of[f["group"]] == i]
        p = best_params(train, m, meaning, feedback)
        per_fold.append({"fold": i, **dict(zip(PARAMS, p, strict=True)), "n": len(test), **rp([f for f in test if f["gold"]], *p[:2], m, *p[2:]),
                         "by_type": {ty: rp([f for f in test if f["type"] == ty], *p[:2], m, *p[2:]) for ty in types}})
    p = best_params(feats, m, meaning, feedback)
    now = (cs.lexical_weight, cs.cutoff, m, cs.meaning_rank, cs.meaning_ratio, cs.meaning_floor, cs.meaning_unwritten,
           cs.meaning_feedback)
    ceiling = [len({c[2] for c in f["cands"]} & f["gold"]) / len(f["gold"]) for f in feats if f["gold"]]
    result = {"command": "python -m evals.lists fit", "types": types, "questions": len(feats), "problems": problems,
              "chosen": dict(zip(PARAMS, p, strict=True)), "folds": per_fold,
              "held_out": {k: mean_sd([f[k] for f in per_fold]) for k in RP},
              "held_out_by_type": {ty: {k: mean_sd([f["by_type"][ty][k] for f in per_fold if f["by_type"][ty]])
                                        for k in (RP if any(x["gold"] for x in feats if x["type"] == ty) else ("listed_nothing", "said_none"))}
                                   for ty in types},
              "settings_now": {ty: rp([f for f in feats if f["type"] == ty], *now) for ty in types},
              "old_rule": {ty: rp([f for f in feats if f["type"] == ty], *now[:3]) for ty in types},
              "topic_written": {ty: sum(writes_topic(f) for f in feats if f["type"] == ty) for ty in types},
              "candidates": n or assistant.settings.collection.candidates, "min_listed": m, "candidate_recall": mean_sd(ceiling),
              "by_type": {ty: diagnosis([f for f in feats if f["type"] == ty]) for ty in types},
              "baseline": f"naive retriever (BM25 + abstract vectors, RRF) top-{assistant.settings.top_k} works"}
    if out is not None:
        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.lists", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["build", "fit", "shapes"])
    ap.add_argument("--data-dir", default=None, help="index of the bundled corpus (default: the harness's cache)")
    ap.add_argument("--candidates", type=int, default=None, help="fit: abstracts read per question (default: the setting); "
                    "with it the fit is printed, not written")
    ap.add_argument("--min-listed", type=int, default=None, help="fit: the works always listed (default: the setting); "
                    "with it the fit is printed, not written")
    ap.add_argument("--types", default=None, help="fit: comma-separated question types (list, list_written, list_absent, list_reworded, list_curated; default list,list_written,list_absent); "
                    "with it the fit is printed, not written")
    ap.add_argument("--dry-run", action="store_true", help="fit: print, do not write evals/fits/lists.json")
    ap.add_argument("--topic", choices=["frames", "question"], default="frames",
                    help="fit: what a list is about, the frames' topic or the question's own words (printed, not written)")
    ap.add_argument("--no-meaning", action="store_true", help="fit: without the by-meaning rule (printed, not written)")
    ap.add_argument("--no-feedback", action="store_true", help="fit: by meaning without pseudo-relevance feedback (printed, not written)")
    args = ap.parse_args(argv)
    if args.command == "shapes":
        print(json.dumps(shape_confusion(), indent=1))
        return 0
    types = tuple(args.types.split(",")) if args.types else FIT_TYPES
    global TOPIC
    TOPIC = args.topic
    dry = args.topic != "frames" or args.dry_run or args.candidates or args.min_listed is not None or args.types or args.no_meaning or args.no_feedback
    out = build(args.data_dir) if args.command == "build" else fit(
        args.data_dir, n=args.candidates, m=args.min_listed, types=types, out=None if dry else FIT_PATH,
        meaning=not args.no_meaning, feedback=not args.no_feedback)
    print(json.dumps({k: v for k, v in out.items() if k not in ("groups", "folds")}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
