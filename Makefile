# Two commands do all the set-up: `make run` and `make test`.
# Both create .venv when it is missing and install what they need, pinned in pyproject.toml:
# `make run` the table's own dependencies (RUN_STAMP), `make test` those and the tools
# and test dependencies (the `dev` extra: STAMP), which a player's table never loads.

PYTHON ?= python3
ARGS   ?=
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
# The games installed for the tests only (tests/toygame, examples/five_in_a_row), never by
# `make run`: its New game list offers the real games.
TOY    := $(VENV)/.toygame
# From the npm registry (package-lock.json): axe-core for the page's accessibility tests
# (tests/web) and rp2040js for the emulated Pico (tests/emu, docs/FIRMWARE.md).
AXE    := node_modules/axe-core/axe.min.js

.PHONY: run test checks test-stages test-under-load venv lint typecheck stubcheck pytest unit emu realtime browser portable wheeltest mptest mpycheck bench clean

run: $(RUN_STAMP)
	@# The tests' games are fixtures: after `make test` they are taken out again.
	@if [ -f $(TOY) ]; then $(BIN)/python -m pip uninstall --quiet --yes meridian-toygame meridian-five; rm -f $(TOY); fi
	$(BIN)/meridian-table play kato $(ARGS)

# `make test` runs every stage and prints its wall time at the end. The checks (ruff, mypy,
# the firmware's stubs, mpy-cross, the MicroPython run) and the test stages run side by
# side (make -j); each pytest stage spreads its tests over pytest-xdist workers (XDIST).
# Tests that share one resource carry @pytest.mark.xdist_group and run in one worker
# (--dist loadgroup). `make test XDIST=` runs every stage in a single process.
XDIST  ?= -n $(TEST_WORKERS) --dist loadgroup
# Workers per pytest stage: most tests wait on real time (settle windows, the link's
# timers), so a stage keeps two cores busy with as many workers as cores, plus one.
TEST_WORKERS ?= $(shell $(PYTHON) -c "import os; print((os.cpu_count() or 1) + 1)")
PYTEST := $(BIN)/python -m pytest

test: $(STAMP) $(TOY) $(AXE)
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory -j2 checks test-stages; status=$$?; \
	end=$$(date +%s); \
	echo "make test: $$((end - start)) s wall time ($$(( (end - start) / 60 )) min $$(( (end - start) % 60 )) s), exit $$status"; \
	exit $$status

# The static checks and the firmware's own runs: lint, typecheck, stubs, mpy-cross, MicroPython.
checks: $(STAMP)
	$(BIN)/ruff check host firmware tests tools examples
	$(BIN)/mypy
	$(BIN)/python tools/stubcheck.py
	$(BIN)/python tools/mpycheck.py
	$(BIN)/python tools/mptest.py

# The pytest stages side by side (tools/stages.py), each over XDIST workers, each writing
# to test-artifacts/stages/<stage>.log: most tests wait on real time (settle windows, the
# link's timers, a browser drawing), so one stage after another left the two cores half
# idle. A failing stage does not stop the others; every failure is printed at the end.
# The sources are compiled first (and the tests collected once, for pytest's own cache of
# the test modules it rewrites): the hundreds of `meridian-table` processes the tests
# start then load bytecode even where PYTHONDONTWRITEBYTECODE keeps Python from caching
# it (each would otherwise compile some 300 modules on start).
# Each stage prints its wall time and the CPU time it used (its processes and theirs):
# on two cores the CPU time in all is what bounds the suite's wall time from below.
# The stages run side by side: the emulated Pico's tests (one emulator at a time, each
# test after the other: the longest chain, started at once) then the browser's (their
# Chromium raises its own priority, so it never runs beside the emulated Pico); the unit
# tests (the most tests, most of them waiting on real time: WIDE_WORKERS); and, niced
# (:N) to fill the cores the others leave idle, the portable and wheel stages.
# The real-time tests (a hand's timing, which a busy machine makes late; each replays a
# slice the machine made late) follow the portable stage, off the longest chain: they
# mostly sleep, and run alone after everything else they left both cores idle for their
# 19 s, and after the browser's they made that chain the longest. `LAST=realtime` runs
# them alone again. In every stage, tests marked slow start first (tests/conftest.py).
STAGES ?= "emu>browser" unit "portable:10>realtime" wheeltest:10
LAST   ?=
test-stages: $(STAMP) $(TOY) $(AXE)
	$(BIN)/python -m compileall -q -j 0 host firmware tests tools > /dev/null
	@# One collection first writes pytest's rewritten test modules (tests/conftest.py):
	@# the stages' dozen pytest processes then load them instead of each rewriting them.
	-@$(PYTEST) -q --collect-only -p no:cacheprovider > /dev/null 2>&1
	$(BIN)/python tools/stages.py $(foreach s,$(LAST),--last $(s)) $(STAGES)

# `make test` three times in a row with one busy process per core beside it (as on a
# developer's busy machine or CI): prints each run's failures and wall time at the end.
test-under-load: $(STAMP) $(TOY) $(AXE)
	$(BIN)/python tools/under_load.py --runs 3 -- $(MAKE) --no-print-directory test

venv: $(STAMP)

$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(AXE)

# setuptools explains an editable install in a warning box (InformationOnly, a
# UserWarning) on every install; it is no fault of ours, so the install hides it.
QUIET_BUILD := PYTHONWARNINGS=ignore::UserWarning

# The table alone (`make run`): no test runner, type checker, browser driver or MicroPython
# interpreter, which are the tests' (a Raspberry Pi's table installs a third as much).
$(RUN_STAMP): pyproject.toml setup.py host/meridian_table/games/kato/_kernel.c
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ] && [ $(STAMP) -nt setup.py ] && \
	   [ $(STAMP) -nt host/meridian_table/games/kato/_kernel.c ]; then touch $(RUN_STAMP); exit 0; fi; \
	set -e; test -x $(BIN)/python || $(PYTHON) -m venv $(VENV); \
	$(BIN)/python -m pip install --quiet --upgrade pip; \
	$(QUIET_BUILD) $(BIN)/python -m pip install --quiet -e .; \
	touch $(RUN_STAMP)

# Everything `make test` needs: the table and the `dev` extra.
$(STAMP): pyproject.toml setup.py host/meridian_table/games/kato/_kernel.c
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(QUIET_BUILD) $(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP) $(RUN_STAMP)

# tests/toygame and examples/five_in_a_row are games in their own packages
# (docs/ADDING_A_GAME.md), installed for the tests only.
$(TOY): $(STAMP) tests/toygame/pyproject.toml examples/five_in_a_row/pyproject.toml
	$(QUIET_BUILD) $(BIN)/python -m pip install --quiet --no-deps -e tests/toygame -e examples/five_in_a_row
	touch $(TOY)

lint: $(STAMP)
	$(BIN)/ruff check host firmware tests tools examples

typecheck: $(STAMP)
	$(BIN)/mypy

# The unit stage: every test but the browser's, the wheel's and the emulated Pico's.
WIDE_WORKERS ?= $(shell $(PYTHON) -c "import os; print(2 * (os.cpu_count() or 1))")
WIDE   := $(if $(XDIST),-n $(WIDE_WORKERS) --dist loadgroup,)
unit: $(STAMP) $(TOY) $(AXE)
	$(PYTEST) $(WIDE) --durations=20 -m "not browser and not wheel and not realtime" --ignore=tests/emu

# The tests that keep a person's timing in real time, run by `make test` after the
# portable stage. Three workers, one a test: each mostly sleeps between the hand's
# switches (7 CPU-s in 19 s for the three), so side by side they leave the cores idle
# still, and the stage takes 14 s instead of 18 with two (each test plays again a slice
# the machine made late, as before).
realtime: $(STAMP) $(TOY)
	$(PYTEST) $(if $(XDIST),-n 3,) -m realtime

# The emulated Pico (tests/emu, but its browser test): in one process, one test at a time.
emu: $(STAMP) $(TOY)
	$(PYTEST) --durations=10 -m "not browser and not wheel" tests/emu

# Browser tests run in their own pytest process: Playwright's sync API refuses to start
# in a process where another test left an asyncio loop behind.
browser: $(STAMP) $(TOY) $(AXE)
	$(PYTEST) $(XDIST) -m browser

# All four, one after the other.
pytest: unit emu browser realtime

# As on Windows, where there is no pty: the virtual-board, table, web and CLI tests again
# with the virtual board behind a loopback socket (socket://), plus the portability check
# (tests/test_portability.py; docs/LINK.md).
# Each game's board tests live in its own tests/games/<id>/ (adapter, virtual board, headless).
# Test files that never open a link to a board (fakes, the store, the page's own logic,
# the hand corpus in simulated time, the commands' help, the service files) would only
# run the same again, so they are left out here.
NO_LINK_TESTS := $(addprefix tests/table/,test_commands.py test_control_state.py test_core.py \
	test_ending.py test_review_archive.py test_session.py test_store_resume.py \
	test_web_integration.py) tests/web/test_score_page.py \
	tests/sim/test_hands.py tests/cli/test_help.py
PORTABLE_TESTS := tests/test_portability.py \
	$(filter-out $(NO_LINK_TESTS),$(wildcard tests/table/test_*.py tests/web/test_*.py \
	                                          tests/sim/test_*.py tests/cli/test_*.py)) \
	$(wildcard tests/games/*/test_*_adapter.py tests/games/*/test_*_virtual.py \
	           tests/games/*/test_*_headless*.py tests/games/*/test_*_crash.py tests/games/*/test_*_warning.py)
portable: $(STAMP) $(TOY)
	MERIDIAN_TABLE_SIM_TRANSPORT=socket $(PYTEST) $(XDIST) -m "not browser and not wheel and not realtime" $(PORTABLE_TESTS)

# The wheel plays: built, installed into a fresh venv outside the checkout, and run
# from there (tests/wheel; docs/PACKAGING.md). Prints the time of each step.
wheeltest: $(STAMP) $(TOY)
	$(PYTEST) -m wheel tests/wheel

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
