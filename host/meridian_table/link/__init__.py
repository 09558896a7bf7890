"""The pyserial link to the board: discovery, handshake, exactly-once SENSE, LED plans.

See docs/LINK.md. ``Link`` is the connection, ``FakeBoard`` its scripted test double.
"""

from meridian_table.link import discovery
from meridian_table.link.discovery import (
    Candidate,
    UnknownPortError,
    check_port,
    find_picos,
    find_sims,
)
from meridian_table.link.events import (
    BoardFault,
    Hello,
    LinkEvent,
    LinkState,
    SenseEvent,
    Snapshot,
    State,
)
from meridian_table.link.fake import FakeBoard
from meridian_table.link.link import (
    Link,
    LinkError,
    LinkTimeout,
    PlanSizeError,
    ProtocolMismatchError,
    SerialLike,
    mismatch_message,
    open_serial,
)
from meridian_table.link.sequencer import Sequencer

__all__ = [
    "BoardFault",
    "Candidate",
    "discovery",
    "FakeBoard",
    "Hello",
    "Link",
    "LinkError",
    "LinkEvent",
    "LinkState",
    "LinkTimeout",
    "PlanSizeError",
    "ProtocolMismatchError",
    "SenseEvent",
    "Sequencer",
    "SerialLike",
    "Snapshot",
    "State",
    "UnknownPortError",
    "check_port",
    "find_picos",
    "find_sims",
    "mismatch_message",
    "open_serial",
]
