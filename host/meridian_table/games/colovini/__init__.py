"""Leo Colovini's *Meridian*: rules engine, island maps and scoring (pure, no I/O).

See docs/games/colovini.md for the rules as implemented, the map and record formats.

    from meridian_table.games import colovini
    game = colovini.new_game(players=4, map="sample-50", seed=7)
    game.play("3:3.2=4")
    colovini.meridian_placements(column, height)
    colovini.score(board_map, garrisons)
"""

from typing import TYPE_CHECKING

from meridian_table.games.lazy import exports

if TYPE_CHECKING:
    from meridian_table.games.colovini import record
    from meridian_table.games.colovini.cards import CARD_NAMES, CARDS, CardError, card_meridians
    from meridian_table.games.colovini.engine import (
        Action,
        Game,
        IllegalActionError,
        NotationError,
        State,
        Step,
        new_game,
    )
    from meridian_table.games.colovini.maps import (
        BoardMap,
        City,
        Island,
        MapError,
        city_id,
        load_map,
        parse_map,
        split_city,
    )
    from meridian_table.games.colovini.meridian import Column, Tower, meridian_placements
    from meridian_table.games.colovini.record import RecordError
    from meridian_table.games.colovini.scoring import IslandScore, Score, ScoreError, score

# Imported on first use: the registry reads this game's spec without its engine.
__getattr__ = exports(__name__, {
    "record": "record",
    "CARD_NAMES": "cards",
    "CARDS": "cards",
    "CardError": "cards",
    "card_meridians": "cards",
    "Action": "engine",
    "Game": "engine",
    "IllegalActionError": "engine",
    "NotationError": "engine",
    "State": "engine",
    "Step": "engine",
    "new_game": "engine",
    "BoardMap": "maps",
    "City": "maps",
    "Island": "maps",
    "MapError": "maps",
    "city_id": "maps",
    "load_map": "maps",
    "parse_map": "maps",
    "split_city": "maps",
    "Column": "meridian",
    "Tower": "meridian",
    "meridian_placements": "meridian",
    "RecordError": "record",
    "IslandScore": "scoring",
    "Score": "scoring",
    "ScoreError": "scoring",
    "score": "scoring",
})

__all__ = [
    "CARDS",
    "CARD_NAMES",
    "Action",
    "BoardMap",
    "CardError",
    "City",
    "Column",
    "Game",
    "IllegalActionError",
    "Island",
    "IslandScore",
    "MapError",
    "NotationError",
    "RecordError",
    "Score",
    "ScoreError",
    "State",
    "Step",
    "Tower",
    "card_meridians",
    "city_id",
    "load_map",
    "meridian_placements",
    "new_game",
    "parse_map",
    "record",
    "score",
    "split_city",
]
