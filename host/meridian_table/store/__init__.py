"""The game log: an append-only SQLite event log, replay and exports (docs/STORE.md).

```python
from meridian_table.store import Store
with Store.open() as store:                # $MERIDIAN_TABLE_DB or the user data dir
    gid = store.create_game(GAME, {"size": 6}, ["Ann", "Bob"],
                            profile=PROFILE, versions={"firmware": "0.1.0"})
    store.append(gid, "action", {"notation": "G6", "player": "light"})
    store.append(gid, "undo", {"notation": "G6"})
    store.finish(gid, {"winners": ["Ann"], "reason": "Dark has no stones", "scores": []})
    engine = replay(store, gid).engine     # from meridian_table.store import replay
```
"""

from meridian_table.store.errors import (
    CorruptDatabaseError,
    DatabaseFileError,
    ExportError,
    ForeignDatabaseError,
    GameFinishedError,
    InvalidEventError,
    LogUnwritableError,
    MigrationError,
    MissingDatabaseError,
    NewerSchemaError,
    OlderSchemaError,
    ReadOnlyDatabaseError,
    ReplayError,
    StoreError,
    UnknownGameError,
)
from meridian_table.store.paths import ENV_VAR, default_path
from meridian_table.store.replay import Replay, load_game_spec, replay
from meridian_table.store.schema import SCHEMA_VERSION
from meridian_table.store.store import Event, GameInfo, Store, standing_actions

__all__ = [
    "ENV_VAR",
    "SCHEMA_VERSION",
    "CorruptDatabaseError",
    "DatabaseFileError",
    "Event",
    "ExportError",
    "ForeignDatabaseError",
    "GameFinishedError",
    "GameInfo",
    "InvalidEventError",
    "LogUnwritableError",
    "MigrationError",
    "MissingDatabaseError",
    "NewerSchemaError",
    "OlderSchemaError",
    "ReadOnlyDatabaseError",
    "Replay",
    "replay",
    "ReplayError",
    "Store",
    "StoreError",
    "UnknownGameError",
    "default_path",
    "load_game_spec",
    "standing_actions",
]
