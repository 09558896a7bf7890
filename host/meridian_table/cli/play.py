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

Each place/lift/toggle first lets the previous change be read (successive lines are
separate moves), and quitting first settles and logs what the board sensed.

Output lines: {"event": "ready", ...}, {"event": "move", "n": 3, "notation": "G6",
"player": "light"} (only after the move is in the log), {"event": "undo", ...},
{"event": "state", "phase": ..., "message": ...}, {"event": "fault", "code": "GHOST",
"text": ...} (a board fault, once), {"event": "error", "error": ...},
{"event": "ack", "cmd": ...} after each command.
"""

from __future__ import annotations

import json
import logging
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import click

from meridian_table.cli.club import club_replication, remote_side
from meridian_table.club import REMOTE, REMOTE_WAITING
from meridian_table.games import registry
from meridian_table.games.contract import GameSpec, OptionError, OptionSpec, parse_options
from meridian_table.games.params import PagePort
from meridian_table.i18n import LANGUAGES, _, said, set_language
from meridian_table.link import UnknownPortError, check_port
from meridian_table.store import StoreError
from meridian_table.table.clocks import FLAG_RULES, ClockError, ClockRule
from meridian_table.table.lobby import TableHost
from meridian_table.table.presenter import PageState
from meridian_table.table.runner import RunningTable, SetupError, TableSetup, open_table

LOGGER = logging.getLogger(__name__)



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

    def prime(self, state: PageState) -> None:
        self._moves = [m for m in state["moves"] if not m.get("provisional")]
        self._last = _summary(state)
        self._new_faults(state)

    def _new_faults(self, state: PageState) -> list[dict[str, Any]]:
        """The board faults not printed yet (a repeat of a printed one is not new)."""
        out = []
        for fault in state["link"].get("faults", []):
            key = (str(fault["code"]), json.dumps(fault["detail"]))
            if key not in self._faults:
                self._faults.add(key)
                out.append({"event": "fault", "code": fault["code"], "detail": fault["detail"],
                            "text": fault["text"]})
        return out

    def __call__(self, state: PageState) -> None:
        # A move read early is printed once it is in the log (it may still be taken back).
        moves = [m for m in state["moves"] if not m.get("provisional")]
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
                        "link_detail": state["link"].get("detail", ""),
                    }
                )
        for record in records:
            self.emit(record)


def _summary(state: PageState) -> tuple[Any, ...]:
    link = state["link"]
    return (
        state["phase"],
        state["message"],
        link["state"],
        # While there is no board, why (a wrong port says so, with advice) is news too.
        "" if link["state"] in ("connected", "none") else link.get("detail", ""),
        json.dumps(state["diff"], sort_keys=True),
    )


class BoardNotices:
    """Prints (to stderr) each new reason the board is not connected, once: the page
    is not the only place a wrong `--board` is diagnosed."""

    def __init__(self) -> None:
        self._last = ""
        self._lock = threading.Lock()

    def __call__(self, state: PageState) -> None:
        link = state["link"]
        quiet = link["state"] in ("connected", "none", "closed")  # closed: we are quitting
        detail = "" if quiet else str(link.get("detail", ""))
        with self._lock:
            if detail == self._last:
                return
            self._last = detail
        if detail:
            click.echo(_("board: {detail}").format(detail=detail), err=True)


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
            "link": state["link"]["state"],
            "link_detail": state["link"].get("detail", ""),
        }
    )
    try:
        _headless_loop(table, lines, printer)
        # End of input (or quit) first finishes what the board sensed: the last move is
        # settled, applied and logged, and printed, before the table closes.
        settle_board(table, automaton=True)
        printer(session.state())
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
        # What the command changed is printed before its ack (the session's own
        # notification may come later, from another thread; the printer prints each once).
        printer(table.session.state())
        if "state" in reply:
            printer.emit({"event": "full-state", "state": reply["state"]})
        printer.emit({"event": "ack", "cmd": line})


SETTLE_TIMEOUT_S = 10.0


def settle_board(table: RunningTable, timeout: float = SETTLE_TIMEOUT_S,
                 automaton: bool = False) -> bool:
    """Wait until the session has read the virtual board as it stands (every switch set
    has reached the host) and nothing is settling, and with ``automaton`` until no
    automaton is thinking; False when ``timeout`` passed first. On a real board only
    the settling (and thinking) is waited for."""
    session = table.session
    vb = table.virtual
    pause = threading.Event()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if vb is not None:
            closed = vb.closed
            want = {name for name, site in table.profile.sites.items() if site.pos in closed}
            if session.sensed != want:
                pause.wait(0.01)
                continue
        if not session.settling and not (automaton and (_thinking(session.state())
                                                         or session.hint_pending)):
            return True
        pause.wait(0.01)
    return False


def _thinking(state: PageState) -> bool:
    """An automaton is still choosing: a local one until its budget ends (and until the
    session has taken its answer: between the two the thinker is idle but the move is
    not yet played or shown, the phase still ``thinking``); a player at another table of
    the club only until it has read the club and waits for that table's move (which may
    take minutes: not waited for)."""
    working = state.get("automaton")
    if not (isinstance(working, dict) and working.get("status") == "thinking"):
        return state.get("phase") == "thinking" and not (
            isinstance(working, dict) and working.get("automaton") == REMOTE)
    if working.get("automaton") != REMOTE:
        return True
    link = state.get("link")
    stats = link.get("stats") if isinstance(link, dict) else None
    return not (isinstance(stats, dict) and stats.get("remote_player") == REMOTE_WAITING)


def _headless_command(table: RunningTable, verb: str, args: list[str]) -> dict[str, Any]:
    session = table.session
    if verb in ("place", "lift", "toggle"):
        # The previous change is read first: quick successive lines are separate moves,
        # as a player's hands make them, not one change of several stones.
        settle_board(table)
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
            closed = verb == "place"
            vb.set_site(site, closed)
            # Acknowledged once the host has the switch (a loaded machine can take longer
            # than `wait`'s first pause), so `place X` then `wait` always reads X.
            pause = threading.Event()
            deadline = time.monotonic() + 5
            while (site in session.sensed) != closed and time.monotonic() < deadline:
                pause.wait(0.002)
        return {"ok": True}
    if verb == "button" and len(args) == 1:
        return session.command({"cmd": "button", "name": args[0]})
    if verb == "choose" and len(args) >= 2:
        # The value is the rest of the line: an answer may have words (an action).
        return session.command({"cmd": "choose", "field": args[0], "value": " ".join(args[1:])})
    if verb == "seat" and len(args) == 2:
        automaton = None if args[1] == "person" else args[1]
        return session.command({"cmd": "seat", "seat": args[0], "automaton": automaton})
    if verb == "agree" and len(args) == 1:
        return session.command({"cmd": "agree", "player": args[0]})
    if verb == "wait":
        settle_board(table, automaton=True)
        return {"ok": True, "state": session.state()}
    if verb == "state":
        return {"ok": True, "state": session.state()}
    raise ValueError(_(
        "unknown headless command {command}; use place, lift, toggle, button NAME, choose "
        "FIELD VALUE..., agree SEAT, seat N AUTOMATON|person, wait, state or quit").format(
            command=repr(" ".join([verb, *args]))))


def _check_db(db: str) -> None:
    """Refuse a --db whose folder does not exist: a typo there would silently start an
    empty log somewhere new, and the players would think their games were lost."""
    if db == ":memory:":
        return
    folder = Path(db).expanduser().absolute().parent
    if not folder.is_dir():
        raise click.BadParameter(
            _("{db}: its folder {folder} does not exist; check the path for a typo, create "
              "the folder (mkdir -p {folder}), or leave out --db to use the default log")
            .format(db=repr(db), folder=folder), param_hint="--db")


def _parse_players(value: str | None) -> tuple[str, ...]:
    """``Ann,Bob`` -> ("Ann", "Bob"). Empty names are kept so the table can name them."""
    if not value:
        return ()
    return tuple(name.strip() for name in value.split(","))


COMMON_HELP = """
With no Pico plugged in, play runs on the virtual board. Every move is logged as it is
made; after a crash or Ctrl-C, --resume continues the last unfinished game.

--seat N=AUTOMATON gives seat N (1 = the first player) to an automaton whose moves light
up on the board for the people to carry out (random{bots}).

--headless reads one command a line (place|lift|toggle SITE, button NAME, choose FIELD
VALUE, agree SEAT, wait, state, quit) and prints JSON lines.
"""


def _option_decorator(option: OptionSpec) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A click option generated from one entry of the game's options schema."""
    name = option.name
    if option.type is bool:
        return click.option(f"{option.flag}/--no-{option.flag[2:]}", name, default=None,
                            help=option.help)
    kind: Any
    if option.choices:
        kind = click.Choice(list(option.choices))
    elif option.type is int:
        kind = click.IntRange(min=option.minimum, max=option.maximum)
    else:
        kind = str
    default_text = "" if option.default is None else f" [default: {option.default}]"
    return click.option(option.flag, name, type=kind, default=None, metavar=option.metavar,
                        help=option.help + default_text)


def parse_seats(values: tuple[str, ...], spec: GameSpec) -> dict[str, str]:
    """``("2=random",)`` -> ``{"2": "random"}``, each automaton checked by the spec."""
    seats: dict[str, str] = {}
    most = max(spec.player_counts)
    for value in values:
        number, sep, description = value.partition("=")
        if not sep or not number.strip().isdigit() or not description.strip():
            raise click.BadParameter(
                _("{value} is not SEAT=AUTOMATON; write e.g. --seat 2=random").format(
                    value=repr(value)), param_hint="--seat")
        seat = int(number)
        if not 1 <= seat <= most:
            raise click.BadParameter(
                _("{value}: seat {seat} is not a seat of {game} (1 to {most})").format(
                    value=repr(value), seat=seat, game=_(spec.title), most=most),
                param_hint="--seat")
        try:
            spec.policy(description.strip())
        except OptionError as exc:
            raise click.BadParameter(str(exc), param_hint="--seat") from None
        seats[str(seat)] = description.strip()
    return seats


def _game_command(spec: GameSpec) -> click.Command:
    """``play GAME``: the common options plus the game's options schema."""
    examples = "\n".join(f"  meridian-table {line}" if not line.startswith(("echo", "meridian"))
                         else f"  {line}" for line in spec.help_examples)
    others = sorted(set(spec.automata()) - {"random"})
    bots = ", " + ", ".join(others) if others else ""
    doc = (f"Play {spec.title} at the table and serve its page.\n"
           + COMMON_HELP.replace("{bots}", bots)
           + ("\n\b\nExamples:\n" + examples if examples else ""))

    def command(**kwargs: Any) -> None:
        _play(spec, kwargs)

    for option in reversed(spec.options):
        if not option.from_table:
            command = _option_decorator(option)(command)
    for decorator in reversed(_COMMON_OPTIONS):
        command = decorator(command)
    return click.command(spec.id, help=doc, short_help=spec.summary or spec.title)(command)


_COMMON_OPTIONS = (
    click.option("--board", default="auto", show_default=True,
                 help="auto (a Pico, else the virtual board), sim, emu (the firmware on an "
                 "emulated Pico: docs/FIRMWARE.md), or a serial port (/dev/ttyACM0, COM5) "
                 "or pyserial URL."),
    click.option("--profile", default=None,
                 help="Board profile name or file (default: the game's board for the "
                 "players and options; --resume: the game's own)."),
    click.option("--players", default=None,
                 help="Player names in seat order: Ann,Bob."),
    click.option("--seat", "seat", multiple=True, metavar="N=AUTOMATON",
                 help="Give seat N to an automaton (e.g. 2=random); repeatable."),
    click.option("--clock", default=None, metavar="KIND:TIME[+EXTRA]",
                 help="Players' clocks: sudden:10m, fischer:5m+3s (increment), "
                 "bronstein:5m+5s (delay) or turn:90s (a timer per turn)."),
    click.option("--flag", "flag_rule", type=click.Choice(list(FLAG_RULES)), default="lose",
                 show_default=True,
                 help="When a clock runs out: lose (that player loses), score (the count "
                 "decides) or warn (play on)."),
    click.option("--clock-leds", is_flag=True,
                 help="Show low time on the board too: the mover's lit points breathe."),
    click.option("--lang", default=None, type=click.Choice(["auto", *LANGUAGES]),
                 help="The table's language: en or fr (default: the first page's browser, "
                 "else the system's)."),
    click.option("--resume", is_flag=False, flag_value="last", default=None, metavar="[ID]",
                 help="Continue the last unfinished game, or game ID (`meridian-table "
                 "games` lists them)."),
    click.option("--db", default=None,
                 help="Game log file (default: $MERIDIAN_TABLE_DB, else the user data dir)."),
    click.option("--club", default=None, metavar="URL",
                 help="Replicate this table's log to a club (docs/CLUB.md; default: the "
                 "one saved by `club join`)."),
    click.option("--remote", default=None, metavar="GAME-ID",
                 help="Play your seats of the club's remote game GAME-ID; the other "
                 "table's moves light up here (docs/CLUB.md)."),
    click.option("--host", default="127.0.0.1", show_default=True, help="Page address."),
    click.option("--port", default=8765, show_default=True, type=PagePort("--board"),
                 help="Page port (0: any free one)."),
    click.option("--settle-ms", default=300, show_default=True, type=click.IntRange(0, 5000),
                 help="How long the board must be still before a change counts."),
    click.option("--headless", is_flag=True, help="No page: scripted commands on stdin."),
    click.option("--sim-mode", type=click.Choice(["cpython", "micropython"]), default="cpython",
                 show_default=True, help="How the virtual board runs the firmware."),
)


def _play(spec: GameSpec, kwargs: dict[str, Any]) -> None:
    # The language first: every message of the command is said in it.
    lang = kwargs.pop("lang")
    set_language(lang)
    board = str(kwargs.pop("board"))
    resume_id = _resume_id(kwargs.pop("resume"))
    resume = resume_id is not False
    db = kwargs.pop("db")
    club = kwargs.pop("club")
    remote = kwargs.pop("remote")
    host = str(kwargs.pop("host"))
    port = int(kwargs.pop("port"))
    headless = bool(kwargs.pop("headless"))
    profile = kwargs.pop("profile")
    players = kwargs.pop("players")
    settle_ms = int(kwargs.pop("settle_ms"))
    sim_mode = str(kwargs.pop("sim_mode"))
    seats = parse_seats(tuple(kwargs.pop("seat")), spec)
    clock_text = kwargs.pop("clock")
    flag_rule = str(kwargs.pop("flag_rule"))
    clock_leds = bool(kwargs.pop("clock_leds"))
    clock = None
    if clock_text:
        if resume:
            raise click.BadParameter(_("--resume continues the logged game with its own "
                                       "clocks; leave --clock out"), param_hint="--clock")
        try:
            clock = ClockRule.parse(clock_text, flag=flag_rule, leds=clock_leds).to_setting()
        except ClockError as exc:
            raise click.BadParameter(str(exc), param_hint="--clock") from None
    if board not in ("sim", "emu"):
        try:
            check_port(board)
        except UnknownPortError as exc:
            raise click.BadParameter(str(exc), param_hint="--board") from None
    if db is not None:
        _check_db(db)
    given = {name: value for name, value in kwargs.items() if value is not None}
    kinds = {o.name: o for o in spec.options}
    named = [kinds[n].flag for n in given if kinds[n].kind == "engine"]
    if resume and seats:
        raise click.BadParameter(_(
            "--resume continues the logged game with its own seats; leave --seat out "
            "(the page can give a seat to a person or an automaton)"), param_hint="--seat")
    if resume and named:
        raise click.BadParameter(
            _("--resume continues the logged game with its own options; leave {flags} out, "
              "or start a new game without --resume").format(flags=" / ".join(named)),
            param_hint=named[0])
    try:
        options, settings = parse_options(spec.options, given, spec.id)
        if spec.prepare is not None and options and not resume:
            options = spec.prepare(options)
    except OptionError as exc:
        if exc.option is not None and exc.option in kinds:
            raise click.BadParameter(str(exc), param_hint=kinds[exc.option].flag) from None
        raise click.UsageError(str(exc)) from None
    setting: dict[str, Any] = dict(settings)
    if seats:
        setting["seats"] = seats
    if clock is not None:
        setting["clock"] = clock
    setup = TableSetup(
        game=spec.id,
        board=board,
        profile=profile,
        players=_parse_players(players),
        options=dict(options),
        settings=setting,
        resume=resume,
        resume_id=resume_id if isinstance(resume_id, int) else None,
        db=db,
        settle_s=settle_ms / 1000.0,
        sim_mode=sim_mode,
    )
    setup, link = remote_side(setup, club, remote)
    page_socket = None if headless else _reserve(host, port)
    try:
        table = open_table(setup)
    except (SetupError, StoreError, ValueError, OSError) as exc:
        if page_socket is not None:
            page_socket.close()
        raise click.ClickException(said(exc)) from exc
    if headless:
        with table, club_replication(table, club, headless, link):
            if table.notice:
                click.echo(table.notice, err=True)
            # Why the board is not there (a port that never answers, say), in the terminal.
            table.session.subscribe(BoardNotices())
            _watch_firmware(table, headless)
            run_headless(table, sys.stdin, sys.stdout)
        return
    # The page may start new games and rematches: the host closes whichever table is
    # in play when the command ends. The club replicates the game the command opened.
    with TableHost(table, lang_fixed=lang not in (None, "auto")) as lobby, \
            club_replication(table, club, headless, link):
        if table.notice:
            click.echo(table.notice)
        table.session.subscribe(BoardNotices())
        _watch_firmware(table, headless)
        _serve(lobby, host, port, page_socket)


def _resume_id(value: object) -> int | None | bool:
    """``--resume``'s value: False (not given), None (the last unfinished game) or an id."""
    if value is None:
        return False
    if value == "last":
        return None
    text = str(value).strip().lstrip("#")
    if not text.isdigit() or int(text) < 1:
        raise click.BadParameter(
            _("{value} is not a game id; give a number from `meridian-table games`, or "
              "--resume alone for the last unfinished game").format(value=repr(value)),
            param_hint="--resume")
    return int(text)


def _reserve(host: str, port: int) -> socket.socket | None:
    """The page's port, bound before the game is opened: a busy port fails the command
    before the log holds a game that was never played (issue 26)."""
    from meridian_table.web import WebServerError
    from meridian_table.web.server import reserve

    try:
        return reserve(host, port)
    except (WebServerError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc


def _watch_firmware(table: RunningTable, headless: bool) -> None:
    """Say once, when the board says HELLO, if its firmware is older than this host's."""
    from meridian_table.maker.flashing import update_notice
    from meridian_table.profiles import is_shipped

    told = threading.Event()
    path = table.profile.path
    name = str(path) if path is not None and not is_shipped(path) else table.profile.name

    def check(_event: object) -> None:
        hello = table.link.hello
        if hello is None or told.is_set():
            return
        told.set()
        notice = update_notice(hello.fw, name)
        if notice is not None:
            click.echo(notice, err=headless)   # headless: stdout stays JSON lines

    table.link.subscribe(check)
    check(None)


class _GamesGroup(click.Group):
    """``play GAME``: an unknown GAME is named with the installed games."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and not args[0].startswith("-") and args[0] not in self.commands:
            raise click.UsageError(
                f"no game {args[0]!r} is installed; choose one of: {', '.join(self.commands)} "
                f"(e.g. meridian-table play {next(iter(self.commands), 'GAME')})", ctx)
        return super().resolve_command(ctx, args)


def register(group: click.Group) -> None:
    @group.group(cls=_GamesGroup, help="Play a game at the table and serve its page.\n\n"
                 "\b\nGAME is one of the installed games (see below).\n"
                 "\b\nExample:\n  meridian-table play " + (registry.ids() or ("GAME",))[-1]
                 + " --players Ann,Bob")
    def play() -> None:
        pass

    for spec in registry.specs().values():
        play.add_command(_game_command(spec))


def _serve(lobby: TableHost, host: str, port: int,
           sock: socket.socket | None = None) -> None:
    from meridian_table.web import WebServerError, serve

    table = lobby.table
    try:
        server = serve(lobby, host, port, sock=sock)
    except (WebServerError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    with server:
        state = table.session.state()
        where = _("the virtual board") if table.virtual is not None else str(table.link.port)
        line = (_("resumed {game} game {id} on {where}") if table.resumed
                else _("new {game} game {id} on {where}"))
        click.echo(line.format(game=state["game"], id=state["game_id"] or "", where=where))
        options = state.get("options") or {}
        if options.get("deck") == "digital" and options.get("seed") is not None:
            click.echo(_("digital deck shuffled with seed {seed} (--seed {seed} deals this "
                         "game again)").format(seed=options["seed"]))
        click.echo(_("Table page: {url}").format(url=server.url))
        if server.token:
            click.echo(_("Access token (for other devices): {token}").format(token=server.token))
        click.echo(_("Press Ctrl-C to stop; the game is saved and `--resume {id}` continues "
                     "it.").format(id=state["game_id"] or ""))
        try:
            while server.running:
                server.wait(0.5)
        except KeyboardInterrupt:
            click.echo(_("stopping"))
