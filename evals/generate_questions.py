"""Generate a large question set over the bundled corpus with the packaged local model.

    python -m evals.generate_questions --out evals/datasets/generated.jsonl [--passes 2] [--max-attempts N]
        [--limit N] [--threads T]

One question per distinct abstract and pass (abstracts read by the product's own loaders), two styles
alternating by abstract index: in pass 1 even "direct" (type lookup: may use the paper's names), odd
"reworded" (type paraphrase: the same kind of question in other words); pass 2 (``--passes 2``) asks
every abstract again in the other style, so each abstract can have one question of each style. Ids:
``G0001`` (pass 1), ``G0001-2`` (pass 2). The model (Qwen2.5-Coder-1.5B GGUF, run by
xllamacpp as assistant/backends/local.py does) answers with JSON constrained by a JSON schema,
greedy (temperature 0) first; a reply the rules reject is asked for again, sampled with a fixed
seed (SEED + attempt), up to MAX_ATTEMPTS in all. Items are kept or dropped by the rules in
evals/question_rules.py only; every kept item is appended (and flushed) as soon as it is made, every
dropped one goes to ``<out stem>.dropped.jsonl`` with its rule, so a killed run is resumed by
running the same command again (kept ids are skipped; a dropped one with fewer attempts than
``--max-attempts`` goes on from its next attempt, so a run with more attempts extends an earlier one
as if it had been made with that many from the start).

Written next to ``--out``: ``<stem>_unanswerable.jsonl`` (absent-name variants of the direct
questions) and ``<stem>.meta.json`` (model sha256, seed, prompt, command, counts per rule, speed).

Why not LlamaIndex's RagDatasetGenerator / generate_question_context_pairs: both send a longer,
fixed English template per chunk (RagDatasetGenerator also a second call per question for a
reference answer) and parse free text; here every prompt token costs ~1/16 s on 2 CPU cores
(measured: 16.7 prompt tokens/s, 6.5 generated tokens/s), and we need a JSON answer phrase that
the rules can check, which a schema-constrained direct call gives for one short prompt.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from assistant.settings import DEFAULT_CORPUS, PROJECT_ROOT, PROMPTS_DIR
from evals.question_rules import (
    Abstract,
    Vocab,
    drop_reason,
    load_abstracts,
    make_unanswerables,
    paper_name,
    pick_anchor,
    vocabulary,
)

CORPUS = DEFAULT_CORPUS
PROMPT_FILE = PROMPTS_DIR / "generate_question.txt"
SEED = 11  # fixed: issue 11; temperature 0 makes generation greedy, the seed also drives the unanswerable maker
MAX_TOKENS = 120  # a 40-word question plus a 4-word phrase in JSON is ~80 tokens; sanity bound
N_CTX = 2048  # prompt (~450 tokens at most) + MAX_TOKENS, with room to spare
# Abstract characters shown to the model, cut at a sentence end: 700 chars is ~160 tokens, which
# keeps an item near 15 s on 2 shared cores (measured on the first 5 abstracts, see meta "speed").
MAX_ABSTRACT_CHARS = 700
SCHEMA = {
    "type": "object",
    # answer_phrase first: the model copies it while the abstract is fresh, then asks about it
    "properties": {"answer_phrase": {"type": "string", "maxLength": 80}, "question": {"type": "string", "maxLength": 300}},
    "required": ["answer_phrase", "question"],
}
# A pair the rules reject is asked for again, sampled, up to this many attempts in all: a retry
# costs only its ~30 generated tokens (the prompt is cached), 5-12 s measured on 2 busy cores.
# (Sending the rejection reason back as a correction turn kept 2 of 10 vs 4 of 10: not used.)
# 6, not the first set's 3: each sampled attempt kept 14-19% of the pairs still rejected (first
# pass, attempts 1/2/3: 78 of 446, 68 of 368, 42 of 300), so 3 more were expected to keep ~38%;
# measured on the 258 dropped pass-1 items (3 attempts, a few fewer: moved by a later rule): 77 kept (30%).
MAX_ATTEMPTS = 6
RETRY_TEMPERATURE = 0.7  # llama.cpp's default sampling temperature is 0.8; slightly more conservative
STYLES = {"direct": "lookup", "reworded": "paraphrase"}  # style -> dev.jsonl question type


def load_sections(path: Path = PROMPT_FILE) -> dict[str, str]:
    """The prompt file's ``### name`` sections (system, direct, direct_named, reworded, user)."""
    parts = re.split(r"^### (\w+)\s*$", path.read_text(encoding="utf-8"), flags=re.M)
    sections = {name: body.strip("\n") for name, body in zip(parts[1::2], parts[2::2], strict=True)}
    missing = {"system", "direct", "direct_named", "reworded", "user"} - sections.keys()
    if missing:
        raise ValueError(f"{path}: missing prompt section(s) {sorted(missing)}")
    return sections


def truncate(text: str, limit: int) -> str:
    """The abstract's leading sentences within ``limit`` characters (at least its first sentence)."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
    return cut[: end + 1] if end > 0 else cut


def style_of(index: int, pass_no: int = 1) -> str:
    """Pass 1: even abstracts direct, odd reworded; pass 2 the other way round."""
    return "direct" if (index + pass_no - 1) % 2 == 0 else "reworded"


def item_id(index: int, pass_no: int = 1) -> str:
    return f"G{index + 1:04d}" + ("" if pass_no == 1 else f"-{pass_no}")


def pass_of(id_: str) -> int:
    return int(id_.partition("-")[2] or 1)


class Generator:
    """The packaged local model, loaded once; one schema-constrained chat completion per call."""

    def __init__(self, model_path: Path, threads: int, sections: dict[str, str], max_chars: int) -> None:
        # The product's engine (Unix-socket llama.cpp server, prompt cache on); reused, not copied.
        from assistant.backends.local import Engine

        self.engine = Engine(model_path, threads, N_CTX)
        self.sections, self.max_chars = sections, max_chars

    def messages(self, abstract: Abstract, style: str) -> list[dict[str, str]]:
        # The system part is identical across calls (llama.cpp reuses its KV); the abstract and the
        # style's task come last.
        shown = truncate(abstract.text, self.max_chars)
        task = self.sections[style]
        if style == "direct" and (name := paper_name(abstract.text)):
            task = self.sections["direct_named"].replace("{name}", name)
        user = self.sections["user"].replace("{task}", task).replace("{abstract}", shown)
        return [{"role": "system", "content": self.sections["system"]}, {"role": "user", "content": user}]

    def __call__(self, abstract: Abstract, style: str, attempt: int = 0) -> tuple[dict[str, Any] | None, str]:
        """Attempt 0 is greedy; later attempts sample (RETRY_TEMPERATURE) with seed SEED + attempt.
        The prompt is the same, so a retry reads no prompt tokens (llama.cpp's prompt cache)."""
        request = {"messages": self.messages(abstract, style), "max_tokens": MAX_TOKENS, "seed": SEED + attempt,
                   "temperature": RETRY_TEMPERATURE if attempt else 0.0, "json_schema": SCHEMA, "cache_prompt": True}
        out: list[Any] = []
        self.engine.server.handle_chat_completions(request, lambda chunk: out.append(chunk) or False)
        data = out[-1] if out and isinstance(out[-1], dict) else {}
        if "error" in data:
            return None, json.dumps(data["error"])[:300]
        self.last_timings = data.get("timings") or {}
        text = ((data.get("choices") or [{}])[0].get("message") or {}).get("content") or ""
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            return None, text[:300]
        return (parsed if isinstance(parsed, dict) else None), text[:300]


def make_item(a: Abstract, parsed: dict[str, Any], texts: list[str], vocab: Vocab,
              pass_no: int = 1) -> tuple[dict[str, Any], str | None]:
    """The dataset row for one generated pair and the rule that drops it (None: kept)."""
    style = style_of(a.index, pass_no)
    question = " ".join(str(parsed.get("question", "")).split())
    answer = " ".join(str(parsed.get("answer_phrase", "")).split()).strip(" .,;:\"'")
    item: dict[str, Any] = {"id": item_id(a.index, pass_no), "question": question, "type": STYLES[style],
                            "split": "generated", "gold_anchors": [], "key_points": [], "previous": None,
                            "style": style, "doc_id": a.doc_id, "source": a.source}
    reason = drop_reason(question, answer, a.text, style, vocab)
    if reason is None:
        at = a.text.lower().find(answer.lower())
        item["key_points"] = [a.text[at:at + len(answer)]]  # the abstract's own spelling
        anchor = pick_anchor(a, texts, prefer=item["key_points"][0])
        if anchor is None:
            reason = "no_unique_anchor"
        else:
            item["gold_anchors"] = [anchor]
    if reason:
        item["answer_phrase"] = answer
    return item, reason


def generate_one(gen: Generator, a: Abstract, texts: list[str], vocab: Vocab, pass_no: int = 1,
                 rejected: list[str] | None = None, max_attempts: int = MAX_ATTEMPTS) -> tuple[dict[str, Any], str | None]:
    """Generations for one abstract up to ``max_attempts`` in all: the first kept item, or the last
    rejected one. ``rejected``: the rules that rejected earlier attempts (a resumed item goes on
    from attempt ``len(rejected)``); ``attempt_rules`` lists the rule of each rejected attempt."""
    rejected, style = list(rejected or []), style_of(a.index, pass_no)
    item: dict[str, Any] = {}
    reason: str | None = None
    for attempt in range(len(rejected), max_attempts):
        parsed, raw = gen(a, style, attempt)
        if parsed is None:
            item, reason = {"id": item_id(a.index, pass_no), "style": style, "raw": raw}, "bad_json"
        else:
            item, reason = make_item(a, parsed, texts, vocab, pass_no)
        item["attempt_rules"] = list(rejected)
        if reason is None:
            return item, None
        rejected.append(reason)
    return item, reason


def attempts_of(dropped: dict[str, Any]) -> int:
    return len(dropped.get("attempt_rules", [])) + 1


def compact(paths: dict[str, Path]) -> None:
    """After retries, the dropped file holds an id's last result only, and no id that was kept."""
    kept = {r["id"] for r in _read_jsonl(paths["out"])}
    last = {r["id"]: r for r in _read_jsonl(paths["dropped"]) if r["id"] not in kept}
    paths["dropped"].write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in last.values()), encoding="utf-8")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]  # a last line without "\n" is still being written
    return [json.loads(line) for line in lines if line.strip()]


def paths_for(out: Path) -> dict[str, Path]:
    return {"out": out, "dropped": out.with_name(out.stem + ".dropped.jsonl"),
            "unanswerable": out.with_name(out.stem + "_unanswerable.jsonl"), "meta": out.with_name(out.stem + ".meta.json")}


def model_sha256(path: Path) -> str:
    from assistant.backends.local import MARKER_SUFFIX, MODEL_SHA256, MODEL_SIZE

    marker = path.with_name(path.name + MARKER_SUFFIX)
    if marker.is_file() and path.stat().st_size == MODEL_SIZE:
        return MODEL_SHA256  # verified at assembly (assistant/backends/local.py)
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def recheck(paths: dict[str, Path], abstracts: list[Abstract], vocab: Vocab) -> int:
    """Apply the current rules to the kept items again (rules added after an item was generated):
    an item a rule now rejects moves to the dropped file with that rule. Returns how many moved."""
    kept = _read_jsonl(paths["out"])
    text_of = {a.doc_id: a.text for a in abstracts}
    keep, moved = [], []
    for item in kept:
        reason = drop_reason(item["question"], item["key_points"][0], text_of[item["doc_id"]], item["style"], vocab)
        (moved if reason else keep).append(item | ({"drop_rule": reason} if reason else {}))
    if moved:
        paths["out"].write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in keep), encoding="utf-8")
        with paths["dropped"].open("a", encoding="utf-8") as f:
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in moved)
    return len(moved)


def write_side_files(paths: dict[str, Path], abstracts: list[Abstract], names: frozenset[str], info: dict[str, Any]) -> dict[str, Any]:
    """Rebuild the unanswerable file from the kept items and write the meta sidecar."""
    kept, dropped = _read_jsonl(paths["out"]), _read_jsonl(paths["dropped"])
    corpus_text = "\n".join(f.read_text(encoding="utf-8") for f in sorted(CORPUS.rglob("*.txt")))
    own_names = {a.doc_id: paper_name(a.text) for a in abstracts}
    unanswerable = make_unanswerables(kept, corpus_text, names, SEED, own_names)
    with paths["unanswerable"].open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(u, ensure_ascii=False) + "\n" for u in unanswerable)
    rules: dict[str, int] = {}
    for d in dropped:
        rules[d["drop_rule"]] = rules.get(d["drop_rule"], 0) + 1
    attempts: dict[str, int] = {}
    for r in kept + dropped:
        for rule in r.get("attempt_rules", []) + ([r["drop_rule"]] if "drop_rule" in r else []):
            attempts[rule] = attempts.get(rule, 0) + 1
    passes = max((pass_of(r["id"]) for r in kept + dropped), default=1)
    max_attempts = info.get("max_attempts", MAX_ATTEMPTS)
    meta = info | {
        "abstracts": len(abstracts), "passes": passes, "attempted": len(kept) + len(dropped), "kept": len(kept),
        "complete": len(kept) + len(dropped) == len(abstracts) * passes and all(attempts_of(d) >= max_attempts for d in dropped),
        "dropped_before_max_attempts": sum(attempts_of(d) < max_attempts for d in dropped),
        "kept_by_style": {s: sum(k["style"] == s for k in kept) for s in STYLES},
        "kept_by_pass": {str(p): sum(pass_of(k["id"]) == p for k in kept) for p in range(1, passes + 1)},
        "dropped_by_rule": dict(sorted(rules.items())), "rejected_attempts_by_rule": dict(sorted(attempts.items())),
        "kept_on_attempt": {str(i + 1): sum(len(k.get("attempt_rules", [])) == i for k in kept) for i in range(max_attempts)},
        "max_attempts": max_attempts, "retry_temperature": RETRY_TEMPERATURE, "unanswerable": len(unanswerable),
    }
    paths["meta"].write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return meta


def run(args: argparse.Namespace) -> dict[str, Any]:
    from assistant.backends.local import ensure_model
    from assistant.settings import Settings

    paths = paths_for(Path(args.out))
    paths["out"].parent.mkdir(parents=True, exist_ok=True)
    abstracts = load_abstracts(CORPUS)
    texts, vocab = [a.text for a in abstracts], vocabulary(abstracts)
    compact(paths)
    kept_ids = {r["id"] for r in _read_jsonl(paths["out"])}
    dropped = {r["id"]: r for r in _read_jsonl(paths["dropped"])}
    todo = []  # (pass, abstract, rules of the attempts made so far)
    for p in range(1, args.passes + 1):
        for a in abstracts[: args.limit]:
            d = dropped.get(item_id(a.index, p))
            if d is None and item_id(a.index, p) not in kept_ids:
                todo.append((p, a, []))
            elif d is not None and attempts_of(d) < args.max_attempts:
                todo.append((p, a, d.get("attempt_rules", []) + [d["drop_rule"]]))
    model = Path(args.model) if args.model else ensure_model(Settings())
    info = {"generator": "evals/generate_questions.py", "command": "python -m evals.generate_questions " + " ".join(args.argv),
            "model_file": model.name, "model_sha256": model_sha256(model), "seed": SEED, "temperature": 0.0,
            "max_tokens": MAX_TOKENS, "max_abstract_chars": args.max_chars, "threads": args.threads,
            "max_attempts": args.max_attempts,
            "prompt_file": str(PROMPT_FILE.relative_to(PROJECT_ROOT)),
            "prompt_sha256": hashlib.sha256(PROMPT_FILE.read_bytes()).hexdigest(), "json_schema": SCHEMA}
    gen = Generator(model, args.threads, load_sections(), args.max_chars) if todo else None
    times: list[float] = []
    with paths["out"].open("a", encoding="utf-8") as kept_f, paths["dropped"].open("a", encoding="utf-8") as drop_f:
        for n, (pass_no, a, rejected) in enumerate(todo, 1):
            t0 = time.perf_counter()
            item, reason = generate_one(gen, a, texts, vocab, pass_no, rejected, args.max_attempts)
            times.append(time.perf_counter() - t0)
            target = drop_f if reason else kept_f
            target.write(json.dumps(item | ({"drop_rule": reason} if reason else {}), ensure_ascii=False) + "\n")
            target.flush()
            rules = ",".join(item["attempt_rules"]) or "-"
            print(f"[{n}/{len(todo)}] {item['id']} {times[-1]:.1f}s rejected [{rules}] {reason or 'kept'}: "
                  f"{item.get('question', item.get('raw', ''))[:100]}", flush=True)
    if times:
        info["speed"] = {"items_this_run": len(times), "seconds_per_item": round(sum(times) / len(times), 2)}
    old = json.loads(paths["meta"].read_text(encoding="utf-8")) if paths["meta"].exists() else {}
    if not times:  # nothing generated (resumed when complete, or --limit 0): keep how it was made
        info |= {k: old[k] for k in ("command", "speed", "threads", "max_abstract_chars") if k in old}
        info.setdefault("speed", None)
    compact(paths)
    moved = recheck(paths, abstracts, vocab)
    if moved:
        print(f"{moved} kept items fail a rule added since they were generated: moved to {paths['dropped'].name}")
    return write_side_files(paths, abstracts, vocab.names, info)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="python -m evals.generate_questions", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="evals/datasets/generated.jsonl", help="kept questions (JSONL, appended)")
    p.add_argument("--limit", type=int, default=None,
                   help="only the first N distinct abstracts (0: just rebuild the unanswerable and meta files)")
    p.add_argument("--passes", type=int, default=1,
                   help="passes over the abstracts; pass 2 asks each abstract again in the other style")
    p.add_argument("--max-attempts", type=int, default=MAX_ATTEMPTS,
                   help="generations per item in all; a dropped item with fewer goes on from its next attempt")
    p.add_argument("--threads", type=int, default=2, help="llama.cpp CPU threads")
    p.add_argument("--max-chars", type=int, default=MAX_ABSTRACT_CHARS, help="abstract characters shown to the model")
    p.add_argument("--model", default=None, help="GGUF file (default: the packaged model, assembled as the product does)")
    args = p.parse_args(argv)
    args.argv = argv
    meta = run(args)
    print(json.dumps({k: meta[k] for k in ("attempted", "kept", "kept_by_style", "dropped_by_rule", "unanswerable", "speed")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
