"""Kato's adapter through a table with a fake board: assist levels, pass, end, overlooked groups."""

from __future__ import annotations

import random

from tests.table.fakes import FakeBoard, FakeClock

from meridian_table.games import kato
from meridian_table.games.board import REMOVE_COLOUR
from meridian_table.games.kato.adapter import COLOURS, DARK_COLOUR, KatoAdapter
from meridian_table.profiles import load_profile
from meridian_table.table import MemoryJournal, TableSession


class Bot:
    """A diligent player at a fake board: follows the guidance, else plays ``moves``."""

    def __init__(self, size: int = 5, **options: object) -> None:
        self.profile = load_profile({5: "kato-80", 6: "kato-114", 7: "kato-154"}[size])
        self.board = FakeBoard(self.profile)
        self.clock = FakeClock()
        self.journal = MemoryJournal(7)
        self.adapter = KatoAdapter(size, **options)  # type: ignore[arg-type]
        self.session = TableSession(
            self.adapter, self.profile, self.board, journal=self.journal, clock=self.clock,
            players=("Ann", "Bob"),
        )
        self.board.session = self.session

    def settle(self) -> None:
        self.clock.advance(0.31)
        self.session.tick()

    def resolve(self) -> None:
        """Follow the out-of-sync guidance until the board matches."""
        for _ in range(200):
            state = self.session.state()
            if state["phase"] != "resync":
                return
            site = state["diff"]["next"]
            self.board.set(site, site in state["diff"]["put_back"])
            self.settle()
        raise AssertionError("guidance did not converge")

    def act(self, move: str) -> None:
        if move == "pass":
            self.session.press("confirm")
        else:
            self.board.set(move, True)
            self.settle()
        self.resolve()


def _line(size: int, stop: str, seed_range: range = range(300)) -> list[str]:
    """Moves of a random game up to (excluding) a pass, or through the winning move."""
    for seed in seed_range:
        rng = random.Random(seed)
        game = kato.new_game(size)
        moves: list[str] = []
        while game.winner is None and len(moves) < 300:
            move = rng.choice(sorted(game.legal_moves()))
            if stop == "pass" and move == "pass":
                return moves
            game.play(move)
            moves.append(move)
        if stop == "end" and game.winner is not None:
            return moves
    raise AssertionError(f"no random game reached {stop}")


def test_a_random_game_to_the_end_celebrates_the_winner() -> None:
    moves = _line(5, "end")
    bot = Bot(5)
    for move in moves:
        assert bot.session.phase in ("play", "pass"), bot.session.state()["message"]
        bot.act(move)
    state = bot.session.state()
    assert state["phase"] == "ended"
    winner = state["result"]["winner"]
    colour = COLOURS[winner]
    # The last move's dead stones still stand: they blink "remove" until lifted; the
    # table reads the board but logs nothing now that the game is over.
    dead = sorted(bot.session.history[-1].removed)
    assert dead, "the winning move removes the loser's last stones"
    assert set(state["leds"]) == set(dead) and "blink red" in state["message"]
    logged = len(bot.journal.events)
    for n, site in enumerate(dead, start=1):
        assert bot.board.light_at(site) == (REMOVE_COLOUR, "F")
        bot.board.set(site, False)
        bot.settle()
        if n < len(dead):
            assert bot.board.light_at(site) == (0, "O")  # lifted: dark until the last is off
    assert len(bot.journal.events) == logged and bot.session.phase == "ended"
    assert all(lt.colour == colour and lt.effect == "P" for lt in bot.board.plans[-1].lights)
    (kind, payload), = bot.journal.of_kind("result")
    assert payload["winners"] == [state["seats"][winner]]
    assert [m["notation"] for m in state["moves"]] == moves
    assert bot.session.command({"cmd": "button", "name": "confirm"})["ok"] is False


def test_pass_is_announced_and_made_with_confirm() -> None:
    moves = _line(5, "pass")
    bot = Bot(5)
    for move in moves:
        bot.act(move)
    state = bot.session.state()
    assert state["phase"] == "pass" and "Confirm" in state["message"]
    bot.session.press("confirm")
    assert bot.session.state()["moves"][-1]["notation"] == "pass"


def test_captures_only_lights_dead_groups_but_no_legal_points() -> None:
    bot = Bot(6, assist="captures")
    assert all(lt.is_off for lt in bot.board.plans[-1].lights)
    bot.act("A1")
    assert bot.board.light_at("A1")[1] == "X"
    assert sum(not lt.is_off for lt in bot.board.plans[-1].lights) == 1


def test_tournament_shows_nothing_and_overlooked_groups_live_on() -> None:
    game_moves = _capture_line()
    bot = Bot(6, assist="tournament")
    for move in game_moves[:-1]:
        bot.act(move)
    bot.board.set(game_moves[-1], True)
    bot.settle()
    removed = bot.session.state()["moves"][-1]["removed"]
    assert removed
    state = bot.session.state()
    assert state["phase"] == "play"  # nothing revealed: the mover may overlook them
    assert all(bot.board.light_at(s) == (0, "O") for s in removed)
    legal = state["legal"]
    assert set(state["leds"]) <= {game_moves[-1]}  # at most the accepted stone's flash
    # The next mover places without lifting the dead stones: they were overlooked.
    target = next(s for s in legal if s not in removed)
    bot.board.set(target, True)
    bot.settle()
    last = bot.session.state()["moves"][-1]
    assert last["notation"].startswith(f"{target} overlooked")
    assert set(removed) <= bot.adapter.expected()


def test_a_placement_beside_dead_stones_waits_for_their_removal_at_full_assist() -> None:
    game_moves = _capture_line()
    bot = Bot(6)
    for move in game_moves:
        bot.board.set(move, True)
        bot.settle()
        if move != game_moves[-1]:
            bot.resolve()
    removed = bot.session.state()["moves"][-1]["removed"]
    other = next(s for s in bot.session.state()["board"]["sites"] if s["piece"] is None
                 and s["id"] not in removed)["id"]
    bot.board.set(other, True)
    bot.settle()
    state = bot.session.state()
    assert state["phase"] == "resync" and other in state["diff"]["remove"]
    assert "dead stones first" in state["diff"]["reasons"][other]
    for site in removed:
        assert bot.board.light_at(site) == (REMOVE_COLOUR, "F")
    assert len(state["moves"]) == len(game_moves)


def test_hints_use_the_movers_colour() -> None:
    bot = Bot(6)
    bot.act("A1")
    lit = {lt for lt in bot.board.plans[-1].lights if not lt.is_off and lt.effect == "S"}
    assert lit and all(lt.colour != 0 and (lt.colour & 0xFF) >= ((lt.colour >> 16) & 0xFF) for lt in lit)
    assert DARK_COLOUR & 0xFF == 0xFF


def _capture_line() -> list[str]:
    for seed in range(200):
        rng = random.Random(seed)
        game = kato.new_game(6)
        moves: list[str] = []
        for _ in range(150):
            legal = sorted(game.legal_moves() - {"pass"})
            if not legal or game.winner is not None:
                break
            move = rng.choice(legal)
            ply = game.play(move)
            moves.append(move)
            if ply.removed and game.winner is None:
                return moves
    raise AssertionError("no capture")
