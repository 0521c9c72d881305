"""The `assistant` command, run as a real subprocess over the ingested bundled corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-m", "assistant.cli"]


def run(*args: str, env: dict[str, str] | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env=full_env, input=input)


def test_help_lists_every_subcommand() -> None:
    out = run("--help").stdout
    for name in ("ingest", "search", "ask", "chat", "serve", "eval", "bench"):
        assert name in out


def test_search_json_shape(corpus_dir: Path) -> None:
    res = run("search", "blockwise attention across devices for long sequences", "--k", "3", "--json", "--data-dir", str(corpus_dir))
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["query"].startswith("blockwise")
    assert len(data["hits"]) == 3
    assert set(data["hits"][0]) == {"rank", "doc_id", "label", "text", "score", "source"}
    assert [h["rank"] for h in data["hits"]] == [1, 2, 3]
    assert data["hits"][0]["source"].startswith("data/abstracts/")
    assert len(data["hits"][0]["text"].split()) > 50  # the full abstract


def test_data_dir_from_environment(corpus_dir: Path) -> None:
    res = run("search", "in-context learning", "--k", "1", "--json", env={"ASSISTANT_DATA_DIR": str(corpus_dir)})
    assert res.returncode == 0, res.stderr
    assert len(json.loads(res.stdout)["hits"]) == 1


def test_ask_json_contract(corpus_dir: Path) -> None:
    res = run("ask", "How does FlashAttention reduce memory reads and writes?", "--json", "--backend", "extractive", "--data-dir", str(corpus_dir))
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    for key in ("question", "answer", "citations", "refused", "backend", "usage", "timings"):
        assert key in data
    assert data["backend"] == "extractive" and not data["refused"]
    assert "[1]" in data["answer"]
    c = data["citations"][0]
    assert set(c) >= {"n", "doc_id", "label", "text", "source", "evidence"}
    ev = c["evidence"][0]
    assert c["text"][ev["start"] : ev["end"]] == ev["text"]


def test_ask_streams_text_and_prints_sources(corpus_dir: Path) -> None:
    res = run("ask", "What does Ring Attention distribute across devices?", "--backend", "extractive", "--data-dir", str(corpus_dir))
    assert res.returncode == 0, res.stderr
    assert "Sources:" in res.stdout and "[1]" in res.stdout
    assert "extractive" in res.stdout


def test_chat_keeps_the_conversation(corpus_dir: Path) -> None:
    res = run("chat", "--backend", "extractive", "--data-dir", str(corpus_dir),
              input="What is FlashAttention?\nWhat speedup does it give on GPT-2?\n\n")
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("Sources:") == 2


def test_ingest_reports_rejects_with_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    good = {"id": "x1", "abstract": "We study how sparse attention patterns affect the training of very long context language models on code."}
    bad.write_text(json.dumps(good) + "\n{not json\n", encoding="utf-8")
    res = run("ingest", str(bad), "--data-dir", str(tmp_path / "d"))
    assert res.returncode == 0, res.stderr
    assert "1 added" in res.stdout
    assert f"{bad}:2" in res.stdout and "malformed JSON" in res.stdout


def test_unreachable_chroma_server_is_a_clear_error(tmp_path: Path) -> None:
    res = run("search", "x y z", "--chroma-host", "127.0.0.1", "--chroma-port", "9", "--data-dir", str(tmp_path))
    assert res.returncode == 1
    assert "error:" in res.stderr and "Chroma server" in res.stderr and "Traceback" not in res.stderr


def test_ingest_with_every_input_rejected_exits_1(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    res = run("ingest", str(missing), "--data-dir", str(tmp_path / "d"))
    assert res.returncode == 1, res.stdout + res.stderr
    assert "0 added" in res.stdout and "rejected" in res.stdout and str(missing) in res.stdout


def test_ask_and_search_without_an_index_exit_nonzero(tmp_path: Path) -> None:
    for args in (("ask", "What is FlashAttention?", "--backend", "extractive"), ("search", "attention"),
                 ("search", "attention", "--json")):
        res = run(*args, "--data-dir", str(tmp_path / "empty"))
        assert res.returncode == 1, (args, res.stdout, res.stderr)
        assert "No abstracts indexed. Run `assistant ingest` first." in res.stderr
        assert "Traceback" not in res.stderr


def test_flags_become_settings(tmp_path: Path) -> None:
    from assistant.cli import _parser, _settings

    args = _parser().parse_args(["ask", "q", "--k", "3", "--model", "m", "--base-url", "http://127.0.0.1:1/v1",
                                 "--backend", "extractive", "--data-dir", str(tmp_path), "--chroma-port", "8123"])
    s = _settings(args)
    assert (s.top_k, s.openai_model, s.openai_base_url, s.backend) == (3, "m", "http://127.0.0.1:1/v1", "extractive")
    assert (s.data_dir, s.chroma_port) == (tmp_path, 8123)
    s = _settings(_parser().parse_args(["search", "q", "--k", "2", "--data-dir", str(tmp_path)]))
    assert s.top_k == 5  # search's --k is the number of hits, not the answer's sources
    s = _settings(_parser().parse_args(["serve", "--port", "7999", "--share", "--data-dir", str(tmp_path)]))
    assert (s.port, s.share, s.insecure_no_auth) == (7999, True, False)


def test_a_count_below_one_is_a_usage_error(tmp_path: Path) -> None:
    # --k 0 / -3 used to run a search for nothing and print "No abstract matches the query."
    for args in (("search", "attention", "--k", "0"), ("search", "attention", "--k", "-3"),
                 ("ask", "What is FlashAttention?", "--k", "0"), ("ask", "What is FlashAttention?", "--k", "two")):
        res = run(*args, "--data-dir", str(tmp_path / "d"))
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert "argument --k" in res.stderr and "No abstract" not in res.stdout


def test_ask_says_when_the_filters_admit_no_abstract(corpus_dir: Path) -> None:
    # the refusal alone read as "the collection does not answer this", when the filter was the cause
    res = run("ask", "What does Ring Attention distribute across devices?", "--backend", "extractive",
              "--author", "nobody-by-this-name", "--data-dir", str(corpus_dir))
    assert res.returncode == 0, res.stderr
    assert 'No abstract in the collection matches the filters: author "nobody-by-this-name"' in res.stdout
    res = run("ask", "Who won the 1954 football world cup?", "--backend", "extractive", "--file", "abstracts",
              "--data-dir", str(corpus_dir))
    assert res.returncode == 0, res.stderr
    assert "does not answer" in res.stdout and "matches the filters" not in res.stdout  # the filter admits works


def test_chat_new_says_it_started_over(corpus_dir: Path) -> None:
    res = run("chat", "--backend", "extractive", "--data-dir", str(corpus_dir), input="What is FlashAttention?\n/new\n\n")
    assert res.returncode == 0, res.stderr
    assert "a new conversation" in res.stdout
