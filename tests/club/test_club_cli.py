"""The club's commands, and `play --club` replicating a headless game as it is played."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
from click.testing import CliRunner

from meridian_table.cli.main import main
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
    script = "place G6\nwait\nplace D4\nwait\nquit\n"
    result = CliRunner().invoke(
        main, ["play", "kato", "--headless", "--board", "sim", "--db", str(log),
               "--settle-ms", "50", "--club", url], input=script)
    assert result.exit_code == 0, result.output
    moves = [json.loads(line)["notation"] for line in result.stdout.splitlines()
             if line.startswith("{") and json.loads(line)["event"] == "move"]
    assert moves == ["G6", "D4"]
    # whatever was not shipped before quitting goes with `club replicate --once`
    shipped = CliRunner().invoke(main, ["club", "replicate", "--club", url, "--log", str(log),
                                        "--once"])
    assert shipped.exit_code == 0, shipped.output
    with psycopg.connect(club.page_url) as conn:
        actions = [r[0] for r in conn.execute(
            "SELECT payload->>'notation' FROM club.events WHERE kind = 'action' ORDER BY seq")]
    assert actions == ["G6", "D4"]
