"""A calibration set that looks like users' questions, derived mechanically from the generated set
and dev (never the locked split): ``python -m evals.calibration [--data-dir D]`` writes
``evals/datasets/calibration.jsonl`` (and ``calibration.meta.json`` with the counts and rules).

Why: the generated "reworded" questions that the decision thresholds were fitted on stay lexically
close to their abstracts, so the fit never saw questions as far from an abstract's wording as
people's are. Three derivations, each a rule about how people ask, none looking at any answer:

- **far reworded** (type ``paraphrase``): a generated reworded question kept only when it holds
  at most one of its abstract's eight rarest terms (IDF over the collection) and its lexical match
  with its abstract (the IDF-weighted share of its terms the abstract holds, the product's own
  measure) is at most the median of dev's hand-written paraphrases. The rarest terms of an
  abstract are its names and technical words, the ones a reader who has not read it cannot know;
  a question without them is asked in the reader's words. (The first rule alone keeps 185 of the
  188 reworded questions: the generator already bars names; the second is what makes them as far
  as people's.) The row is the same question
  (``derived_from`` its id): the fit represents it here, not in the generated set.
- **short** (type ``short``): the question cut to its topic, as typed into a search box. The
  asking frame is dropped (the leading question word, auxiliaries and determiners, and a
  "kind/type of" head, which names the answer's category, not the topic), then the first runs of
  content words are kept (runs are broken by stop words: prepositions, auxiliaries, conjunctions)
  until they hold two words, capped at ``SHORT_WORDS``. English puts the topic noun phrase first
  in a question's body and its qualifiers after (prepositional phrases, relative clauses). From
  every second generated direct question (by id order) and every dev lookup / numeric question.
- **follow-up** (type ``followup``): two generated questions on one abstract asked in a row. The
  second leans on the first as people continue a conversation: a name the two share becomes
  "it" ("its") where the name is a whole noun phrase (followed by a stop word, punctuation or the
  end, not modifying a noun); otherwise the second opens with the connective "And". ``previous`` is the first's id
  and ``previous_question`` its text (the first is a generated question, not in this file).

Gold anchors and key points are the source question's. Folds of the fit keep a derived question
with its source (``derived_from``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from evals.data import CALIBRATION_PATH, DEV_PATH, GENERATED_PATH, load_for_tuning

RARE_TERMS = 8  # the abstract's rarest terms considered (the rule)
MAX_RARE_HELD = 1  # a far reworded question holds at most this many of them
SHORT_WORDS = 5  # sanity bound: search-box queries run 2-5 words
# Closed classes of English that open a question: question words, auxiliaries, determiners.
_OPENER = frozenset("what which how why who whom whose when where is are was were do does did can could would should "
                    "will has have had may might must the a an this that these those much many".split())  # how much/many: a quantity
_CATEGORY = frozenset("kind kinds type types sort sorts form forms".split())  # "what kind of X": X is asked for
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'.+/-]*[A-Za-z0-9+]|[A-Za-z0-9]")


def rare_terms(text: str, idf: Any, n: int = RARE_TERMS) -> list[str]:
    from assistant.evidence.scoring import terms

    uniq = sorted(set(terms(text)), key=lambda t: (-idf(t), t))
    return uniq[:n]


def match(question: str, abstract: str, idf: Any) -> float:
    from assistant.evidence.scoring import coverage, terms

    return coverage(terms(question), set(terms(abstract)), idf)


def is_far(question: str, abstract: str, idf: Any, max_match: float) -> bool:
    from assistant.evidence.scoring import terms

    held = set(terms(question))
    rare_ok = sum(t in held for t in rare_terms(abstract, idf)) <= MAX_RARE_HELD
    return rare_ok and match(question, abstract, idf) <= max_match


def dev_paraphrase_median(dev: list[dict[str, Any]], docs: dict[str, Any], idf: Any) -> float:
    """The median lexical match of dev's paraphrases with their gold abstract (the best one)."""
    import statistics

    from evals.data import resolve_anchors

    qs, _ = resolve_anchors([r for r in dev if r.get("type") == "paraphrase"], docs)
    vals = [max(match(q.text, d.text, idf) for d in docs.values() if d.work_id in q.gold) for q in qs if q.gold]
    return statistics.median(vals)


def short_form(question: str) -> str | None:
    """The question cut to its topic (module docstring); None when under two content words."""
    from assistant.language.text import stopwords

    stop = stopwords()
    words = _WORD.findall(question)
    i = 0
    while i < len(words) and words[i].lower() in _OPENER:
        i += 1
    if i + 1 < len(words) and words[i].lower() in _CATEGORY and words[i + 1].lower() == "of":
        i += 2
    kept: list[str] = []
    while i < len(words) and len(kept) < 2:
        while i < len(words) and words[i].lower() in stop:
            i += 1
        while i < len(words) and words[i].lower() not in stop and len(kept) < SHORT_WORDS:
            kept.append(words[i])
            i += 1
    if len(kept) < 2:
        return None
    short = " ".join(kept)
    return short if short.lower() != question.rstrip("?").lower() else None


def follow_up(first: str, second: str) -> str:
    """``second`` asked right after ``first`` (module docstring)."""
    from assistant.language.names import names
    from assistant.language.text import stopwords

    stop = stopwords()
    for name in sorted((n for n in names(second) if n in names(first)), key=len, reverse=True):
        # only a name that is a whole noun phrase ("does X use", "in X?"), not a modifier ("X models")
        m = re.search(rf"(?:\bthe\s+)?{re.escape(name)}('s|’s)?(?=\W*(\w*))", second)
        if m and (m.group(1) or not m.group(2) or m.group(2).lower() in stop):
            return second[: m.start()] + ("its" if m.group(1) else "it") + second[m.end():]
    return "And " + second[0].lower() + second[1:]


def derive(generated: list[dict[str, Any]], dev: list[dict[str, Any]], docs: dict[str, Any], idf: Any,
           max_match: float) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def row(src: dict[str, Any], kind: str, qtype: str, text: str, **extra: Any) -> dict[str, Any]:
        keep = {k: src[k] for k in ("gold_anchors", "key_points", "doc_id", "source") if k in src}
        return {"id": f"C-{kind}-{src['id']}", "question": text, "type": qtype, "split": "calibration",
                **keep, "previous": None, "derived_from": src["id"], "derivation": kind, **extra}

    for r in generated:
        doc = docs.get(r.get("doc_id", ""))
        if r.get("style") == "reworded" and doc is not None and is_far(r["question"], doc.text, idf, max_match):
            out.append(row(r, "far", "paraphrase", r["question"]))
    direct = sorted((r for r in generated if r.get("style") == "direct"), key=lambda r: r["id"])[::2]
    for r in direct + [r for r in dev if r.get("type") in ("lookup", "numeric") and not r.get("previous")]:
        short = short_form(r["question"])
        if short:
            out.append(row(r, "short", "short", short))
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for r in sorted(generated, key=lambda r: r["id"]):
        by_doc.setdefault(r.get("doc_id", ""), []).append(r)
    for pair in by_doc.values():
        if len(pair) >= 2:
            first, second = pair[0], pair[1]
            out.append(row(second, "followup", "followup", follow_up(first["question"], second["question"]),
                           previous=first["id"], previous_question=first["question"]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.calibration", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", help="an index of the bundled corpus (default ./.assistant, ingested if empty)")
    ap.add_argument("--out", default=str(CALIBRATION_PATH))
    args = ap.parse_args(argv)
    from assistant.store.idf import Idf
    from evals.tuning import open_assistant

    assistant = open_assistant(args.data_dir)
    docs = assistant.retriever.docs()
    idf = Idf(d.text for d in docs.values())
    dev = load_for_tuning(DEV_PATH)
    max_match = dev_paraphrase_median(dev, docs, idf)
    rows = derive(load_for_tuning(GENERATED_PATH), dev, docs, idf, max_match)
    out = Path(args.out)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["derivation"]] = counts.get(r["derivation"], 0) + 1
    meta = {"command": "python -m evals.calibration " + " ".join(argv if argv is not None else sys.argv[1:]),
            "counts": counts, "rare_terms": RARE_TERMS, "max_rare_held": MAX_RARE_HELD, "short_words": SHORT_WORDS,
            "max_match (dev paraphrases' median)": round(max_match, 4),
            "sources": [GENERATED_PATH.name, DEV_PATH.name]}
    out.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(meta), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
