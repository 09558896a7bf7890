"""Rowitt's *Meridian: Empire in Space*: the board's geometry (the rules engine is coming)."""
