"""Assemble a running table: board (real or virtual), link, log, adapter and session.

``open_table(TableSetup(...))`` is what ``meridian-table play`` runs, and what the
table benchmark and the end-to-end tests use, so all of them exercise the same path:
the real firmware behind a pty (virtual board) or a Pico, the real pyserial link, the
SQLite log and the session. ``RunningTable.close()`` takes it all down in order.
"""

from __future__ import annotations

import importlib
import logging
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from meridian_table.games import registry
from meridian_table.games.board import Adapter
from meridian_table.games.contract import OptionValue, PolicyFactory, parse_options
from meridian_table.i18n import _, said
from meridian_table.link import Link, find_picos
from meridian_table.profiles import Profile, ProfileError, load_profile, profile_from_dict
from meridian_table.store import MissingDatabaseError, OlderSchemaError, Store, UnknownGameError
from meridian_table.table.automata import parse_seats
from meridian_table.table.clocks import ClockError, ClockRule
from meridian_table.table.journal import Journal, MemoryJournal
from meridian_table.table.session import DEFAULT_SETTLE_S, DEFAULT_THINK_S, TableSession
from meridian_table.table.storejournal import Resumed, StoreArchive, resume_game, start_game

LOGGER = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10.0
#: The emulated Pico boots MicroPython inside rp2040js: tens of seconds on a busy machine.
EMU_CONNECT_TIMEOUT_S = 120.0


class SetupError(ValueError):
    """A table that cannot be set up as asked (the message says what to change)."""


@dataclass(frozen=True)
class TableSetup:
    """Everything ``meridian-table play`` can be told."""

    game: str
    board: str = "auto"               # "auto", "sim", "emu" or a port (path or pyserial URL)
    profile: str | None = None        # default: the adapter's default_profile()
    players: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)   # game options (pie, ...)
    settings: dict[str, Any] = field(default_factory=dict)  # adapter settings (assist)
    resume: bool = False
    resume_id: int | None = None      # --resume ID: that game, not the last unfinished one
    db: str | None = None             # None: the store's default; ":memory:": no file
    settle_s: float = DEFAULT_SETTLE_S
    sim_mode: str = "cpython"
    adaptive: bool = True             # False: the fixed settle window (docs/TABLE.md)
    # Automata beyond the game's own, by name (the club's "remote" player, docs/CLUB.md).
    policies: dict[str, PolicyFactory] = field(default_factory=dict)
    # The board profile's file data, for a rematch on a board whose profile no installed
    # game ships any more (the running game was resumed from the copy in its log).
    board_data: dict[str, Any] | None = None


@dataclass
class RunningTable:
    """A table in play. ``notice`` is the one-line fallback notice, if any."""

    setup: TableSetup
    profile: Profile
    session: TableSession
    link: Link
    journal: Journal
    store: Store | None
    virtual: Any = None               # the VirtualBoard, when the board is virtual
    notice: str | None = None
    resumed: bool = False
    # The logged games, for the page's games/replay/review (the lobby answers them).
    archive: StoreArchive | None = None
    _closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        """Stop the session, the link, the virtual board and the store, in that order."""
        for closer in reversed(self._closers):
            try:
                closer()
            except Exception:  # keep closing the rest; each failure is logged
                LOGGER.exception("error while closing %r", closer)
        self._closers.clear()

    def __enter__(self) -> RunningTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until the board is connected and no change is settling (``timeout``: by
        default 10 s, 120 s for the emulated Pico, which boots in an emulator)."""
        if timeout is None:
            timeout = EMU_CONNECT_TIMEOUT_S if self.setup.board == "emu" else CONNECT_TIMEOUT_S
        deadline = time.monotonic() + timeout
        pause = threading.Event()
        while time.monotonic() < deadline:
            if self.link.state == "connected" and not self.session.settling:
                if self.session.phase != "paused":
                    return True
            pause.wait(0.01)
        return False


def _virtual_board(profile: Profile, mode: str) -> Any:
    """Start the virtual board (the real firmware behind a pty); ``mode`` "emu": the
    emulated Pico (MicroPython's rp2 build in rp2040js, ``meridian_table.sim.emu``)."""
    if mode == "emu":
        emu = importlib.import_module("meridian_table.sim.emu")
        board = emu.EmulatedBoard(profile)
        try:
            board.start()
        except emu.VirtualBoardError as exc:
            raise SetupError(f"the emulated Pico cannot start: {exc}") from None
        return board
    try:
        sim = importlib.import_module("meridian_table.sim")
        cls = sim.VirtualBoard
    except (ImportError, AttributeError) as exc:
        raise SetupError(
            f"the virtual board is not available in this installation ({exc}); plug in a "
            "board and use --board auto or --board PORT"
        ) from exc
    board = cls(profile, mode=mode)
    # The architecture documents VirtualBoard as a context manager; a start() wins.
    start = getattr(board, "start", None) or getattr(board, "__enter__", None)
    if start is not None:
        start()
    return board


def choose_board(spec: str) -> tuple[str | None, str | None]:
    """(port to open or None for the virtual board, notice) for ``--board spec``."""
    if spec in ("sim", "emu"):
        return None, None
    if spec == "auto":
        picos = find_picos()
        if picos:
            return "pico", None
        return None, _(
            "No Meridian board found on USB: playing on the virtual board "
            "(the real firmware with simulated switches)."
        )
    return spec, None


def _check_resumable(db: Path | None, game: str, game_id: int | None = None) -> None:
    """Refuse --resume when the log holds no unfinished ``game``, before anything opens
    it for writing: a resume that cannot happen must not create or change the file."""
    try:
        store = Store.open(db, readonly=True)
    except MissingDatabaseError as exc:
        raise SetupError(_(
            "no game log at {path}, so no unfinished {game} game to continue; start a new one "
            "without --resume, or point --db at the log of the game").format(
                path=exc.path, game=game)) from None
    except OlderSchemaError:
        return  # the writable open migrates it (after a backup copy), then resumes
    with store:
        if game_id is not None:
            _check_logged(store, game, game_id)
        elif store.last_unfinished(game) is None:
            raise SetupError(_(
                "no unfinished {game} game in {path}; start a new one without --resume")
                .format(game=game, path=store.path))


def _check_logged(store: Store, game: str, game_id: int) -> None:
    """``--resume ID``: game ``game_id`` is in the log, of this game, and not over."""
    try:
        info = store.game(game_id)
    except UnknownGameError:
        raise SetupError(_(
            "--resume {id}: no game {id} in {path}; `meridian-table games` lists the logged "
            "games and their ids").format(id=game_id, path=store.path)) from None
    if info.game != game:
        raise SetupError(_(
            "--resume {id}: game {id} is a {other} game, not {game}; continue it with "
            "`meridian-table play {other} --resume {id}`").format(id=game_id, other=info.game,
                                                                 game=game))
    if info.status != "running":
        raise SetupError(_(
            "--resume {id}: game {id} is {status}; only an unfinished game can be continued "
            "(`meridian-table replay {id}` shows it)").format(id=game_id, status=info.status))


#: How long a thread may hold the interpreter lock while another waits for it (Python's
#: default is 5 ms). The link's reader, the settle ticker and the page share the table's
#: process: a switch change must not wait behind the page's JSON or a move's evaluation
#: for a whole default interval (bench table --contend: p99 lower with 1 ms).
SWITCH_INTERVAL_S = 0.001


def open_table(setup: TableSetup) -> RunningTable:
    """Connect (or start the virtual board), open the log, create or resume the game.

    The players' names are checked first (the mistake a player made last is named
    before any consequence of it), then the board profile is chosen: ``--profile``, the
    resumed game's own, or the adapter's default for the player count and options.
    """
    if sys.getswitchinterval() > SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)
    check_names(setup.players)
    spec = registry.spec(setup.game)
    if setup.db == ":memory:" and setup.resume:
        raise SetupError(_("--resume needs a database file; drop --db :memory:"))
    closers: list[Callable[[], None]] = []
    try:
        if setup.resume:
            _check_resumable(Path(setup.db) if setup.db else None, setup.game,
                             setup.resume_id)
        store = None if setup.db == ":memory:" else Store.open(Path(setup.db) if setup.db else None)
        if store is not None:
            closers.append(store.close)
        logged = (resume_game(store, game_id=setup.resume_id, game=setup.game)
                  if store is not None and setup.resume else None)
        name = setup.profile or (logged.info.profile if logged is not None else None)
        if name is None:
            count = len(setup.players) if setup.players else None
            name = spec.default_profile(count, dict(setup.options))
        profile = _board_profile(name, logged, setup.board_data)
        if not spec.accepts_board(profile.game):
            raise SetupError(_(
                "board profile {profile} is for {other}, not {game}; choose a {game} profile "
                "with --profile").format(profile=repr(profile.name), other=repr(profile.game),
                                         game=setup.game))
        journal, adapter, players, settings = _open_game(setup, profile, store, logged)
        resumed = logged is not None
        port, notice = choose_board(setup.board)
        virtual = None
        if port is None:
            virtual = _virtual_board(profile, "emu" if setup.board == "emu" else setup.sim_mode)
            closers.append(virtual.close)
            if resumed:
                # The virtual board's "stones" died with the last process; a physical
                # board would still hold them. Put them back as they were.
                for site in adapter.expected():
                    virtual.set_site(site, True)
            find = getattr(virtual, "find_port", None)
            link = Link(find if find is not None else virtual.port)
        else:
            link = Link(port)
        toggle = None
        if virtual is not None:
            vb = virtual

            def toggle(site: str) -> None:
                vb.toggle(profile.sites[site].pos)

        session = TableSession(
            adapter,
            profile,
            link,
            journal=journal,
            players=players,
            settle_s=setup.settle_s, adaptive=setup.adaptive,
            toggle=toggle,
            port=getattr(virtual, "port", None) or port,
            virtual=virtual is not None,
            seats=parse_seats(settings.get("seats")),
            automaton_seed=_int_or_none(settings.get("automaton_seed")),
            think_s=float(settings.get("think_s", DEFAULT_THINK_S)),
            pending=logged.pending if logged is not None else None,
            history=logged.history if logged is not None else None,
            policies=setup.policies,
            clock_rule=_clock_rule(settings.get("clock")),
            clock_state=logged.clocks if logged is not None else None,
        )
        link.subscribe(session.on_link_event)
        link.start()
        closers.append(link.close)
        session.start()
        closers.append(session.close)
        table = RunningTable(
            setup, profile, session, link, journal, store, virtual, notice, resumed,
            StoreArchive(store) if store is not None else None, closers,
        )
        return table
    except BaseException:
        for closer in reversed(closers):
            try:
                closer()
            except Exception:
                LOGGER.exception("error while closing after a failed start")
        raise


def check_setup(setup: TableSetup) -> None:
    """Everything :func:`open_table` checks for a new game, without the board or the log:
    the names, the board profile, the options on that profile, the adapter, the seats,
    their automata and the clocks. The page's new game and rematch run it before the
    running game is touched, so a refusal leaves that game as it was (docs/WEB.md)."""
    check_names(setup.players)
    spec = registry.spec(setup.game)
    count = len(setup.players) if setup.players else None
    name = setup.profile or spec.default_profile(count, dict(setup.options))
    profile = _board_profile(name, None, setup.board_data)
    if not spec.accepts_board(profile.game):
        raise SetupError(_(
            "board profile {profile} is for {other}, not {game}; choose a {game} profile")
            .format(profile=repr(profile.name), other=repr(profile.game), game=setup.game))
    _journal, _adapter, _players_, settings = _open_game(setup, profile, None, None,
                                                         dry_run=True)
    for description in parse_seats(settings.get("seats")).values():
        if description.partition(":")[0] not in setup.policies:
            spec.policy(description)


def _board_profile(name: str, logged: Resumed | None,
                   data: dict[str, Any] | None = None) -> Profile:
    """The board profile ``name``; for a resumed game whose profile no installed game
    ships any more (its package moved or was removed), the one its log kept; for a
    rematch of such a game, the one it was played on (``data``)."""
    try:
        return load_profile(name)
    except ProfileError:
        if data is not None and data.get("name") == name:
            LOGGER.warning("board profile %r is not installed; the rematch uses the board "
                           "the last game was played on", name)
            return profile_from_dict(data, f"the board of the last game ({name})")
        if logged is None or logged.board is None or name != logged.info.profile:
            raise
        LOGGER.warning("board profile %r is not installed; using the copy in game %d's log",
                       name, logged.info.id)
        return profile_from_dict(logged.board, f"the log of game {logged.info.id}")


def _open_game(
    setup: TableSetup, profile: Profile, store: Store | None, logged: Resumed | None,
    dry_run: bool = False,
) -> tuple[Journal, Adapter, tuple[str, ...], dict[str, Any]]:
    """The journal, adapter, players and table settings of the new or resumed game
    (``dry_run``: checked only, no seed drawn that matters, nothing logged)."""
    if logged is not None:
        return logged.journal, logged.adapter, tuple(logged.info.players), logged.settings
    options = _game_options(setup, profile)
    adapter = registry.create_adapter(setup.game, options, setup.settings, profile.variant)
    players = _players(setup, adapter)
    settings: dict[str, Any] = dict(adapter.settings())
    seats = setup.settings.get("seats")
    fixed = adapter.automaton_seats()
    if fixed:
        seats = {**(seats if isinstance(seats, dict) else {}),
                 **{str(i + 1): automaton for i, (_, automaton) in fixed.items()}}
    if seats:
        if not isinstance(seats, dict):
            raise SetupError(_("seats {seats}: give a mapping of seat numbers to automata")
                             .format(seats=repr(seats)))
        for seat in seats:
            if not (str(seat).isascii() and str(seat).isdigit()) or not 1 <= int(str(seat)) <= len(players):
                raise SetupError(_(
                    "--seat {seat}: {game} is played by {count} here; choose a seat from 1 to "
                    "{count}").format(seat=seat, game=adapter.game, count=len(players)))
        settings["seats"] = {str(k): str(v) for k, v in seats.items()}
        seed = setup.settings.get("automaton_seed")
        settings["automaton_seed"] = (int(seed) if isinstance(seed, int)
                                      else random.SystemRandom().randrange(1 << 31))
        if "think_s" in setup.settings:
            settings["think_s"] = float(setup.settings["think_s"])
    if setup.settings.get("clock"):
        rule = _clock_rule(setup.settings["clock"])
        if rule is not None:
            settings["clock"] = rule.to_setting()
    if store is None or dry_run:
        return MemoryJournal(), adapter, players, settings
    journal = start_game(store, adapter, players, profile=profile.name, settings=settings,
                         board=profile.to_dict())
    return journal, adapter, players, settings


def _clock_rule(value: object) -> ClockRule | None:
    """The players' clocks from a setting: a logged rule (a mapping) or ``fischer:5m+3s``."""
    if value is None or value == "":
        return None
    if isinstance(value, ClockRule):
        return value
    try:
        if isinstance(value, str):
            return ClockRule.parse(value)
        return ClockRule.from_setting(value)
    except (ClockError, KeyError, TypeError, ValueError) as exc:
        raise SetupError(_("clock {value}: {reason}").format(value=repr(value),
                                                              reason=said(exc))) from None


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _game_options(setup: TableSetup, profile: Profile) -> dict[str, OptionValue]:
    """The game's engine options: the profile's variant where the schema names it (e.g.
    a board size), the number of players when the game has a choice, then the options
    asked for, each checked by the game's options schema (OptionError names a bad one)."""
    spec = registry.spec(setup.game)
    counts = spec.player_counts
    if setup.players and len(counts) > 1 and len(setup.players) not in counts:
        allowed = ", ".join(str(c) for c in counts[:-1]) + f" or {counts[-1]}"
        raise SetupError(_(
            "players {names}: {game} is for {allowed} players; name each of them with "
            "--players, e.g. --players Ann,Bob").format(
                names=repr(",".join(setup.players)), game=_(spec.title), allowed=allowed))
    schema = {o.name for o in spec.options if o.kind == "engine"}
    given: dict[str, object] = {k: v for k, v in profile.variant.items() if k in schema}
    if setup.players and "players" in schema:
        given["players"] = len(setup.players)
    for name, value in setup.options.items():
        if name in given and name != "players" and str(value) != str(given[name]):
            # The board is what it is: an option its profile fixes cannot differ from it.
            raise SetupError(_(
                "option {name} {value} does not fit board profile {profile}, which has {name} "
                "{given}; choose a board for {name} {value} or leave the board to the game's "
                "default").format(name=name, value=repr(value), profile=repr(profile.name),
                                  given=repr(given[name])))
    given.update(setup.options)
    options, _settings = parse_options(spec.options, given, spec.id)
    return spec.prepare(options) if spec.prepare is not None else options


def check_names(players: tuple[str, ...]) -> None:
    """Refuse an empty name or a name given twice (case and spaces aside)."""
    listed = ",".join(players)
    seen: dict[str, int] = {}
    for number, name in enumerate(players, start=1):
        if not name.strip():
            raise SetupError(_(
                "players {names}: name {number} is empty; give each player a name, separated "
                "by commas, e.g. --players Ann,Bob").format(names=repr(listed), number=number))
        key = " ".join(name.split()).casefold()
        if key in seen:
            raise SetupError(_(
                "players {names}: {name} is named twice (names {first} and {number}); give "
                "each player a different name, e.g. --players Ann,Bob").format(
                    names=repr(listed), name=repr(name.strip()), first=seen[key], number=number))
        seen[key] = number


def _players(setup: TableSetup, adapter: Adapter) -> tuple[str, ...]:
    fixed = adapter.automaton_seats()  # named by the game itself, never asked for
    count = len(adapter.colours) - len(fixed)
    players = setup.players or tuple(f"Player {i + 1}" for i in range(count))
    if len(players) != count:
        raise SetupError(_(
            "players {names}: {game} needs {count} different names, e.g. --players Ann,Bob")
            .format(names=repr(",".join(players)), game=adapter.game, count=count))
    names = [name.strip() for name in players]
    for index, (name, _automaton) in sorted(fixed.items()):
        names.insert(index, name)
    return tuple(names)
