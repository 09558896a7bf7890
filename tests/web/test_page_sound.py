"""Sounds and voice on the page: each event schedules its sound (Web Audio oscillators)
and its spoken words (the speech API, stubbed in the page), and mute silences both and is
remembered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.web.fakes import kato_options

from meridian_table.web import serve
from meridian_table.web.fake import FakeSession

pytestmark = pytest.mark.browser

# Installed before the page's own scripts: the speech API records what it is asked to
# say, and every oscillator the page starts is counted (the real Web Audio runs).
STUBS = """
window.__spoken = [];
window.__oscillators = 0;
class StubUtterance { constructor(text) { this.text = text; this.lang = ""; } }
Object.defineProperty(window, "SpeechSynthesisUtterance", { value: StubUtterance, configurable: true });
Object.defineProperty(window, "speechSynthesis", { configurable: true, value: {
  speak(u) { window.__spoken.push([u.text, u.lang]); }, cancel() {},
} });
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) { window.__oscillators += 1; return start.apply(this, args); };
"""


class ClockSession(FakeSession):
    """The fake with a clock running low for the mover (state.clocks, optional)."""

    remaining_s = 60.0

    def _state(self) -> dict[str, Any]:
        state = super()._state()
        state["clocks"] = {
            "rule": {"kind": "sudden", "base_s": 60.0, "extra_s": 0.0, "flag": "lose",
                     "low_s": 10.0, "leds": False},
            "words": "60 s each", "low_s": 10.0,
            "running": None if state.get("result") else state.get("to_move"),
            "seats": {seat: {"remaining_s": self.remaining_s, "time_up": False}
                      for seat in self.seat_ids}}
        return state


def cues(page: Any) -> list[tuple[str, str, bool]]:
    return [(e["event"], e["words"], e["muted"]) for e in page.evaluate("window.MeridianSound.log")]


def wait_cues(page: Any, count: int) -> None:
    page.wait_for_function(f"window.MeridianSound.log.length >= {count}")


def test_each_event_schedules_its_sound_and_speech_and_mute_is_respected(
    open_page: Callable[..., Any], browser: Any
) -> None:
    fake = ClockSession(**kato_options(), seats_kind={"dark": "random"})
    with serve(fake, port=0) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(STUBS)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.url)
        page.wait_for_function("window.meridian && window.meridian.connected && window.meridian.renders > 0")
        assert cues(page) == []  # opening the page is quiet
        assert page.get_attribute("#sound-toggle", "aria-pressed") == "true"
        assert page.get_attribute("#voice-toggle", "aria-pressed") == "false"
        page.click("#voice-toggle")  # a gesture: Web Audio may start now
        assert page.get_attribute("#voice-toggle", "aria-pressed") == "true"
        page.wait_for_function("window.AudioContext && true")

        fake.place("C3")  # a move accepted
        wait_cues(page, 1)
        fake.place("D3")  # next to the last stone: a mistake
        wait_cues(page, 2)
        fake.place("D3")  # lifted again: nothing to say
        fake.place("F6")
        wait_cues(page, 3)
        fake.place("A1", captures=["C3"])  # a move whose stones the rules take off
        wait_cues(page, 5)
        fake.command({"cmd": "toggle", "site": "C3"})  # lifted as the page guides
        fake.set_automaton("dark", "executing", action="G7", words="Put a dark stone on G7")
        wait_cues(page, 6)
        fake.place("G7")
        fake.clear_automaton()  # the automaton's move is done: a person's turn
        wait_cues(page, 8)
        fake.remaining_s = 8.0
        fake.count_error("crc_errors", 0)  # any change: a new state with the low clock
        wait_cues(page, 9)
        fake.finish("light", "no dark stones left")
        wait_cues(page, 10)

        events = cues(page)
        assert [e[0] for e in events] == [
            "move", "mistake", "move", "move", "remove", "turn", "move", "turn", "low-time", "end",
        ]
        words = [e[1] for e in events]
        assert words[0] == "Light: C3"
        assert "D3" in words[1]
        assert words[4] == "Dark: remove C3"
        assert words[5] == "Dark: Put a dark stone on G7"
        assert words[7] == "Light to move"
        assert words[8] == "Light: 8 seconds"
        assert words[9] == "Light wins: no dark stones left"
        spoken = page.evaluate("window.__spoken")
        assert [text for text, _ in spoken] == words
        assert {lang for _, lang in spoken} == {"en"}
        # Every event's sound was made with Web Audio: oscillators were started.
        played = page.evaluate("window.MeridianSound.log.map(e => e.played)")
        assert all(played), played
        assert page.evaluate("window.__oscillators") >= 10

        # Mute: events are still noticed, but nothing sounds and nothing is said.
        page.click("#sound-toggle")
        assert page.get_attribute("#sound-toggle", "aria-pressed") == "false"
        oscillators = page.evaluate("window.__oscillators")
        fake.command({"cmd": "toggle", "site": "B2"})  # a stone where none belongs
        page.wait_for_function("window.MeridianSound.log.some(e => e.muted && e.event === 'mistake')")
        assert page.evaluate("window.__oscillators") == oscillators
        assert len(page.evaluate("window.__spoken")) == len(spoken)
        # Remembered: a new page in the same browser starts muted with the voice on.
        again = context.new_page()
        again.goto(server.url)
        again.wait_for_function("window.meridian && window.meridian.renders > 0")
        assert again.get_attribute("#sound-toggle", "aria-pressed") == "false"
        assert again.get_attribute("#voice-toggle", "aria-pressed") == "true"
        context.close()
        assert errors == []


def test_the_low_time_cue_sounds_as_the_clock_runs_down(
    open_page: Callable[..., Any], browser: Any
) -> None:
    """Issue 26: the cue fired only when a new state arrived under the low mark; a
    clock running down on the page past it with no move made stayed silent."""
    fake = ClockSession(**kato_options())
    fake.remaining_s = 10.4  # just over the 10 s mark when the state arrives
    with serve(fake, port=0) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(STUBS)
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_function("window.meridian && window.meridian.connected && "
                               "window.meridian.renders > 0")
        page.wait_for_selector(".clock[data-seat='light'][data-running='true']")
        renders = page.evaluate("window.meridian.renders")
        wait_cues(page, 1)  # no new state: the page's own countdown passed 10 s
        assert cues(page)[0][0] == "low-time" and cues(page)[0][1].startswith("Light: ")
        assert page.evaluate("window.meridian.renders") == renders
        page.wait_for_timeout(300)
        assert len(cues(page)) == 1  # once a turn
        context.close()
