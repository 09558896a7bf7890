"""Draw a map as SVG: islands coloured, capitals marked, meridian numbers at the bottom.

North (the taller towers' edge) is at the top, as on the printed board. Pure string
building, so the CLI, the web page and the tests share it.
"""

from __future__ import annotations

import logging
from html import escape

from meridian_table.games.colovini.maps import MERIDIANS, BoardMap, split_city

LOGGER = logging.getLogger(__name__)

PALETTE = (
    "#8ecae6", "#ffb703", "#90be6d", "#f4a261", "#cdb4db", "#a3c4f3", "#e9c46a",
    "#84dcc6", "#f28482", "#b5e48c", "#ffafcc", "#bde0fe", "#d4a373", "#c9ada7",
)
STEP = 70
MARGIN = 50
RADIUS = 16


def island_colours(board_map: BoardMap) -> dict[str, str]:
    """A fill colour per island key, stable for a given map."""
    return {key: PALETTE[n % len(PALETTE)] for n, key in enumerate(board_map.islands)}


def city_xy(city: str) -> tuple[float, float]:
    """Centre of a city in SVG units: meridians left to right, index 1 at the top."""
    meridian, index = split_city(city)
    return MARGIN + (meridian - 1) * STEP, MARGIN + (index - 1) * STEP


def size(board_map: BoardMap) -> tuple[int, int]:
    """Width and height of the drawing."""
    return 2 * MARGIN + (MERIDIANS - 1) * STEP, 2 * MARGIN + (board_map.side - 1) * STEP + 30


def map_svg(board_map: BoardMap, owners: dict[str, str] | None = None) -> str:
    """The map as a standalone SVG document. ``owners`` colours city rims (optional)."""
    width, height = size(board_map)
    colours = island_colours(board_map)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f"<title>{escape(board_map.name)}: {len(board_map.cities)} cities, "
        f"{len(board_map.islands)} islands</title>",
        f'<rect width="{width}" height="{height}" fill="#1d3557"/>',
        f'<text x="{width / 2}" y="20" fill="#f1faee" text-anchor="middle" font-size="13">'
        "N (taller towers)</text>",
    ]
    for key, island in board_map.islands.items():
        points = " ".join("{:.0f},{:.0f}".format(*city_xy(c)) for c in island.cities)
        out.append(
            f'<polyline points="{points}" fill="none" stroke="{colours[key]}" '
            f'stroke-width="{2 * RADIUS + 14}" stroke-linejoin="round" stroke-linecap="round" '
            f'opacity="0.85"><title>island {escape(key)}: {escape(island.name)}, '
            f"worth {island.value}</title></polyline>"
        )
    for city in board_map.cities.values():
        x, y = city_xy(city.id)
        rim = (owners or {}).get(city.id)
        stroke = f'stroke="{escape(rim)}" stroke-width="4"' if rim else 'stroke="#1d3557"'
        fill = "#ffd60a" if city.capital else "#e63946"
        out.append(
            f'<circle cx="{x}" cy="{y}" r="{RADIUS if city.capital else RADIUS - 5}" '
            f'fill="{fill}" {stroke} class="city" data-city="{city.id}"><title>{city.id} ({escape(city.island)}'
            f'{", capital" if city.capital else ""})</title></circle>'
        )
        if city.capital:
            out.append(
                f'<text x="{x}" y="{y + 4}" font-size="11" text-anchor="middle" '
                f'class="capital-mark" data-city="{city.id}" pointer-events="none">&#9733;</text>'
            )
    for key, island in board_map.islands.items():
        x, y = city_xy(island.cities[0])
        out.append(
            f'<text x="{x - RADIUS - 4}" y="{y - RADIUS + 4}" font-size="13" fill="#f1faee" '
            f'stroke="#1d3557" stroke-width="3" paint-order="stroke" font-weight="bold" '
            f'text-anchor="middle" pointer-events="none">{escape(key)}</text>'
        )
    base = MARGIN + (board_map.side - 1) * STEP + RADIUS + 30
    for meridian in range(1, MERIDIANS + 1):
        x = MARGIN + (meridian - 1) * STEP
        out.append(
            f'<text x="{x}" y="{base}" fill="#f1faee" text-anchor="middle" font-size="16" '
            f'font-weight="bold">{meridian}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"
