"""A scripted stand-in for ``TableSession``, shipped beside the page it serves.

``FakeSession`` implements the docs/TABLE.md surface (``state``, ``command``,
``subscribe``) for any game spec (``GameSpec.to_json()``: the seats' names, colours and
pieces, the board drawing), on a board of sites it is given (or a plain hexagon of its
own) with deliberately simple rules: a piece may go on any empty site that is not next
to the last piece played; nothing is ever removed by the rules. It knows no game: its
seats, pieces and words come from the spec, so the page's tests can build one for each
installed game and for a test game with other seats. It exists so the page and its tests
do not need the real table, link and firmware: the layout, the controls, resync, pause,
automaton seats and replay can all be driven from a test. The acceptance tests use the
real session.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from meridian_table.games.contract import PageSpec, SeatLook
from meridian_table.table.presenter import Automaton, Diff, PageState

LOGGER = logging.getLogger(__name__)

# The LED language of docs/TABLE.md: remove red fast blink, put back white pulse, legal
# hints in the mover's colour at 1/8 brightness.
REMOVE_RGB = "#ff0000"
PUT_BACK_RGB = "#ffffff"
BUTTONS = ("confirm", "undo", "pass", "swap", "menu")
#: Buttons the fake board has but the fake game never reads.
UNUSED_BUTTONS = ("plus", "minus")
#: The firmware's own counters as the link reports them (strings, from STATS).
BOARD_COUNTERS = ("rx", "bad_crc", "garbage", "too_long", "bad_format", "unknown", "bad_args",
                  "exc", "overflow", "ghost", "resent", "scans", "frames_out")

#: The fake's own game when a test gives none: two seats, stones on a hexagon.
DEMO_SPEC: dict[str, Any] = {
    "id": "demo",
    "title": "The demo game",
    "summary": "Two seats taking turns to put stones on a hexagon (the page's test double)",
    "player_counts": [2],
    "options": [],
    "automata": ["random"],
    "page": PageSpec(
        seats=(
            SeatLook("light", "Light", "#f6efdf", "L", "#000000"),
            SeatLook("dark", "Dark", "#23252b", "D", "#ffffff"),
        ),
        drawing="hex",
        piece_word="stone",
    ).to_json(),
}

Site = tuple[str, float, float]


def hex_sites(size: int) -> list[Site]:
    """A hexagon of side ``size + 1`` on a triangular grid with unit spacing, in column
    order (``A1``, ``A2``, ..., ``B1``, ...): ``3 * size * (size + 1) + 1`` sites."""
    if not 1 <= size <= 12:
        raise ValueError(f"fake board size {size!r} must be 1 to 12")
    out: list[Site] = []
    for i in range(2 * size + 1):
        q = i - size
        rows = [r for r in range(-size, size + 1) if abs(q + r) <= size]
        for k, r in enumerate(rows, start=1):
            out.append((f"{chr(ord('A') + i)}{k}", round(q + r / 2.0, 6),
                        round(r * math.sqrt(3) / 2.0, 6)))
    return out


def dim(colour: str) -> str:
    """``colour`` (``#rrggbb``) at 1/8 brightness, as the assist's hint LED shows it."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c / 8):02x}" for c in rgb)


class FakeCommandError(ValueError):
    """A command the fake table refuses; the message names it and the fix."""


class FakeSession:
    """A tiny, thread-safe, scripted table session for developing and testing the page."""

    def __init__(
        self,
        spec: Mapping[str, Any] | None = None,
        *,
        sites: Sequence[Site] | None = None,
        size: int = 5,
        players: tuple[str, ...] = ("Ann", "Bob"),
        virtual: bool = True,
        game_id: int = 2,
        pie: bool = False,
        connected: bool = True,
        islands: bool = False,
        led_colours: Mapping[str, str] | None = None,
        seats_kind: Mapping[str, str] | None = None,
    ) -> None:
        """``spec``: the game as ``GameSpec.to_json()`` gives it (default
        :data:`DEMO_SPEC`); the first ``len(players)`` of its seats play. ``sites``:
        ``(id, x, y)`` with unit spacing (default :func:`hex_sites` of ``size``).
        ``led_colours``: each seat's LED colour (default its piece colour).
        ``seats_kind``: seat -> ``"person"`` or an automaton's description.
        ``islands``: add the optional board fields of docs/TABLE.md: the sites in runs
        of four along each row as groups whose first site is a major site, numbered
        axis labels under the bottom row and a north label; after :meth:`finish` the
        first group is the winner's and the second tied."""
        self.spec: dict[str, Any] = dict(spec if spec is not None else DEMO_SPEC)
        looks: dict[str, Any] = dict(self.spec.get("page", {}).get("seats", {}))
        if not 1 <= len(players) <= len(looks):
            raise ValueError(
                f"players {players!r}: the game {self.spec.get('id')!r} has "
                f"{len(looks)} seats ({', '.join(looks)}); name 1 to {len(looks)} players"
            )
        self.seat_ids: list[str] = list(looks)[: len(players)]
        self.looks = {seat: looks[seat] for seat in self.seat_ids}
        self.piece_of = {seat: str(look.get("piece") or seat[0].upper())
                         for seat, look in self.looks.items()}
        self.seat_of_piece = {piece: seat for seat, piece in self.piece_of.items()}
        self.led_of = {seat: str((led_colours or {}).get(seat) or look["colour"])
                       for seat, look in self.looks.items()}
        self.piece_word = str(self.spec.get("page", {}).get("piece_word") or "piece")
        self.size = size
        self.islands = islands
        self.players = tuple(players)
        self.virtual = virtual
        self.game_id = game_id
        self._sites = list(sites) if sites is not None else hex_sites(size)
        self._names = [name for name, _, _ in self._sites]
        self._xy = {name: (x, y) for name, x, y in self._sites}
        self._near = self._neighbour_table()
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[PageState], None]] = []
        self._pieces: dict[str, str] = {}
        self._sensed: set[str] = set()
        self._moves: list[dict[str, Any]] = []
        self._positions: list[dict[str, str]] = [{}]
        self._to_move = self.seat_ids[0]
        # ``connected=False`` starts as the link does before it first finds a board.
        self._link_state = "connected" if connected else "searching"
        self._link_detail = "" if connected else "no board found: plug in the Pico"
        self._ever_connected = connected
        self._result: dict[str, Any] | None = None
        self.pie = pie and len(self.seat_ids) == 2
        self._pie_open = False
        self._swapped = False
        self._adjudicating = False
        self._agreed: set[str] = set()
        self._error = ""
        self._message = ""
        self._frames_in = 0
        self._frames_out = 0
        self._link_errors: dict[str, int] = {}
        self._faults: list[dict[str, Any]] = []
        self._board_counters: dict[str, str] = dict.fromkeys(BOARD_COUNTERS, "0")
        self._seats_kind = {seat: str((seats_kind or {}).get(seat, "person"))
                            for seat in self.seat_ids}
        self._automaton: Automaton | None = None
        self.commands: list[dict[str, Any]] = []
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        # A finished game in the "log", so replay of another game can be exercised.
        self._archive: dict[int, dict[str, Any]] = {}
        if game_id > 1:
            self._archive[1] = self._scripted_archive()

    def _neighbour_table(self) -> dict[str, set[str]]:
        step = min(
            (math.dist(a, b) for i, a in enumerate(self._xy.values())
             for b in list(self._xy.values())[i + 1:] if math.dist(a, b) > 1e-9),
            default=1.0,
        )
        return {
            name: {other for other, xy in self._xy.items()
                   if other != name and math.dist(xy, here) < step * 1.05}
            for name, here in self._xy.items()
        }

    def _label(self, seat: str) -> str:
        return str(self.looks.get(seat, {}).get("label") or seat.capitalize())

    def _next_seat(self, seat: str) -> str:
        return self.seat_ids[(self.seat_ids.index(seat) + 1) % len(self.seat_ids)]

    def _previous_seat(self, seat: str) -> str:
        return self.seat_ids[(self.seat_ids.index(seat) - 1) % len(self.seat_ids)]

    # -- the docs/TABLE.md surface -------------------------------------------------

    def subscribe(self, callback: Callable[[PageState], None]) -> Callable[[], None]:
        """Call ``callback(state)`` after every change; returns the unsubscribe function."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def state(self) -> PageState:
        """The whole table state in the docs/TABLE.md schema."""
        with self._lock:
            return self._state()

    def command(self, cmd: dict[str, Any], *, notify: bool = True) -> dict[str, Any]:
        """Apply one page command; ``{"ok": False, "error": ...}`` when it is refused."""
        with self._lock:
            self.commands.append(dict(cmd))
            try:
                result = self._command(cmd)
            except FakeCommandError as exc:
                self._error = str(exc)
                result = {"ok": False, "error": str(exc)}
            else:
                self._error = ""
        if notify:
            self._notify()
        return result

    # -- test helpers ----------------------------------------------------------------

    def set_link_state(self, state: str, detail: str = "") -> None:
        """Pretend the link changed, as ``Link`` reports it: "searching" (unplugged, or not
        found yet), "connected", "version-mismatch" (``detail`` is the advice) or "closed"
        (the host closed the table)."""
        with self._lock:
            self._link_state = state
            self._link_detail = detail
            self._ever_connected |= state == "connected"
        self._notify()

    def place(self, site: str, *, captures: Sequence[str] = ()) -> None:
        """Put a piece on ``site`` as if a player did it (sensed, then interpreted); the
        rules take ``captures`` off with that move (see :meth:`capture`), in one state."""
        with self._lock:
            self.command({"cmd": "toggle", "site": site, "force": True}, notify=False)
            if captures:
                self._capture(captures)
        self._notify()

    def count_error(self, name: str, by: int = 1, *, board: bool = False) -> None:
        """Raise a link error counter (``crc_errors``...) or, with ``board``, a firmware one."""
        with self._lock:
            if board:
                self._board_counters[name] = str(int(self._board_counters.get(name, "0")) + by)
            else:
                self._link_errors[name] = self._link_errors.get(name, 0) + by
        self._notify()

    def fault(self, code: str, detail: list[str], text: str) -> None:
        """A board fault as the table shows it (``state.link.faults``); a repeat counts."""
        with self._lock:
            for known in self._faults:
                if known["code"] == code and known["detail"] == detail:
                    known["count"] += 1
                    break
            else:
                self._faults.append({"code": code, "detail": list(detail), "text": text,
                                     "count": 1})
            self._link_errors["faults"] = self._link_errors.get("faults", 0) + 1
        self._notify()

    def finish(self, winner: str, reason: str = "no pieces left") -> None:
        """End the game with ``winner`` (a seat)."""
        with self._lock:
            self._result = {"winner": winner, "reason": reason}
            self._automaton = None
        self._notify()

    def capture(self, *sites: str) -> None:
        """The rules take ``sites`` off the board with the last move (as a game's dead
        stones): they stay sensed until a player lifts them, so the page guides them off."""
        with self._lock:
            self._capture(sites)
        self._notify()

    def _capture(self, sites: Sequence[str]) -> None:
        if not self._moves:
            raise FakeCommandError("capture needs a move to go with")
        for site in sites:
            if site not in self._pieces:
                raise FakeCommandError(f"capture {site!r}: no piece stands there")
            del self._pieces[site]
        self._moves[-1]["removed"] = [*self._moves[-1]["removed"], *sites]
        self._positions[-1] = dict(self._pieces)

    def set_automaton(
        self,
        seat: str,
        status: str = "thinking",
        *,
        action: str | None = None,
        words: str | None = None,
        elapsed_s: float | None = 0.0,
    ) -> None:
        """Show an automaton seat at work (``state.automaton``): ``"thinking"``, or
        ``"executing"`` its ``action`` (``words`` say it for people)."""
        with self._lock:
            if seat not in self.seat_ids:
                raise FakeCommandError(f"seat {seat!r} is not one of {self.seat_ids}")
            self._seats_kind[seat] = (
                self._seats_kind[seat] if self._seats_kind[seat] != "person" else "random"
            )
            player = self.players[self.seat_ids.index(seat)]
            self._automaton = {"seat": seat, "player": player,
                               "automaton": self._seats_kind[seat], "status": status,
                               "elapsed_s": elapsed_s if status == "thinking" else None,
                               "action": action, "words": words}
        self._notify()

    def clear_automaton(self) -> None:
        """The automaton's move is carried out (or cancelled): ``state.automaton`` is null."""
        with self._lock:
            self._automaton = None
        self._notify()

    # -- internals -------------------------------------------------------------------

    def _notify(self) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
            state = self._state()
        for callback in subscribers:
            try:
                callback(state)
            except Exception:
                LOGGER.exception("a state subscriber failed")

    def _legal(self) -> list[str]:
        if self._result is not None:
            return []
        last = self._last_site()
        near = self._near[last] if last else set()
        return [s for s in self._names if s not in self._pieces and s not in near]

    def _last_site(self) -> str | None:
        for move in reversed(self._moves):
            if move["notation"] in self._xy:
                return str(move["notation"])
        return None

    def _phase(self) -> str:
        if self._link_state != "connected":
            return "paused"
        if self._sensed != set(self._pieces):
            return "resync"
        if self._result is not None:
            return "ended"
        if self._pie_open:
            return "pie-choice"
        if self._adjudicating:
            return "adjudicate"
        return "play"

    def _diff(self) -> Diff:
        remove = sorted(self._sensed - set(self._pieces), key=self._names.index)
        put_back = sorted(set(self._pieces) - self._sensed, key=self._names.index)
        both = remove + put_back
        return {"remove": remove, "put_back": put_back, "next": both[0] if both else None,
                "reasons": {site: "not expected here" for site in remove}}

    def _leds(self, phase: str, legal: list[str], diff: Diff) -> dict[str, dict[str, str]]:
        leds: dict[str, dict[str, str]] = {}
        if phase == "play":
            for site in legal:
                leds[site] = {"colour": dim(self.led_of[self._to_move]), "effect": "S"}
        last = self._last_site()
        if phase in ("play", "ended") and last is not None:
            owner = self.seat_of_piece.get(self._pieces.get(last, ""), self._to_move)
            leds[last] = {"colour": self.led_of[owner], "effect": "X"}
        if phase == "ended" and self._result is not None:
            winner = self.led_of.get(self._result["winner"], PUT_BACK_RGB)
            for site in self._names:
                leds[site] = {"colour": winner, "effect": "P"}
        if phase == "resync" and diff["next"] is not None:
            site = diff["next"]
            if site in diff["remove"]:
                leds[site] = {"colour": REMOVE_RGB, "effect": "F"}
            else:
                leds[site] = {"colour": PUT_BACK_RGB, "effect": "P"}
        return leds

    def _message_for(self, phase: str, diff: Diff) -> str:
        if phase == "paused":
            # The real session's words (meridian_table/table/session.py).
            if self._link_state == "closed":
                return "Table closed: the game is saved; it continues when the table starts again"
            if self._ever_connected:
                return "Board disconnected: plug it back in to continue"
            return f"Waiting for the board to connect ({self._link_state})"
        if phase == "resync":
            site = diff["next"]
            word = self.piece_word
            verb = f"Remove the {word} from" if site in diff["remove"] else f"Put the {word} back on"
            return f"{verb} {site}"
        if phase == "ended" and self._result is not None:
            return f"{self._label(self._result['winner'])} wins: {self._result['reason']}"
        if phase == "pie-choice":
            return str(self._pie_question()["prompt"])
        if phase == "adjudicate":
            return "All players: agree to end the game by the count, or press Menu to go on"
        return self._message or f"{self._label(self._to_move)}: place a {self.piece_word}"

    def _pie_question(self) -> dict[str, Any]:
        second = self._label(self.seat_ids[-1])
        return {
            "field": "pie",
            "prompt": f"{second}: swap seats, or keep them?",
            "choices": ["swap", "keep"],
            "buttons": {"swap": "swap", "confirm": "keep"},
        }

    def _scores(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for seat, mark in self.piece_of.items():
            stones = sum(1 for p in self._pieces.values() if p == mark)
            out[seat] = {
                "total": stones,
                "breakdown": [
                    {"label": f"{self.piece_word}s on the board", "value": stones},
                    {"label": "captured", "value": 0},
                ],
            }
        return out

    def _state(self) -> PageState:
        phase = self._phase()
        legal = self._legal() if phase == "play" else []
        diff = self._diff()
        sites = [
            {
                "id": name,
                "x": round(x, 4),
                "y": round(y, 4),
                "piece": self._pieces.get(name),
                "sensed": name in self._sensed,
            }
            for name, x, y in self._sites
        ]
        controls = [*BUTTONS, *UNUSED_BUTTONS]
        seats = list(reversed(self.players)) if self._swapped else list(self.players)
        scores = self._scores()
        count = {
            "winner": max(self.seat_ids, key=lambda seat: scores[seat]["total"]),
            "reason": f"more {self.piece_word}s on the board",
            "scores": scores,
        }
        return {
            "game": self.spec.get("id", "demo"),
            "spec": self.spec,
            "game_id": self.game_id,
            "options": {"size": self.size, "pie": self.pie},
            "players": list(self.players),
            "seats": dict(zip(self.seat_ids, seats, strict=True)),
            "seats_kind": dict(self._seats_kind),
            "automaton": Automaton(**self._automaton) if self._automaton else None,
            "phase": phase,
            "to_move": self._to_move,
            "message": self._message_for(phase, diff),
            "error": self._error,
            "board": self._board(sites),
            "legal": legal,
            "last_move": self._last_site(),
            "diff": diff,
            "question": self._pie_question() if phase == "pie-choice" else None,
            "leds": self._leds(phase, legal, diff),
            "scores": scores,
            "count": count if self._result is None else None,
            "agreed": sorted(self._agreed),
            "resign": [],
            "moves": [dict(m) for m in self._moves],
            "result": None if self._result is None else dict(self._result),
            "link": {
                "state": self._link_state,
                "detail": self._link_detail,
                "ever_connected": self._ever_connected,
                "port": "/dev/pts/fake",
                "virtual": self.virtual,
                "stats": self._stats(),
                "firmware": {"version": "0.3.0", "board": "fake-0001", "proto": 1},
                "faults": [dict(f) for f in self._faults],
            },
            "controls": controls,
            "control_state": self._control_state(phase),
            "settle_ms": 0,
            "tentative": {"arriving": [], "leaving": []},
            "clocks": None,
            "warnings": [],
            "lang": "en",
        }

    def _board(self, sites: list[dict[str, Any]]) -> dict[str, Any]:
        board: dict[str, Any] = {"kind": self.spec.get("id", "demo"), "size": self.size,
                                 "sites": sites}
        if not self.islands:
            return board
        rows: dict[float, list[dict[str, Any]]] = {}
        for site in sites:
            rows.setdefault(site["y"], []).append(site)
        groups: list[dict[str, Any]] = []
        for y in sorted(rows):
            row = sorted(rows[y], key=lambda s: s["x"])
            for start in range(0, len(row), 4):
                run = row[start:start + 4]
                key = chr(ord("A") + len(groups) % 26) + ("" if len(groups) < 26 else str(len(groups) // 26))
                for i, site in enumerate(run):
                    site.update(group=key, major=i == 0 and len(run) == 4)
                groups.append({"id": key, "name": f"Isle {key}", "value": len(run),
                               "owner": None, "colour": None, "tied": False})
        if self._result is not None and len(groups) >= 2:
            winner = self._result["winner"]
            groups[0].update(owner=winner, colour=self.looks.get(winner, {}).get("colour"))
            groups[1]["tied"] = True
        bottom = max(rows)
        step = min(abs(a["x"] - b["x"]) for a in sites for b in sites if a is not b and a["y"] == b["y"])
        board["groups"] = groups
        board["axis_labels"] = [
            {"text": str(i + 1), "x": site["x"], "y": round(bottom + step, 4)}
            for i, site in enumerate(sorted(rows[bottom], key=lambda s: s["x"]))
        ]
        board["north_label"] = "N (the top edge)"
        return board

    def _stats(self) -> dict[str, Any]:
        """The counters in the shape of ``Link.stats()`` (state and port repeated in it)."""
        errors = ("crc_errors", "garbage", "resends", "faults", "naks", "duplicates", "gaps")
        return {
            "frames_in": self._frames_in,
            "frames_out": self._frames_out,
            "bytes_in": self._frames_in * 21,
            "bytes_out": self._frames_out * 19,
            **{name: self._link_errors.get(name, 0) for name in errors},
            "reconnects": self._link_errors.get("reconnects", 0),
            "plans_sent": self._frames_out,
            "plans_shown": self._frames_out,
            "last_rtt_ms": 0.412,
            "state": self._link_state,
            "port": "/dev/pts/fake",
            "board": dict(self._board_counters),
        }

    def _control_state(self, phase: str) -> dict[str, Any]:
        """Which buttons mean something now, in the docs/TABLE.md ``control_state`` shape."""
        out: dict[str, Any] = {}
        for name in UNUSED_BUTTONS:
            out[name] = {"enabled": False, "why": f"{self.spec.get('title', 'This game')} "
                         "does not use this button", "used": False}
        reasons: dict[str, str] = {}
        if phase == "paused":
            reasons = dict.fromkeys(BUTTONS, "The board is disconnected: plug it back in")
            reasons.pop("menu")
        elif phase == "ended":
            reasons = dict.fromkeys(BUTTONS, "The game is over")
        else:
            if phase == "resync":
                reasons.update(dict.fromkeys(("confirm", "pass", "swap"), "Fix the board first"))
            if phase != "pie-choice":
                reasons.setdefault("swap", "Only for the pie choice, after the opener's two stones")
            if phase not in ("pie-choice", "adjudicate"):
                reasons.setdefault("confirm", "Nothing to confirm: play on the board")
            if phase != "play":
                reasons.setdefault("pass", "Passing waits for a player to move")
            if not self._moves:
                reasons["undo"] = "Nothing to undo yet"
        for name in BUTTONS:
            why = reasons.get(name)
            out[name] = {"enabled": why is None, "why": why or "", "used": True}
        return out

    def _command(self, cmd: dict[str, Any]) -> dict[str, Any]:
        name = cmd.get("cmd")
        if name == "toggle":
            return self._toggle(cmd)
        if name == "button":
            return self._button(str(cmd.get("name")))
        if name == "choose":
            return self._choose(cmd.get("field"), cmd.get("value"))
        if name == "agree":
            player = cmd.get("player")
            if not self._adjudicating or player not in self.seat_ids:
                raise FakeCommandError(f"agree {player!r}: no count is offered, or no such seat")
            self._agreed.add(str(player))
            if self._agreed == set(self.seat_ids):
                count = self._state()["count"] or {}
                winner = count.get("winner")
                self._result = {"winner": winner, "reason": "agreed count"}
                self._adjudicating = False
            return {"ok": True}
        if name == "replay":
            return {"ok": True, "replay": self._replay(cmd.get("game_id"))}
        if name == "seat":
            seat, kind = cmd.get("seat"), cmd.get("automaton")
            automata = [str(a) for a in self.spec.get("automata", [])]
            if seat not in self.seat_ids:
                raise FakeCommandError(f"seat {seat!r} is not one of {', '.join(self.seat_ids)}")
            if kind is not None and str(kind).partition(":")[0] not in automata:
                raise FakeCommandError(
                    f"{self.spec.get('title', 'this game')} has no automaton {kind!r}; choose "
                    f"one of: {', '.join(automata) or 'none'} (or leave the seat to a person)"
                )
            self._seats_kind[str(seat)] = "person" if kind is None else str(kind)
            return {"ok": True}
        if name == "state":
            return {"ok": True, "state": self._state()}
        if name == "games":
            return {"ok": True, "games": self._games()}
        raise FakeCommandError(f"command {name!r} is unknown to the fake table")

    def _toggle(self, cmd: dict[str, Any]) -> dict[str, Any]:
        site = cmd.get("site")
        if not self.virtual and not cmd.get("force"):
            raise FakeCommandError("toggle works on the virtual board only")
        if site not in self._xy:
            raise FakeCommandError(f"site {site!r} is not on the fake board")
        self._frames_in += 1
        if self._link_state != "connected":
            raise FakeCommandError("the board is disconnected; plug it back in first")
        was_play = self._phase() == "play"
        self._sensed ^= {site}
        if was_play and site in self._sensed and site in self._legal():
            self._play(site)
        elif was_play and site in self._sensed:
            self._message = f"{site} is not a legal point: lift that stone"
        elif self._phase() == "play":
            self._message = ""  # the board matches again: the mistake is corrected
        return {"ok": True}

    def _play(self, site: str) -> None:
        self._pieces[site] = self.piece_of[self._to_move]
        self._moves.append(
            {"n": len(self._moves) + 1, "player": self._to_move, "notation": site, "removed": []}
        )
        self._positions.append(dict(self._pieces))
        self._to_move = self._next_seat(self._to_move)
        self._frames_out += 3
        self._message = ""
        if self.pie and len(self._moves) == 2:
            self._pie_open = True

    def _button(self, name: str) -> dict[str, Any]:
        if name not in BUTTONS:
            raise FakeCommandError(f"button {name!r} is not one of {BUTTONS}")
        if self._pie_open and name in ("swap", "confirm"):
            return self._choose("pie", "swap" if name == "swap" else "keep")
        if self._adjudicating and name == "confirm":
            left = [seat for seat in self.seat_ids if seat not in self._agreed]
            return self._command({"cmd": "agree", "player": left[0]})
        if name in ("swap", "confirm"):
            raise FakeCommandError(
                f"{name.capitalize()} does nothing now: place a {self.piece_word} on a lit point"
            )
        if name == "menu":
            self._adjudicating = not self._adjudicating
            self._agreed.clear()
            return {"ok": True}
        if name == "undo":
            if not self._moves:
                raise FakeCommandError("nothing to undo: no move has been played")
            self._moves.pop()
            self._positions.pop()
            self._pieces = dict(self._positions[-1])
            self._to_move = self._previous_seat(self._to_move)
            self._result = None
            self._pie_open = self.pie and len(self._moves) == 2
        elif name == "pass":
            if self._phase() != "play":
                raise FakeCommandError("pass is possible only while a player is to move")
            self._moves.append(
                {"n": len(self._moves) + 1, "player": self._to_move, "notation": "pass", "removed": []}
            )
            self._positions.append(dict(self._pieces))
            self._to_move = self._next_seat(self._to_move)
        self._message = ""
        return {"ok": True}

    def _choose(self, field: object, value: object) -> dict[str, Any]:
        if field != "pie" or not self._pie_open or value not in ("swap", "keep"):
            raise FakeCommandError(
                f"choice {field!r}={value!r} is not asked now; the fake asks only pie=swap|keep"
            )
        self._swapped = value == "swap"
        self._pie_open = False
        return {"ok": True}

    def _replay(self, game_id: object) -> dict[str, Any]:
        if game_id == self.game_id or game_id is None:
            moves, positions = [dict(m) for m in self._moves], [dict(p) for p in self._positions]
            gid = self.game_id
        elif isinstance(game_id, int) and game_id in self._archive:
            entry = self._archive[game_id]
            moves, positions, gid = entry["moves"], entry["positions"], game_id
        else:
            raise FakeCommandError(f"game {game_id!r} is not in the log")
        scores = [
            {seat: {"total": sum(1 for p in position.values() if p == mark)}
             for seat, mark in self.piece_of.items()}
            for position in positions
        ]
        return {"game_id": gid, "game": self.spec.get("id", "demo"), "moves": moves,
                "positions": positions, "scores": scores}

    def _games(self) -> list[dict[str, Any]]:
        games = [
            {
                "game_id": gid,
                "game": self.spec.get("id", "demo"),
                "players": list(self.players),
                "moves": len(entry["moves"]),
                "started": self.started,
                "result": entry["result"],
            }
            for gid, entry in sorted(self._archive.items())
        ]
        games.append(
            {
                "game_id": self.game_id,
                "game": self.spec.get("id", "demo"),
                "players": list(self.players),
                "moves": len(self._moves),
                "started": self.started,
                "result": self._result,
            }
        )
        return games

    def _scripted_archive(self) -> dict[str, Any]:
        script = [self._names[i % len(self._names)] for i in (10, 40, 25, 60, 5)]
        pieces: dict[str, str] = {}
        moves: list[dict[str, Any]] = []
        positions: list[dict[str, str]] = [{}]
        for n, site in enumerate(script, start=1):
            player = self.seat_ids[(n - 1) % len(self.seat_ids)]
            pieces[site] = self.piece_of[player]
            moves.append({"n": n, "player": player, "notation": site, "removed": []})
            positions.append(dict(pieces))
        return {
            "moves": moves,
            "positions": positions,
            "result": {"winner": self.seat_ids[0], "reason": "the others resigned"},
        }
