"""The compiled part of solver.logic.se_chains: follow one supposition through SE's rules.

A literal is (cell, digit, on/off), numbered (cell * size + digit) * 2 + on. `follow`
spreads one supposition breadth first, so every literal is reached by a shortest set of
reasons, and records for each reached literal the literals it follows from (its
parents), as Sudoku Explainer does, to count a chain's length as its ancestors.
"""

from __future__ import annotations

import numpy as np
from numba import njit

STATIC, DYNAMIC, PLUS = 0, 1, 2


@njit(cache=True)
def _reach(lit, parents, n_par, at, order, par, npar, count, conflict):
    """Record literal `lit` (with its parents) unless reached; returns the new count,
    writing the first literal reached both ways into conflict[0]."""
    if at[lit] >= 0:
        return count
    at[lit] = count
    order[count] = lit
    for k in range(n_par):
        par[count, k] = parents[k]
    npar[count] = n_par
    if conflict[0] < 0 and at[lit ^ 1] >= 0:
        conflict[0] = lit
    return count + 1


@njit(cache=True)
def follow(
    marks0,
    start,
    mode,
    peers,
    n_peers,
    units,
    cell_units,
    n_cell_units,
    locks,
    at,
    order,
    par,
    npar,
):
    """Spread literal `start` from the pencil marks `marks0` (n_cells, size):

    - on(c, d): off for c's other digits and d in c's peers;
    - off(c, d), STATIC: on for c's other digit when c is bivalue in marks0, and for d's
      other place in a unit where marks0 has two places (SE's forcing chains);
    - off(c, d), DYNAMIC: on for a cell or unit left with one place in the branch (the
      marks as the branch has struck them: SE's dynamic chains);
    - PLUS: when nothing is left to follow, locked candidates in the branch too (SE's
      dynamic chains (+) use basic techniques inside the branch).

    `at` (2 * n_cells * size, all -1 on entry) gets each reached literal's index into
    order / par / npar. Returns (literals reached, the first literal reached both ways
    or -1). A dynamic branch stops at its first contradiction; a static one goes on (it
    is a graph search, and the chains it finds are independent)."""
    n, size = marks0.shape
    cur = marks0.copy()
    parents = np.empty(size + 1, np.int32)
    conflict = np.full(1, -1, np.int32)
    parents[0] = -1
    count = _reach(start, parents, 0, at, order, par, npar, 0, conflict)
    head = 0
    while True:
        while head < count:
            if mode != STATIC and conflict[0] >= 0:
                return count, conflict[0]
            lit = order[head]
            head += 1
            on = lit & 1
            cell = (lit >> 1) // size
            d = (lit >> 1) % size
            parents[0] = lit
            if on:
                for e in range(size):
                    if e != d and (cur[cell, e] if mode != STATIC else marks0[cell, e]):
                        count = _reach(
                            ((cell * size + e) << 1),
                            parents,
                            1,
                            at,
                            order,
                            par,
                            npar,
                            count,
                            conflict,
                        )
                for k in range(n_peers[cell]):
                    p = peers[cell, k]
                    if cur[p, d] if mode != STATIC else marks0[p, d]:
                        count = _reach(
                            ((p * size + d) << 1), parents, 1, at, order, par, npar, count, conflict
                        )
                continue
            cur[cell, d] = False
            if mode == STATIC:
                left, other = 0, -1
                for e in range(size):
                    if marks0[cell, e]:
                        left += 1
                        if e != d:
                            other = e
                if left == 2:
                    count = _reach(
                        ((cell * size + other) << 1) | 1,
                        parents,
                        1,
                        at,
                        order,
                        par,
                        npar,
                        count,
                        conflict,
                    )
                for k in range(n_cell_units[cell]):
                    u = cell_units[cell, k]
                    left, other = 0, -1
                    for j in range(size):
                        q = units[u, j]
                        if marks0[q, d]:
                            left += 1
                            if q != cell:
                                other = q
                    if left == 2:
                        count = _reach(
                            ((other * size + d) << 1) | 1,
                            parents,
                            1,
                            at,
                            order,
                            par,
                            npar,
                            count,
                            conflict,
                        )
                continue
            # dynamic: the cell or a unit left with one place; parents: the branch's offs
            left, other = 0, -1
            for e in range(size):
                if cur[cell, e]:
                    left += 1
                    other = e
            if left == 1 and at[((cell * size + other) << 1) | 1] < 0:
                m = 0
                for e in range(size):
                    if marks0[cell, e] and e != other and at[(cell * size + e) << 1] >= 0:
                        parents[m] = (cell * size + e) << 1
                        m += 1
                count = _reach(
                    ((cell * size + other) << 1) | 1,
                    parents,
                    m,
                    at,
                    order,
                    par,
                    npar,
                    count,
                    conflict,
                )
            for k in range(n_cell_units[cell]):
                u = cell_units[cell, k]
                left, other = 0, -1
                for j in range(size):
                    q = units[u, j]
                    if cur[q, d]:
                        left += 1
                        other = q
                if left == 1 and at[((other * size + d) << 1) | 1] < 0:
                    m = 0
                    for j in range(size):
                        q = units[u, j]
                        seen = q != other and marks0[q, d] and at[(q * size + d) << 1] >= 0
                        if seen and m < size:
                            parents[m] = (q * size + d) << 1
                            m += 1
                    count = _reach(
                        ((other * size + d) << 1) | 1,
                        parents,
                        m,
                        at,
                        order,
                        par,
                        npar,
                        count,
                        conflict,
                    )
        if mode != PLUS or conflict[0] >= 0:
            break
        before = count
        count = _locked(cur, marks0, size, locks, at, order, par, npar, count, conflict, parents)
        if count == before:
            break
    return count, conflict[0]


@njit(cache=True)
def _locked(cur, marks0, size, locks, at, order, par, npar, count, conflict, parents):
    """Locked candidates in the branch: where digit d's places in one unit of a meeting
    pair (locks[p] = shared cells, a's rest, b's rest; -1 padded) all lie in the shared
    cells, the other unit's rest loses d. Parents: the branch's offs of d in that rest."""
    width = locks.shape[2]
    for p in range(locks.shape[0]):
        for d in range(size):
            inside = False
            for j in range(width):
                c = locks[p, 0, j]
                if c >= 0 and cur[c, d]:
                    inside = True
            if not inside:
                continue
            for side in range(1, 3):
                clear = True
                for j in range(width):
                    c = locks[p, side, j]
                    if c >= 0 and cur[c, d]:
                        clear = False
                if not clear:
                    continue
                m = 0
                for j in range(width):
                    c = locks[p, side, j]
                    if c >= 0 and marks0[c, d] and at[(c * size + d) << 1] >= 0 and m < size:
                        parents[m] = (c * size + d) << 1
                        m += 1
                if m == 0:
                    continue  # locked in the puzzle's own marks: not the branch's doing
                for j in range(width):
                    c = locks[p, 3 - side, j]
                    if c >= 0 and cur[c, d] and at[(c * size + d) << 1] < 0:
                        count = _reach(
                            (c * size + d) << 1, parents, m, at, order, par, npar, count, conflict
                        )
                        cur[c, d] = False
    return count


@njit(cache=True)
def ancestors(at, order, par, npar, lits, seen):
    """How many distinct literals the literals `lits` follow from, themselves included
    (SE's chain complexity). `seen` is scratch (len(order), False on entry; left dirty)."""
    stack = np.empty(order.shape[0], np.int32)
    top = 0
    total = 0
    for lit in lits:
        i = at[lit]
        if i >= 0 and not seen[i]:
            seen[i] = True
            stack[top] = i
            top += 1
    while top > 0:
        top -= 1
        i = stack[top]
        total += 1
        for k in range(npar[i]):
            j = at[par[i, k]]
            if j >= 0 and not seen[j]:
                seen[j] = True
                stack[top] = j
                top += 1
    return total
