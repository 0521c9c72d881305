"""Every ``python -m evals.*`` entry point and every ``assistant`` subcommand's --help runs and exits 0.

Each tool runs as a real subprocess on a copy of the session's ingested corpus, with its smallest
flags (a few questions, tiny sizes), so a crash such as a name used before it is defined shows up
here rather than at the end of a long run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.backends import is_available
from assistant.cli import main as cli_main
from assistant.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def index_copy(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the ingested bundled corpus: the tools write caches and results into it."""
    target = tmp_path_factory.mktemp("entry") / "data"
    shutil.copytree(corpus_dir, target)
    return target


def _run_module(module: str, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env=env)


def _entry_points(data: Path, out: Path) -> dict[str, list[str]]:
    return {
        "evals.check_dataset": [],
        "evals.harness": ["dev", "--limit", "3", "--no-plots", "--quiet", "--data-dir", str(data), "--out-dir", str(out / "run")],
        "evals.fit": ["retrieval", "--sets", "dev", "--folds", "2", "--limit", "12", "--data-dir", str(data), "--out-dir", str(out / "fits")],
        "evals.bench": ["--skip", "ingest,local", "--data-dir", str(data), "--queries", "2", "--cold-runs", "1", "--sizes", "200"],
        "evals.reliability": ["--sessions", "2", "--questions", "4", "--delay", "0", "--data-dir", str(data)],
    }


@pytest.mark.parametrize("module", list(_entry_points(Path("d"), Path("o"))))
def test_evals_entry_point_exits_0(module: str, index_copy: Path, tmp_path: Path) -> None:
    res = _run_module(module, *_entry_points(index_copy, tmp_path)[module])
    assert res.returncode == 0, f"{module} exited {res.returncode}\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    assert res.stdout.strip(), f"{module} printed nothing"
    assert "Traceback" not in res.stderr


def test_fit_writes_its_cross_validated_result(index_copy: Path, tmp_path: Path) -> None:
    res = _run_module("evals.fit", *_entry_points(index_copy, tmp_path)["evals.fit"])
    assert res.returncode == 0, res.stderr[-3000:]
    fit = json.loads((tmp_path / "fits" / "retrieval.json").read_text(encoding="utf-8"))
    assert fit["folds"] == 2 and len(fit["held_out_ndcg_by_fold"]) == 2
    assert set(fit["chosen"]["weights"]) == {"chunk", "abstract", "bm25"}
    assert "all.ndcg@10" in fit["naive_baseline"] and "all.ndcg@10" in fit["fitted"]


def test_summary_tables_a_run_beside_the_baseline(index_copy: Path, tmp_path: Path) -> None:
    run = _run_module("evals.harness", *_entry_points(index_copy, tmp_path)["evals.harness"])
    assert run.returncode == 0, run.stderr[-3000:]
    res = _run_module("evals.summary", str(tmp_path / "run"))
    assert res.returncode == 0, res.stderr[-3000:]
    assert "| baseline R@5 |" in res.stdout and "| hybrid R@5 |" in res.stdout and "| dev (extractive) |" in res.stdout


@pytest.mark.slow
@pytest.mark.skipif(not is_available("local", Settings()), reason="the local LLM extra is not installed")
def test_bench_local_exits_0() -> None:
    res = _run_module("evals.bench_local", "--tokens", "2", "--chars", "400", timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "loaded in" in res.stdout and "load average now" in res.stdout


@pytest.mark.parametrize("command", ["ingest", "search", "ask", "chat", "serve", "eval", "bench"])
def test_cli_subcommand_help_exits_0(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli_main([command, "--help"])
    assert exc.value.code == 0
    assert "usage:" in capsys.readouterr().out
