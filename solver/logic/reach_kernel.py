"""The chain graph's weak links on a digit and the chain search's levels, compiled (numba,
`cache=True`).

`seeing_pairs` tests every two nodes of a digit for a weak link (disjoint, every cell of
the one seeing every cell of the other) on their 64-bit cell words: in numpy each digit's
pairs were a few whole-matrix operations, whose set-up cost more than the tests.

`aic.reach` finds the shortest alternating walk between every two literals at once: row t
of a bit-packed matrix holds the literals whose walks of the current length end at t, and
one level ORs the rows along every literal edge. In numpy a level gathered a copy of the
source row of every edge before ORing them together (a few MB a level on the grouped
graph); compiled, each edge's row is ORed straight into its target's, and the new pairs,
the seen pairs and the level's bit planes are written in the same pass.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def disjoint_and_seeing(a, a_seen, b, b_seen):
    """Whether cell sets a and b (rows of 64-bit words) share no cell and every cell of
    each sees every cell of the other, given the cells seeing all of a (`a_seen`) and all
    of b: the weak link between two chain nodes, and the restricted common between two
    almost locked sets' places for a digit."""
    clash = a[0] & 0  # of the words' type
    for w in range(a.shape[0]):  # two words on 9x9: no early exit needed
        # a shared cell, or a cell of one not seeing all of the other
        clash |= (a[w] & (b[w] | ~b_seen[w])) | (~a_seen[w] & b[w])
    return clash == 0


@njit(cache=True)
def search_levels(frontier, src, first, targets, planes, max_links):
    """Run the levels from `frontier` (walks of length 0: each literal itself) until no
    pair is new or `max_links` is reached; each pair's first level is written in binary
    across `planes` (plane b holds bit b). Edges are grouped by target: those of
    targets[k] are src[first[k]:first[k + 1]]. Returns the deepest level with new pairs."""
    m, width = frontier.shape
    seen = np.zeros_like(frontier)
    nxt = np.zeros_like(frontier)
    rows = len(first)
    deepest = 0
    for level in range(1, max_links + 1):
        nxt[:] = 0
        for k in range(rows):
            stop = first[k + 1] if k + 1 < rows else len(src)
            t = targets[k]
            for e in range(first[k], stop):
                s = src[e]
                for w in range(width):
                    nxt[t, w] |= frontier[s, w]
        found = False
        for i in range(m):
            for w in range(width):
                new = nxt[i, w] & ~seen[i, w]
                if new:
                    found = True
                    seen[i, w] |= new
                    for b in range(planes.shape[0]):
                        if level >> b & 1:
                            planes[b, i, w] |= new
        if not found:
            break
        deepest = level
        frontier, nxt = nxt, frontier
    return deepest


@njit(cache=True)
def seeing_pairs(member, seen, digits, order):
    """(x, y), x < y, of every two nodes on the same digit that share no cell and whose
    cells all see each other: digit by digit in `order`, then x, then y ascending.
    `member` and `seen` are each node's cells and the cells seeing all of them (rows of
    64-bit words), `digits` each node's digit."""
    n = member.shape[0]
    count = np.zeros(digits.max() + 1 if n else 1, np.int64)
    for x in range(n):
        count[digits[x]] += 1
    total = 0
    for d in order:
        total += count[d] * (count[d] - 1) // 2
    out = np.empty((total, 2), np.int64)
    n_out = 0
    ids = np.empty(n, np.int64)
    for d in order:
        m = 0
        for x in range(n):
            if digits[x] == d:
                ids[m] = x
                m += 1
        for i in range(m):
            x = ids[i]
            for j in range(i + 1, m):
                y = ids[j]
                if disjoint_and_seeing(member[x], seen[x], member[y], seen[y]):
                    out[n_out, 0] = x
                    out[n_out, 1] = y
                    n_out += 1
    return out[:n_out]
