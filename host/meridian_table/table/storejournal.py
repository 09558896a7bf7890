"""The table's log in the SQLite store (docs/STORE.md): new games, resume, replay for the page.

``start_game`` creates a logged game and returns its journal; ``resume_game`` reopens a
logged game: the store's replay plays its engine, the table's history and the adapter's
dialogue come from the log (``table/logged.py``); ``StoreArchive`` answers the page's
``games``, ``replay`` and ``review`` commands the same way.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from meridian_table import __version__, bots
from meridian_table.bots.review import review
from meridian_table.bots.worker import quiet_child, start_quiet, yield_to_the_table
from meridian_table.games import registry
from meridian_table.games.board import Adapter, Applied, History
from meridian_table.i18n import _
from meridian_table.store import Event, GameInfo, Store, events
from meridian_table.store.events import LogEvent, kind_of
from meridian_table.store.replay import play_moves
from meridian_table.table.automata import automaton_words
from meridian_table.table.hints import HINT_BUDGET_S, HINT_LEVEL
from meridian_table.table.logged import (
    ResumeError,
    logged_settings,
    read_log,
    reopen,
    typed_events,
)
from meridian_table.table.reviews import GATE, ReviewCancelled, ReviewGate, bounded_budget

LOGGER = logging.getLogger(__name__)

BOARD = "board"


class StoreJournal:
    """A :class:`~meridian_table.table.journal.Journal` writing one game of a store."""

    def __init__(self, store: Store, game_id: int) -> None:
        self.store = store
        self._game_id = game_id

    @property
    def game_id(self) -> int:
        return self._game_id

    def append(self, event: LogEvent) -> None:
        if isinstance(event, events.Result):
            self.store.finish(self._game_id, event.to_json())
        elif isinstance(event, events.Players):
            self.store.rename_players(self._game_id, list(event.players))
        else:
            self.store.append(self._game_id, kind_of(event), event.to_json())

    def __repr__(self) -> str:
        return f"StoreJournal({self.store!r}, {self._game_id!r})"


def start_game(
    store: Store,
    adapter: Adapter,
    players: Sequence[str],
    *,
    profile: str | None = None,
    firmware: str | None = None,
    settings: Mapping[str, Any] | None = None,
    board: Mapping[str, Any] | None = None,
) -> StoreJournal:
    """Log a new game for ``adapter`` and return its journal.

    ``settings`` are table-level options that are not engine options (an assist
    level); they are logged as a ``settings`` event and passed back on resume.
    ``board`` is the board profile's whole file data, logged as a ``board`` event so
    that the game reopens even when no installed package ships that profile any more
    (a game package moved or uninstalled, a profile file renamed).
    """
    versions: dict[str, Any] = {"host": __version__}
    if firmware is not None:
        versions["firmware"] = firmware
    gid = store.create_game(
        adapter.game, dict(adapter.options), list(players), profile=profile, versions=versions
    )
    journal = StoreJournal(store, gid)
    if board is not None:
        journal.append(events.Board(profile, dict(board)))
    if settings:
        journal.append(events.Settings(extra=dict(settings)))
    return journal


def logged_board(events: Sequence[Event]) -> dict[str, Any] | None:
    """The board profile's file data as the game logged it at its start, or None
    (a log written before the ``board`` event existed)."""
    for event in events:
        if event.kind == BOARD and isinstance(event.payload.get("profile"), dict):
            return dict(event.payload["profile"])
    return None


def logged_clocks(events: Sequence[Event]) -> dict[str, Any] | None:
    """The clocks' last logged times: a ``clock`` event (saved every half second while a
    clock runs) or the ``clocks`` an action carries, whichever came last."""
    found: dict[str, Any] | None = None
    for event in events:
        if event.kind == "clock":
            found = dict(event.payload)
        elif event.kind in ("action", "note") and isinstance(event.payload.get("clocks"), dict):
            found = dict(event.payload["clocks"])
    return found


def pending_execution(events: Sequence[Event]) -> dict[str, Any] | None:
    """The automaton's move that was waiting to be carried out when the log stops: the
    last ``execute`` event not followed by its ``action``, an ``undo`` or a ``cancel``."""
    pending: dict[str, Any] | None = None
    for event in events:
        if event.kind == "execute":
            pending = dict(event.payload)
        elif event.kind in ("action", "undo", "cancel", "result"):
            pending = None
    return pending


@dataclass(frozen=True)
class Resumed:
    """A logged game reopened: its adapter, the table's history, journal, players,
    profile and settings."""

    adapter: Adapter
    history: History
    journal: StoreJournal
    info: GameInfo
    settings: dict[str, Any]
    #: An automaton's move waiting to be carried out (see pending_execution).
    pending: dict[str, Any] | None = None
    #: The players' clocks as last logged (see logged_clocks), None without clocks.
    clocks: dict[str, Any] | None = None
    #: The board profile's data as logged at the start (see logged_board).
    board: dict[str, Any] | None = None


def resume_game(store: Store, game_id: int | None = None, game: str | None = None) -> Resumed:
    """Rebuild ``game_id`` (default: the last unfinished game of ``game``)."""
    if game_id is None:
        info = store.last_unfinished(game)
        if info is None:
            raise ResumeError(
                f"no unfinished {game or ''} game in {store.path}; start a new one without --resume"
            )
    else:
        info = store.game(game_id)
    if info.status != "running":
        raise ResumeError(f"game {info.id} is {info.status}; only a running game can be resumed")
    events = store.events(info.id)
    adapter, history, settings = reopen(store, info, events)
    LOGGER.info("resumed game %d after %d actions", info.id, len(history))
    return Resumed(adapter, history, StoreJournal(store, info.id), info, dict(settings),
                   pending_execution(events), logged_clocks(events), logged_board(events))


#: The page's review: a quick judge (the command line's `review` can take longer). The
#: ``review`` command may ask for another level, budget or number of marks.
#: At least as strong as any hint the page gave (issue 26: a weaker review marked the
#: hint's own move as the worst of the game): the hint's level and time a position.
REVIEW_LEVEL = HINT_LEVEL
REVIEW_BUDGET_S = HINT_BUDGET_S
REVIEW_TOP = 5


def _review_child(conn: Connection, game: str, options: dict[str, Any], actions: list[str],
                  players: list[str], sources: list[str], level: int, budget_s: float,
                  top: int) -> None:
    """The review process: sends ``("progress", done, total)`` as it goes, then
    ``("done", marks)`` (the marks as JSON) or ``("error", kind, words)``. It runs at
    the bot worker's low priority, so the table never waits behind it."""
    quiet_child()
    yield_to_the_table()
    try:
        def progress(done: int, total: int) -> None:
            conn.send(("progress", done, total))

        marks = review(registry.spec(game), options, actions, players, sources, level=level,
                       budget_s=budget_s, top=top, progress=progress)
        conn.send(("done", [mark.to_json() for mark in marks]))
    except Exception as exc:  # every failure goes back to the table in words
        conn.send(("error", "value" if isinstance(exc, ValueError) else "bug",
                   str(exc) if isinstance(exc, ValueError) else repr(exc)))
    finally:
        conn.close()


def _in_a_process(game: str, options: Mapping[str, Any], actions: Sequence[str],
                  players: Sequence[str], sources: Sequence[str], level: int,
                  budget_s: float, top: int,
                  progress: Callable[[int, int], None],
                  cancel: threading.Event | None = None) -> list[dict[str, object]]:
    """The review's marks, from a process of its own: a search holds the interpreter's
    lock while it runs, so there it never slows the table, its LEDs or the page
    (docs/BOTS.md, "Worker process"). ``progress(done, total)`` follows it; ``cancel``
    set ends the process (:class:`~meridian_table.table.reviews.ReviewCancelled`)."""
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(
        target=_review_child, name="meridian-review", daemon=True,
        args=(child, game, dict(options), list(actions), list(players), list(sources), level,
              budget_s, top))
    start_quiet(process)
    child.close()  # the parent's copy: the child's end closing is then the end of input
    try:
        while True:
            if cancel is not None and cancel.is_set():
                raise ReviewCancelled("the review was cancelled: nobody waits for it")
            if not parent.poll(0.1):
                continue
            try:
                message = parent.recv()
            except EOFError:
                process.join(5)
                raise RuntimeError(f"the review process ended without an answer (exit "
                                   f"code {process.exitcode})") from None
            if message[0] == "progress":
                progress(int(message[1]), int(message[2]))
            elif message[0] == "done":
                return list(message[1])
            elif message[1] == "value":
                raise ValueError(str(message[2]))
            else:
                raise RuntimeError(f"the review failed: {message[2]}")
    finally:
        parent.close()
        process.join(0 if cancel is not None and cancel.is_set() else 5)
        if process.is_alive():
            process.kill()
            process.join(5)


def _changed(before: frozenset[str], history: History) -> frozenset[str]:
    """The sites the history's last action changed, from the position ``before`` it."""
    last = history[-1]
    return (before ^ history.adapter.expected()) | last.placed | last.removed


class StoreArchive:
    """The page's ``games``, ``replay`` and ``review`` commands, read from the store."""

    def __init__(self, store: Store, gate: ReviewGate = GATE) -> None:
        self.store = store
        self._gate = gate
        self._lock = threading.Lock()
        self._progress: dict[int, tuple[int, int]] = {}  # game -> (done, total), running

    def games(self) -> list[dict[str, Any]]:
        """Every logged game; ``reviewable``: its game has a bot to review it with."""
        with_bot = {game for game, spec in registry.specs().items()
                    if bots.has_bot(spec)}
        return [
            {
                "game_id": g.id,
                "game": g.game,
                "players": list(g.players),
                "moves": g.moves,
                "status": g.status,
                "started": g.started,
                "updated": g.updated,  # a finished game: when its result was logged
                "result": g.result,
                "reviewable": g.game in with_bot,
            }
            for g in self.store.games()
        ]

    def replay(self, game_id: int) -> dict[str, Any]:
        info = self.store.game(game_id)
        typed = typed_events(info, self.store.events(game_id))
        settings = logged_settings(typed)
        entries = read_log(info, typed, settings).entries
        adapter = registry.create_adapter(info.game, info.options, settings)
        history = History(adapter)
        positions = [adapter.pieces()]
        series = [_totals(adapter.scores())]
        # The store's replay loop plays each standing action into the adapter's engine;
        # the table's history takes the logged entry of each.
        for number in play_moves(info, adapter.engine, self.store.moves(game_id)):
            history.record(entries[number - 1])
            positions.append(adapter.pieces())
            series.append(_totals(adapter.scores()))
        # The game drawn from its own spec, with its own players, its moves in words
        # (issue 26): the page may replay a Colovini game while Kato is live.
        names = {colour: info.players[index] if index < len(info.players) else colour
                 for colour, index in adapter.seats().items()}
        moves = [a.to_json(i + 1) for i, a in enumerate(history)]
        for move, applied in zip(moves, history, strict=True):
            words = adapter.said_words(applied)
            if words:
                who = names.get(str(move.get("player")), move.get("player"))
                move["words"] = f"{who}: {words}"
        return {
            "game_id": info.id,
            "game": info.game,
            "spec": registry.spec(info.game).to_json(),
            "players": list(info.players),
            "seats": names,
            "scores": adapter.scores(),
            "moves": moves,
            "positions": positions,
            # Each seat's total after each move (ply 0 first): the end screen's chart,
            # which a reloaded or new page cannot have seen (issue 26).
            "score_series": series,
            "board": adapter.board_json(),
            "result": info.result,
        }

    @staticmethod
    def _position(info: GameInfo, settings: dict[str, Any], moves: Sequence[Event],
                  entries: Sequence[Applied]) -> History:
        """The game after ``moves`` (the first standing actions): an adapter opened with
        the logged options and settings, its engine played by the store's replay loop,
        its history the logged entries."""
        adapter = registry.create_adapter(info.game, info.options, settings)
        for _number in play_moves(info, adapter.engine, moves):
            pass
        return History(adapter, entries[: len(moves)])

    def review_progress(self, game_id: int) -> dict[str, int] | None:
        """How far the running review of the game is (``{"done", "total"}`` in moves), or
        None when none runs."""
        with self._lock:
            found = self._progress.get(game_id)
        return None if found is None else {"done": found[0], "total": found[1]}

    def review(self, game_id: int, level: int | None = None, budget_s: float | None = None,
               top: int | None = None) -> dict[str, Any]:
        """The moves of the game that lost the most against its bot (docs/BOTS.md), each
        with the better move and the sites it changes, for the page to draw on the
        position before the move (``replay``'s ``positions[number - 1]``), the sites the
        move played changed, both moves in words and the mover's colour. The bot thinks
        in a process of its own; ``level``, ``budget_s`` (a position) and ``top`` (the
        number of marks) default to the page's quick review."""
        level = REVIEW_LEVEL if level is None else level
        budget_s = REVIEW_BUDGET_S if budget_s is None else budget_s
        top = REVIEW_TOP if top is None else top
        info = self.store.game(game_id)
        spec = registry.spec(info.game)
        if not bots.has_bot(spec):
            raise ValueError(f"{spec.title} has no bot to review game {game_id} with")
        moves = self.store.moves(game_id)
        actions = [e.notation for e in moves]
        budget_s = bounded_budget(budget_s, len(actions))

        def progress(done: int, total: int) -> None:
            with self._lock:
                self._progress[game_id] = (done, total)

        def work(cancel: threading.Event) -> list[dict[str, object]]:
            progress(0, len(actions))
            try:
                return _in_a_process(info.game, info.options, actions, info.players,
                                     [str(e.payload.get("source", "")) for e in moves],
                                     level, budget_s, top, progress, cancel)
            finally:
                with self._lock:
                    self._progress.pop(game_id, None)

        def busy(label: str) -> str:
            running = self._progress.get(int(label.rsplit(" ", 1)[-1]))
            return label if running is None else f"{label} ({running[0]} of {running[1]} moves)"

        # Everything the answer needs is read now: a new game may close this log while
        # the review runs.
        typed = typed_events(info, self.store.events(game_id))
        settings = logged_settings(typed)
        entries = read_log(info, typed, settings).entries
        marks = self._gate.run((self.store.path, game_id, level, budget_s, top),
                               f"game {game_id}", work, busy)
        out = []
        for mark in marks:
            number = int(str(mark["number"]))
            played, best = (self._position(info, settings, moves[: number - 1], entries)
                            for _ in range(2))
            before = best.adapter.expected()
            played.play(str(mark["played"]))
            best.play(str(mark["best"]))
            entry = dict(mark)
            # The sites each move changes, with a stone it placed that the rules then
            # took off again (a move that kills its own group).
            entry["best_sites"] = sorted(_changed(before, best))
            entry["played_sites"] = sorted(_changed(before, played))
            entry["colour"] = best[-1].player
            entry["best_words"] = (best.adapter.move_words(str(mark["best"]))
                                   or str(mark["best"]))
            entry["played_words"] = (played.adapter.move_words(str(mark["played"]))
                                     or str(mark["played"]))
            out.append(entry)
        strength = _("{bot}, {seconds} s a position").format(
            bot=automaton_words(bots.description(level)), seconds=f"{budget_s:g}")
        return {"game_id": info.id, "game": info.game, "level": level, "budget_s": budget_s,
                "strength": strength, "moves": len(actions), "marks": out}


def _totals(scores: dict[str, Any]) -> dict[str, float]:
    """``{seat: total}`` of an adapter's scores (seats without a numeric total left out)."""
    out: dict[str, float] = {}
    for seat, entry in scores.items():
        total = entry.get("total") if isinstance(entry, dict) else None
        if isinstance(total, int | float) and not isinstance(total, bool):
            out[seat] = total
    return out
