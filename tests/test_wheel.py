"""Installed like a Python tool: the wheel carries the bundled corpus and the prompts (package
data found through importlib.resources), so `assistant ingest` and `assistant ask` work from any
directory after `pip install` of the wheel into a fresh venv.

The fresh venv sees this venv's dependencies through a .pth line (no download); the project
itself comes only from the wheel, and the commands run from a directory outside the checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 1500) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd}: {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def test_wheel_installs_and_answers_from_another_directory(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "PYTHONPATH"))}
    env.update(HF_HUB_OFFLINE="1", ANONYMIZED_TELEMETRY="False", GRADIO_ANALYTICS_ENABLED="False")
    wheels = tmp_path / "wheels"
    # --no-build-isolation: this venv's setuptools builds it (nothing fetched).
    _run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q",
          "-w", str(wheels)], tmp_path, env)
    (wheel,) = wheels.glob("abstracts_assistant-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "assistant/_prompts/answer_system.txt" in names
    assert sum(n.startswith("assistant/_corpus/") and n.endswith(".txt") for n in names) == \
        len(list((ROOT / "data" / "abstracts").glob("*.txt")))

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, env)
    py = venv / "bin" / "python"
    site = Path(subprocess.check_output([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                        text=True).strip())
    # The dependencies already installed here, after the venv's own site-packages (the editable
    # install's finder is a .pth *inside* that folder, which a path added this way never runs).
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)], tmp_path, env)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run([str(py), "-c", "import assistant, assistant.settings as s; print(assistant.__file__); "
                  "print(s.DEFAULT_CORPUS); print(s.PROMPTS_DIR)"], elsewhere, env).stdout.split()
    assert all(str(site) in line for line in where), where  # the wheel's copies, not the checkout

    exe = venv / "bin" / "assistant"
    data = ["--data-dir", str(tmp_path / "index")]
    ingest = _run([str(exe), "ingest", *data], elsewhere, env)
    assert "added" in ingest.stdout + ingest.stderr
    ask = _run([str(exe), "ask", "--backend", "extractive", *data, "What does Ring Attention distribute across devices?"],
               elsewhere, env)
    assert "Ring Attention" in ask.stdout
