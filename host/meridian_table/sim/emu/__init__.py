"""The emulated Pico: MicroPython's own rp2 build running OUR firmware in rp2040js.

``EmulatedBoard`` is a ``VirtualBoard`` (same ``port``, ``set_switch``, ``set_site``,
``leds()``, ``wait_for``, fault injection, ``close``) whose firmware runs on an emulated
RP2040 instead of the simulated HAL: Node runs ``harness.mjs`` (this package) with the
npm package ``rp2040js`` (pinned 1.4.1), the RPI_PICO MicroPython UF2 and the RP2040
boot ROM. The firmware files are exactly what ``meridian-table flash`` puts on a Pico
(``maker.flashing.build``: ``.mpy`` for armv6m, ``main.py``, the profile's
``config.json``), preloaded as a littlefs image, so ``main.py`` runs at boot as on a
board. The harness models the switch matrix at pin level (rows, columns, pull-ups,
diodes, the 74HC165 chain), decodes the WS2812 frames from the PIO data pin, bridges
USB CDC to the board's pty (or loopback socket), and models the SPI NOR flash so the
filesystem is writable. docs/FIRMWARE.md, "The emulated Pico", says what it proves and
what it cannot.

Where the files are: ``$MERIDIAN_PICO_IMAGE`` (the UF2) and ``$MERIDIAN_PICO_BOOTROM``
(the boot ROM), else ``../shared/pico/`` beside the checkout. ``rp2040js`` comes from
``$MERIDIAN_RP2040JS`` (its package folder), else the nearest ``node_modules`` above this
package or the working directory (``npm ci`` in the checkout provides it).
"""

from __future__ import annotations

import json
import logging
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from meridian_table.resources import package_path
from meridian_table.sim.board import (
    VirtualBoard,
    _drain,
    _poke,
    _ProfileLike,
    _wake_pair,
)
from meridian_table.sim.port import BoardPort, Selectable
from meridian_table.sim.transport import Transport, VirtualBoardError

LOGGER = logging.getLogger(__name__)

HARNESS = "harness.mjs"
IMAGE_ENV = "MERIDIAN_PICO_IMAGE"
BOOTROM_ENV = "MERIDIAN_PICO_BOOTROM"
RP2040JS_ENV = "MERIDIAN_RP2040JS"
IMAGE_NAME = "RPI_PICO-v1.23.0.uf2"
BOOTROM_NAME = "rp2040-bootrom-b1.bin"
RP2040JS_VERSION = "1.4.1"
# MicroPython v1.23 RPI_PICO: a littlefs2 filesystem of 352 blocks of 4 KiB at 0xA0000.
FS_BLOCK_SIZE = 4096
FS_BLOCK_COUNT = 352
BOOT_TIMEOUT_S = 90.0      # a busy shared machine boots the emulator in 1 to 20 s
STATUS_TIMEOUT_S = 10.0


class EmulatorMissing(VirtualBoardError):
    """A file or tool the emulated Pico needs is not there (the message names it)."""


def _checkout_pico_dir() -> Path:
    """``../shared/pico`` beside the checkout holding this package (an editable install)."""
    return Path(__file__).resolve().parents[4].parent / "shared" / "pico"


def image_paths() -> tuple[Path, Path]:
    """(UF2, boot ROM) from the environment or ``../shared/pico``; unchecked."""
    default = _checkout_pico_dir()
    image = Path(os.environ.get(IMAGE_ENV) or default / IMAGE_NAME)
    bootrom = Path(os.environ.get(BOOTROM_ENV) or default / BOOTROM_NAME)
    return image, bootrom


def find_rp2040js() -> Path:
    """The rp2040js package folder; raises EmulatorMissing naming where it looked."""
    given = os.environ.get(RP2040JS_ENV)
    candidates: list[Path] = []
    if given:
        candidates.append(Path(given))
    else:
        for start in (Path(__file__).resolve().parent, Path.cwd().resolve()):
            for folder in (start, *start.parents):
                candidates.append(folder / "node_modules" / "rp2040js")
    for folder in candidates:
        meta = folder / "package.json"
        if meta.is_file():
            try:
                version = json.loads(meta.read_text(encoding="utf-8")).get("version")
            except (OSError, ValueError):
                continue
            if version != RP2040JS_VERSION:
                LOGGER.warning("%s is rp2040js %s; the harness is tested with %s",
                               folder, version, RP2040JS_VERSION)
            return folder
    where = given or "node_modules above the package and the working directory"
    raise EmulatorMissing(
        f"rp2040js is not installed (looked in {where}): run `npm ci` in the checkout, or "
        f"set {RP2040JS_ENV} to an rp2040js {RP2040JS_VERSION} package folder"
    )


def node_binary() -> str:
    found = shutil.which("node")
    if found is None:
        raise EmulatorMissing("Node.js (`node`) is not on PATH; the emulated Pico runs in Node")
    return found


def missing() -> str | None:
    """What the emulated Pico lacks here, in one line, or None when it can run."""
    image, bootrom = image_paths()
    for path, env in ((image, IMAGE_ENV), (bootrom, BOOTROM_ENV)):
        if not path.is_file():
            return f"the emulated Pico needs {path} (set {env} to another path)"
    try:
        node_binary()
        find_rp2040js()
    except EmulatorMissing as exc:
        return str(exc)
    return None


# -- the filesystem image -----------------------------------------------------------------

_IMAGES: dict[str, bytes] = {}
_IMAGES_LOCK = threading.Lock()


class _ConfigProfile:
    """What ``flashing.build`` needs from a profile, for a bare firmware config."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self._config = dict(config)
        self.name = str(config.get("board", "config"))

    def firmware_config(self) -> dict[str, Any]:
        return dict(self._config)


def littlefs_image(files: Mapping[str, bytes]) -> bytes:
    """A littlefs2 image of ``files`` (path on the board -> content) for the RPI_PICO
    filesystem. Needs ``littlefs-python`` (a dev dependency)."""
    try:
        from littlefs import LittleFS  # type: ignore[import-untyped,unused-ignore]
    except ImportError as exc:
        raise EmulatorMissing(
            "littlefs-python is not installed (`pip install littlefs-python`, or `make venv`): "
            "the emulated Pico's filesystem image is made with it"
        ) from exc
    fs = LittleFS(block_size=FS_BLOCK_SIZE, block_count=FS_BLOCK_COUNT, prog_size=256)
    for remote in sorted(files):
        parts = remote.split("/")
        for i in range(1, len(parts)):
            folder = "/".join(parts[:i])
            try:
                fs.mkdir(folder)
            except Exception:  # littlefs raises its own error when the folder exists
                pass
        with fs.open(remote, "wb") as fh:
            fh.write(files[remote])
    return bytes(fs.context.buffer)


def firmware_image(config: Mapping[str, Any] | None) -> bytes:
    """The filesystem ``meridian-table flash`` would leave on a Pico for ``config``
    (None: an empty filesystem, as a freshly flashed MicroPython has)."""
    key = json.dumps(config, sort_keys=True)
    with _IMAGES_LOCK:
        if key in _IMAGES:
            return _IMAGES[key]
    files: dict[str, bytes] = {}
    if config is not None:
        from meridian_table.maker import flashing
        from meridian_table.profiles.model import Profile

        with tempfile.TemporaryDirectory(prefix="meridian-emu-build-") as tmp:
            built = flashing.build(cast(Profile, _ConfigProfile(config)), Path(tmp) / "build")
            files = {f.remote: Path(f.local).read_bytes() for f in built}
    image = littlefs_image(files)
    with _IMAGES_LOCK:
        _IMAGES[key] = image
    return image


def electrical_model(config: Mapping[str, Any], closed: set[int] | frozenset[int]) -> dict[str, Any]:
    """The board as the harness models it, from the firmware config."""
    model: dict[str, Any] = {
        "scanner": config.get("scanner", "matrix"),
        "rows": int(config.get("rows", 0)),
        "cols": int(config.get("cols", 0)),
        "diodes": bool(config.get("diodes", True)),
        "led_pin": config.get("led_pin"),
        "leds": int(config.get("leds", 0)),
        "closed": sorted(closed),
    }
    if model["scanner"] == "sr165":
        model["sr"] = dict(config["sr"])
    else:
        model["row_pins"] = list(config.get("row_pins", []))
        model["col_pins"] = list(config.get("col_pins", []))
    return model


# -- the board ----------------------------------------------------------------------------


class EmulatedBoard(VirtualBoard):
    """A virtual board whose firmware runs on the emulated RP2040; see the module docstring.

    ``empty=True`` boots MicroPython with an empty filesystem (a Pico fresh from its UF2,
    for ``meridian-table flash``); the board then answers at the REPL, not as a Meridian
    board, until the firmware is flashed and the board reset.
    """

    def __init__(
        self,
        board: _ProfileLike | Mapping[str, Any] | str,
        *,
        register: bool = False,
        closed: set[int] | frozenset[int] = frozenset(),
        transport: Transport | None = None,
        empty: bool = False,
        stall_pin: int | None = None,
    ) -> None:
        super().__init__(board, "cpython", register=register, closed=closed, transport=transport)
        self.mode = "emu"
        self.empty = empty
        #: While the firmware drives this GPIO high the host stops reading (tests).
        self.stall_pin = stall_pin
        self._at_repl = empty  # at the REPL: no firmware yet, or run_python(restart=False)
        self._emu: _EmuBackend | None = None

    def start(self) -> EmulatedBoard:
        if self._stopped:
            raise VirtualBoardError("this emulated board was closed; create a new one")
        if self._started:
            return self
        problem = missing()
        if problem is not None:
            raise EmulatorMissing(problem)
        from meridian_table.sim.transport import choose, open_port

        self.transport = choose(self._transport_request)
        self._started = True
        self._pty = open_port(self.transport)
        self._last_path = self._pty.path
        backend = _EmuBackend(self)
        self._backend = backend
        self._emu = backend
        try:
            backend.start()
        except BaseException:
            self.close()
            raise
        self._announce()
        return self

    def __enter__(self) -> EmulatedBoard:
        return self.start()

    # -- pin-level controls beyond the virtual board's ---------------------------------------

    def _require(self) -> _EmuBackend:
        if self._emu is None or self._stopped:
            raise VirtualBoardError("the emulated board is not running (start it first)")
        return self._emu

    def bounce(self, pos: int, flips: int, period_us: int, closed: bool) -> None:
        """Let switch ``pos`` bounce: ``flips`` changes ``period_us`` emulated
        microseconds apart, then it rests ``closed`` (a reed's contact bounce)."""
        self._check_pos(pos)
        if flips < 0 or period_us <= 0:
            raise ValueError(f"bounce needs flips >= 0 and period_us > 0, not {flips!r}, "
                             f"{period_us!r}")
        with self._lock:
            if closed:
                self._closed.add(pos)
            else:
                self._closed.discard(pos)
            self._sensed = self._sense()
        self._require().send(f"B {pos} {flips} {period_us} {1 if closed else 0}")

    def remove_diode(self, pos: int, removed: bool = True) -> None:
        """A missing diode at switch ``pos`` (a maker's fault): it then conducts both ways."""
        self._check_pos(pos)
        self._require().send(f"D {pos} {0 if removed else 1}")

    def stall_host(self, stalled: bool = True) -> None:
        """The host keeps the port open but stops reading the device's output (USB IN
        transfers are not completed) until ``stall_host(False)``."""
        self._require().send(f"H {1 if stalled else 0}")

    def status(self) -> dict[str, Any]:
        """The harness's counters: emulated seconds, cycles, frames decoded, flash writes."""
        return self._require().status()

    @property
    def partial_frames(self) -> list[bytes]:
        """Frames cut short (the PIO restarted mid-frame), as the bytes that went out."""
        return list(self._require().partial)

    def run_python(self, code: str, *, restart: bool = True, soft_reset: bool = False,
                   timeout: float = 120.0) -> str:
        """Run ``code`` at the emulated Pico's MicroPython REPL; return what it printed.

        The running firmware is asked back to the REPL first (the ``REPL`` frame, as
        ``meridian-table flash`` does); with ``restart`` a soft reset then runs
        ``main.py`` again. ``soft_reset`` runs ``code`` on a fresh heap (a soft reset in the
        raw REPL does not run ``main.py``). Nothing else may hold the port meanwhile.
        Raises VirtualBoardError with the traceback when the code fails."""
        from mpremote.transport import TransportError  # type: ignore[import-untyped]
        from mpremote.transport_serial import SerialTransport  # type: ignore[import-untyped]

        from meridian_table.maker import flashing

        self._require()
        if not self._at_repl:
            flashing.release(self.port, timeout=min(timeout, 30.0))
        transport = SerialTransport(self.port, timeout=timeout)
        try:
            transport.enter_raw_repl(soft_reset=soft_reset)
            try:
                out = transport.exec(code)
            except TransportError as exc:
                raise VirtualBoardError(f"the emulated Pico's MicroPython failed: {exc}") from None
            transport.exit_raw_repl()
            if restart:
                transport.serial.write(b"\x04")  # friendly REPL: soft reset, main.py runs
            self._at_repl = not restart
        finally:
            transport.close()
        return bytes(out).decode(errors="replace")


class _EmuBackend:
    """Node + rp2040js behind the board's port."""

    def __init__(self, vb: EmulatedBoard) -> None:
        self.vb = vb
        self._pty: BoardPort | None = vb._current_pty()
        self._proc: subprocess.Popen[bytes] | None = None
        self._wake_r, self._wake_w = _wake_pair()
        self._wlock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._usb_up = threading.Event()
        self._status: dict[str, Any] | None = None
        self._status_cond = threading.Condition()
        self._stopping = False
        self.stderr_tail: list[str] = []
        self.partial: list[bytes] = []
        self._tmp = tempfile.TemporaryDirectory(prefix="meridian-emu-")
        self.fs_path = Path(self._tmp.name) / "littlefs.img"
        # Empty: erased flash, which MicroPython formats at its first boot.
        self.fs_path.write_bytes(b"" if vb.empty else firmware_image(vb.config))
        self.resets = 0

    # -- process --------------------------------------------------------------------------

    def start(self) -> None:
        image, bootrom = image_paths()
        model = electrical_model(self.vb.config, self.vb.sensed)
        if self.vb.stall_pin is not None:
            model["stall_pin"] = self.vb.stall_pin
        cmd = [
            node_binary(), str(package_path(__package__ or "meridian_table.sim.emu", HARNESS)),
            "--rp2040js", str(find_rp2040js()), "--bootrom", str(bootrom), "--uf2", str(image),
            "--fs", str(self.fs_path), "--board", json.dumps(model, separators=(",", ":")),
            *os.environ.get("MERIDIAN_EMU_ARGS", "").split(),
        ]
        self._stopping = False
        self._usb_up.clear()
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, bufsize=0)
        name = self.vb.config.get("board", "?")
        for target, label in ((self._read_out, "out"), (self._read_err, "err"),
                              (self._bridge, "bridge")):
            t = threading.Thread(target=target, name=f"emu-{label}-{name}", daemon=True)
            t.start()
            self._threads.append(t)
        if not self._usb_up.wait(BOOT_TIMEOUT_S):
            tail = " | ".join(self.stderr_tail[-5:])
            self._kill()
            raise VirtualBoardError(
                f"the emulated Pico did not bring up USB within {BOOT_TIMEOUT_S:g} s ({tail})")

    def send(self, line: str) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise VirtualBoardError("the emulated Pico is not running")
        with self._wlock:
            try:
                proc.stdin.write(line.encode() + b"\n")
            except (BrokenPipeError, ValueError, OSError):
                raise VirtualBoardError(
                    "the emulated Pico has stopped: " + " | ".join(self.stderr_tail[-5:])
                ) from None

    def status(self) -> dict[str, Any]:
        with self._status_cond:
            self._status = None
            self.send("T")
            if not self._status_cond.wait_for(lambda: self._status is not None,
                                              STATUS_TIMEOUT_S):
                raise VirtualBoardError("the emulated Pico did not answer a status request")
            assert self._status is not None
            return self._status

    def _quit(self) -> None:
        """Ask the harness to save the filesystem and exit; kill it if it does not."""
        self._stopping = True
        proc = self._proc
        if proc is None:
            return
        try:
            self.send("Q")
        except VirtualBoardError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            LOGGER.warning("the emulated Pico did not quit; killing pid %d", proc.pid)
        self._kill()

    def _kill(self) -> None:
        self._stopping = True
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            LOGGER.error("the emulated Pico (pid %d) would not die", proc.pid)
        _poke(self._wake_w)
        for t in self._threads:
            t.join(timeout=5)
        self._threads.clear()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        self._proc = None

    def stop(self) -> None:
        self._quit()
        self._wake_r.close()
        self._wake_w.close()
        self._tmp.cleanup()

    def reset(self) -> None:
        """Power-cycle the Pico: the harness saves the flash, a new one boots from it."""
        self._quit()
        self.start()

    def _machine_reset(self) -> None:
        """The firmware reset the chip (``machine.reset()``): boot a new emulator from
        the flash the old one saved, as the Pico boots again from its flash."""
        proc = self._proc
        if proc is not None:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self.resets += 1
        self._kill()
        if self.vb._stopped:
            return
        try:
            self.start()
        except VirtualBoardError as exc:
            LOGGER.error("the emulated Pico did not come back after machine.reset(): %s", exc)

    def rebind(self, pty: BoardPort | None) -> None:
        self._pty = pty
        _poke(self._wake_w)

    def set_switch(self, pos: int, closed: bool) -> None:
        self.send(f"S {pos} {1 if closed else 0}")

    # -- threads --------------------------------------------------------------------------

    def _read_out(self) -> None:
        proc = self._proc
        if proc is None or proc.stdout is None:
            return
        for raw in proc.stdout:
            line = raw.rstrip(b"\n")
            kind, _, rest = line.partition(b" ")
            if kind == b"D":
                data = bytes.fromhex(rest.decode())
                self.vb._serial_out(data)
                pty = self._pty
                if pty is not None:
                    pty.write(data)
            elif kind == b"L":
                _, _, hexframe = rest.partition(b" ")
                self.vb._rendered(bytes.fromhex(hexframe.decode()))
            elif kind == b"U":
                self._usb_up.set()
            elif kind == b"R":
                self._stopping = True  # the exit that follows is the reset, not a crash
                threading.Thread(target=self._machine_reset, name="emu-reset", daemon=True).start()
            elif kind == b"T":
                with self._status_cond:
                    self._status = json.loads(rest)
                    self._status_cond.notify_all()
            elif kind == b"P":
                self.partial.append(bytes.fromhex(rest.split(b" ")[0].decode()))
            else:
                text = line.decode(errors="replace")
                self.stderr_tail.append(text)
                del self.stderr_tail[:-50]
                LOGGER.warning("emulated Pico: %s", text)
        if not self._stopping:
            LOGGER.error("the emulated Pico exited (code %s): %s", proc.poll(),
                         " | ".join(self.stderr_tail[-5:]))

    def _read_err(self) -> None:
        proc = self._proc
        if proc is None or proc.stderr is None:
            return
        for raw in proc.stderr:
            text = raw.decode(errors="replace").rstrip()
            if text:
                self.stderr_tail.append(text)
                del self.stderr_tail[:-50]
                LOGGER.debug("emulated Pico stderr: %s", text)

    def _bridge(self) -> None:
        """The host's writes on the port go to the device's CDC OUT endpoint."""
        while not self._stopping:
            pty = self._pty
            port_fds = pty.selectables() if pty is not None else []
            fds: list[Selectable] = [self._wake_r, *port_fds]
            try:
                ready, _, _ = select.select(fds, [], [], 1.0)
            except (OSError, ValueError):
                time.sleep(0.01)
                continue  # the port closed between lookup and select (unplug)
            if self._wake_r in ready:
                _drain(self._wake_r)
            if pty is not None and any(fd in ready for fd in port_fds):
                data = pty.read()
                if data:
                    try:
                        self.send("W " + data.hex())
                    except VirtualBoardError:
                        return
