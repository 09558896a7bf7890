"""state()["control_state"]: which controls mean something now, and why the rest do not.

The strongest check is agreement with the adapter itself: in every phase these tests
reach, a game button the hint calls enabled is accepted by a copy of the adapter, and
one it calls disabled is refused. The hint never changes what a press does.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from tests.games.colovini.test_colovini_adapter import make as make_colovini
from tests.table.test_session import capture_line, make

from meridian_table.games.board import AdapterError
from meridian_table.table.controls import TableFacts, control_state

TABLE_REASONS = ("disconnected", "Fix the board")


def states(session: Any) -> dict[str, dict[str, Any]]:
    state = session.state()
    assert set(state["control_state"]) == set(state["controls"])
    for name, entry in state["control_state"].items():
        assert isinstance(entry["enabled"], bool), name
        assert entry["enabled"] or entry["why"], f"{name} is disabled without a reason"
    return dict(state["control_state"])


def agrees_with_adapter(session: Any, adapter: Any, skip: tuple[str, ...] = ()) -> None:
    """Each game button's hint matches what the adapter would do with the press."""
    state = session.state()
    if state["phase"] in ("resync", "paused", "adjudicate"):
        return
    for name, entry in state["control_state"].items():
        if name in ("undo", "menu", "hint") or name in skip:  # the table's, not the adapter's
            continue
        try:
            copy.deepcopy(adapter).button(name)
            accepted = True
        except AdapterError:
            accepted = False
        assert accepted == entry["enabled"], (
            f"{name} in phase {state['phase']}: hint {entry} but the adapter "
            f"{'accepts' if accepted else 'refuses'} it"
        )


def test_kato_at_the_start_only_undo_waits_and_swap_pass_confirm_say_why() -> None:
    t = make()
    cs = states(t.session)
    used = [name for name in t.session.state()["controls"] if cs[name]["used"]]
    assert used == ["confirm", "pass", "swap", "undo", "menu", "hint"]
    assert cs["plus"] == {"enabled": False, "why": "Kato does not use this button", "used": False}
    assert cs["swap"]["enabled"] is False and "pie" in cs["swap"]["why"]
    assert cs["pass"]["enabled"] is False and "no placement" in cs["pass"]["why"]
    assert cs["confirm"]["enabled"] is False
    assert cs["undo"] == {"enabled": False, "why": "Nothing to undo yet", "used": True}
    agrees_with_adapter(t.session, t.adapter)
    t.place("A1")
    assert states(t.session)["undo"]["enabled"] is True


def test_kato_pie_choice_enables_swap_and_confirm_only() -> None:
    t = make(pie=True)
    t.place("A1")
    t.place("M1")
    cs = states(t.session)
    assert t.session.phase == "choice"
    assert cs["swap"]["enabled"] and cs["confirm"]["enabled"]
    assert "keep" in cs["confirm"]["why"]
    assert not cs["pass"]["enabled"]
    agrees_with_adapter(t.session, t.adapter)
    t.board.press("swap")
    assert not states(t.session)["swap"]["enabled"]


def test_resync_and_unplug_disable_game_buttons_with_the_table_reason() -> None:
    t = make(pie=True)
    t.place("A1")
    t.place("M1")
    t.place("G6")  # a stone before the pie choice: out of sync
    cs = states(t.session)
    assert t.session.phase == "resync"
    assert not cs["swap"]["enabled"] and "Fix the board" in cs["swap"]["why"]
    # Undo waits too: G6 stands where no move put it (issue 10: undo resolves the board first).
    assert not cs["undo"]["enabled"] and "lift the piece from G6" in cs["undo"]["why"]
    t.lift("G6")
    t.board.unplug()
    cs = states(t.session)
    for name in ("confirm", "pass", "swap", "undo"):
        assert cs[name]["enabled"] is False and "disconnected" in cs[name]["why"]


@pytest.mark.slow
def test_kato_hints_agree_with_the_adapter_through_random_games() -> None:
    rng = random.Random(7)
    seen: set[str] = set()
    for _game in range(3):
        t = make()
        for _ply in range(60):
            agrees_with_adapter(t.session, t.adapter)
            state = t.session.state()
            seen.add(state["phase"])
            if state["phase"] != "play":
                if state["phase"] == "pass":
                    assert state["control_state"]["pass"]["enabled"]
                    t.session.press("pass")
                    continue
                break
            t.place(rng.choice(state["legal"]))
            if t.session.phase == "resync":  # dead stones to lift
                for site in t.session.state()["diff"]["remove"]:
                    t.lift(site)
    assert "play" in seen


def test_a_capture_and_game_end_keep_the_hints_consistent() -> None:
    moves, _removed = capture_line(seed=3)
    t = make()
    for move in moves:
        t.place(move)
        while t.session.phase == "resync":
            diff = t.session.state()["diff"]
            assert not states(t.session)["confirm"]["enabled"]
            for site in diff["remove"]:
                t.lift(site)
    agrees_with_adapter(t.session, t.adapter)
    t.session.press("menu")
    cs = states(t.session)
    assert cs["confirm"]["enabled"] and "count" in cs["confirm"]["why"]
    assert cs["menu"]["enabled"] and "Withdraw" in cs["menu"]["why"]
    t.session.command({"cmd": "agree", "player": "light"})
    t.session.command({"cmd": "agree", "player": "dark"})
    cs = states(t.session)
    assert t.session.state()["result"] is not None
    assert not any(entry["enabled"] for entry in cs.values())
    agrees_with_adapter(t.session, t.adapter)


def test_colovini_hints_follow_its_questions() -> None:
    t = make_colovini()
    cs = states(t.session)
    assert cs["pass"]["enabled"] and cs["meridian3"]["enabled"]
    assert not cs["plus"]["enabled"] and not cs["confirm"]["enabled"]
    agrees_with_adapter(t.session, t.adapter)
    t.press("meridian3")
    cs = states(t.session)
    assert t.session.state()["question"]["field"] == "card"
    assert cs["plus"]["enabled"] and cs["minus"]["enabled"] and cs["confirm"]["enabled"]
    agrees_with_adapter(t.session, t.adapter, skip=tuple(f"meridian{m}" for m in range(1, 11)))
    t.press("minus")
    t.place("3.1")
    assert t.session.state()["question"]["field"] == "height"
    cs = states(t.session)
    assert cs["plus"]["enabled"] and cs["confirm"]["enabled"]
    agrees_with_adapter(t.session, t.adapter, skip=tuple(f"meridian{m}" for m in range(1, 11)))


def test_an_adapter_may_answer_for_its_own_buttons() -> None:
    t = make()

    def hook(view: object) -> dict[str, tuple[bool, str]]:
        return {"pass": (True, "always, in this variant")}

    t.adapter.control_state = hook  # type: ignore[attr-defined]
    cs = states(t.session)
    assert cs["pass"] == {"enabled": True, "why": "always, in this variant", "used": True}
    assert cs["swap"]["enabled"] is False  # the rest still follow the table's rules

    def broken(view: object) -> dict[str, tuple[bool, str]]:
        raise RuntimeError("bug")

    t.adapter.control_state = broken  # type: ignore[attr-defined]
    assert states(t.session)["pass"]["enabled"] is False


def test_control_state_without_a_view_is_the_table_rules() -> None:
    t = make()
    facts = TableFacts(
        phase="paused", connected=False, adjudicating=False, game_over=False,
        undoable=True, count_offered=True,
    )
    cs = control_state(t.adapter, None, facts, ["confirm", "undo", "menu"])
    assert cs["undo"]["enabled"] is False and cs["menu"]["enabled"] is True


def test_link_names_the_firmware_from_the_hello() -> None:
    t = make()
    assert t.session.state()["link"]["firmware"] is None

    class Hello:
        proto, fw, board = 1, "0.3.0", "pico-abc123"

    t.board.hello = Hello()  # type: ignore[attr-defined]
    assert t.session.state()["link"]["firmware"] == {
        "version": "0.3.0", "board": "pico-abc123", "proto": 1,
    }


def test_the_table_knows_no_game() -> None:
    """No game's name is a string the table's session or control rules compare with."""
    import ast
    import inspect

    from meridian_table.table import controls, session

    for module in (controls, session):
        tree = ast.parse(inspect.getsource(module))
        names = {node.value for node in ast.walk(tree)
                 if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        assert not names & {"kato", "colovini", "empire"}, module.__name__


def test_colovini_hints_come_from_its_adapter_whatever_the_game_is_called() -> None:
    t = make_colovini()
    t.adapter.game = "meridian-variant"  # type: ignore[misc]
    cs = states(t.session)
    assert cs["pass"] == {"enabled": True, "why": "Pass: discard a card instead of building",
                          "used": True}
    assert not cs["plus"]["enabled"]  # not during the meridian question
    agrees_with_adapter(t.session, t.adapter)  # the meridian buttons too: no skip
    t.press("meridian3")
    agrees_with_adapter(t.session, t.adapter)
    assert states(t.session)["meridian3"]["why"] == "Choose meridian 3 instead"


def test_colovini_meridian_buttons_follow_the_movers_cards() -> None:
    t = make_colovini(deck="digital", seed=11)
    cs = states(t.session)
    allowed = set(t.session.state()["question"]["choices"])
    for m in range(1, 11):
        assert cs[f"meridian{m}"]["enabled"] == (str(m) in allowed), m
    agrees_with_adapter(t.session, t.adapter)


def test_colovini_confirm_after_the_end_toggles_the_tidy_up_guide() -> None:
    t = make_colovini(players=4)
    engine = t.adapter.engine
    while not engine.is_over:
        t.adapter.play(f"{engine.cards_left(engine.to_move)[0]}:pass")
    t.place("1.1")  # any settled change makes the table read the ended game
    t.lift("1.1")
    cs = states(t.session)
    assert cs["confirm"]["enabled"] and "tidy-up" in cs["confirm"]["why"]
    assert not cs["pass"]["enabled"] and not cs["meridian3"]["enabled"]
    agrees_with_adapter(t.session, t.adapter)


def test_kato_hints_come_from_its_adapter() -> None:
    t = make()
    hook = t.adapter.control_state(None)
    assert set(hook) == {"confirm", "pass", "swap"}
    t.adapter.game = "kato-variant"  # type: ignore[misc]
    cs = states(t.session)
    assert cs["swap"]["why"] == "Only for the pie choice, after the opener's two stones"
    assert cs["pass"]["why"] == "Passing is allowed only when no placement is legal"
