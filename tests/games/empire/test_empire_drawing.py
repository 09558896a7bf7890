"""The page's drawing of the board: every body beside its orbit (issue 24, defect 3).

The collision push once walked the four inner (white) planets round to the far side of
the board, 5.89 units from their orbit quadrants (board radius 3.5)."""

from __future__ import annotations

import math

import pytest

from meridian_table.games.empire.drawing import CLEARANCE, drawing
from meridian_table.games.empire.engine import new_game
from meridian_table.games.empire.files import SHIPPED_MAPS

#: A body's farthest orbit quadrant is at most this far (the quadrants of one sector
#: are 0.8 to 1.4 apart on the drawing).
BESIDE = 1.2


@pytest.mark.parametrize("board_map", SHIPPED_MAPS)
def test_every_body_of_every_shipped_map_is_drawn_beside_its_orbit(board_map: str) -> None:
    game = new_game(players=3, map=board_map, seed=1)
    places = {s.site: (s.x, s.y) for s in drawing(game)}
    assert set(places) == set(game.board.quadrants) | set(game.board.bodies)
    for body in game.board.bodies.values():
        x, y = places[body.id]
        far = max(math.hypot(x - places[q][0], y - places[q][1]) for q in body.orbit)
        assert far <= BESIDE, f"{body.id} is drawn {far:.2f} from its orbit {body.orbit}"
        others = [math.hypot(x - a, y - b) for site, (a, b) in places.items() if site != body.id]
        assert min(others) >= CLEARANCE - 1e-3, f"{body.id} overlaps another site"
