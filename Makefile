# Two commands for a newcomer: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: run test test-sqlite test-postgres lint bench validate pg clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(STAMP_RUN)

run: $(STAMP_RUN)
	$(BIN)/quizbot run

# The suite runs twice: on SQLite files, then on PostgreSQL (QUIZBOT_TEST_BACKEND, see
# tests/backend.py), where the tests about SQLite itself are deselected and counted. Each
# pytest-xdist worker starts a throwaway PostgreSQL server of its own (tests/pg_server.py) and
# stops it: Debian's `postgresql` package must be installed (.ci/run installs it). One run
# after the other: each already keeps both cores busy.
test: $(STAMP_DEV)
	$(BIN)/ruff check bot tests
	$(BIN)/mypy
	QUIZBOT_TEST_BACKEND=sqlite $(BIN)/python -m pytest -q
	QUIZBOT_TEST_BACKEND=postgres $(BIN)/python -m pytest -q

# One backend only (e.g. while fixing a PostgreSQL failure).
test-sqlite: $(STAMP_DEV)
	QUIZBOT_TEST_BACKEND=sqlite $(BIN)/python -m pytest -q

test-postgres: $(STAMP_DEV)
	QUIZBOT_TEST_BACKEND=postgres $(BIN)/python -m pytest -q

lint: $(STAMP_DEV)
	$(BIN)/ruff check bot tests
	$(BIN)/ruff format --check bot tests
	$(BIN)/mypy

bench: $(STAMP_DEV)
	$(BIN)/python -m tests.bench

# A throwaway PostgreSQL to try QUIZBOT_DB=postgresql://... by hand; Ctrl-C stops and removes it.
pg: $(STAMP_DEV)
	$(BIN)/python -m tests.pg_server

validate: $(STAMP_RUN)
	$(BIN)/quizbot validate questions/

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
