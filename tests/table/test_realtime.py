"""What keeps the board's answer quick when the table's threads share the interpreter."""

from __future__ import annotations

import sys

from meridian_table.table.runner import SWITCH_INTERVAL_S, TableSetup, open_table


def test_a_table_hands_the_interpreter_lock_on_within_a_millisecond() -> None:
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # Python's default
    try:
        with open_table(TableSetup(game="kato", board="sim", db=":memory:")) as table:
            assert table.wait_ready(60)
            assert sys.getswitchinterval() <= SWITCH_INTERVAL_S == 0.001
    finally:
        sys.setswitchinterval(before)
