"""The real Kato engine through the log: log a random game with undos, replay it, export
its record and read that record back with Kato's own parser."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.games import kato
from meridian_table.store import Store
from meridian_table.store.export import export
from meridian_table.store.replay import replay


def _play_logged(store: Store, seed: int, pie: bool) -> tuple[int, object]:
    options = {"size": 6, "pie": pie}
    gid = store.create_game("kato", options, ["Ann", "Bob"], profile="kato-114",
                            versions={"firmware": "0.1.0"})
    live = kato.new_game(**options)
    rng = random.Random(seed)
    for turn in range(60):
        if live.winner is not None:
            break
        if turn % 11 == 10 and live.plies:
            taken = live.undo()
            store.append(gid, "undo", {"notation": taken.notation})
            continue
        move = rng.choice(sorted(live.legal_moves()))
        ply = live.play(move)
        store.append(gid, "action", {"notation": move, "player": ply.colour,
                                     "removed": sorted(ply.removed)})
    return gid, live


@pytest.mark.parametrize(("seed", "pie"), [(1, False), (2, True), (3, False)])
def test_kato_games_replay_exactly(store: Store, seed: int, pie: bool) -> None:
    gid, live = _play_logged(store, seed, pie)
    rebuilt = replay(store, gid)
    assert rebuilt.engine.position() == live.position()  # type: ignore[attr-defined]
    assert rebuilt.engine.to_move == live.to_move  # type: ignore[attr-defined]
    assert rebuilt.engine.winner == live.winner  # type: ignore[attr-defined]
    halfway = replay(store, gid, ply=rebuilt.total // 2)
    assert len(halfway.engine.plies) == rebuilt.total // 2


def test_kato_record_export_reads_back(store: Store) -> None:
    gid, live = _play_logged(store, 4, False)
    winner = live.winner  # type: ignore[attr-defined]
    if winner is not None:
        name = "Ann" if winner == "light" else "Bob"
        store.finish(gid, {"winners": [name], "reason": f"{winner} wins"})
    text = export(store, gid, "record")
    headers, parsed = kato.record.parse(text)
    assert headers["Player1"] == "Ann" and headers["Player2"] == "Bob"
    assert parsed.position() == live.position()  # type: ignore[attr-defined]
    assert [p.notation for p in parsed.plies] == [p.notation for p in live.plies]  # type: ignore[attr-defined]


def test_replay_command_draws_the_kato_board(db_path: Path) -> None:
    with Store.open(db_path) as store:
        gid, live = _play_logged(store, 5, False)
    out = CliRunner(env={"COLUMNS": "200"}).invoke(main, ["replay", str(gid), "--db", str(db_path)])
    assert out.exit_code == 0, out.output
    drawing = out.output.split("Position after move")[1].splitlines()[1:]
    stones = "".join(drawing).replace(" ", "")
    assert sorted(stones) == sorted(live.position())  # type: ignore[attr-defined]
