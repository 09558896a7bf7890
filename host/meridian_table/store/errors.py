"""The store's exceptions. Every message names the file or game and says what to do next."""

from __future__ import annotations

from pathlib import Path


class StoreError(Exception):
    """Base class of every error raised by `meridian_table.store`."""


class DatabaseFileError(StoreError):
    """The database file cannot be used as it is. The file has not been modified."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path


class CorruptDatabaseError(DatabaseFileError):
    """The file is not an SQLite database, or its pages fail SQLite's integrity check."""


class ForeignDatabaseError(DatabaseFileError):
    """The file is a valid SQLite database, but not a Meridian Table game log."""


class NewerSchemaError(DatabaseFileError):
    """The file was written by a newer Meridian Table with a schema this one does not know."""

    def __init__(self, path: Path, message: str, found: int, supported: int) -> None:
        super().__init__(path, message)
        self.found = found
        self.supported = supported


class OlderSchemaError(DatabaseFileError):
    """A read-only open found an older schema that needs a (writing) migration first."""


class MigrationError(DatabaseFileError):
    """A schema migration failed and was rolled back; the file stays at its last version."""


class ReadOnlyDatabaseError(DatabaseFileError):
    """A writable open was asked for, but the file (or its folder) is read-only."""


class MissingDatabaseError(DatabaseFileError, FileNotFoundError):
    """A read-only open was asked for a file that does not exist."""


class LogUnwritableError(StoreError):
    """The log cannot be written now (a full disk, another program holding its write lock,
    an I/O error); ``reason`` says why in words. Nothing was written; the same event can
    be written again once the cause is gone."""

    def __init__(self, path: Path, reason: str, detail: str) -> None:
        super().__init__(f"the game log {path} cannot be written: {reason} ({detail})")
        self.path = path
        self.reason = reason
        self.detail = detail


def unwritable_reason(detail: str) -> str | None:
    """Words for an SQLite or OS error that means "cannot write now", or None."""
    low = detail.lower()
    if "disk is full" in low or "no space" in low or "quota" in low:
        return "the disk is full; free some space"
    if "locked" in low or "busy" in low:
        return ("another program holds its write lock (an SQLite browser, a backup, a second "
                "table on the same file); close it")
    if "i/o error" in low or "input/output" in low:
        return "the disk reports an input/output error; check the disk or the card"
    if "readonly" in low or "read-only" in low:
        return "the file or its folder has become read-only; make it writable again"
    return None


class UnknownGameError(StoreError, LookupError):
    """No game with this id is in the log."""


class InvalidEventError(StoreError, ValueError):
    """An event, game or result given to the store is malformed; nothing was written."""


class GameFinishedError(StoreError, ValueError):
    """The game already has a result; only notes may still be appended."""


class ReplayError(StoreError, ValueError):
    """The logged actions cannot be replayed by the game's rules engine."""


class ExportError(StoreError, ValueError):
    """The game cannot be exported in the format asked for."""
