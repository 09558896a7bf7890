"""`meridian-table monitor [PORT]` and `meridian-table sim --profile NAME`.

``monitor`` is the link, with a person watching: it connects like the table would
(handshake, acknowledgements, heartbeat, reconnects) and prints every event, plan,
error and state change in words, with a statistics table every few seconds and at
the end. ``--raw`` adds every frame on the wire in both directions.

``sim`` runs the virtual board on its own and prints its pty path on the first line
of stdout, so any serial tool (``monitor``, ``mpremote``-free terminals, a second
``play``) can talk to it. Lines typed on stdin drive it: ``t POS`` or ``t SITE``
toggles a switch, ``u`` unplugs, ``p`` plugs back in, ``r`` resets the Pico, ``l``
lists the lit LEDs, ``q`` quits.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import IO, Any

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from meridian_fw import wire
from meridian_table.link import (
    BoardFault,
    Link,
    LinkEvent,
    LinkState,
    SenseEvent,
    Snapshot,
    UnknownPortError,
    check_port,
)

LOGGER = logging.getLogger(__name__)

# A timed `monitor --duration` starts its clock once the board is connected, or after this
# long without a connection (a busy host can take seconds to open a board).
CONNECT_GRACE_S = 30.0

# Frames that are the link's housekeeping: shown only with --raw.
QUIET = frozenset({"PING", "PONG", "ACK", "BEAT", "SENSE", "SNAP", "PIX", "HELLO", "WHO", "STATS"})
STATE_STYLE = {
    "connected": "bold green",
    "searching": "yellow",
    "version-mismatch": "bold red",
    "closed": "dim",
}


class Monitor:
    """Renders link events and raw frames as lines on a rich Console.

    ``names`` maps matrix positions to site names (from a profile) for readable lines.
    """

    def __init__(self, console: Console, *, raw: bool = False,
                 names: dict[int, str] | None = None) -> None:
        self.console = console
        self.raw = raw
        self.names = names or {}
        self.started = time.monotonic()
        self._lock = threading.Lock()

    def _stamp(self) -> Text:
        return Text(f"{time.monotonic() - self.started:9.3f} ", style="dim")

    def _print(self, *parts: Text | str) -> None:
        line = self._stamp()
        for part in parts:
            line.append(part) if isinstance(part, str) else line.append_text(part)
        with self._lock:
            self.console.print(line, soft_wrap=True, highlight=False)

    def _where(self, pos: int) -> str:
        name = self.names.get(pos)
        return f"pos {pos} ({name})" if name else f"pos {pos}"

    def event(self, event: LinkEvent) -> None:
        """A subscriber for ``Link``: one line per event."""
        if isinstance(event, SenseEvent):
            verb = Text("closed", style="bold cyan") if event.closed else Text("opened", style="cyan")
            self._print(Text(f"SENSE #{event.seq} ", style="bold"), f"{self._where(event.pos)} ",
                        verb, Text(f"  (board t={event.t_ms} ms)", style="dim"))
        elif isinstance(event, Snapshot):
            closed = sorted(event.closed)
            shown = ", ".join(self._where(p) for p in closed[:12])
            more = f" and {len(closed) - 12} more" if len(closed) > 12 else ""
            self._print(Text(f"SNAPSHOT ({event.reason}) ", style="bold magenta"),
                        f"up to #{event.last_seq}: {len(closed)} closed", f" [{shown}{more}]")
        elif isinstance(event, LinkState):
            style = STATE_STYLE.get(event.state, "")
            self._print(Text(f"LINK {event.state} ", style=style), event.detail)
        elif isinstance(event, BoardFault):
            self._print(Text(f"FAULT {event.code} ", style="bold red"), " ".join(event.detail))

    def frame(self, direction: str, line: bytes) -> None:
        """A tap for ``Link``: plans, refusals and bad lines (everything with --raw)."""
        arrow = "<-" if direction == "in" else "->"
        try:
            frame = wire.decode(line)
        except wire.FrameError as exc:
            if exc.code != wire.ERR_EMPTY:
                self._print(Text(f"{arrow} BAD {wire.ERROR_NAMES[exc.code]} ", style="red"),
                            repr(line[:60]))
            return
        if not self.raw and frame.type in QUIET:
            return
        style = "blue" if direction == "out" else "green"
        if frame.type == "NAK":
            style = "bold red"
        text = " ".join([frame.type, str(frame.seq), *frame.fields])
        self._print(Text(f"{arrow} ", style="dim"), Text(text, style=style))


def stats_table(stats: dict[str, Any]) -> Table:
    """The link's counters (and the board's, when it sent them) as a rich table."""
    table = Table(title=f"link {stats.get('state')} {stats.get('port', '')}", title_justify="left")
    table.add_column("host counter")
    table.add_column("value", justify="right")
    for key in ("frames_in", "frames_out", "crc_errors", "garbage", "bad_frames", "stalls",
                "events_delivered",
                "duplicates", "gaps", "snapshots", "events_folded", "resends", "reconnects",
                "plans_sent", "plans_shown", "naks", "faults", "last_rtt_ms", "last_plan_rtt_ms",
                "board_pending"):
        value = stats.get(key)
        table.add_row(key, "-" if value is None else str(value))
    board = stats.get("board") or {}
    if board:
        table.add_section()
        for key, value in board.items():
            table.add_row(f"board {key}", str(value))
    return table


def _site_names(profile_name: str | None) -> dict[int, str]:
    if not profile_name:
        return {}
    from meridian_table.profiles import ProfileError, load_profile

    try:
        profile = load_profile(profile_name)
    except ProfileError as exc:
        raise click.BadParameter(str(exc), param_hint="--profile") from None
    names = {site.pos: name for name, site in profile.sites.items()}
    names.update({pos: name for name, pos in profile.buttons.items()})
    return names


def run_monitor(link: Link, monitor: Monitor, *, duration: float | None,
                stats_every: float, stop: threading.Event,
                connect_grace: float = CONNECT_GRACE_S) -> dict[str, Any]:
    """Watch ``link`` until ``stop`` is set or ``duration`` passes; returns the last stats.

    ``duration`` counts from the link's first answer: the board connected (a busy host
    may take seconds to open it), or no board there (a lookup that found none, a port that
    would not open); at the latest from ``connect_grace`` seconds after the start. So a
    timed watch of a board covers ``duration`` seconds of it connected, and a watch with
    nothing plugged in still ends after ``duration``.
    """
    answered = threading.Event()

    def first_answer(event: object) -> None:
        if isinstance(event, LinkState):  # the link says nothing until it has an answer
            answered.set()

    link.subscribe(monitor.event)
    link.subscribe(first_answer)
    link.tap(monitor.frame)
    link.start()
    started = time.monotonic()
    deadline = None
    next_stats = started + stats_every
    while not stop.is_set():
        now = time.monotonic()
        if deadline is None and duration is not None and (
                answered.is_set() or link.state == "connected"
                or now >= started + connect_grace):
            deadline = now + duration
        if deadline is not None and now >= deadline:
            break
        if stats_every > 0 and now >= next_stats:
            next_stats = now + stats_every
            if link.state == "connected":
                link.request_stats()
            monitor.console.print(stats_table(link.stats()))
        wait = min(0.2, max(0.0, next_stats - now)) if stats_every > 0 else 0.05
        if deadline is not None:
            wait = min(wait, max(0.0, deadline - now))
        stop.wait(wait)
    stats = link.stats()
    link.close()
    return stats


@contextlib.contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """Ctrl-C and SIGTERM set ``stop`` (for a clean close) while inside; restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _monitor_command(group: click.Group) -> None:
    @group.command()
    @click.argument("port", default="auto")
    @click.option("--serial-number", default=None, help="Only the Pico with this USB serial number.")
    @click.option("--profile", "profile_name", default=None,
                  help="Board profile, to name sites instead of matrix positions.")
    @click.option("--raw", is_flag=True, help="Also print every frame on the wire.")
    @click.option("--stats-every", default=10.0, show_default=True, type=click.FloatRange(min=0),
                  help="Seconds between statistics tables (0: only at the end).")
    @click.option("--duration", type=click.FloatRange(min=0), default=None,
                  help="Stop after this many seconds of a connected board (default: "
                       "until Ctrl-C).")
    def monitor(port: str, serial_number: str | None, profile_name: str | None, raw: bool,
                stats_every: float, duration: float | None) -> None:
        """Watch the link to a board live: events, plans, errors and statistics.

        PORT is a device (/dev/ttyACM0, COM5), any pyserial URL, `auto` (a Pico by
        USB VID:PID, else a running `meridian-table sim`), `pico` or `sim`.
        Corrupt lines are shown as BAD with the reason; the board's own error
        counters (bad_crc, garbage, too_long, ...) are in the statistics table.

        \b
        Examples:
          meridian-table monitor                      # the Pico, else a running sim
          meridian-table monitor /dev/ttyACM0 --profile PROFILE --raw
          meridian-table monitor sim --duration 10 --stats-every 0
        """
        try:
            check_port(port)
        except UnknownPortError as exc:
            raise click.BadParameter(str(exc), param_hint="PORT") from None
        console = Console(highlight=False)
        mon = Monitor(console, raw=raw, names=_site_names(profile_name))
        stop = threading.Event()
        link = Link(port, serial_number=serial_number)
        console.print(f"monitoring {port} (Ctrl-C to stop)", style="dim")
        with _stop_on_signals(stop):
            stats = run_monitor(link, mon, duration=duration, stats_every=stats_every, stop=stop)
        console.print(stats_table(stats))


def _sim_command(group: click.Group) -> None:
    @group.command()
    @click.option("--profile", "profile_name", required=True, help="Board profile name or path.")
    @click.option("--mode", type=click.Choice(["cpython", "micropython"]), default="cpython",
                  show_default=True, help="Run the firmware in this process or on MicroPython.")
    @click.option("--closed", default="", help="Comma-separated sites or positions closed at boot.")
    @click.option("--register/--no-register", default=True, show_default=True,
                  help="Announce the pty so `monitor auto` and `play` find it.")
    def sim(profile_name: str, mode: str, closed: str, register: bool) -> None:
        """Run the virtual board (the real firmware) and print its pty path.

        The first line of stdout is the path. Then type commands: `t POS|SITE` toggles
        a switch, `u` unplugs, `p` plugs back in, `r` resets, `l` lists lit LEDs, `q` quits.

        \b
        Examples:
          meridian-table sim --profile PROFILE             # then, in another terminal:
          meridian-table monitor sim --profile PROFILE
          meridian-table sim --profile PROFILE --closed SITE,confirm --mode micropython
        """
        from meridian_table.profiles import ProfileError, load_profile
        from meridian_table.sim import VirtualBoard, VirtualBoardError

        try:
            profile = load_profile(profile_name)
        except ProfileError as exc:
            raise click.BadParameter(str(exc), param_hint="--profile") from None
        err = Console(stderr=True, highlight=False)
        positions = {_position(profile, token) for token in closed.split(",") if token.strip()}
        stop = threading.Event()
        board = VirtualBoard(profile, mode=mode, register=register,  # type: ignore[arg-type]
                             closed=positions)
        try:
            board.start()
        except VirtualBoardError as exc:
            raise click.ClickException(str(exc)) from None
        with _stop_on_signals(stop), board:
            click.echo(board.port)
            sys.stdout.flush()
            err.print(
                f"virtual board [bold]{profile.name}[/] ({mode}, {profile.rows}x{profile.cols}, "
                f"{profile.leds} LEDs) on [bold]{board.port}[/]\n"
                f"connect with `meridian-table monitor {board.port}`; "
                "type t POS|SITE, u, p, r, l or q"
            )
            reader = threading.Thread(target=_sim_commands, args=(board, profile, sys.stdin, err,
                                                                   stop), daemon=True)
            reader.start()
            while not stop.wait(0.5):
                pass
        err.print("virtual board stopped", style="dim")


def _position(profile: Any, token: str) -> int:
    token = token.strip()
    if token.isdigit():
        return int(token)
    if token in profile.sites:
        return int(profile.sites[token].pos)
    if token in profile.buttons:
        return int(profile.buttons[token])
    raise click.BadParameter(
        f"{token!r} is neither a matrix position nor a site or button of {profile.name!r}",
        param_hint="--closed / t",
    )


def _sim_commands(board: Any, profile: Any, stream: IO[str], err: Console,
                  stop: threading.Event) -> None:
    """Drive the virtual board from typed lines until `q` (end of input keeps it running)."""
    for raw in stream:
        parts = raw.split()
        if not parts:
            continue
        cmd = parts[0].lower()
        try:
            if cmd == "q":
                break
            if cmd == "t" and len(parts) == 2:
                pos = _position(profile, parts[1])
                state = board.toggle(pos)
                err.print(f"switch {pos} ({profile.site_at(pos) or '-'}) "
                          f"{'closed' if state else 'opened'}")
            elif cmd == "u":
                board.unplug()
                err.print("unplugged")
            elif cmd == "p":
                board.replug()
                click.echo(board.port)
                err.print(f"plugged in on {board.port}")
            elif cmd == "r":
                board.reset()
                err.print("reset")
            elif cmd == "l":
                lit = {i: c for i, c in enumerate(board.leds()) if c != (0, 0, 0)}
                err.print(f"{len(lit)} lit: " + ", ".join(
                    f"{i}={r:02X}{g:02X}{b:02X}" for i, (r, g, b) in list(lit.items())[:40]))
            else:
                err.print(f"unknown command {raw.strip()!r}: t POS|SITE, u, p, r, l, q",
                          style="red")
        except (ValueError, KeyError, click.BadParameter) as exc:
            err.print(str(exc), style="red")
    else:
        return  # end of input: keep running until a signal
    stop.set()


def register(group: click.Group) -> None:
    _monitor_command(group)
    _sim_command(group)
