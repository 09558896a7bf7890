# Two commands do all the set-up: `make run` and `make test`.
# Both create .venv when it is missing and install everything pinned in pyproject.toml.

PYTHON ?= python3
ARGS   ?=
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# axe-core from the npm registry, for the page's accessibility tests (tests/web).
AXE    := node_modules/axe-core/axe.min.js

.PHONY: run test venv lint typecheck stubcheck pytest portable wheeltest mptest mpycheck bench clean

run: $(STAMP)
	$(BIN)/meridian-table play kato $(ARGS)

test: $(STAMP) $(AXE)
	$(BIN)/ruff check host firmware tests tools
	$(BIN)/mypy
	$(BIN)/python tools/stubcheck.py
	$(BIN)/python tools/mpycheck.py
	$(BIN)/python tools/mptest.py
	$(BIN)/python -m pytest -m "not browser and not wheel"
	$(BIN)/python -m pytest -m browser
	$(MAKE) --no-print-directory portable
	$(BIN)/python -m pytest -m wheel tests/wheel

venv: $(STAMP)

$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(AXE)

# tests/toygame is a game in its own package (docs/ADDING_A_GAME.md), installed for the tests.
$(STAMP): pyproject.toml setup.py host/meridian_table/games/kato/_kernel.c tests/toygame/pyproject.toml
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
pytest: $(STAMP) $(AXE)
	$(BIN)/python -m pytest -m "not browser and not wheel"
	$(BIN)/python -m pytest -m browser

# As on Windows, where there is no pty: the virtual-board, table, web and CLI tests again
# with the virtual board behind a loopback socket (socket://), plus the portability check
# (tests/test_portability.py; docs/LINK.md).
# Each game's board tests live in its own tests/games/<id>/ (adapter, virtual board, headless).
PORTABLE_TESTS := tests/test_portability.py tests/sim tests/table tests/web tests/cli tests/service \
	$(wildcard tests/games/*/test_*_adapter.py tests/games/*/test_*_virtual.py \
	           tests/games/*/test_*_headless*.py tests/games/*/test_*_crash.py tests/games/*/test_*_warning.py)
portable: $(STAMP)
	MERIDIAN_TABLE_SIM_TRANSPORT=socket $(BIN)/python -m pytest -m "not browser and not wheel" $(PORTABLE_TESTS)

# The wheel plays: built, installed into a fresh venv outside the checkout, and run
# from there (tests/wheel; docs/PACKAGING.md). Prints the time of each step.
wheeltest: $(STAMP)
	$(BIN)/python -m pytest -m wheel tests/wheel

# The firmware against the published MicroPython (Pico, Pico 2) and CircuitPython stubs,
# one mypy configuration per target (firmware/typecheck/, docs/FIRMWARE.md).
stubcheck: $(STAMP)
	$(BIN)/python tools/stubcheck.py

mptest: $(STAMP)
	$(BIN)/python tools/mptest.py

mpycheck: $(STAMP)
	$(BIN)/python tools/mpycheck.py

bench: $(STAMP)
	$(BIN)/meridian-table bench all --json

clean:
	rm -rf $(VENV) node_modules build .pytest_cache .mypy_cache .ruff_cache
