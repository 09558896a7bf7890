"""Kato's Meridians. The rules engine lives in this package; see docs/games/kato.md."""

from meridian_table.games.kato.geometry import SIZES, cells, coordinates, points

__all__ = ["SIZES", "cells", "coordinates", "points"]
