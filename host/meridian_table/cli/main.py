"""Entry point of `meridian-table`.

Every other module in `meridian_table.cli` defines a `register(group)` function that
adds its commands (`play`, `sim`, `monitor`, `bench`, ...). A command's module is imported
only when that command runs: ``COMMANDS`` names each top-level command's module and the
one line ``--help`` shows for it, so ``meridian-table --help`` imports none of them
(tests/cli/test_help.py checks the table against the modules, both ways). Games bring their
own commands through their spec's ``register_commands``.
"""

from __future__ import annotations

import importlib

import click
from click.formatting import HelpFormatter

from meridian_table import __version__

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


class LazyGroup(click.Group):
    """The top-level group: imports a command's module when the command is used, and lists
    the commands for ``--help`` from ``COMMANDS`` without importing them."""

    _games_loaded = False

    def _load_games(self) -> None:
        """Each installed game may bring its own commands (its spec's register_commands)."""
        if self._games_loaded:
            return
        self._games_loaded = True
        from meridian_table.games import registry

        for spec in registry.specs().values():
            if spec.register_commands is not None:
                spec.register_commands(self)

    def load(self, name: str) -> click.Command | None:
        """The command ``name``, its module imported (with every command it registers)."""
        if name not in self.commands and name in COMMANDS:
            module = importlib.import_module(f"meridian_table.cli.{COMMANDS[name][0]}")
            module.register(self)
        if name not in self.commands:
            self._load_games()
        return self.commands.get(name)

    def load_all(self) -> dict[str, click.Command]:
        """Every command, each module imported (for tests and documentation)."""
        for name in COMMANDS:
            self.load(name)
        self._load_games()
        return dict(self.commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_games()
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self.load(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: HelpFormatter) -> None:
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            # A command not loaded yet is shown by a stand-in carrying its help line.
            command = self.commands.get(name) or click.Command(name, help=COMMANDS[name][1])
            if not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="meridian-table")
def main() -> None:
    """Meridian Table: a smart board for the three games named Meridian."""


if __name__ == "__main__":
    main()
