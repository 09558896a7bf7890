"""Kato's Meridians: the rules engine, game records and analysis (docs/games/kato.md).

```python
from meridian_table.games import kato
g = kato.Game(size=6, pie=False)
ply = g.play("G6")          # ply.removed: the mover's dead groups, removed together
g.legal_moves(), g.position(), g.winner, g.undo(), g.safe_points("dark")
```
"""

from typing import TYPE_CHECKING

from meridian_table.games.lazy import exports

if TYPE_CHECKING:
    from meridian_table.games.kato import record
    from meridian_table.games.kato.game import (
        COLOURS,
        PASS,
        SWAP,
        Game,
        IllegalMoveError,
        Ply,
        new_game,
    )
    from meridian_table.games.kato.geometry import SIZES, cells, coordinates, lines, points
    from meridian_table.games.kato.record import RecordError

# Imported on first use: the registry reads this game's spec without its engine.
__getattr__ = exports(__name__, {
    "record": "record",
    "COLOURS": "game",
    "PASS": "game",
    "SWAP": "game",
    "Game": "game",
    "IllegalMoveError": "game",
    "Ply": "game",
    "new_game": "game",
    "SIZES": "geometry",
    "cells": "geometry",
    "coordinates": "geometry",
    "lines": "geometry",
    "points": "geometry",
    "RecordError": "record",
})

__all__ = [
    "COLOURS",
    "PASS",
    "SIZES",
    "SWAP",
    "Game",
    "IllegalMoveError",
    "Ply",
    "RecordError",
    "cells",
    "coordinates",
    "lines",
    "new_game",
    "points",
    "record",
]
