# The README's two commands: `make run` and `make test`. Both set everything up on a fresh
# Debian machine (a .venv, the project, Debian's tesseract-ocr and, for tests, chromium and
# fonts) and are quiet and quick on a second run.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
INSTALLED_DEV := $(VENV)/.installed-dev
# numba compiles the solver's kernels on first use (98 s on a quiet, slow 2-core machine, the
# logic engine's fish kernel included) and keeps them on disk; compiling them during set-up
# spares the user's first command that wait.
COMPILED := $(VENV)/.compiled
APT_RUN := tesseract-ocr
# hand-writing fonts: the synthetic hand-filled pages of the tests and the cell model's training
APT_HANDS := fonts-dkg-handwriting fonts-breip fonts-femkeklaver fonts-humor-sans fonts-comic-neue
APT_TEST := tesseract-ocr openssl poppler-utils chromium fonts-dejavu-core fonts-liberation fonts-freefont-ttf fonts-urw-base35 $(APT_HANDS)
APT_TRAIN := $(APT_TEST) fonts-bwht fonts-rufscript fonts-sjfonts
# `make serve HOST=0.0.0.0` lets a phone on the same network reach the page.
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test serve bench lint format setup setup-dev clean train

run: setup
	$(BIN)/sudoku-lens solve samples --out out

test: setup-dev
	$(BIN)/pytest

# Retrain the cell model (print, pen, pencil) into vision/models/cells.onnx, its hand
# model (written digits) into cells.hand.onnx beside it, two more hand models from other
# seeds for a second look at doubtful digits (cells.hand2.onnx, cells.hand3.onnx) and the
# reader's gate (a page surely print alone) into cells.gate.onnx: needs ../shared, PyTorch
# (the train extra) and the hand-writing fonts; about 45 minutes on two quiet cores. The hand
# models and the gate are trained on two synthetic copies per photo (--variants 2), the cell
# model on one.
train: setup-dev
	@sh .ci/system-packages $(APT_TRAIN)
	$(BIN)/python -m pip install -q -e '.[dev,dask,train]'
	$(BIN)/python -m api.train.cells --cell-only
	$(BIN)/python -m api.train.cells --hand-only --variants 2
	$(BIN)/python -m api.train.cells --seconds --variants 2
	$(BIN)/python -m api.train.gate

serve: setup
	$(BIN)/sudoku-lens serve --host $(HOST) --port $(PORT)

bench: setup-dev
	$(BIN)/python bench/solver.py
	$(BIN)/python bench/reading.py
	$(BIN)/python bench/pipeline.py
	$(BIN)/python bench/render.py
	$(BIN)/python bench/logic.py
	$(BIN)/python bench/scale.py
	$(BIN)/python bench/live.py
	$(BIN)/python bench/rating.py
	$(BIN)/python bench/generate.py

lint: setup-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: setup-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

setup: $(INSTALLED) $(COMPILED)
	@sh .ci/system-packages $(APT_RUN)

setup-dev: $(INSTALLED_DEV) $(COMPILED)
	@sh .ci/system-packages $(APT_TEST)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	@touch $@

$(INSTALLED_DEV): pyproject.toml $(INSTALLED)
	$(BIN)/python -m pip install -q -e '.[dev,dask]'
	@touch $@

$(COMPILED): $(INSTALLED) $(wildcard solver/*.py solver/logic/*_kernel.py)
	@echo "compiling the solver once (a minute or two)"
	$(BIN)/python -c "from solver.many import compile_all; print(f'{compile_all():.1f} s')"
	@touch $@

clean:
	rm -rf $(VENV) out build *.egg-info
