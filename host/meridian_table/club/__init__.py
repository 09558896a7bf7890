"""The club: many tables replicating into one PostgreSQL, a live club page, standings.

docs/CLUB.md covers a club night. The parts: ``cluster`` (a private or throwaway
PostgreSQL from the server binaries), ``schema`` (versioned migrations, roles, row-level
security), ``admin`` (init, add/revoke/rename tables), ``replicator`` (a table's SQLite
log into the club), ``standings`` (OpenSkill ratings), ``queries`` and ``web`` (the page).
"""

from meridian_table.club.errors import ClubError

#: The seat kind of a player at another table of the club (club/remote.py).
REMOTE = "remote"
#: What a remote player is doing once it has read the club and the move is the other
#: table's to make (the page's link panel, ``remote_player``).
REMOTE_WAITING = "waiting for the other table's move"

__all__ = ["REMOTE", "REMOTE_WAITING", "ClubError"]
