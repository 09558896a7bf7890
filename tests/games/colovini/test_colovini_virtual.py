"""Colovini's Meridian through the virtual board: real firmware, pty, link, table, adapter.

Issue 6's adapter acceptance, on the colovini-50 profile with the sample-50 map (and a
3-player game on colovini-40): a push built in two physical steps, a height asked for
and answered (from the page's command and from the plus/minus/confirm button switches),
a pushed tower put down in the wrong place and guided back, a removal, a pass and the
end-of-game island lights. Meridians are chosen with the virtual board's meridian
buttons. Every LED check reads the frame the firmware rendered (``VirtualBoard.leds()``
through the profile's LED indices), not only the plan the host meant to send.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.games.driver import BoardDriver

from meridian_table.games import colovini
from meridian_table.games.colovini.maps import maps_dir
from meridian_table.table.runner import RunningTable, TableSetup, open_table

RGB = tuple[int, int, int]
MAPS = maps_dir()

#: The directions (normalised to the brightest channel) of the colours the adapter uses.
#: The firmware scales every frame (brightness, current budget, pulse), so a rendered
#: LED is recognised by its hue, not by its exact value.
PALETTE: dict[str, RGB] = {
    "orange": (255, 80, 0),     # seat orange
    "blue": (32, 64, 255),      # seat black
    "green": (0, 192, 64),      # seat brown
    "magenta": (192, 0, 192),   # seat grey
    "red": (255, 0, 0),         # remove from here
    "white": (255, 255, 255),   # put back here
    "amber": (255, 160, 0),     # a question / a tied island
    "cyan": (0, 200, 255),      # a tower some option would push
}
SEAT_HUE = {"orange": "orange", "black": "blue", "brown": "green", "grey": "magenta"}


def hue(c: RGB | list[int]) -> str:
    """The palette colour nearest to ``c``'s direction, or ``off``."""
    top = max(c)
    if top == 0:
        return "off"
    norm = [x / top for x in c]

    def distance(name: str) -> float:
        ref = PALETTE[name]
        peak = max(ref)
        return sum((a - b / peak) ** 2 for a, b in zip(norm, ref, strict=True))

    return min(PALETTE, key=distance)


class Driver(BoardDriver):
    """Plays at the virtual board like a person: switches and buttons, then waits."""

    def __init__(self, table: RunningTable) -> None:
        super().__init__(table)
        self.adapter: Any = table.session.adapter
        self._seen: list[tuple[int, bool]] = []
        self._cond = threading.Condition()
        # Subscribed after the session: when this sees a button event, the session has
        # already handled it (the link calls its subscribers in order).
        table.link.subscribe(self._on_event)

    def _on_event(self, event: object) -> None:
        if hasattr(event, "pos") and hasattr(event, "closed") and not hasattr(event, "last_seq"):
            with self._cond:
                self._seen.append((int(event.pos), bool(event.closed)))  # type: ignore[attr-defined]
                self._cond.notify_all()

    # --- the board ------------------------------------------------------------------

    def rendered(self, site: str, leds: list[RGB] | None = None) -> str:
        """The hue of ``site``'s LED in ``leds`` (default: the last rendered frame)."""
        index = self.profile.sites[site].led
        assert index is not None
        frame = self.vb.leds() if leds is None else leds
        return hue(frame[index])

    def shows(self, site: str, colour: str, timeout: float = 5.0) -> list[RGB]:
        """Wait for a rendered frame where ``site`` is lit in ``colour`` (blinks pass when lit)."""
        return self.frame_where({site: colour}, timeout)

    def frame_where(self, want: dict[str, str], timeout: float = 5.0) -> list[RGB]:
        """Wait for one rendered frame in which every site has the wanted hue."""
        index = {site: self.profile.sites[site].led for site in want}

        def ok(leds: list[RGB]) -> bool:
            return all(hue(leds[i]) == want[s] for s, i in index.items())  # type: ignore[index]

        try:
            return self.vb.wait_for(ok, timeout)
        except Exception as exc:
            now = {s: self.rendered(s) for s in want}
            raise AssertionError(f"never rendered {want}; last frame {now}: {exc}") from exc

    def recording(self) -> tuple[list[list[RGB]], Callable[[], None]]:
        """Record every frame the firmware renders from now on (for one-shot effects)."""
        frames: list[list[RGB]] = [self.vb.leds()]
        stop = self.vb.on_frame(lambda frame: frames.append(list(frame)))
        return frames, stop

    def flashed(self, frames: list[list[RGB]], site: str, colour: str) -> bool:
        """Whether ``site`` was lit in ``colour`` in any recorded frame."""
        return any(self.rendered(site, frame) == colour for frame in frames)

    def press(self, name: str) -> None:
        """Press and release a button switch of the board."""
        pos = self.profile.buttons[name]
        for closed in (True, False):
            with self._cond:
                start = len(self._seen)
            self.vb.set_switch(pos, closed)
            with self._cond:
                event = (pos, closed)
                got = self._cond.wait_for(
                    lambda e=event, n=start: e in self._seen[n:], 5  # type: ignore[misc]
                )
            assert got, f"button {name} ({'press' if closed else 'release'}) never reached the host"
        self.idle()

    # --- the table ------------------------------------------------------------------

    def moves(self) -> list[str]:
        return [m["notation"] for m in self.state()["moves"]]

    def question(self) -> dict[str, Any]:
        question = self.state()["question"]
        assert question is not None, self.state()["message"]
        return dict(question)

    def choose(self, field: str, value: str) -> None:
        """Answer like the web page does."""
        reply = self.session.command({"cmd": "choose", "field": field, "value": value})
        assert reply == {"ok": True}, reply
        self.idle()

    def pick_card(self, card: str) -> None:
        """Answer the card question (when there is one) with the board's buttons."""
        if self.adapter.card is not None:
            assert self.adapter.card == card
            return
        choices = self.question()["choices"]
        assert card in choices, (card, choices)
        if len(choices) == 2:
            self.press("minus" if card == choices[0] else "plus")
        else:
            for _ in range(choices.index(card)):
                self.press("plus")
            self.press("confirm")
        assert self.adapter.card == card or self.moves()[-1].startswith(f"{card}:")

    def build(self, card: str, site: str, height: int) -> None:
        """A whole placement on an empty city: meridian button, card, tower, answers."""
        before = len(self.moves())
        self.press(f"meridian{site.split('.')[0]}")
        self.pick_card(card)
        self.set(site, True)
        for _ in range(3):
            if len(self.moves()) > before:
                break
            question = self.question()
            value = site if question["field"] == "where" else str(height)
            self.choose(question["field"], value)
        assert self.moves()[before:] == [f"{card}:{site}={height}"], self.state()["message"]

    def pass_turn(self) -> str:
        """Pass with the Pass button, discarding the first playable card (Confirm)."""
        before = len(self.moves())
        self.press("pass")
        if len(self.moves()) == before:
            assert self.question()["field"] == "card"
            self.press("confirm")
        notation = self.moves()[-1]
        assert len(self.moves()) == before + 1 and notation.endswith(":pass"), notation
        return notation


def _sites_of(column: tuple[Any, ...], meridian: int) -> set[str]:
    return {f"{meridian}.{i + 1}" for i, tower in enumerate(column) if tower is not None}


def perform(d: Driver, action: Any, by_buttons: bool) -> None:
    """Play ``action`` at the board as a person would: buttons, towers, answers.

    ``by_buttons`` answers the questions with plus/minus/confirm; otherwise the page's
    ``choose`` command answers them.
    """
    before = len(d.moves())
    engine = d.adapter.engine
    if action.kind == "pass":
        cards = list(engine.playable_cards())
        d.press("pass")
        if len(d.moves()) == before:
            assert d.question()["choices"] == cards
            if by_buttons:
                for _ in range(cards.index(action.card)):
                    d.press("plus")
                d.press("confirm")
            else:
                d.choose("card", action.card)
        assert d.moves()[before:] == [action.notation()]
        return
    m = action.meridian
    d.press(f"meridian{m}")
    d.pick_card(action.card)
    start = _sites_of(engine.state.columns[m - 1], m)
    target = _sites_of(d.adapter._outcome(action), m)
    if action.kind == "rebuild" and start == target:
        # The switches see the towers go and come back to the same cities: the own
        # tower lifted (the table asks), the others moved, the new tower stood.
        lifted = f"{m}.{action.remove}"
        d.set(lifted, False)
        assert d.question()["field"] == "remove"
        d.shows(lifted, "amber")
        column, after = engine.state.columns[m - 1], d.adapter._outcome(action)
        moved = sorted(f"{m}.{i + 1}" for i, (x, y) in enumerate(zip(column, after, strict=True))
                       if x != y and f"{m}.{i + 1}" != lifted)
        for site in moved:
            d.set(site, False)
        for site in sorted({lifted, *moved}):
            d.set(site, True)
        question = d.question()
        assert question["field"] == "rebuild" and question["choices"][0] == "keep"
        where = f"{m}.{action.city}={action.height}"
    else:
        where = action.notation().split(":", 1)[1].split("=", 1)[0]
    for site in sorted(start - target):
        d.set(site, False)
    for site in sorted(target - start):
        d.set(site, True)
    for _ in range(4):
        if len(d.moves()) > before:
            break
        assert d.state()["question"] is not None, (action.notation(), d.state()["message"])
        question = d.question()
        answer = {"where": where, "height": str(action.height), "remove": "yes",
                  "rebuild": where}[question["field"]]
        if by_buttons:
            choices = question["choices"]
            for _ in range(choices.index(answer)):
                d.press("plus")
            d.press("confirm")
        else:
            d.choose(question["field"], answer)
    assert d.moves()[before:] == [action.notation()], (action.notation(), d.state()["message"])
    assert _sites_of(engine.state.columns[m - 1], m) == target


def _open(tmp_path: Path, profile: str, players: tuple[str, ...], **options: Any) -> RunningTable:
    setup = TableSetup(
        game="colovini", board="sim", profile=profile, players=players, options=options,
        db=str(tmp_path / "games.sqlite3"), settle_s=0.04,
    )
    running = open_table(setup)
    if not running.wait_ready(30):
        running.close()
        raise AssertionError("the virtual board did not connect")
    return running


@pytest.fixture
def four(tmp_path: Path) -> Iterator[Driver]:
    """4 players on colovini-50 with the sample-50 map and physical decks."""
    running = _open(tmp_path, "colovini-50", ("Ann", "Bob", "Cid", "Dee"),
                    deck="physical", map=str(MAPS / "sample-50.toml"))
    with running:
        yield Driver(running)


def fig_a(d: Driver) -> None:
    """Orange 4 on 3.1, Black 3 on 3.2, Brown 1 on 3.4 (the meridian of Figs. A/B).

    Orange's height is answered from the page, Black's with the board's buttons.
    """
    d.press("meridian3")
    question = d.question()
    assert question["field"] == "card" and question["choices"] == ["3", "1-2-3"]
    d.press("minus")  # card 3 (plus would be 1-2-3)
    assert d.state()["phase"] == "play"
    assert set(d.state()["legal"]) == {f"3.{i}" for i in range(1, 6)}
    # Where a tower can stand: dim in the mover's colour.
    frame = d.frame_where({f"3.{i}": "orange" for i in range(1, 6)})
    assert max(frame[d.profile.sites["3.3"].led]) < 32, "a hint is dim"
    assert d.rendered("4.1", frame) == "off"
    d.set("3.1", True)
    question = d.question()
    assert question["field"] == "height" and question["choices"] == [str(h) for h in range(2, 21)]
    d.shows("3.1", "amber")  # waiting for an input the board cannot sense
    d.choose("height", "4")  # the page's answer
    assert d.moves() == ["3:3.1=4"]
    # Black: {3.1, 3.2} fits a new 1-3 on 3.2, or a new 5+ on 3.1 pushing Orange south.
    d.press("meridian3")
    d.press("minus")
    d.set("3.2", True)
    question = d.question()
    assert question["field"] == "where" and question["choices"] == ["3.2", "3.1"]
    d.frame_where({"3.1": "amber", "3.2": "amber"})
    d.press("confirm")  # 3.2
    question = d.question()
    assert question["field"] == "height" and question["choices"] == ["1", "2", "3"]
    assert question["buttons"] == {"confirm": "1"}
    d.press("plus")
    d.press("plus")
    assert d.question()["buttons"] == {"confirm": "3"}
    d.press("minus")
    d.press("plus")
    d.press("confirm")
    assert d.moves() == ["3:3.1=4", "3:3.2=3"]
    d.press("meridian3")
    d.press("minus")
    d.set("3.4", True)
    assert d.question()["choices"] == ["1", "2"]
    d.choose("height", "1")
    assert d.moves() == ["3:3.1=4", "3:3.2=3", "3:3.4=1"]
    assert d.adapter.engine.state.columns[2] == ((0, 4), (1, 3), None, (2, 1), None)
    assert d.state()["to_move"] == "grey"


def grey_chooses_meridian_3(d: Driver) -> None:
    d.press("meridian3")
    d.press("minus")
    state = d.state()
    # In words (issue 26): the cities, the heights and whose tower a push moves.
    assert "a new tower on city 3 (2 high)" in state["message"]
    assert "on city 4 (2 high), pushing Brown's tower south" in state["message"]
    assert "on city 1 (5 to 20 high), pushing Orange's tower south" in state["message"]
    # Dim grey where a tower can stand; cyan blink on the towers an option would push.
    d.frame_where({"3.3": "magenta", "3.4": "cyan", "3.1": "cyan", "3.2": "off", "3.5": "off"})


def test_heights_asked_and_a_push_built_in_two_physical_steps(four: Driver) -> None:
    d = four
    fig_a(d)
    grey_chooses_meridian_3(d)
    # Place the new tower, then move the pushed one: Brown's 1 comes off 3.4 (the
    # table asks for it back while it is in the hand), Grey's new tower takes its
    # place, and Brown's 1 goes down one city south.
    d.set("3.4", False)
    state = d.state()
    assert state["phase"] == "resync" and state["diff"]["put_back"] == ["3.4"]
    d.shows("3.4", "white")
    d.set("3.4", True)  # the new tower
    assert d.state()["phase"] == "play" and len(d.moves()) == 3
    frames, stop = d.recording()
    d.set("3.5", True)  # the pushed tower
    assert d.moves()[-1] == "3:3.4=2"  # only a 2 fits: nothing to ask
    assert d.adapter.engine.state.columns[2] == ((0, 4), (1, 3), None, (3, 2), (2, 1))
    # The accepted tower flashes once in Grey's colour, on the new tower (not on the
    # pushed one at the end of the chain), then goes dark.
    d.frame_where({"3.4": "off"})
    stop()
    assert d.flashed(frames, "3.4", "magenta") and not d.flashed(frames, "3.5", "green")
    # Undo with the board's button: 3.5 must come off again (red, fast blink).
    d.press("undo")
    state = d.state()
    assert state["phase"] == "resync" and state["diff"]["remove"] == ["3.5"]
    d.shows("3.5", "red")
    d.set("3.5", False)
    assert d.state()["phase"] == "play" and d.moves()[-1] == "3:3.4=1"
    # The other order: move the pushed tower first, then the new tower is guided in.
    grey_chooses_meridian_3(d)
    d.set("3.4", False)
    d.set("3.5", True)
    state = d.state()
    assert state["phase"] == "resync" and state["diff"]["put_back"] == ["3.4"]
    assert "the new tower goes here" in state["diff"]["reasons"]["3.4"]
    d.shows("3.4", "white")
    d.set("3.4", True)
    assert d.moves()[-1] == "3:3.4=2" and d.state()["phase"] == "play"


def test_a_misplaced_pushed_tower_is_guided_back(four: Driver) -> None:
    d = four
    fig_a(d)
    grey_chooses_meridian_3(d)
    # Brown's 1 is pushed off 3.4 but put down on the wrong meridian.
    d.set("3.4", False)
    d.set("4.5", True)
    state = d.state()
    assert state["phase"] == "resync"
    assert state["diff"]["next"] == "4.5" and "4.5" in state["diff"]["remove"]
    assert "not here" in state["diff"]["reasons"]["4.5"]
    d.shows("4.5", "red")
    assert d.rendered("3.5") == "off"
    refused = d.session.command({"cmd": "button", "name": "pass"})
    assert not refused["ok"] and "waits" in refused["error"]  # buttons wait for the board
    d.set("4.5", False)
    # Off the wrong meridian; now it must come back to meridian 3 (white, pulse).
    state = d.state()
    assert state["phase"] == "resync" and state["diff"]["next"] == "3.4"
    d.shows("3.4", "white")
    d.set("3.5", True)  # the pushed tower where the push takes it...
    state = d.state()
    assert state["diff"]["put_back"] == ["3.4"]
    assert "the new tower goes here" in state["diff"]["reasons"]["3.4"]
    d.shows("3.4", "white")
    d.set("3.4", True)  # ...and the new tower in its place
    assert d.moves()[-1] == "3:3.4=2" and d.state()["phase"] == "play"
    assert d.rendered("4.5") == "off"


def test_a_pass_and_a_removal(four: Driver) -> None:
    d = four
    fig_a(d)
    # Grey passes with card 1: meridian 1 allows 1 and 1-2-3; minus picks 1; Pass.
    d.press("meridian1")
    d.press("minus")
    assert d.adapter.card == "1"
    d.press("pass")
    assert d.moves()[-1] == "1:pass"
    assert "1" not in d.adapter.engine.cards_left(3)
    # Orange lifts its own 4 from 3.1 (card 3 is used, so 1-2-3 is implied) ...
    d.press("meridian3")
    assert d.adapter.card == "1-2-3"
    # Lifted and stood again: the same tower, or one rebuilt at another height? The
    # switch cannot tell, so the table asks; Confirm on "keep" says nothing changed.
    d.set("3.1", False)
    assert d.question()["field"] == "remove"
    d.set("3.1", True)
    question = d.question()
    assert question["field"] == "rebuild"
    # In place at another height, or a 2 on 3.2 pushing Black's 3 into 3.1.
    assert question["choices"][0] == "keep"
    assert set(question["choices"][1:]) == {"3.2=2", *(f"3.1={h}" for h in range(5, 21))}
    d.shows("3.1", "amber")
    d.press("confirm")
    assert d.state()["question"] is None and len(d.moves()) == 4
    d.set("3.1", False)
    question = d.question()
    assert question["field"] == "remove" and question["buttons"] == {"confirm": "yes"}
    d.shows("3.1", "amber")  # no put-back light: the lift is a question, not a mistake
    assert len(d.moves()) == 4
    d.press("confirm")  # ... and Confirm removes it, the pieces back in hand
    assert d.moves()[-1] == "1-2-3:-3.1"
    assert d.adapter.engine.hand(0) == 20
    assert d.adapter.engine.state.columns[2][0] is None
    assert d.state()["phase"] == "play" and d.state()["to_move"] == "black"
    # Pass with nothing chosen: the Pass button asks which card; Confirm discards it.
    first = d.adapter.engine.playable_cards()[0]
    assert d.pass_turn() == f"{first}:pass"
    assert d.state()["to_move"] == "brown"


FIG_D = [  # (card, city, height) in seat order: Orange, Black, Brown, Grey, ...
    ("1", "1.1", 5), ("1", "1.2", 4), ("2", "2.3", 3), ("2", "2.2", 6),
    ("4", "4.3", 2), ("5", "5.3", 2), ("3", "3.1", 3), ("3", "3.2", 2),
]


def test_end_of_game_lights_each_island_in_its_owners_colour(four: Driver) -> None:
    d = four
    for card, city, height in FIG_D:
        d.build(card, city, height)
    turns = len(FIG_D)
    while d.state()["phase"] != "ended":
        d.pass_turn()
        turns += 1
    assert turns == 4 * 13
    engine = d.adapter.engine
    result = engine.result()
    by_key = {i.key: i for i in result.islands}
    # A: Orange 1.1 v Brown 3.1, tied. B: Brown alone. C: Black's capital 5.3 beats
    # Orange's 4.3. D: Grey's capital 2.2 and 3.2 (3) beat Black's 1.2 (1).
    assert by_key["A"].tied and by_key["B"].owner == "Brown"
    assert by_key["C"].owner == "Black" and by_key["D"].owner == "Grey"
    assert dict(result.totals) == {"Orange": 0, "Black": 4, "Brown": 3, "Grey": 5}
    owned = {c: SEAT_HUE[i.owner.lower()] for i in result.islands if i.owner  # type: ignore[union-attr]
             for c in i.cities}
    tied = [c for c in by_key["A"].cities]
    empty = [c for i in result.islands if not i.strengths for c in i.cities]
    # Tied islands blink: one frame with them lit amber, another with them dark; the
    # owned islands stay lit in their owner's colour in both, the rest stay off.
    d.frame_where({**owned, **{c: "amber" for c in tied}, **{c: "off" for c in empty}})
    d.frame_where({**owned, **{c: "off" for c in tied + empty}})
    # The same as the score: the islands' owners are score()'s on the final garrisons.
    garrisons = {city: engine.names[seat] for city, seat in engine.garrisons().items()}
    score = colovini.score(engine.board_map, garrisons, players=engine.names,
                           pieces_left={n: engine.hand(i) for i, n in enumerate(engine.names)})
    assert score == result
    state = d.state()
    assert state["result"]["islands"] == [i.as_dict() for i in score.islands]
    assert {seat: s["total"] for seat, s in state["scores"].items()} == {
        "orange": 0, "black": 4, "brown": 3, "grey": 5}
    # Confirm toggles the tidy-up guide: the towers to take off blink red.
    d.press("confirm")
    d.frame_where({"1.1": "red", "3.1": "red", "1.2": "red", "2.2": "magenta"})
    stored = d.table.store.game(state["game_id"]) if d.table.store else None
    assert stored is not None and stored.status == "finished"


def _choose(engine: colovini.Game, rng: random.Random) -> colovini.Action:
    """A varied but short turn: mostly low towers, some pushes, removals and passes."""
    actions = engine.legal_actions()
    builds = [a for a in actions if a.kind in ("place", "rebuild") and a.height <= 4]
    removes = [a for a in actions if a.kind == "remove"]
    passes = [a for a in actions if a.kind == "pass"]
    roll = rng.random()
    if removes and roll < 0.1:
        return rng.choice(removes)
    if builds and roll < 0.85:
        return rng.choice(builds)
    return rng.choice(passes)


def test_a_whole_three_player_game_on_the_40_city_side(tmp_path: Path) -> None:
    """colovini-40, 3 players, a seeded digital deck: 39 turns at the board, then the
    island lights and the score against ``colovini.score`` on the final garrisons."""
    running = _open(tmp_path, "colovini-40", ("Ann", "Bob", "Cid"), deck="digital", seed=40)
    with running:
        d = Driver(running)
        engine = d.adapter.engine
        assert engine.board_map.name == "sample-40" and d.adapter.colours == (
            "orange", "black", "brown")
        rng = random.Random(6)
        kinds: set[str] = set()
        pushes = 0
        turn = 0
        while not engine.is_over:
            action = _choose(engine, rng)
            m = action.meridian
            if m:
                column = engine.state.columns[m - 1]
                pushes += sum(1 for x, y in zip(column, d.adapter._outcome(action), strict=True)
                              if x is not None and y is not None and x != y)
            perform(d, action, by_buttons=turn % 2 == 0)
            kinds.add(action.kind)
            turn += 1
        assert turn == 3 * 13
        assert {"place", "pass"} <= kinds and pushes > 0, (kinds, pushes)
        result = engine.result()
        garrisons = {city: engine.names[seat] for city, seat in engine.garrisons().items()}
        score = colovini.score(
            engine.board_map, garrisons, players=engine.names,
            pieces_left={name: engine.hand(i) for i, name in enumerate(engine.names)},
        )
        assert score == result
        state = d.state()
        assert state["phase"] == "ended"
        assert state["result"]["islands"] == [i.as_dict() for i in score.islands]
        totals = {name: total for name, total in score.totals.items()}
        assert {s: v["total"] for s, v in state["scores"].items()} == {
            seat: totals[engine.names[i]] for i, seat in enumerate(d.adapter.colours)}
        owned = {c: SEAT_HUE[str(i.owner).lower()] for i in score.islands if i.owner
                 for c in i.cities}
        tied = [c for i in score.islands if i.tied for c in i.cities]
        empty = [c for i in score.islands if not i.strengths for c in i.cities]
        assert owned
        d.frame_where({**owned, **{c: "off" for c in empty}})
        if tied:
            d.frame_where({**owned, **{c: "amber" for c in tied}})
            d.frame_where({**owned, **{c: "off" for c in tied}})


def test_a_map_that_does_not_fit_the_board_is_refused(tmp_path: Path) -> None:
    setup = TableSetup(game="colovini", board="sim", profile="colovini-50",
                       players=("Ann", "Bob", "Cid"), db=":memory:")
    with pytest.raises(ValueError, match="--profile colovini-40"):
        open_table(setup)
