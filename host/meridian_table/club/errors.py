"""The club's errors: each message names what was wrong and what to do next."""

from __future__ import annotations


class ClubError(Exception):
    """Anything the club cannot do as asked (the message says what to change)."""


class NoServerError(ClubError):
    """No PostgreSQL server programs (initdb, pg_ctl) on this machine."""


class ClusterError(ClubError):
    """A private or throwaway PostgreSQL cluster that failed to start or stop."""


class NewerClubSchemaError(ClubError):
    """The club database was made by a newer Meridian Table."""

    def __init__(self, found: int, supported: int) -> None:
        super().__init__(
            f"the club database has schema version {found}, newer than this program's "
            f"{supported}; upgrade Meridian Table on this machine (pip install -U "
            "meridian-table), or point --db at another database"
        )
        self.found = found
        self.supported = supported


class ForeignClubSchemaError(ClubError):
    """The database has a ``club`` schema that Meridian Table did not make."""


class NotInitialisedError(ClubError):
    """The database has no club yet."""


class UnknownTableError(ClubError, LookupError):
    """No table of that name in the club."""


class BadTableNameError(ClubError, ValueError):
    """A table name that cannot become a PostgreSQL role name."""
