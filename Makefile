# `make book`: set everything up and build the executed book into _build/html.
# `make test`: set everything up and run the whole test suite (what CI runs).
# Both are incremental: nothing is reinstalled or rebuilt when nothing changed.

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SCALE ?= book
BOOK_SOURCES := $(shell find book interp_repro -type f \( -name '*.md' -o -name '*.py' \
	-o -name '*.bib' -o -name '*.toml' \) -not -path '*/__pycache__/*') _config.yml _toc.yml

.PHONY: book test bench lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"
	touch $@

book: _build/html/.built-$(SCALE)

_build/html/.built-$(SCALE): $(STAMP) $(BOOK_SOURCES)
	rm -f _build/html/.built-*
	INTERP_REPRO_SCALE=$(SCALE) $(BIN)/jupyter-book build . --all -W -n --keep-going
	touch $@

test: $(STAMP)
	$(BIN)/ruff check interp_repro tests benchmarks book/_ext
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/superposition_training.py
	$(BIN)/python benchmarks/schur_rnn.py
	$(BIN)/python benchmarks/modular_addition_training.py
	$(BIN)/python benchmarks/topology.py

lint: $(STAMP)
	$(BIN)/ruff check interp_repro tests benchmarks book/_ext

clean:
	rm -rf _build
