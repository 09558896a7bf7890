"""axe-core (from the npm registry: package.json, installed by `make test` into
node_modules/) injected into a page by the tests: the page itself never loads it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
#: The impacts that fail a test (axe's "moderate" and "minor" are reported, not failed).
BLOCKING = ("serious", "critical")


def require_axe() -> Path:
    if not AXE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{AXE} is missing in CI: `make test` runs `npm ci` first")
        pytest.skip(f"{AXE} is missing: run `npm ci` (or `make test`)")
    return AXE


def violations(page: Any) -> list[dict[str, Any]]:
    """Run axe-core on ``page`` (WCAG 2 A and AA, and best practices); each violation as
    ``{"id", "impact", "help", "targets"}``."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(require_axe()))
    found = page.evaluate(
        """async () => {
            const result = await axe.run(document, {
                runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21aa", "best-practice"] },
                resultTypes: ["violations"],
            });
            return result.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
            }));
        }"""
    )
    return list(found)


def blocking(page: Any) -> list[dict[str, Any]]:
    """The serious and critical violations only."""
    return [v for v in violations(page) if v["impact"] in BLOCKING]
