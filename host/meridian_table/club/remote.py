"""Two boards, one game: tables in different places playing through the club database.

A remote game (``club.remote_games``: its game, options, players, and which table holds
each seat) is made with ``club invite`` or on the page's Admin view. Each table then
plays it with ``play GAME --remote ID``: an ordinary local game, logged and replicated
as always, in which the seats of the other tables are given to the *remote player*, an
automaton (docs/ARCHITECTURE.md, "Seats and automata") whose move is the one the other
table logged. So the other side's move lights up on this board through the execute
phase, for the people here to carry out; this side's moves, once settled and logged,
reach the other table through the replicator. While the club cannot be reached, the
remote player waits (the table shows it as thinking) and tries again; the move is read
by its number in the game, so nothing is skipped or applied twice, and the two logs are
checked to agree move by move before a move is taken.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from meridian_table.club import REMOTE, REMOTE_WAITING
from meridian_table.club.admin import NETWORK_OPTIONS, connect
from meridian_table.club.errors import ClubError
from meridian_table.club.replicator import Replicator
from meridian_table.club.schema import remote_channel
from meridian_table.games.contract import Engine, Policy, PolicyCancelled

if TYPE_CHECKING:
    from meridian_table.table.runner import RunningTable, TableSetup

LOGGER = logging.getLogger(__name__)

RETRY_S = 0.5


@dataclass(frozen=True)
class RemoteGame:
    id: str
    game: str
    options: dict[str, Any]
    players: tuple[str, ...]
    seats: dict[str, str]   # seat number from 1 -> the table that holds it

    def remote_seats(self, table: str) -> dict[str, str]:
        """The ``seats`` setting for ``table``: every other table's seat is remote."""
        return {n: REMOTE for n, t in self.seats.items() if t != table}


def invite(url: str, remote_id: str, game: str, options: dict[str, Any],
           players: list[str], tables: list[str]) -> RemoteGame:
    """Make remote game ``remote_id``: seat N (from 1) is played at ``tables[N-1]``."""
    if len(players) != len(tables):
        raise ClubError(f"{len(players)} players but {len(tables)} tables; name one table "
                        "per seat, in seat order (a table may hold several seats)")
    seats = {str(i): t for i, t in enumerate(tables, start=1)}
    with connect(url) as conn:
        active = {str(r[0]) for r in conn.execute(
            "SELECT name FROM club.tables WHERE revoked IS NULL")}
        missing = [t for t in tables if t not in active]
        if missing:
            raise ClubError(f"no active table {missing[0]!r} in the club (tables: "
                            f"{', '.join(sorted(active)) or 'none'}); add it first")
        try:
            conn.execute(
                "INSERT INTO club.remote_games (id, game, options, players, seats) "
                "VALUES (%s, %s, %s, %s, %s)",
                (remote_id, game, Jsonb(options), Jsonb(players), Jsonb(seats)))
        except psycopg.errors.UniqueViolation:
            raise ClubError(f"there is already a remote game {remote_id!r}; choose another "
                            "id") from None
        except psycopg.errors.CheckViolation:
            raise ClubError(f"remote game id {remote_id!r}: use 1 to 40 letters, digits, "
                            "'-' or '_'") from None
    return RemoteGame(remote_id, game, options, tuple(players), seats)


def load(conn: psycopg.Connection[tuple[Any, ...]], remote_id: str) -> tuple[RemoteGame, str]:
    """The remote game as this table's role sees it, and this table's name."""
    row = conn.execute("SELECT id, game, options, players, seats, club.my_table() "
                       "FROM club.remote_games WHERE id = %s", (remote_id,)).fetchone()
    if row is None:
        raise ClubError(f"no remote game {remote_id!r} with a seat at this table; the club "
                        "page's Admin view (or `club invite`) makes one")
    return (RemoteGame(str(row[0]), str(row[1]), dict(row[2]), tuple(row[3]), dict(row[4])),
            str(row[5]))


class RemoteLink:
    """What the remote player needs from this table, bound once the game is open:
    the club's address, and this table's own standing actions."""

    def __init__(self, url: str, remote: RemoteGame, table: str) -> None:
        self.url = url
        self.remote = remote
        self.table = table
        self._local: Callable[[], list[str]] | None = None
        self._bound = threading.Event()
        self._status = "waiting for the game to open"
        self.on_change: Callable[[], None] | None = None

    @property
    def status(self) -> str:
        """What the remote player is doing, in words (the table page's link panel)."""
        return self._status

    @status.setter
    def status(self, value: str) -> None:
        changed, self._status = value != self._status, value
        if changed and self.on_change is not None:
            self.on_change()

    def link_figures(self) -> dict[str, object]:
        return {"remote_game": self.remote.id, "remote_player": self.status}

    def bind(self, local_actions: Callable[[], list[str]]) -> None:
        self._local = local_actions
        self._bound.set()

    def local_actions(self, cancel: threading.Event) -> list[str]:
        while not self._bound.wait(0.1):
            if cancel.is_set():
                raise PolicyCancelled("cancelled")
        assert self._local is not None
        return self._local()

    def factory(self, seed: int | None, argument: str | None) -> Policy:
        return RemotePlayer(self)


class RemotePlayer:
    """The automaton standing for the other table: its move is the one logged there."""

    name = REMOTE

    def __init__(self, link: RemoteLink) -> None:
        self.link = link
        self._conn: psycopg.Connection[tuple[Any, ...]] | None = None

    def _connection(self) -> psycopg.Connection[tuple[Any, ...]]:
        if self._conn is None or self._conn.closed:
            self._conn = psycopg.connect(self.link.url, autocommit=True,
                                         application_name="meridian-table remote player",
                                         **NETWORK_OPTIONS)
            self._conn.execute(sql.SQL("LISTEN {}").format(
                sql.Identifier(remote_channel(self.link.remote.id))))
        return self._conn

    def _theirs(self, holder: str) -> list[str]:
        """The standing actions of the table ``holder`` (the one that holds the seat to
        move) in its latest copy of this remote game. No other table's rows are read:
        only the seat holder's move is that seat's move."""
        rows = self._connection().execute(
            "SELECT e.kind, e.payload->>'notation' FROM club.events e "
            "WHERE e.table_name = %(t)s AND e.kind IN ('action', 'undo') "
            "AND e.game_id = (SELECT g.game_id FROM club.games g WHERE g.table_name = %(t)s "
            "AND g.remote = %(r)s ORDER BY g.started DESC, g.game_id DESC LIMIT 1) "
            "ORDER BY e.seq", {"t": holder, "r": self.link.remote.id}).fetchall()
        actions: list[str] = []
        for kind, notation in rows:
            if kind == "action" and notation is not None:
                actions.append(str(notation))
            elif kind == "undo" and actions:
                actions.pop()
        return actions

    def _holder(self, game: Engine) -> str:
        """The table that holds the seat to move."""
        seat = game.turn().seat
        holder = self.link.remote.seats.get(str((seat or 0) + 1))
        if seat is None or holder is None or holder == self.link.table:
            raise PolicyCancelled(f"seat {seat!r} is not another table's seat in remote game "
                                  f"{self.link.remote.id!r}")
        return holder

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str:
        cancel = cancel or threading.Event()
        ours = self.link.local_actions(cancel)
        ply = len(ours)
        holder = self._holder(game)
        while not cancel.is_set():
            try:
                theirs = self._theirs(holder)
                if len(theirs) > ply:
                    for number, (here, there) in enumerate(zip(ours, theirs, strict=False), 1):
                        if here != there:
                            raise ValueError(
                                f"the tables disagree at move {number}: {here} here, {there} "
                                "at the other table; undo here back to that move")
                    self.link.status = f"move {ply + 1} came from table {holder}"
                    return theirs[ply]
                self.link.status = REMOTE_WAITING
                for _ in self._connection().notifies(timeout=RETRY_S, stop_after=1):
                    pass
            except psycopg.Error as exc:
                self.link.status = f"the club is unreachable ({exc}); retrying"
                LOGGER.info("remote player: %s", self.link.status)
                if self._conn is not None:
                    self._conn.close()
                cancel.wait(RETRY_S)
        raise PolicyCancelled("cancelled")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()


def remote_setup(url: str, remote_id: str, base: TableSetup) -> tuple[TableSetup, RemoteLink]:
    """``base`` turned into this table's side of remote game ``remote_id``: the game, its
    options and players from the club, the other tables' seats given to the remote player."""
    with connect(url) as conn:
        remote, table = load(conn, remote_id)
    if base.game and base.game != remote.game:
        raise ClubError(f"remote game {remote_id!r} is a game of {remote.game}, not "
                        f"{base.game}; run `meridian-table play {remote.game} --remote "
                        f"{remote_id}`")
    link = RemoteLink(url, remote, table)
    setup = replace(base, game=remote.game, players=remote.players,
                    options=dict(remote.options), resume=False,
                    settings={**base.settings, "seats": remote.remote_seats(table)},
                    policies={**base.policies, REMOTE: link.factory})
    return setup, link


def attach(table: RunningTable, link: RemoteLink) -> Replicator:
    """Mark the open game as this table's side of the remote game, let the remote player
    read this table's moves, and start replicating (the caller closes the replicator)."""
    store, game_id = table.store, table.journal.game_id
    if store is None or game_id is None:
        raise ClubError("a remote game needs the game log: leave out --db :memory:")
    store.append(game_id, "remote", {"id": link.remote.id, "table": link.table})
    link.on_change = table.session.add_stats(link.link_figures)
    link.bind(lambda: store.actions(game_id))
    replicator = Replicator(store.path, link.url, remote={game_id: link.remote.id})
    replicator.on_change = table.session.add_stats(replicator.link_figures)
    return replicator.start()
