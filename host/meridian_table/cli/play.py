"""`meridian-table play GAME`: play at the table (a real board, else the virtual one).

Connects to the board (or falls back to the virtual board with a one-line notice),
creates or resumes the game in the log, serves the table page and prints its URL.
``--headless`` serves no page: it reads scripted commands from stdin and prints one
JSON line per acknowledged move and per state change (for automation and tests):

    place G6 | lift G6 | toggle G6     the virtual board's switch at a site
    button undo                        a button by name (confirm, undo, pass, swap, menu)
    choose pie swap                    an answer to the current question
    agree light                        a seat agrees to end the game by the count
    wait                               wait until the board has settled, then print the state
    state                              print the whole state
    quit                               stop (end of input does the same)

Output lines: {"event": "ready", ...}, {"event": "move", "n": 3, "notation": "G6",
"player": "light"} (only after the move is in the log), {"event": "undo", ...},
{"event": "state", "phase": ..., "message": ...}, {"event": "fault", "code": "GHOST",
"text": ...} (a board fault, once), {"event": "error", "error": ...},
{"event": "ack", "cmd": ...} after each command.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import click

from meridian_table.link import UnknownPortError, check_port
from meridian_table.store import StoreError
from meridian_table.table.runner import RunningTable, SetupError, TableSetup, open_table

LOGGER = logging.getLogger(__name__)

GAMES = ("kato", "colovini")
ASSISTS = ("full", "captures", "tournament")
DECKS = ("digital", "physical")


class HeadlessPrinter:
    """Turns session states into JSON lines: moves (only once logged), undos, phases."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._lock = threading.Lock()
        self._moves: list[dict[str, Any]] | None = None
        self._last: tuple[Any, ...] | None = None
        self._faults: set[tuple[str, str]] = set()

    def emit(self, record: dict[str, Any]) -> None:
        with self._lock:
            self._out.write(json.dumps(record, sort_keys=True) + "\n")
            self._out.flush()

    def prime(self, state: dict[str, Any]) -> None:
        self._moves = list(state["moves"])
        self._last = _summary(state)
        self._new_faults(state)

    def _new_faults(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        """The board faults not printed yet (a repeat of a printed one is not new)."""
        out = []
        for fault in state["link"].get("faults", []):
            key = (str(fault["code"]), json.dumps(fault["detail"]))
            if key not in self._faults:
                self._faults.add(key)
                out.append({"event": "fault", "code": fault["code"], "detail": fault["detail"],
                            "text": fault["text"]})
        return out

    def __call__(self, state: dict[str, Any]) -> None:
        moves = list(state["moves"])
        records: list[dict[str, Any]] = []
        with self._lock:
            before = self._moves if self._moves is not None else []
            common = 0
            while (
                common < len(before)
                and common < len(moves)
                and before[common]["notation"] == moves[common]["notation"]
            ):
                common += 1
            for gone in reversed(before[common:]):
                records.append({"event": "undo", **gone})
            for new in moves[common:]:
                records.append({"event": "move", **new})
            self._moves = moves
            records.extend(self._new_faults(state))
            summary = _summary(state)
            if summary != self._last:
                self._last = summary
                records.append(
                    {
                        "event": "state",
                        "phase": state["phase"],
                        "message": state["message"],
                        "to_move": state["to_move"],
                        "moves": len(moves),
                        "diff": state["diff"],
                        "result": state["result"],
                        "link": state["link"]["state"],
                    }
                )
        for record in records:
            self.emit(record)


def _summary(state: dict[str, Any]) -> tuple[Any, ...]:
    return (
        state["phase"],
        state["message"],
        state["link"]["state"],
        json.dumps(state["diff"], sort_keys=True),
    )


def run_headless(table: RunningTable, lines: IO[str], out: IO[str]) -> None:
    """Read commands from ``lines`` until ``quit`` or the end; print JSON lines to ``out``."""
    session = table.session
    printer = HeadlessPrinter(out)
    ready = table.wait_ready()
    state = session.state()
    printer.prime(state)
    unsubscribe = session.subscribe(printer)
    printer.emit(
        {
            "event": "ready",
            "ready": ready,
            "game_id": state["game_id"],
            "resumed": table.resumed,
            "moves": state["moves"],
            "phase": state["phase"],
            "virtual": table.virtual is not None,
        }
    )
    try:
        _headless_loop(table, lines, printer)
    finally:
        # Quitting closes the link next: the table closing is no state change to print.
        unsubscribe()


def _headless_loop(table: RunningTable, lines: IO[str], printer: HeadlessPrinter) -> None:
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        verb, args = words[0].lower(), words[1:]
        if verb == "quit":
            break
        try:
            reply = _headless_command(table, verb, args)
        except (ValueError, LookupError) as exc:
            reply = {"ok": False, "error": str(exc)}
        if not reply.get("ok", False):
            printer.emit({"event": "error", "cmd": line, "error": reply.get("error", "")})
        if "state" in reply:
            printer.emit({"event": "full-state", "state": reply["state"]})
        printer.emit({"event": "ack", "cmd": line})


def _headless_command(table: RunningTable, verb: str, args: list[str]) -> dict[str, Any]:
    session = table.session
    if verb in ("place", "lift", "toggle"):
        if len(args) != 1:
            # A ValueError, not a UsageError: one mistyped line must not end the session.
            raise ValueError(f"{verb} takes one site, e.g. '{verb} G6'; got {' '.join(args)!r}")
        site = args[0]
        vb = table.virtual
        if vb is None:
            raise ValueError(f"{verb!r} needs the virtual board; on a real board move the stone")
        if site not in table.profile.sites:
            names = list(table.profile.sites)
            raise ValueError(
                f"site {site!r} is not on board {table.profile.name!r}; its sites run "
                f"{names[0]} .. {names[-1]} (`state` lists the legal ones)"
            )
        if verb == "toggle":
            vb.toggle(table.profile.sites[site].pos)
        else:
            vb.set_site(site, verb == "place")
        return {"ok": True}
    if verb == "button" and len(args) == 1:
        return session.command({"cmd": "button", "name": args[0]})
    if verb == "choose" and len(args) == 2:
        return session.command({"cmd": "choose", "field": args[0], "value": args[1]})
    if verb == "agree" and len(args) == 1:
        return session.command({"cmd": "agree", "player": args[0]})
    if verb == "wait":
        pause = threading.Event()
        deadline = time.monotonic() + 10
        pause.wait(0.05)  # let a switch just set reach the host before asking
        while session.settling and time.monotonic() < deadline:
            pause.wait(0.01)
        return {"ok": True, "state": session.state()}
    if verb == "state":
        return {"ok": True, "state": session.state()}
    raise ValueError(
        f"unknown headless command {' '.join([verb, *args])!r}; use place, lift, toggle, "
        "button NAME, choose FIELD VALUE, agree SEAT, wait, state or quit"
    )


def _check_db(db: str) -> None:
    """Refuse a --db whose folder does not exist: a typo there would silently start an
    empty log somewhere new, and the players would think their games were lost."""
    if db == ":memory:":
        return
    folder = Path(db).expanduser().absolute().parent
    if not folder.is_dir():
        raise click.BadParameter(
            f"{db!r}: its folder {folder} does not exist; check the path for a typo, create "
            f"the folder (mkdir -p {folder}), or leave out --db to use the default log",
            param_hint="--db",
        )


def _colovini_options(
    game: str, deck: str | None, seed: int | None, map_file: str | None, resume: bool
) -> dict[str, Any]:
    """--deck, --seed and --map as Colovini's game options, checked: refused for another
    game, with --resume (the logged game keeps its own), and a seed without a shuffle."""
    given = {"--deck": deck, "--seed": seed, "--map": map_file}
    named = [flag for flag, value in given.items() if value is not None]
    if not named:
        return {}
    if game != "colovini":
        raise click.BadParameter(
            f"{', '.join(named)} {'is' if len(named) == 1 else 'are'} for Colovini's Meridian "
            f"(cards and an island map); {game} has none: leave {' and '.join(named)} out",
            param_hint=named[0],
        )
    if resume:
        raise click.BadParameter(
            f"--resume continues the logged game with its own deck, seed and map; leave "
            f"{' and '.join(named)} out, or start a new game without --resume",
            param_hint=named[0],
        )
    if seed is not None and deck == "physical":
        raise click.BadParameter(
            f"--seed {seed} shuffles the digital deck, but --deck physical uses your own "
            "cards: leave --seed out, or use --deck digital",
            param_hint="--seed",
        )
    options: dict[str, Any] = {}
    if deck is not None:
        options["deck"] = deck
    if seed is not None:
        options["seed"] = seed
    if map_file is not None:
        options["map"] = _check_map(map_file)
    return options


def _check_map(map_file: str) -> str:
    """The --map as the game logs it (a file as an absolute path, so that --resume
    finds it from any folder), after reading it: a bad map is refused before the board
    is opened, with the file, the line and the fix."""
    from meridian_table.games.colovini import MapError, load_map
    from meridian_table.games.colovini.maps import resolve_map

    try:
        path = resolve_map(map_file)
        load_map(path)
    except MapError as exc:
        raise click.BadParameter(str(exc), param_hint="--map") from None
    shipped = path.stem == map_file and not Path(map_file).exists()
    return map_file if shipped else str(path.expanduser().absolute())


def _parse_players(value: str | None) -> tuple[str, ...]:
    """``Ann,Bob`` -> ("Ann", "Bob"). Empty names are kept so the table can name them."""
    if not value:
        return ()
    return tuple(name.strip() for name in value.split(","))


def register(group: click.Group) -> None:
    @group.command()
    @click.argument("game", type=click.Choice(GAMES))
    @click.option("--board", default="auto", show_default=True,
                  help="auto (a Pico, else the virtual board), sim, or a serial port "
                  "(/dev/ttyACM0, COM5) or pyserial URL.")
    @click.option("--profile", default=None, help="Board profile name or file (default: kato-114; Colovini: the "
                  "side that fits, colovini-40 for 3 players, colovini-50 for 2 or 4; "
                  "--resume: the game's own).")
    @click.option("--players", default=None,
                  help="Player names in seat order: Ann,Bob (Kato: 2; Colovini: 2 to 4).")
    @click.option("--assist", type=click.Choice(ASSISTS), default="full", show_default=True,
                  help="Kato: legal points and dead groups lit / captures only / none.")
    @click.option("--pie", is_flag=True, help="Kato: play with the pie rule.")
    @click.option("--deck", type=click.Choice(DECKS), default=None,
                  help="Colovini: digital (the table shuffles and deals; default) or physical "
                  "(your own cards: say which card each turn).")
    @click.option("--seed", type=click.IntRange(min=0), default=None,
                  help="Colovini: shuffle the digital deck with this seed, to deal the same "
                  "game again (default: a random seed; either way it is logged).")
    @click.option("--map", "map_file", default=None, metavar="FILE",
                  help="Colovini: the island map, a .toml file or a shipped map "
                  "(sample-50, sample-40; default: the sample map of the board's side).")
    @click.option("--resume", is_flag=True, help="Continue the last unfinished game.")
    @click.option("--db", default=None,
                  help="Game log file (default: $MERIDIAN_TABLE_DB, else the user data dir).")
    @click.option("--host", default="127.0.0.1", show_default=True, help="Page address.")
    @click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
                  help="Page port (0: any free one).")
    @click.option("--settle-ms", default=300, show_default=True, type=click.IntRange(0, 5000),
                  help="How long the board must be still before a change counts.")
    @click.option("--headless", is_flag=True, help="No page: scripted commands on stdin.")
    @click.option("--sim-mode", type=click.Choice(["cpython", "micropython"]), default="cpython",
                  show_default=True, help="How the virtual board runs the firmware.")
    def play(
        game: str,
        board: str,
        profile: str | None,
        players: str | None,
        assist: str,
        pie: bool,
        deck: str | None,
        seed: int | None,
        map_file: str | None,
        resume: bool,
        db: str | None,
        host: str,
        port: int,
        settle_ms: int,
        headless: bool,
        sim_mode: str,
    ) -> None:
        """Play GAME at the table and serve its page.

        GAME is kato (Kato's Meridians) or colovini (Colovini's Meridian). With no Pico
        plugged in, play runs on the virtual board. Every move is logged as it is made;
        after a crash or Ctrl-C, --resume continues the last unfinished game.

        \b
        Examples:
          meridian-table play kato --players Ann,Bob
          meridian-table play kato --board /dev/ttyACM0 --assist tournament --pie
          meridian-table play colovini --profile colovini-40 --players Ann,Bob,Cid
          meridian-table play colovini --players Ann,Bob --deck digital --seed 42
          meridian-table play colovini --deck physical --map my-board.toml
          meridian-table play kato --resume
          echo "place G6" | meridian-table play kato --headless --board sim

        --headless reads one command a line (place|lift|toggle SITE, button NAME,
        choose FIELD VALUE, agree SEAT, wait, state, quit) and prints JSON lines.
        """
        if board != "sim":
            try:
                check_port(board)
            except UnknownPortError as exc:
                raise click.BadParameter(str(exc), param_hint="--board") from None
        if db is not None:
            _check_db(db)
        options: dict[str, Any] = {}
        settings: dict[str, Any] = {}
        colovini_options = _colovini_options(game, deck, seed, map_file, resume)
        if game == "kato":
            options["pie"] = pie
            settings["assist"] = assist
        else:
            options.update(colovini_options)
        setup = TableSetup(
            game=game,
            board=board,
            profile=profile,
            players=_parse_players(players),
            options=options,
            settings=settings,
            resume=resume,
            db=db,
            settle_s=settle_ms / 1000.0,
            sim_mode=sim_mode,
        )
        try:
            table = open_table(setup)
        except (SetupError, StoreError, ValueError, OSError) as exc:
            raise click.ClickException(str(exc)) from exc
        with table:
            if table.notice:
                click.echo(table.notice, err=headless)
            if headless:
                run_headless(table, sys.stdin, sys.stdout)
                return
            _serve(table, host, port)


def _serve(table: RunningTable, host: str, port: int) -> None:
    from meridian_table.web import WebServerError, serve

    try:
        server = serve(table.session, host, port)
    except (WebServerError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    with server:
        state = table.session.state()
        what = "resumed" if table.resumed else "new"
        click.echo(
            f"{what} {state['game']} game {state['game_id'] or ''} on "
            f"{'the virtual board' if table.virtual is not None else table.link.port}"
        )
        options = state.get("options") or {}
        if options.get("deck") == "digital" and options.get("seed") is not None:
            click.echo(f"digital deck shuffled with seed {options['seed']} "
                       f"(--seed {options['seed']} deals this game again)")
        click.echo(f"Table page: {server.url}")
        if server.token:
            click.echo(f"Access token (for other devices): {server.token}")
        click.echo("Press Ctrl-C to stop; the game is saved and `--resume` continues it.")
        try:
            while server.running:
                server.wait(0.5)
        except KeyboardInterrupt:
            click.echo("stopping")
