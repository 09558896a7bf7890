"""Who still waits for a slow answer.

The web layer runs a slow command (a review) in a thread and marks that thread's
``gone`` event when the page that asked goes away (its socket closes, its HTTP request
is dropped). Slow work on that thread asks :func:`gone` and stops when nobody waits for
it any more. A thread outside the web (the command line, a test) has no such event:
someone always waits there.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

LOGGER = logging.getLogger(__name__)

_LOCAL = threading.local()


@contextmanager
def waiting(gone: threading.Event) -> Iterator[None]:
    """Run the body with ``gone`` as this thread's "the asker went away" event."""
    before = getattr(_LOCAL, "gone", None)
    _LOCAL.gone = gone
    try:
        yield
    finally:
        _LOCAL.gone = before


def gone() -> threading.Event | None:
    """This thread's "the asker went away" event, or None when someone always waits."""
    found = getattr(_LOCAL, "gone", None)
    return found if isinstance(found, threading.Event) else None


__all__ = ["gone", "waiting"]
