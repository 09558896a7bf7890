"""`.ci/run` is the only way anything lands: a syntax error there fails every landing
after 0 s with no test run (it happened once: a comment swallowed half the script)."""

import shutil
import subprocess
from pathlib import Path

import pytest

CI = Path(__file__).resolve().parents[1] / ".ci" / "run"


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_ci_script_parses_as_bash():
    result = subprocess.run(["bash", "-n", str(CI)], capture_output=True, text=True)
    assert result.returncode == 0, f".ci/run does not parse: {result.stderr}"


def test_ci_script_requires_the_emulated_pico_and_ends_with_make_test():
    lines = [ln.strip() for ln in CI.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert "set -euo pipefail" in lines
    assert "export MERIDIAN_REQUIRE_EMU=1" in lines
    assert lines.index("export MERIDIAN_REQUIRE_EMU=1") < lines.index("make test")
    assert lines[-1] == "make test", "make test must be the script's last command (its exit is CI's)"
    assert CI.stat().st_mode & 0o111, ".ci/run must be executable"
