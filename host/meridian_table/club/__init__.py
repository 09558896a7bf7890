"""The club: many tables replicating into one PostgreSQL, a live club page, standings.

docs/CLUB.md covers a club night. The parts: ``cluster`` (a private or throwaway
PostgreSQL from the server binaries), ``schema`` (versioned migrations, roles, row-level
security), ``admin`` (init, add/revoke/rename tables), ``replicator`` (a table's SQLite
log into the club), ``standings`` (OpenSkill ratings), ``queries`` and ``web`` (the page).
"""

from meridian_table.club.errors import ClubError

#: The seat kind of a player at another table of the club (club/remote.py).
REMOTE = "remote"

__all__ = ["REMOTE", "ClubError"]
