# filingqa developer entry points. `make demo` and `make test` are the README's two commands.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DATA_DIR ?= $(abspath ../shared/datasets)
SAMPLE_QUESTION := What was Northwind's free cash flow in fiscal 2024?
PYTEST_ARGS ?= --durations=20  # the slowest tests, to keep the suite under CI's 20 minutes

export FILINGQA_DATA_DIR ?= $(DATA_DIR)
export CMAKE_BUILD_PARALLEL_LEVEL ?= 2

# llama.cpp (built from source by llama-cpp-python) gets this CPU's instruction sets by
# name, not by -march=native: a native build segfaults on its first decode on a virtualised
# Xeon exposing AMX tiles. A wheel pip cached from a native build is reused as it is:
# `pip cache remove llama_cpp_python` before reinstalling.
CPU_FLAGS := $(shell grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
GGML_FLAGS := $(foreach isa,AVX AVX2 FMA F16C AVX512,$(if $(filter $(shell echo $(isa) | tr A-Z a-z)%,$(CPU_FLAGS)),-DGGML_$(isa)=ON))
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF $(GGML_FLAGS)
# The encoder fine-tune's torch, CPU build (the default wheel pulls gigabytes of CUDA): the
# registry's +cpu wheel, else PyTorch's CPU index.
TORCH_CPU ?= torch==2.13.0+cpu

.PHONY: install models demo test lint typecheck format bench-executor bench-parse bench-tatqa bench-signatures clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "filingqa needs Python >= 3.11"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	@echo "installing filingqa and its dependencies (llama-cpp-python builds from source: a few minutes)"
	$(BIN)/python -m pip install --quiet "$(TORCH_CPU)" || $(BIN)/python -m pip install --quiet torch --index-url https://download.pytorch.org/whl/cpu
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $@

install: $(VENV)/.installed  ## package + dependencies into .venv

models: install  ## pull and verify the embedded LLM and embedding model (idempotent)
	$(BIN)/filingqa models pull

demo: models  ## everything a fresh machine needs, then answer the sample question
	$(BIN)/filingqa ask "$(SAMPLE_QUESTION)"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install  ## mypy over the package as Python imports it (filingqa.*), through a link tree
	$(BIN)/python tools/typecheck.py

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

test: models lint typecheck  ## lint, type check, then the whole suite (real-model tests marked slow included)
	$(BIN)/pytest $(PYTEST_ARGS)  # not `python -m pytest`: that puts ./datasets ahead of HF datasets

bench-executor: install  ## gold programs through the sandbox, scored by the judge
	$(BIN)/python benchmarks/executor_check.py

bench-parse: models  ## parse-failure rate of the local LM on a typed signature
	$(BIN)/python benchmarks/parse_failures.py

bench-tatqa: models  ## direct vs PoT on TAT-QA dev arithmetic with gold context
	$(BIN)/python benchmarks/tatqa_baseline.py

bench-signatures: models  ## parse-failure rate of every agentic signature on the local LM
	$(BIN)/python benchmarks/signature_parse.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
