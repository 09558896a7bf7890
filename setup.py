"""The one compiled part: the Kato playout kernel (docs/BOTS.md "Speed").

Everything else is declared in pyproject.toml. The extension is optional: where no C
compiler is found the build says so and goes on, and the pure-Python twin in
``meridian_table/games/kato/kernel.py`` plays the same games, draw for draw.
"""

import sys

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "meridian_table.games.kato._kernel",
            ["host/meridian_table/games/kato/_kernel.c"],
            optional=True,
            # No fused multiply-adds: the search's arithmetic must round as Python's does.
            extra_compile_args=[] if sys.platform == "win32" else ["-O3", "-ffp-contract=off"],
        )
    ]
)
