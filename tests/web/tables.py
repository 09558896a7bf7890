"""Real tables for the page's tests: the table core and its shell, a real board and log.

:func:`live` opens a table the way ``meridian-table play GAME --board sim`` does
(``runner.open_table``): the real firmware behind a pty (the virtual board), the real
pyserial link, the SQLite log in a temporary file, the real ``TableSession`` around the
real ``TableCore``, served through ``TableHost`` as ``play`` serves it. :func:`on_fake_link`
puts the real session on the real link to the protocol-level fake Pico
(``link/fake.py``) instead, for what the virtual board cannot be made to do on cue:
never found, a protocol mismatch, a bad frame on the line, a fault report, the board's
own counters, a physical board the page cannot toggle.

:class:`Live` is the page's surface (``state``, ``command``, ``subscribe``) with a
record of the commands the page sent (``commands``) and of who listens, and helpers
that act on the table as a player would (a piece put on or lifted, waited for until the
table has read the board).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from meridian_table.games import registry
from meridian_table.games.contract import Engine
from meridian_table.games.rules import PolicyCancelled, RandomPolicy
from meridian_table.link import Link
from meridian_table.link.fake import FakeBoard
from meridian_table.profiles import load_profile
from meridian_table.table.lobby import LoggedTable, TableHost
from meridian_table.table.runner import RunningTable, TableSetup, open_table
from meridian_table.table.session import TableSession

#: A short settle window keeps the tests quick; the logic is the same.
SETTLE_S = 0.05
TIMEOUT_S = 30.0


class Live:
    """A real table as the page sees it, recording the page's commands."""

    def __init__(self, surface: Any, session: TableSession, closers: list[Callable[[], None]],
                 *, virtual: Any = None, board: FakeBoard | None = None,
                 link: Link | None = None) -> None:
        self.surface = surface
        self.session = session
        self.virtual = virtual          # the VirtualBoard (live())
        self.board = board              # the fake Pico (on_fake_link())
        self.link = link
        self.commands: list[dict[str, Any]] = []
        self._listeners: list[Callable[[Any], None]] = []
        self._lock = threading.Lock()
        self._closers = closers

    # --- the page's surface ----------------------------------------------------------

    def state(self) -> dict[str, Any]:
        return dict(self.surface.state())

    def command(self, cmd: dict[str, Any]) -> dict[str, Any]:
        self.commands.append(dict(cmd))
        return dict(self.surface.command(cmd))

    def subscribe(self, callback: Callable[[Any], None]) -> Callable[[], None]:
        unsubscribe: Callable[[], None] = self.surface.subscribe(callback)
        with self._lock:
            self._listeners.append(callback)

        def forget() -> None:
            unsubscribe()
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return forget

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._listeners)

    # --- acting on the table -----------------------------------------------------------

    def wait(self, condition: Callable[[dict[str, Any]], bool], what: str,
             timeout: float = TIMEOUT_S) -> dict[str, Any]:
        """The first state (with nothing settling) for which ``condition`` holds."""
        deadline = time.monotonic() + timeout
        pause = threading.Event()
        state = self.state()
        while time.monotonic() < deadline:
            if not self.session.settling:
                state = self.state()
                if condition(state):
                    return state
            pause.wait(0.01)
        raise AssertionError(f"the table never showed {what}: phase {state['phase']!r}, "
                             f"message {state['message']!r}, moves {len(state['moves'])}")

    def sensed(self, site: str) -> bool:
        return any(s["id"] == site and s["sensed"] for s in self.state()["board"]["sites"])

    def toggle(self, site: str) -> dict[str, Any]:
        """Toggle the switch under ``site`` and wait until the table has read the board."""
        closed = not self.sensed(site)
        if self.board is not None:
            self.board.toggle(self.session.profile.sites[site].pos)
        else:
            self.session.toggle(site)
        return self.wait(lambda s: any(p["id"] == site and p["sensed"] == closed
                                       for p in s["board"]["sites"]),
                         f"{site} {'closed' if closed else 'open'}")

    def place(self, site: str) -> dict[str, Any]:
        """Put a piece on ``site`` and wait until the table has read it (a move, or a
        mistake to fix)."""
        assert not self.sensed(site), f"{site} holds a piece already"
        return self.toggle(site)

    def lift(self, site: str) -> dict[str, Any]:
        assert self.sensed(site), f"{site} holds no piece"
        return self.toggle(site)

    def play(self, *sites: str) -> dict[str, Any]:
        """Each of ``sites`` played in turn, each read as a move."""
        state = self.state()
        for site in sites:
            before = len(state["moves"])
            self.place(site)
            state = self.wait(lambda s, n=before: len(s["moves"]) == n + 1
                              and s["phase"] != "resync", f"{site} played")
        return state

    def carry_out(self) -> dict[str, Any]:
        """Carry out the automaton's move on the board as the table guides, one lit
        square at a time (a random automaton's move may take stones off as well as put
        one down), and wait until the table has logged it."""
        state = self.wait(lambda s: s["phase"] == "execute", "the automaton's move to carry out")
        before = len(state["moves"])
        for _ in range(40):
            if state["phase"] != "execute":
                break
            site = state["diff"]["next"]
            assert site is not None, f"the execute phase names no square: {state['diff']!r}"
            if self.sensed(site):
                self.lift(site)
            else:
                self.place(site)
            state = self.state()
        else:
            raise AssertionError(f"the automaton's move was not done in 40 steps: {state['diff']!r}")
        return self.wait(lambda s: len(s["moves"]) == before + 1 and s["phase"] != "execute",
                         "the automaton's move logged")

    def close(self) -> None:
        for closer in reversed(self._closers):
            closer()
        self._closers.clear()


class HeldPolicy(RandomPolicy):
    """The random automaton, answering only once the test lets it (:attr:`release`):
    the page can be looked at while the real table waits for it to think."""

    release = threading.Event()
    thinking = threading.Event()

    def __init__(self, seed: int | None = None, argument: str | None = None) -> None:
        # Seeded: the same position always gets the same move, so a test knows whether
        # the move it carries out takes stones off (a random seed made the cues differ).
        super().__init__(0 if seed is None else seed, argument)

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str:
        type(self).thinking.set()
        while not type(self).release.wait(0.05):
            if cancel is not None and cancel.is_set():
                raise PolicyCancelled("the held random player was cancelled")
        return super().choose(game, budget_s, cancel)


def held_policies() -> dict[str, Any]:
    """Platform automata for :func:`live`: ``random`` held until released. Each call
    gives a policy class of its own (its own events), so tests never share one."""
    held = type("Held", (HeldPolicy,), {"release": threading.Event(),
                                         "thinking": threading.Event()})
    return {"random": held}


@contextmanager
def live(tmp_path: Path, game: str = "kato", *, profile: str | None = "kato-80",
         players: tuple[str, ...] = ("Ann", "Bob"), options: Mapping[str, Any] | None = None,
         settings: Mapping[str, Any] | None = None, policies: Mapping[str, Any] | None = None,
         db: str = "games.sqlite3") -> Iterator[Live]:
    """``play GAME --board sim`` in this process, served as ``play`` serves it."""
    if game != "kato" and profile == "kato-80":
        profile = None
    setup = TableSetup(game=game, board="sim", profile=profile, players=players,
                       options=dict(options or {}), settings=dict(settings or {}),
                       db=str(tmp_path / db), settle_s=SETTLE_S, policies=dict(policies or {}))
    running = open_table(setup)
    host = TableHost(running)
    table = Live(host, running.session, [host.close], virtual=running.virtual,
                 link=running.link)
    try:
        if not running.wait_ready(TIMEOUT_S):
            raise AssertionError("the virtual board did not connect")
        yield table
    finally:
        table.close()


def log_a_finished_game(tmp_path: Path, sites: tuple[str, ...], loser: str = "dark",
                        db: str = "games.sqlite3", **options: Any) -> None:
    """Play ``sites`` as a Kato game in the log at ``db`` and let ``loser`` resign."""
    with live(tmp_path, db=db, **options) as table:
        table.play(*sites)
        assert table.command({"cmd": "resign", "player": loser})["ok"]
        table.wait(lambda s: s["phase"] == "ended", "the logged game's end")


@contextmanager
def on_fake_link(game: str = "kato", *, profile: str = "kato-80",
                 players: tuple[str, ...] = ("Ann", "Bob"), plugged: bool = True,
                 physical: bool = False) -> Iterator[Live]:
    """The real session on the real link to the fake Pico (``link/fake.py``); no log
    (the archive's commands are the lobby's: ``LoggedTable`` without an archive)."""
    board_profile = load_profile(profile)
    board = FakeBoard(rows=board_profile.rows, cols=board_profile.cols,
                      leds=board_profile.leds, board=board_profile.name)
    board.plugged = plugged
    link = Link(board.find_port, opener=board.open)

    def toggle(site: str) -> None:
        board.toggle(board_profile.sites[site].pos)

    session = TableSession(
        registry.create_adapter(game), board_profile, link, players=players,
        settle_s=SETTLE_S, toggle=None if physical else toggle, port=board.port,
        virtual=not physical,
    )
    link.subscribe(session.on_link_event)
    link.start()
    session.start()
    table = Live(LoggedTable(session, None), session, [link.close, session.close],
                 board=board, link=link)
    try:
        if plugged:
            table.wait(lambda s: s["link"]["state"] == "connected" and s["phase"] != "paused",
                       "the fake Pico connected")
        yield table
    finally:
        table.close()


@contextmanager
def table_host(setup: TableSetup) -> Iterator[TableHost]:
    """The table ``setup`` describes, once its board has connected, behind the lobby as
    the page serves it."""
    table = open_table(setup)
    if not table.wait_ready():
        table.close()
        raise RuntimeError("the virtual board did not connect")
    with TableHost(table) as lobby:
        yield lobby


@contextmanager
def kato_host(folder: Path) -> Iterator[TableHost]:
    """A Kato table (kato-80, Ann and Bob) on the virtual board, its log in ``folder``,
    behind the lobby, as the page serves it."""
    with table_host(TableSetup(game="kato", board="sim", profile="kato-80",
                               players=("Ann", "Bob"), db=str(folder / "games.sqlite3"),
                               settle_s=0.03)) as lobby:
        yield lobby


def running_of(table: Live) -> RunningTable:
    """The running table behind a :func:`live` table."""
    host = table.surface
    assert isinstance(host, TableHost)
    return host.table


#: Six legal Kato moves on the 80-point board (size 5), none removing a stone: Light,
#: Dark, Light... (found with the engine; tests/web/test_tables.py checks it).
KATO_LINE = ("G5", "H1", "B6", "E3", "K1", "K4")
