"""BibTeX / BibLaTeX files -> Papers, with bibtexparser v2.

bibtexparser splits the file fault-tolerantly (a broken entry becomes a failed block with its
line; the entries around it still parse), resolves ``@string`` macros, removes the enclosing
braces or quotes and, through its ``LatexDecodingMiddleware`` (pylatexenc), turns LaTeX accents,
commands and inner braces into text (``M{\\"u}ller`` -> Müller, ``{BERT}`` -> BERT,
``\\textit{x}`` -> x). ``SeparateCoAuthors`` splits ``author`` at `` and ``.

Kept per entry (ingest/metadata.py has the contract): title, authors, year, venue (journal /
booktitle, else the arXiv primary class), doi, arxiv_id (``eprint`` with ``archiveprefix``
arXiv, or an arXiv URL / journal line), url, keywords, entry_type, ``citekey`` and the raw entry
(``bibtex``; where the entry used ``@string`` macros, the entry with the macros' values written
in, so it stands alone).
"""

from __future__ import annotations

import logging
import re
from typing import Any

import bibtexparser
from bibtexparser.library import Library
from bibtexparser.middlewares import (
    LatexDecodingMiddleware,
    NormalizeFieldKeys,
    RemoveEnclosingMiddleware,
    ResolveStringReferencesMiddleware,
    SeparateCoAuthors,
)
from bibtexparser.middlewares.middleware import BlockMiddleware
from bibtexparser.model import (
    Block,
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    MiddlewareErrorBlock,
    ParsingFailedBlock,
)

from ingest import metadata as md
from ingest.metadata import Paper
from ingest.records import Problem

# bibtexparser logs each broken block at WARNING; the loader reports them itself, with the file.
logging.getLogger("bibtexparser").setLevel(logging.ERROR)

_ENTRY_START = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]", re.M)
_RESOLVED_RAW = "abstracts_resolved_raw"
_UNDEFINED = "abstracts_undefined_macros"
_SKIP_TYPES = {"string", "preamble", "comment"}
VENUE_FIELDS = ("journal", "journaltitle", "booktitle", "series", "publisher", "howpublished", "institution", "school")


def looks_like_bibtex(text: str) -> bool:
    """Content sniffing: an ``@type{`` at the start of a line within the first 4 kB, before any
    line that reads as prose (so a .txt of abstracts that mentions an e-mail address is not one)."""
    head = text[:4096]
    m = _ENTRY_START.search(head)
    if m is None:
        return False
    before = [ln for ln in head[: m.start()].splitlines() if ln.strip()]
    return all(ln.lstrip().startswith(("%", "#")) or len(ln.split()) < 8 for ln in before)


class _KeepResolvedRaw(BlockMiddleware):
    """Right after macro resolution (values still enclosed): an entry that used ``@string``
    macros gets a stand-alone copy of its raw text with their values written in."""

    def __init__(self) -> None:
        super().__init__(allow_inplace_modification=True, allow_parallel_execution=True)

    @classmethod
    def metadata_key(cls) -> str:
        return "abstracts_keep_resolved_raw"

    def transform_entry(self, entry: Entry, library: Library) -> Block:
        if entry.parser_metadata.get(ResolveStringReferencesMiddleware.metadata_key()):
            body = ",\n".join(f"  {f.key} = {f.value}" for f in entry.fields)
            entry.parser_metadata[_RESOLVED_RAW] = f"@{entry.entry_type}{{{entry.key},\n{body}\n}}"
        return entry


# BibTeX's standard styles (plain.bst and the rest) predefine the month macros jan ... dec.
MONTHS = {m[:3].lower(): m for m in ("January", "February", "March", "April", "May", "June", "July", "August",
                                     "September", "October", "November", "December")}
MACRO_DEPTH = 8  # sanity bound: @string definitions referring to others, this deep at most (a cycle stops)


def _hash_parts(value: str) -> list[str] | None:
    """``value`` cut at each ``#`` outside braces and quotes (None when there is none)."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(value):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == '"' and depth == 0 and (i == 0 or value[i - 1] != "\\"):
            quoted = not quoted
        elif ch == "#" and depth == 0 and not quoted:
            parts.append(value[start:i].strip())
            start = i + 1
    return [*parts, value[start:].strip()] if parts else None


def _macro_text(value: str, strings: dict[str, str], undefined: list[str], depth: int = 0) -> str:
    """What a value stands for, unenclosed: a quoted or braced string, a number, a macro (an
    ``@string`` or a month) or a ``#`` concatenation of these. An undefined macro stays its name
    (BibTeX would print nothing; a name such as IEEE_J_PAMI, defined in another file, still says
    which venue) and is added to ``undefined``."""
    value = value.strip()
    parts = _hash_parts(value)
    if parts is not None:
        return "".join(_macro_text(p, strings, undefined, depth) for p in parts)
    if len(value) >= 2 and (value[0], value[-1]) in (("{", "}"), ('"', '"')):
        return value[1:-1]
    if value.isdigit():
        return value
    if value.lower() in strings and depth < MACRO_DEPTH:
        return _macro_text(strings[value.lower()], strings, undefined, depth + 1)
    if value.lower() in MONTHS:
        return MONTHS[value.lower()]
    undefined.append(value)
    return value


def _bare(value: str) -> bool:
    """A value bibtexparser left as written: a ``#`` expression or a name no ``@string`` defines."""
    return _hash_parts(value) is not None or not (value.isdigit() or value[:1] in ('{', '"'))


class _ResolveStrings(ResolveStringReferencesMiddleware):
    """bibtexparser's ``@string`` resolution, plus what it leaves raw (python-bibtexparser issue
    #396, open in 2.1.0): a ``#`` concatenation (``booktitle = icml # " 2022"``, ``month = 10 #
    "~" # jan``), a macro whose definition is itself one, and the month macros; a macro no
    ``@string`` of the file defines is kept as its name, with a warning. The value is written in
    braces, so the enclosing is removed as for any other."""

    def transform(self, library: Library) -> Library:
        library = super().transform(library)
        strings = {key.lower(): str(block.value) for key, block in library.strings_dict.items()}
        for entry in library.entries:
            done, undefined = entry.parser_metadata.get(self.metadata_key()) or [], []
            for field in entry.fields:
                if isinstance(field.value, str) and field.value.strip() and _bare(field.value.strip()):
                    text = _macro_text(field.value, strings, undefined)
                    if text != field.value.strip():
                        field.value = "{" + text + "}"
                        done.append(field.key)
            if done:
                entry.parser_metadata[self.metadata_key()] = done
            if undefined:
                entry.parser_metadata[_UNDEFINED] = undefined
        return library


_MARKUP = re.compile(r"[\\{}~$]|--|``|''")  # what pylatexenc changes (dashes and quotes are ligatures)
_BARE_PERCENT = re.compile(r"(?<!\\)%")


def _words_at_depth0(value: str) -> list[str] | None:
    """``value`` cut at the whitespace outside braces (the whitespace kept); None if unbalanced."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(value):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return None
        elif ch.isspace() and depth == 0 and i > start:
            parts.append(value[start:i])
            start = i
    parts.append(value[start:])
    return parts if depth == 0 else None


class LatexDecoding(LatexDecodingMiddleware):
    """bibtexparser's LaTeX decoding (pylatexenc), applied only where there is markup.

    pylatexenc reads a whole value character by character: measured 13 ms per field on a loaded
    machine, 25 entries/s on 1,500-character abstracts (evals/experiments/bench_formats.py), most of a
    library's ingest. Values without \\ { } ~ $ are returned as they are; a long value (an
    abstract) is decoded word by word (words cut at the whitespace outside braces, so
    ``\\emph{two words}`` stays whole), and only its words with markup go through pylatexenc.
    Math ($...$) or environments send the whole value through it as before. A bare % is a
    percent sign in a field value ("2% better"), not the start of a LaTeX comment that would
    drop the rest of the line: it is escaped first."""

    def _transform_python_value_string(self, python_string: str) -> tuple[str, str]:
        if not _MARKUP.search(python_string):
            return python_string, ""
        python_string = _BARE_PERCENT.sub(r"\\%", python_string)
        parts = None if ("$" in python_string or "\\begin" in python_string or len(python_string) < 200) \
            else _words_at_depth0(python_string)
        if parts is None:
            return super()._transform_python_value_string(python_string)
        out, errors = [], []
        for part in parts:
            if _MARKUP.search(part):
                lead = part[: len(part) - len(part.lstrip())]
                text, err = super()._transform_python_value_string(part.lstrip())
                out.append(lead + text)
                errors += [err] if err else []
            else:
                out.append(part)
        return "".join(out), "; ".join(errors)


def _stack() -> list[Any]:
    return [
        NormalizeFieldKeys(),
        _ResolveStrings(),
        _KeepResolvedRaw(),
        RemoveEnclosingMiddleware(),
        LatexDecoding(),
        SeparateCoAuthors(),
    ]


def read_bibtex(text: str, name: str) -> tuple[list[Paper], list[Problem]]:
    """Every entry as a Paper (text None when it has no abstract) and a Problem per broken block."""
    library = bibtexparser.parse_string(text, parse_stack=_stack())
    papers: list[Paper] = []
    problems: list[Problem] = []
    for block in library.blocks:
        line = (block.start_line or 0) + 1
        if isinstance(block, Entry):
            if block.entry_type.lower() not in _SKIP_TYPES:
                papers.append(_paper(block, line))
            if undefined := block.parser_metadata.get(_UNDEFINED):
                problems.append(Problem(name, line, f"BibTeX entry {block.key!r}: no @string defines "
                                        f"{', '.join(repr(u) for u in dict.fromkeys(undefined))} (kept as written)",
                                        warning=True))
        elif isinstance(block, DuplicateBlockKeyBlock):
            first = getattr(block, "_previous_block", None)
            seen = f"line {first.start_line + 1}" if getattr(first, "start_line", None) is not None else "earlier"
            problems.append(Problem(name, line, f"duplicate key {block.key!r} (also used at {seen}): "
                                                "this entry is read too", warning=True))
            papers += _reparse(block.raw or "", library, line)
        elif isinstance(block, DuplicateFieldKeyBlock | MiddlewareErrorBlock):
            entry = block.ignore_error_block
            what = (f"field(s) {', '.join(sorted(block.duplicate_keys))} given twice: the first is used"
                    if isinstance(block, DuplicateFieldKeyBlock) else f"LaTeX not fully decoded ({block.error})")
            problems.append(Problem(name, line, f"BibTeX entry {getattr(entry, 'key', '?')!r}: {what}", warning=True))
            if isinstance(entry, Entry):
                papers.append(_paper(entry, line))
        elif isinstance(block, ParsingFailedBlock):  # a syntax error
            problems.append(Problem(name, line, f"malformed BibTeX entry{_key_of(block.raw)}: {_reason(block)}"))
    return papers, problems


def _key_of(raw: str | None) -> str:
    m = re.match(r"\s*@\s*\w+\s*[{(]\s*([^,\s]+)\s*,", raw or "")
    return f" {m.group(1)!r}" if m else ""


def _reparse(raw: str, library: Library, line: int) -> list[Paper]:
    """A duplicate-key entry, which bibtexparser leaves unparsed: parsed alone (with the file's
    ``@string`` macros), at its own line."""
    strings = "\n".join(s.raw or "" for s in library.strings)
    alone = bibtexparser.parse_string(f"{strings}\n{raw}", parse_stack=_stack())
    return [_paper(e, line) for e in alone.entries]


def _reason(block: Any) -> str:
    msg = str(getattr(block.error, "abort_reason", "") or block.error or "").strip()
    raw = (block.raw or "").strip()
    if not msg:
        msg = "unbalanced braces or quotes" if raw.count("{") != raw.count("}") else "syntax error"
    return msg.splitlines()[0][:200]


def _value(entry: Entry, key: str) -> Any:
    f = entry.fields_dict.get(key)
    return f.value if f is not None else None


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(" ".join(str(v).split()) for v in value)
    return " ".join(str(value).split()) if value is not None else ""


def _arxiv(entry: Entry) -> str:
    prefix = _text(_value(entry, "archiveprefix") or _value(entry, "eprinttype")).lower()
    if prefix == "arxiv" and (eprint := md.arxiv_id(_value(entry, "eprint"))):
        return eprint
    for key in ("url", "journal", "note", "howpublished", "doi"):
        value = _text(_value(entry, key))
        if "arxiv" in value.lower() and (found := md.arxiv_id(value)):
            return found
    return ""


def _paper(entry: Entry, line: int) -> Paper:
    abstract = _text(_value(entry, "abstract")) or None
    venue = next((v for k in VENUE_FIELDS if (v := _text(_value(entry, k)))), "")
    arxiv = _arxiv(entry)
    if not venue or venue.lower().startswith("arxiv"):
        venue = _text(_value(entry, "primaryclass")) or venue
    keywords = [k.strip() for k in re.split(r"[;,]", _text(_value(entry, "keywords"))) if k.strip()]
    meta: dict[str, Any] = {
        "authors": _value(entry, "author") if isinstance(_value(entry, "author"), list) else _text(_value(entry, "author")),
        "year": _text(_value(entry, "year")) or _text(_value(entry, "date")),
        "venue": venue, "doi": _text(_value(entry, "doi")), "arxiv_id": arxiv, "url": _text(_value(entry, "url")),
        "keywords": keywords, "entry_type": entry.entry_type.lower(), "citekey": entry.key,
        "bibtex": entry.parser_metadata.get(_RESOLVED_RAW) or (entry.raw or "").strip(),
    }
    meta = md.clean_metadata(meta)
    title = _text(_value(entry, "title"))
    return Paper(line=line, key=entry.key, text=abstract, title=title, metadata=meta,
                 external_id=str(meta.get("doi") or meta.get("arxiv_id") or ""))
