"""Fixtures every test directory shares, and what keeps parallel runs apart.

``make test`` runs pytest with pytest-xdist workers (``-n``): each worker is a process of
its own, so a fixture of session scope is one per worker. Expensive things (a headless
Chromium, a PostgreSQL cluster) are session fixtures; a test that needs a resource no
other test may touch at the same time carries ``@pytest.mark.xdist_group("name")`` and
runs in the same worker as the others of its group (``--dist loadgroup``).
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Tests check behaviour, not speed (benches do: docs/TESTING.md). Hypothesis's default
# deadline (200 ms an example) and its "too slow" health check are timings: on a busy
# machine an example that takes 4 ms took 523 ms once and failed a run of
# `make test-under-load`. Every property test runs without them.
settings.register_profile("meridian", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("meridian")

# PYTHONDONTWRITEBYTECODE (set in CI's environment and on many developers' machines) also
# stops pytest from caching the test modules it rewrites for its assertions: each of the
# dozen pytest processes of `make test` (every xdist worker of every stage) then parsed
# and rewrote every test module again, collection 5.7 CPU-s a process instead of 2.1.
# Pytest processes write them (to __pycache__, which git ignores) whatever the variable
# says; `make test` collects once before its stages start, so they all find them.
sys.dont_write_bytecode = False

#: The kiosk's browser (``meridian-table kiosk``), Debian's chromium.
KIOSK_CHROMIUM = "/usr/bin/chromium"
#: Debian's chromium-headless-shell: the same Chromium build (Blink, V8, the same
#: version as the chromium package) without the desktop browser around the page, and
#: what Playwright itself runs for a headless page. The browser tests run their pages in
#: it when it is installed (.ci/run installs it): a quarter less of Chromium's CPU time
#: for the same tests, the browser stage 156 -> 122 s alone (docs/TESTING.md). One test
#: (tests/web/test_kiosk_chromium.py) still plays through the kiosk's own Chromium.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get("MERIDIAN_TEST_CHROMIUM") or (
    HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else KIOSK_CHROMIUM)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Chromium starts a spare renderer beside each page it opens, for the next one: a
    # third of the renderers it started in the browser tests, never used (58 renderers
    # instead of 87 for 29 tests, 8 % less of Chromium's CPU time: docs/TESTING.md).
    "--disable-features=SpareRendererForSitePerProcess",
]


def pytest_configure(config: pytest.Config) -> None:
    # Virtual boards announce themselves in a registry folder that `play --board sim` and
    # `monitor auto` read: each pytest process (each xdist worker) gets its own, so one
    # worker never finds another's board, nor a developer's running `meridian-table sim`.
    if "MERIDIAN_SIM_REGISTRY" not in os.environ:
        folder = tempfile.mkdtemp(prefix="meridian-test-sims-")
        os.environ["MERIDIAN_SIM_REGISTRY"] = str(Path(folder) / "sims")
    # A shell starts a background job (`make test &`) with Ctrl-C ignored, and every
    # program the tests start would inherit that: the tests that press Ctrl-C on `play`,
    # `score` or `club serve` would then wait for nothing. Ctrl-C works as in a terminal.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` (over about ten seconds of real time) start first: xdist hands
    the tests out in this order, and a stage whose last worker picked up a slow test near
    the end waited on it alone with the cores idle (``test_make_run`` and ``bench host``,
    collected near the end, were started in the unit stage's last half minute)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def browser(_playwright: Any) -> Iterator[Any]:
    """One headless Chromium per pytest process (per xdist worker), skipped when it is not
    installed. Every browser test uses this one: Playwright's sync API allows one running
    instance per thread, and each test opens its own context (pages, cookies, storage)."""
    yield from _launch(_playwright, CHROMIUM)


@pytest.fixture(scope="session")
def kiosk_browser(_playwright: Any) -> Iterator[Any]:
    """The kiosk's own Chromium (/usr/bin/chromium), headless, for the tests that must
    draw the page in the very browser a table's kiosk runs."""
    yield from _launch(_playwright, KIOSK_CHROMIUM)


@pytest.fixture(scope="session")
def _playwright() -> Iterator[Any]:
    """Playwright's sync API, started once per pytest process: it runs one instance a
    thread, and both browsers above are launched from it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


def _launch(playwright: Any, executable: str) -> Iterator[Any]:
    if not os.path.exists(executable):
        package = Path(executable).name
        if os.environ.get("CI"):
            pytest.fail(f"{executable} is missing in CI: .ci/run must apt-get install {package}")
        pytest.skip(f"{executable} is missing: apt-get install {package}")
    browser = playwright.chromium.launch(executable_path=executable, headless=True,
                                         args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture(autouse=True)
def _english_first() -> Iterator[None]:
    """The table's language is one per process (``meridian_table.i18n``): a test that
    turned a table French must not leave the next test of the same worker in French."""
    from meridian_table import i18n

    i18n.set_language("en")
    yield
    i18n.set_language("en")
