"""Rowitt's *Meridian: Empire in Space*: the rules engine, its data and its record.

```python
from meridian_table.games import empire
g = empire.new_game(players=["Ann", "Bob", "Cy"], mode="standard", seed=7)
g.to_move, g.phase, g.round
g.legal_actions(); g.apply("end"); g.undo(); g.is_over; g.winner; g.view()
empire.record.export(g); empire.record.parse(text)
```
"""

from typing import TYPE_CHECKING

from meridian_table.games.lazy import exports

if TYPE_CHECKING:
    from meridian_table.games.empire import record
    from meridian_table.games.empire.data_files import BoardMap, CardSet, DataError
    from meridian_table.games.empire.engine import (
        SCELROTIA,
        Game,
        IllegalActionError,
        new_game,
    )
    from meridian_table.games.empire.files import load_cards, load_map, load_pair
    from meridian_table.games.empire.notation import NotationError

# Imported on first use: the registry reads this game's spec without its engine.
__getattr__ = exports(__name__, {
    "record": "record",
    "BoardMap": "data_files",
    "CardSet": "data_files",
    "DataError": "data_files",
    "SCELROTIA": "engine",
    "Game": "engine",
    "IllegalActionError": "engine",
    "new_game": "engine",
    "load_cards": "files",
    "load_map": "files",
    "load_pair": "files",
    "NotationError": "notation",
})

__all__ = [
    "SCELROTIA",
    "BoardMap",
    "CardSet",
    "DataError",
    "Game",
    "IllegalActionError",
    "NotationError",
    "load_cards",
    "load_map",
    "load_pair",
    "new_game",
    "record",
]
