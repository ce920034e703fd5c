"""The Franken and mutant fish search of one digit, compiled (numba, `cache=True`).

`complex_fish` spends most of `explain`'s time on states where everything easier failed,
trying every set of base units and every way to cover their places. This is the same
search, step for step and in the same order, over the digit's own cells: the cells that
still hold the digit are numbered 0..n-1 (n < 63, so a set of them is one int64), every
unit's places and every cell's peers become masks over those numbers. It reports each
(base units, cover units, fins, eliminations) whose family matches, before any duplicate
is dropped: `complex_fish` drops them as its Python search did.

Kinds are coded ROW, COLUMN, BOX (units of other kinds never reach the kernel) and the
families BASIC, FRANKEN, MUTANT.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ROW, COLUMN, BOX = 0, 1, 2
BASIC, FRANKEN, MUTANT = 0, 1, 2
KIND_CODE = {"row": ROW, "column": COLUMN, "box": BOX}
FAMILY_CODE = {"basic": BASIC, "Franken": FRANKEN, "mutant": MUTANT}
MAX_CELLS = 62  # a digit's cells as bits of one int64, the sign bit unused


@njit(cache=True, inline="always")
def _count(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def _lowest(x):
    i = 0
    while not (x >> i) & 1:
        i += 1
    return i


@njit(cache=True, inline="always")
def _among(units, n, u):
    """Whether unit u is one of the first n of `units` (a fish's base or covers)."""
    found = False
    for i in range(n):
        found |= units[i] == u
    return found


@njit(cache=True)
def _family(base_kinds, cover_kinds):
    """The family of a fish from the sets (bit per kind) of its base and cover kinds."""
    row, col, box = 1 << ROW, 1 << COLUMN, 1 << BOX
    if (base_kinds | row) == row and (cover_kinds | col) == col:
        return BASIC
    if (base_kinds | col) == col and (cover_kinds | row) == row:
        return BASIC
    if (base_kinds | row | box) == row | box and (cover_kinds | col | box) == col | box:
        return FRANKEN
    if (base_kinds | col | box) == col | box and (cover_kinds | row | box) == row | box:
        return FRANKEN
    return MUTANT


@njit(cache=True)
def _emit(out, n_out, base, covers, fins, hits, k):
    """Append one record (k base units, k covers, fins, eliminations), growing `out`."""
    if n_out == out.shape[0]:
        bigger = np.empty((2 * out.shape[0], out.shape[1]), np.int64)
        bigger[:n_out] = out
        out = bigger
    for i in range(k):
        out[n_out, i] = base[i]
        out[n_out, k + i] = covers[i]
    out[n_out, 2 * k] = fins
    out[n_out, 2 * k + 1] = hits
    return out, n_out + 1


@njit(cache=True)
def _covers(
    base, base_mask, endo, k, tables, allowed, holding, family, max_fins, out, n_out, kraken
):
    """Every way to cover the base places with k units of the `allowed` kinds (a bit per
    kind), none a base unit, and a few fins: the first uncovered cell is covered by one of
    its units or called a fin (only while some cell outside the base sees every fin).
    `tables` holds the digit's (places, kinds, cell_units, peers) and the search's scratch
    arrays (frames, covers). For a kraken fish (`kraken`), whose fins are followed by
    chains, fins need not be seen from outside: every fish with a fin is reported, and
    its eliminations column holds no cell."""
    places, kinds, cell_units, peers, frames, covers = tables
    near = holding & ~base_mask
    if kraken:
        near = -1
    e = endo
    while e:
        c = _lowest(e)
        e &= e - 1
        near &= peers[c]
    if not near:
        return out, n_out
    base_kinds = 0
    for i in range(k):
        base_kinds |= 1 << kinds[base[i]]
    f_covered, f_fins, f_near = frames[0], frames[1], frames[2]
    f_cell, f_next, f_ncov = frames[3], frames[4], frames[5]
    # the frame to enter: (covered, fins, near, number of covers)
    covered, fins, ncov, top = 0, endo, 0, -1
    entering = True
    while True:
        if entering:
            entering = False
            left = base_mask & ~covered & ~fins
            if not left:
                if ncov == k:
                    cover_mask, cover_kinds = 0, 0
                    for i in range(k):
                        cover_mask |= places[covers[i]]
                        cover_kinds |= 1 << kinds[covers[i]]
                    if kraken:
                        if fins and _family(base_kinds, cover_kinds) == family:
                            out, n_out = _emit(out, n_out, base, covers, fins, 0, k)
                    elif _family(base_kinds, cover_kinds) == family:
                        hits = cover_mask & ~base_mask
                        f = fins
                        while f and hits:
                            c = _lowest(f)
                            f &= f - 1
                            hits &= peers[c]
                        if hits:
                            out, n_out = _emit(out, n_out, base, covers, fins, hits, k)
            elif not (ncov == k and _count(left) + _count(fins) > max_fins):
                top += 1
                f_covered[top], f_fins[top], f_near[top] = covered, fins, near
                f_cell[top], f_next[top], f_ncov[top] = _lowest(left), 0, ncov
        if top < 0:
            return out, n_out
        cell, j, ncov = f_cell[top], f_next[top], f_ncov[top]
        f_next[top] = j + 1
        if j < cell_units.shape[1]:
            u = cell_units[cell, j]
            if u < 0 or ncov >= k or not (allowed >> kinds[u]) & 1:
                continue
            if _among(base, k, u) or _among(covers, ncov, u):
                continue
            covers[ncov] = u
            covered, fins, near = f_covered[top] | places[u], f_fins[top], f_near[top]
            ncov += 1
            entering = True
        elif j == cell_units.shape[1]:
            fins, near = f_fins[top], f_near[top]
            if _count(fins) < max_fins and (kraken or near & peers[cell]):
                covered = f_covered[top]
                fins |= 1 << cell
                near &= peers[cell]
                entering = True
        else:
            top -= 1


@njit(cache=True)
def _coverable(base, base_mask, k, places, kinds, allowed, max_fins, best):
    """Whether k cover units could hold all but `max_fins` of the base places: the k
    allowed non-base units holding most of them must hold enough. A cheap bound that
    spares the cover search most base sets it would find nothing for."""
    need = _count(base_mask) - max_fins
    if need <= 0:
        return True
    best[:] = 0
    for u in range(places.shape[0]):
        if not (allowed >> kinds[u]) & 1:
            continue
        if _among(base, k, u):
            continue
        held = _count(places[u] & base_mask)
        # keep the k largest, smallest first
        if held > best[0]:
            best[0] = held
            i = 0
            while i + 1 < k and best[i] > best[i + 1]:
                best[i], best[i + 1] = best[i + 1], best[i]
                i += 1
    return best.sum() >= need


@njit(cache=True)
def digit_fish(
    pool,
    allowed,
    k,
    places,
    kinds,
    cell_units,
    peers,
    holding,
    family,
    max_fins,
    max_endo,
    kraken=False,
):
    """Records (k base units, k covers, fins, eliminations) of every fish of one digit
    with base units from `pool` (in the order of the units' combinations), fins counting
    the endo fins (places shared by two base units, at most `max_endo`); with `kraken`,
    every fish with a fin (see `_covers`)."""
    out = np.empty((16, 2 * k + 2), np.int64)
    n_out = 0
    nb = pool.shape[0]
    if nb < k:
        return out[:0]
    idx = np.zeros(k, np.int64)
    unions = np.zeros(k + 1, np.int64)
    endos = np.zeros(k + 1, np.int64)
    base = np.zeros(k, np.int64)
    # the cover search's stack: (covered, fins, near, cell, next option, covers) a level
    frames = np.zeros((6, k + max_fins + 2), np.int64)
    covers = np.zeros(k, np.int64)
    best = np.zeros(k, np.int64)  # `_coverable`'s scratch
    tables = (places, kinds, cell_units, peers, frames, covers)
    depth = 0
    idx[0] = -1
    while depth >= 0:
        idx[depth] += 1
        if idx[depth] >= nb:
            depth -= 1
            continue
        u = pool[idx[depth]]
        shared = endos[depth] | (places[u] & unions[depth])
        if _count(shared) > max_endo:
            continue
        unions[depth + 1] = unions[depth] | places[u]
        endos[depth + 1] = shared
        if depth + 1 == k:
            for i in range(k):
                base[i] = pool[idx[i]]
            if not _coverable(base, unions[k], k, places, kinds, allowed, max_fins, best):
                continue
            out, n_out = _covers(
                base,
                unions[k],
                shared,
                k,
                tables,
                allowed,
                holding,
                family,
                max_fins,
                out,
                n_out,
                kraken,
            )
            continue
        depth += 1
        idx[depth] = idx[depth - 1]
    return out[:n_out]


@njit(cache=True)
def renumbered(cells, unit_cells, peer_cells):
    """Every unit's places and every one of `cells`' peers as masks over the positions of
    `cells` (the cells holding a digit, ascending); peer_cells is padded with -1."""
    number = np.full(unit_cells.max() + 1, -1, np.int64)
    for i in range(cells.shape[0]):
        number[cells[i]] = i
    places = np.zeros(unit_cells.shape[0], np.int64)
    for u in range(unit_cells.shape[0]):
        for c in unit_cells[u]:
            if number[c] >= 0:
                places[u] |= 1 << number[c]
    peers = np.zeros(cells.shape[0], np.int64)
    for i in range(cells.shape[0]):
        for p in peer_cells[cells[i]]:
            if p >= 0 and number[p] >= 0:
                peers[i] |= 1 << number[p]
    return places, peers


@njit(cache=True)
def kraken_hits(fins, bodies, rules):
    """For kraken fish: (fish, cover) of every fish and cover unit whose either-or set (the
    cover's base places, `bodies[fish, cover]`, or one of the fins, `fins[fish]`; both as
    bits of the digit's cells) makes some candidate false whichever of them holds, and
    those candidates: `rules[i]` is what the digit in cell i makes false (64-bit words
    over the candidates). In the order of the fish, then their cover units."""
    n, k = bodies.shape
    width = rules.shape[1]
    found = np.empty((n * k, 2), np.int64)
    hits = np.empty((n * k, width), np.uint64)
    by_fins = np.empty(width, np.uint64)
    hit = np.empty(width, np.uint64)
    m = 0
    for f in range(n):
        by_fins[:] = ~np.uint64(0)
        rest = fins[f]
        while rest:
            i = _lowest(rest)
            rest &= rest - 1
            for w in range(width):
                by_fins[w] &= rules[i, w]
        if not by_fins.any():
            continue
        for c in range(k):
            hit[:] = by_fins
            alive = True
            rest = bodies[f, c]
            while rest and alive:
                i = _lowest(rest)
                rest &= rest - 1
                alive = False
                for w in range(width):
                    hit[w] &= rules[i, w]
                    if hit[w]:
                        alive = True
            if alive:
                found[m, 0] = f
                found[m, 1] = c
                hits[m] = hit
                m += 1
    return found[:m], hits[:m]
