"""Finding the board: a Pico by USB VID:PID (and serial number), or a running virtual board.

A Pico running MicroPython enumerates as USB CDC with VID:PID 2E8A:0005. The OS may
rename its port after an unplug (``ttyACM0`` becomes ``ttyACM1``), so the link looks it
up again on every reconnect instead of remembering the path.

Virtual boards started with ``meridian-table sim`` register themselves in a small
directory of JSON files (one per running sim, removed when it stops or is unplugged),
so ``Link(port="auto")`` falls back to a virtual board when no Pico is plugged in, and
``Link(port="sim")`` picks a virtual board only.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import platformdirs
from serial.tools import list_ports

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
    found.sort(key=lambda c: c.port)
    return found


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
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def find_sims() -> list[Candidate]:
    """Every registered virtual board whose process is alive and whose pty exists."""
    folder = registry_dir()
    found: list[Candidate] = []
    if not folder.is_dir():
        return found
    for entry in sorted(folder.glob("*.json")):
        try:
            data = json.loads(entry.read_text())
            port, pid = str(data["port"]), int(data["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if _alive(pid) and os.path.exists(port):
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
