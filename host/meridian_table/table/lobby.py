"""The table across games: a new game or a rematch from the page, without a restart.

``meridian-table play`` serves a :class:`TableHost` rather than one session. It is the
page's ``TableSurface`` (``state()``, ``command(dict)``, ``subscribe(callback)``): every
command goes to the running session, except those about games rather than moves. The
archive's (``games``, ``replay``, ``review``, ``review_progress``: the logged games, read
from the log, :func:`archive_command`), and the lobby's own:

- ``{"cmd": "catalog"}`` answers the new-game form's schema: each installed game's
  title, player counts, seats, automata, options (from its ``OptionSpec`` schema) and
  board profiles, plus what the running game was asked for (the form's defaults);
- ``{"cmd": "new_game", "game": "kato", "players": ["Ann", "Bob"], "seats": {"2":
  "random"}, "options": {"pie": true}, "profile": "kato-80"}`` checks everything it can
  (names, options, seats, the profile's game) *before* the running game is touched,
  then opens the new table (the same board or virtual board) and checks it, and only
  then closes the running one: if anything fails, the running game goes on untouched;
- ``{"cmd": "rematch"}`` starts the same game again with the seats turned: each
  player moves one seat on (two players swap), their automata with them.

The game being left is saved as it stands (a game not over stays unfinished in the log,
and ``--resume`` can continue it). Subscribers stay subscribed across games: the page
gets the new game's state as one more change.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import cache
from typing import Any, Protocol

from meridian_table import i18n
from meridian_table.games import registry
from meridian_table.games.contract import GameSpec, OptionError, parse_options
from meridian_table.i18n import N_, _
from meridian_table.profiles import ProfileError, list_profiles, load_profile
from meridian_table.table import commands
from meridian_table.table.clocks import ClockError, ClockRule
from meridian_table.table.names import clean_names
from meridian_table.table.presenter import PageState
from meridian_table.table.runner import RunningTable, TableSetup, check_setup, open_table

LOGGER = logging.getLogger(__name__)

Subscriber = Callable[[Any], None]
Opener = Callable[[TableSetup], RunningTable]

#: Commands the host answers itself; everything else goes to the running session.
HOST_COMMANDS = commands.HOST_COMMANDS
ARCHIVE_COMMANDS = commands.ARCHIVE_COMMANDS
#: Commands answered without waiting for a switch to end: they only read (a review reads
#: its game first, then thinks in a process of its own).
UNLOCKED_COMMANDS = ("state", *ARCHIVE_COMMANDS)


class Archive(Protocol):
    """The logged games, for the page's ``games``, ``replay`` and ``review`` commands
    (``table/storejournal.py`` StoreArchive)."""

    def games(self) -> list[dict[str, Any]]: ...

    def replay(self, game_id: int) -> dict[str, Any]: ...

    def review(self, game_id: int, level: int | None = None, budget_s: float | None = None,
               top: int | None = None) -> dict[str, Any]: ...

    def review_progress(self, game_id: int) -> dict[str, int] | None: ...


#: Each archive command's answer, from the log.
ARCHIVE_HANDLERS: dict[type, Callable[[Archive, Any], dict[str, Any]]] = {
    commands.Games: lambda a, c: {"ok": True, "games": a.games()},
    commands.Replay: lambda a, c: {"ok": True, "replay": a.replay(c.game_id)},
    commands.Review: lambda a, c: {"ok": True, "review": a.review(
        c.game_id, level=c.level, budget_s=c.budget_s, top=c.top)},
    commands.ReviewProgress: lambda a, c: {"ok": True,
                                           "progress": a.review_progress(c.game_id)},
}

#: What each archive command says when there is no log to read.
NO_ARCHIVE = {
    "games": N_("the list of games needs the game log (a database)"),
    "replay": N_("replay needs the game log; start the table with a database"),
    "review": N_("the review needs the game log; start the table with a database"),
    "review_progress": N_("the review needs the game log; start the table with a database"),
}


def archive_command(archive: Archive | None, cmd: Mapping[str, Any]) -> dict[str, Any]:
    """Answer an archive command (``games``, ``replay``, ``review``,
    ``review_progress``) from ``archive``; never raises for bad input."""
    try:
        parsed = commands.parse(cmd)
        handler = ARCHIVE_HANDLERS.get(type(parsed))
        if handler is None:
            raise LobbyError(f"{commands.kind_of(cmd)!r} is not an archive command; use "
                             f"{', '.join(ARCHIVE_COMMANDS)}")
        if archive is None:
            raise LobbyError(_(NO_ARCHIVE[str(commands.kind_of(cmd))]))
        return handler(archive, parsed)
    except (ValueError, LookupError, TypeError) as exc:
        # CommandFieldError, StoreError (no such game), a review refused: each names it.
        LOGGER.info("%s refused: %s", commands.kind_of(cmd), exc)
        return {"ok": False, "error": str(exc)}


class LobbyError(ValueError):
    """A new game or rematch the page asked for that cannot be started as asked."""


class Surface(Protocol):
    """What the page needs of a table (``web/app.py`` TableSurface)."""

    def state(self) -> PageState: ...

    def command(self, cmd: Mapping[str, Any]) -> dict[str, Any]: ...

    def subscribe(self, callback: Callable[[PageState], None]) -> Callable[[], None]: ...


class LoggedTable:
    """One game's table with its log's archive: the page's surface for a table served
    without the lobby's game switching (the archive's commands answered from the log)."""

    def __init__(self, session: Surface, archive: Archive | None) -> None:
        self.session = session
        self.archive = archive

    def state(self) -> PageState:
        return self.session.state()

    def command(self, cmd: Mapping[str, Any]) -> dict[str, Any]:
        if commands.kind_of(cmd) in ARCHIVE_COMMANDS:
            return archive_command(self.archive, cmd)
        return self.session.command(cmd)

    def subscribe(self, callback: Callable[[PageState], None]) -> Callable[[], None]:
        return self.session.subscribe(callback)


class TableHost:
    """The running table, replaced by a new one on ``new_game`` or ``rematch``."""

    def __init__(self, table: RunningTable, opener: Opener = open_table,
                 lang_fixed: bool = False,
                 checker: Callable[[TableSetup], None] = check_setup) -> None:
        """``lang_fixed``: the language was chosen with ``--lang``, so a page's browser
        language does not change it. ``checker`` checks a new game's set-up without the
        board (``runner.check_setup``) before the running game is closed."""
        self._table = table
        self._lang_fixed = lang_fixed
        self._opener = opener
        self._checker = checker
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        self._unsubscribe: Callable[[], None] | None = None
        self._host_handlers = self._dispatch()
        self._attach()

    # --- the TableSurface ------------------------------------------------------------

    @property
    def table(self) -> RunningTable:
        """The table in play now. Read without the switch's lock (one reference, read
        whole): a page's ``state`` never waits for a new game to open."""
        return self._table

    def state(self) -> PageState:
        return self.table.session.state()

    def command(self, cmd: Mapping[str, Any]) -> dict[str, Any]:
        kind = commands.kind_of(cmd)
        if kind in ARCHIVE_COMMANDS:
            # A long review never waits for a new game to open (no lock).
            return archive_command(self.table.archive, cmd)
        if kind in UNLOCKED_COMMANDS:
            # A page's state never waits for a new game to open.
            return self.table.session.command(cmd)
        handler = self._host_handlers.get(kind or "")
        if handler is None:
            with self._lock:  # never sent to a table the switch is closing
                return self._table.session.command(cmd)
        try:
            return handler(cmd)
        except (ValueError, LookupError, TypeError) as exc:
            # OptionError, SetupError, ProfileError, StoreError: each names its input.
            LOGGER.info("%s refused: %s", kind, exc)
            return {"ok": False, "error": str(exc)}

    def _dispatch(self) -> Mapping[str, Callable[[Mapping[str, Any]], dict[str, Any]]]:
        """The lobby's own commands (the rest go to the archive or the running game)."""
        return {
            "catalog": lambda c: {"ok": True, "catalog": self.catalog()},
            "language": self.language,
            "rematch": self._on_rematch,
            "new_game": self._on_new_game,
        }

    def _on_rematch(self, _cmd: Mapping[str, Any]) -> dict[str, Any]:
        self.rematch()
        return {"ok": True, "game_id": self.table.session.journal.game_id}

    def _on_new_game(self, cmd: Mapping[str, Any]) -> dict[str, Any]:
        self.new_game(cmd)
        return {"ok": True, "game_id": self.table.session.journal.game_id}

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def close(self) -> None:
        """Close the table in play (the CLI's ``with`` does this on Ctrl-C)."""
        with self._lock:
            self._detach()
            self._table.close()

    def __enter__(self) -> TableHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- games -----------------------------------------------------------------------

    def language(self, cmd: Mapping[str, Any]) -> dict[str, Any]:
        """``{"cmd": "language", "lang": "fr"}``: the page's language becomes the table's
        (``"browser": true``: only when ``--lang`` did not choose one)."""
        if cmd.get("browser") and self._lang_fixed:
            return {"ok": True, "lang": i18n.language(), "fixed": True}
        lang = i18n.set_language(str(cmd.get("lang") or ""))
        self.table.session.refresh()
        return {"ok": True, "lang": lang, "fixed": self._lang_fixed}

    def catalog(self) -> dict[str, Any]:
        """The new-game form's schema: the installed games and the running game's set-up."""
        table = self.table
        profiles: dict[str, list[str]] = {}
        for name in list_profiles():
            try:
                profiles.setdefault(load_profile(name).game, []).append(name)
            except ProfileError as exc:  # a broken user profile is not offered
                LOGGER.warning("profile %s not offered: %s", name, exc)
        games = []
        for spec in registry.specs().values():
            entry = dict(spec.to_json())
            entry["options"] = [o.to_json() for o in spec.options if not o.from_table]
            entry["seat_labels"] = [s.label for s in spec.page.seats]
            entry["profiles"] = [name for game in (spec.id, *spec.plays_on)
                                 for name in profiles.get(game, [])]
            why = _not_at_table(spec.id)
            entry["at_table"] = why is None
            if why is not None:
                entry["why_not"] = why
            games.append(entry)
        state = table.session.state()
        spec_now = registry.spec(state["game"])
        return {
            "games": games,
            "current": {
                "game": state["game"],
                "players": list(table.session.players),
                "seats": table.session.seats.to_setting(),
                "options": {k: v for k, v in state["options"].items()
                            if isinstance(v, bool | int | str) and _offered(spec_now, k, v)},
                "settings": _plain(table.setup.settings),
                "profile": table.profile.name,
                "clock": None if table.session.clock_rule is None
                else table.session.clock_rule.to_setting(),
                "over": state["result"] is not None,
                "moves": len(state["moves"]),
            },
        }

    def new_game(self, cmd: Mapping[str, Any]) -> None:
        """Start the game ``cmd`` describes (see the module docstring)."""
        game = str(cmd.get("game") or self.table.setup.game)
        try:
            spec = registry.spec(game)
        except LookupError as exc:
            raise LobbyError(str(exc)) from None
        why = _not_at_table(spec.id)
        if why is not None:
            raise LobbyError(why)  # before anything is closed: the game in play goes on
        players = _names(cmd.get("players"))
        if players and len(players) not in spec.player_counts:
            counts = " or ".join(str(c) for c in spec.player_counts)
            raise LobbyError(f"{spec.title} is for {counts} players, not {len(players)}; "
                             "add or remove a name")
        raw = cmd.get("options") or {}
        if not isinstance(raw, Mapping):
            raise LobbyError(f"options {raw!r}: give a mapping of option names to values")
        given = {str(k): v for k, v in raw.items() if v not in (None, "")}
        _page_data_names(spec, given)
        options, settings = parse_options(spec.options, given, spec.id)
        if spec.prepare is not None and options:
            options = spec.prepare(options)
        setting: dict[str, Any] = dict(settings)
        seats = _seats(cmd.get("seats"), spec, len(players) or max(spec.player_counts))
        if seats:
            setting["seats"] = seats
        clock = cmd.get("clock") or None
        if clock is not None:
            try:
                setting["clock"] = ClockRule.parse(
                    str(clock), flag=str(cmd.get("flag") or "lose"),
                    leds=bool(cmd.get("clock_leds"))).to_setting()
            except ClockError as exc:
                raise LobbyError(str(exc)) from None
        profile = cmd.get("profile") or None
        if profile is not None:
            self._check_profile(str(profile), spec)
        setup = replace(
            self.table.setup, game=spec.id, profile=None if profile is None else str(profile),
            players=players, options=dict(options), settings=setting, resume=False,
        )
        self._switch(setup)

    def rematch(self) -> None:
        """The same game again, each player one seat on (two players swap seats)."""
        table = self.table
        session = table.session
        players = tuple(session.players)
        turned = players[1:] + players[:1]
        count = len(players)
        # Seat n's player sits at n - 1 now (the first player goes last), automaton and all.
        seats = {str((int(n) - 2) % count + 1): kind
                 for n, kind in session.seats.to_setting().items()}
        spec = registry.spec(table.setup.game)
        schema = {o.name for o in spec.options if o.kind == "engine" and not o.from_table}
        logged = dict(session.adapter.options)
        asked = dict(table.setup.options) if not table.resumed else {
            k: v for k, v in logged.items() if k in schema
        }
        settings = {k: v for k, v in table.setup.settings.items() if k != "seats"}
        settings.update(session.adapter.settings())
        rule = session.clock_rule
        if rule is not None:
            settings["clock"] = rule.to_setting()
        if seats:
            settings["seats"] = seats
        setup = replace(table.setup, players=turned, options=asked, settings=settings,
                        profile=_profile_of(table), resume=False,
                        board_data=table.profile.to_dict())
        self._switch(setup)

    # --- switching -------------------------------------------------------------------

    def _check_profile(self, name: str, spec: GameSpec) -> None:
        # A page names a board profile; it never reads a path on the host (SECURITY.md).
        if name not in list_profiles():
            raise LobbyError(f"board profile {name[:60]!r}: choose one of this table's "
                             "board profiles by name; a profile file is given with --profile "
                             "on the command line")
        try:
            profile = load_profile(name)
        except ProfileError as exc:
            raise LobbyError(str(exc)) from None
        if not spec.accepts_board(profile.game):
            raise LobbyError(f"board profile {name!r} is for {profile.game!r}, not "
                             f"{spec.title}; choose one of its boards")

    def _switch(self, setup: TableSetup) -> None:
        """Open ``setup``'s table and check it, and only then close the running one: if
        anything fails, the running game goes on as it was (never closed, never
        reopened). A physical board's port is taken over once the old link lets it go
        (the new link keeps looking for it meanwhile). Everything that can be checked
        without the board is checked first (``runner.check_setup``)."""
        self._checker(setup)
        with self._lock:
            old = self._table
            try:
                new = self._opener(setup)
            except Exception as exc:
                LOGGER.warning("new game refused (%s); the last game goes on", exc)
                raise LobbyError(f"{_why(exc)}; the last game goes on") from None
            try:
                _check(new, setup)
            except Exception as exc:
                LOGGER.warning("new table failed its check (%s); the last game goes on", exc)
                _close_quietly(new)
                raise LobbyError(f"{_why(exc)}; the last game goes on") from None
            self._detach()
            self._table = new
            self._attach()
            # The game left is saved as it stands; a failure to close it is only logged.
            _close_quietly(old)
        LOGGER.info("new table: %s game %s", setup.game, new.session.journal.game_id)
        self._publish()

    def _attach(self) -> None:
        self._unsubscribe = self._table.session.subscribe(self._forward)

    def _detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _forward(self, state: Any) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(state)
            except Exception:  # a broken page must never stop the table
                LOGGER.exception("state subscriber %r failed", callback)

    def _publish(self) -> None:
        self._forward(self.state())


def _check(table: RunningTable, setup: TableSetup) -> None:
    """Refuse a new table that is not the game asked for or cannot say its state."""
    game = table.session.adapter.game
    if game != setup.game:
        raise LobbyError(f"the new table plays {game!r}, not {setup.game!r}")
    table.session.state()


def _close_quietly(table: RunningTable) -> None:
    try:
        table.close()
    except Exception:  # the switch is decided; the rest closes, the failure is logged
        LOGGER.exception("closing the %s table failed", table.setup.game)


def _why(exc: Exception) -> str:
    """An error in a player's words: its own message (they name their input), or what
    failed for an unexpected one."""
    if isinstance(exc, ValueError | LookupError | OSError):
        return str(exc)
    return f"the new table could not be opened ({type(exc).__name__}: {exc})"


@cache
def _not_at_table(game: str) -> str | None:
    """Why ``game`` cannot be played on a sensing board (its adapter refuses even its
    defaults), or None when it can."""
    try:
        registry.create_adapter(game)
    except Exception as exc:  # the game's own words say why and what to do instead
        return str(exc)
    return None


def _profile_of(table: RunningTable) -> str:
    """The board profile to open ``table``'s game again: as named (a shipped name or a
    file), else the one it was played on."""
    return table.setup.profile or table.profile.name


def _names(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise LobbyError(f"players {value!r}: give a list of names in seat order")
    return clean_names(list(value))


def _seats(value: object, spec: GameSpec, count: int) -> dict[str, str]:
    """``{"2": "random"}`` checked: seat numbers of this game, automata it has."""
    if not value:
        return {}
    if not isinstance(value, Mapping):
        raise LobbyError(f"seats {value!r}: give a mapping of seat numbers to automata")
    seats: dict[str, str] = {}
    for seat, kind in value.items():
        text = str(seat).strip()
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= count:
            raise LobbyError(f"seat {seat!r} is not a seat of this game (1 to {count})")
        if kind in (None, "", "person"):
            continue
        try:
            spec.policy(str(kind))
        except OptionError as exc:
            raise LobbyError(str(exc)) from None
        seats[text] = str(kind)
    return seats


def _page_data_names(spec: GameSpec, given: Mapping[str, Any]) -> None:
    """A data file option (a map, a card set) from the page is one of the shipped names:
    the page never names a path on the host, so no answer tells whether a file there
    exists (docs/SECURITY.md)."""
    for option in spec.options:
        if option.shipped is None or option.name not in given:
            continue
        value = given[option.name]
        names = option.shipped()
        if not isinstance(value, str) or value not in names:
            raise LobbyError(
                f"option {option.name!r}: {str(value)[:60]!r} is not a shipped "
                f"{option.name} of {spec.title}; choose one of {', '.join(names)} (a file of "
                f"your own is given with {option.flag} on the command line)")


def _offered(spec: GameSpec, name: str, value: object) -> bool:
    """An option of the running game the form may show as its default: not a data file
    given by path on the command line (the page cannot send it back)."""
    for option in spec.options:
        if option.name == name and option.shipped is not None:
            return value in option.shipped()
    return True


def _plain(settings: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in settings.items() if isinstance(v, bool | int | float | str | dict)}


__all__ = ["ARCHIVE_COMMANDS", "HOST_COMMANDS", "Archive", "LobbyError", "LoggedTable",
           "TableHost",
           "archive_command"]

