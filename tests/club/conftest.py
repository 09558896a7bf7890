"""A real, throwaway PostgreSQL cluster for the club's tests (initdb/pg_ctl on a free
loopback port), and a fresh club database in it for each test."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
import pytest
from psycopg import sql

from meridian_table.club.admin import ClubAdmin, init_club
from meridian_table.club.cluster import Cluster, find_bindir, throwaway
from meridian_table.club.errors import NoServerError

_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    try:
        find_bindir()
    except NoServerError as exc:
        if os.environ.get("CI") == "true":
            raise  # CI installs the server (.ci/run): a missing one is a failure there
        pytest.skip(str(exc))
    started = throwaway()
    try:
        yield started
    finally:
        started.destroy()


@dataclass
class Club:
    cluster: Cluster
    dbname: str
    superuser_url: str
    admin_url: str
    page_url: str

    def admin(self) -> ClubAdmin:
        return ClubAdmin(self.admin_url)


def new_database(cluster: Cluster) -> str:
    dbname = f"club{next(_numbers)}"
    with psycopg.connect(cluster.url(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
    return dbname


@pytest.fixture
def club(cluster: Cluster) -> Club:
    if not cluster.running:  # a test that stopped the server and failed before restarting
        cluster.start()
    dbname = new_database(cluster)
    url = cluster.url(dbname)
    result = init_club(url)
    assert result.admin_url is not None and result.page_url is not None
    return Club(cluster, dbname, url, result.admin_url, result.page_url)


def club_at_version(cluster: Cluster, version: int, monkeypatch: pytest.MonkeyPatch) -> Club:
    """A club database made by an older release (schema ``version``), to be migrated by
    ``init_club`` (as `club init` does) once the test has put its rows in. This program
    stays that older release until the test calls ``monkeypatch.undo()``."""
    from meridian_table.club import schema

    dbname = new_database(cluster)
    url = cluster.url(dbname)
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:version])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", version)
    result = init_club(url)
    assert result.admin_url is not None and result.page_url is not None
    return Club(cluster, dbname, url, result.admin_url, result.page_url)
