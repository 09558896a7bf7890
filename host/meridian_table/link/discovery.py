"""Finding the board: a Pico by USB VID:PID (and serial number), or a running virtual board.

A Pico running MicroPython enumerates as USB CDC with VID:PID 2E8A:0005. The OS may
rename its port after an unplug (``ttyACM0`` becomes ``ttyACM1``), so the link looks it
up again on every reconnect instead of remembering the path.

Virtual boards started with ``meridian-table sim`` register themselves in a small
directory of JSON files (one per running sim, removed when it stops or is unplugged),
so ``Link(port="auto")`` falls back to a virtual board when no Pico is plugged in, and
``Link(port="sim")`` picks a virtual board only.

Port names differ by system, and pyserial's ``list_ports`` gives each system's own:
``/dev/ttyACM0`` on Linux; ``/dev/cu.usbmodem1101`` on macOS (the "callout" device,
which opens without waiting for a carrier; its twin ``/dev/tty.usbmodem1101`` is not
listed); ``COM5`` on Windows (pyserial adds the prefix that COM10 and up need).
Several boards are listed in natural order (COM9 before COM10). A virtual
board's port is a pty path, or ``socket://127.0.0.1:PORT`` where there is no pty.
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import platformdirs
import psutil
import serial
from serial.tools import list_ports

from meridian_table.textload import json_loads

LOGGER = logging.getLogger(__name__)

PICO_VID = 0x2E8A
PICO_PID = 0x0005


@dataclass(frozen=True)
class Candidate:
    """A port that looks like a Meridian board: ``kind`` is "pico" or "sim"."""

    port: str
    kind: str
    description: str = ""
    serial_number: str | None = None


def find_picos(serial_number: str | None = None) -> list[Candidate]:
    """Every USB serial port with the Pico's VID:PID (and this serial number, if given)."""
    found: list[Candidate] = []
    for info in list_ports.comports():
        if info.vid != PICO_VID or info.pid != PICO_PID:
            continue
        if serial_number is not None and info.serial_number != serial_number:
            continue
        found.append(Candidate(info.device, "pico", info.description or "", info.serial_number))
    found.sort(key=lambda c: port_order(c.port))
    return found


def port_order(port: str) -> tuple[str | int, ...]:
    """Sort key: numbers compare as numbers (COM9 before COM10, ttyACM2 before ttyACM10)."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", port))


def registry_dir() -> Path:
    """Where running virtual boards announce their pty (override: MERIDIAN_SIM_REGISTRY)."""
    override = os.environ.get("MERIDIAN_SIM_REGISTRY")
    if override:
        return Path(override)
    if not os.environ.get("XDG_RUNTIME_DIR") and hasattr(os, "getuid"):
        # No session runtime dir (a container, cron): a per-user folder in the temp dir.
        return Path(tempfile.gettempdir()) / f"meridian-table-{os.getuid()}" / "sims"
    return Path(platformdirs.user_runtime_dir("meridian-table")) / "sims"


def _alive(pid: int) -> bool:
    # Not os.kill(pid, 0): on Windows that terminates the process.
    return psutil.pid_exists(pid)


def _present(port: str) -> bool:
    """A pty must still exist; a ``socket://`` port is withdrawn with its registry file."""
    return "://" in port or os.path.exists(port)


def find_sims() -> list[Candidate]:
    """Every registered virtual board whose process is alive and whose port exists."""
    folder = registry_dir()
    found: list[Candidate] = []
    if not folder.is_dir():
        return found
    for entry in sorted(folder.glob("*.json")):
        try:
            data = json_loads(entry.read_text())
            port, pid = str(data["port"]), int(data["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if _alive(pid) and _present(port):
            found.append(Candidate(port, "sim", str(data.get("board", ""))))
    return found


def register_sim(key: str, port: str, board: str) -> Path:
    """Announce a virtual board's pty; returns the registry file (remove it to withdraw)."""
    folder = registry_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{os.getpid()}-{key}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"port": port, "pid": os.getpid(), "board": board}))
    tmp.replace(path)
    return path


def unregister_sim(path: Path) -> None:
    """Withdraw a registration made by ``register_sim`` (missing files are fine)."""
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def resolve(port: str, serial_number: str | None = None) -> str | None:
    """The port to open for ``port`` ("auto", "pico", "sim" or a path/URL), or None."""
    if port in ("auto", "pico"):
        picos = find_picos(serial_number)
        if picos:
            return picos[0].port
        if port == "pico":
            return None
    if port in ("auto", "sim"):
        sims = find_sims()
        return sims[0].port if sims else None
    return port


#: Port names the link resolves itself (see ``resolve``).
KEYWORDS = ("auto", "pico", "sim")


class UnknownPortError(ValueError):
    """A port named by the user cannot be a board: a device that does not exist, a file
    that is not a serial device, or a pyserial URL that is malformed. The message names
    the port, says what is wrong and what to do next."""

    def __init__(self, port: str, problem: str, advice: str) -> None:
        self.port = port
        self.problem = problem
        super().__init__(f"{port!r}: {problem}; {advice}")


def _what_to_do(allow_sim: bool) -> str:
    ports = sorted(info.device for info in list_ports.comports())
    found = f"serial ports here: {', '.join(ports)}" if ports else "no serial ports found here"
    sim = " or `sim` (the virtual board)" if allow_sim else ""
    return f"{found}. Plug the board in, or use `auto` (a Pico by USB id){sim}"


def check_port(port: str, *, allow_sim: bool = True) -> None:
    """Refuse, at once, a port that cannot work before any search starts.

    ``auto``, ``pico`` and ``sim`` are always accepted (they are looked up while the link
    runs). A pyserial URL must name a protocol pyserial knows and be well formed. A device
    name must exist now and be a character device (on Windows: be a listed COM port).
    A board unplugged *after* the link connected is another matter: the link keeps
    looking for it. Raises UnknownPortError.
    """
    if port in KEYWORDS:
        if port == "sim" and not allow_sim:
            raise UnknownPortError(port, "the virtual board cannot do this",
                                   "use a real Pico: `auto` or its serial port")
        return
    advice = _what_to_do(allow_sim)
    if not port.strip():
        raise UnknownPortError(port, "the port name is empty", advice)
    if "://" in port:
        _check_url(port)
        return
    if sys.platform == "win32":
        known = {info.device.upper() for info in list_ports.comports()}
        if port.upper().removeprefix("\\\\.\\") not in known:
            raise UnknownPortError(port, "no such COM port is present", advice)
        return
    try:
        mode = os.stat(port).st_mode
    except FileNotFoundError:
        hint = " (COM ports are Windows names)" if port.upper().startswith("COM") else ""
        raise UnknownPortError(port, f"no such device{hint}", advice) from None
    except OSError as exc:
        raise UnknownPortError(port, f"cannot look at it ({exc.strerror})", advice) from None
    if not stat.S_ISCHR(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "a file"
        raise UnknownPortError(port, f"this is {kind}, not a serial device", advice)


def _check_url(url: str) -> None:
    try:
        handler = serial.serial_for_url(url, do_not_open=True)
        from_url = getattr(handler, "from_url", None)
        if from_url is not None:
            from_url(url)  # parses only: opens nothing
    except (ValueError, TypeError, KeyError, serial.SerialException) as exc:
        # pyserial's own parse errors are uneven: a missing port is a TypeError, and a
        # bad one can be a KeyError from its message formatting.
        detail = str(exc) or type(exc).__name__
        if isinstance(exc, (TypeError, KeyError)):
            detail = "the host or port number is missing or wrong"
        raise UnknownPortError(
            url,
            f"not a usable pyserial URL ({detail})",
            "write it like socket://HOST:PORT, rfc2217://HOST:PORT or loop://, "
            "or give a device, `auto` or `sim`",
        ) from None
