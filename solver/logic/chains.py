"""Chains of strong and weak links between candidates.

A *strong link* joins two candidates of which at least one is true: the two places of a
digit in a unit where it has exactly two (a conjugate pair), or the two digits of a
two-candidate cell. A *weak link* joins two candidates that cannot both be true: the same
digit in two cells that see each other, or two digits of one cell.

- simple colouring: for one digit, colour the conjugate pairs alternately. If two cells of
  one colour see each other, that colour is false everywhere ("colour wrap"); a cell that
  sees both colours cannot hold the digit ("colour trap").
- (the shortest X-chains, two strong links joined by a weak one, are the skyscraper,
  two-string kite and turbot fish of `single_digit.py`).
- X-chain: one digit, links alternate strong, weak, strong ... ending strong. One end or
  the other is the digit, so a cell seeing both ends cannot be.
- XY-chain: two-candidate cells joined cell to cell by a shared digit; the same rule.

Chains are searched breadth first from every start, so the shortest chain is shown. Every
link is a sound implication, so whatever path the search returns is a sound argument.
They use only "sees" and units, so they work on every geometry.
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


def _search(
    grid: Candidates, strong, weak, starts, max_links: int = MAX_LINKS
) -> Iterator[tuple[list[tuple[int, int]], tuple]]:
    """Shortest alternating chains (strong first, strong last) from each start, with the
    eliminations its two ends allow. Nodes are (cell, digit); a chain is a node list."""
    sees = grid.layout.sees
    marks = grid.marks
    for start in starts:
        # state: (node, on) where on=True means "reached by a strong link: true"
        parent = {(start, False): None}
        queue = deque([((start, False), 0)])
        while queue:
            state, depth = queue.popleft()
            node, on = state
            if on and depth >= 3 and node[1] == start[1] and node[0] != start[0]:
                digit = node[1]
                both = sees[start[0]] & sees[node[0]] & marks[:, digit - 1]
                gone = tuple((int(c), digit) for c in np.flatnonzero(both))
                if gone:
                    chain = []
                    while state is not None:
                        chain.append(state[0])
                        state = parent[state]
                    yield chain[::-1], gone
                    break
            if depth >= max_links:
                continue
            for nxt in (weak if on else strong).get(node, ()):
                key = (nxt, not on)
                if key not in parent:
                    parent[key] = state
                    queue.append((key, depth + 1))


def _chain_text(grid: Candidates, chain) -> str:
    """ "r1c1 5 = r1c7 5 - r4c7 5 = r4c2 5": = strong, - weak, alternating from strong."""
    parts = [f"{grid.name(chain[0][0])}({grid.symbol(chain[0][1])})"]
    for i, (cell, digit) in enumerate(chain[1:]):
        parts.append(("=" if i % 2 == 0 else "-") + f" {grid.name(cell)}({grid.symbol(digit)})")
    return " ".join(parts)


def _distinct(found):
    """Chains shortest first, one per set of eliminations (the shortest that makes it)."""
    seen = set()
    for chain, gone in sorted(found, key=lambda item: len(item[0])):
        if frozenset(gone) not in seen:
            seen.add(frozenset(gone))
            yield chain, gone


def x_chains(grid: Candidates, max_links: int = MAX_LINKS, name: str = "X-chain") -> Iterator[Step]:
    """X-chains up to `max_links` links; with 3 links players call the pattern a turbot
    fish (skyscraper and two-string kite are its shapes)."""
    sees = grid.layout.sees
    for digit in range(1, grid.geometry.size + 1):
        conj = _conjugate_graph(grid, digit)
        if len(conj) < 4:
            continue
        cells = np.flatnonzero(grid.marks[:, digit - 1]).tolist()
        strong = {(a, digit): [(b, digit) for b in conj[a]] for a in conj}
        weak = {(a, digit): [(b, digit) for b in cells if sees[a, b]] for a in cells}
        for chain, gone in _distinct(_search(grid, strong, weak, sorted(strong), max_links)):
            a, b = chain[0][0], chain[-1][0]
            sym = grid.symbol(digit)
            yield Step(
                name,
                f"{name} on {sym}: {_chain_text(grid, chain)} (= a unit's only two "
                f"places for {sym}, - cells that see each other); {grid.name(a)} or "
                f"{grid.name(b)} is {sym}, so a cell seeing both cannot be: "
                f"{elimination_text(grid, gone)}",
                eliminations=gone,
                cells=tuple(c for c, _ in chain),
                digits=(digit,),
            )


def xy_chains(grid: Candidates) -> Iterator[Step]:
    sees = grid.layout.sees
    pairs = [int(c) for c in np.flatnonzero(grid.marks.sum(axis=1) == 2)]
    if len(pairs) < 3:
        return
    strong, weak = {}, {}
    for c in pairs:
        x, y = grid.digits_of(c)
        strong[(c, x)] = [(c, y)]
        strong[(c, y)] = [(c, x)]
    for c, d in strong:
        weak[(c, d)] = [(o, d) for o in pairs if o != c and sees[c, o] and grid.marks[o, d - 1]]
    for chain, gone in _distinct(_search(grid, strong, weak, sorted(strong))):
        a, b, digit = chain[0][0], chain[-1][0], chain[0][1]
        sym = grid.symbol(digit)
        yield Step(
            "XY-chain",
            f"XY-chain: {_chain_text(grid, chain)} (= the two digits of one cell, - the "
            f"same digit in cells that see each other); {grid.name(a)} or {grid.name(b)} is "
            f"{sym}, so a cell seeing both cannot be: {elimination_text(grid, gone)}",
            eliminations=gone,
            cells=tuple(dict.fromkeys(c for c, _ in chain)),
            digits=(digit,),
        )
