# mypy: ignore-errors
# (MicroPython dialect, run only by the unix port: no annotations by design.)
"""The virtual board's MicroPython process: the real firmware on the simulated HAL.

Run by ``VirtualBoard(mode="micropython")`` as::

    micropython -X heapsize=192k mp_entry.py CONTROL_FD

with the folder holding the installed ``meridian_fw`` on MICROPYPATH. stdin/stdout are the serial line (the host
bridges them to a pty). CONTROL_FD is a pipe carrying control lines from the host.
The first is JSON ``{"config": {...}, "closed": [pos, ...]}`` (the firmware config
and the switches closed at boot; not argv, which this unix port cannot take long).
Then ``S <pos> <0|1>`` (set a switch), ``R`` (reset the Pico) and ``Q`` (quit); EOF
also quits. Every rendered LED frame goes to stderr as ``L <frames> <hex strip
bytes>``, so the host reads back exactly what the firmware rendered; ``B <boot>``
says the firmware booted.

Written in the MicroPython dialect (it never runs on CPython).
"""

import json
import select
import sys

from meridian_fw.app import App
from meridian_fw.hal.sim import SimHal

_OUT = sys.stderr


class _Serial:
    """stdin/stdout as the firmware's serial: never blocks on read."""

    def __init__(self, poller):
        self._poll = poller
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer

    def read_byte(self):
        for obj, ev in self._poll.poll(0):
            if obj is sys.stdin and ev & select.POLLIN:
                b = self._in.read(1)
                if b:
                    return b[0]
        return -1

    def write(self, buf):
        self._out.write(buf)
        self._out.flush()


class _Strip:
    """Wraps the simulated strip to report every rendered frame to the host."""

    def __init__(self, hal, inner):
        self._hal = hal
        self._inner = inner
        self.buf = inner.buf

    def show(self):
        self._inner.show()
        hal = self._hal
        raw = hal.raw_frame()
        _OUT.write("L " + str(hal.frames) + " " + raw.hex().upper() + "\n")


class _Hal(SimHal):
    """SimHal whose idle() waits on the serial and the control pipe (no busy loop)."""

    def __init__(self, config, serial, control, world):
        SimHal.__init__(self, config, serial)
        self._control = control
        self._world = world

    def make_strip(self, config):
        return _Strip(self, SimHal.make_strip(self, config))

    def idle(self, ms):
        for obj, _ev in self._world.poller.poll(ms if ms > 0 else 0):
            if obj is self._control:
                self._read_control()

    def _read_control(self):
        # One whole line per wake-up: the host writes whole lines, and read(n) on this
        # port waits for all n bytes, so never ask for more than the line.
        line = self._control.readline()
        if not line:
            self._world.quit()
            return
        self._world.command(line.decode())


class World:
    """The simulated world around the Pico: switch states survive a reset."""

    def __init__(self, control_fd):
        self.control = open("/dev/fd/" + str(control_fd), "rb")
        first = self.control.readline()
        if not first:
            raise SystemExit(2)
        setup = json.loads(first)
        self.config = setup["config"]
        self.closed = setup["closed"]
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)
        self.poller.register(self.control, select.POLLIN)
        self.serial = _Serial(self.poller)
        self.app = None
        self.hal = None
        self.running = True
        self.resetting = False

    def boot(self):
        self.hal = _Hal(self.config, self.serial, self.control, self)
        for pos in self.closed:
            self.hal.set_pos(pos, True)
        self.app = App(self.hal, self.config)
        _OUT.write("B " + str(self.hal.boot_id()) + "\n")

    def command(self, line):
        parts = line.split()
        if not parts:
            return
        if parts[0] == "S" and len(parts) == 3:
            pos = int(parts[1])
            closed = parts[2] == "1"
            try:
                self.hal.set_pos(pos, closed)
            except ValueError as e:
                _OUT.write("E " + str(e) + "\n")
                return
            if closed and pos not in self.closed:
                self.closed.append(pos)
            elif not closed and pos in self.closed:
                self.closed.remove(pos)
        elif parts[0] == "R":
            self.resetting = True
            self.app.stop()
        elif parts[0] == "Q":
            self.quit()

    def quit(self):
        self.running = False
        if self.app is not None:
            self.app.stop()

    def run(self):
        while self.running:
            self.resetting = False
            self.boot()
            self.app.run()
            if self.running and not self.resetting:
                self.halted()
        _OUT.write("Q\n")

    def halted(self):
        """The firmware gave the REPL back (REPL frame): like a Pico at its prompt,
        swallow the host's bytes and wait for a reset or quit."""
        _OUT.write("H\n")
        while self.running and not self.resetting:
            for obj, ev in self.poller.poll(1000):
                if obj is self.control:
                    self.hal._read_control()
                elif ev & select.POLLIN:
                    sys.stdin.buffer.read(1)


def main():
    World(int(sys.argv[1])).run()


main()
