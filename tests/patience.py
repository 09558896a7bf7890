"""How long a test waits for something a busy machine makes late."""

from __future__ import annotations

import os


def patience(seconds: float) -> float:
    """``seconds`` on a quiet machine, up to six times more on a busy one (the load
    average over the cores). For the waits that only bound a condition, and for the
    timeouts that a slow machine must not turn into a verdict (a switch called dead)."""
    try:
        load = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:  # no load average on this system
        load = 1.0
    return seconds * min(6.0, max(1.0, load))
