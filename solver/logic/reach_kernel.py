"""The chain search's levels, compiled (numba, `cache=True`).

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
