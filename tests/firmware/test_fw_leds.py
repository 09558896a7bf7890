"""Effects, brightness, the current limiter, byte order and patterns."""

from fwkit import config, make_app, run_ms

from meridian_fw.clock import FakeClock
from meridian_fw.leds import (
    BLINK,
    FAST,
    FLASH,
    MODE_BOOT,
    MODE_IDENT,
    PULSE,
    SOLID,
    Leds,
    effect_level,
    order_offsets,
)


class Strip:
    def __init__(self, n):
        self.buf = bytearray(3 * n)
        self.shown = 0

    def show(self):
        self.shown += 1


def _plan(leds, gen, rgb, effect):
    assert leds.begin_plan(gen, leds.n)
    leds.stage_palette(0, 0, 0)
    leds.stage_palette(1, rgb, effect)
    for i in range(leds.n):
        assert leds.stage_index(i, 1)
    assert leds.complete()
    leds.show_staged()


def _leds(n, **kw):
    clock = FakeClock(start=(1 << 30) - 30)
    strip = Strip(n)
    leds = Leds(n, strip, clock, **kw)
    leds.boot = False
    return leds, strip, clock


def test_effect_levels():
    assert effect_level(SOLID, 1234, 0) == 256
    assert effect_level(BLINK, 100, 0) == 256 and effect_level(BLINK, 600, 0) == 0
    assert effect_level(BLINK, 1100, 0) == 256
    assert effect_level(FAST, 100, 0) == 256 and effect_level(FAST, 130, 0) == 0
    assert effect_level(PULSE, 0, 0) == 26 and effect_level(PULSE, 1000, 0) == 256
    assert 26 < effect_level(PULSE, 500, 0) < 256
    assert effect_level(FLASH, 0, 599) == 256 and effect_level(FLASH, 0, 600) == 0


def test_order_offsets_is_the_one_place():
    assert order_offsets("GRB") == (1, 0, 2)
    assert order_offsets("RGB") == (0, 1, 2)


def test_brightness_scales_and_grb_order():
    leds, strip, clock = _leds(2, brightness=128, budget_ma=10000)
    _plan(leds, 1, 0xFF8000, SOLID)
    leds.step(clock.ticks_ms())
    assert bytes(strip.buf[0:3]) == bytes((64, 128, 0))  # G, R, B


def test_full_white_never_exceeds_the_budget():
    for n, budget in ((114, 400), (20, 400), (300, 1000), (1, 10)):
        leds, strip, clock = _leds(n, brightness=255, budget_ma=budget)
        _plan(leds, 1, 0xFFFFFF, SOLID)
        leds.step(clock.ticks_ms())
        assert leds.last_ma <= budget
        assert leds.estimate_ma(strip.buf) <= budget
        if n * 60 > budget:
            assert leds.limited == 1
            assert leds.last_ma >= budget * 9 // 10  # scaled to the budget, not to black


def test_flash_goes_dark_after_600_ms_across_the_wrap():
    leds, strip, clock = _leds(3, brightness=255, budget_ma=10000)
    _plan(leds, 1, 0x00FF00, FLASH)
    leds.step(clock.ticks_ms())
    assert strip.buf[0] == 255
    for _ in range(40):
        clock.advance(20)
        leds.step(clock.ticks_ms())
    assert clock.ticks_ms() < 1000    # wrapped
    assert bytes(strip.buf) == bytes(9)


def test_unchanged_frames_are_not_rewritten():
    leds, strip, clock = _leds(5, budget_ma=10000)
    _plan(leds, 1, 0x102030, SOLID)
    leds.step(clock.ticks_ms())
    shown = strip.shown
    for _ in range(20):
        clock.advance(20)
        leds.step(clock.ticks_ms())
    assert strip.shown == shown


def test_boot_pattern_then_identify():
    app, hal, ser, clock = make_app(config(leds=6, brightness=255, budget_ma=10000))
    run_ms(app, clock, 30)
    assert app.leds.mode == MODE_BOOT
    assert hal.frame()[0:3] == [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
    ser.send("IDENT", 1, [2])
    run_ms(app, clock, 30)
    assert app.leds.mode == MODE_IDENT
    run_ms(app, clock, 2100)
    assert app.leds.mode != MODE_IDENT


def test_bright_command_applies_to_the_next_frame():
    app, hal, ser, clock = make_app(config(leds=2, brightness=255, budget_ma=10000))
    run_ms(app, clock, 1000)
    ser.send("PLAN", 1, [1, 2, "000000O,FFFFFFS"])
    ser.send("PIX", 2, [1, 0, "11"])
    ser.send("SHOW", 3, [1])
    run_ms(app, clock, 30)
    assert hal.frame()[0] == (255, 255, 255)
    ser.send("BRIGHT", 4, [51])
    run_ms(app, clock, 30)
    assert hal.frame()[0] == (51, 51, 51)
