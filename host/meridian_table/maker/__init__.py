"""Tools for makers, who build and set up a board: calibrate it, flash it, list its parts.

These workflows drive a :class:`~meridian_table.link.Link` or run tools (``mpy-cross``,
``mpremote``); the pure board model they work on stays in :mod:`meridian_table.profiles`.

- :mod:`.calibration`: the calibration state machine (press each site, check each LED);
- :mod:`.calibration_run`: its driver over a link, with saved progress;
- :mod:`.flashing`: build the firmware, copy it to a Pico, verify it;
- :mod:`.bom`: a profile's bill of materials.
"""
