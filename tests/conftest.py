"""Fixtures every test directory shares, and what keeps parallel runs apart.

``make test`` runs pytest with pytest-xdist workers (``-n``): each worker is a process of
its own, so a fixture of session scope is one per worker. Expensive things (a headless
Chromium, a PostgreSQL cluster) are session fixtures; a test that needs a resource no
other test may touch at the same time carries ``@pytest.mark.xdist_group("name")`` and
runs in the same worker as the others of its group (``--dist loadgroup``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def pytest_configure(config: pytest.Config) -> None:
    # Virtual boards announce themselves in a registry folder that `play --board sim` and
    # `monitor auto` read: each pytest process (each xdist worker) gets its own, so one
    # worker never finds another's board, nor a developer's running `meridian-table sim`.
    if "MERIDIAN_SIM_REGISTRY" not in os.environ:
        folder = tempfile.mkdtemp(prefix="meridian-test-sims-")
        os.environ["MERIDIAN_SIM_REGISTRY"] = str(Path(folder) / "sims")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium per pytest process (per xdist worker), skipped when it is not
    installed. Every browser test uses this one: Playwright's sync API allows one running
    instance per thread, and each test opens its own context (pages, cookies, storage)."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing in CI: .ci/run must apt-get install chromium")
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
