"""Colouring: the conjugate pairs of one digit coloured alternately.

A *conjugate pair* is a unit where a digit has exactly two places: one of them holds it.
Colour the cells joined by such pairs alternately; one colour is the digit everywhere.

- colour wrap: two cells of one colour see each other, so that colour is false everywhere;
- colour trap: a cell that sees both colours cannot hold the digit.

(X-chains, XY-chains, AICs and nice loops are searched together as one alternating
inference graph in `aic.py`; the shortest X-chains are the named patterns of
`single_digit.py`.) Colouring uses only "sees" and units, so it works on every geometry.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import numpy as np

from solver.logic.candidates import Candidates
from solver.logic.memo import Memo, by_digit
from solver.logic.step import Step, cell_list, elimination_text
from solver.logic.wings import strong_links

MAX_LINKS = 13


def _conjugate_graph(grid: Candidates, digit: int) -> dict[int, list[int]]:
    graph: dict[int, list[int]] = {}
    for _, a, b in strong_links(grid, digit):
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, []).append(a)
    return graph


def _colourings(graph: dict[int, list[int]]) -> Iterator[tuple[list[int], list[int]]]:
    """Connected components of the conjugate graph, each as its two colour classes."""
    colour: dict[int, int] = {}
    for start in graph:
        if start in colour:
            continue
        colour[start] = 0
        classes: tuple[list[int], list[int]] = ([start], [])
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            for other in graph[cell]:
                if other not in colour:
                    colour[other] = 1 - colour[cell]
                    classes[colour[other]].append(other)
                    queue.append(other)
        yield classes


# Colourings are of one digit each: each digit's steps are remembered by its places.
_BY_DIGIT = Memo(limit=2_000)


def simple_colouring(grid: Candidates) -> Iterator[Step]:
    return by_digit(_BY_DIGIT, grid, "simple colouring", _simple_colouring)


def _simple_colouring(grid: Candidates, digit: int) -> Iterator[Step]:
    sees = grid.layout.sees
    graph = _conjugate_graph(grid, digit)
    sym = grid.symbol(digit)
    for on, off in _colourings(graph):
        if len(on) + len(off) < 3:
            continue
        for same, other in ((on, off), (off, on)):
            clash = [(a, b) for i, a in enumerate(same) for b in same[i + 1 :] if sees[a, b]]
            if clash:
                a, b = clash[0]
                gone = tuple((c, digit) for c in same)
                yield Step(
                    "simple colouring",
                    f"colour wrap on {sym}: colouring the cells joined by pairs of "
                    f"{sym} alternately, {grid.name(a)} and {grid.name(b)} get the same "
                    f"colour but see each other, so that colour is false: "
                    f"{elimination_text(grid, gone)}",
                    eliminations=gone,
                    cells=tuple(same + other),
                    digits=(digit,),
                )
                break
        seen_on = sees[on].any(axis=0)
        seen_off = sees[off].any(axis=0)
        trapped = seen_on & seen_off & grid.marks[:, digit - 1]
        # a cell of another cluster can be trapped too: only this one's are spared
        cluster = set(on) | set(off)
        gone = tuple((int(c), digit) for c in np.flatnonzero(trapped) if c not in cluster)
        if gone:
            yield Step(
                "simple colouring",
                f"colour trap on {sym}: colouring the cells joined by pairs of {sym} "
                f"alternately ({cell_list(grid, on)} against {cell_list(grid, off)}), one "
                f"colour is true; a cell seeing both colours cannot be {sym}: "
                f"{elimination_text(grid, gone)}",
                eliminations=gone,
                cells=tuple(on + off),
                digits=(digit,),
            )


def multi_colours(grid: Candidates) -> Iterator[Step]:
    """Two clusters of one digit, colours a/a' and b/b'.

    - type 1: a cell of a sees a cell of b, so a and b are not both true: a' or b' is,
      and a cell seeing both a' and b' cannot hold the digit (one step per pair of
      clusters, with the eliminations of every such a and b, as HoDoKu gives it);
    - type 2: a cell of a sees a cell of b and one of b' (either b or b' is true), so a is
      false: the digit leaves every cell of a.
    """
    return by_digit(_BY_DIGIT, grid, "multi-colours", _multi_colours)


def _multi_colours(grid: Candidates, digit: int) -> Iterator[Step]:
    sees = grid.layout.sees
    clusters = list(_colourings(_conjugate_graph(grid, digit)))
    sym = grid.symbol(digit)
    column = grid.marks[:, digit - 1]
    for i, first in enumerate(clusters):
        for j, second in enumerate(clusters):
            if i == j:
                continue
            for a in first:
                seen_a = sees[a].any(axis=0)
                if seen_a[second[0]].any() and seen_a[second[1]].any():
                    gone = tuple((c, digit) for c in a)
                    yield Step(
                        "multi-colours",
                        f"multi-colours (type 2) on {sym}: {cell_list(grid, a)} (one "
                        f"colour of a cluster of conjugate pairs) see both colours of "
                        f"another ({cell_list(grid, second[0])} against "
                        f"{cell_list(grid, second[1])}), one of which is true, so their "
                        f"colour is false: {elimination_text(grid, gone)}",
                        eliminations=gone,
                        cells=tuple(a + second[0] + second[1]),
                        digits=(digit,),
                    )
            if j > i:
                yield from _multi_colours_1(grid, digit, column, first, second)


def _multi_colours_1(grid, digit, column, first, second) -> Iterator[Step]:
    sees = grid.layout.sees
    gone: set[tuple[int, int]] = set()
    why = []
    for a, a_other in (first, first[::-1]):
        seen_a = sees[a].any(axis=0)
        for b, b_other in (second, second[::-1]):
            if not seen_a[b].any():
                continue
            trapped = sees[a_other].any(axis=0) & sees[b_other].any(axis=0) & column
            trapped[a_other + b_other] = False
            if trapped.any():
                gone |= {(int(c), digit) for c in np.flatnonzero(trapped)}
                why.append(
                    f"{cell_list(grid, a)} see {cell_list(grid, b)}, so {cell_list(grid, a_other)}"
                    f" or {cell_list(grid, b_other)} hold it"
                )
    if gone:
        gone_t = tuple(sorted(gone))
        yield Step(
            "multi-colours",
            f"multi-colours (type 1) on {grid.symbol(digit)}: two clusters of conjugate pairs, "
            f"each coloured alternately; {'; '.join(why)}; a cell seeing both cannot: "
            f"{elimination_text(grid, gone_t)}",
            eliminations=gone_t,
            cells=tuple(first[0] + first[1] + second[0] + second[1]),
            digits=(digit,),
        )


def remote_pairs(grid: Candidates) -> Iterator[Step]:
    """Cells holding the same two digits, each seeing the next: along the chain they
    alternate, so two cells an odd number of links apart hold both digits between them,
    and a cell seeing both cannot hold either. Every chain of four or more cells (shorter
    ones are naked pairs and XY-wings); one step per cluster."""
    sees = grid.layout.sees
    counts = grid.marks.sum(axis=1)
    pairs: dict[tuple[int, ...], list[int]] = {}
    for c in np.flatnonzero(counts == 2).tolist():
        pairs.setdefault(tuple(grid.digits_of(c)), []).append(c)
    for digits, cells in pairs.items():
        if len(cells) < 4:
            continue
        graph = {c: [d for d in cells if d != c and sees[c, d]] for c in cells}
        for on, off in _colourings(graph):
            if len(on) + len(off) < 4:
                continue
            gone = []
            for c in np.flatnonzero(sees[on].any(axis=0) & sees[off].any(axis=0)).tolist():
                if c in graph:
                    continue
                # two cells of opposite colours, not a pair of neighbours: at least three
                # links apart (two neighbours are a naked pair, found earlier)
                far = any(not sees[u, v] for u in on if sees[c, u] for v in off if sees[c, v])
                if far:
                    gone += [(c, d) for d in digits if grid.has(c, d)]
            if gone:
                gone_t = tuple(gone)
                pair = "".join(grid.symbol(d) for d in digits)
                yield Step(
                    "remote pair",
                    f"remote pair {pair}: {cell_list(grid, on + off)} all hold {pair} and "
                    f"form a chain, so {cell_list(grid, on)} are one digit and "
                    f"{cell_list(grid, off)} the other; a cell seeing cells of both kinds "
                    f"cannot hold either: {elimination_text(grid, gone_t)}",
                    eliminations=gone_t,
                    cells=tuple(on + off),
                    digits=digits,
                )
