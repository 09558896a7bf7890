"""Sounds and voice on the page: each event schedules its sound (Web Audio oscillators)
and its spoken words (the speech API, stubbed in the page), and mute silences both and is
remembered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.web.tables import held_policies, live

from meridian_table.web import serve

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


def cues(page: Any) -> list[tuple[str, str, bool]]:
    return [(e["event"], e["words"], e["muted"]) for e in page.evaluate("window.MeridianSound.log")]


def wait_cues(page: Any, count: int) -> None:
    page.wait_for_function(f"window.MeridianSound.log.length >= {count}")


def quiet_renders(page: Any, quiet_ms: int = 1000) -> int:
    """The page's render count once no new state has come for ``quiet_ms``."""
    renders = page.evaluate("window.meridian.renders")
    for _ in range(5):
        page.wait_for_timeout(quiet_ms)
        now = page.evaluate("window.meridian.renders")
        if now == renders:
            return int(now)
        renders = now
    raise AssertionError(f"states kept coming to the page for {5 * quiet_ms} ms after the move")


def test_each_event_schedules_its_sound_and_speech_and_mute_is_respected(
    tmp_path: Path, browser: Any
) -> None:
    # Kato on the virtual board: E3 G3 E7 E4 B4 takes Light's E3 off (it no longer sees
    # E7), then Dark is given to the random automaton, held until the page shows it.
    policies = held_policies()
    with live(tmp_path, policies=policies) as fake, serve(fake, port=0) as server:
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

        fake.play("E3")  # a move accepted
        wait_cues(page, 1)
        fake.play("G3")
        wait_cues(page, 2)
        fake.place("A1")  # Light's A1 sees no light stone: a mistake
        wait_cues(page, 3)
        fake.lift("A1")  # lifted again: nothing to say
        fake.play("E7", "E4")
        wait_cues(page, 5)
        fake.place("B4")  # a move whose stones the rules take off
        fake.wait(lambda s: len(s["moves"]) == 5, "B4 played")
        wait_cues(page, 7)
        fake.lift("E3")  # lifted as the page guides
        assert fake.command({"cmd": "seat", "seat": "dark", "automaton": "random"})["ok"]
        held = policies["random"]
        assert held.thinking.wait(30)
        held.release.set()
        state = fake.wait(lambda s: (s["automaton"] or {}).get("status") == "executing",
                          "the automaton's move to carry out")
        wait_cues(page, 8)
        fake.carry_out()
        wait_cues(page, 10)
        events = cues(page)
        assert [e[0] for e in events] == [
            "move", "move", "mistake", "move", "move", "move", "remove", "turn", "move",
            "turn",
        ]
        words = [e[1] for e in events]
        assert words[0] == "Light: E3"
        assert "A1" in words[2]
        assert words[6] == "Dark: remove E3"
        assert words[7] == f"Dark: {state['automaton']['words']}"
        assert words[9] == "Light to move"
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
        now = fake.state()
        wrong = next(p["id"] for p in now["board"]["sites"]
                     if not p["sensed"] and p["id"] not in now["legal"])
        fake.place(wrong)  # a stone where none belongs
        page.wait_for_function("window.MeridianSound.log.some(e => e.muted && e.event === 'mistake')")
        fake.lift(wrong)
        answer = fake.command({"cmd": "resign", "player": "light"})
        assert answer["ok"], answer
        page.wait_for_function("window.MeridianSound.log.some(e => e.event === 'end')")
        assert cues(page)[-1] == ("end", "Dark wins: Light resigned", True)
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


class HeldStates:
    """Between the page and the table (Playwright's WebSocket routing): while held, the
    table's states are kept back and only the newest is passed on at release, as the
    server does with a burst of changes on a busy machine."""

    def __init__(self, page: Any) -> None:
        self.held = False
        self.newest: str | None = None
        self.page_side: Any = None
        page.route_web_socket("**/*", self._route)

    def _route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        self.page_side = ws
        ws.on_message(lambda message: server.send(message))
        server.on_message(self._from_table)

    def _from_table(self, message: str | bytes) -> None:
        if self.held and isinstance(message, str) and json.loads(message)["type"] == "state":
            self.newest = message
        else:
            self.page_side.send(message)

    def release(self) -> None:
        """Pass on the newest held state. (Playwright's sync API hands the route the
        table's messages only while the test is inside a Playwright call, so wait on the
        page before releasing.)"""
        self.held = False
        if self.newest is not None:
            self.page_side.send(self.newest)
            self.newest = None


def test_moves_that_reach_the_page_in_one_state_are_each_said(
    tmp_path: Path, browser: Any
) -> None:
    """The CI failure of stop 31: on a busy machine two moves came to the page in one
    state (the server coalesces bursts) and only the last was said. Each is said, in
    order; a page catching up on more than three says only the last."""
    with live(tmp_path) as fake, serve(fake, port=0) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(STUBS)
        page = context.new_page()
        route = HeldStates(page)
        page.goto(server.url)
        page.wait_for_function("window.meridian && window.meridian.connected && "
                               "window.meridian.renders > 0")
        renders = quiet_renders(page, 500)
        route.held = True
        fake.play("E3", "G3")
        page.wait_for_timeout(200)
        assert page.evaluate("window.meridian.renders") == renders  # nothing came through
        route.release()
        wait_cues(page, 2)
        page.wait_for_timeout(300)
        assert cues(page) == [("move", "Light: E3", False), ("move", "Dark: G3", False)]

        route.held = True
        fake.play("E7", "E4")
        fake.place("B4")
        fake.wait(lambda s: len(s["moves"]) == 5, "B4 played")
        fake.lift("E3")  # Dark takes Light's E3 off, as the rules say
        now = fake.wait(lambda s: s["phase"] != "resync" and s["legal"], "Dark to move")
        fake.play(now["legal"][0])
        assert len(fake.state()["moves"]) == 6
        page.wait_for_timeout(300)  # the table's states reach the route (and are held)
        route.release()
        page.wait_for_function("window.meridian.state.moves.length === 6")
        page.wait_for_timeout(300)
        said = cues(page)[2:]
        assert [event for event, _, _ in said] == ["move"], said  # only the last of four
        assert said[0][1].startswith("Dark: ")
        context.close()


def test_the_low_time_cue_sounds_as_the_clock_runs_down(
    tmp_path: Path, browser: Any
) -> None:
    """Issue 26: the cue fired only when a new state arrived under the low mark; a
    clock running down on the page past it with no move made stayed silent. The table's
    real clocks: 18 s each, low under 10 s; Dark's runs from Light's first move.

    The move may bring more than one state (the stone seen, then the move), so the page
    is left until no state has come for a second before its count is taken; Dark's
    clock is still 7 s above the mark then, even on a busy machine."""
    with live(tmp_path, settings={"clock": "sudden:18s"}) as fake, \
            serve(fake, port=0) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(STUBS)
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_function("window.meridian && window.meridian.connected && "
                               "window.meridian.renders > 0")
        fake.play("E3")
        page.wait_for_selector(".clock[data-seat='dark'][data-running='true']")
        renders = quiet_renders(page)
        assert [c[0] for c in cues(page)] == ["move"]  # still above the mark
        wait_cues(page, 2)  # the move, then no new state: the page's own countdown passed 10 s
        assert [c[0] for c in cues(page)] == ["move", "low-time"]
        assert cues(page)[1][1].startswith("Dark: ")
        assert page.evaluate("window.meridian.renders") == renders
        page.wait_for_timeout(300)
        assert len(cues(page)) == 2  # once a turn
        context.close()
