"""`meridian-table bench link`: latency and idle cost of the host link, on the virtual board.

For each sim mode (the firmware in a CPython thread, and on the MicroPython unix port)
a real ``Link`` talks to the real firmware through a pty. Figures, per mode:

- ``sense_to_host_us_p50/_p99``: from the moment the firmware writes a SENSE frame to
  its serial line until the Link hands the event to its subscriber (pty, pyserial,
  decoding, exactly-once ordering). The debounce window is excluded by construction;
  ``sense_total_us_p50/_p99`` is the whole way from the switch closing, debounce
  included, next to ``debounce_window_us`` (debounce_scans x scan_period_ms);
- ``plan_to_led_us_p50/_p99``: from ``Link.send_plan`` until the firmware rendered the
  new frame (the virtual strip's ``show()``). This includes the firmware's frame pacing
  (it renders at most every 20 ms, and a new plan waits for the next frame slot:
  uniformly 0..20 ms, as plans are sent at random phases), so
  ``plan_to_shown_us_p50/_p99`` (until the board's SHOWN arrives back at the host,
  i.e. the plan is staged and swapped in) is given too;
- ``host_cpu_percent_idle``: CPU used by the Link's thread while connected and idle
  (pings and heartbeats only), from its thread CPU clock over a few seconds;
  ``process_cpu_percent_idle`` is the whole process (in CPython mode that includes
  the firmware thread itself, in MicroPython mode the pty bridge);
- reference, measured in the same run: ``port_line_us_p50`` is one line written on
  the virtual board's side of its port (``transport``: a pty, or the loopback socket
  where there is none) and read back by pyserial on the host's side;
  ``sense_to_host_ratio`` is ``sense_to_host_us_p50`` over it (the link's own overhead
  in units of a bare hop).

Targets on this machine: p99 under 5 ms in each direction, excluding the debounce
window (and, for LEDs, the frame pacing), and idle CPU under 2 %.
"""

from __future__ import annotations

import logging
import os
import random
import statistics
import threading
import time
from typing import Any

import serial

from meridian_fw import wire
from meridian_table.ledplan import SOLID, LedPlan, Light
from meridian_table.link import Link, SenseEvent, Snapshot
from meridian_table.link.events import LinkEvent
from meridian_table.sim import MODES, VirtualBoard
from meridian_table.sim.transport import choose, open_port

LOGGER = logging.getLogger(__name__)

NAME = "link"
#: The docstring's targets: p99 under 5 ms each way, idle CPU under 2 %.
TARGETS = {"sense_to_host_us_p99": ("<", 5000.0), "plan_to_shown_us_p99": ("<", 5000.0),
           "host_cpu_percent_idle": ("<", 2.0)}
HELP = "Link latency (switch -> host, plan -> LEDs) and idle CPU, on both virtual-board modes."

CONFIG: dict[str, Any] = {
    "board": "bench-8x8",
    "scanner": "matrix",
    "rows": 8,
    "cols": 8,
    "row_pins": list(range(8)),
    "col_pins": list(range(8, 16)),
    "led_pin": 22,
    "leds": 64,
    "brightness": 255,
    "budget_ma": 400,
    "debounce_scans": 4,
    "scan_period_ms": 2,
}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _summary(prefix: str, values_s: list[float]) -> dict[str, float]:
    us = [v * 1e6 for v in values_s]
    return {f"{prefix}_p50": round(_pct(us, 0.5), 1), f"{prefix}_p99": round(_pct(us, 0.99), 1)}


class _Waiter:
    """Collects link events and firmware SENSE write times, with a condition to wait on."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.delivered: dict[int, float] = {}
        self.emitted: dict[int, float] = {}
        self.frames: list[tuple[float, list[tuple[int, int, int]]]] = []
        self.snapshots = 0
        self._partial = b""

    def event(self, event: LinkEvent) -> None:
        now = time.perf_counter()
        with self.cond:
            if isinstance(event, SenseEvent):
                self.delivered[event.seq] = now
            elif isinstance(event, Snapshot):
                self.snapshots += 1
            self.cond.notify_all()

    def serial_out(self, data: bytes, when: float) -> None:
        # Chunks may hold several frames or part of one (MicroPython mode's pipe).
        data = self._partial + data
        *lines, self._partial = data.split(b"\n")
        for line in lines:
            if line.startswith(b"SENSE "):
                try:
                    seq = wire.decode(line).seq
                except wire.FrameError:
                    continue
                with self.cond:
                    self.emitted.setdefault(seq, when)

    def frame(self, frame: list[tuple[int, int, int]]) -> None:
        now = time.perf_counter()
        with self.cond:
            self.frames.append((now, frame))
            del self.frames[:-4]
            self.cond.notify_all()

    def wait(self, predicate: Any, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("bench link: the virtual board did not answer in time")
                self.cond.wait(left)


def _sense_latency(vb: VirtualBoard, waiter: _Waiter, samples: int
                   ) -> tuple[list[float], list[float]]:
    link_only: list[float] = []
    total: list[float] = []
    positions = vb.rows * vb.cols
    for k in range(samples):
        seq = k + 1
        pos = (k * 5) % positions
        started = time.perf_counter()
        vb.toggle(pos)
        waiter.wait(lambda s=seq: s in waiter.delivered)
        with waiter.cond:
            delivered = waiter.delivered[seq]
            emitted = waiter.emitted.get(seq)
        total.append(delivered - started)
        if emitted is not None:
            link_only.append(delivered - emitted)
    return link_only, total


def _plan_latency(vb: VirtualBoard, link: Link, waiter: _Waiter, samples: int
                  ) -> tuple[list[float], list[float]]:
    to_led: list[float] = []
    to_shown: list[float] = []
    n = vb.nleds
    rng = random.Random(3)
    for k in range(samples):
        # A random pause, so plans do not arrive phase-locked to the firmware's frame
        # clock (sent right after a frame, each would wait the whole 20 ms pacing).
        time.sleep(rng.uniform(0, 0.025))
        led = k % n
        colour = 0x100000 + (k % 200) * 0x101
        rgb = (colour >> 16, (colour >> 8) & 0xFF, colour & 0xFF)
        plan = LedPlan.from_mapping(n, {led: Light(colour, SOLID)})
        with waiter.cond:
            waiter.frames.clear()
        started = time.perf_counter()
        link.send_plan(plan)
        gen = link.plan_gen
        waiter.wait(lambda led=led, rgb=rgb: any(
            f[led] == rgb for _, f in waiter.frames))
        with waiter.cond:
            rendered = next(t for t, f in waiter.frames if f[led] == rgb)
        to_led.append(rendered - started)
        link.wait_shown(gen, timeout=5)
        rtt = link.stats()["last_plan_rtt_ms"]
        if rtt is not None:
            to_shown.append(rtt / 1000)
    return to_led, to_shown


def _idle_cpu(link: Link, seconds: float) -> tuple[float, float]:
    thread = getattr(link, "_thread", None)
    clock_id = None
    # A thread's own CPU clock is POSIX; elsewhere the link's share is not measured.
    if hasattr(time, "pthread_getcpuclockid") and thread and thread.ident:
        clock_id = time.pthread_getcpuclockid(thread.ident)
    t0 = time.monotonic()
    p0 = time.process_time()
    c0 = _thread_cpu(clock_id)
    time.sleep(seconds)  # idle on purpose: this is what is measured
    wall = time.monotonic() - t0
    link_cpu = (_thread_cpu(clock_id) - c0) if clock_id is not None else float("nan")
    process_cpu = time.process_time() - p0
    return 100 * link_cpu / wall, 100 * process_cpu / wall


def _thread_cpu(clock_id: int | None) -> float:
    if clock_id is not None and hasattr(time, "clock_gettime"):
        return time.clock_gettime(clock_id)
    return 0.0


def _port_reference(samples: int) -> list[float]:
    """A bare hop: a line written on the board's side, read by pyserial on the host's."""
    pty = open_port(choose())
    port = serial.serial_for_url(pty.path, timeout=1)
    times: list[float] = []
    try:
        line = wire.encode("SENSE", 1, (123, 4, 1))
        for _ in range(samples):
            started = time.perf_counter()
            pty.write(line)
            got = b""
            while not got.endswith(b"\n"):
                chunk = port.read(max(1, port.in_waiting))
                if not chunk:
                    raise TimeoutError("port reference read timed out")
                got += chunk
            times.append(time.perf_counter() - started)
    finally:
        port.close()
        pty.close()
    return times


def _run_mode(mode: str, samples: int, idle_s: float) -> dict[str, Any]:
    waiter = _Waiter()
    with VirtualBoard(CONFIG, mode=mode) as vb:  # type: ignore[arg-type]
        vb.tap_serial(waiter.serial_out)
        vb.on_frame(waiter.frame)
        with Link(vb.find_port, waiter.event) as link:
            link.wait_connected(10)
            waiter.wait(lambda: waiter.snapshots > 0)
            link.set_brightness(255)
            # Let the boot pattern end so plan frames are not hidden behind it.
            vb.wait_for(lambda f: all(c == (0, 0, 0) for c in f), timeout=5)
            sense, total = _sense_latency(vb, waiter, samples)
            to_led, to_shown = _plan_latency(vb, link, waiter, samples)
            cpu_link, cpu_process = _idle_cpu(link, idle_s)
            stats = link.stats()
    out: dict[str, Any] = {}
    out.update(_summary("sense_to_host_us", sense))
    out.update(_summary("sense_total_us", total))
    out["debounce_window_us"] = CONFIG["debounce_scans"] * CONFIG["scan_period_ms"] * 1000
    out.update(_summary("plan_to_led_us", to_led))
    out.update(_summary("plan_to_shown_us", to_shown))
    out["host_cpu_percent_idle"] = round(cpu_link, 3)
    out["process_cpu_percent_idle"] = round(cpu_process, 3)
    out["samples"] = samples
    out["duplicates"] = stats["duplicates"]
    out["crc_errors"] = stats["crc_errors"]
    if sense:
        out["sense_to_host_mean_us"] = round(statistics.fmean(sense) * 1e6, 1)
    return out


def run(options: dict[str, Any]) -> dict[str, Any]:
    """Both modes' figures, plus the port reference measured in the same run."""
    quick = bool(options.get("quick"))
    samples = 30 if quick else 200
    idle_s = 1.0 if quick else 3.0
    reference = _port_reference(samples)
    ref_p50_us = _pct(reference, 0.5) * 1e6
    figures: dict[str, Any] = {
        "port_line_us_p50": round(ref_p50_us, 1),
        "transport": choose(),
        "cpu_count": os.cpu_count(),
    }
    # The MicroPython unix port runs on POSIX systems only.
    modes = MODES if os.name == "posix" else ("cpython",)
    for mode in modes:
        result = _run_mode(mode, samples, idle_s)
        result["sense_to_host_ratio"] = round(result["sense_to_host_us_p50"] / ref_p50_us, 2)
        figures[mode] = result
    # The headline figures the issue asks for: the worse of the two modes.
    for key in ("sense_to_host_us_p50", "sense_to_host_us_p99", "plan_to_led_us_p50",
                "plan_to_led_us_p99", "plan_to_shown_us_p99", "host_cpu_percent_idle"):
        figures[key] = max(figures[m][key] for m in modes)
    return figures
