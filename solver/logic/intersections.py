"""Locked candidates: a digit confined to where two units overlap.

If every place for digit d in unit A lies inside unit B, then d sits in A∩B, so no other
cell of B can hold it. With A a box and B a row or column players call it *pointing*; with
A a line and B a box, *claiming*. Stated over any two units it also covers diagonals and
the shared boxes of the clover.

All ordered unit pairs are tested at once: the three parts (A∖B, A∩B, B∖A) of every pair
are padded index arrays into the marks with one extra all-False row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.geometry import Geometry
from solver.logic.candidates import Candidates, per_geometry
from solver.logic.step import Step, cell_list, elimination_text


@dataclass(frozen=True)
class UnitPairs:
    first: np.ndarray  # (P,) unit A
    second: np.ndarray  # (P,) unit B
    only_first: np.ndarray  # (P, k) cells of A∖B, padded with n_cells
    shared: np.ndarray  # (P, k)
    only_second: np.ndarray  # (P, k)


def _padded(rows: list[list[int]], pad: int) -> np.ndarray:
    width = max(1, max(len(r) for r in rows))
    return np.array([r + [pad] * (width - len(r)) for r in rows], dtype=np.intp)


@per_geometry
def unit_pairs(geometry: Geometry) -> UnitPairs:
    """Ordered pairs of units sharing at least two cells (one shared cell is a single)."""
    sets = [set(u) for u in geometry.units]
    pairs = [
        (a, b)
        for a in range(len(sets))
        for b in range(len(sets))
        if a != b and len(sets[a] & sets[b]) >= 2 and sets[a] != sets[b]
    ]
    pad = geometry.n_cells
    return UnitPairs(
        np.array([a for a, _ in pairs], dtype=np.intp),
        np.array([b for _, b in pairs], dtype=np.intp),
        _padded([sorted(sets[a] - sets[b]) for a, b in pairs], pad),
        _padded([sorted(sets[a] & sets[b]) for a, b in pairs], pad),
        _padded([sorted(sets[b] - sets[a]) for a, b in pairs], pad),
    )


def _name(grid: Candidates, a: int, b: int) -> str:
    kinds = grid.layout.kind
    if kinds[a] == "box" and kinds[b] in ("row", "column"):
        return "locked candidates (pointing)"
    if kinds[a] in ("row", "column") and kinds[b] == "box":
        return "locked candidates (claiming)"
    return "locked candidates"


def locked_eliminations(grid: Candidates) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (unit pair, digit) where the digit is locked: arrays (pair index, digit
    index, victims mask (hits, k) over `only_second`)."""
    pairs = unit_pairs(grid.geometry)
    if not len(pairs.first):
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, np.zeros((0, 0), dtype=bool)
    marks = np.vstack([grid.marks, np.zeros((1, grid.geometry.size), dtype=bool)])
    outside = marks[pairs.only_first].any(axis=1)
    inside = marks[pairs.shared].any(axis=1)
    victims = marks[pairs.only_second]  # (P, k, size)
    p, d = np.nonzero(~outside & inside & victims.any(axis=1))
    return p, d, victims[p, :, d]


def locked_candidates(grid: Candidates) -> list[Step]:
    pairs = unit_pairs(grid.geometry)
    found_pairs, found_digits, _ = locked_eliminations(grid)
    n = grid.geometry.n_cells
    marks = grid.marks
    steps = []
    for p, d in zip(found_pairs.tolist(), found_digits.tolist(), strict=True):
        a, b, digit = int(pairs.first[p]), int(pairs.second[p]), d + 1
        shared = [int(c) for c in pairs.shared[p] if c < n and marks[c, d]]
        gone = tuple((int(c), digit) for c in pairs.only_second[p] if c < n and marks[c, d])
        sym = grid.symbol(digit)
        steps.append(
            Step(
                _name(grid, a, b),
                f"in {grid.unit_name(a)}, {sym} can only go in {cell_list(grid, shared)}, which "
                f"lie in {grid.unit_name(b)}; so the rest of {grid.unit_name(b)} cannot hold "
                f"{sym}: {elimination_text(grid, gone)}",
                eliminations=gone,
                cells=tuple(shared),
                units=(a, b),
                digits=(digit,),
            )
        )
    return steps
