"""The club's commands, and `play --club` replicating a headless game as it is played."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import psycopg
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.cli.play import _thinking
from meridian_table.club import REMOTE_WAITING
from meridian_table.club.cluster import Cluster

from .conftest import Club, new_database


def test_init_and_add_table_print_connection_strings(cluster: Cluster) -> None:
    dbname = new_database(cluster)
    runner = CliRunner()
    made = runner.invoke(main, ["club", "init", "--db", cluster.url(dbname)])
    assert made.exit_code == 0, made.output
    admin = next(line.split(": ", 1)[1] for line in made.output.splitlines()
                 if line.startswith("admin"))
    added = runner.invoke(main, ["club", "add-table", "table7", "--db", admin])
    assert added.exit_code == 0, added.output
    url = added.stdout.strip().splitlines()[0]
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT club.my_table()").fetchone() == ("table7",)
    listed = runner.invoke(main, ["club", "tables", "--db", admin])
    assert "table7" in listed.output and "active" in listed.output
    again = runner.invoke(main, ["club", "add-table", "table7", "--db", admin])
    assert again.exit_code == 1 and "already in the club" in again.output
    removed = runner.invoke(main, ["club", "remove-table", "table7", "--db", admin])
    assert removed.exit_code == 0 and "revoked" in removed.output


def test_a_wrong_password_is_a_clear_error(club: Club) -> None:
    bad = club.admin_url.replace("@", "x@", 1)
    result = CliRunner().invoke(main, ["club", "tables", "--db", bad])
    assert result.exit_code == 1
    assert "cannot connect to the club database" in result.output
    assert "Traceback" not in result.output and "***" in result.output


def test_play_with_club_replicates_the_game(club: Club, tmp_path: Path) -> None:
    with club.admin() as admin:
        url = admin.add_table("table7")
    log = tmp_path / "games.sqlite3"
    script = "place G6\nwait\nwait\nplace D4\nwait\nwait\nstate\nquit\n"
    result = CliRunner().invoke(
        main, ["play", "kato", "--headless", "--board", "sim", "--db", str(log),
               "--settle-ms", "50", "--club", url], input=script)
    assert result.exit_code == 0, result.output
    moves = [json.loads(line)["notation"] for line in result.stdout.splitlines()
             if line.startswith("{") and json.loads(line)["event"] == "move"]
    assert moves == ["G6", "D4"]
    # the page's link panel shows the club (without its password) and the backlog
    full = next(json.loads(line)["state"] for line in reversed(result.stdout.splitlines())
                if line.startswith('{"event": "full-state"'))
    stats = full["link"]["stats"]
    assert stats["club"].startswith("postgresql://club") and "***" in stats["club"]
    assert stats["club_state"] in ("connecting", "connected")
    assert isinstance(stats["club_backlog"], int)
    # the last move, made just before quitting, reached the club before `play` ended
    assert "every event of this table's log is in the club" in result.stderr
    with psycopg.connect(club.page_url) as conn:
        actions = [r[0] for r in conn.execute(
            "SELECT payload->>'notation' FROM club.events WHERE kind = 'action' ORDER BY seq")]
    assert actions == ["G6", "D4"]


def test_a_table_that_stops_right_after_a_move_ships_it_or_says_so(
        club: Club, tmp_path: Path) -> None:
    """Quit at once after a move (the result often goes with it): the move is in the club
    when `play` returns; with the club down, `play` says how many events did not go."""
    with club.admin() as admin:
        url = admin.add_table("table7")
    log = tmp_path / "games.sqlite3"
    for n in range(3):
        result = CliRunner().invoke(
            main, ["play", "kato", "--headless", "--board", "sim", "--db", str(log),
                   "--settle-ms", "50", "--club", url],
            input=f"place {'ABC'[n]}1\nwait\nquit\n")
        assert result.exit_code == 0, result.output
        with psycopg.connect(club.page_url) as conn:
            held = conn.execute("SELECT count(*) FROM club.events").fetchone()
        with sqlite3.connect(log) as local:
            logged = local.execute("SELECT count(*) FROM events").fetchone()
        assert held == logged, (n, result.stderr)
    club.cluster.stop("immediate")
    try:
        result = CliRunner().invoke(
            main, ["play", "kato", "--headless", "--board", "sim", "--db", str(log),
                   "--settle-ms", "50", "--club", url], input="place D1\nwait\nquit\n")
    finally:
        club.cluster.start()
    assert result.exit_code == 0, result.output
    assert "events of this table's log are not in the club yet" in result.stderr


def test_headless_wait_waits_for_a_bot_but_not_for_a_player_at_another_table() -> None:
    # A remote seat "thinks" until the other table moves (minutes): `wait` must not sit
    # out its whole timeout for it, as it does for a local bot whose budget ends it.
    remote = {"automaton": "remote", "status": "thinking"}
    assert _thinking({"automaton": remote,  # it has not read the club yet
                      "link": {"stats": {"remote_player": "waiting for the game to open"}}})
    assert not _thinking({"automaton": remote,
                          "link": {"stats": {"remote_player": REMOTE_WAITING}}})
    assert _thinking({"automaton": {"automaton": "bot:3", "status": "thinking"}})
    assert not _thinking({"automaton": None})


def test_invite_then_play_remote_from_the_command_line(club: Club, tmp_path: Path) -> None:
    with club.admin() as admin:
        north = admin.add_table("north")
        admin.add_table("south")
    runner = CliRunner()
    made = runner.invoke(main, ["club", "invite", "kato", "duel", "--tables", "north,south",
                                "--players", "Ann,Bob", "--option", "size=5",
                                "--db", club.admin_url])
    assert made.exit_code == 0, made.output
    assert "seat 2 (Bob) at south: meridian-table play kato --remote duel" in made.output
    wrong = runner.invoke(main, ["play", "colovini", "--headless", "--board", "sim", "--db",
                                 str(tmp_path / "x.sqlite3"), "--remote", "duel",
                                 "--club", north], input="quit\n")
    assert wrong.exit_code == 1 and "is a game of kato" in wrong.output
    log = tmp_path / "north.sqlite3"
    played = runner.invoke(main, ["play", "kato", "--headless", "--board", "sim", "--db",
                                  str(log), "--settle-ms", "50", "--remote", "duel",
                                  "--club", north], input="place A1\nwait\nwait\nstate\nquit\n")
    assert played.exit_code == 0, played.output
    records = [json.loads(line) for line in played.stdout.splitlines() if line.startswith("{")]
    assert [r["notation"] for r in records if r["event"] == "move"] == ["A1"]
    full = next(r["state"] for r in reversed(records) if r["event"] == "full-state")
    assert full["seats_kind"] == {"light": "person", "dark": "remote"}
    assert full["phase"] == "thinking"  # waiting for south's move
    assert full["link"]["stats"]["remote_game"] == "duel"
    assert full["link"]["stats"]["remote_player"] == REMOTE_WAITING
    shipped = runner.invoke(main, ["club", "replicate", "--club", north, "--log", str(log),
                                   "--once"])
    assert shipped.exit_code == 0, shipped.output
    with psycopg.connect(club.page_url) as conn:
        assert conn.execute("SELECT table_name, remote, players FROM club.games").fetchall() == [
            ("north", "duel", ["Ann", "Bob"])]


def test_a_malformed_connection_string_is_a_clear_error_in_every_command(
        tmp_path: Path) -> None:
    log = tmp_path / "games.sqlite3"
    runner = CliRunner()
    assert runner.invoke(main, ["play", "kato", "--headless", "--board", "sim", "--db",
                                str(log)], input="quit\n").exit_code == 0
    for bad in ("host=x foo", "postgresql://a:secret@[bad/db"):
        for args in (["club", "tables", "--db", bad], ["club", "add-table", "t", "--db", bad],
                     ["club", "init", "--db", bad], ["club", "join", bad],
                     ["club", "serve", "--db", bad, "--port", "0"],
                     ["club", "replicate", "--club", bad, "--log", str(log), "--once"],
                     ["play", "kato", "--headless", "--board", "sim", "--db", str(log),
                      "--club", bad]):
            result = runner.invoke(main, args, input="quit\n")
            assert result.exit_code == 1, (args, result.output)
            assert "cannot be read" in result.output and "postgresql://USER" in result.output
            assert "Traceback" not in result.output and "secret" not in result.output
            assert not isinstance(result.exception, psycopg.Error), args
