# Two commands for a newcomer: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: run test lint bench validate pg clean

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

# The PostgreSQL tests start a throwaway server of their own (tests/pg_server.py), and stop it:
# Debian's `postgresql` package must be installed (.ci/run installs it).
test: $(STAMP_DEV)
	$(BIN)/ruff check bot tests
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

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
