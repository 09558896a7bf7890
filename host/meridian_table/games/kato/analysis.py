"""Kato's derived state rebuilt, read and checked: groups, dead groups, safe points
(the secondary ending's estimate), the rebuild from the bitboards and the consistency
check.

:class:`Analysis` is a mixin of :class:`meridian_table.games.kato.game.Game`: it reads
the state that the game keeps (declared here), and changes only the derived part.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping

from meridian_table.games.kato.sight import EDGE, Context
from meridian_table.games.kato.tables import Tables, bits

LOGGER = logging.getLogger(__name__)

COLOURS = ("light", "dark")
LIGHT, DARK = 0, 1


def colour_index(colour: str) -> int:
    """0 for ``"light"``, 1 for ``"dark"``; a ValueError names anything else."""
    if colour == "light":
        return LIGHT
    if colour == "dark":
        return DARK
    raise ValueError(f"colour {colour!r} is not 'light' or 'dark'")


class Analysis:
    """The derived state of a position: rebuilt, read and checked."""

    # The state the game keeps (game.py): tables, bitboards, and the derived state.
    _t: Tables
    _stones: list[int]
    _col: list[int]
    _gid: list[int]
    _gmask: list[int]
    _links: list[dict[int, int]]
    _dead: list[set[int]]
    _W: list[int]
    _ctx: Context

    def _rebuild(self) -> None:
        """Derive groups, links, dead sets and sight from the two bitboards (set-up and
        undo)."""
        t = self._t
        n = t.n
        light, dark = self._stones
        occ = light | dark
        col = [-1] * n + [EDGE]
        gid = [-1] * n
        gmask = [0] * n
        links: list[dict[int, int]] = [{} for _ in range(n)]
        w = [0] * 6
        self._col = col
        self._gid = gid
        self._gmask = gmask
        self._links = links
        self._dead: list[set[int]] = [set(), set()]
        self._W = w
        # Everything the placement and removal code reads, in one tuple: one attribute
        # load instead of fifteen on the hottest path. Rebuilt with the lists it holds.
        # (The neighbour -1, off the board, indexes the edge sentinel ending ``col``.)
        ri = t.rayi
        self._ctx = (
            col,
            gid,
            gmask,
            links,
            self._dead,
            w,
            self._stones,
            t.rays_at,
            t.neighbours_at,
            ri[0],
            ri[1],
            ri[2],
            ri[3],
            ri[4],
            ri[5],
        )
        if not occ:
            return
        for i in bits(light):
            col[i] = LIGHT
        for i in bits(dark):
            col[i] = DARK
        for own in (light, dark):
            rest = own
            while rest:
                seed = rest & -rest
                g = seed.bit_length() - 1
                grp = frontier = seed
                while frontier:
                    grow = 0
                    for x in bits(frontier):
                        grow |= t.adjacent[x]
                    frontier = grow & own & ~grp
                    grp |= frontier
                rest &= ~grp
                gmask[g] = grp
                for x in bits(grp):
                    gid[x] = g
        for i in range(n):
            for d in range(6):
                m = t.ray[d][i] & occ
                if not m:
                    continue
                a = (m & -m).bit_length() - 1 if d < 3 else m.bit_length() - 1
                if col[i] < 0:
                    w[3 * col[a] + d % 3] |= 1 << i
                elif d < 3 and col[a] == col[i] and gid[a] != gid[i]:
                    ga, gi = gid[a], gid[i]
                    links[gi][ga] = links[gi].get(ga, 0) + 1
                    links[ga][gi] = links[ga].get(gi, 0) + 1
        for c in (LIGHT, DARK):
            self._dead[c] = {g for g in self._group_ids(c) if not links[g]}

    # --- analysis -------------------------------------------------------------------------

    def groups(self, colour: str) -> list[frozenset[str]]:
        """``colour``'s groups, each a frozenset of cell names."""
        c = colour_index(colour)
        names = self._t.names
        return [frozenset(names[i] for i in bits(self._gmask[g])) for g in self._group_ids(c)]

    def _group_ids(self, c: int) -> list[int]:
        """The group ids of colour index ``c``, in board order of their first stone."""
        gid = self._gid
        return list(dict.fromkeys(gid[i] for i in bits(self._stones[c])))

    def dead_group_mask(self, c: int) -> int:
        """All stones of colour index ``c`` that belong to dead groups, as a mask."""
        gmask = self._gmask
        out = 0
        for g in self._dead[c]:
            out |= gmask[g]
        return out

    def dead_groups(self, colour: str) -> list[frozenset[str]]:
        """``colour``'s groups that have no path to another friendly group now."""
        c = colour_index(colour)
        names = self._t.names
        return [frozenset(names[i] for i in bits(self._gmask[g])) for g in sorted(self._dead[c])]

    def safe_mask(self, c: int) -> int:
        """``safe_points`` for colour index ``c`` as a mask."""
        t = self._t
        col = self._col
        gid = self._gid
        links = self._links
        rays_at = t.rays_at
        neighbours_at = t.neighbours_at
        occ = self._stones[0] | self._stones[1]
        w = self._W
        cand = (w[3 * c] | w[3 * c + 1] | w[3 * c + 2]) & ~occ
        out = 0
        for p in bits(cand):
            adj: set[int] = set()
            for n in neighbours_at[p]:
                if col[n] == c:  # (n == -1, off the board, reads the edge sentinel)
                    adj.add(gid[n])
            alive = False
            broken: list[tuple[int, int]] = []
            rays = rays_at[p]
            for d in (0, 1, 2):
                m = rays[d] & occ
                a = (m & -m).bit_length() - 1 if m else -1
                m = rays[d + 3] & occ
                b = m.bit_length() - 1 if m else -1
                ka = col[a] if a >= 0 else -1
                kb = col[b] if b >= 0 else -1
                if (ka == c and gid[a] not in adj) or (kb == c and gid[b] not in adj):
                    alive = True
                    break
                if ka == c and kb == c:
                    broken.append((gid[a], gid[b]))
            if not alive:
                for g in adj:
                    for h, count in links[g].items():
                        if h in adj:
                            continue
                        count -= broken.count((g, h)) + broken.count((h, g))
                        if count > 0:
                            alive = True
                            break
                    if alive:
                        break
            if alive:
                out |= 1 << p
        return out

    def safe_points(self, colour: str) -> frozenset[str]:
        """The points where ``colour`` can still place a stone (by the placement rule of
        turn 3 on) whose group then has a path. The secondary ending counts these."""
        names = self._t.names
        return frozenset(names[i] for i in bits(self.safe_mask(colour_index(colour))))

    def estimate(self) -> dict[str, int]:
        """The secondary ending's estimate: the number of safe points of each colour."""
        return {colour: self.safe_mask(i).bit_count() for i, colour in enumerate(COLOURS)}

    def check_consistency(self) -> None:
        """Compare the incremental state with one rebuilt from the bitboards.

        For tests and debugging: raises RuntimeError on a mismatch.
        """
        fresh = copy.copy(self)
        fresh._stones = list(self._stones)
        fresh._rebuild()
        empty = self._t.board & ~(self._stones[0] | self._stones[1])
        mine = self._derived(empty)
        theirs = fresh._derived(empty)
        if mine != theirs:
            raise RuntimeError(
                "incremental state differs from the state rebuilt from the stones: "
                f"{mine!r} != {theirs!r}"
            )

    def _derived(self, empty: int) -> tuple[object, ...]:
        """The derived state in a form that does not depend on group ids."""
        ids = self._group_ids(LIGHT) + self._group_ids(DARK)
        gmask = {g: self._gmask[g] for g in ids}
        stones = self._stones[0] | self._stones[1]
        mapped = 0
        for g in ids:
            mapped |= gmask[g]
        for i in bits(stones):
            if not gmask[self._gid[i]] >> i & 1 or self._col[i] != (self._stones[1] >> i & 1):
                raise RuntimeError(f"stone {self._t.names[i]} has a stale group or colour")
        return (
            sorted(gmask.values()),
            mapped == stones,
            _link_pairs(gmask, {g: self._links[g] for g in ids}),
            [sorted(self._gmask[g] for g in self._dead[c]) for c in (LIGHT, DARK)],
            [x & empty for x in self._W],
            self._col,
        )


def _link_pairs(
    gmask: Mapping[int, int], links: Mapping[int, Mapping[int, int]]
) -> list[tuple[int, int, int]]:
    return sorted(
        (gmask[g], gmask[h], n) for g, table in links.items() for h, n in table.items() if n
    )


__all__ = ["COLOURS", "DARK", "LIGHT", "Analysis", "colour_index"]
