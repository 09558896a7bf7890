"""The main loop: no allocation per iteration, exceptions caught, config faults, REPL."""

import json
import sys

from fwkit import MICROPYTHON, NEAR_WRAP, FakeSerial, config, make_app, run_ms

from meridian_fw.app import App, boot
from meridian_fw.clock import FakeClock
from meridian_fw.config import load_config
from meridian_fw.hal.sim import SimHal
from meridian_fw.leds import MODE_FAULT, MODE_PLAN
from meridian_fw.link import EXC


class Sink:
    """A serial that keeps nothing, so writing cannot allocate."""

    def __init__(self):
        self.bytes = 0

    def read_byte(self):
        return -1

    def write(self, buf):
        self.bytes += len(buf)


def _warm(app, hal, ser, clock):
    """Exercise every path once so lazily made objects (SimHal write views) exist."""
    real = hal._serial
    hal._serial = Sink()
    for n in range(1, 251):
        hal.write(app.link.enc.buf, n)
    hal._serial = real
    ser.send("PLAN", 1, [1, 20, "000000O,FF0000P,00FF00B"])
    ser.send("PIX", 2, [1, 0, "12" * 10])
    ser.send("SHOW", 3, [1])
    run_ms(app, clock, 1200)


def test_one_loop_iteration_allocates_nothing():
    if not MICROPYTHON:
        return  # heap_lock exists only on MicroPython; mptest runs this for real
    import micropython

    app, hal, ser, clock = make_app()
    _warm(app, hal, ser, clock)

    sink = Sink()
    hal._serial = sink
    step = app.step
    advance = clock.advance
    set_pos = hal.set_pos
    ok = 0
    # 400 ms of loop: a switch closes (scan, debounce, SENSE queued and written),
    # the pulse and blink effects animate, the link polls, beats and resends.
    micropython.heap_lock()
    try:
        for i in range(400):
            if i == 10:
                set_pos(77, True)
            if i == 200:
                set_pos(77, False)
            step()
            advance(1)
            ok += 1
    finally:
        micropython.heap_unlock()
    assert ok == 400
    assert app.exceptions == 0
    assert app.link.last_seq == 2
    assert sink.bytes > 0
    assert hal.frames > 1


def test_exception_in_the_loop_is_counted_and_reported():
    class Flaky:
        rows = 12
        cols = 12

        def __init__(self, real):
            self.real = real
            self.fail = 2

        def scan(self, masks):
            if self.fail:
                self.fail -= 1
                raise OSError(5)
            self.real.scan(masks)

        def deinit(self):
            self.real.deinit()

    app2, hal2, ser2, clock2 = make_app()
    app2.scanner = Flaky(app2.scanner)
    ser2.frames()

    calls = [0]
    real_idle = hal2.idle

    def idle(ms):
        calls[0] += 1
        if calls[0] == 30:
            ser2.send("REPL", 9)
        real_idle(ms)

    hal2.idle = idle
    app2.run()
    frames = ser2.frames()
    faults = [f.fields for f in frames if f.type == "FAULT"]
    assert ["EXC", "OSError"] in faults
    assert app2.link.counters[EXC] == 2 and app2.exceptions == 2
    assert frames[-1].type == "BYE" and frames[-1].fields == ["repl"]
    assert hal2.frame() == [(0, 0, 0)] * 20  # LEDs blanked for the REPL


def test_missing_config_file_gives_fault_and_blink_not_a_dead_board():
    cfg, problem = load_config("/nonexistent/config.json")
    assert cfg is None and problem == ("config.json", "missing")
    clock = FakeClock(start=(1 << 30) - 10)
    ser = FakeSerial()
    hal = SimHal(None, ser, clock)
    app = App(hal, cfg, problem)
    run_ms(app, clock, 50)
    frames = ser.frames()
    assert frames[0].type == "HELLO" and frames[0].fields[2] == "unconfigured"
    assert ["CONFIG", "config.json", "missing"] in [f.fields for f in frames if f.type == "FAULT"]
    # It keeps answering the host.
    ser.send("PING", 1, ["x"])
    run_ms(app, clock, 5)
    assert [f.fields for f in ser.frames("PONG")] == [["x"]]


def test_bad_key_blinks_the_fault_pattern_on_the_strip():
    cfg = config(debounce_scans=99)
    app, hal, ser, clock = make_app(cfg)
    run_ms(app, clock, 100)
    faults = [f.fields for f in ser.frames("FAULT")]
    assert ["CONFIG", "debounce_scans", "bad_value"] in faults
    assert app.leds.mode == MODE_FAULT
    lit = [i for i, px in enumerate(hal.frame()) if px != (0, 0, 0)]
    assert lit == list(range(8)) and hal.frame()[0][0] > 0
    run_ms(app, clock, 500)
    assert hal.frame()[0] == (0, 0, 0)   # blinking: off half the time
    run_ms(app, clock, 1000)
    assert ["CONFIG", "debounce_scans", "bad_value"] in [f.fields for f in ser.frames("FAULT")]


def test_unknown_led_driver_is_reported_by_its_own_key():
    app, hal, ser, clock = make_app(config(led_driver="ws2811"))
    run_ms(app, clock, 100)
    faults = [f.fields for f in ser.frames("FAULT")]
    assert ["CONFIG", "led_driver", "bad_value"] in faults


def test_pieces_standing_at_boot_are_in_the_first_snap():
    cfg = config()
    clock = FakeClock(start=(1 << 30) - 5)
    ser = FakeSerial()
    hal = SimHal(cfg, ser, clock)
    hal.set_pos(0, True)
    hal.set_pos(143, True)
    app = App(hal, cfg)
    frames = ser.frames()
    assert [f.type for f in frames[:2]] == ["HELLO", "SNAP"]
    snap = frames[1].fields
    assert snap[0] == "0" and snap[1] == "12"
    assert snap[2] == "001" and snap[13] == "800"
    run_ms(app, clock, 50)
    assert ser.frames("SENSE") == []
    assert app.leds.mode != MODE_PLAN or app.link.host_lost is False


def _board(cfg):
    """Write ``cfg`` as a config.json file for boot(); returns its path."""
    path = "/tmp/meridian-fw-boot-" + sys.implementation.name + ".json"
    with open(path, "w") as f:
        f.write(json.dumps(cfg))
    return path


def test_boot_reads_the_config_file_and_frees_the_boot_only_code():
    path = _board(config(leds=20))
    serials = []

    def factory(cfg):
        serials.append(FakeSerial())
        return SimHal(cfg, serials[-1], FakeClock(start=NEAR_WRAP))

    app = boot(path, factory)
    assert app.problem is None and (app.rows, app.cols) == (12, 12)
    frames = serials[0].frames()
    assert [f.type for f in frames[:2]] == ["HELLO", "SNAP"]
    assert frames[0].fields[2] == "test-12" and frames[0].fields[5] == "20"
    if MICROPYTHON:
        # The parser and the HAL chooser left memory; they import again when needed.
        assert "meridian_fw.config" not in sys.modules
        assert "meridian_fw.hal" not in sys.modules
        from meridian_fw.config import validate
        assert validate(config())[1] is None
        from meridian_fw.hal import backend_name
        assert backend_name() == "sim"
    else:
        assert "meridian_fw.config" in sys.modules   # the host shares it on CPython
    app.hal.set_pos(5, True)
    run_ms(app, app.clock, 20)
    assert [f.fields[1:] for f in serials[0].frames("SENSE")] == [["5", "1"]]


def test_boot_without_a_config_file_runs_in_fault_mode():
    serials = []

    def factory(cfg):
        assert cfg is None
        serials.append(FakeSerial())
        return SimHal(cfg, serials[-1], FakeClock(start=NEAR_WRAP))

    app = boot("/nonexistent/config.json", factory)
    assert app.problem == ("config.json", "missing") and app.leds.fault
    faults = [f.fields for f in serials[0].frames("FAULT")]
    assert faults == [["CONFIG", "config.json", "missing"]]


def test_boot_reports_a_bad_key_from_the_file():
    path = _board(config(rows=0))
    serials = []

    def factory(cfg):
        serials.append(FakeSerial())
        return SimHal(cfg, serials[-1], FakeClock(start=NEAR_WRAP))

    app = boot(path, factory)
    assert app.problem == ("rows", "bad_value") and app.leds.fault
    assert ["CONFIG", "rows", "bad_value"] in [f.fields for f in serials[0].frames("FAULT")]
