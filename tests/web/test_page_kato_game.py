"""Acceptance: a whole Kato game played by clicking the page, with everything real.

The real firmware runs behind a pty (the virtual board), the real pyserial link talks
to it, the real TableSession with the Kato adapter and engine interprets the settled
board, and the SQLite log sits in a temporary file. The test only clicks the page and
reads what the page shows; after each step it checks the page's board and scores
against an independent Kato engine that replays the moves.

The game (size 5, found by a random search with the engine for a short decisive game
with a mid-game removal):

    1. Light E3   2. Dark G3   3. Light E7
       Dark tries G4 (adjacent to its first stone: illegal), lifts it again
    4. Dark E4    5. Light B4  (Light's E3 can no longer see E7: removed; lifted)
       Undo: B4 comes off, E3 goes back (the page guides both), then B4 again
    6. Dark F4    (Dark merges its stones into one group, which has no path: removed,
                   Dark has no stones, Light wins)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.conftest import computed

from meridian_table.games import kato
from meridian_table.table.lobby import LoggedTable
from meridian_table.web import WebServer, serve

pytestmark = pytest.mark.browser

SIZE = 5
SETTLE_S = 0.05  # a short settle window keeps the test quick; the logic is the same


def _open(tmp_path: Path, **options: Any) -> Any:
    from meridian_table.table.runner import TableSetup, open_table

    setup = TableSetup(
        game="kato",
        board="sim",
        profile="kato-80",
        players=("Ann", "Bob"),
        options=options,
        db=str(tmp_path / "games.sqlite3"),
        settle_s=SETTLE_S,
    )
    running = open_table(setup)
    if not running.wait_ready():
        running.close()
        pytest.fail("the virtual board did not connect")
    return running


def _logged(table: Any) -> LoggedTable:
    """The running table as the page is served it: its game and its log's archive."""
    return LoggedTable(table.session, table.archive)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Any]:
    with _open(tmp_path) as running:
        yield running


@pytest.fixture
def server(table: Any) -> Iterator[WebServer]:
    with serve(_logged(table), port=0) as running:
        yield running


class Player:
    """Clicks the page like a player and waits for the table's answer."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def click(self, site: str) -> None:
        self.page.locator(f"g.site[data-site='{site}']").click()

    def press(self, button: str) -> None:
        self.page.click(f"#buttons .control[data-name='{button}']")

    def wait(self, condition: str, timeout: float = 15000) -> None:
        """Wait until the latest state pushed to the page satisfies ``condition`` (JS over s)."""
        self.page.wait_for_function(
            f"(() => {{ const s = window.meridian.state; return {condition}; }})()",
            timeout=timeout,
        )

    def place(self, site: str, moves: int) -> None:
        """Click ``site`` and wait until the table has logged move number ``moves``."""
        self.click(site)
        self.wait(f"s.moves.length === {moves} && s.moves[{moves - 1}].notation === '{site}'")

    def pieces(self) -> dict[str, str]:
        """The stones the page draws, by site."""
        return dict(
            self.page.eval_on_selector_all(
                "g.site[data-piece]:not([data-piece=''])",
                "els => els.map(e => [e.dataset.site, e.dataset.piece])",
            )
        )

    def score(self, colour: str) -> tuple[int, dict[str, int]]:
        box = f".score[data-colour='{colour}']"
        total = int(self.page.inner_text(f"{box} .score-total"))
        rows = self.page.eval_on_selector_all(
            f"{box} .breakdown li",
            "els => els.map(li => [li.children[0].textContent, Number(li.children[1].textContent)])",
        )
        return total, dict(rows)

    def diff_markers(self) -> dict[str, str]:
        """Sites the page marks as out of sync: site -> "remove" | "put_back"."""
        return dict(
            self.page.eval_on_selector_all(
                "g.site[data-diff]:not([data-diff=''])",
                "els => els.map(e => [e.dataset.site, e.dataset.diff])",
            )
        )

    def visible(self, selector: str) -> bool:
        return computed(self.page, selector, "display") != "none"


def engine_after(moves: list[str]) -> kato.Game:
    game = kato.Game(size=SIZE)
    for move in moves:
        game.play(move)
    return game


def check_against_engine(player: Player, moves: list[str]) -> kato.Game:
    """The page's stones, move list and scores equal the engine's after ``moves``."""
    game = engine_after(moves)
    expected = {p: c for p, c in zip(game.points, game.position(), strict=True) if c != "."}
    assert player.pieces() == expected
    shown = player.page.eval_on_selector_all("#moves .mv-text", "els => els.map(e => e.textContent)")
    assert shown == moves
    for colour, mark in (("light", "L"), ("dark", "D")):
        total, breakdown = player.score(colour)
        assert total == len(game.safe_points(colour)), colour
        assert breakdown["safe points"] == len(game.safe_points(colour))
        assert breakdown["stones"] == game.position().count(mark)
    return game


def test_a_whole_kato_game_by_clicking_the_page(
    table: Any, server: WebServer, open_page: Callable[..., Any], shoot: Any
) -> None:
    page = open_page(server.url)
    player = Player(page)
    assert page.locator("g.site").count() == 80
    assert page.inner_text("#turn-text") == "Light to move"
    assert page.get_attribute("#board", "class") == "board clickable"
    # Assist "full": every legal point is lit in the mover's colour on the LEDs; the page
    # shows each as a small legal dot, not a halo (docs/WEB.md: a calm board at the start).
    player.wait("Object.keys(s.leds).length === 80")
    page.wait_for_function("document.querySelectorAll('g.site.is-legal').length === 80")
    assert page.locator("g.site .halo.lit").count() == 0

    # 1-3: placements.
    player.place("E3", 1)
    assert page.inner_text("#turn-text") == "Dark to move"
    assert "is-last" in (page.get_attribute("g.site[data-site='E3']", "class") or "")
    player.place("G3", 2)
    player.place("E7", 3)
    check_against_engine(player, ["E3", "G3", "E7"])
    shoot(page, "1-three-stones")

    # An illegal placement: Dark's second stone next to its first.
    player.click("G4")
    player.wait("s.phase === 'resync'")
    assert player.diff_markers() == {"G4": "remove"}
    assert player.visible("g.site[data-site='G4'] .mark-remove")
    assert page.inner_text("#turn-text") == "Fix the board"
    assert "G4" in page.inner_text("#message")
    assert page.get_attribute("g.site[data-site='G4']", "data-led") == "F"  # fast blink red
    shoot(page, "2-illegal")
    player.click("G4")  # the correction: lift it
    player.wait("s.phase === 'play' && s.to_move === 'dark'")
    assert player.diff_markers() == {}
    check_against_engine(player, ["E3", "G3", "E7"])

    # 4-5: Light's B4 leaves E3 without a path: it is removed, and the page says lift it.
    player.place("E4", 4)
    player.place("B4", 5)
    player.wait("s.phase === 'resync'")
    assert player.diff_markers() == {"E3": "remove"}
    assert page.locator("#moves li:last-child .mv-removed").inner_text() == "×E3"
    shoot(page, "3-removal")
    player.click("E3")
    player.wait("s.phase === 'play' && s.to_move === 'dark'")
    check_against_engine(player, ["E3", "G3", "E7", "E4", "B4"])

    # Undo B4: the removal is taken back too; the page guides B4 off and E3 back on.
    player.press("undo")
    player.wait("s.moves.length === 4 && s.phase === 'resync'")
    assert player.diff_markers() == {"B4": "remove", "E3": "put_back"}
    assert player.visible("g.site[data-site='E3'] .mark-putback.ring")
    assert not player.visible("g.site[data-site='E3'] .mark-remove")
    shoot(page, "4-undo")
    for _ in range(2):  # one square at a time, as the page points them out
        nxt = page.evaluate("window.meridian.state.diff.next")
        player.click(nxt)
        player.wait(f"s.diff.next !== '{nxt}'")
    player.wait("s.phase === 'play' && s.to_move === 'light'")
    check_against_engine(player, ["E3", "G3", "E7", "E4"])

    # 5 again, lift the dead E3 again, then 6: Dark's self-merge ends the game.
    player.place("B4", 5)
    player.wait("s.phase === 'resync'")
    player.click("E3")
    player.wait("s.phase === 'play' && s.to_move === 'dark'")
    player.place("F4", 6)
    player.wait("s.phase === 'ended'")
    moves = ["E3", "G3", "E7", "E4", "B4", "F4"]
    game = check_against_engine(player, moves)
    assert game.winner == "light"
    assert page.inner_text("#turn-text") == "Light wins"
    assert page.inner_text("#turn-player") == "Ann"
    assert "Dark has no stones" in page.inner_text("#result")
    assert page.locator("#moves li:last-child .mv-removed").inner_text() == "×E4 F4 G3"
    shoot(page, "5-end")

    # The log has the game: replay it on the page and step back to move 4.
    page.click("#moves button[data-ply='4']")
    page.wait_for_function("window.meridian.replay && window.meridian.replay.ply === 4")
    expected = engine_after(moves[:4])
    assert player.pieces() == {
        p: c for p, c in zip(expected.points, expected.position(), strict=True) if c != "."
    }
    page.click("[data-step='next']")
    page.wait_for_function("window.meridian.replay.ply === 5")
    assert "E3" not in player.pieces() and player.pieces()["B4"] == "L"
    shoot(page, "6-replay")
    games = _logged(table).command({"cmd": "games"})
    assert games["ok"] and games["games"][-1]["moves"] == 6


def test_pie_choice_and_unplugging_on_the_real_table(
    tmp_path: Path, open_page: Callable[..., Any], shoot: Any
) -> None:
    with _open(tmp_path, pie=True) as table, serve(_logged(table), port=0) as server:
        page = open_page(server.url)
        player = Player(page)
        assert "Light stone" in page.inner_text("#message")
        player.place("E3", 1)
        player.place("G3", 2)
        # The pie question from the real adapter, answered on the page.
        player.wait("s.question !== null && s.question.field === 'pie'")
        assert page.locator("#inputs .choice").count() == 2
        shoot(page, "pie")
        light_name = ".score[data-colour='light'] .score-name"
        before = page.inner_text(light_name)
        page.click("#inputs .choice[data-value='swap']")
        player.wait("s.moves.length === 3 && s.question === null")
        # Swap exchanges the seats: whoever held Light now holds Dark, and Light moves.
        after = table.session.state()["seats"]
        assert page.inner_text(light_name) == after["light"] != before
        assert page.inner_text(".score[data-colour='dark'] .score-name") == after["dark"] == before
        assert page.inner_text("#turn-text") == "Light to move"
        assert page.inner_text("#turn-player") == after["light"]

        # Pull the (virtual) USB cable: the page says so; plug it back: play resumes.
        table.virtual.unplug()
        page.wait_for_selector("#banner:not([hidden])", timeout=15000)
        assert "Board disconnected" in page.inner_text("#banner")
        assert page.inner_text("#turn-text") == "Paused"
        shoot(page, "unplugged")
        table.virtual.replug()
        page.wait_for_selector("#banner", state="hidden", timeout=15000)
        player.wait("s.phase === 'play'")
        player.place("E7", 4)
        shown = page.eval_on_selector_all("#moves .mv-text", "els => els.map(e => e.textContent)")
        assert shown == ["E3", "G3", "swap", "E7"]


def test_a_seat_given_to_the_random_automaton_on_the_page_plays_through_the_board(
    tmp_path: Path, open_page: Callable[..., Any], shoot: Any
) -> None:
    """The page gives Dark to the random automaton; after Light's stone the page says
    what the automaton chose, in words, and the people carry it out on the board."""
    with _open(tmp_path) as table, serve(_logged(table), port=0) as server:
        page = open_page(server.url)
        player = Player(page)
        page.locator(".score[data-colour='dark'] .seat-kind select").select_option("random")
        player.wait("s.seats_kind.dark === 'random'")
        assert page.inner_text(".score[data-colour='dark'] .score-seat") == "Dark · the random automaton"
        player.place("E3", 1)
        player.wait("s.automaton !== null && s.automaton.status === 'executing'")
        page.wait_for_selector("#automaton[data-status='executing']")
        chosen = page.evaluate("window.meridian.state.automaton.action")
        words = page.evaluate("window.meridian.state.automaton.words")
        assert page.inner_text("#automaton-words") == words
        assert page.inner_text("#turn-text") == "Play Dark's move"
        assert "Bob" in page.inner_text("#automaton-title")
        shoot(page, "automaton-executing")
        # Carried out on the (virtual) board by clicking the point it chose.
        player.click(chosen)
        player.wait(f"s.moves.length === 2 && s.moves[1].notation === '{chosen}' && s.automaton === null")
        page.wait_for_selector("#automaton", state="hidden")
        assert page.inner_text("#turn-text") == "Light to move"
        assert player.pieces()[chosen] == "D"
