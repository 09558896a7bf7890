"""How a placement and a removal change Kato's derived state: groups, links, dead
sets and sight (docs/games/kato.md; the state itself is described in ``game.py``).

These are the hottest functions of the Python engine: every placement runs :func:`put`,
every removal :func:`take`. They read everything through one tuple, the
:data:`Context` the game builds in ``_rebuild`` (one load instead of fifteen).
:func:`put` keeps its loop over the three line families written out and :func:`take`
does not: a same-run A/B of random playouts measured the unrolled ``put`` about 8 %
faster and the unrolled ``take`` no faster (docs/games/kato.md, "The Python engine").
"""

from __future__ import annotations

import logging
from typing import Final

LOGGER = logging.getLogger(__name__)

# Indices into the sight masks for a mover of colour c: its three, then the other's.
WIDX: Final = ((0, 1, 2, 3, 4, 5), (3, 4, 5, 0, 1, 2))
# ``col`` holds -1 at empty points and this at its last entry, which neighbour -1
# (off the board) indexes.
EDGE: Final = -2

Masks = tuple[int, ...]
# What put and take read: col, gid, gmask, links, dead, W, stones, rays_at,
# neighbours_at and the six rayi tables (see _rebuild).
Context = tuple[
    list[int],
    list[int],
    list[int],
    list[dict[int, int]],
    list[set[int]],
    list[int],
    list[int],
    tuple[Masks, ...],
    tuple[Masks, ...],
    Masks,
    Masks,
    Masks,
    Masks,
    Masks,
    Masks,
]


def put(ctx: Context, p: int, c: int) -> None:
    """Place a stone of colour ``c`` on empty point ``p`` and update the derived state.

    For each of the three lines through ``p``: ``a`` and ``b`` are the first stones
    on either side (colours ``ka`` and ``kb``, -1 for the edge); ``sp`` holds the
    empty points between ``p`` and ``a``, ``sm`` those between ``p`` and ``b``.
    Before the placement the points of ``sp`` saw ``ka`` and ``kb`` along this line
    (``kb`` through ``p``); now they see ``ka`` and ``c``; likewise for ``sm``. A
    path between ``a`` and ``b`` is cut. The loop over the three lines is unrolled:
    this is the hottest code.
    """
    col, gid, gmask, links, dead, w, stones, rays_at, nbs_at, ri0, ri1, ri2, ri3, ri4, ri5 = (
        ctx
    )
    rays = rays_at[p]
    nbs = nbs_at[p]
    occ = stones[0] | stones[1]
    o = 1 - c
    wc0, wc1, wc2, wo0, wo1, wo2 = WIDX[c]
    g = -1  # the first adjacent friendly group
    more: list[int] | None = None  # all adjacent friendly groups, when several
    far: list[int] = []
    # family 0: directions 0 and 3
    a = nbs[0]
    ka = col[a]
    if ka == -1:
        rp = rays[0]
        m = rp & occ
        if m:
            a = (m & -m).bit_length() - 1
            ka = col[a]
            sp = rp ^ ri0[a]
        else:
            sp = rp
    else:
        sp = 0
    b = nbs[3]
    kb = col[b]
    if kb == -1:
        rm = rays[3]
        m = rm & occ
        if m:
            b = m.bit_length() - 1
            kb = col[b]
            sm = rm ^ ri3[b]
        else:
            sm = rm
    else:
        sm = 0
    if ka == c:
        if kb == c:
            ga = gid[a]
            gb = gid[b]
            if ga != gb:
                la = links[ga]
                n = la[gb] - 1
                if n:
                    la[gb] = n
                    links[gb][ga] = n
                else:
                    del la[gb]
                    lb = links[gb]
                    del lb[ga]
                    if not la:
                        dead[c].add(ga)
                    if not lb:
                        dead[c].add(gb)
            if sp:
                far.append(a)
            else:
                h = ga
                if g < 0:
                    g = h
                elif h != g:
                    if more is None:
                        more = [g, h]
                    else:
                        more.append(h)
            if sm:
                far.append(b)
            else:
                h = gb
                if g < 0:
                    g = h
                elif h != g:
                    if more is None:
                        more = [g, h]
                    else:
                        more.append(h)
        else:
            if kb == o:
                w[wo0] &= ~sp
            if sp:
                far.append(a)
            else:
                h = gid[a]
                if g < 0:
                    g = h
                elif h != g:
                    if more is None:
                        more = [g, h]
                    else:
                        more.append(h)
    elif kb == c:
        if ka == o:
            w[wo0] &= ~sm
        if sm:
            far.append(b)
        else:
            h = gid[b]
            if g < 0:
                g = h
            elif h != g:
                if more is None:
                    more = [g, h]
                else:
                    more.append(h)
    else:
        w[wc0] |= sp | sm
        if ka == o:
            if kb == o:
                ga = gid[a]
                gb = gid[b]
                if ga != gb:
                    la = links[ga]
                    n = la[gb] - 1
                    if n:
                        la[gb] = n
                        links[gb][ga] = n
                    else:
                        del la[gb]
                        lb = links[gb]
                        del lb[ga]
                        if not la:
                            dead[o].add(ga)
                        if not lb:
                            dead[o].add(gb)
            else:
                w[wo0] &= ~sm
        elif kb == o:
            w[wo0] &= ~sp
    # family 1: directions 1 and 4
    a = nbs[1]
    ka = col[a]
    if ka == -1:
        rp = rays[1]
        m = rp & occ
        if m:
            a = (m & -m).bit_length() - 1
            ka = col[a]
            sp = rp ^ ri1[a]
        else:
            sp = rp
    else:
        sp = 0
    b = nbs[4]
    kb = col[b]
    if kb == -1:
        rm = rays[4]
        m = rm & occ
        if m:
            b = m.bit_length() - 1
            kb = col[b]
            sm = rm ^ ri4[b]
        else:
            sm = rm
    else:
        sm = 0
    if ka == c:
        if kb == c:
            ga = gid[a]
            gb = gid[b]
            if ga != gb:
                la = links[ga]
                n = la[gb] - 1
                if n:
                    la[gb] = n
                    links[gb][ga] = n
                else:
                    del la[gb]
                    lb = links[gb]
                    del lb[ga]
                    if not la:
                        dead[c].add(ga)
                    if not lb:
                        dead[c].add(gb)
            if sp:
                far.append(a)
            else:
                h = ga
                if g < 0:
                    g = h
                elif h != g:
                    if more is None:
                        more = [g, h]
                    else:
                        more.append(h)
            if sm:
                far.append(b)
            else:
                h = gb
                if g < 0:
                    g = h
                elif h != g:
                    if more is None:
                        more = [g, h]
                    else:
                        more.append(h)
        else:
            if kb == o:
                w[wo1] &= ~sp
            if sp:
                far.append(a)
            else:
                h = gid[a]
                if g < 0:
                    g = h
                elif h != g:
                    if more is None:
                        more = [g, h]
                    else:
                        more.append(h)
    elif kb == c:
        if ka == o:
            w[wo1] &= ~sm
        if sm:
            far.append(b)
        else:
            h = gid[b]
            if g < 0:
                g = h
            elif h != g:
                if more is None:
                    more = [g, h]
                else:
                    more.append(h)
    else:
        w[wc1] |= sp | sm
        if ka == o:
            if kb == o:
                ga = gid[a]
                gb = gid[b]
                if ga != gb:
                    la = links[ga]
                    n = la[gb] - 1
                    if n:
                        la[gb] = n
                        links[gb][ga] = n
                    else:
                        del la[gb]
                        lb = links[gb]
                        del lb[ga]
                        if not la:
                            dead[o].add(ga)
                        if not lb:
                            dead[o].add(gb)
            else:
                w[wo1] &= ~sm
        elif kb == o:
            w[wo1] &= ~sp
    # family 2: directions 2 and 5
    a = nbs[2]
    ka = col[a]
    if ka == -1:
        rp = rays[2]
        m = rp & occ
        if m:
            a = (m & -m).bit_length() - 1
            ka = col[a]
            sp = rp ^ ri2[a]
        else:
            sp = rp
    else:
        sp = 0
    b = nbs[5]
    kb = col[b]
    if kb == -1:
        rm = rays[5]
        m = rm & occ
        if m:
            b = m.bit_length() - 1
            kb = col[b]
            sm = rm ^ ri5[b]
        else:
            sm = rm
    else:
        sm = 0
    if ka == c:
        if kb == c:
            ga = gid[a]
            gb = gid[b]
            if ga != gb:
                la = links[ga]
                n = la[gb] - 1
                if n:
                    la[gb] = n
                    links[gb][ga] = n
                else:
                    del la[gb]
                    lb = links[gb]
                    del lb[ga]
                    if not la:
                        dead[c].add(ga)
                    if not lb:
                        dead[c].add(gb)
            if sp:
                far.append(a)
            else:
                h = ga
                if g < 0:
                    g = h
                elif h != g:
                    if more is None:
                        more = [g, h]
                    else:
                        more.append(h)
            if sm:
                far.append(b)
            else:
                h = gb
                if g < 0:
                    g = h
                elif h != g:
                    if more is None:
                        more = [g, h]
                    else:
                        more.append(h)
        else:
            if kb == o:
                w[wo2] &= ~sp
            if sp:
                far.append(a)
            else:
                h = gid[a]
                if g < 0:
                    g = h
                elif h != g:
                    if more is None:
                        more = [g, h]
                    else:
                        more.append(h)
    elif kb == c:
        if ka == o:
            w[wo2] &= ~sm
        if sm:
            far.append(b)
        else:
            h = gid[b]
            if g < 0:
                g = h
            elif h != g:
                if more is None:
                    more = [g, h]
                else:
                    more.append(h)
    else:
        w[wc2] |= sp | sm
        if ka == o:
            if kb == o:
                ga = gid[a]
                gb = gid[b]
                if ga != gb:
                    la = links[ga]
                    n = la[gb] - 1
                    if n:
                        la[gb] = n
                        links[gb][ga] = n
                    else:
                        del la[gb]
                        lb = links[gb]
                        del lb[ga]
                        if not la:
                            dead[o].add(ga)
                        if not lb:
                            dead[o].add(gb)
            else:
                w[wo2] &= ~sm
        elif kb == o:
            w[wo2] &= ~sp
    pb = 1 << p
    stones[c] |= pb
    col[p] = c
    if g >= 0:
        if more is not None:
            g = merge(ctx, more, c)
        gmask[g] |= pb
        lg = links[g]
    else:
        g = p
        gmask[p] = pb
        lg = links[p] = {}
    gid[p] = g
    deadc = dead[c]
    for x in far:
        h = gid[x]
        if h != g:
            lh = links[h]
            if not lh:
                deadc.discard(h)
            lh[g] = lh.get(g, 0) + 1
            lg[h] = lg.get(h, 0) + 1
    if lg:
        deadc.discard(g)
    else:
        deadc.add(g)


def merge(ctx: Context, adj: list[int], c: int) -> int:
    """Merge the groups ``adj`` of colour ``c`` into the largest; return its id.

    The merged group's entry in the dead set is settled by the caller."""
    gid, gmask, links, dead = ctx[1], ctx[2], ctx[3], ctx[4]
    deadc = dead[c]
    uniq = set(adj)
    g = -1
    best = -1
    for h in uniq:
        size = gmask[h].bit_count()
        if size > best:
            best = size
            g = h
    lg = links[g]
    for h in uniq:
        lg.pop(h, None)
    merged = gmask[g]
    for h in uniq:
        if h == g:
            continue
        m = gmask[h]
        gmask[h] = 0
        deadc.discard(h)
        merged |= m
        while m:
            low = m & -m
            gid[low.bit_length() - 1] = g
            m ^= low
        for x, n in links[h].items():
            if x in uniq:
                continue
            lx = links[x]
            del lx[h]
            lx[g] = lx.get(g, 0) + n
            lg[x] = lg.get(x, 0) + n
    gmask[g] = merged
    return g


def take(ctx: Context, removed: int, c: int) -> None:
    """Take the stones ``removed`` (whole linkless groups of colour ``c``, already
    dropped from the group tables) off the board and update sight and links.

    For each line family, each span that the removal opens (the run of empty and
    removed points between two remaining stones ``a`` and ``b``, or the edge) is
    handled once: it now sees exactly ``ka`` and ``kb`` along that line, and ``a``
    and ``b`` link across it when they are friendly stones of different groups.
    Neither is ever of colour ``c``: the stone of ``c`` nearest to ``a`` in the span
    would be next to it (so in its group, removed too) or see it (a link: not dead).
    So the span stops seeing ``c``, sees the other colour unless both ends are the
    edge, and only the other colour can link across it. ``gid`` keeps stale values at
    the emptied points; nothing reads it there. The loop over the families is rolled:
    written out, it saved nothing measurable (a same-run A/B, docs/games/kato.md),
    unlike :func:`put`'s.
    """
    col, gid, _, links, dead, w, stones, rays_at, _, ri0, ri1, ri2, ri3, ri4, ri5 = ctx
    deado = dead[1 - c]
    wc0, wc1, wc2, wo0, wo1, wo2 = WIDX[c]
    stones[c] &= ~removed
    live = stones[0] | stones[1]
    rest = removed
    while rest:
        xb = rest & -rest
        rest ^= xb
        col[xb.bit_length() - 1] = -1
    for f, wcf, wof, rif, rib in ((0, wc0, wo0, ri0, ri3), (1, wc1, wo1, ri1, ri4),
                                  (2, wc2, wo2, ri2, ri5)):
        todo = removed
        while todo:
            xb = todo & -todo
            rays = rays_at[xb.bit_length() - 1]
            rp = rays[f]
            m = rp & live
            if m:
                a = (m & -m).bit_length() - 1
                ka = col[a]
                sp = rp ^ rif[a]
            else:
                ka = -1
                sp = rp
            rm = rays[f + 3]
            m = rm & live
            if m:
                b = m.bit_length() - 1
                kb = col[b]
                sm = rm ^ rib[b]
            else:
                kb = -1
                sm = rm
            span = sp | sm | xb
            todo &= ~span
            w[wcf] &= ~span
            if ka == kb:
                if ka < 0:
                    w[wof] &= ~span
                else:
                    w[wof] |= span
                    ga = gid[a]
                    gb = gid[b]
                    if ga != gb:
                        la = links[ga]
                        if not la:
                            deado.discard(ga)
                        la[gb] = la.get(gb, 0) + 1
                        lb = links[gb]
                        if not lb:
                            deado.discard(gb)
                        lb[ga] = lb.get(ga, 0) + 1
            else:
                w[wof] |= span


__all__ = ["EDGE", "WIDX", "Context", "Masks", "merge", "put", "take"]
