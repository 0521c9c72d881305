"""The misattribution set: claims made mechanically from the corpus, to measure whether the
citation verifier passes claims said of the wrong thing.

    python -m evals.misattribution build   # writes evals/datasets/misattribution.jsonl (seeded)
    python -m evals.misattribution eval    # catch / false-drop per kind, new verifier beside the old
    assistant eval --dataset misattribution   # the same as `eval`

Each abstract's own name is the name it introduces ("we propose X", "called X") and uses again
in another sentence. Its retrieval neighbourhood is the abstracts closest to it by the whole-
abstract MiniLM vector (the naive baseline's dense signal), near-duplicate versions left out.
For an abstract A and a neighbour B (both with own names), from sentences of 8-60 words:

- ``subject_swap``: a sentence of B naming B, with B's name replaced by A's, cited to B (the
  words are B's, the subject is wrong: the issue's Ring Attention / LASP-2 case);
- ``content_swap``: the same claim cited to A (A's name, B's statement);
- ``number_swap``: a sentence of A holding a number, one number replaced by a number of B that A
  never states, cited to A;
- ``direction_flip``: a sentence of A with names on both sides of a comparison ("X outperforms
  Y", "faster than", "over"), the first name of each side swapped, cited to A;
- ``duplicate``: a sentence of A coordinating two names ("X and Y", "X, Y"), the second replaced
  by a copy of the first ("X and X": one conjunct a copy of another, a claim that names one
  thing twice though every name occurs), cited to A; drawn with a random sequence of its own
  (``build --only duplicate`` adds them to the committed set and leaves its other items as they
  are: those were built with the rules of commit 66c8ab7 and are kept as measured);
- ``unswapped``: the original sentences of the kinds, cited to their own abstract;
- ``paraphrase``: correct, mechanical rewrites of them — a reporting/result verb replaced by a
  synonym ("achieves" -> "reaches"), a fronted phrase moved to the end ("By doing Z, X ..." ->
  "X ..., by doing Z"), a non-restrictive clause or parenthesis dropped — cited to their own.

Every item is verified with its neighbourhood as the sources (A, B and up to three more
neighbours, in a seeded order), as an answer of one sentence: a swap is *caught* when the
sentence is not shown as supported; an unswapped sentence or paraphrase is *falsely dropped*
when it is not kept citing its own abstract.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from assistant.language.text import split_sentences
from assistant.verify import attribution

PATH = Path(__file__).resolve().parent / "datasets" / "misattribution.jsonl"
RUNS_DIR = Path(__file__).resolve().parent / "runs"
SEED = 20
NEIGHBOURS = 4  # a neighbourhood: the abstract and its 4 closest (5 sources, the answer's top_k)
PER_KIND = 60  # items of each swap kind (direction flips: as many as the corpus holds, up to this)
MAX_NAME_DF = 3  # a paper's own name: mentioned by a few abstracts at most (its own versions, a follow-up)
NEAR_DUPLICATE = 0.95  # cosine of whole-abstract vectors above which two abstracts are versions of one paper
MODES = ("attribution", "no_learned", "words_only")  # the verifier in use; without the learned check; words only
SWAPS = ("subject_swap", "content_swap", "number_swap", "direction_flip", "duplicate")
CORRECT = ("unswapped", "paraphrase")
_INTRO = re.compile(r"\b(?:we|this paper|this work|here we)\s+(?:\w+\s+)?(?:propose|introduce|present|develop|"
                    r"call|name|dub|term)s?\b|\b(?:called|named|dubbed|termed|coined)\b", re.I)
# reporting and result verbs of abstracts and a synonym each (a closed, small list of English verbs)
_SYNONYMS = {"achieves": "reaches", "outperforms": "surpasses", "improves": "enhances", "demonstrates": "shows",
             "enables": "allows", "reduces": "lowers", "requires": "needs", "uses": "employs", "leverages": "exploits",
             "provides": "offers", "yields": "gives", "obtains": "attains", "exhibits": "shows", "introduces": "presents",
             "achieve": "reach", "outperform": "surpass", "improve": "enhance", "demonstrate": "show",
             "enable": "allow", "reduce": "lower", "require": "need", "provide": "offer"}
_FRONT = re.compile(r"^((?:By|Through|With|Using|Via|Compared to|Compared with|Unlike|Relative to|In contrast to|"
                    r"To|For|On|In|Across|Under|When|While|After|Without)\b[^,]{3,120}),\s+(\S)")
_RELATIVE = re.compile(r",\s+(?:which|who|whose)\b[^,]{3,120},")
_PAREN = re.compile(r"\s+\([^()]{2,80}\)")


# --- corpus ---------------------------------------------------------------------------------------
def doc_key(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:12]


def load_corpus() -> dict[str, str]:
    """The bundled abstracts by key, each once, in file order (read by the product's loader)."""
    from assistant.settings import DEFAULT_CORPUS
    from ingest.loaders import iter_files, load_file

    out: dict[str, str] = {}
    for f in iter_files([DEFAULT_CORPUS]):
        for r in load_file(f)[0]:
            out.setdefault(doc_key(r.text), r.text)
    return out


def sentences(text: str) -> list[str]:
    return [text[s.start : s.end] for s in split_sentences(text)]


def own_name(text: str, corpus: list[str]) -> str | None:
    """The name an abstract introduces and uses again (see the module docstring): written as a
    proper name (an inner capital or digit, or two capitalised words: BPT, LASP-2, Ring
    Attention, not "Memory") and used by at most ``MAX_NAME_DF`` abstracts (a field's term,
    "LLMs", "Reinforcement Learning", belongs to no one paper)."""
    sents = sentences(text)
    for s in sents:
        m = _INTRO.search(s)
        if not m:
            continue
        for name in attribution.claim_names(s[m.end():]):
            proper = any(c.isupper() or c.isdigit() for c in name[1:]) and len(name) >= 3
            if not proper or sum(attribution.occurs(name, t) for t in sents) < 2:
                continue
            first = name.split()[0].lower()
            if sum(1 for t in corpus if first in t.lower() and attribution.occurs(name, t)) <= MAX_NAME_DF:
                return name
    return None


def neighbourhoods(keys: list[str], vectors: np.ndarray) -> dict[str, list[str]]:
    """Each abstract's closest abstracts by cosine, near-duplicates left out."""
    sims = vectors @ vectors.T
    out = {}
    for i, k in enumerate(keys):
        order = [j for j in np.argsort(-sims[i], kind="stable") if j != i and sims[i, j] < NEAR_DUPLICATE]
        out[k] = [keys[j] for j in order[:NEIGHBOURS]]
    return out


# --- the kinds -------------------------------------------------------------------------------------
def usable(s: str) -> bool:
    return 8 <= len(s.split()) <= 60


def replace_name(sentence: str, old: str, new: str) -> str | None:
    """``sentence`` with every whole-word occurrence of ``old`` replaced by ``new``."""
    pattern = r"(?<![\w-])" + r"[\s-]?".join(re.escape(p) for p in old.split()) + r"(?![\w]|-\w)"
    out, n = re.subn(pattern, new, sentence)
    return out if n else None


def number_swap(sentence: str, source_b: str, source_a: str, rng: random.Random) -> str | None:
    """``sentence`` (of A) with one of its numbers replaced by a number of B that A never states."""
    spans = [m for m in attribution._NUMBER.finditer(sentence) if "," not in m.group(1)]
    theirs = sorted({v for v, _, _ in attribution.number_mentions(source_b)} - {v for v, _, _ in attribution.number_mentions(source_a)})
    if not spans or not theirs:
        return None
    m = spans[rng.randrange(len(spans))]
    return sentence[: m.start(1)] + rng.choice(theirs) + sentence[m.end(1):]


def direction_flip(sentence: str) -> str | None:
    """``sentence`` with the first name of each side of its comparison swapped."""
    sides = attribution.sides(sentence)
    if sides is None:
        return None
    left, right = attribution.claim_names(sides.subject), attribution.claim_names(sides.compared)
    if not left or not right:
        return None
    a, b = left[0], right[0]
    if sides.compared.find(b) < 0 or len(sides.compared[: sides.compared.find(b)].split()) > 3:
        return None  # the compared thing is what directly follows the marker ("than X", "outperforms the X")
    if any(attribution.occurs(x, y) for x, y in ((a, b), (b, a), (a, sides.compared), (b, sides.subject))):
        return None
    held = replace_name(sentence, a, "\x00")
    held = replace_name(held, b, a) if held else None
    return held.replace("\x00", b) if held else None


def duplicate(sentence: str) -> str | None:
    """``sentence`` with the second of two names coordinated next to each other ("X and Y", "X or
    Y", "X, Y" in a list that goes on) replaced by a copy of the first, or None when it
    coordinates no two distinct names."""
    found = attribution.claim_names(sentence)
    for a in found:
        for b in found:
            if a == b or attribution.occurs(a, b) or attribution.occurs(b, a):
                continue
            m = re.search(rf"(?<![\w-]){re.escape(a)}(,? (?:and|or) ({re.escape(b)})(?![\w]|-\w)"
                          rf"|, ({re.escape(b)})(?=,|\)|,? (?:and|or)\b))", sentence)
            if m:  # a comma joins two names of a list only where the list goes on ("X, Y, and Z", "(X, Y)")
                g = 2 if m.group(2) else 3
                return sentence[: m.start(g)] + a + sentence[m.end(g):]
    return None


def paraphrases(sentence: str) -> list[tuple[str, str]]:
    """(how, rewrite) for each mechanical, meaning-keeping rewrite that applies."""
    out = []
    words = sentence.split()
    for i, w in enumerate(words):
        if w.lower() in _SYNONYMS and i > 0:
            out.append(("synonym", " ".join(words[:i] + [_SYNONYMS[w.lower()]] + words[i + 1:])))
            break
    m = _FRONT.match(sentence)
    if m and sentence.endswith("."):
        front, rest = m.group(1), sentence[m.start(2):]
        out.append(("reorder", rest[0].upper() + rest[1:-1] + ", " + front[0].lower() + front[1:] + "."))
    if (m := _RELATIVE.search(sentence)) is not None:
        out.append(("drop_clause", sentence[: m.start()] + sentence[m.end() - 1:]))
    elif (m := _PAREN.search(sentence)) is not None:
        out.append(("drop_parenthesis", sentence[: m.start()] + sentence[m.end():]))
    return out


# --- building the set ------------------------------------------------------------------------------
def _pick(rng: random.Random, options: list[str]) -> str | None:
    return options[rng.randrange(len(options))] if options else None


def _item(kind: str, claim: str, original: str, sources: list[str], cited: str, truth: str | None, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "claim": claim, "original": original, "sources": sources, "cited": sources.index(cited),
            "truth": sources.index(truth) if truth else None, **extra}


def _correct(original: str, sources: list[str], own: str, of: str) -> list[dict[str, Any]]:
    out = [_item("unswapped", original, original, sources, own, own, of=of)]
    out += [_item("paraphrase", text, original, sources, own, own, of=of, how=how) for how, text in paraphrases(original)[:1]]
    return out


def items_for(a: str, b: str, corpus: dict[str, str], na: str | None, nb: str | None, sources: list[str],
              rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    """The items of one pair (A, B): each swap kind that applies, with its correct counterparts
    (name swaps only when both have a name of their own)."""
    out: dict[str, list[dict[str, Any]]] = {}
    of_b = [s for s in sentences(corpus[b]) if na and nb and usable(s) and attribution.occurs(nb, s)
            and not attribution.occurs(na, s)]
    if na and nb and (s := _pick(rng, of_b)) and (claim := replace_name(s, nb, na)):
        pair = {"names": [na, nb]}
        out["subject_swap"] = [_item("subject_swap", claim, s, sources, b, None, **pair)]
        out["content_swap"] = [_item("content_swap", claim, s, sources, a, None, **pair)]
        out["subject_swap"] += _correct(s, sources, b, "subject_swap")
    with_numbers = [s for s in sentences(corpus[a]) if usable(s) and attribution.number_mentions(s)]
    if (s := _pick(rng, with_numbers)) and (claim := number_swap(s, corpus[b], corpus[a], rng)):
        out["number_swap"] = [_item("number_swap", claim, s, sources, a, None)] + _correct(s, sources, a, "number_swap")
    flips = [(s, f) for s in sentences(corpus[a]) if usable(s) and (f := direction_flip(s))]
    if flips:
        s, f = flips[rng.randrange(len(flips))]
        out["direction_flip"] = [_item("direction_flip", f, s, sources, a, None)] + _correct(s, sources, a, "direction_flip")
    return out


def build(corpus: dict[str, str], vectors: np.ndarray, seed: int = SEED, per_kind: int = PER_KIND) -> list[dict[str, Any]]:
    """The whole set (deterministic for a corpus, its vectors and the seed)."""
    rng = random.Random(seed)
    keys = list(corpus)
    names = {k: own_name(corpus[k], list(corpus.values())) for k in keys}
    hoods = neighbourhoods(keys, vectors)
    count = dict.fromkeys(SWAPS, 0)
    items: list[dict[str, Any]] = []
    for a in rng.sample(keys, len(keys)):
        na = names[a]
        # B: the closest neighbour with a name of its own that is not A's (else the closest, for numbers)
        b = next((n for n in hoods[a] if names[n] and na and not attribution.occurs(na, names[n] or "")
                  and not attribution.occurs(names[n] or "", na)), None)
        nb = names[b] if b else None
        if b is None:
            b, na = hoods[a][0], None
        sources = [a] + hoods[a]
        rng.shuffle(sources)
        for kind, found in items_for(a, b, corpus, na, nb, sources, rng).items():
            if count[kind] < per_kind:
                count[kind] += 1
                items += found
    items += duplicates(corpus, keys, hoods, random.Random(f"{seed}-duplicate"), per_kind)
    for n, it in enumerate(items, 1):
        it["id"] = f"M{n:04d}"
    return items


def duplicates(corpus: dict[str, str], keys: list[str], hoods: dict[str, list[str]], rng: random.Random,
               per_kind: int) -> list[dict[str, Any]]:
    """``duplicate`` items with their correct counterparts, one per abstract that has a sentence
    coordinating two names, up to ``per_kind``."""
    items: list[dict[str, Any]] = []
    for a in rng.sample(keys, len(keys)):
        found = [(s, d) for s in sentences(corpus[a]) if usable(s) and (d := duplicate(s))]
        if not found:
            continue
        s, d = found[rng.randrange(len(found))]
        sources = [a] + hoods[a]
        rng.shuffle(sources)
        items += [_item("duplicate", d, s, sources, a, None)] + _correct(s, sources, a, "duplicate")
        if sum(it["kind"] == "duplicate" for it in items) >= per_kind:
            break
    return items


def add_duplicates(corpus: dict[str, str], keys: list[str], vectors: np.ndarray, seed: int = SEED) -> list[dict[str, Any]]:
    """The committed set with its ``duplicate`` items (and their counterparts) made anew, every
    other item kept, ids continuing after the last."""
    kept = [it for it in load() if it["kind"] != "duplicate" and it.get("of") != "duplicate"]
    new = duplicates(corpus, keys, neighbourhoods(keys, vectors), random.Random(f"{seed}-duplicate"), PER_KIND)
    last = max((int(it["id"][1:]) for it in kept), default=0)
    for n, it in enumerate(new, last + 1):
        it["id"] = f"M{n:04d}"
    return kept + new


def write(items: list[dict[str, Any]], path: Path = PATH) -> None:
    path.write_text("".join(json.dumps(it, ensure_ascii=False) + "\n" for it in items), encoding="utf-8")


def load(path: Path = PATH) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# --- evaluation ------------------------------------------------------------------------------------
def outcome(item: dict[str, Any], verified: Any) -> dict[str, Any]:
    """What the verifier did with the item's one sentence."""
    sentence = verified.sentences[0] if verified.sentences else None
    supported = bool(sentence and sentence.supported)
    cites = [verified.order[n - 1] for n in sentence.citations] if supported and sentence else []
    right = item["truth"] is not None and supported and cites == [item["truth"]]
    ok = right if item["kind"] in CORRECT else not supported
    return {"supported": supported, "cites": cites, "ok": ok, "reason": sentence.reason if sentence else None}


def run(items: list[dict[str, Any]], corpus: dict[str, str], cache: Any, idf: Any) -> dict[str, Any]:
    """Every item through the new verifier and the word-only one; per-kind figures and timing."""
    from assistant.settings import VerifySettings
    from assistant.verify.citations import Verifier

    modes = {"attribution": VerifySettings(attribution=True), "words_only": VerifySettings(attribution=False, learned=False),
             "no_learned": VerifySettings(attribution=True, learned=False)}
    cache.get(list(dict.fromkeys(corpus[k] for it in items for k in it["sources"])))  # sentence vectors, once
    per_item: list[dict[str, Any]] = []
    seconds = dict.fromkeys(modes, 0.0)
    for it in items:
        texts = [corpus[k] for k in it["sources"]]
        rec: dict[str, Any] = {"id": it["id"], "kind": it["kind"]}
        answer = f"{it['claim']} [{it['cited'] + 1}]"
        claim_vec = Verifier(texts, cache, idf)._vectors([it["claim"]])[0]  # embedded once, outside the timing
        for mode, cfg in modes.items():
            verifier = Verifier(texts, cache, idf, cfg)
            verifier._known[" ".join(it["claim"].split())] = claim_vec
            t = time.perf_counter()
            verified = verifier.verify(answer)
            seconds[mode] += time.perf_counter() - t
            rec[mode] = outcome(it, verified)
        per_item.append(rec)
    return {"per_item": per_item, "table": table(per_item), "ms_per_answer": {m: 1e3 * s / max(len(items), 1) for m, s in seconds.items()}}


def table(per_item: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for kind in SWAPS + CORRECT:
        recs = [r for r in per_item if r["kind"] == kind]
        if not recs:
            continue
        row: dict[str, Any] = {"kind": kind, "n": len(recs), "metric": "caught" if kind in SWAPS else "false drop"}
        for mode in MODES:
            good = sum(r[mode]["ok"] for r in recs)
            row[mode] = (good if kind in SWAPS else len(recs) - good) / len(recs)
        rows.append(row)
    return rows


def format_table(result: dict[str, Any]) -> str:
    lines = ["| kind | n | rate | verifier (attribution + learned check) | without the learned check | "
             "old verifier (words only) |", "|---|---|---|---|---|---|"]
    for r in result["table"]:
        lines.append(f"| {r['kind']} | {r['n']} | {r['metric']} | {r['attribution']:.1%} | {r.get('no_learned', 0):.1%} | "
                     f"{r['words_only']:.1%} |")
    ms = result["ms_per_answer"]
    lines.append(f"\nverification per one-sentence answer: {ms['attribution']:.2f} ms with attribution, "
                 f"{ms['words_only']:.2f} ms words only (verify() of a one-sentence answer over 5 sources, "
                 "the claim's vector computed beforehand)")
    return "\n".join(lines)


def _parts() -> tuple[Any, Any, Any]:
    from assistant.evidence.scoring import SentenceCache
    from assistant.settings import Settings
    from assistant.store.embeddings import make_embedder
    from assistant.store.idf import Idf

    embedder = make_embedder(Settings())
    corpus = load_corpus()
    return corpus, SentenceCache(embedder), Idf(corpus.values())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.misattribution", description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=("build", "eval"), nargs="?", default="eval")
    ap.add_argument("--only", choices=("duplicate",), default=None,
                    help="build: make only this kind (and its correct counterparts) and add it to the committed set, "
                    "replacing that kind's items and keeping every other item")
    ap.add_argument("--limit", type=int, default=None, help="eval: only the first N items")
    ap.add_argument("--out", default=None, help="eval: also write the per-item results and table here (JSON)")
    ap.add_argument("--out-dir", default=None, help="eval: run folder for results.json and report.md "
                    "(default evals/runs/<timestamp>-misattribution)")
    args = ap.parse_args(argv)
    corpus, cache, idf = _parts()
    if args.command == "build":
        keys = list(corpus)
        vectors = np.asarray(cache.embedder([corpus[k] for k in keys]), dtype=np.float32)
        items = build(corpus, vectors) if not args.only else add_duplicates(corpus, keys, vectors)
        write(items)
        counts = {k: sum(it["kind"] == k for it in items) for k in SWAPS + CORRECT}
        print(f"wrote {len(items)} items to {PATH}: {counts}")
        return 0
    items = load()[: args.limit] if args.limit else load()
    result = run(items, corpus, cache, idf)
    print(format_table(result))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    run_dir = Path(args.out_dir) if args.out_dir else RUNS_DIR / f"{time.strftime('%Y%m%d-%H%M%S')}-misattribution"
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "results.json").write_text(json.dumps({"dataset": "misattribution", "n_items": len(items), **result},
                                                     indent=1), encoding="utf-8")
    (run_dir / "report.md").write_text(f"# Misattribution set ({len(items)} items)\n\n{format_table(result)}\n",
                                       encoding="utf-8")
    print(f"run folder: {run_dir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
