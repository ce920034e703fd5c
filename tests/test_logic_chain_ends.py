"""The chain ends picked out compiled (`reach_kernel.chain_ends`) are those a plain reading
of the whole level matrix gives, in the same order."""

from __future__ import annotations

import numpy as np

from solver.grid import parse
from solver.logic import aic
from solver.logic.explain import explain


def plain_ends(grid, r) -> list[tuple]:
    """Types 1 and 2 read off dist[s false, t true] pair by pair, s then t ascending."""
    nodes = r.graph.nodes
    n = len(nodes)
    levels = r.dist[n:, :n]
    sees, marks = grid.layout.sees, grid.marks
    peers = [set(np.flatnonzero(sees[c]).tolist()) for c in range(grid.geometry.n_cells)]
    ends, others = [], []
    for s, t in zip(*np.nonzero(levels >= 3), strict=True):
        (cs, x), (ct, y) = nodes[s], nodes[t]
        level = int(levels[s, t])
        if x == y and s != t:
            seen = set.intersection(*(peers[c] for c in cs + ct))
            gone = tuple((c, x) for c in sorted(seen) if marks[c, x - 1])
            if gone:
                ends.append((level, n + int(s), int(t), (), gone, "ends"))
        elif x != y and len(cs) == len(ct) == 1:
            a, b = cs[0], ct[0]
            if a == b and marks[a].sum() > 2:
                gone = tuple((a, e) for e in grid.digits_of(a) if e not in (x, y))
            elif a != b and sees[a, b]:
                gone = tuple(p for p in ((a, y), (b, x)) if marks[p[0], p[1] - 1])
            else:
                gone = ()
            if gone:
                others.append((level, n + int(s), int(t), (), gone, "ends2"))
    return ends + others


def test_compiled_chain_ends_match_the_level_matrix():
    e = explain(
        parse("4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"),
        keep_snapshots=True,
    )
    checked = 0
    for grid in e.snapshots[::6]:
        for options in ({}, aic.GROUPED):
            r = aic.reach(aic.build_graph(grid, **options))
            found = aic._chain_ends(grid, r)
            assert found == plain_ends(grid, r)
            checked += len(found)
    assert checked
