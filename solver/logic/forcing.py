"""Bounded forcing chains: the last logical resort before a guess.

Suppose a candidate is true and follow the consequences with singles only (naked and
hidden singles, a bounded number of rounds):

- contradiction: if supposing "r1c1 is 5" empties a cell or a unit, r1c1 is not 5;
- cell forcing: if every candidate of a cell leads to the same placement, it holds;
- unit forcing: if every place for a digit in a unit leads to the same placement, it holds.

Each round applies all singles of the grid together, so strictly these are small forcing
*nets*; the bound (rounds and branch width) keeps the search short enough for a person to
follow the first few links, which the step's text lists. Works on every geometry.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from solver.logic.candidates import Candidates
from solver.logic.step import Step, cell_list

MAX_ROUNDS = 24
MAX_WIDTH = 3
SHOWN_LINKS = 6


def propagate(
    grid: Candidates, rounds: int = MAX_ROUNDS
) -> tuple[list[tuple[int, int]], str | None]:
    """Apply naked and hidden singles to `grid` (in place) until none is left, the grid
    breaks, or `rounds` run out. Returns the placements made, in order, and the reason
    the grid broke (None when it did not). (Adding locked candidates to the branches
    solved no more of top1465 or hardest1106 in our samples and doubled the cost.)"""
    trail: list[tuple[int, int]] = []
    cells = grid.layout.unit_cells
    size = grid.geometry.size
    for _ in range(rounds):
        counts = grid.marks.sum(axis=1)
        places = grid.marks[cells]
        per_digit = places.sum(axis=1)
        filled = (grid.values[cells] != 0).sum(axis=1)
        if ((counts == 0) & (grid.values == 0)).any() or (
            filled + (per_digit > 0).sum(axis=1) < size
        ).any():
            return trail, grid.contradiction()
        found: dict[int, int] = {}
        for cell in np.flatnonzero(counts == 1).tolist():
            found[cell] = int(np.argmax(grid.marks[cell])) + 1
        units, digits = np.nonzero(per_digit == 1)
        for u, d in zip(units.tolist(), digits.tolist(), strict=True):
            cell = int(cells[u][places[u, :, d]][0])
            if found.setdefault(cell, d + 1) != d + 1:
                return trail, f"{grid.name(cell)} would need two digits"
        if not found:
            return trail, None
        for cell, digit in found.items():
            if not grid.marks[cell, digit - 1]:
                return trail, f"{grid.name(cell)} would need {grid.symbol(digit)} twice in a unit"
            grid.place(cell, digit)
            trail.append((cell, digit))
    return trail, grid.contradiction()


def _suppose(grid: Candidates, cell: int, digit: int):
    branch = grid.copy()
    branch.place(cell, digit)
    trail, broken = propagate(branch)
    return branch, [(cell, digit)] + trail, broken


def _trail_text(grid: Candidates, trail) -> str:
    shown = [f"{grid.name(c)}={grid.symbol(d)}" for c, d in trail[:SHOWN_LINKS]]
    more = f" … ({len(trail) - SHOWN_LINKS} more)" if len(trail) > SHOWN_LINKS else ""
    return " → ".join(shown) + more


def _contradiction_step(grid, cell, digit, trail, broken) -> Step:
    sym = grid.symbol(digit)
    return Step(
        "forcing chain (contradiction)",
        f"suppose {grid.name(cell)} is {sym}: singles then give {_trail_text(grid, trail)}, "
        f"and {broken}; so {grid.name(cell)} is not {sym}",
        eliminations=((cell, digit),),
        cells=(cell,),
        digits=(digit,),
    )


def _common_placement(grid: Candidates, branches) -> tuple[int, int] | None:
    """A placement every branch makes that the grid does not have yet."""
    first = branches[0]
    agreed = (grid.values == 0) & (first.values != 0)
    for branch in branches[1:]:
        agreed &= branch.values == first.values
    hits = np.flatnonzero(agreed)
    if not hits.size:
        return None
    cell = int(hits[0])
    return cell, int(first.values[cell])


def _forcing_step(grid, kind, subject, options, branches, trails) -> Step | None:
    common = _common_placement(grid, branches)
    if common is None:
        return None
    cell, digit = common
    sym = grid.symbol(digit)
    cases = "; ".join(
        f"if {grid.name(c)}={grid.symbol(d)}: {_trail_text(grid, t[: t.index((cell, digit)) + 1])}"
        for (c, d), t in zip(options, trails, strict=True)
    )
    return Step(
        f"forcing chain ({kind})",
        f"{subject}; every case leads to {grid.name(cell)}={sym} ({cases}); so "
        f"{grid.name(cell)} must be {sym}",
        placements=((cell, digit),),
        cells=tuple(c for c, _ in options) + (cell,),
        digits=(digit,),
    )


def _alternatives(grid: Candidates, width: int) -> Iterator[tuple[str, str, list]]:
    """Sets of `width` candidates of which exactly one is true: the candidates of a
    cell, and the places of a digit in a unit. Yields (kind, sentence, candidates)."""
    for cell in np.flatnonzero(grid.marks.sum(axis=1) == width).tolist():
        options = [(cell, d) for d in grid.digits_of(cell)]
        digits = ", ".join(grid.symbol(d) for _, d in options)
        yield "cell", f"{grid.name(cell)} is one of {digits}", options
    cells = grid.layout.unit_cells
    places = grid.marks[cells]
    units, digits = np.nonzero(places.sum(axis=1) == width)
    for u, d in zip(units.tolist(), digits.tolist(), strict=True):
        spots = [int(c) for c in cells[u][places[u, :, d]]]
        subject = f"{grid.unit_name(u)} puts {grid.symbol(d + 1)} in {cell_list(grid, spots)}"
        yield "unit", subject, [(c, d + 1) for c in spots]


def _consequence(grid: Candidates, kind: str, subject: str, options) -> Step | None:
    """Suppose each alternative in turn: a contradiction removes it; a placement that
    every alternative leads to is made."""
    results = [_suppose(grid, c, d) for c, d in options]
    for (c, d), (_, trail, broken) in zip(options, results, strict=True):
        if broken:
            return _contradiction_step(grid, c, d, trail, broken)
    branches = [branch for branch, _, _ in results]
    trails = [trail for _, trail, _ in results]
    return _forcing_step(grid, kind, subject, options, branches, trails)


def forcing_chains(grid: Candidates) -> Iterator[Step]:
    for width in range(2, MAX_WIDTH + 1):
        for kind, subject, options in _alternatives(grid, width):
            step = _consequence(grid, kind, subject, options)
            if step is not None:
                yield step
                return
