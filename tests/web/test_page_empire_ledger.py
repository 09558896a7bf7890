"""Acceptance: Empire in Space's energy ledger driven on a phone (390 x 844) in Chromium.

Everything is real: the virtual board (firmware behind a pty), the link, the session
with the Empire adapter and engine, the SQLite log, the page and its game script. The
test taps the ledger as players would (spend on a move, make a charge, trade a charge
that the other player accepts, settle, attack with a split of damage, end the turn);
what the board must show is put there by clicking the board's sites, as on the virtual
board. After each step the ledger's figures are checked against the engine (the test's
own copy of the game, replaying the logged moves). Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.games.empire import script as empire_script
from tests.games.empire.test_empire_virtual import Driver
from tests.web.axe import blocking

from meridian_table.table.runner import RunningTable, TableSetup, open_table
from meridian_table.web import WebServer, serve

pytestmark = pytest.mark.browser


@pytest.fixture
def table(tmp_path: Path) -> Iterator[RunningTable]:
    setup = TableSetup(game="empire", board="sim", players=("Ann", "Bob", "Cy"),
                       options={"seed": empire_script.SEED},
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.05)
    with open_table(setup) as running:
        assert running.wait_ready(30), "the virtual board did not connect"
        yield running


@pytest.fixture
def server(table: RunningTable) -> Iterator[WebServer]:
    with serve(table.session, port=0) as running:
        yield running


class Phone:
    """Taps the ledger and the board's sites like a player, and waits for the table."""

    def __init__(self, page: Any, driver: Driver) -> None:
        self.page = page
        self.d = driver

    def wait(self, condition: str, timeout: float = 15000) -> None:
        self.page.wait_for_function(
            f"(() => {{ const s = window.meridian.state; return {condition}; }})()",
            timeout=timeout)

    def tap(self, action: str) -> None:
        """Tap ``action`` on the ledger and wait until it is logged."""
        count = len(self.d.moves())
        button = self.page.locator(f"button.ledger-action[data-action='{action}']")
        box = button.bounding_box()
        assert box is not None and box["height"] >= 44, (action, box)  # a finger's size
        button.click()
        self.wait(f"s.moves.length === {count + 1}")
        self.d.sync()

    def fix_board(self) -> None:
        """Follow the page's guidance by clicking the sites it marks, one at a time."""
        for _ in range(20):
            state = self.d.state()
            if state["phase"] != "resync":
                return
            site = state["diff"]["next"]
            self.page.locator(f"g.site[data-site='{site}']").click()
            self.wait(f"!s.diff.next || s.diff.next !== '{site}' || s.phase !== 'resync'")
            self.d.idle()
        raise AssertionError("the board was not put right")

    def figures(self, seat: str) -> dict[str, str]:
        card = f".ledger-seat[data-seat='{seat}']"
        return {key: self.page.inner_text(f"{card} dd.{key}").split("\n")[0]
                for key in ("cells", "charges", "energy")}

    def check(self) -> None:
        """Every player's figures on the ledger are the engine's."""
        game = self.d.mirror.engine
        self.page.wait_for_function(
            f"document.querySelectorAll('.ledger-seat').length === {len(game.names)}")
        self.wait(f"s.moves.length === {len(game.history)}")
        for seat, colour in enumerate(self.d.mirror.colours):
            info = game.state.seats[seat]
            self.page.wait_for_function(
                f"(document.querySelector(\".ledger-seat[data-seat='{colour}'] dd.energy\") || {{}})"
                f".textContent === '{info.energy}E'")
            assert self.figures(colour) == {
                "cells": f"{info.cells - info.used} unused, {info.used} used",
                "charges": str(info.charges), "energy": f"{info.energy}E"}, colour


def _fast_forward(d: Driver, until: Callable[[], bool], limit: int = 300) -> None:
    """Play the scripted game on the virtual board (not through the page) until ``until``."""
    game = d.mirror.engine
    for _ in range(limit):
        state = d.state()
        if state["phase"] == "resync":
            d.resolve()
            continue
        if until():
            return
        d.carry(empire_script.choose(game, random.Random(len(game.history))))
    raise AssertionError("the scripted game never got there")


def test_the_ledger_on_a_phone_through_several_turns(
        table: RunningTable, server: WebServer, open_page: Callable[..., Any],
        shoot: Any) -> None:
    d = Driver(table)
    d.resolve()  # the opening: the three fighters are put on the board
    page = open_page(server.url, width=390, height=844)
    phone = Phone(page, d)
    page.wait_for_function("document.querySelector('#empire-ledger .ledger-seat')")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scroll
    phone.check()
    assert blocking(page) == []  # axe-core: no serious or critical violation on the ledger
    shoot(page, "1-opening", full_page=True)
    game = d.mirror.engine

    # Red spends on a move (the ledger shows its price), then fixes the board as guided.
    move = next(a for a in game.legal() if a.startswith("move s1 "))
    price = page.inner_text(f"button.ledger-action[data-action='{move}'] .cost")
    assert price == "1E"
    phone.tap(move)
    phone.fix_board()
    phone.check()
    # Red makes a charge: 2 unused cells for 1 charge.
    phone.tap("charge")
    phone.check()
    assert game.state.seats[0].charges == 3
    # Red offers Blue a charge; Blue accepts on their phone (the same page here).
    page.select_option(".ledger-trade select[data-role='me']", "red")
    page.wait_for_function("document.querySelector(\".ledger-trade select[data-role='to']\")")
    page.select_option(".ledger-trade select[data-role='to']", "blue")
    page.click(".ledger-trade button[data-role='offer']")
    page.wait_for_selector(".offer[data-offer='P1 P2 1'] button[data-answer='accept']")
    assert blocking(page) == []
    shoot(page, "2-offer", full_page=True)
    count = len(d.moves())
    page.click(".offer[data-offer='P1 P2 1'] button[data-answer='accept']")
    phone.wait(f"s.moves.length === {count + 1}")
    d.sync()
    phone.check()
    assert (game.state.seats[0].charges, game.state.seats[1].charges) == (2, 3)
    phone.tap("end")
    phone.check()

    # On to the first settle open to the player whose turn it is: tapped, then the colony
    # put on the body as the page guides.
    _fast_forward(d, lambda: any(a.startswith("settle ") for a in game.legal()))
    settle = next(a for a in game.legal() if a.startswith("settle "))
    phone.tap(settle)
    assert d.state()["phase"] == "resync" and d.state()["diff"]["next"] == settle.split()[1]
    phone.fix_board()
    phone.check()
    shoot(page, "3-settled", full_page=True)

    # On to attacks (declared, defended, struck, the damage split, countered), until one
    # whose damage is split over several units or into shields.
    split = False
    for attempt in range(6):
        _fast_forward(d, lambda: any(a.startswith("attack ") for a in game.legal()))
        attack = next(a for a in game.legal() if a.startswith("attack "))
        phone.tap(attack)
        shoot(page, f"4-attack-{attempt}", full_page=True)
        for _ in range(40):  # the damage is chosen one unit at a time
            if game.state.combat is None:
                break
            if game.turn().phase in ("lend", "defend", "counter", "steal"):
                # A decision during the attacker's turn: a countdown to a clear default.
                page.wait_for_selector(".ledger-default .seconds")
                assert "Default: " in page.inner_text(".ledger-default")
            if game.turn().phase in ("damage", "attacker-damage"):
                options = [a for a in game.legal() if a.startswith("damage ")]
                splits = [a for a in options if len(a.split()) > 2
                          or any("/" in u and "/0" not in u for u in a.split()[1:])]
                action = (splits or options)[0]
                split = split or bool(splits)
            else:
                action = empire_script.choose(game, random.Random(0))
            phone.tap(action)
            phone.fix_board()
            phone.check()
        assert game.state.combat is None
        if split:
            break
    assert split, "no attack with a split of damage came up"
    shoot(page, "5-after-combat", full_page=True)
    if "end" in game.legal():
        phone.tap("end")
        phone.check()
    shoot(page, "6-turn-ended", full_page=True)
