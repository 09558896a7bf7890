"""Write hardware/BOM.md, the bill of materials of every shipped board, from the profiles.

    .venv/bin/python tools/render_bom.py           # rewrite hardware/BOM.md
    .venv/bin/python tools/render_bom.py --check   # exit 1 if it is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from meridian_table.maker.bom import bom_markdown
from meridian_table.profiles import load_profile, shipped_dirs

OUT = Path(__file__).resolve().parents[1] / "hardware" / "BOM.md"


def render() -> str:
    """The BOM of every profile shipped in host/meridian_table/games/<game>/boards/."""
    ours = Path(__file__).resolve().parents[1] / "host"   # not a game from another package
    names = sorted(p.stem for folder in shipped_dirs() if ours in folder.resolve().parents
                   for p in folder.glob("*.json"))
    return bom_markdown([load_profile(name) for name in names])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if hardware/BOM.md is stale")
    args = parser.parse_args(argv)
    text = render()
    current = OUT.read_text(encoding="utf-8") if OUT.exists() else None
    if current == text:
        return 0
    if args.check:
        print(f"{OUT} is stale; run tools/render_bom.py", file=sys.stderr)
        return 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
