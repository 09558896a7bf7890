"""Meridian Table firmware for the Raspberry Pi Pico: scan, debounce, light and talk.

Written in the common subset of MicroPython and CPython, so the host and the tests
import the same code that runs on the board. docs/FIRMWARE.md describes the modules.
"""

FW_VERSION = "0.1.0"
