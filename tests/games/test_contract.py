"""The game contract and the registry: options schemas, seats, specs of every game."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from tests.cli.helpers import refuse

from meridian_table.games import registry
from meridian_table.games.board import AdapterError, Applied, History
from meridian_table.games.contract import (
    Engine,
    GameSpec,
    OptionError,
    OptionSpec,
    PolicyCancelled,
    RandomPolicy,
    parse_options,
)

SCHEMA = (
    OptionSpec("size", int, 6, "size", choices=("5", "6", "7")),
    OptionSpec("pie", bool, False, "pie"),
    OptionSpec("assist", str, "full", "assist", choices=("full", "none"), kind="setting"),
    OptionSpec("seed", int, None, "seed", minimum=0, maximum=99),
)


def test_options_are_typed_and_split_into_engine_options_and_settings() -> None:
    engine, settings = parse_options(SCHEMA, {"size": "7", "pie": "yes", "assist": "none"}, "g")
    assert engine == {"size": 7, "pie": True} and settings == {"assist": "none"}


@pytest.mark.parametrize("given, words", [
    ({"sise": 6}, "g has no option 'sise'; its options are: assist, pie, seed, size"),
    ({"size": 8}, "option 'size': 8 is not one of 5, 6, 7"),
    ({"size": "six"}, "option 'size': 'six' is not a whole number"),
    ({"size": True}, "option 'size': True is not a whole number"),
    ({"pie": "maybe"}, "option 'pie': 'maybe' is not yes or no"),
    ({"seed": 100}, "option 'seed': 100 is above 99"),
    ({"seed": "1e999"}, "option 'seed': '1e999' is not a whole number"),
    ({"assist": "some"}, "option 'assist': 'some' is not one of full, none"),
])
def test_a_misspelt_or_bad_option_is_an_error_that_names_it(given: dict[str, object],
                                                           words: str) -> None:
    with pytest.raises(OptionError) as info:
        parse_options(SCHEMA, given, "g")
    assert words in str(info.value)


#: Every installed game: the shipped ones, the toy and any other package in this venv.
GAMES = registry.ids()


def players(spec: GameSpec) -> int:
    """A player count the game is played with: two when it can be."""
    return 2 if 2 in spec.player_counts else min(spec.player_counts)


def table_options(spec: GameSpec) -> dict[str, object]:
    """The options the table fills in itself (the number of players named)."""
    return {o.name: players(spec) for o in spec.options if o.from_table and o.type is int}


def test_every_installed_game_has_a_complete_spec() -> None:
    specs = registry.specs()
    assert {"kato", "colovini", "toy"} <= set(specs)
    for game, spec in specs.items():
        assert isinstance(spec, GameSpec) and spec.id == game
        json.dumps(spec.to_json())  # the page reads it as JSON
        assert spec.page.seats and spec.player_counts


@pytest.mark.parametrize("game", GAMES)
def test_random_play_through_the_contract_reaches_an_outcome(game: str) -> None:
    spec = registry.spec(game)
    engine = spec.new_game(table_options(spec), 7)
    assert isinstance(engine, Engine)
    policy = spec.policy("random", seed=1)
    plies = 0
    while engine.outcome() is None:
        turn = engine.turn()
        assert turn.seat is not None and engine.legal()
        action = policy.choose(engine.clone(), 0.1)
        assert action in engine.legal()
        engine.play(action)
        plies += 1
        assert plies < 5000
    assert engine.turn().seat is None and engine.legal() == ()
    for _ in range(plies):
        engine.undo()
    with pytest.raises(IndexError):
        engine.undo()


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_bot_that_explains_a_legal_move(game: str) -> None:
    """The bot declared on the spec (the game's own, or the generic search bot) plays a
    legal move for a fixed amount of search and says what the moves are worth."""
    spec = registry.spec(game)
    assert spec.bot is not None
    engine = spec.new_game(table_options(spec), 3)
    before = engine.legal()
    bot = spec.policy("bot:1:8", seed=2)
    verdict = spec.bot.policy(2, "1:8").analyse(engine.clone(), 5.0)
    assert verdict.best in before and set(verdict.values) <= set(before)
    assert bot.choose(engine.clone(), 5.0) in before
    assert engine.legal() == before  # searched on copies
    assert [lv["automaton"] for lv in spec.to_json()["levels"]["bot"]] == [  # type: ignore[index]
        f"bot:{n}" for n in range(1, 6)]


def test_a_cancelled_policy_answers_nothing() -> None:
    import threading

    cancel = threading.Event()
    cancel.set()
    with pytest.raises(PolicyCancelled):
        RandomPolicy(1).choose(registry.spec("toy").new_game({}, None), 1.0, cancel)


def test_an_unknown_automaton_is_named_with_the_known_ones() -> None:
    with pytest.raises(OptionError, match="no automaton 'genius'; choose one of: bot, random"):
        registry.spec("toy").policy("genius")
    with pytest.raises(OptionError, match="seat automaton 'random:3'"):
        registry.spec("toy").policy("random:3")


def test_an_unknown_game_names_the_installed_ones() -> None:
    with pytest.raises(registry.UnknownGameError, match="no game 'chess'.*kato"):
        registry.spec("chess")


def test_seats_on_the_command_line_are_checked() -> None:
    refuse(["play", "kato", "--seat", "2", "--db", ":memory:"], "--seat", "2=random", code=2)
    refuse(["play", "kato", "--seat", "3=random", "--db", ":memory:"], "seat 3", "1 to 2",
           code=2)
    refuse(["play", "kato", "--seat", "2=oracle", "--db", ":memory:"], "'oracle'", "random",
           code=2)
    refuse(["play", "kato", "--pei", "--db", ":memory:"], "--pei", code=2)


def test_a_headless_game_against_the_random_automaton(tmp_path: Path) -> None:
    """`play kato --seat 2=random --headless`: the automaton's move is asked for."""
    script = "place G6\nwait\nwait\nstate\n"
    out = subprocess.run(
        [sys.executable, "-m", "meridian_table.cli.main", "play", "kato", "--headless",
         "--board", "sim", "--seat", "2=random", "--db", str(tmp_path / "g.sqlite3")],
        input=script, capture_output=True, text=True, timeout=120, check=False,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    full = [r["state"] for r in lines if r["event"] == "full-state"][-1]
    assert full["phase"] == "execute" and full["seats_kind"]["dark"] == "random"
    assert full["automaton"]["status"] == "executing"
    assert full["diff"]["put_back"] == [full["diff"]["next"]]


@pytest.mark.parametrize("game", GAMES)
def test_one_default_profile_the_spec_s(game: str) -> None:
    """The spec says which board a game plays on when none is named, and the simulated
    board uses it (``ClockedBoard("empire")`` raised ProfileError while the adapter had a
    default of its own, the game's name)."""
    from meridian_table.games.board import Adapter
    from meridian_table.sim.replay import ClockedBoard

    spec = registry.spec(game)
    assert not hasattr(Adapter, "default_profile")
    board = ClockedBoard(game, options=table_options(spec))
    assert board.profile.name == spec.default_profile(
        len(board.adapter.colours), table_options(spec))
    assert spec.accepts_board(board.profile.game)


@pytest.mark.parametrize("game", GAMES)
def test_the_table_s_history_and_the_adapter_s_dialogue_reopen_a_game(game: str) -> None:
    """Resume, through the contract: an adapter opened fresh, its engine given the same
    actions, the history's entries and the dialogue's JSON record, is the same game."""
    spec = registry.spec(game)
    options = table_options(spec)
    adapter = registry.create_adapter(game, options)
    history = History(adapter)
    assert adapter.past is history and adapter.dialogue() == json.loads(
        json.dumps(adapter.dialogue()))
    rng = random.Random(3)
    for _ in range(6):
        legal = adapter.engine.legal()
        if adapter.result() is not None or not legal:
            break
        history.play(rng.choice(legal))
    record = json.loads(json.dumps(adapter.dialogue()))  # as the log keeps it
    again = registry.create_adapter(game, adapter.options)  # as the log keeps them
    for applied in history:
        again.engine.play(applied.notation)
    reopened = History(again, history.entries())
    again.reopen(record)
    assert again.dialogue() == adapter.dialogue()
    assert again.pieces() == adapter.pieces() and again.expected() == adapter.expected()
    assert again.view(None) == adapter.view(None)
    # The history takes back what it applied, and hands the adapter the entry.
    last = reopened.last
    assert last is not None and reopened.undo() == last and len(reopened) == len(history) - 1


def test_an_adapter_that_refuses_an_undo_keeps_the_entry() -> None:
    adapter = registry.create_adapter("toy", {})
    history = History(adapter)
    history.play("a")

    def refuse_undo(applied: Applied) -> None:
        raise AdapterError(f"not {applied.notation}")

    adapter.undo = refuse_undo  # type: ignore[method-assign]
    with pytest.raises(AdapterError, match="not a"):
        history.undo()
    assert [a.notation for a in history] == ["a"]
