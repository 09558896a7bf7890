"""Empire in Space through the platform: registry, options, policies, adapter, bench."""

from __future__ import annotations

import contextlib
import json
import random

import pytest
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.games import registry
from meridian_table.games.contract import OptionError, RandomPolicy, parse_options
from meridian_table.games.empire import Game


def test_registered_as_empire() -> None:
    spec = registry.spec("empire")
    assert spec.title == "Meridian: Empire in Space"
    assert set(spec.policies) == {"random", "scelrotia"}


def test_new_game_from_options() -> None:
    spec = registry.spec("empire")
    options, _ = parse_options(spec.options, {"players": "2", "mode": "two-player"}, "empire")
    game = spec.new_game(options, 7)
    assert isinstance(game, Game) and game.mode == "two-player" and game.seed == 7
    clone = game.clone()
    clone.play("end")
    assert game.round == 1 and game.turn().seat == 0 and clone.turn().seat == 1


def test_prepare_refuses_a_bad_map_and_a_bad_count(tmp_path) -> None:  # type: ignore[no-untyped-def]
    spec = registry.spec("empire")
    assert spec.prepare is not None
    bad = tmp_path / "m.toml"
    bad.write_text("format = 2\n", encoding="utf-8")
    with pytest.raises(OptionError, match="format"):
        spec.prepare({"map": str(bad)})
    with pytest.raises(OptionError, match="infection-solo is played by 1"):
        spec.prepare({"mode": "infection-solo", "players": 3})


def test_the_adapter_plays_on_the_profile_and_refuses_a_map_bigger_than_it() -> None:
    spec = registry.spec("empire")
    adapter = spec.adapter({"players": 2, "seed": 5}, {}, {"planets": {"yellow": 4,
                                                                     "white": 4, "orange": 3},
                                                       "moons": 15})
    assert adapter.colours == ("red", "blue") and adapter.options["seed"] == 5
    with pytest.raises(OptionError, match="no site for moon.6"):
        spec.adapter({"players": 2}, {}, {"planets": {"yellow": 4, "white": 4, "orange": 3},
                                          "moons": 5})


def test_policies_play_their_seats() -> None:
    spec = registry.spec("empire")
    game = spec.new_game({"players": 1, "mode": "infection-solo"}, 3)
    game.play("end")
    assert spec.policy("scelrotia").choose(game.clone()) == "scelrotia"
    with pytest.raises(OptionError, match="takes no setting"):
        spec.policy("scelrotia:2")
    other = spec.new_game({"players": 2}, 3)
    with pytest.raises(ValueError, match="only its own turn"):
        spec.policy("scelrotia").choose(other)
    assert RandomPolicy(1).choose(other) in other.legal()


def test_hidden_from_redeals_what_a_seat_cannot_see() -> None:
    spec = registry.spec("empire")
    game = spec.new_game({"players": 3, "events": True}, 3)
    assert isinstance(game, Game)
    seen = game.hidden_from(0, random.Random(1))
    assert seen.state.seats[0].hand == game.state.seats[0].hand
    hidden = [b.id for b in game.state.bodies.values() if not b.discovered]
    assert any(seen.state.bodies[b].card != game.state.bodies[b].card for b in hidden)
    assert sorted(seen.state.bodies[b].card for b in hidden) == \
        sorted(game.state.bodies[b].card for b in hidden)
    assert seen.legal() == game.legal()
    with pytest.raises(IndexError):
        seen.undo()


def test_view_hides_face_down_planets() -> None:
    game = registry.spec("empire").new_game({"players": 2}, 3)
    assert isinstance(game, Game)
    view = json.loads(json.dumps(game.view()))
    assert all(b["card"] is None for b in view["bodies"].values() if not b["discovered"])
    assert view["to_move"] == 0 and view["phase"] == "play"


def test_bench_quick_prints_figures_and_a_verdict() -> None:
    result = CliRunner().invoke(main, ["bench", "empire", "--quick", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    for key in ("legal_actions_us_p50", "legal_actions_us_p99", "scelrotia_turn_us_p99",
                "random_games_per_s", "reference_state_copy_us_p50", "verdict"):
        assert key in figures
    assert figures["invariant_games"] == 5 * 6 and figures["invariant_problems"] == 0
    assert figures["verdict"]["invariants"] == "pass"


def test_empire_play_in_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "game.empire"
    result = CliRunner().invoke(main, ["empire", "play", "--players", "Ann,Bob", "--seed", "2",
                                       "--record", str(out)], input="?\nfly\nend\nundo\nend\n")
    assert result.exit_code == 0, result.output
    assert "not played" in result.output and "undone: end" in result.output
    assert out.read_text(encoding="utf-8").endswith("1. end\n")


@pytest.mark.parametrize("options", [{"players": 3}, {"players": 1, "mode": "infection-solo"}])
def test_random_play_through_the_contract_reaches_an_outcome(options: dict[str, object]) -> None:
    """As tests/games/test_contract.py does for the other games; the table calls time
    after 300 actions (a standard game need not end by itself)."""
    spec = registry.spec("empire")
    engine = spec.new_game(options, 7)  # type: ignore[arg-type]
    policies = {"random": spec.policy("random", seed=1), "scelrotia": spec.policy("scelrotia")}
    plies = 0
    while engine.outcome() is None:
        turn = engine.turn()
        assert turn.seat is not None and engine.legal()
        who = "scelrotia" if turn.phase == "scelrotia" else "random"
        action = policies[who].choose(engine.clone(), 0.1)
        assert action in engine.legal()
        engine.play(action)
        plies += 1
        if plies == 300 and engine.outcome() is None:
            with contextlib.suppress(ValueError):  # the final round may be under way already
                engine.play("time")
    assert engine.turn().seat is None and engine.legal() == ()
    while True:
        try:
            engine.undo()
        except IndexError:
            break
    assert engine.turn().seat == 0 and engine.round == 1
