"""Adding, revoking and renaming tables; row-level security refusing the others' rows."""

from __future__ import annotations

import psycopg
import pytest
from psycopg.types.json import Jsonb

from meridian_table.club.errors import BadTableNameError, ClubError, UnknownTableError

from .conftest import Club


def _insert_game(conn: psycopg.Connection[tuple[object, ...]], table: str | None,
                 game_id: int = 1) -> None:
    columns = "game_id, game, options, players, versions, started"
    values = "%s, 'kato', %s, %s, %s, now()"
    params: list[object] = [game_id, Jsonb({}), Jsonb(["Ann", "Bob"]), Jsonb({})]
    if table is not None:
        columns, values = "table_name, " + columns, "%s, " + values
        params.insert(0, table)
    conn.execute(f"INSERT INTO club.games ({columns}) VALUES ({values})", params)


def test_add_table_prints_a_working_connection_string(club: Club) -> None:
    with club.admin() as admin:
        url = admin.add_table("table7")
        assert [t.name for t in admin.tables()] == ["table7"]
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT club.my_table()").fetchone() == ("table7",)
        _insert_game(conn, None)  # table_name defaults to the table's own
        assert conn.execute("SELECT table_name FROM club.games").fetchall() == [("table7",)]


def test_row_level_security_refuses_another_tables_rows(club: Club) -> None:
    with club.admin() as admin:
        seven = admin.add_table("table7")
        admin.add_table("table8")
    with psycopg.connect(seven, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            _insert_game(conn, "table8")
        _insert_game(conn, "table7")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute("INSERT INTO club.events (table_name, game_id, seq, local_id, kind, at, "
                         "payload) VALUES ('table8', 1, 1, 1, 'note', now(), '{}')")
        # and it cannot change or delete what is written, its own rows included
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE club.games SET game = 'x'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM club.games")


def test_the_page_role_only_reads(club: Club) -> None:
    with club.admin() as admin:
        seven = admin.add_table("table7")
    with psycopg.connect(seven, autocommit=True) as conn:
        _insert_game(conn, None)
    with psycopg.connect(club.page_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM club.games").fetchone() == (1,)
        for statement in ("INSERT INTO club.tables (name, role) VALUES ('x', 'x')",
                          "UPDATE club.games SET game = 'x'", "DELETE FROM club.events",
                          "CREATE TABLE club.mine (x int)"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)


def test_a_table_reads_only_its_own_games(club: Club) -> None:
    with club.admin() as admin:
        seven, eight = admin.add_table("table7"), admin.add_table("table8")
    with psycopg.connect(seven, autocommit=True) as conn:
        _insert_game(conn, None)
    with psycopg.connect(eight, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM club.games").fetchone() == (0,)


def test_remove_table_revokes_its_login_and_keeps_its_games(club: Club) -> None:
    with club.admin() as admin:
        url = admin.add_table("table7")
        open_session = psycopg.connect(url, autocommit=True)
        _insert_game(open_session, None)
        admin.remove_table("table7")
        assert admin.tables()[0].revoked is not None
        with pytest.raises(psycopg.OperationalError):  # its open session was ended
            open_session.execute("SELECT 1")
        open_session.close()
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(url, connect_timeout=3).close()
        with pytest.raises(UnknownTableError, match="no table 'table9'"):
            admin.remove_table("table9")
        # added again: a new password, the old games still there
        again = admin.add_table("table7")
    with psycopg.connect(again) as conn:
        assert conn.execute("SELECT count(*) FROM club.games").fetchone() == (1,)


def test_rename_table_keeps_its_games_and_login(club: Club) -> None:
    with club.admin() as admin:
        url = admin.add_table("table7")
        with psycopg.connect(url, autocommit=True) as conn:
            _insert_game(conn, None)
        admin.rename_table("table7", "kitchen")
        assert [t.name for t in admin.tables()] == ["kitchen"]
        admin.add_table("hall")
        with pytest.raises(ClubError, match="already a table named 'hall'"):
            admin.rename_table("kitchen", "hall")
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT table_name FROM club.games").fetchall() == [("kitchen",)]


@pytest.mark.parametrize("name", ["", "Table7", "7up", "a b", "x" * 41, "t;drop"])
def test_bad_table_names_are_refused(club: Club, name: str) -> None:
    with club.admin() as admin, pytest.raises(BadTableNameError, match="lower-case letters"):
        admin.add_table(name)
