"""The ``assistant`` command: ingest, search, ask, chat, serve, eval, bench.

Imports are lazy so that ``assistant --help`` and ``assistant search`` start fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

DESCRIPTION = """Question answering over research-paper abstracts, with verified citations.

Data dir: --data-dir, else $ASSISTANT_DATA_DIR, else ./.assistant (holds the Chroma index,
the embedding model files, the local LLM file and an optional config.toml).
Any setting can also come from the environment (ASSISTANT_<NAME>) or the config file.
"""


# Flags whose setting has another name; every other flag that names a Settings field sets it.
SETTING_FOR_FLAG = {"k": "top_k", "model": "openai_model", "base_url": "openai_base_url"}
NO_INDEX = "No abstracts indexed. Run `assistant ingest` first."


def _positive(text: str) -> int:
    """A count flag (--k): a whole number of at least 1 (0 or a negative count would search for
    nothing and say that no abstract matched)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number (use 1 or more)")
    return value


def _parser() -> argparse.ArgumentParser:
    from assistant.backends import names

    backends = names()
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, help="index location (default ./.assistant or $ASSISTANT_DATA_DIR)")
    common.add_argument("--config", type=Path, help="TOML config file (default <data-dir>/config.toml)")
    common.add_argument("--chroma-host", help="use a Chroma server at this host instead of the embedded store")
    common.add_argument("--chroma-port", type=int, help="Chroma server port (default 8000)")

    p = argparse.ArgumentParser(prog="assistant", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("ingest", parents=[common], help="add abstracts from files/folders (default: the bundled corpus)")
    s.add_argument("paths", nargs="*", type=Path, help="seed .txt, .jsonl, .csv, .bib, .ris, CSL-JSON / arXiv / OpenAlex .json files or folders (BEIR folders too)")
    s.add_argument("--prune", action="store_true", help="remove abstracts whose files are gone")
    s.add_argument("--dry-run", action="store_true", help="report what would change, write nothing")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.add_argument("--watch", action="store_true", help="keep watching PATHs and apply every change (Ctrl-C stops)")

    narrow = argparse.ArgumentParser(add_help=False)  # filters (assistant/filters.py)
    narrow.add_argument("--year", help="only works of these years: 2020, 2019-2021, 2019-, >=2020, <2022")
    narrow.add_argument("--author", help="only works with an author containing this (case and accents ignored)")
    narrow.add_argument("--venue", help="only works whose venue (journal, proceedings, arXiv category) contains this")
    narrow.add_argument("--file", help="only works ingested from a file whose path contains this")
    # dest: ``collection`` is the settings section of collection questions (an override by name)
    narrow.add_argument("--collection", dest="in_collection",
                        help="only works in a Zotero collection whose path contains this (\"Thesis\" also admits its subcollections)")

    s = sub.add_parser("search", parents=[common, narrow], help="find the best abstracts for a query")
    s.add_argument("query")
    s.add_argument("--k", dest="hits", type=_positive, default=10, help="number of abstracts (default 10)")
    s.add_argument("--mode", choices=["hybrid", "dense", "bm25", "baseline"], default="hybrid",
                   help="hybrid (default); dense or bm25 alone; baseline: the naive BM25 + abstract-vector RRF")
    s.add_argument("--json", action="store_true", help="print JSON")

    for name, helptext in (("ask", "answer a question with cited sources"), ("chat", "a conversation in the terminal")):
        s = sub.add_parser(name, parents=[common, narrow], help=helptext)
        if name == "ask":
            s.add_argument("question")
            s.add_argument("--json", action="store_true", help="print JSON (no streaming)")
            s.add_argument("--export", choices=["md", "bib"], help="print the answer as Markdown with references, "
                           "or the cited works as BibTeX, instead of the usual output")
        s.add_argument("--backend", choices=backends, help="answer engine (default: openai if configured, else local if installed, else extractive)")
        s.add_argument("--k", type=_positive, help="number of sources (default 5)")
        s.add_argument("--model", help="model name for the openai backend")
        s.add_argument("--base-url", help="OpenAI-compatible base URL (vLLM, Ollama, llama.cpp server, LM Studio)")

    s = sub.add_parser("serve", parents=[common], help="start the chat web UI")
    s.add_argument("--host", help="bind address (default 127.0.0.1)")
    s.add_argument("--port", type=int, help="port (default 7860)")
    s.add_argument("--auth", help="user:password required to open the page (needed off loopback)")
    s.add_argument("--insecure-no-auth", action="store_true", help="allow a non-loopback bind without auth")
    s.add_argument("--share", action="store_true", help="create a public Gradio share link (off by default)")
    s.add_argument("--backend", choices=backends)
    s.add_argument("--library", nargs="+", type=Path, metavar="PATH",
                   help="export files, folders or a Zotero data directory to keep the index in step with")

    # eval and bench hand their arguments to evals.harness / evals.bench (see `assistant eval --help`).
    sub.add_parser("eval", help="measure retrieval, citations, refusals and speed (--help for options)", add_help=False)
    sub.add_parser("bench", help="speed benchmarks: ingest, search, scale, LLM (--help for options)", add_help=False)
    return p


def _settings(args: argparse.Namespace) -> Any:
    """Settings from the config file and environment, with every given flag as an override."""
    from assistant.settings import Settings

    overrides = {}
    for flag, value in vars(args).items():
        name = SETTING_FOR_FLAG.get(flag, flag)
        if name in Settings.model_fields and value is not None and value is not False:
            overrides[name] = value
    return Settings.load(args.config, **overrides)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if argv and argv[0] == "eval":
        from evals.harness import main as eval_main

        return eval_main(argv[1:])
    if argv and argv[0] == "bench":
        from evals.bench import main as bench_main

        return bench_main(argv[1:])
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # one clear line for users; details with ASSISTANT_DEBUG=1
        if os.environ.get("ASSISTANT_DEBUG"):
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    from assistant.core import Assistant

    settings = _settings(args)
    assistant = Assistant(settings=settings)
    if args.command == "ingest" and args.watch:
        return _watch(assistant, args.paths)
    if args.command == "ingest":
        report = assistant.ingest(args.paths or None, prune=args.prune, progress=not args.json, dry_run=args.dry_run)
        print(json.dumps(report.to_dict(), indent=2) if args.json else report.summary())
        return 0 if _ingested_anything(report) or not report.rejected else 1
    if args.command in ("search", "ask", "chat"):
        from assistant.filters import FilterError, Filters

        try:
            args.filters = Filters.parse(args.year, args.author, args.venue, args.file, args.in_collection) or None
        except FilterError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        prefetch = assistant.prefetch()  # the embedding model loads while the store opens (cold start)
        try:
            return _query(assistant, args)
        finally:
            prefetch.join()  # a native library still loading at exit would abort the process
    if args.command == "serve":
        from assistant.ui.app import serve

        serve(settings)
        return 0
    raise AssertionError(args.command)


def _query(assistant: Any, args: argparse.Namespace) -> int:
    if not assistant.store.doc_count():
        if args.command == "search" and args.json:
            print(json.dumps({"query": args.query, "hits": []}, indent=2, ensure_ascii=False))
        print(NO_INDEX, file=sys.stderr)
        return 1
    if args.command == "search":
        return _search(assistant, args)
    if args.command == "ask":
        return _ask(assistant, args.question, [], args.json, filters=args.filters, export=args.export)
    return _chat(assistant, args.filters)


def _watch(assistant: Any, paths: list[Path]) -> int:
    """`assistant ingest --watch PATH...`: apply each change as it settles, print what it did."""
    import time

    if not paths:
        print("error: --watch needs the files or folders to watch", file=sys.stderr)
        return 2
    watcher = assistant.watch(paths, start=False, progress=True)
    print(f"watching {', '.join(str(p) for p in watcher.paths)} (Ctrl-C stops)", file=sys.stderr)
    while True:
        event = watcher.step()
        if event is not None:
            print(f"{time.strftime('%H:%M:%S')} {event.message}", flush=True)
            for problem in event.problems[:20]:
                print(f"  {'warning' if problem.warning else 'rejected'} {problem}", flush=True)
        time.sleep(watcher.poll_s)


def _ingested_anything(report: Any) -> bool:
    """False when every input was rejected: a script must be able to tell nothing was ingested."""
    return any((report.added, report.updated, report.unchanged, report.duplicates, report.versions, report.removed))


def _search(assistant: Any, args: argparse.Namespace) -> int:
    hits = assistant.search(args.query, k=args.hits, mode=args.mode, filters=args.filters)
    if args.json:
        keys = ("rank", "doc_id", "label", "text", "score", "source")
        print(json.dumps({"query": args.query, "hits": [{k: getattr(h, k) for k in keys} for h in hits]}, indent=2, ensure_ascii=False))
        return 0
    if not hits:
        print("No abstract matches the query" + (f" within the filters ({args.filters.describe()})." if args.filters else "."))
    for h in hits:
        print(f"{h.rank:>2}. [{h.score:.3f}] {h.label}  ({h.source})")
        print(f"    {h.text[:200]}{'…' if len(h.text) > 200 else ''}")
    return 0


def _print_sources(answer: Any) -> None:
    if answer.refused and answer.closest:
        print("\nClosest abstracts (they do not state the answer):")
        for h in answer.closest:
            print(f"  - {h.label} ({h.source})")
    if answer.citations:
        print("\nSources:")
    shaped = getattr(answer, "shape", "fact") != "fact"
    for c in answer.citations:
        print(f"  [{c.n}] {c.label} ({c.source})")
        for e in [] if shaped else c.evidence:  # a list line already quotes its sentence
            print(f"      “{e.text}”")
    _print_further(answer)
    unsupported = [s for s in answer.sentences if not s.supported]
    if unsupported:
        print(f"\n{len(unsupported)} sentence(s) could not be matched to a source (left out):")
        for s in unsupported:
            print(f"  - “{s.text}”" + (f" — {s.reason}" if getattr(s, "reason", None) else ""))
    total = answer.timings.get("total")
    extra = f" ({answer.fallback_reason})" if answer.fallback_reason else ""
    print(f"\n— {answer.backend}{extra}, {total:.1f} s" if total is not None else f"\n— {answer.backend}")


def _print_further(answer: Any) -> None:
    """A list's abstracts left out by the display cap or the relevance cut-off, one per line."""
    further = [i for i in getattr(answer, "items", []) if not i.cited]
    if further:
        print(f"\nFurther abstracts ({len(further)}, not cited):")
    for i in further:
        print(f"  - {i.label} ({i.source}){'' if i.above_cutoff else ' [below the relevance cut-off]'}")


def _ask(assistant: Any, question: str, history: list[dict[str, str]], as_json: bool, filters: Any = None,
         export: str | None = None) -> int:
    from assistant.types import Answer

    if export:
        answer = assistant.ask(question, history=history, filters=filters)
        print(answer.to_markdown() if export == "md" else answer.to_bibtex(), end="")
        if export == "bib" and not answer.citations:
            print("(the answer cites no source: no BibTeX entries)", file=sys.stderr)
        return 0
    if as_json:
        answer = assistant.ask(question, history=history, filters=filters)
        d = answer.to_dict()
        out = {"question": d["question"], "answer": d["answer"],
               "citations": [{k: c[k] for k in ("n", "doc_id", "label", "text", "source", "evidence")} for c in d["citations"]],
               "refused": d["refused"], "backend": d["backend"], "usage": d["usage"], "timings": d["timings"]}
        out.update({k: d[k] for k in ("fallback_reason", "standalone_question", "sentences", "closest", "caveat", "fallback_from", "relevance", "caveat_kind")})
        out.update({k: d[k] for k in ("shape", "items") if k in d})
        print(json.dumps(out, indent=2, ensure_ascii=False))
        history += [{"role": "user", "content": question}, {"role": "assistant", "content": answer.text}]
        return 0
    streamed = False
    answer = None
    for item in assistant.stream(question, history=history, filters=filters):
        if isinstance(item, Answer):
            answer = item
        else:
            streamed = True
            print(item, end="", flush=True)
    assert answer is not None
    if streamed and answer.text.strip():
        print("\n\nVerified answer:" if _differs(answer) else "")
    if not streamed or _differs(answer):
        print(answer.text)
    if filters and answer.refused and not assistant.retriever.allowed(filters):  # else it reads as "not in the collection"
        print(f"(No abstract in the collection matches the filters: {filters.describe()}.)")
    _print_sources(answer)
    history += [{"role": "user", "content": question}, {"role": "assistant", "content": answer.text}]
    return 0


def _differs(answer: Any) -> bool:
    return any(s.repaired or not s.supported for s in answer.sentences)


def _chat(assistant: Any, filters: Any = None) -> int:
    history: list[dict[str, str]] = []
    print("Ask about the abstracts. Empty line or Ctrl-D to quit; /new starts over."
          + (f" Filtered to {filters.describe()}." if filters else ""))
    while True:
        try:
            question = input("\n> ").strip()
        except EOFError:
            return 0
        if not question:
            return 0
        if question == "/new":
            history.clear()
            print("(a new conversation: earlier questions are forgotten)")
            continue
        _ask(assistant, question, history, as_json=False, filters=filters)


if __name__ == "__main__":
    raise SystemExit(main())
