# agrag_lab: two commands do everything on a fresh machine.
#   make demo   set-up, then the main job on the embedded default index
#   make test   set-up, then the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False
export TOKENIZERS_PARALLELISM := false

.PHONY: setup demo test bench lab lint clean

# One pip command installs everything, torch pinned to the local CPU build.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]' torch==2.13.0
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/agrag-lab demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

lab: $(STAMP)
	$(BIN)/agrag-lab lab

lint: $(STAMP)
	$(BIN)/ruff check agrag_lab tests
	$(BIN)/mypy --strict agrag_lab

clean:
	rm -rf .agrag reports test-artifacts
