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


def simple_colouring(grid: Candidates) -> Iterator[Step]:
    sees = grid.layout.sees
    for digit in range(1, grid.geometry.size + 1):
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
            gone = tuple((int(c), digit) for c in np.flatnonzero(trapped) if c not in graph)
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
