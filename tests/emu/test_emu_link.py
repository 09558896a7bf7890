"""Our firmware, unchanged, on MicroPython's rp2 build in the emulated RP2040: the
host's handshake, snapshot and heartbeat over the emulated USB CDC, and the LEDs as
decoded from the WS2812 data pin (PIO), against the plan and the current budget."""

from __future__ import annotations

import threading

import pytest
from tests.patience import patience

from meridian_fw import wire
from meridian_fw.leds import BLINK, FAST, FLASH, PULSE, SOLID, effect_level
from meridian_table.ledplan import BLINK as P_BLINK
from meridian_table.ledplan import FAST_BLINK as P_FAST
from meridian_table.ledplan import FLASH as P_FLASH
from meridian_table.ledplan import PULSE as P_PULSE
from meridian_table.ledplan import SOLID as P_SOLID
from meridian_table.ledplan import LedPlan, Light

from .conftest import Pool, profile

RGB = tuple[int, int, int]


def _rgb(colour: int, level: int = 256, bright: int = 255) -> RGB:
    k = level * bright
    return (((colour >> 16) & 0xFF) * k // 65280, ((colour >> 8) & 0xFF) * k // 65280,
            (colour & 0xFF) * k // 65280)


def test_boots_to_hello_snapshot_and_heartbeat(pool: Pool) -> None:
    board, link, collector = pool.get(profile("kato-114"))
    hello = link.hello
    assert hello is not None
    assert (hello.board, hello.rows, hello.cols, hello.leds) == ("kato-114", 11, 11, 114)
    assert hello.proto == wire.PROTOCOL_VERSION and {"sense", "plan", "snap"} <= hello.caps
    assert collector.snapshots()[0].closed == board.sensed == frozenset()
    beats: list[bytes] = []
    got = threading.Event()

    def tap(direction: str, line: bytes) -> None:
        if direction == "in" and line.startswith(b"BEAT "):
            beats.append(line)
            if len(beats) >= 2:
                got.set()

    link.tap(tap)
    assert got.wait(patience(30)), "no two BEAT frames from the emulated Pico within 30 s"
    assert link.state == "connected"


def test_a_plan_is_decoded_from_the_data_pin(pool: Pool) -> None:
    board, link, _ = pool.get(profile("kato-114"))
    link.set_brightness(255)
    lit = {0: 0x400000, 7: 0x004000, 113: 0x102030}
    link.send_plan(LedPlan.from_mapping(114, {i: Light(c, P_SOLID) for i, c in lit.items()}))
    link.wait_shown(timeout=patience(30))
    expected = [(0, 0, 0)] * 114
    for i, c in lit.items():
        expected[i] = _rgb(c)
    assert board.wait_for(lambda f: f == expected, timeout=patience(30)) == expected


@pytest.mark.xfail(strict=False, reason=(
    "passes alone; after the table tests used the same pooled emulated board, frames with "
    "another plan's LEDs (LED 10 dim green) still arrive: the pool does not yet hand out a "
    "board no earlier link drives"))
def test_every_effect_decoded_from_the_pin_follows_the_plan(pool: Pool) -> None:
    board, link, _ = pool.get(profile("kato-114"))
    link.set_brightness(255)
    colour = 0x204060
    effects = {10: (P_SOLID, SOLID), 11: (P_BLINK, BLINK), 12: (P_FAST, FAST),
               13: (P_PULSE, PULSE), 14: (P_FLASH, FLASH)}
    frames: list[list[RGB]] = []
    lock = threading.Lock()

    def on_frame(frame: list[RGB]) -> None:
        with lock:
            frames.append(frame)

    remove = board.on_frame(on_frame)
    try:
        link.send_plan(LedPlan.from_mapping(114, {i: Light(colour, e) for i, (e, _) in
                                                  effects.items()}))
        link.wait_shown(timeout=patience(30))
        # Frames decoded before the board said it shows this plan may still carry the
        # last test's LEDs (the emulated board is shared): judge only what comes after.
        with lock:
            frames.clear()

        def seen_enough(_: object) -> bool:
            with lock:
                pulse = {f[13] for f in frames}
                blink = {f[11] for f in frames}
                return len(pulse) >= 4 and len(blink) >= 2 and frames[-1][14] == (0, 0, 0)

        board.wait_for(seen_enough, timeout=patience(60))
    finally:
        remove()
    allowed = {led: {_rgb(colour, effect_level(fx, phase, age))
                     for phase in range(0, 2000, 5) for age in (0, 10_000)}
               for led, (_, fx) in effects.items()}
    with lock:
        shown = [f for f in frames if f[10] != (0, 0, 0)]
    assert shown, "no frame of the plan was decoded"
    for frame in shown:
        for led, ok in allowed.items():
            assert frame[led] in ok, f"LED {led}: {frame[led]} is no level of its effect"
        assert all(c == (0, 0, 0) for i, c in enumerate(frame) if i not in effects)
    assert {f[11] for f in shown} == {_rgb(colour), (0, 0, 0)}
    assert {f[12] for f in shown} == {_rgb(colour), (0, 0, 0)}
    assert len({f[13] for f in shown}) >= 4
    assert {f[10] for f in shown} == {_rgb(colour)}


def test_no_decoded_frame_exceeds_the_current_budget(pool: Pool) -> None:
    board, link, _ = pool.get(profile("kato-114"))
    config = profile("kato-114").firmware_config()
    budget, per_channel, idle = (config["budget_ma"], config["ma_per_channel"],
                                 config["idle_ma_per_led"])
    link.set_brightness(255)
    link.send_plan(LedPlan.from_mapping(114, {i: Light(0xFFFFFF, P_SOLID) for i in range(114)}))
    link.wait_shown(timeout=patience(30))
    frame = board.wait_for(lambda f: all(c != (0, 0, 0) for c in f), timeout=patience(30))
    drawn = sum(sum(c) for c in frame) * per_channel // 255 + idle * 114
    # Full white on 114 LEDs would draw 6.8 A: the limiter scales it under the budget.
    assert 0.8 * budget <= drawn <= budget, (drawn, budget)
    link.send_plan(LedPlan.blank(114))
    board.wait_for(lambda f: all(c == (0, 0, 0) for c in f), timeout=patience(30))


def test_the_emulated_pico_behind_a_loopback_socket(pool: Pool) -> None:
    """Where there is no pty (Windows), the emulated CDC is a socket:// port."""
    from tests.link.collector import Collector

    from meridian_table.link import Link, SenseEvent
    from meridian_table.sim.emu import EmulatedBoard

    pool.close()  # one emulator at a time
    collector = Collector()
    with EmulatedBoard(profile("kato-80"), transport="socket") as board:
        assert board.port.startswith("socket://")
        with Link(board.find_port, collector) as link:
            hello = link.wait_connected(patience(60))
            assert hello.board == "kato-80"
            board.set_site("B3", True)
            collector.wait(lambda ev: any(isinstance(e, SenseEvent) for e in ev), patience(60))
            assert link.occupancy == {profile("kato-80").sites["B3"].pos}
