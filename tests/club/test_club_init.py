"""`club init` against a real PostgreSQL: schema, roles, migrations, refusals."""

from __future__ import annotations

import psycopg
import pytest

from meridian_table.club.admin import init_club
from meridian_table.club.cluster import Cluster
from meridian_table.club.errors import ForeignClubSchemaError, NewerClubSchemaError
from meridian_table.club.schema import SCHEMA_VERSION, schema_version

from .conftest import Club, new_database


def test_init_creates_the_schema_and_roles(club: Club) -> None:
    with psycopg.connect(club.admin_url) as conn:
        assert schema_version(conn) == SCHEMA_VERSION
        roles = {r[0] for r in conn.execute(
            "SELECT rolname FROM pg_roles WHERE rolname LIKE %s", (club.dbname + "_%",))}
        assert roles == {f"{club.dbname}_admin", f"{club.dbname}_page", f"{club.dbname}_tables",
                         f"{club.dbname}_keeper"}
        owner = conn.execute("SELECT tableowner FROM pg_tables WHERE schemaname = 'club' "
                             "AND tablename = 'events'").fetchone()
        assert owner == (f"{club.dbname}_admin",)
        # SCRAM, not md5: the verifier the server keeps
        verifier = psycopg.connect(club.superuser_url).execute(
            "SELECT rolpassword FROM pg_authid WHERE rolname = %s",
            (f"{club.dbname}_page",)).fetchone()
        assert verifier is not None and str(verifier[0]).startswith("SCRAM-SHA-256$")


def test_init_again_is_a_no_op_that_keeps_passwords(club: Club) -> None:
    again = init_club(club.superuser_url)
    assert again.version == SCHEMA_VERSION
    assert again.admin_url is None and again.page_url is None
    with psycopg.connect(club.admin_url) as conn:  # the old password still works
        assert schema_version(conn) == SCHEMA_VERSION


def test_a_newer_schema_is_refused(club: Club) -> None:
    with psycopg.connect(club.admin_url, autocommit=True) as conn:
        conn.execute("UPDATE club.meta SET value = %s WHERE key = 'version'",
                     (str(SCHEMA_VERSION + 1),))
    with pytest.raises(NewerClubSchemaError, match="upgrade Meridian Table"):
        init_club(club.superuser_url)
    with pytest.raises(NewerClubSchemaError):
        club.admin()


def test_a_foreign_club_schema_is_refused(cluster: Cluster) -> None:
    dbname = new_database(cluster)
    with psycopg.connect(cluster.url(dbname), autocommit=True) as conn:
        conn.execute("CREATE SCHEMA club")
        conn.execute("CREATE TABLE club.members (name text)")
    with pytest.raises(ForeignClubSchemaError, match="did not make"):
        init_club(cluster.url(dbname))
    with psycopg.connect(cluster.url(dbname)) as conn:  # untouched
        assert conn.execute("SELECT to_regclass('club.meta')").fetchone() == (None,)


def test_a_club_made_at_schema_1_migrates_and_keeps_its_rows(
        cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    """An existing club database (made by the first release) is upgraded by `club init`."""
    from psycopg.types.json import Jsonb

    from meridian_table.club import schema
    from meridian_table.club.admin import ClubAdmin

    dbname = new_database(cluster)
    with monkeypatch.context() as old:
        old.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:1])
        old.setattr(schema, "SCHEMA_VERSION", 1)
        made = init_club(cluster.url(dbname))
        assert made.version == 1 and made.admin_url is not None
        with ClubAdmin(made.admin_url) as admin:
            table = admin.add_table("table7")
        with psycopg.connect(table, autocommit=True) as conn:
            conn.execute("INSERT INTO club.games (game_id, game, options, players, versions, "
                         "started) VALUES (1, 'kato', %s, %s, %s, now())",
                         (Jsonb({}), Jsonb(["Ann", "Bob"]), Jsonb({})))
            conn.execute("INSERT INTO club.events (game_id, seq, local_id, kind, at, payload) "
                         "VALUES (1, 1, 1, 'created', now(), '{}')")
    assert init_club(cluster.url(dbname)).version == SCHEMA_VERSION
    with psycopg.connect(table, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM club.events").fetchone() == (1,)
        assert conn.execute("SELECT club.my_table()").fetchone() == ("table7",)


def test_init_takes_an_older_admins_role_powers_away(club: Club) -> None:
    """The first release gave the admin CREATEROLE, pg_signal_backend and the tables group
    with ADMIN OPTION: `club init` on that club takes them back."""
    admin = f"{club.dbname}_admin"
    with psycopg.connect(club.superuser_url, autocommit=True) as conn:
        conn.execute(f'ALTER ROLE "{admin}" CREATEROLE')
        conn.execute(f'GRANT pg_signal_backend TO "{admin}"')
        conn.execute(f'GRANT "{club.dbname}_tables" TO "{admin}" WITH ADMIN OPTION')
    init_club(club.superuser_url)
    with psycopg.connect(club.superuser_url) as conn:
        assert conn.execute("SELECT rolcreaterole FROM pg_roles WHERE rolname = %s",
                            (admin,)).fetchone() == (False,)
        assert conn.execute("SELECT count(*) FROM pg_auth_members m JOIN pg_roles r "
                            "ON r.oid = m.member WHERE r.rolname = %s", (admin,)
                            ).fetchone() == (0,)
    with club.admin() as clubadmin:   # and it still manages its tables
        clubadmin.add_table("table7")
        clubadmin.remove_table("table7")
