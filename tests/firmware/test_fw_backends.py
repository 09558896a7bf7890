"""The rp2 backend against fake machine/neopixel, the CircuitPython backend against the
real Adafruit neopixel library, the 74HC165 scanner, and config validation."""

import sys

from fwkit import MICROPYTHON, config

from meridian_fw.config import parse_config, validate
from meridian_fw.scan import ShiftRegisterScanner


def _swap_modules(names, modules):
    saved = {}
    for name in names:
        saved[name] = sys.modules.get(name)
        if modules.get(name) is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = modules[name]
    return saved


def _fakes_dir():
    return __file__.replace("\\", "/").rsplit("/", 1)[0] + "/fakes"


def _rp2_modules():
    """machine and neopixel fakes (already on the path under MicroPython)."""
    if MICROPYTHON:
        import machine
        import neopixel
        return machine, neopixel
    import importlib.util

    out = []
    for name in ("machine", "neopixel"):
        spec = importlib.util.spec_from_file_location(name, _fakes_dir() + "/" + name + ".py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out.append(mod)
    return out[0], out[1]


class _Stream:
    """A MicroPython-shaped stream over a pipe: readinto(buf, n) and write(buf, n)."""

    def __init__(self, fd):
        self.fd = fd
        self.data = bytearray()

    def fileno(self):
        return self.fd

    def readinto(self, buf, n):
        import os
        b = os.read(self.fd, n)
        buf[0:len(b)] = b
        return len(b)

    def write(self, buf, n):
        self.data.extend(bytes(buf)[0:n])
        return n


def _select_with_ipoll():
    """CPython's select, plus MicroPython's ``poll.ipoll`` (the rp2 HAL uses it: ``poll``
    allocates a list on every call on the rp2 port)."""
    import select as real
    import types

    class _Poll:
        def __init__(self):
            self._p = real.poll()

        def register(self, obj, mask=real.POLLIN):
            self._p.register(obj, mask)

        def poll(self, timeout=-1):
            return self._p.poll(timeout)

        def ipoll(self, timeout=-1):
            return iter(self._p.poll(timeout))

    mod = types.ModuleType("select")
    mod.poll = _Poll
    mod.POLLIN = real.POLLIN
    mod.POLLOUT = real.POLLOUT
    return mod


def test_rp2_backend_scans_with_one_register_read_and_writes_grb():
    if MICROPYTHON:
        return  # the rp2 HAL's pipes are CPython's; its scanner runs under both in the bench
    import os

    machine, neopixel = _rp2_modules()
    saved = _swap_modules(("machine", "neopixel", "select", "meridian_fw.hal.rp2"),
                          {"machine": machine, "neopixel": neopixel,
                           "select": _select_with_ipoll()})
    r, w = os.pipe()
    r2, w2 = os.pipe()
    try:
        from meridian_fw.app import App
        from meridian_fw.hal.rp2 import Rp2Hal

        cfg = config(row_pins=[0, 1, 2, 3], col_pins=[4, 5, 6, 7, 8], rows=4, cols=5,
                     leds=3, led_pin=22, brightness=255, budget_ma=10000, settle_us=0)
        machine.wire_matrix(cfg["row_pins"], cfg["col_pins"])
        machine.close(2, 3)
        out = _Stream(w2)
        hal = Rp2Hal(stdin=_Stream(r), stdout=out)
        app = App(hal, cfg)
        assert app.problem is None
        assert app.debouncer.state == [0, 0, 0b1000, 0]
        before = machine.reads[0]
        app.scanner.scan(app._raw)
        assert machine.reads[0] - before == 4      # one GPIO_IN read per row
        os.write(w, b"WHO 1*" + b"%04X" % 0 + b"\n")
        from meridian_fw import wire
        os.write(w, wire.encode("PLAN", 2, [1, 3, "000000O,FF0000S"]))
        os.write(w, wire.encode("PIX", 3, [1, 0, "101"]))
        os.write(w, wire.encode("SHOW", 4, [1]))
        app.leds.boot = False
        for _ in range(5):
            app.step()
        text = bytes(out.data).decode()
        assert "HELLO" in text and "SHOWN" in text
        assert neopixel.written[-1] == bytes((0, 255, 0, 0, 0, 0, 0, 255, 0))
        # Columns on scattered pins fall back to pin-by-pin reads.
        cfg2 = config(row_pins=[0, 1], col_pins=[9, 4], rows=2, cols=2, leds=0, settle_us=0)
        machine.wire_matrix(cfg2["row_pins"], cfg2["col_pins"])
        machine.close(1, 0)
        scanner = hal.make_scanner(validate(cfg2)[0])
        masks = [0, 0]
        scanner.scan(masks)
        assert masks == [0, 1]
    finally:
        _swap_modules(("machine", "neopixel", "select", "meridian_fw.hal.rp2"), saved)
        for fd in (r, w, r2, w2):
            os.close(fd)


def test_circuitpython_backend_drives_the_real_adafruit_neopixel_library():
    if MICROPYTHON:
        return  # adafruit-circuitpython-neopixel is a CPython package here
    import importlib
    import importlib.util

    cpdir = __file__.replace("\\", "/").rsplit("/", 1)[0] + "/cpfakes"
    fakes = {}
    for name in ("board", "digitalio", "neopixel_write", "usb_cdc", "keypad"):
        spec = importlib.util.spec_from_file_location(name, cpdir + "/" + name + ".py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        fakes[name] = mod
    names = ("board", "digitalio", "neopixel_write", "usb_cdc", "keypad", "neopixel",
             "meridian_fw.hal.circuitpy", "meridian_fw.hal.cpkeys")
    saved = _swap_modules(names, fakes)
    try:
        import neopixel
        assert neopixel.__version__ == "6.4.2"   # the real Adafruit library
        from meridian_fw.app import App
        from meridian_fw.clock import FakeClock
        from meridian_fw.hal.circuitpy import CircuitPyHal

        clock = FakeClock()
        serial = fakes["usb_cdc"].Serial()
        hal = CircuitPyHal(serial=serial, ticks_ms=clock.ticks_ms, sleep=lambda s: None)
        cfg = config(rows=2, cols=2, row_pins=[0, 1], col_pins=[2, 3], leds=2, led_pin=16,
                     brightness=255, budget_ma=10000, settle_us=0)
        fakes["digitalio"].levels["GP3"] = False   # column 1 pulled low by ... every row
        cfg["cp_scanner"] = "digitalio"            # the portable scanner, kept for boards
        app = App(hal, cfg)
        assert app.problem is None and hal.scanner_kind == "digitalio"
        assert app.debouncer.state == [0b10, 0b10]
        from meridian_fw import wire
        serial.incoming += wire.encode("PLAN", 1, [1, 2, "000000O,123456S"])
        serial.incoming += wire.encode("PIX", 2, [1, 0, "10"])
        serial.incoming += wire.encode("SHOW", 3, [1])
        app.leds.boot = False
        for _ in range(40):
            app.step()
        assert b"SHOWN" in bytes(serial.outgoing)
        pin, data = fakes["neopixel_write"].calls[-1]
        assert pin.pin.name == "GP16"
        assert data == bytes((0x34, 0x12, 0x56, 0, 0, 0))   # GRB bytes on the wire
        app.deinit()
        assert fakes["neopixel_write"].calls[-1][1] == bytes(6)
        # The default: keypad.KeyMatrix scans; its events become SENSE frames.
        del cfg["cp_scanner"]
        fakes["digitalio"].levels.clear()
        serial = fakes["usb_cdc"].Serial()
        hal = CircuitPyHal(serial=serial, ticks_ms=clock.ticks_ms, sleep=lambda s: None)
        app = App(hal, cfg)
        assert hal.scanner_kind == "keypad"
        km = fakes["keypad"].matrices[-1]
        assert [p.name for p in km.row_pins] == ["GP0", "GP1"]
        assert [p.name for p in km.column_pins] == ["GP2", "GP3"]
        km.press(3)            # row 1, column 1
        for _ in range(40):
            app.step()
            clock.advance(1)
        frames = [wire.decode(line + b"\n") for line in bytes(serial.outgoing).split(b"\n")
                  if line.startswith(b"SENSE")]
        assert [(f.fields[1], f.fields[2]) for f in frames][:1] == [("3", "1")], frames
        app.deinit()
        assert km.deinited
    finally:
        _swap_modules(names, saved)


class _Pin:
    def __init__(self, level=1):
        self.level = level
        self.log = []

    def value(self, v=None):
        if v is None:
            return self.level
        self.log.append(v)
        return None


def test_shift_register_chain_maps_bit_i_to_position_i():
    closed = {1, 9, 14}
    state = {"bit": 0}
    load = _Pin()
    clk = _Pin()

    class Data:
        def value(self):
            return 0 if state["bit"] in closed else 1

    class Clock(_Pin):
        def value(self, v=None):
            if v == 1:
                state["bit"] += 1
            return _Pin.value(self, v)

    clk = Clock()
    scanner = ShiftRegisterScanner(load, clk, Data(), 16, 3, 5, lambda us: None)
    masks = [0, 0, 0]
    scanner.scan(masks)
    assert masks == [0b00010, 0b10000, 0b10000]
    assert load.log[-2:] == [0, 1]


def test_config_problems_name_the_key():
    assert validate(config())[1] is None
    cases = [
        (config(rows=0), ("rows", "bad_value")),
        (config(cols=31), ("cols", "bad_value")),
        (config(row_pins=[1, 2]), ("row_pins", "bad_value")),
        (config(brightness=True), ("brightness", "bad_value")),
        (config(scanner="spi"), ("scanner", "bad_value")),
        (config(led_order="RGX"), ("led_order", "bad_value")),
        (config(buttons=[144]), ("buttons", "bad_value")),
        (config(scanner="sr165", sr={"load": 1, "clk": 2, "data": 3, "bits": 140}),
         ("sr.bits", "bad_value")),
        (config(rows=32, cols=30, row_pins=list(range(32))), ("rows", "snap_too_long")),
    ]
    for cfg, want in cases:
        assert validate(cfg)[1] == want, (cfg, want)
    cfg = config()
    del cfg["board"]
    assert validate(cfg)[1] == ("board", "missing")
    assert parse_config("{not json")[1] == ("config.json", "not_json")
    assert validate([1, 2])[1] == ("config", "bad_value")
    ok = validate(config(scanner="sr165", sr={"load": 1, "clk": 2, "data": 3, "bits": 144},
                         row_pins=None, col_pins=None))
    assert ok[1] is None and ok[0]["debounce_scans"] == 4


def _keypad_fake():
    """The fake CircuitPython keypad, as the module ``keypad`` (both interpreters)."""
    cpdir = __file__.replace("\\", "/").rsplit("/", 1)[0] + "/cpfakes"
    if MICROPYTHON:
        sys.path.append(cpdir)
        try:
            sys.modules.pop("keypad", None)
            import keypad
        finally:
            sys.path.remove(cpdir)
        return keypad
    import importlib.util

    spec = importlib.util.spec_from_file_location("keypad", cpdir + "/keypad.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_keypad_scanner_turns_keymatrix_events_into_row_masks():
    keypad = _keypad_fake()
    saved = _swap_modules(("keypad", "meridian_fw.hal.cpkeys"), {"keypad": keypad})
    try:
        from meridian_fw.hal.cpkeys import KeypadScanner

        scanner = KeypadScanner(["r0", "r1", "r2"], ["c0", "c1", "c2", "c3"], 2, 4)
        km = keypad.matrices[-1]
        # The diodes as drawn (anode to the column), the loop's period and debounce.
        assert km.columns_to_anodes and km.interval == 0.002 and km.debounce_threshold == 4
        masks = [0, 0, 0]
        km.press(6)            # row 1, column 2: position 6, as the firmware numbers it
        km.press(11)           # row 2, column 3
        scanner.scan(masks)
        assert masks == [0, 0b0100, 0b1000]
        km.press(6, False)
        scanner.scan(masks)
        assert masks == [0, 0, 0b1000]
        # An overflowed queue: the state is rebuilt from what is still closed.
        km.events.overflowed = True
        km.closed.add(0)
        scanner.scan(masks)
        assert masks == [0b0001, 0, 0b1000] and not km.events.overflowed
        scanner.deinit()
        assert km.deinited
    finally:
        _swap_modules(("keypad", "meridian_fw.hal.cpkeys"), saved)


def test_keypad_scan_allocates_nothing():
    if not MICROPYTHON:
        return  # heap_lock exists only on MicroPython; mptest runs this for real
    import micropython

    keypad = _keypad_fake()
    saved = _swap_modules(("keypad", "meridian_fw.hal.cpkeys"), {"keypad": keypad})
    try:
        from meridian_fw.hal.cpkeys import KeypadScanner

        scanner = KeypadScanner(["r0", "r1"], ["c0", "c1"], 2, 4)
        masks = [0, 0]
        scan = scanner.scan
        micropython.heap_lock()
        try:
            scan(masks)
            scan(masks)
        finally:
            micropython.heap_unlock()
        assert masks == [0, 0]
    finally:
        _swap_modules(("keypad", "meridian_fw.hal.cpkeys"), saved)
