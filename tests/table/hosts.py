"""Waiting on a :class:`~meridian_table.table.lobby.TableHost` in the lobby tests: the
table it runs may change under the test (a new game, a rematch), so each look reads
``host.table`` again."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from meridian_table.table.lobby import TableHost


def wait(host: TableHost, check: Callable[[dict[str, Any]], bool],
         timeout: float = 20.0) -> dict[str, Any]:
    """The first state of the host's current table, linked and with nothing settling,
    for which ``check`` holds."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while time.monotonic() < deadline:
        table = host.table
        state = dict(table.session.state())
        if table.link.state == "connected" and not table.session.settling and check(state):
            return state
        pause.wait(0.02)
    raise AssertionError(f"the table never got there: {host.state()['message']}")


def place(host: TableHost, site: str) -> dict[str, Any]:
    """A stone put on ``site`` of the host's virtual board, read as a move."""
    before = len(host.state()["moves"])
    board = host.table.virtual
    assert board is not None
    board.set_site(site, True)
    return wait(host, lambda s: len(s["moves"]) > before)
