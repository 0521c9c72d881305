"""A live library: keep the index in step with export files, folders and ``zotero.sqlite``.

``LibraryWatcher.step()`` looks at the watched files' size, mtime and inode (a ``zotero.sqlite``
with its ``-wal`` / ``-journal``); a file that changed is taken once it has stayed the same for
``settle_s`` (a writer still writing keeps changing it). It is then parsed in full, and applied
only if it parsed: a file that yields nothing (empty, unreadable, a Zotero database caught
mid-write) or newly rejected entries (a save cut off mid-entry) is reported and retried at the
next step, and the index keeps what it had; entries still rejected once the file has stayed the
same for ``hold_s`` are the user's own malformed entries, and the good ones are applied (the
stored abstract at a rejected line stays, as in any ingest). What is applied is exactly what was
parsed (``ingest_paths(preloaded=...)``), never a second read that could catch another write.

A watched file that is gone for ``gone_s`` has its entries removed; entries removed from a file
or from the Zotero library leave the index (a normal ingest of the file does that). Content ids
keep it free of duplicates.

Polling, not OS file events: the watched set is a handful of export files (or a folder), one
``stat`` each per step, and polling sees every way a file is replaced -- Better BibTeX and many
editors save by writing a temporary file and renaming it over the old one, which ends an inotify
watch on the old file (watchfiles / watchdog watch the folder to survive that, and then report
every other file in it too). ``run()`` steps every ``poll_s`` in a thread until stopped.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest.loaders import iter_files, load_file
from ingest.records import Problem, Record

POLL_S = 0.5  # how often the files are looked at (a stat each): changes show within ~1 s
SETTLE_S = 0.3  # a change is taken once the file stayed the same this long
HOLD_S = 5.0  # newly rejected entries are held back this long (a half-written save) before the good ones apply
GONE_S = 2.0  # a watched file gone this long (not a save by rename) has its entries removed

Stat = tuple[int, int, int]  # size, mtime_ns, inode
Loaded = tuple[list[Record], list[Problem]]


@dataclass
class LibraryEvent:
    """What one step did: applied changes (counts), or held a file back (problems)."""

    at: float
    added: int = 0
    updated: int = 0
    removed: int = 0
    files: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    held: bool = False  # nothing applied: the files are retried
    error: str = ""

    @property
    def message(self) -> str:
        if self.error:
            return f"library update failed: {self.error}"
        if self.held:
            first = self.problems[0] if self.problems else None
            return f"library file not applied yet (being written or malformed; retrying): {first}"
        parts = [f"{self.added} added", f"{self.removed} removed"] + ([f"{self.updated} updated"] if self.updated else [])
        return "library updated: " + ", ".join(parts)


def _stat(path: Path) -> Stat | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


class LibraryWatcher:
    """Watch ``paths``; ``apply(files, preloaded, prune)`` ingests them and returns the report."""

    def __init__(self, paths: list[str | Path], apply: Callable[..., Any], *, poll_s: float = POLL_S,
                 settle_s: float = SETTLE_S, hold_s: float = HOLD_S, gone_s: float = GONE_S,
                 on_event: Callable[[LibraryEvent], None] | None = None) -> None:
        self.paths = [Path(p).expanduser().resolve() for p in paths]
        self.apply = apply
        self.poll_s, self.settle_s, self.hold_s, self.gone_s = poll_s, settle_s, hold_s, gone_s
        self.on_event = on_event
        self.events: deque[LibraryEvent] = deque(maxlen=50)
        self._applied: dict[Path, tuple[Stat | None, ...]] = {}  # what the index holds, per file
        self._seen: dict[Path, tuple[tuple[Stat | None, ...], float]] = {}  # a pending state and since when
        self._rejected: dict[Path, int] = {}  # rejections in the applied version of each file
        self._reported: dict[Path, tuple[Stat | None, ...]] = {}  # the state whose problems were last reported
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- the files ----------------------------------------------------------------------------
    def files(self) -> list[Path]:
        return [Path(p).resolve() for p in iter_files(self.paths)]

    def _state(self, path: Path) -> tuple[Stat | None, ...]:
        """The stat of a file and, for a database, of its -wal and -journal files."""
        if path.suffix.lower() == ".sqlite":
            return tuple(_stat(path.with_name(path.name + s)) for s in ("", "-wal", "-journal"))
        return (_stat(path),)

    def _snapshot(self) -> dict[Path, tuple[Stat | None, ...]]:
        current = {f: self._state(f) for f in self.files()}
        for f in self._applied:  # files once seen and now gone (a folder's file deleted)
            current.setdefault(f, self._state(f))
        return current

    # --- one step -----------------------------------------------------------------------------
    def step(self, now: float | None = None) -> LibraryEvent | None:
        """Apply what changed and has settled; None when there was nothing to do yet."""
        now = time.monotonic() if now is None else now
        ready: list[Path] = []
        gone: list[Path] = []
        for f, state in self._snapshot().items():
            if self._applied.get(f, ()) == state:
                self._seen.pop(f, None)
                continue
            seen = self._seen.get(f)
            if seen is None or seen[0] != state:
                self._seen[f] = (state, now)  # changed since the last look: it must stay so for a step
                continue
            if state[0] is None:
                if now - seen[1] >= self.gone_s and f in self._applied:
                    gone.append(f)
                continue
            if now - seen[1] >= self.settle_s:
                ready.append(f)
        if not ready and not gone:
            return None
        return self._take(ready, gone, now)

    def _take(self, ready: list[Path], gone: list[Path], now: float) -> LibraryEvent | None:
        loaded: dict[Path, Loaded] = {}
        held: list[Problem] = []
        for f in ready:
            state, since = self._seen[f]
            records, problems = load_file(f)
            rejected = [p for p in problems if not p.warning]
            whole_file = not records and any(p.line == 0 for p in rejected)
            # A database read is one consistent snapshot (or fails as a whole): its items without an
            # abstract are the library's, never a save under way.
            new_rejections = len(rejected) > self._rejected.get(f, 0) and f.suffix.lower() != ".sqlite"
            if whole_file or (new_rejections and now - since < self.hold_s):
                if self._reported.get(f) != state:  # say it once per state of the file, not every step
                    held += rejected
                    self._reported[f] = state
                if whole_file and now - since >= self.hold_s:
                    self._applied[f] = state  # stays unreadable: the index keeps its entries; retried when it changes
                    self._seen.pop(f, None)
                continue
            loaded[f] = (records, problems)
        if not loaded and not gone:
            if not held:
                return None
            event = LibraryEvent(at=time.time(), held=True, problems=held)
            self._emit(event)
            return event
        event = LibraryEvent(at=time.time(), problems=held)
        try:
            report = self.apply(list(loaded), preloaded=loaded, prune=bool(gone))  # prune: drops the gone files' entries
        except Exception as exc:  # the index could not be written: the files stay pending and are retried
            event.error = f"{type(exc).__name__}: {exc}"
            self._emit(event)
            return event
        event.added, event.updated, event.removed = report.added, report.updated, report.removed
        event.files = [str(f) for f in [*loaded, *gone]]
        event.problems = held + [p for _, probs in loaded.values() for p in probs]
        for f in loaded:
            self._applied[f] = self._seen.pop(f)[0]
            self._rejected[f] = sum(1 for p in loaded[f][1] if not p.warning)
        for f in gone:
            for d in (self._applied, self._seen, self._rejected, self._reported):
                d.pop(f, None)
        self._emit(event)
        return event

    def _emit(self, event: LibraryEvent) -> None:
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    # --- in a thread --------------------------------------------------------------------------
    def run(self) -> None:
        while not self._stop.is_set():
            try:
                self.step()
            except Exception as exc:  # never let the watcher die silently: report and go on
                self._emit(LibraryEvent(at=time.time(), error=f"{type(exc).__name__}: {exc}"))
            self._stop.wait(self.poll_s)

    def start(self) -> LibraryWatcher:
        self._thread = threading.Thread(target=self.run, name="library-watcher", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    @property
    def last(self) -> LibraryEvent | None:
        return self.events[-1] if self.events else None
