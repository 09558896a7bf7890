"""The rp2 backend's PIO WS2812 driver against the fake rp2 module (tests/firmware/fakes):
the program's bit timing, the words put (or fed by DMA) for a known frame, no
allocation per write, deinit, and the put and neopixel fallbacks."""

import sys

from fwkit import MICROPYTHON, NEAR_WRAP, config

from meridian_fw.clock import FakeClock
from meridian_fw.leds import Leds

_HAL_MODULES = ("meridian_fw.hal.rp2", "meridian_fw.hal.ws2812_pio")
_FAKES = ("machine", "neopixel", "rp2")


def _fakes_dir():
    return __file__.replace("\\", "/").rsplit("/", 1)[0] + "/fakes"


def _load_fake(name):
    if MICROPYTHON:
        return __import__(name)  # tools/mptest.py puts the fakes on the path
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, _fakes_dir() + "/" + name + ".py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class _Env:
    """Fresh fake machine/neopixel (and rp2 unless ``rp2=False``), then the HAL modules."""

    def __init__(self, rp2=True):
        self.saved = {}
        self.saved_path = list(sys.path)
        for name in _FAKES + _HAL_MODULES:
            self.saved[name] = sys.modules.get(name)
        for name in _HAL_MODULES + ("rp2",):
            sys.modules.pop(name, None)
        self.machine = _load_fake("machine")
        self.neopixel = _load_fake("neopixel")
        sys.modules["machine"] = self.machine
        sys.modules["neopixel"] = self.neopixel
        self.rp2 = None
        if rp2:
            self.rp2 = _load_fake("rp2")
            sys.modules["rp2"] = self.rp2
        else:
            # Make "import rp2" fail for real: the fakes directory leaves the path.
            for p in list(sys.path):
                if p.replace("\\", "/").endswith("/fakes"):
                    sys.path.remove(p)
        self.machine.wire_matrix([], [])
        from meridian_fw.hal import rp2 as hal_rp2
        self.hal_module = hal_rp2
        self.fds = []

    def hal(self):
        if MICROPYTHON:
            return self.hal_module.Rp2Hal()
        import os

        r, w = os.pipe()
        self.fds = [r, w]
        return self.hal_module.Rp2Hal(stdin=_Stream(r), stdout=_Stream(w))

    def close(self):
        import os

        for fd in self.fds:
            os.close(fd)
        sys.path[:] = self.saved_path
        for name in self.saved:
            if self.saved[name] is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = self.saved[name]


class _Stream:
    def __init__(self, fd):
        self.fd = fd

    def fileno(self):
        return self.fd

    def readinto(self, buf, n):
        return 0

    def write(self, buf, n):
        return n


def _decode(runs):
    """Bits from a waveform of [level, cycles] runs; asserts the WS2812 timing."""
    if runs and runs[0][0] == 0:
        runs = runs[1:]  # the first out's T3 before any bit
    bits = []
    i = 0
    while i < len(runs):
        level, high = runs[i]
        assert level == 1
        low = runs[i + 1][1] if i + 1 < len(runs) else 0
        assert high in (3, 7), high   # 375 ns for a 0, 875 ns for a 1
        if i + 2 < len(runs):
            assert high + low == 10   # 1.25 us a bit at 8 MHz: 800 kHz
        bits.append(1 if high == 7 else 0)
        i += 2
    return bits


def test_pio_program_sends_each_bit_in_ten_cycles_msb_first():
    env = _Env()
    try:
        from meridian_fw.hal.ws2812_pio import FREQ, ws2812_program

        assert FREQ == 8_000_000
        opts = ws2812_program.options
        assert opts["autopull"] and opts["pull_thresh"] == 24
        words = [0xA5C33C00, 0x01FF8000]   # what put(array, 8) leaves in the FIFO
        bits = _decode(env.rp2.waveform(ws2812_program, words))
        expected = []
        for w in words:
            for k in range(31, 7, -1):
                expected.append((w >> k) & 1)
        assert bits == expected
    finally:
        env.close()


def _frame_leds(strip, n):
    clock = FakeClock(start=NEAR_WRAP)
    leds = Leds(n, strip, clock, order="GRB", brightness=255, budget_ma=100000)
    leds.step(clock.ticks_ms())   # the boot pattern: red, green, blue along the strip
    return leds


def test_pio_strip_puts_one_grb_word_per_led_for_the_boot_frame():
    env = _Env()
    try:
        hal = env.hal()
        strip = hal.make_strip(config(leds=4, led_pin=16))
        assert hal.led_driver == "pio"
        sm = env.rp2.machines[0]
        assert sm.active() and sm.freq == 8_000_000 and sm.sideset_base.gpio == 16
        _frame_leds(strip, 4)
        # GRB bytes of red, green, blue, red, each in the top 24 bits of its word.
        assert sm.words() == [0x00FF0000, 0xFF000000, 0x0000FF00, 0x00FF0000]
    finally:
        env.close()


def _allocation_free_show(env, dma):
    import micropython

    hal = env.hal()
    if not dma:
        del env.rp2.DMA   # a port without rp2.DMA
    strip = hal.make_strip(config(leds=114, led_pin=16))
    assert strip.feed == ("dma" if dma else "put")
    sm = env.rp2.machines[0]
    for i in range(len(strip.buf)):
        strip.buf[i] = (i * 37) & 0xFF
    show = strip.show
    micropython.heap_lock()
    try:
        show()
        show()
    finally:
        micropython.heap_unlock()
    assert sm.sent_n == 114
    assert sm.sent[113] == (strip.buf[339] << 24) | (strip.buf[340] << 16) | (
        strip.buf[341] << 8)
    return sm


def test_pio_write_allocates_nothing_with_put_or_dma():
    if not MICROPYTHON:
        return  # heap_lock exists only on MicroPython; mptest runs this for real
    env = _Env()
    try:
        sm = _allocation_free_show(env, dma=False)
        assert sm.puts == 2
    finally:
        env.close()
    env = _Env()
    try:
        _allocation_free_show(env, dma=True)
        assert env.rp2.dma_channels[-1].transfers == 2
    finally:
        env.close()


def test_dma_feeds_the_fifo_the_words_put_would_and_is_paced_by_its_dreq():
    env = _Env()
    try:
        hal = env.hal()
        strip = hal.make_strip(config(leds=4, led_pin=16))
        assert strip.feed == "dma"
        _frame_leds(strip, 4)
        sm = env.rp2.machines[0]
        assert sm.puts == 0   # nothing went through the blocking put
        assert sm.words() == [0x00FF0000, 0xFF000000, 0x0000FF00, 0x00FF0000]
        dma = env.rp2.dma_channels[-1]
        assert dma.write == 0x50200010 and dma.count == 4 and dma.transfers == 1
        fields = dma.ctrl_fields
        assert fields["size"] == 2 and fields["inc_read"] and not fields["inc_write"]
        assert fields["treq_sel"] == 0   # PIO0 TX FIFO 0
        # The same frame through the blocking path: the same words on the wire.
        hal.deinit()
        del env.rp2.DMA
        strip = hal.make_strip(config(leds=4, led_pin=16))
        assert strip.feed == "put"
        _frame_leds(strip, 4)
        assert env.rp2.machines[0].words() == [0x00FF0000, 0xFF000000, 0x0000FF00, 0x00FF0000]
    finally:
        env.close()


def test_dma_waits_for_the_last_transfer_and_falls_back_to_put_without_a_channel():
    env = _Env()
    try:
        hal = env.hal()
        strip = hal.make_strip(config(leds=2, led_pin=16))
        dma = env.rp2.dma_channels[-1]
        dma.busy = True    # the previous frame is still going out
        strip.show()
        assert not dma.busy and dma.transfers == 1
        hal.deinit()
        assert dma.closed  # the channel goes back to the port
        env.rp2.dma_limit[0] = 0   # every channel taken (another driver holds them)
        strip = hal.make_strip(config(leds=2, led_pin=16))
        assert strip.feed == "put"
        _frame_leds(strip, 2)
        assert env.rp2.machines[0].puts >= 1
    finally:
        env.rp2.dma_limit[0] = 12
        env.close()


def test_deinit_blanks_then_releases_the_state_machine_and_the_pin():
    env = _Env()
    try:
        hal = env.hal()
        strip = hal.make_strip(config(leds=3, led_pin=16))
        leds = _frame_leds(strip, 3)
        sm = env.rp2.machines[0]
        leds.off()
        hal.deinit()
        assert sm.words() == [0, 0, 0]
        assert not sm.active()
        assert env.rp2.removed and env.rp2.removed[-1] is sm.prog
        assert env.machine._modes[16] == env.machine.Pin.OUT
        assert env.machine._levels[16] == 0
        hal.deinit()   # twice is harmless
    finally:
        env.close()


def test_neopixel_when_rp2_is_absent_or_chosen_and_a_bad_driver_name_is_refused():
    env = _Env(rp2=False)
    try:
        hal = env.hal()
        strip = hal.make_strip(config(leds=2, led_pin=16))
        assert hal.led_driver == "neopixel"
        _frame_leds(strip, 2)
        assert env.neopixel.written[-1] == bytes((0, 255, 0, 255, 0, 0))
        hal.deinit()
    finally:
        env.close()
    env = _Env()
    try:
        hal = env.hal()
        cfg = config(leds=2, led_pin=16)
        cfg["led_driver"] = "neopixel"
        hal.make_strip(cfg)
        assert hal.led_driver == "neopixel"
        assert 0 not in env.rp2.machines
        cfg["led_driver"] = "dma"
        try:
            hal.make_strip(cfg)
        except ValueError as e:
            assert "led_driver" in str(e) and "dma" in str(e)
        else:
            raise AssertionError("led_driver 'dma' was accepted")
    finally:
        env.close()
