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

.PHONY: bench-startup setup demo test bench bench-scale bench-peers bench-import lab lint clean peers

# Where a local torch wheel lies (this machine's CPU build); skipped where absent.
TORCH_WHEELS ?= /opt/wheels
FIND_LINKS := $(if $(wildcard $(TORCH_WHEELS)),--find-links $(TORCH_WHEELS))

# One install command, $(call install,<extras>), puts in everything an extra needs, torch pinned to the local CPU build.
# pip only bootstraps uv: uv installs the same requirements, bytecode compiled
# in parallel, in ~1 min where pip takes ~4 min; that keeps a fresh `make demo`
# within 10 minutes. Bytecode is compiled at install: where PYTHONDONTWRITEBYTECODE
# is set (as on our CI machines), every import would otherwise compile again.
# Where uv cannot be had, pip installs the same in one (slower) command.
# Without a local CPU wheel, torch==2.13.0 comes from PyPI (on Linux, its CUDA build).
# agrag_lab's own bytecode: an editable install leaves the package uncompiled, and where PYTHONDONTWRITEBYTECODE
# is set every `agrag-lab` command, MCP server and test process compiled its ~230 modules again (0.15-0.2 s of a
# 0.8 s CLI search, issue 30). Run before every target that runs it; files already compiled are skipped.
BYTECODE = $(BIN)/python -m compileall -q -j 0 agrag_lab

COMMA := ,

define install
test -x $(BIN)/python || $(PYTHON) -m venv $(VENV); \
	if $(BIN)/pip install --quiet --disable-pip-version-check 'uv>=0.4'; then \
	  $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python $(FIND_LINKS) -e '.[$(1)]' torch==2.13.0; \
	else \
	  $(BIN)/pip install --quiet --disable-pip-version-check -e '.[$(1)]' torch==2.13.0; \
	fi
endef

$(STAMP): pyproject.toml
	$(call install,dev)
	$(BYTECODE)
	touch $(STAMP)

setup: $(STAMP)

# The demo needs the library, the evaluation harness ([eval]) and the model export ([export]: its first ingest
# exports the bundled model to ONNX) only: on a fresh checkout `make demo`
# installs those, not the notebook, server and test tools of [dev] (88 of 250 packages: JupyterLab,
# Playwright, mypy, ...), which `make setup` / `make test` add later in one more uv call. A venv that
# has [dev] already (`make setup` ran) is used as it is.
DEMO_STAMP := $(VENV)/.installed-demo
$(DEMO_STAMP): pyproject.toml
	if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ]; then :; else $(call install,eval$(COMMA)export); fi
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BYTECODE)
	$(BIN)/agrag-lab demo

# Two workers (pytest-xdist); each test module (and the browser tests, which share JupyterLab;
# the import tests) runs whole on one worker, the browser and the notebook groups first, in the
# order tests/conftest.py gives (--no-loadscope-reorder: xdist would sort groups by test count).
# `make test PYTEST_PARALLEL=` runs the suite in one process.
PYTEST_PARALLEL ?= -n 2 --dist loadgroup --no-loadscope-reorder

test: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest -q $(PYTEST_PARALLEL) --durations=20

bench: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m benchmarks.run

# Issue 30's start-up and re-rank targets alone, in one run on the workshop index (CLI search against a bare
# onnxruntime query, Graph.open + engine(), MCP stdio tools/list and first answer, re-rank p50 and result changes);
# the sections are replaced in BENCHMARKS.md, the rest is kept. Run it on an idle machine.
bench-startup: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m benchmarks.run --only cli,mcp,rerank,notebook

# Not part of `make test` or `make bench`: hours at 100k passages. Builds indexes of 2k, 10k,
# 30k and 100k passages (30k and up with the vectors in a `chroma run` server it starts and
# stops), writes benchmarks/results/scale.{json,md,png} and its section of BENCHMARKS.md.
# Then the walk alone on graphs built without embedding (benchmarks/scale_walk.py).
SCALE_SIZES ?= 2000,10000,30000,100000
# The graph in FalkorDB against in-process at the same sizes, and a graph-only series (no embedding) to 1M passages.
SCALE_SERVER_SIZES ?= $(SCALE_SIZES)
SCALE_GRAPH_SIZES ?= 10000,30000,100000,300000,1000000
# The series to 100k embeds with static embeddings (the transformer would take hours); the server series keeps
# the vectors in Chroma (--no-native: pushing them to FalkorDB's HNSW indexes too takes longer than the rest).
SCALE_EMBEDDER ?= static
bench-scale: $(STAMP)
	$(BYTECODE)
	nice -n 10 $(BIN)/python -m benchmarks.scale --sizes $(SCALE_SIZES) --root .agrag/scale --embedder $(SCALE_EMBEDDER)
	nice -n 10 $(BIN)/python -m benchmarks.scale_walk --sizes $(SCALE_SIZES) --cache .agrag/scale-walk
	nice -n 10 $(BIN)/python -m benchmarks.scale_server --sizes $(SCALE_SERVER_SIZES) --root .agrag/scale \
	  --embedder $(SCALE_EMBEDDER) --no-native --graph-only $(SCALE_GRAPH_SIZES)

# Not part of `make test`: the peers' own code (graphrag 3.3.0, lightrag-hku 1.5.7, hipporag 2.0.0a3) in a
# venv of their own, their LLM calls answered by a scripted OpenAI-compatible server on 127.0.0.1 whose
# embeddings are our bundled model's; writes tests/fixtures/peers/ (checked in; CI reads only those).
# hipporag's only release pins torch 2.5.1, vllm and the CUDA wheels: it installs with --no-deps, with
# what its modules import (peers/requirements-hipporag.txt, CPU torch; gritlm also --no-deps).
# HIPPORAG_SRC=path/to/HippoRAG/src runs HippoRAG's source instead (the fixtures' commit: tests/fixtures/peers/README.md).
# LINEARRAG_SRC=path/to/LinearRAG (a snapshot of its source) for the linearrag step (make peers PEERS_ONLY=linearrag).
PEERS_VENV ?= .peers/venv
PEERS_STAMP := $(PEERS_VENV)/.installed-graphrag-3.3.0-lightrag-1.5.7-hipporag-2.0.0a3
$(PEERS_STAMP): peers/requirements-hipporag.txt
	test -x $(PEERS_VENV)/bin/python || $(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/pip install --quiet --disable-pip-version-check 'uv>=0.4'
	$(PEERS_VENV)/bin/uv pip install --quiet --python $(PEERS_VENV)/bin/python $(FIND_LINKS) \
	  graphrag==3.3.0 lightrag-hku==1.5.7 -r peers/requirements-hipporag.txt
	$(PEERS_VENV)/bin/uv pip install --quiet --python $(PEERS_VENV)/bin/python --no-deps hipporag==2.0.0a3 gritlm==1.0.2
	touch $(PEERS_STAMP)

# LinearRAG (DEEP-PolyU/LinearRAG) has no release: its source is a snapshot (LINEARRAG_SRC, the folder holding
# src/; LINEARRAG_COMMIT names it when the snapshot is not a git checkout), run in a venv of its own with what its
# modules import (peers/requirements-linearrag.txt: spaCy 3.8 and en_core_web_sm 3.8.0, python-igraph, CPU torch).
LINEARRAG_VENV ?= .peers/linearrag-venv
LINEARRAG_STAMP := $(LINEARRAG_VENV)/.installed
$(LINEARRAG_STAMP): peers/requirements-linearrag.txt
	test -x $(LINEARRAG_VENV)/bin/python || $(PYTHON) -m venv $(LINEARRAG_VENV)
	$(LINEARRAG_VENV)/bin/pip install --quiet --disable-pip-version-check 'uv>=0.4'
	$(LINEARRAG_VENV)/bin/uv pip install --quiet --python $(LINEARRAG_VENV)/bin/python $(FIND_LINKS) \
	  -r peers/requirements-linearrag.txt
	touch $(LINEARRAG_STAMP)

# graphrag 1.2.0 (the 1.x layout: create_final_*.parquet, LanceDB tables default-<embedding>) in a venv of its own:
# its pins (fnllm, lancedb 0.17, pandas 2.2) are not graphrag 3.3.0's. The graphrag1 step (make peers PEERS_ONLY=graphrag1).
GRAPHRAG1_VENV ?= .peers/graphrag1-venv
GRAPHRAG1_STAMP := $(GRAPHRAG1_VENV)/.installed-graphrag-1.2.0
$(GRAPHRAG1_STAMP):
	test -x $(GRAPHRAG1_VENV)/bin/python || $(PYTHON) -m venv $(GRAPHRAG1_VENV)
	$(GRAPHRAG1_VENV)/bin/pip install --quiet --disable-pip-version-check 'uv>=0.4'
	$(GRAPHRAG1_VENV)/bin/uv pip install --quiet --python $(GRAPHRAG1_VENV)/bin/python graphrag==1.2.0
	touch $(GRAPHRAG1_STAMP)

peers: $(STAMP) $(PEERS_STAMP) $(LINEARRAG_STAMP) $(GRAPHRAG1_STAMP)
	$(BIN)/python -m peers.run --peers-python $(PEERS_VENV)/bin/python --linearrag-python $(LINEARRAG_VENV)/bin/python \
	  --graphrag1-python $(GRAPHRAG1_VENV)/bin/python \
	  $(if $(PEERS_ONLY),--only $(PEERS_ONLY))

# Not part of `make test`: each peer recipe against the peer's own query code (graphrag 3.3.0, lightrag-hku 1.5.7)
# in the peers venv, one run, interleaved, the same index and vectors on both sides (benchmarks/peer_speed.py);
# puts its section in place in BENCHMARKS.md. LINEARRAG_SRC=path/to/LinearRAG adds LINEARRAG against LinearRAG's own
# retrieve, in its venv (LINEARRAG_VENV).
BENCH_PEERS_ROUNDS ?= 5
bench-peers: $(STAMP) $(PEERS_STAMP)
	$(BYTECODE)
	$(BIN)/python -m benchmarks.peer_speed --peers-python $(PEERS_VENV)/bin/python --rounds $(BENCH_PEERS_ROUNDS) \
	  $(if $(LINEARRAG_SRC),--linearrag-python $(LINEARRAG_VENV)/bin/python --linearrag-src $(LINEARRAG_SRC))

# Not part of `make test`: an import against reading its source and writing the same rows into the same stores,
# and against a raw encode of the texts it embeds, one run, interleaved (benchmarks/import_speed.py): LightRAG's
# directory and graphrag 3.3.0's outputs with their stored vectors (reused), and the Christmas Carol GraphRAG output
# (re-embedded). Other sources in their place: BENCH_IMPORT_SOURCES='--source graphrag:reuse=PATH ...'. Puts its
# section in place in BENCHMARKS.md.
BENCH_IMPORT_ROUNDS ?= 3
bench-import: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m benchmarks.import_speed --rounds $(BENCH_IMPORT_ROUNDS) $(BENCH_IMPORT_SOURCES)

lab: $(STAMP)
	$(BIN)/agrag-lab lab

lint: $(STAMP)
	$(BIN)/ruff check agrag_lab tests
	$(BIN)/mypy --strict agrag_lab

clean:
	rm -rf .agrag reports test-artifacts
