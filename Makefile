# `make book`: set everything up and build the executed book into _build/html.
# `make test`: set everything up and run the whole test suite (what CI runs).
# Both are incremental: nothing is reinstalled or rebuilt when nothing changed.
# `make student-book`: the book without solutions, for a graded class, in _build/student/_build/html.
# `make lock`: pin the whole environment, with hashes, in requirements.lock (make installs from it).

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
SCALE ?= $(or $(INTERP_REPRO_SCALE),book)
BOOK_SOURCES := $(shell find book interp_repro -type f \( -name '*.md' -o -name '*.py' \
	-o -name '*.bib' -o -name '*.toml' \) -not -path '*/__pycache__/*') _config.yml _toc.yml

.PHONY: book test bench lint lock clean notebooks coursework student-book

LOCK := requirements.lock
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile

# With requirements.lock (`make lock`), the exact versions and hashes the book was built with; then
# the project itself, without resolving anything more. pip would compile every installed file to
# bytecode on one core; compileall does it on every core (the lock installed alone on 2 cores: 100 s
# with pip's compiling, 68 s this way). Like pip's, it skips the few files written for a newer
# Python than ours (torch's Python 3.12 test helper), so its exit status is not an error.
$(STAMP): pyproject.toml $(wildcard $(LOCK))
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(if $(wildcard $(LOCK)),$(PIP) --require-hashes -r $(LOCK) && $(PIP) --no-deps -e .,$(PIP) -e ".[dev]")
	$(BIN)/python -m compileall -qq -j 0 $(VENV)/lib || true
	touch $@

lock: $(STAMP)
	$(BIN)/pip-compile --quiet --generate-hashes --extra dev --strip-extras --no-emit-find-links \
		--no-emit-index-url --unsafe-package interp-repro --output-file $(LOCK) pyproject.toml

BENCHMARKS := superposition_training modular_addition_training schur_rnn topology parallel

book: _build/html/.built-$(SCALE)

# The Benchmarks page shows the kept results of the last `make bench` (benchmarks/results/, in
# git) and the book builds this clone recorded (_build/benchmarks/); a cold build runs no benchmark.
_build/html/.built-$(SCALE): $(STAMP) $(BOOK_SOURCES)
	rm -f _build/html/.built-*
	INTERP_REPRO_SCALE=$(SCALE) $(BIN)/python benchmarks/book_build.py . --all -W -n --keep-going
	touch $@

# Debian's Chromium, which the browser tests drive through Playwright; installed only when absent.
$(CHROMIUM):
	$(SUDO) apt-get update
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium

# `make test` starts as a new user does, from an empty results cache and record file of its own:
# the chapter checks train everything cold, and the ci book build reuses what they trained.
TEST_RUN := $(CURDIR)/_build/test-run

test: $(STAMP) $(CHROMIUM)
	$(BIN)/ruff check interp_repro tests benchmarks book/_ext
	rm -rf $(TEST_RUN)
	INTERP_REPRO_CACHE=$(TEST_RUN)/cache INTERP_REPRO_RECORD=$(TEST_RUN)/records.json \
		$(BIN)/python -m pytest --durations=30

# Reruns every benchmark in one go and keeps the results in benchmarks/results/ (commit them).
bench: $(STAMP)
	for name in $(BENCHMARKS); do $(BIN)/python benchmarks/$$name.py || exit 1; done

lint: $(STAMP)
	$(BIN)/ruff check interp_repro tests benchmarks book/_ext

# The launch buttons' notebooks, committed in notebooks/ (interp_repro/notebooks.py): rerun
# after editing a page or the pip spec in _config.yml (tests/test_student.py checks they are current).
notebooks: $(STAMP)
	$(BIN)/python -m interp_repro.notebooks

# The graded release: an nbgrader course folder (sources, student release, exchange) from the exercise
# pages, which runs wherever it is moved; prints the commands of the grading cycle that come next.
coursework: $(STAMP)
	$(BIN)/python -m interp_repro.exercises.coursework . _build/coursework

# The student edition: the book with sphinx-exercise's hide_solutions, its gated solutions and the coding
# exercises' solution regions taken out (interp_repro/exercises/student_edition.py writes its config,
# _build/student/_config.yml). It reads what `make book` trained and executed: only the exercise pages
# execute again.
student-book: _build/html/.built-$(SCALE)
	$(BIN)/python -m interp_repro.exercises.student_edition .
	INTERP_REPRO_SCALE=$(SCALE) $(BIN)/jupyter-book build . --config _build/student/_config.yml \
		--path-output _build/student --all -W -n --keep-going

clean:
	rm -rf _build
