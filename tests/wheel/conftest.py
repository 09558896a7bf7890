"""The wheel test's fixture: meridian-table installed from its wheel, outside the checkout.

``make test`` runs these tests in their own pytest process (``-m wheel``). Each step's
time is printed at the end of the run and written to test-artifacts/wheel-timings.json.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.wheel.install import TIMINGS, Installed, install


@pytest.fixture(scope="session")
def installed(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Build the wheel, make a fresh venv outside the checkout and install the wheel."""
    return install(pytestconfig.rootpath, tmp_path_factory.mktemp("wheel"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not TIMINGS:
        return
    terminalreporter.section("wheel test timings")
    for step, seconds in TIMINGS.items():
        terminalreporter.write_line(f"{seconds:7.2f} s  {step}")
    terminalreporter.write_line(f"{sum(TIMINGS.values()):7.2f} s  in all")
    out = Path(str(terminalreporter.config.rootpath)) / "test-artifacts" / "wheel-timings.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({k: round(v, 3) for k, v in TIMINGS.items()}, indent=1) + "\n")
