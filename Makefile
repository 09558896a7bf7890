# Two commands do all the set-up: `make run` and `make test`.
# Both create .venv when it is missing and install everything pinned in pyproject.toml.

PYTHON ?= python3
ARGS   ?=
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test venv lint typecheck pytest mptest mpycheck bench clean

run: $(STAMP)
	$(BIN)/meridian-table play kato $(ARGS)

test: $(STAMP)
	$(BIN)/ruff check host firmware tests tools
	$(BIN)/mypy
	$(BIN)/python tools/mpycheck.py
	$(BIN)/python tools/mptest.py
	$(BIN)/python -m pytest -m "not browser"
	$(BIN)/python -m pytest -m browser

venv: $(STAMP)

# tests/toygame is a game in its own package (docs/ADDING_A_GAME.md), installed for the tests.
$(STAMP): pyproject.toml tests/toygame/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e tests/toygame
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check host firmware tests tools

typecheck: $(STAMP)
	$(BIN)/mypy

# Browser tests run in their own pytest process: Playwright's sync API refuses to start
# in a process where another test left an asyncio loop behind.
pytest: $(STAMP)
	$(BIN)/python -m pytest -m "not browser"
	$(BIN)/python -m pytest -m browser

mptest: $(STAMP)
	$(BIN)/python tools/mptest.py

mpycheck: $(STAMP)
	$(BIN)/python tools/mpycheck.py

bench: $(STAMP)
	$(BIN)/meridian-table bench all --json

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache .ruff_cache
