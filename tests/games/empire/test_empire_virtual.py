"""Empire in Space through the virtual board: real firmware, pty, link, table, adapter.

The ships and colonies are moved on the simulated switches as people would; what the
board cannot sense is tapped as the page does (``choose action ...``). The LEDs are
checked on the frames the firmware rendered (``VirtualBoard.leds()``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.games.driver import BoardDriver
from tests.games.empire import script as empire_script

from meridian_table.games import registry
from meridian_table.games.board import History
from meridian_table.games.empire.adapter import EmpireAdapter
from meridian_table.games.empire.drawing import SENSED_VERBS
from meridian_table.games.empire.engine import Game
from meridian_table.games.registry import create_adapter as create
from meridian_table.store.export import export, export_record
from meridian_table.store.store import Store
from meridian_table.table.runner import RunningTable, TableSetup, open_table

RGB = tuple[int, int, int]
#: Actions a scripted player prefers, most wanted first (the rest: end the turn).
WANTED = ("settle", "discover", "build", "waypoint", "colony", "move", "charge")


def red(c: RGB) -> bool:
    return c[0] > 0 and c[1] == 0 and c[2] == 0


def lit(c: RGB) -> bool:
    return c != (0, 0, 0)


class Driver(BoardDriver):
    def __init__(self, table: RunningTable) -> None:
        super().__init__(table)
        state = self.state()
        self.mirror = create("empire", state["options"], {}, table.profile.variant)
        assert isinstance(self.mirror, EmpireAdapter)
        self.moves_played = History(self.mirror)

    def led(self, site: str) -> Callable[[list[RGB]], RGB]:
        index = self.profile.sites[site].led
        assert index is not None
        return lambda leds: tuple(leds[index])  # type: ignore[return-value]

    def shows(self, site: str, test: Callable[[RGB], bool], timeout: float = 5.0) -> None:
        get = self.led(site)
        self.vb.wait_for(lambda leds: test(get(leds)), timeout)

    def moves(self) -> list[str]:
        return [m["notation"] for m in self.state()["moves"]]

    def sync(self) -> list[str]:
        """Bring the mirror (the test's own copy of the game) to the table's moves."""
        moves = self.moves()
        mine = [a.notation for a in self.moves_played]
        common = 0
        while common < min(len(moves), len(mine)) and moves[common] == mine[common]:
            common += 1
        for _ in range(len(mine) - common):
            self.moves_played.undo()
        for notation in moves[common:]:
            self.moves_played.play(notation)
        return moves

    def resolve(self) -> None:
        """Follow the guidance (resync, or an automaton's move) one square at a time."""
        for _ in range(200):
            state = self.state()
            if state["phase"] not in ("resync", "execute") or state["diff"]["next"] is None:
                return
            site = state["diff"]["next"]
            self.set(site, site in state["diff"]["put_back"])
        raise AssertionError("guidance did not converge")

    def choose(self, action: str) -> None:
        answer = self.session.command({"cmd": "choose", "field": "action", "value": action})
        assert answer == {"ok": True}, (action, answer)
        self.idle()

    def carry(self, action: str) -> None:
        """Carry ``action`` out as a person would: on the board when it moves a piece
        the switches sense (answering what they cannot tell), else tapped on the page."""
        count = len(self.moves())
        before = self.mirror.expected()
        self.mirror.engine.play(action)
        after = self.mirror.expected()
        self.mirror.engine.undo()
        changes = [(site, False) for site in sorted(before - after)] + \
            [(site, True) for site in sorted(after - before)]
        if action.split()[0] not in SENSED_VERBS or not changes:
            self.choose(action)
        else:
            for site, closed in changes:  # one gesture: within one settle window
                self.vb.set_site(site, closed)
            site, closed = changes[-1]
            self.set(site, closed)
            state = self.state()
            if len(state["moves"]) > count:
                assert state["moves"][count]["notation"] == action, (action, state["moves"][count:])
            else:
                assert state["question"] and action in state["question"]["choices"], \
                    (action, state["message"], state["question"])
                self.choose(action)
        assert self.sync()[count] == action


def pick(actions: list[dict[str, Any]], rng: random.Random) -> str:
    for verb in WANTED:
        chosen = [a["notation"] for a in actions if a["group"] == verb]
        if chosen and rng.random() < 0.7:
            return rng.choice(chosen)
    return "end"


@pytest.fixture
def three(tmp_path: Path) -> Iterator[RunningTable]:
    setup = TableSetup(game="empire", board="sim", players=("Ann", "Bob", "Cy"),
                       options={"seed": empire_script.SEED}, db=str(tmp_path / "games.sqlite3"), settle_s=0.04)
    with open_table(setup) as running:
        assert running.wait_ready(30), "the virtual board did not connect"
        yield running


@pytest.mark.slow
def test_a_three_player_game_on_the_virtual_board(three: RunningTable, tmp_path: Path) -> None:
    d = Driver(three)
    game = d.mirror.engine
    start = game.state.ships["s1"].quadrant
    state = d.state()  # the opening: each player's fighter is put on the board
    assert state["phase"] == "resync" and state["diff"]["next"] == start
    assert state["diff"]["reasons"][start] == "Red's fighter belongs here: put it on"
    d.resolve()
    d.shows(start, lit)  # Red's ship glows in Red's colour
    # A ship lifted: its reachable quadrants light on the rendered frame, full ones never.
    d.set(start, False)
    state = d.state()
    assert state["phase"] == "play" and "lifted" in state["message"]
    reachable = state["legal"]
    occupancy = game.read.occupancy()
    for site in reachable:
        d.shows(site, lit)
        assert occupancy[site] < game.board.quadrants[site].capacity
    # Set down where it may not go: guided back one square at a time (the red blink).
    far = next(q for q in game.board.quadrants if game.board.distance[start][q] > 4)
    d.set(far, True)
    state = d.state()
    assert state["phase"] == "resync" and state["diff"]["next"] == far
    d.shows(far, red)
    d.set(far, False)
    assert d.state()["phase"] == "play"  # the ship in the hand again
    # A legal move, sensed and logged.
    goal = sorted(a.split()[2] for a in game.legal() if a.startswith("move s1 "))[0]
    d.set(goal, True)
    assert d.sync() == [f"move s1 {goal}"]
    # Undo: the ship set down is guided back, and the game is at its start again.
    d.session.press("undo")
    d.idle()
    d.resolve()
    assert d.sync() == [] and d.state()["phase"] == "play"
    # The scripted game: what the board senses on the board, the rest on the page.
    rng = random.Random(empire_script.SEED)
    seen: set[str] = set()
    verbs: set[str] = set()
    for _ in range(400):
        state = d.state()
        if state["phase"] == "ended":
            break
        if state["phase"] == "resync":
            lost = [site for site in state["diff"]["remove"]
                    if "lost" in state["diff"]["reasons"][site]]
            for site in lost:
                d.shows(site, red)  # each colony lost blinks until it is taken off
                seen.add("lost colony guided off")
            d.resolve()
            continue
        if state["board"]["ledger"]["final"]:
            seen.add("final round")
        action = empire_script.choose(game, rng)
        before = game.state.copy()
        d.carry(action)
        verbs.add(action.split()[0])
        seen |= empire_script.features(before, game, action)
    state = d.state()
    assert {"move", "settle", "discover", "build", "attack", "strike", "end"} <= verbs, verbs
    assert {"shields", "counter", "stolen", "claimed", "lost planet", "lost colony guided off",
            "final round"} <= seen, seen
    assert state["phase"] == "ended" and state["result"]["winner"] in ("red", "blue", "green")
    assert state["board"]["ledger"]["outcome"]["standing"]
    # The logged record (exported as the game's text record) replays to the same state.
    moves = d.sync()
    three.close()
    store = Store.open(tmp_path / "games.sqlite3")
    try:
        info = store.games()[-1]
        assert store.actions(info.id) == moves
        for fmt in ("jsonl", "csv", "bgstats"):
            assert export(store, info.id, fmt)
        _, replayed = registry.spec("empire").records.parse(export_record(store, info.id))
    finally:
        store.close()
    assert isinstance(replayed, Game) and replayed.view() == game.view()
    assert replayed.outcome() == game.outcome()


@pytest.fixture
def solo(tmp_path: Path) -> Iterator[RunningTable]:
    setup = TableSetup(game="empire", board="sim", players=("Ann",),
                       options={"seed": 11, "mode": "infection-solo"},
                       db=str(tmp_path / "solo.sqlite3"), settle_s=0.04)
    with open_table(setup) as running:
        assert running.wait_ready(30), "the virtual board did not connect"
        yield running


def test_a_solo_infection_game_with_the_scelrotia_carried_out_on_the_board(
        solo: RunningTable) -> None:
    d = Driver(solo)
    state = d.state()
    assert state["players"] == ["Ann", "Scelrotia"]
    assert state["seats_kind"] == {"red": "person", "scelrotia": "scelrotia"}
    rng = random.Random(5)
    scelrotia_turns = 0
    for _ in range(40):
        state = d.state()
        if state["phase"] == "ended":
            break
        if state["phase"] == "execute":
            assert state["automaton"]["words"].startswith("its turn")
            d.resolve()
            continue
        if state["phase"] in ("thinking",):
            d.idle()
            continue
        if state["phase"] == "resync":
            d.resolve()
            continue
        moves = d.sync()
        scelrotia_turns = moves.count("scelrotia")
        if scelrotia_turns >= 2:
            break
        d.carry(pick(state["board"]["ledger"]["actions"], rng))
    d.sync()
    assert scelrotia_turns >= 2
    assert d.session.state()["moves"][-1]["player"] in ("red", "scelrotia")
    # The table calls time: in the infection modes the Scelrotia wins.
    d.choose("time")
    state = d.state()
    assert state["phase"] == "ended" and state["result"]["winner"] == "scelrotia"


def test_the_scoring_assistant_plays_on_the_page_while_the_board_only_shows(
        tmp_path: Path) -> None:
    setup = TableSetup(game="empire", board="sim", players=("Ann", "Bob"),
                       options={"seed": 3}, settings={"sensing": "off"},
                       db=str(tmp_path / "assist.sqlite3"), settle_s=0.04)
    with open_table(setup) as table:
        assert table.wait_ready(30)
        d = Driver(table)
        assert d.state()["phase"] == "play"  # no piece on the printed board is asked for
        game = d.mirror.engine
        move = next(a for a in game.legal() if a.startswith("move s1 "))
        for action in ("charge", move, "end"):
            d.choose(action)
            assert d.state()["phase"] == "play", d.state()["message"]
        assert d.sync() == ["charge", move, "end"]
        assert "tap what you do" in d.state()["message"]
        d.set(game.state.ships["s2"].quadrant, True)  # a piece stood on the board: ignored
        assert d.state()["phase"] == "play" and d.sync() == ["charge", move, "end"]
