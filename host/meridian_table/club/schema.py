"""The club's PostgreSQL schema, its roles and row-level security, as versioned migrations.

Everything lives in the schema ``club``. ``club.meta`` says whose schema it is and its
version (the PostgreSQL counterpart of the SQLite log's ``application_id`` and
``user_version``, docs/STORE.md). Role names carry the database's name as a prefix
(``club_admin``, ``club_page``, ``club_tables``), because PostgreSQL roles belong to the
whole server and one server may hold several clubs.

Who may do what:

- ``<db>_admin`` owns the schema: adds, revokes and renames tables. It cannot create or
  change roles itself (no CREATEROLE, no pg_signal_backend): it calls the two functions
  of the schema ``club_roles``, owned by ``<db>_keeper`` (no login), which create, lock
  and unlock exactly this club's table roles and nothing else (admin.py).
- ``<db>_page`` (the club page) may only read.
- ``<db>_tables`` is the group of every table's own login role. A table may insert only
  rows whose ``table_name`` is its own (the column defaults to it, and row-level security
  checks it), mark a game as part of a remote game only where it holds a seat (and with
  the game and players the invitation names), and read its own rows plus its partners'
  games of the remote games it holds a seat in. Only the admin makes remote games.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import psycopg
from psycopg import sql

from meridian_table.club.errors import (
    ForeignClubSchemaError,
    NewerClubSchemaError,
    NotInitialisedError,
)

LOGGER = logging.getLogger(__name__)

APPLICATION = "meridian-table club"
NOTIFY_SECRET = "notify_channel"   # club.secrets' key of the page's channel name


def remote_channel(remote_id: str) -> str:
    """The channel a remote game's tables listen on to wake up (its payload is empty:
    anyone may notify it, and a table only reads the club again when it hears it)."""
    return f"club_remote_{remote_id}"


@dataclass(frozen=True)
class ClubMigration:
    """Statements taking the club from ``version - 1`` to ``version``; ``{admin}``,
    ``{page}`` and ``{tables}`` stand for the club's role names."""

    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[ClubMigration, ...] = (
    ClubMigration(
        1,
        "tables, their games and events, roles and row-level security, live notifications",
        (
            "CREATE TABLE club.meta (key text PRIMARY KEY, value text NOT NULL)",
            """CREATE TABLE club.tables (
                name text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_-]{{0,39}}$'),
                role text NOT NULL UNIQUE,
                added timestamptz NOT NULL DEFAULT now(),
                revoked timestamptz
            )""",
            """CREATE FUNCTION club.my_table() RETURNS text
                LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, club
                AS $$ SELECT name FROM club.tables
                      WHERE role = session_user AND revoked IS NULL $$""",
            """CREATE TABLE club.remote_games (
                id text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{{1,40}}$'),
                game text NOT NULL,
                options jsonb NOT NULL,
                players jsonb NOT NULL,
                seats jsonb NOT NULL,
                created timestamptz NOT NULL DEFAULT now()
            )""",
            """CREATE TABLE club.games (
                table_name text NOT NULL DEFAULT club.my_table()
                    REFERENCES club.tables (name) ON UPDATE CASCADE,
                game_id bigint NOT NULL,
                game text NOT NULL,
                options jsonb NOT NULL,
                players jsonb NOT NULL,
                profile text,
                versions jsonb NOT NULL,
                started timestamptz NOT NULL,
                remote text REFERENCES club.remote_games (id),
                PRIMARY KEY (table_name, game_id)
            )""",
            """CREATE TABLE club.events (
                table_name text NOT NULL DEFAULT club.my_table(),
                game_id bigint NOT NULL,
                seq integer NOT NULL,
                local_id bigint NOT NULL,
                kind text NOT NULL,
                at timestamptz NOT NULL,
                payload jsonb NOT NULL,
                received timestamptz NOT NULL DEFAULT clock_timestamp(),
                PRIMARY KEY (table_name, game_id, seq),
                FOREIGN KEY (table_name, game_id) REFERENCES club.games ON UPDATE CASCADE
            )""",
            "CREATE INDEX events_local ON club.events (table_name, local_id)",
            "CREATE INDEX events_kind ON club.events (kind, table_name, game_id)",
            # The games a table may read beyond its own: those of its remote games.
            """CREATE FUNCTION club.may_read(t text, g bigint) RETURNS boolean
                LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, club
                AS $$ SELECT t = club.my_table() OR EXISTS (
                        SELECT 1 FROM club.games theirs JOIN club.games mine
                          ON mine.remote = theirs.remote
                         WHERE theirs.table_name = t AND theirs.game_id = g
                           AND mine.table_name = club.my_table()) $$""",
            """CREATE FUNCTION club.notify_event() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  PERFORM pg_notify('club_events', json_build_object(
                    'table', NEW.table_name, 'game', NEW.game_id, 'seq', NEW.seq,
                    'kind', NEW.kind, 'at', NEW.at)::text);
                  RETURN NULL;
                END $$""",
            """CREATE TRIGGER events_notify AFTER INSERT ON club.events
                FOR EACH ROW EXECUTE FUNCTION club.notify_event()""",
            "ALTER TABLE club.games ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE club.events ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE club.remote_games ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE club.tables ENABLE ROW LEVEL SECURITY",
            "GRANT USAGE ON SCHEMA club TO {page}, {tables}",
            "GRANT SELECT ON ALL TABLES IN SCHEMA club TO {page}",
            "GRANT SELECT, INSERT ON club.games, club.events TO {tables}",
            "GRANT SELECT, INSERT ON club.remote_games TO {tables}",
            "GRANT SELECT ON club.tables, club.meta TO {tables}",
            "GRANT EXECUTE ON FUNCTION club.my_table(), club.may_read(text, bigint) "
            "TO {tables}, {page}",
            "CREATE POLICY page_reads ON club.games FOR SELECT TO {page} USING (true)",
            "CREATE POLICY page_reads ON club.events FOR SELECT TO {page} USING (true)",
            "CREATE POLICY page_reads ON club.remote_games FOR SELECT TO {page} USING (true)",
            "CREATE POLICY page_reads ON club.tables FOR SELECT TO {page} USING (true)",
            """CREATE POLICY own_games ON club.games FOR INSERT TO {tables}
                WITH CHECK (table_name = club.my_table())""",
            """CREATE POLICY own_events ON club.events FOR INSERT TO {tables}
                WITH CHECK (table_name = club.my_table())""",
            """CREATE POLICY read_games ON club.games FOR SELECT TO {tables}
                USING (club.may_read(table_name, game_id))""",
            """CREATE POLICY read_events ON club.events FOR SELECT TO {tables}
                USING (club.may_read(table_name, game_id))""",
            """CREATE POLICY tables_see_remote ON club.remote_games FOR SELECT TO {tables}
                USING (EXISTS (SELECT 1 FROM jsonb_each_text(seats) s
                                WHERE s.value = club.my_table()))""",
            """CREATE POLICY tables_open_remote ON club.remote_games FOR INSERT TO {tables}
                WITH CHECK (EXISTS (SELECT 1 FROM jsonb_each_text(seats) s
                                     WHERE s.value = club.my_table()))""",
            "CREATE POLICY tables_see_tables ON club.tables FOR SELECT TO {tables} USING (true)",
        ),
    ),
    ClubMigration(
        2,
        "seats enforced by row-level security: a table joins a remote game only in its own "
        "seat, reads only its partners' games of it; invitations are the admin's",
        (
            # Does table t hold a seat of remote game r? Not callable by the tables
            # themselves (it would tell them who plays where); the policies' own
            # SECURITY DEFINER functions call it.
            """CREATE FUNCTION club.sits_at(r text, t text) RETURNS boolean
                LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, club
                AS $$ SELECT EXISTS (
                        SELECT 1 FROM club.remote_games g, jsonb_each_text(g.seats) s
                         WHERE g.id = r AND s.value = t) $$""",
            "REVOKE EXECUTE ON FUNCTION club.sits_at(text, text) FROM PUBLIC",
            # May this table ship a game of remote game r? Only in its own seat, and only
            # the game and the players the invitation names.
            """CREATE FUNCTION club.may_join(r text, g text, p jsonb) RETURNS boolean
                LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, club
                AS $$ SELECT club.my_table() IS NOT NULL AND EXISTS (
                        SELECT 1 FROM club.remote_games rg
                         WHERE rg.id = r AND rg.game = g AND rg.players = p
                           AND club.sits_at(r, club.my_table())) $$""",
            # The games a table may read beyond its own: those of a remote game in which
            # both it and the game's table hold a seat.
            """CREATE OR REPLACE FUNCTION club.may_read(t text, g bigint) RETURNS boolean
                LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, club
                AS $$ SELECT t = club.my_table() OR EXISTS (
                        SELECT 1 FROM club.games theirs
                         WHERE theirs.table_name = t AND theirs.game_id = g
                           AND theirs.remote IS NOT NULL
                           AND club.sits_at(theirs.remote, t)
                           AND club.sits_at(theirs.remote, club.my_table())) $$""",
            "REVOKE EXECUTE ON FUNCTION club.may_join(text, text, jsonb) FROM PUBLIC",
            "GRANT EXECUTE ON FUNCTION club.may_join(text, text, jsonb) TO {tables}",
            "DROP POLICY own_games ON club.games",
            """CREATE POLICY own_games ON club.games FOR INSERT TO {tables}
                WITH CHECK (table_name = club.my_table()
                            AND (remote IS NULL OR club.may_join(remote, game, players)))""",
            "DROP POLICY tables_open_remote ON club.remote_games",
            "REVOKE INSERT ON club.remote_games FROM {tables}",
        ),
    ),
    ClubMigration(
        3,
        "live notifications only from the club's own trigger: a secret channel for the "
        "page, a wake-up channel per remote game for its tables",
        (
            # PostgreSQL lets any login NOTIFY any channel. The page listens on a channel
            # whose name only the admin and the page can read, so a table cannot speak on
            # it; the page still checks every payload it hears.
            """CREATE TABLE club.secrets (key text PRIMARY KEY, value text NOT NULL)""",
            "ALTER TABLE club.secrets ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY page_reads ON club.secrets FOR SELECT TO {page} USING (true)",
            "GRANT SELECT ON club.secrets TO {page}",
            """INSERT INTO club.secrets VALUES ('notify_channel',
                'club_' || replace(gen_random_uuid()::text, '-', ''))""",
            """CREATE OR REPLACE FUNCTION club.notify_event() RETURNS trigger
                LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, club AS $$
                DECLARE
                  channel text;
                  remote_id text;
                BEGIN
                  SELECT value INTO channel FROM club.secrets WHERE key = 'notify_channel';
                  PERFORM pg_notify(channel, json_build_object(
                    'table', NEW.table_name, 'game', NEW.game_id, 'seq', NEW.seq,
                    'kind', NEW.kind, 'at', NEW.at)::text);
                  SELECT remote INTO remote_id FROM club.games
                   WHERE table_name = NEW.table_name AND game_id = NEW.game_id;
                  IF remote_id IS NOT NULL THEN
                    PERFORM pg_notify('club_remote_' || remote_id, '');
                  END IF;
                  RETURN NULL;
                END $$""",
        ),
    ),
    ClubMigration(
        4,
        "the database refuses malformed rows: typed shapes of what the page reads",
        (
            """CREATE FUNCTION club.is_names(j jsonb) RETURNS boolean
                LANGUAGE sql IMMUTABLE SET search_path = pg_catalog AS $$
                SELECT jsonb_typeof(j) = 'array' AND NOT EXISTS (
                    SELECT 1 FROM jsonb_array_elements(j) x
                     WHERE jsonb_typeof(x) <> 'string' OR length(x #>> '{{}}') > 200) $$""",
            """CREATE FUNCTION club.is_kind(j jsonb, kind text) RETURNS boolean
                LANGUAGE sql IMMUTABLE SET search_path = pg_catalog AS $$
                SELECT j IS NULL OR jsonb_typeof(j) = kind $$""",
            # The shapes the page and the standings read: an action's notation, a result's
            # winners, scores, reason and abandoned flag (docs/STORE.md).
            """CREATE FUNCTION club.payload_ok(kind text, p jsonb) RETURNS boolean
                LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, club AS $$
                SELECT jsonb_typeof(p) = 'object' AND CASE kind
                  WHEN 'action' THEN jsonb_typeof(p -> 'notation') = 'string'
                       AND length(p ->> 'notation') <= 200
                       AND (club.is_kind(p -> 'player', 'string')
                            OR jsonb_typeof(p -> 'player') = 'null')
                  WHEN 'result' THEN (p -> 'winners' IS NULL OR club.is_names(p -> 'winners'))
                       AND club.is_kind(p -> 'reason', 'string')
                       AND club.is_kind(p -> 'abandoned', 'boolean')
                       AND club.is_kind(p -> 'scores', 'array')
                       AND NOT EXISTS (
                           SELECT 1 FROM jsonb_array_elements(
                               COALESCE(p -> 'scores', '[]'::jsonb)) s
                            WHERE jsonb_typeof(s) <> 'object'
                               OR NOT club.is_kind(s -> 'player', 'string')
                               OR NOT (club.is_kind(s -> 'total', 'number')
                                       OR jsonb_typeof(s -> 'total') = 'null'))
                  ELSE true END $$""",
            # NOT VALID: rows written before this version stay (the page skips what it
            # cannot read); every new row is checked.
            """ALTER TABLE club.games ADD CONSTRAINT games_shape CHECK (
                game ~ '^[a-z][a-z0-9_-]{{0,39}}$' AND game_id > 0
                AND club.is_names(players) AND jsonb_array_length(players) BETWEEN 1 AND 16
                AND jsonb_typeof(options) = 'object' AND jsonb_typeof(versions) = 'object'
                AND (profile IS NULL OR length(profile) <= 200)) NOT VALID""",
            """ALTER TABLE club.events ADD CONSTRAINT events_shape CHECK (
                kind ~ '^[a-z][a-z0-9_-]{{0,39}}$' AND seq > 0 AND local_id > 0
                AND club.payload_ok(kind, payload)) NOT VALID""",
        ),
    ),
    ClubMigration(
        5,
        "each table log has an identity: marks and game numbers are kept per log, so a new "
        "laptop or another --db ships everything and never takes an old game's number",
        (
            "ALTER TABLE club.games ADD COLUMN log_id uuid, ADD COLUMN local_game bigint",
            "CREATE UNIQUE INDEX games_log ON club.games (table_name, log_id, local_game)",
            "ALTER TABLE club.events ADD COLUMN log_id uuid",
            "CREATE INDEX events_log ON club.events (table_name, log_id, local_id)",
            # Upgrading: rows shipped before logs had an identity belong to whichever log
            # holds the very event the club holds last (same local id, game, number and
            # kind); that log adopts them, any other log starts afresh beside them.
            """CREATE FUNCTION club.adopt_log(l uuid, probe_local bigint, probe_game bigint,
                                              probe_seq integer, probe_kind text)
                RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
                SET search_path = pg_catalog, club AS $$
                DECLARE
                  me text := club.my_table();
                  adopted bigint;
                BEGIN
                  IF me IS NULL OR EXISTS (SELECT 1 FROM club.events
                                            WHERE table_name = me AND log_id = l) THEN
                    RETURN 0;
                  END IF;
                  IF NOT EXISTS (
                      SELECT 1 FROM club.events
                       WHERE table_name = me AND log_id IS NULL AND local_id = probe_local
                         AND game_id = probe_game AND seq = probe_seq AND kind = probe_kind
                         AND local_id = (SELECT max(local_id) FROM club.events
                                          WHERE table_name = me AND log_id IS NULL)) THEN
                    RETURN 0;
                  END IF;
                  UPDATE club.games SET log_id = l, local_game = game_id
                   WHERE table_name = me AND log_id IS NULL;
                  UPDATE club.events SET log_id = l WHERE table_name = me AND log_id IS NULL;
                  GET DIAGNOSTICS adopted = ROW_COUNT;
                  RETURN adopted;
                END $$""",
            "REVOKE EXECUTE ON FUNCTION club.adopt_log(uuid, bigint, bigint, integer, text) "
            "FROM PUBLIC",
            "GRANT EXECUTE ON FUNCTION club.adopt_log(uuid, bigint, bigint, integer, text) "
            "TO {tables}",
        ),
    ),
    ClubMigration(
        6,
        "the admin's log, and games withdrawn by the admin (out of the standings)",
        (
            """CREATE TABLE club.admin_log (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                at timestamptz NOT NULL DEFAULT now(),
                by_role text NOT NULL DEFAULT session_user,
                action text NOT NULL,
                detail jsonb NOT NULL DEFAULT '{{}}'
            )""",
            """CREATE TABLE club.withdrawn (
                table_name text NOT NULL,
                game_id bigint NOT NULL,
                at timestamptz NOT NULL DEFAULT now(),
                reason text NOT NULL DEFAULT '',
                PRIMARY KEY (table_name, game_id),
                FOREIGN KEY (table_name, game_id) REFERENCES club.games
                    ON UPDATE CASCADE ON DELETE CASCADE
            )""",
            "ALTER TABLE club.admin_log ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE club.withdrawn ENABLE ROW LEVEL SECURITY",
            "GRANT SELECT ON club.admin_log, club.withdrawn TO {page}",
            "CREATE POLICY page_reads ON club.admin_log FOR SELECT TO {page} USING (true)",
            "CREATE POLICY page_reads ON club.withdrawn FOR SELECT TO {page} USING (true)",
        ),
    ),
    ClubMigration(
        7,
        "a summary of each table's latest game, kept as its events arrive (the home page "
        "reads it instead of every event)",
        (
            """CREATE TABLE club.summary (
                table_name text PRIMARY KEY REFERENCES club.tables (name) ON UPDATE CASCADE,
                game_id bigint NOT NULL,
                moves integer NOT NULL,
                finished boolean NOT NULL,
                last_seq integer NOT NULL,
                last_at timestamptz NOT NULL
            )""",
            """CREATE FUNCTION club.summarise() RETURNS trigger
                LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, club AS $$
                DECLARE
                  step integer := CASE NEW.kind WHEN 'action' THEN 1
                                                WHEN 'undo' THEN -1 ELSE 0 END;
                BEGIN
                  INSERT INTO club.summary AS s VALUES (
                      NEW.table_name, NEW.game_id, GREATEST(step, 0), NEW.kind = 'result',
                      NEW.seq, NEW.at)
                  ON CONFLICT (table_name) DO UPDATE SET
                      game_id = EXCLUDED.game_id,
                      moves = CASE WHEN EXCLUDED.game_id > s.game_id THEN EXCLUDED.moves
                                   ELSE GREATEST(s.moves + step, 0) END,
                      finished = CASE WHEN EXCLUDED.game_id > s.game_id THEN EXCLUDED.finished
                                      ELSE s.finished OR EXCLUDED.finished END,
                      last_seq = GREATEST(CASE WHEN EXCLUDED.game_id > s.game_id THEN 0
                                               ELSE s.last_seq END, EXCLUDED.last_seq),
                      last_at = GREATEST(CASE WHEN EXCLUDED.game_id > s.game_id
                                              THEN EXCLUDED.last_at ELSE s.last_at END,
                                         EXCLUDED.last_at)
                   WHERE EXCLUDED.game_id >= s.game_id;
                  RETURN NULL;
                END $$""",
            """CREATE TRIGGER events_summarise AFTER INSERT ON club.events
                FOR EACH ROW EXECUTE FUNCTION club.summarise()""",
            """INSERT INTO club.summary
                SELECT e.table_name, e.game_id,
                       GREATEST(count(*) FILTER (WHERE e.kind = 'action')
                                - count(*) FILTER (WHERE e.kind = 'undo'), 0),
                       bool_or(e.kind = 'result'), max(e.seq), max(e.at)
                  FROM club.events e
                 WHERE e.game_id = (SELECT max(l.game_id) FROM club.events l
                                     WHERE l.table_name = e.table_name)
                   AND e.table_name IN (SELECT name FROM club.tables)
                 GROUP BY e.table_name, e.game_id""",
            "ALTER TABLE club.summary ENABLE ROW LEVEL SECURITY",
            "GRANT SELECT ON club.summary TO {page}",
            "CREATE POLICY page_reads ON club.summary FOR SELECT TO {page} USING (true)",
        ),
    ),
)

SCHEMA_VERSION = MIGRATIONS[-1].version


@dataclass(frozen=True)
class Roles:
    """The club's role names, derived from the database name."""

    prefix: str

    @classmethod
    def for_database(cls, dbname: str) -> Roles:
        cleaned = "".join(c if c.isalnum() else "_" for c in dbname.lower())[:30]
        return cls(cleaned)

    @property
    def admin(self) -> str:
        return f"{self.prefix}_admin"

    @property
    def page(self) -> str:
        return f"{self.prefix}_page"

    @property
    def tables(self) -> str:
        return f"{self.prefix}_tables"

    @property
    def keeper(self) -> str:
        """The role (no login) that owns the functions managing the tables' roles."""
        return f"{self.prefix}_keeper"

    def table(self, name: str) -> str:
        return f"{self.prefix}_t_{name.replace('-', '_')}"


def schema_version(conn: psycopg.Connection[tuple[object, ...]]) -> int:
    """The club schema's version: 0 when the database has no ``club`` schema.

    Raises ForeignClubSchemaError for a ``club`` schema that is not ours and
    NewerClubSchemaError for one made by a newer program.
    """
    exists = conn.execute(
        "SELECT to_regnamespace('club') IS NOT NULL, to_regclass('club.meta') IS NOT NULL"
    ).fetchone()
    if exists is None or not exists[0]:
        return 0
    dbname = conn.info.dbname
    if not exists[1]:
        raise ForeignClubSchemaError(
            f"database {dbname!r} has a schema named 'club' that Meridian Table did not "
            "make (no club.meta); use another database (createdb club) or drop that schema"
        )
    rows: dict[str, str] = {
        str(k): str(v) for k, v in conn.execute("SELECT key, value FROM club.meta").fetchall()}
    if rows.get("application") != APPLICATION or not str(rows.get("version", "")).isdigit():
        raise ForeignClubSchemaError(
            f"database {dbname!r}: club.meta says application {rows.get('application')!r}, "
            f"not {APPLICATION!r}; use another database or drop its 'club' schema"
        )
    found = int(str(rows["version"]))
    if found > SCHEMA_VERSION:
        raise NewerClubSchemaError(found, SCHEMA_VERSION)
    return found


def require_current(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """Refuse a database without the club, or with a schema this program cannot use."""
    found = schema_version(conn)
    if found == 0:
        raise NotInitialisedError(
            f"database {conn.info.dbname!r} has no club yet; run "
            "`meridian-table club init --db postgresql://ADMIN@HOST/DB` first"
        )
    if found < SCHEMA_VERSION:
        raise NotInitialisedError(
            f"the club in {conn.info.dbname!r} has schema version {found}; run "
            "`meridian-table club init` again to migrate it to version "
            f"{SCHEMA_VERSION}"
        )


def migrate(conn: psycopg.Connection[tuple[object, ...]], roles: Roles) -> int:
    """Apply each missing migration in its own transaction; return the version reached.

    ``conn`` must be in autocommit mode; it runs as the club's admin role.
    """
    version = schema_version(conn)
    for step in MIGRATIONS:
        if step.version <= version:
            continue
        LOGGER.info("migrating the club to schema %d: %s", step.version, step.description)
        with conn.transaction():
            if version == 0:
                conn.execute("CREATE SCHEMA club")
            for statement in step.statements:
                conn.execute(sql.SQL(statement).format(
                    admin=sql.Identifier(roles.admin), page=sql.Identifier(roles.page),
                    tables=sql.Identifier(roles.tables)))
            conn.execute(
                "INSERT INTO club.meta VALUES ('application', %s), ('version', %s), "
                "('prefix', %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (APPLICATION, str(step.version), roles.prefix))
        version = step.version
    return version
