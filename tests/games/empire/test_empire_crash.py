"""Empire in Space killed with SIGKILL at many points, inside a combat and inside the
Scelrotia's turn too: `play empire --resume` restores every acknowledged action, once."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from tests.games.empire import script as empire_script
from tests.table.headless import Headless

from meridian_table.games.board import History
from meridian_table.games.empire.adapter import EmpireAdapter
from meridian_table.games.empire.drawing import SENSED_VERBS
from meridian_table.games.registry import create_adapter as create


class Player:
    """Plays the scripted game through `--headless` commands, with a mirror of the game."""

    def __init__(self, options: dict[str, object]) -> None:
        adapter = create("empire", options, {}, {})
        assert isinstance(adapter, EmpireAdapter)
        self.mirror = adapter
        self.moves_played = History(adapter)

    def sync(self, moves: list[str]) -> None:
        mine = [a.notation for a in self.moves_played]
        common = 0
        while common < min(len(moves), len(mine)) and moves[common] == mine[common]:
            common += 1
        for _ in range(len(mine) - common):
            self.moves_played.undo()
        for notation in moves[common:]:
            self.moves_played.play(notation)

    def commands(self, state: dict[str, object]) -> list[str] | None:
        """The commands of the next step (None: the game is over)."""
        phase = state["phase"]
        diff = state["diff"]
        assert isinstance(diff, dict)
        if phase in ("resync", "execute") and diff["next"] is not None:
            site = diff["next"]
            return [f"{'place' if site in diff['put_back'] else 'lift'} {site}"]
        if phase == "ended":
            return None
        if phase == "thinking":
            return []
        game = self.mirror.engine
        # The policy's draw depends only on the game so far, so a resumed game goes on
        # the same way.
        action = empire_script.choose(game, random.Random(len(game.history) * 7919 + 2))
        before = self.mirror.expected()
        game.play(action)
        after = self.mirror.expected()
        game.undo()
        if action.split()[0] not in SENSED_VERBS or before == after:
            return [f"choose action {action}"]
        return ([f"lift {s}" for s in sorted(before - after)]
                + [f"place {s}" for s in sorted(after - before)]
                + ["wait", f"unless-taken {action}"])


def _run(db: Path, extra: tuple[str, ...], options: dict[str, object], kills: int,
         wanted: str) -> set[str]:
    """Play, killing the process ``kills`` times; returns where the kills landed."""
    rng = random.Random(4321)
    player = Player(options)
    acked: list[str] = []
    landed: set[str] = set()
    fresh = True
    for round_no in range(kills):
        cli = Headless(db, *(extra if fresh else ("--resume",)), game="empire")
        try:
            ready = cli.until("ready", timeout=60)
            restored = [m["notation"] for m in ready["moves"]]
            # Exactly the acknowledged actions, in order, none twice; at most the one in
            # flight at the kill may have been logged too (and the Scelrotia's turn after
            # it, when it had nothing to carry out on the board and was played at once).
            assert restored[: len(acked)] == acked, (round_no, restored[-5:], acked[-5:])
            later = [a for a in restored[len(acked):] if a != "scelrotia"]
            assert len(later) <= 1, (round_no, restored[-5:], acked[-5:])
            cli.moves = list(restored)
            fresh = False
            steps = rng.randint(2, 12)
            done = 0
            while done < steps:
                state = cli.state()
                player.sync(cli.moves)
                lines = player.commands(state)
                if lines is None:
                    break
                count = len(cli.moves)
                for line in lines:
                    if line.startswith("unless-taken "):
                        for _ in range(20):  # until the board's last switch is read
                            seen = cli.state()
                            if len(cli.moves) > count or seen["question"]:
                                break
                        if len(cli.moves) > count:
                            continue  # the board read it
                        line = "choose action " + line.split(" ", 1)[1]
                    for record in cli.ask(line):
                        assert record["event"] != "error", record
                done += 1
                if wanted == "combat" and player.mirror.engine.state.combat is not None \
                        and rng.random() < 0.5:
                    break
                if wanted == "execute" and cli.state()["phase"] == "execute":
                    break
            state = cli.state()
            player.sync(cli.moves)
            if player.mirror.engine.state.combat is not None:
                landed.add("combat")
            if state["phase"] == "execute":
                landed.add("execute")
            if state["phase"] == "ended":
                landed.add("ended")
                cli.kill()
                break
            # Kill at a random moment, often with a command in flight.
            lines = [line for line in player.commands(state) or []
                     if not line.startswith("unless-taken ")]
            for line in lines[:1]:
                cli.send(line)
            time.sleep(rng.uniform(0.0, 0.08))
            cli.kill()
            while True:
                try:
                    cli.next(timeout=0.5)
                except Exception:  # the pipe closed or went quiet
                    break
            acked = list(cli.moves)
        finally:
            if cli.proc.poll() is None:
                cli.kill()
    return landed


@pytest.mark.slow
def test_kill_9_in_a_three_player_game_and_inside_combats(tmp_path: Path) -> None:
    # Seed 20: this test's own draws reach a combat by action 37.
    landed = _run(tmp_path / "games.sqlite3", ("--players", "Ann,Bob,Cy", "--seed", "20"),
                  {"players": 3, "seed": 20}, 12, "combat")
    assert "combat" in landed, landed


@pytest.mark.slow
def test_kill_9_inside_the_scelrotias_turn(tmp_path: Path) -> None:
    landed = _run(tmp_path / "solo.sqlite3",
                  ("--players", "Ann", "--mode", "infection-solo", "--seed", "11"),
                  {"players": 1, "mode": "infection-solo", "seed": 11}, 6, "execute")
    assert "execute" in landed, landed
