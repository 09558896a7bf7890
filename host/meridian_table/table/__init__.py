"""The table session: settle, out-of-sync guidance, undo; ties board, adapter, log and page.

See docs/TABLE.md. ``TableSession`` is the surface the web page uses.
"""

from meridian_table.table.journal import Journal, MemoryJournal
from meridian_table.table.session import DEFAULT_SETTLE_S, SessionError, TableSession

__all__ = ["DEFAULT_SETTLE_S", "Journal", "MemoryJournal", "SessionError", "TableSession"]
