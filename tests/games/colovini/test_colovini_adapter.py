"""The Colovini adapter through the table session, with the table's FakeBoard.

The virtual board (meridian_table.sim) was not in place when these were written, so the
session is driven through tests/table/fakes.py's FakeBoard: real settling, real
buttons, real LED plans built from the colovini-50 board profile.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from tests.table.fakes import FakeBoard, FakeClock

from meridian_table.games.board import ASK, REMOVE, AdapterError
from meridian_table.games.colovini import card_meridians
from meridian_table.games.colovini.adapter import LED_COLOURS, PUSHED, TIED, ColoviniAdapter
from meridian_table.games.colovini.maps import maps_dir
from meridian_table.games.registry import create_adapter as create
from meridian_table.profiles import load_profile
from meridian_table.table import TableSession
from meridian_table.table.journal import MemoryJournal
from meridian_table.table.session import SessionError


@dataclass
class Table:
    session: TableSession
    board: FakeBoard
    clock: FakeClock
    journal: MemoryJournal
    adapter: ColoviniAdapter

    def settle(self) -> None:
        self.clock.advance(0.35)
        self.session.tick()

    def place(self, *sites: str) -> None:
        for site in sites:
            self.board.set(site, True)
        self.settle()

    def lift(self, *sites: str) -> None:
        for site in sites:
            self.board.set(site, False)
        self.settle()

    def press(self, button: str) -> None:
        self.session.press(button, source="board")

    def moves(self) -> list[str]:
        return [m["notation"] for m in self.session.state()["moves"]]

    def light(self, site: str) -> tuple[int, str]:
        return self.board.light_at(site)


def make(players: int = 4, deck: str = "physical", **options: object) -> Table:
    profile = load_profile("colovini-50" if players != 3 else "colovini-40")
    board = FakeBoard(profile)
    clock = FakeClock()
    adapter = create("colovini", {"players": players, "deck": deck, **options})
    assert isinstance(adapter, ColoviniAdapter)
    journal = MemoryJournal(1)
    names = ("Ann", "Bob", "Cid", "Dee")[:players]
    session = TableSession(adapter, profile, board, journal=journal, clock=clock, settle_s=0.3,
                           players=names)
    board.session = session
    return Table(session, board, clock, journal, adapter)


def fig_a(t: Table) -> None:
    """Orange 4 on 3.1, Black 3 on 3.2, Brown 1 on 3.4: the meridian of Figs. A/B."""
    t.press("meridian3")
    assert t.session.state()["question"]["field"] == "card"
    t.press("minus")  # card 3 (plus would be 1-2-3)
    t.place("3.1")
    question = t.session.state()["question"]
    assert question["field"] == "height" and question["choices"] == [str(h) for h in range(2, 21)]
    assert t.light("3.1") == (ASK.colour, ASK.effect)
    assert t.session.command({"cmd": "choose", "field": "height", "value": "4"}) == {"ok": True}
    t.press("meridian3")
    t.press("minus")
    t.place("3.2")
    # {3.1, 3.2} occupied fits a new 1-3 on 3.2, or a new 5+ on 3.1 pushing Orange south
    question = t.session.state()["question"]
    assert question["field"] == "where" and question["choices"] == ["3.2", "3.1"]
    t.press("confirm")  # 3.2
    assert t.session.state()["question"]["choices"] == ["1", "2", "3"]
    t.press("plus")
    t.press("plus")
    t.press("confirm")
    t.press("meridian3")
    t.press("minus")
    t.place("3.4")
    t.session.command({"cmd": "choose", "field": "height", "value": "1"})
    assert t.moves() == ["3:3.1=4", "3:3.2=3", "3:3.4=1"]
    fields = [payload["field"] for _, payload in t.journal.of_kind("choice")]
    assert fields[:2] == ["meridian", "card"] and "where" in fields and "cursor" in fields


def test_seats_follow_the_player_count() -> None:
    assert create("colovini", {"players": 2}).colours == ("orange", "black")
    assert create("colovini", {"players": 3, "deck": "physical"}).colours == ("orange", "black", "brown")
    assert ColoviniAdapter(players=4).colours == ("orange", "black", "brown", "grey")


def test_heights_asked_and_answered_by_page_and_buttons() -> None:
    t = make()
    fig_a(t)
    assert t.adapter.engine.state.columns[2] == ((0, 4), (1, 3), None, (2, 1), None)
    assert t.session.state()["to_move"] == "grey"


def test_options_light_where_a_tower_can_stand_and_what_it_pushes() -> None:
    t = make()
    fig_a(t)
    t.press("meridian3")
    t.press("minus")
    state = t.session.state()
    assert state["phase"] == "play"
    # In words (issue 26): the cities, the heights and whose tower a push moves.
    assert "a new tower on city 3 (2 high)" in state["message"]
    assert "on city 4 (2 high), pushing Brown's tower south" in state["message"]
    assert "on city 1 (5 to 20 high), pushing Orange's tower south" in state["message"]
    assert set(state["legal"]) == {"3.1", "3.3", "3.4"}
    grey = LED_COLOURS["grey"]
    assert t.light("3.3")[1] == "S" and t.light("3.3")[0] != 0 and t.light("3.3")[0] != grey
    assert t.light("3.4") == (PUSHED.colour, PUSHED.effect)
    assert t.light("3.1") == (PUSHED.colour, PUSHED.effect)
    assert t.light("3.5") == (0, "O")  # move 4 of Fig. A is not offered


def test_push_placement_built_in_two_physical_steps() -> None:
    t = make()
    fig_a(t)
    t.press("meridian3")
    t.press("minus")
    t.lift("3.4")  # step 1: move Brown's 1 one city south...
    t.place("3.5")
    state = t.session.state()
    assert state["phase"] == "resync"
    assert state["diff"]["put_back"] == ["3.4"]
    assert "the new tower goes here" in state["diff"]["reasons"]["3.4"]
    t.place("3.4")  # step 2: ...and stand the new 2 where it was
    assert t.moves()[-1] == "3:3.4=2"  # only height 2 fits: nothing to ask
    assert t.adapter.engine.state.columns[2] == ((0, 4), (1, 3), None, (3, 2), (2, 1))
    assert t.session.state()["phase"] == "play"


def test_misplaced_pushed_tower_is_guided_back() -> None:
    t = make()
    fig_a(t)
    t.press("meridian3")
    t.press("minus")
    t.lift("3.4")
    t.place("4.4")  # Brown's tower put down on the wrong meridian
    state = t.session.state()
    assert state["phase"] == "resync"
    assert state["diff"]["remove"] == ["4.4"] and state["diff"]["put_back"] == ["3.4"]
    assert t.light("4.4") == (REMOVE.colour, REMOVE.effect)
    assert "not here" in state["diff"]["reasons"]["4.4"]
    with pytest.raises(SessionError, match="waits"):  # buttons wait while the board differs
        t.session.press("pass")
    t.lift("4.4")
    t.place("3.4")
    assert t.session.state()["phase"] == "play" and t.moves()[-1] == "3:3.4=1"


def test_lifting_your_own_tower_is_a_removal_once_confirmed() -> None:
    t = make()
    fig_a(t)
    t.press("meridian1")  # Grey passes with card 1 (the only card for meridian 1 is 1 or 1-2-3)
    t.press("minus")
    t.press("pass")
    assert t.moves()[-1] == "1:pass"
    t.press("meridian3")  # Orange: card 3 is used, so 1-2-3 is implied
    assert t.adapter.card == "1-2-3"
    t.lift("3.1")
    state = t.session.state()
    assert state["question"]["field"] == "remove" and state["phase"] == "choice"
    t.press("confirm")
    assert t.moves()[-1] == "1-2-3:-3.1"
    assert t.adapter.engine.hand(0) == 20


def test_rebuild_fig_c_through_the_board() -> None:
    t = make()
    fig_a(t)
    t.press("meridian1")
    t.press("minus")
    t.press("pass")
    t.press("meridian3")
    t.lift("3.1")  # Orange lifts its 4...
    t.lift("3.4")  # ...moves Brown's 1 south...
    t.place("3.5")
    t.place("3.4")  # ...and stands a 2 on 3.4 (Fig. C)
    assert t.moves()[-1] == "1-2-3:-3.1,3.4=2"
    assert t.adapter.engine.hand(0) == 18


def test_pass_asks_for_the_card_when_it_is_open() -> None:
    t = make(deck="digital", seed=11)
    face_up = t.adapter.engine.face_up(0)
    t.press("pass")
    question = t.session.state()["question"]
    assert question["field"] == "card" and question["choices"] == list(face_up)
    t.press("plus")
    assert t.moves() == [f"{face_up[1]}:pass"]


def test_bad_buttons_and_answers_are_refused() -> None:
    t = make()
    with pytest.raises(AdapterError, match="meridian '11'"):
        t.adapter.answer("meridian", "11")
    with pytest.raises(AdapterError, match="nothing to choose"):
        t.adapter.button("plus")
    with pytest.raises(AdapterError, match="means nothing"):
        t.adapter.button("swap")


def test_end_of_game_lights_islands_and_the_tidy_up_guide() -> None:
    t = make(players=4, deck="physical")
    # A Fig. D-like end on the sample map's islands A-D, then everyone passes out.
    engine = t.adapter.engine
    plays = ["1:1.1=5", "1:1.2=4", "2:2.3=3", "2:2.2=6",
             "4:4.3=2", "5:5.3=2", "3:3.1=3", "3:3.2=2"]
    for notation in plays:
        t.adapter.play(notation)
    while not engine.is_over:
        seat = engine.to_move
        card = engine.cards_left(seat)[0]
        t.adapter.play(f"{card}:pass")
    for site in engine.garrisons():
        t.board.set(site, True)
    t.settle()
    state = t.session.state()
    assert state["phase"] == "ended"
    result = engine.result()
    by_key = {i.key: i for i in result.islands}
    # A: Orange 1.1 v Brown 3.1, tied. B: Brown alone. C: Black's capital 5.3 beats
    # Orange's 4.3. D: Grey's capital 2.2 and 3.2 (3) beat Black's 1.2 (1).
    assert by_key["A"].tied
    assert dict(result.totals) == {"Orange": 0, "Black": 4, "Brown": 3, "Grey": 5}
    assert t.light("2.1") == (TIED.colour, TIED.effect)
    assert by_key["B"].owner == "Brown"
    assert t.light("1.3") == (LED_COLOURS["brown"], "S")
    t.press("confirm")
    assert t.light("1.1") == (REMOVE.colour, REMOVE.effect)  # tied island: take all off
    assert t.light("2.3") != (REMOVE.colour, REMOVE.effect)  # Brown keeps its one tower on B
    assert t.light("1.2") == (REMOVE.colour, REMOVE.effect)  # Black's tower on Grey's D goes
    assert t.light("2.2") == (LED_COLOURS["grey"], "S")  # Grey keeps one tower on D
    assert state["result"]["winners"] == [
        ColoviniAdapter.colours[engine.names.index(w)] for w in result.winners
    ]


def test_the_journal_replays_into_a_fresh_adapter_with_choices_pending() -> None:
    t = make(deck="digital", seed=5)
    card = t.adapter.engine.face_up(0)[0]
    meridian = card_meridians(card)[0]
    t.press(f"meridian{meridian}")
    if t.adapter.card is None:
        t.press("confirm")
    t.place(f"{meridian}.3")
    t.session.command({"cmd": "choose", "field": "height", "value": "7"})
    t.press("undo")
    t.lift(f"{meridian}.3")
    t.press(f"meridian{meridian}")  # a choice left open when the table stops
    # Resume: the engine replayed from the standing actions, then the dialogue reopened
    # from the record the last action, undo or choice logged.
    fresh = create("colovini", t.adapter.options)
    logged = t.journal.of_kind("action", "undo", "choice")
    standing: list[str] = []
    for kind, payload in logged:
        if kind == "action":
            standing.append(payload["notation"])
        elif kind == "undo":
            standing.pop()
    for notation in standing:
        fresh.engine.play(notation)
    assert logged[-1][0] == "choice"
    fresh.reopen(logged[-1][1]["dialogue"])
    assert isinstance(fresh, ColoviniAdapter)
    assert fresh.engine.state == t.adapter.engine.state
    assert (fresh.meridian, fresh.card) == (t.adapter.meridian, t.adapter.card)


def test_the_tidy_up_guide_notices_towers_being_lifted_and_logs_nothing() -> None:
    t = make(players=4, deck="physical")
    engine = t.adapter.engine
    for notation in ["1:1.1=5", "1:1.2=4", "2:2.3=3", "2:2.2=6",
                     "4:4.3=2", "5:5.3=2", "3:3.1=3", "3:3.2=2"]:
        t.adapter.play(notation)
    while not engine.is_over:
        t.adapter.play(f"{engine.cards_left(engine.to_move)[0]}:pass")
    t.place(*engine.garrisons())
    t.press("confirm")
    tidy = [s for s, led in t.session.state()["leds"].items() if led["colour"] == "#ff0000"]
    assert "1.1" in tidy and "1.2" in tidy and len(tidy) >= 3
    logged = len(t.journal.events)
    assert f"({len(tidy)} left)" in t.session.state()["message"]
    t.lift("1.1")
    assert t.light("1.1") == (0, "O")  # lifted: dark
    assert t.light("1.2") == (REMOVE.colour, REMOVE.effect)  # still to take off
    assert f"({len(tidy) - 1} left)" in t.session.state()["message"]
    t.lift(*[s for s in tidy if s != "1.1"])
    assert t.session.state()["message"].startswith("Tidy-up done")
    assert all(t.light(s) == (0, "O") for s in tidy)
    assert t.light("2.2") == (LED_COLOURS["grey"], "S")  # the kept towers keep their colour
    assert len(t.journal.events) == logged  # the table read the board but logged nothing
    assert t.session.phase == "ended"
    t.place("1.1")  # a tower put back after the tidy-up blinks again
    assert t.light("1.1") == (REMOVE.colour, REMOVE.effect)


def test_board_json_carries_island_and_capital_for_every_city_of_sample_50() -> None:
    from meridian_table.games.colovini import load_map

    sample = str(maps_dir() / "sample-50.toml")
    board_map = load_map(sample)
    adapter = ColoviniAdapter(players=4, map=sample, seed=1)
    board = adapter.board_json()
    sites = {s["id"]: s for s in board["sites"]}
    assert set(sites) == set(board_map.cities)
    for cid, city in board_map.cities.items():
        assert sites[cid]["group"] == city.island, cid
        assert sites[cid]["major"] is city.capital, cid
    assert sum(s["major"] for s in sites.values()) == sum(c.capital for c in board_map.cities.values()) > 0
    groups = {g["id"]: g for g in board["groups"]}
    assert set(groups) == set(board_map.islands)
    for key, island in board_map.islands.items():
        assert groups[key]["name"] == island.name and groups[key]["value"] == island.value
        assert groups[key]["owner"] is None and groups[key]["tied"] is False  # not over yet
    assert [a["text"] for a in board["axis_labels"]] == [str(m) for m in range(1, 11)]
    assert all(a["y"] == 5.0 for a in board["axis_labels"])  # under the 5 cities a meridian
    assert board["north_label"] == "N (taller towers)"
