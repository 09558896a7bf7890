#!/usr/bin/env python3
"""Type-check the firmware against the published stubs of the boards it runs on.

One mypy configuration per target (``firmware/typecheck/TARGET.ini``):

- ``rp2-pico``: the core and the rp2 HAL against ``micropython-rp2-rpi-pico-stubs``
  (RP2040) with ``micropython-stdlib-stubs`` as the typeshed;
- ``rp2-pico2``: the same files against ``micropython-rp2-rpi-pico2-stubs`` (RP2350);
- ``circuitpython``: the core and the CircuitPython HAL against
  ``circuitpython-stubs`` and ``adafruit-circuitpython-typing``, with the real
  ``adafruit-circuitpython-neopixel``.

The stub packages clash with CPython's own modules (``time``, ``select``, a whole
replacement typeshed), so they never go into the venv: each target gets its own
directory, ``.venv/stubs/TARGET``, filled by ``pip install --target`` from the pins
below the first time (again when a pin changes). The host's ``mypy --strict`` is
separate and unchanged.

    python tools/stubcheck.py [TARGET ...] [--root DIR]

``--root`` checks another copy of the tree (the tests put a wrong call into one).
Prints each target's verdict and exits non-zero when any has an error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = Path("firmware") / "typecheck"
TIMEOUT_S = 600


@dataclass(frozen=True)
class Target:
    name: str
    packages: tuple[str, ...]  # pinned, installed with --no-deps into the target's directory
    site_packages: bool  # PEP 561 "-stubs" packages: put the directory on the search path

    def config(self, root: Path) -> Path:
        return root / CONFIGS / (self.name + ".ini")


_MP_STDLIB = "micropython-stdlib-stubs==1.29.0.post2"
TARGETS = {
    t.name: t
    for t in (
        Target("rp2-pico", ("micropython-rp2-rpi-pico-stubs==1.29.0.post1", _MP_STDLIB), False),
        Target("rp2-pico2", ("micropython-rp2-rpi-pico2-stubs==1.29.0.post1", _MP_STDLIB), False),
        Target(
            "circuitpython",
            (
                "circuitpython-stubs==10.3.1",
                "adafruit-circuitpython-typing==1.13.0",
                # The real driver (pyproject.toml pins the same); circuitpython-stubs
                # carries adafruit_pixelbuf, which the board has built in.
                "adafruit-circuitpython-neopixel==6.4.2",
            ),
            True,
        ),
    )
}


def stubs_dir(target: Target) -> Path:
    return ROOT / ".venv" / "stubs" / target.name


def ensure_stubs(target: Target) -> Path:
    """The target's stub directory, installed from the pins unless it already matches them."""
    dest = stubs_dir(target)
    stamp = dest / ".pins"
    wanted = "\n".join(target.packages) + "\n"
    if stamp.exists() and stamp.read_text() == wanted:
        return dest
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade",
           "--target", str(dest), *target.packages]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    if proc.returncode != 0:
        raise SystemExit(f"stubcheck: could not install the stubs for {target.name} "
                         f"({' '.join(target.packages)}):\n{proc.stderr.strip()}\n"
                         "Check the network or the pins in tools/stubcheck.py.")
    stamp.write_text(wanted)
    return dest


def check(target: Target, root: Path = ROOT) -> tuple[int, str]:
    """Run mypy for one target over the tree at ``root``: (error count, mypy's output)."""
    stubs = ensure_stubs(target)
    env = dict(os.environ, MERIDIAN_STUBS=str(stubs))
    if target.site_packages:
        env["PYTHONPATH"] = str(stubs)  # mypy finds "-stubs" packages on the site path only
    else:
        env.pop("PYTHONPATH", None)
    cache = root / ".mypy_cache" / ("fw-" + target.name)
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(target.config(root)),
           "--cache-dir", str(cache)]
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    out = (proc.stdout + proc.stderr).strip()
    errors = sum(1 for line in out.splitlines() if ": error:" in line)
    if proc.returncode != 0 and errors == 0:
        errors = 1  # mypy itself failed (bad config, crash): that is a failure too
    return errors, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("targets", nargs="*", choices=[[], *TARGETS], default=[],
                        metavar="TARGET", help="rp2-pico, rp2-pico2, circuitpython (default: all)")
    parser.add_argument("--root", type=Path, default=ROOT, help="check this copy of the tree")
    args = parser.parse_args(argv)
    failed = 0
    for name in args.targets or list(TARGETS):
        errors, out = check(TARGETS[name], args.root.resolve())
        if errors:
            print(out)
            failed += 1
        print(f"stubcheck {name}: {errors} error(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
