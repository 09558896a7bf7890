"""Meridian Table: the host side of the smart board for the three games named Meridian."""

__version__ = "0.1.0"
