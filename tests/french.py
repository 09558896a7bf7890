"""One reading of "an English word on a French page" for every French test (unit and
browser): the common words of the table's English that are not French words too ("on",
"a", "points", "total", "menu", "charge", "face", "place", "point", "second", "options"
are both, so they are left out).
Names (players, games, cards, maps) are passed as ``names`` and never count, nor does
quoted notation (« pass », 'G6 overlooked C3', `meridian-table games`: what one types,
not what one reads)."""

from __future__ import annotations

import re
from collections.abc import Iterable

ENGLISH = frozenset("""
the to and of is are you your it its this that with from here there now then when
move moves stone stones put back remove lift wins win won player players turn
board piece pieces hand tower towers taller island islands strength buttons button
count agree agrees agreed resign resigned hint light dark black white red blue green
yellow brown computer level strongest strong easy medium beginner clock time
game new undo pass swap confirm cancel close history review replay live sound voice
theme language seconds thinking waiting connected safe breakdown legend legal last
better played what which who will be by in not no yes keep playing heights height
meridian card cards city cities garrison capital takes tied draw over left right
start end ends ended offered offer offers automaton person people count's his her
round ship fighter frigate unused used cells energy where settle build waypoint
waypoints free grows infects sector victory tokens do trade make colony strikes plays
words map shows ring moon planet down up discover spend skip renew call order full
scelrotia's warning anyway illegal occupied first path must have empty
between line reaches before any other should can cannot only allowed size optional
players' seat seats name names rules default
""".split())
WORD = re.compile(r"[A-Za-zÀ-ÿ']+")
QUOTED = re.compile(r"«[^»]*»|`[^`]*`|(?<![A-Za-zÀ-ÿ])'[^'\n]*'(?![A-Za-zÀ-ÿ])")


def english_words(text: str, names: Iterable[str] = ()) -> list[str]:
    """The English words of ``text``, once each and sorted; ``names`` (a player's, a
    card's: several words each) are taken out first."""
    text = QUOTED.sub(" ", text)
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = re.sub(rf"(?<![\w'-]){re.escape(name)}(?![\w'-])", " ", text, flags=re.IGNORECASE)
    return sorted({w for w in WORD.findall(text) if w.lower() in ENGLISH})
