"""Games played at the table and left running, for the old-log test
(``tests/table/test_old_logs.py``).

``python -m tests.table.old_logs.scenario OUT.sqlite3`` in a checkout writes them with
that checkout's table. The fixture ``main-2c75809.sqlite3`` beside this file was
written so by main at commit 2c75809, the table before it owned the history of applied
actions: its ``action`` events carry no ``placed``/``words`` and nothing logs the
adapters' dialogue. The test plays the same games with today's table and checks that
both logs resume to the same game. Only the table's public surface is used here
(``TableSession``, ``start_game``, a fake board), so both versions run it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.table.fakes import FakeBoard, FakeClock

from meridian_table.games import registry
from meridian_table.profiles import load_profile
from meridian_table.store import Store
from meridian_table.table import TableSession
from meridian_table.table.storejournal import start_game

SETTLE_S = 0.3


class Played:
    """One game at a table with a fake board and clock, logged in a store."""

    def __init__(self, store: Store, game: str, options: dict[str, object],
                 settings: dict[str, object], profile: str, players: tuple[str, ...]) -> None:
        self.adapter = registry.create_adapter(game, options, settings)  # type: ignore[arg-type]
        loaded = load_profile(profile)
        self.board = FakeBoard(loaded)
        self.clock = FakeClock()
        journal = start_game(store, self.adapter, list(players), profile=profile,
                             settings=self.adapter.settings())
        self.game_id = journal.game_id
        self.session = TableSession(self.adapter, loaded, self.board, journal=journal,  # type: ignore[arg-type]
                                    clock=self.clock, settle_s=SETTLE_S, players=players)
        self.board.session = self.session

    def put(self, site: str, closed: bool = True) -> None:
        self.board.set(site, closed)
        self.clock.advance(SETTLE_S + 0.01)
        self.session.tick()

    def press(self, button: str) -> None:
        self.board.press(button)
        self.clock.advance(SETTLE_S + 0.01)
        self.session.tick()

    def choose(self, field: str, value: str) -> None:
        answer = self.session.command({"cmd": "choose", "field": field, "value": value})
        assert answer == {"ok": True}, answer


def play_all(store: Store) -> dict[str, int]:
    """Every scenario, each left running; their names and game ids."""
    out: dict[str, int] = {}

    # Kato under the pie rule: the opener kept Dark, and the table stopped before
    # Dark's first own move (the choice lives only in the adapter's dialogue).
    kept = Played(store, "kato", {"size": 6, "pie": True}, {"assist": "captures"},
                  "kato-114", ("Ann", "Bob"))
    for site in ("A1", "M1"):
        kept.put(site)
    kept.press("confirm")  # keep
    out["kato-kept"] = int(kept.game_id or 0)

    # Kato with moves, a choice and an undo.
    undone = Played(store, "kato", {"size": 6, "pie": True}, {"assist": "captures"},
                    "kato-114", ("Ann", "Bob"))
    for site in ("A1", "M1"):
        undone.put(site)
    undone.press("confirm")
    undone.put("A3")
    undone.put("M3")
    undone.put("M3", False)
    undone.press("undo")
    out["kato-undone"] = int(undone.game_id or 0)

    # The toy (the ready one-piece-per-site adapter: its pieces come from the history).
    toy = Played(store, "toy", {"marks": "XO"}, {}, "toy-9", ("Ann", "Bob"))
    for site in ("a", "e", "i"):
        toy.put(site)
    out["toy"] = int(toy.game_id or 0)

    # Colovini: one tower built (its words are the history's), the next player's
    # meridian chosen when the table stops (a choice pending in the dialogue).
    col = Played(store, "colovini", {"players": 4, "deck": "physical", "seed": 5}, {},
                 "colovini-50", ("Ann", "Bob", "Cid", "Dee"))
    col.press("meridian3")
    col.press("minus")  # card 3
    col.put("3.1")
    col.choose("height", "4")  # the tower is built: Orange 4 on 3.1
    col.press("meridian5")  # Black chooses a meridian, and the table stops
    out["colovini"] = int(col.game_id or 0)
    return out


if __name__ == "__main__":
    with Store.open(Path(sys.argv[1])) as opened:
        print(play_all(opened))
