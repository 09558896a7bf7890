"""`club backup` / `club restore`: a club restored into a fresh PostgreSQL cluster holds
every row it had, and its tables log in with the passwords they had."""

from __future__ import annotations

from pathlib import Path

import psycopg
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.club.cluster import throwaway
from meridian_table.club.replicator import Replicator
from meridian_table.club.simtable import SimTable, two_player_game

from .conftest import Club

TABLES = ("tables", "games", "events", "remote_games", "meta", "secrets", "admin_log",
          "withdrawn")


def _every_row(url: str) -> dict[str, list[tuple[object, ...]]]:
    with psycopg.connect(url) as conn:
        return {t: conn.execute(f"SELECT * FROM club.{t} ORDER BY 1, 2").fetchall()
                for t in TABLES}


def test_a_backup_restored_into_a_fresh_cluster_holds_every_row(
        club: Club, tmp_path: Path) -> None:
    with club.admin() as admin:
        url = admin.add_table("table7")
        admin.add_table("hall")
    log = tmp_path / "games.sqlite3"
    with SimTable(log, two_player_game(), ["Ann", "Bob"], seed=3) as table:
        while table.games_done < 2:
            table.step()
    with Replicator(log, url) as replicator:
        assert replicator.wait_caught_up(30)
    with club.admin() as admin:
        admin.withdraw_game("table7", 1, "a test game")
        admin.remove_table("hall")
    before = _every_row(club.superuser_url)
    assert len(before["events"]) > 10
    out = tmp_path / "club.backup"
    made = CliRunner().invoke(main, ["club", "backup", "--db", club.superuser_url, "-o",
                                     str(out)])
    assert made.exit_code == 0, made.output
    assert out.stat().st_mode & 0o777 == 0o600
    fresh = throwaway()
    try:
        restored = CliRunner().invoke(main, ["club", "restore", str(out), "--db",
                                             fresh.url()])
        assert restored.exit_code == 0, restored.output
        assert _every_row(fresh.url(club.dbname)) == before
        # the table logs in to the new server with the password it had
        moved = url.replace(f":{club.cluster.port}/", f":{fresh.port}/")
        with psycopg.connect(moved) as conn:
            assert conn.execute("SELECT club.my_table()").fetchone() == ("table7",)
        again = CliRunner().invoke(main, ["club", "restore", str(out), "--db", fresh.url()])
        assert again.exit_code == 1 and "already holds a club" in again.output
    finally:
        fresh.destroy()


def test_backup_needs_a_superuser_and_restore_a_backup(club: Club, tmp_path: Path) -> None:
    refused = CliRunner().invoke(main, ["club", "backup", "--db", club.admin_url, "-o",
                                        str(tmp_path / "x")])
    assert refused.exit_code == 1 and "needs a superuser login" in refused.output
    junk = tmp_path / "junk"
    junk.write_text("not a backup")
    bad = CliRunner().invoke(main, ["club", "restore", str(junk), "--db", club.superuser_url])
    assert bad.exit_code == 1 and "cannot read the backup" in bad.output
    assert "Traceback" not in bad.output
