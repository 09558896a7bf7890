"""The main loop: scan, debounce, report, light, talk. Catches everything at its boundary.

``App(hal, config, problem=None)`` builds every part from the HAL and the config;
``step()`` runs one loop iteration and allocates nothing; ``run()`` loops until the
host sends REPL or ``stop()`` is called. A bad config gives a running board that
says ``FAULT CONFIG <key> <reason>`` and blinks the fault pattern.
"""

import gc
import sys

from meridian_fw import FW_VERSION  # noqa: F401  (re-exported for the HAL and tools)
from meridian_fw.debounce import Debouncer
from meridian_fw.ghost import GhostGuard
from meridian_fw.leds import Leds
from meridian_fw.link import EXC, GHOST, SCANS, Link

_HEX = "0123456789ABCDEF"
COUNTER_WRAP = 0x3FFFFFFF  # counters stay small ints on the RP2040


def _token(s, fallback):
    if isinstance(s, str) and 0 < len(s) <= 32:
        for ch in s:
            if not 33 <= ord(ch) <= 126 or ch == "*":
                return fallback
        return s.encode()
    return fallback


def _int_or(cfg, key, fallback, lo, hi):
    if cfg is None or key not in cfg:
        return fallback
    v = cfg[key]
    if type(v) is int and lo <= v <= hi:
        return v
    return fallback


class App:
    """Everything the Pico does, driven by ``step()``."""

    def __init__(self, hal, config, problem=None):
        self.hal = hal
        self.clock = clock = hal.clock
        self.setup_error = None
        if problem is None:
            # Imported here, not at the top: boot() drops the config code after boot.
            from meridian_fw.config import validate
            config, problem = validate(config)
        cfg = config
        self.config = cfg
        self.problem = problem
        ok = problem is None
        self.rows = rows = _int_or(cfg, "rows", 0, 1, 32) if ok else 0
        self.cols = cols = _int_or(cfg, "cols", 0, 1, 30) if ok else 0
        # LEDs: even with a bad config, light the fault pattern if the strip is usable.
        nleds = _int_or(cfg, "leds", 0, 0, 1024)
        strip = None
        if nleds and _int_or(cfg, "led_pin", -1, 0, 47) >= 0:
            try:
                strip = hal.make_strip(cfg)
            except Exception as e:  # a pin the port refuses: report it, keep running
                self.setup_error = e
                strip = None
                if ok:
                    problem = ("led_pin", "bad_pin")
                    ok = False
        if strip is None:
            nleds = 0
        self.leds = Leds(
            nleds, strip, clock,
            order=cfg["led_order"] if ok else "GRB",
            brightness=cfg["brightness"] if ok else 64,
            budget_ma=cfg["budget_ma"] if ok else 400,
            ma_per_channel=cfg["ma_per_channel"] if ok else 20,
            idle_ma_per_led=cfg["idle_ma_per_led"] if ok else 1,
        )
        self.scanner = None
        if ok:
            try:
                self.scanner = hal.make_scanner(cfg)
            except Exception as e:  # kept for the REPL: app.setup_error
                self.setup_error = e
                self.scanner = None
                problem = ("row_pins" if cfg["scanner"] == "matrix" else "sr", "bad_pin")
                ok = False
        if not ok:
            rows = cols = 0
            self.rows = self.cols = 0
        self.problem = problem
        n = rows if rows else 1
        self._raw = [0] * n
        self._changed = [0] * n
        self.debouncer = Debouncer(n, cfg["debounce_scans"] if ok else 1)
        self.ghost = GhostGuard(n, cols, ok and not cfg["diodes"])
        self._period = cfg["scan_period_ms"] if ok else 10
        caps = b"sense,plan,snap,repl"
        if ok and not cfg["diodes"]:
            caps += b",ghost"
        if ok and cfg["scanner"] == "sr165":
            caps += b",sr165"
        board = _token(cfg.get("board") if isinstance(cfg, dict) else None, b"unconfigured")
        boot = hal.boot_id()
        token = bytearray(8)
        for i in range(8):
            token[i] = ord(_HEX[(boot >> (28 - 4 * i)) & 0xF])
        self.link = Link(hal, clock, self.leds, self.ghost.reported, rows, cols,
                         board, caps, bytes(token), nleds)
        self._stop = False
        self.exceptions = 0
        self.last_exception = None
        if ok:
            self._settle_initial()
        self._next_scan = clock.ticks_ms()
        self.link.send_hello()
        self.link.send_snap()
        if not ok:
            self.leds.fault = True
            self.link.set_config_fault(problem[0].encode(), problem[1].encode())
        hal.status_led(True)

    def _settle_initial(self):
        """Read the board until the debouncer settles, so pieces already standing at
        boot are in the first SNAP instead of a burst of SENSE events."""
        deb = self.debouncer
        for _ in range(deb.n):
            self.scanner.scan(self._raw)  # type: ignore[union-attr]  # ok: a scanner
            deb.update(self._raw, self._changed)
            self.clock.sleep_ms(self._period)
        changed = self._changed
        for r in range(self.rows):
            changed[r] = deb.state[r]
        self.ghost.filter(deb.state, changed)
        self._report_ghosts()

    # --- the loop ------------------------------------------------------------------------

    def step(self):
        """One loop iteration: scan when due, report changes, poll the link, step the LEDs."""
        clock = self.clock
        now = clock.ticks_ms()
        if self.scanner is not None and clock.ticks_diff(now, self._next_scan) >= 0:
            nxt = clock.ticks_add(self._next_scan, self._period)
            if clock.ticks_diff(now, nxt) >= 0:
                nxt = clock.ticks_add(now, self._period)  # fell behind: no burst of scans
            self._next_scan = nxt
            self._scan(now)
        self.link.poll(now)
        self.leds.step(now)

    def _scan(self, now):
        self.scanner.scan(self._raw)  # type: ignore[union-attr]  # step() checked it
        counters = self.link.counters
        counters[SCANS] = (counters[SCANS] + 1) & COUNTER_WRAP
        if self.debouncer.update(self._raw, self._changed):
            if self.ghost.filter(self.debouncer.state, self._changed):
                self._report(now)
            if self.ghost.holding:
                self._report_ghosts()

    def _report(self, now):
        changed = self._changed
        reported = self.ghost.reported
        cols = self.cols
        link = self.link
        for r in range(self.rows):
            m = changed[r]
            if m:
                base = r * cols
                for c in range(cols):
                    bit = 1 << c
                    if m & bit:
                        link.queue_event(now, base + c, reported[r] & bit)

    def _report_ghosts(self):
        faults = self.ghost.new_faults
        cols = self.cols
        for r in range(self.rows):
            m = faults[r]
            if m:
                for c in range(cols):
                    if m & (1 << c):
                        self.link.counters[GHOST] += 1
                        self.link.send_fault(b"GHOST", r * cols + c)
                faults[r] = 0

    def run(self):
        """Loop until the host sends REPL or stop() is called. Never dies of an exception."""
        self._stop = False
        clock = self.clock
        while not self._stop and not self.link.stop_requested:
            try:
                self.step()
                wait = clock.ticks_diff(self._next_scan, clock.ticks_ms())
                if wait > 0:
                    self.hal.idle(wait if wait < self._period else self._period)
            except Exception as e:  # the loop boundary: count, report, go on
                self._caught(e)
        self.deinit()

    def _caught(self, e):
        try:
            self.exceptions += 1
            self.last_exception = e
            self.link.counters[EXC] += 1
            self.link.send_fault(b"EXC", type(e).__name__.encode())
        except Exception:  # even reporting failed (e.g. MemoryError): keep looping
            pass

    def stop(self):
        """Ask run() to return after the current iteration (for threads and tests)."""
        self._stop = True

    def deinit(self):
        """Blank the LEDs and release the pins; the REPL gets a quiet board."""
        try:
            self.leds.off()
            if self.scanner is not None:
                self.scanner.deinit()
            self.hal.status_led(False)
            self.hal.deinit()
        except Exception:
            pass


def _forget(name):
    """Drop a boot-only module so the collector frees its bytecode (MicroPython only).

    CPython keeps it: there the host shares the module (profiles use the validator),
    and its memory does not matter.
    """
    if sys.implementation.name == "cpython" or name not in sys.modules:
        return
    del sys.modules[name]
    dot = name.rfind(".")
    parent = sys.modules.get(name[:dot])
    if parent is not None:
        try:
            delattr(parent, name[dot + 1:])
        except (AttributeError, TypeError):  # a port that refuses it: only memory is lost
            pass


def boot(config_path="config.json", hal_factory=None):
    """Load the config, make the HAL, build the App; then free the boot-only code.

    ``hal_factory(config)`` defaults to ``meridian_fw.hal.make_hal``. The config
    parser and the HAL chooser run once, so their modules leave ``sys.modules`` and
    their bytecode is collected before the loop starts (3.6 KB on the unix port). A
    bad or missing config still gives a running App in fault mode: the problem is
    already held as bytes by the link, nothing needs the parser again.
    """
    from meridian_fw.config import load_config

    config, problem = load_config(config_path)
    if hal_factory is None:
        from meridian_fw.hal import make_hal as hal_factory
    app = App(hal_factory(config), config, problem)
    # Let go of the functions too: each one keeps its whole module alive.
    del hal_factory, load_config
    _forget("meridian_fw.config")
    _forget("meridian_fw.hal")
    gc.collect()
    return app


def main(config_path="config.json"):
    """The Pico's entry point (meridian_fw/main.py, the Pico's main.py): boot, then loop until REPL."""
    app = boot(config_path)
    app.run()
    return app
