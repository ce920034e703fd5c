"""Sudoku Explainer's chains, to rate a step the way SE does above 7.0.

SE's scale from 7.0 up is its hierarchy of chains, each tried only when the ones below
find nothing, the shortest hint of a kind taken first:

- forcing chain, 7.0: a static chain from a supposition back to its own negation ("if
  r1c1 is 5 then ... r1c1 is not 5"), following only bivalue cells and two-place units
  of the current marks;
- multiple forcing chains, 8.0: static chains from both values of a candidate (double
  or contradiction), from every candidate of a cell or every place of a digit in a unit,
  to one conclusion;
- dynamic forcing chains, 8.5: the same, but each branch strikes marks as it goes and
  finds singles among what is left;
- dynamic forcing chains (+), 9.0: the branches use locked candidates too (SE's "+" uses
  a few more basic techniques; locked candidates are the ones a branch meets most).

Each adds SE's length increment for the chain's complexity: the distinct literals the
conclusion follows from, over every branch. Where none of them works, the rating reads
SE's nested chains off a measured proxy (see `nested_rating`).

>>> from solver.grid import parse
>>> from solver.logic.candidates import Candidates
>>> p = parse("........97..1.24...16....3.1....5.8...5.4.6...7.3....4.2...874...36.1..88........")
>>> grid = Candidates.from_values(p.geometry, p.values)
>>> hint = easiest_chain(grid, DYNAMIC)
>>> hint is not None and 8.5 <= hint.rating < 9.0
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.fast import tables_for
from solver.geometry import per_geometry
from solver.logic.candidates import Candidates
from solver.logic.rating import length_increment
from solver.logic.se_chain_kernel import DYNAMIC, PLUS, STATIC, ancestors, follow

__all__ = ["DYNAMIC", "PLUS", "STATIC", "ChainHint", "easiest_chain", "LEVELS"]

# (base rating of a unary chain, base rating of a multiple one) per kind of branch
BASE = {STATIC: (7.0, 8.0), DYNAMIC: (8.5, 8.5), PLUS: (9.0, 9.0)}
LEVELS = (STATIC, DYNAMIC, PLUS)


@dataclass(frozen=True)
class ChainHint:
    rating: float
    kind: str  # "forcing chain", "contradiction", "double", "cell", "unit"
    placements: tuple[tuple[int, int], ...] = ()
    eliminations: tuple[tuple[int, int], ...] = ()


@per_geometry
def _locks(geometry) -> np.ndarray:
    """(pairs, 3, width): for every two units meeting in 2+ cells, the shared cells and
    each unit's other cells, -1 padded (locked candidates inside a branch)."""
    sets = [frozenset(u) for u in geometry.units]
    rows = []
    for i, a in enumerate(sets):
        for b in sets[i + 1 :]:
            if len(a & b) >= 2:
                rows.append((sorted(a & b), sorted(a - b), sorted(b - a)))
    width = max([len(x) for r in rows for x in r] + [1])
    table = np.full((max(len(rows), 1), 3, width), -1, dtype=np.int32)
    for p, parts in enumerate(rows):
        for k, cells in enumerate(parts):
            table[p, k, : len(cells)] = cells
    return table[: len(rows)] if rows else table[:0]


class Branches:
    """Every supposition of a state followed once, kept for the hints to combine."""

    def __init__(self, grid: Candidates, mode: int):
        self.grid, self.mode = grid, mode
        self.marks = np.ascontiguousarray(grid.marks)
        n, self.size = self.marks.shape
        self.n_lits = 2 * n * self.size
        t = tables_for(grid.geometry)
        self.tables = (t.peers, t.n_peers, t.units, t.cell_units, t.n_cell_units)
        self.locks = _locks(grid.geometry)
        self.found: dict[int, tuple] = {}

    def of(self, lit: int) -> tuple:
        """(at, order, par, npar, conflict) of the branch supposing `lit`."""
        if lit not in self.found:
            at = np.full(self.n_lits, -1, np.int32)
            order = np.empty(self.n_lits, np.int32)
            par = np.empty((self.n_lits, self.size + 1), np.int32)
            npar = np.empty(self.n_lits, np.int32)
            count, conflict = follow(
                self.marks, lit, self.mode, *self.tables, self.locks, at, order, par, npar
            )
            self.found[lit] = (at, order[:count], par, npar, conflict)
        return self.found[lit]

    def reached(self, lit: int) -> np.ndarray:
        return self.of(lit)[0] >= 0

    def length(self, lit: int, targets) -> int:
        at, order, par, npar, _ = self.of(lit)
        return ancestors(
            at, order, par, npar, np.asarray(targets, np.int32), np.zeros(len(order), np.bool_)
        )


def _lit(cell: int, digit0: int, on: bool, size: int) -> int:
    return ((cell * size + digit0) << 1) | int(on)


def _useful(grid: Candidates, lit: int) -> bool:
    """Whether concluding `lit` changes the grid."""
    size = grid.geometry.size
    cell, d = divmod(lit >> 1, size)
    return bool(grid.marks[cell, d]) and (not (lit & 1) or grid.values[cell] == 0)


def _hint(grid, rating, kind, lit) -> ChainHint:
    size = grid.geometry.size
    cell, d = divmod(lit >> 1, size)
    if lit & 1:
        return ChainHint(round(rating, 1), kind, placements=((cell, d + 1),))
    return ChainHint(round(rating, 1), kind, eliminations=((cell, d + 1),))


def _candidates(grid: Candidates) -> list[tuple[int, int]]:
    cells, digits = np.nonzero(grid.marks)
    return list(zip(cells.tolist(), digits.tolist(), strict=True))


def unary_hints(b: Branches):
    """SE's forcing chains (static, one branch): a supposition that reaches its own
    negation."""
    size, base = b.size, BASE[b.mode][0]
    for cell, d in _candidates(b.grid):
        for on in (True, False):
            lit = _lit(cell, d, on, size)
            if b.of(lit)[0][lit ^ 1] >= 0:
                rating = base + length_increment(b.length(lit, [lit ^ 1]))
                yield _hint(b.grid, rating, "forcing chain", lit ^ 1)


def multiple_hints(b: Branches):
    """Contradiction, double, cell and unit forcing chains over the branches `b` holds."""
    grid, size, base = b.grid, b.size, BASE[b.mode][1]
    cands = _candidates(grid)
    for cell, d in cands:
        on, off = _lit(cell, d, True, size), _lit(cell, d, False, size)
        for start in (on, off):
            conflict = b.of(start)[4]
            if conflict >= 0 and _useful(grid, start ^ 1):
                rating = base + length_increment(b.length(start, [conflict, conflict ^ 1]))
                yield _hint(grid, rating, "contradiction", start ^ 1)
        if b.of(on)[4] < 0 and b.of(off)[4] < 0:
            yield from _common(b, [on, off], "double")
    by_cell: dict[int, list[int]] = {}
    for cell, d in cands:
        by_cell.setdefault(cell, []).append(_lit(cell, d, True, size))
    for lits in by_cell.values():
        if len(lits) > 1:
            yield from _common(b, lits, "cell")
    for unit in grid.layout.unit_cells:
        for d in range(size):
            places = [int(c) for c in unit if grid.marks[c, d]]
            if len(places) > 1:
                yield from _common(b, [_lit(c, d, True, size) for c in places], "unit")


def _common(b: Branches, starts: list[int], kind: str):
    """The literals every branch of `starts` reaches (a branch that breaks reaches all)."""
    live = [s for s in starts if b.of(s)[4] < 0]
    if not live:
        return
    common = np.logical_and.reduce([b.reached(s) for s in live])
    for s in starts:
        common[s] = common[s ^ 1] = False
    base = BASE[b.mode][1]
    for lit in np.flatnonzero(common).tolist():
        if _useful(b.grid, lit):
            total = 0
            for s in starts:
                conflict = b.of(s)[4]
                total += b.length(s, [lit] if conflict < 0 else [conflict, conflict ^ 1])
            yield _hint(b.grid, base + length_increment(total), kind, lit)


def easiest_chain(grid: Candidates, mode: int) -> ChainHint | None:
    """SE's easiest chain hint of one kind of branch (STATIC: forcing chains, then
    multiple forcing chains; DYNAMIC; PLUS), or None when that kind finds nothing."""
    b = Branches(grid, mode)
    hints = list(unary_hints(b)) if mode == STATIC else []
    if not hints:
        hints = list(multiple_hints(b))
    return min(hints, key=lambda h: h.rating, default=None)


# -- nested chains: a measured proxy -------------------------------------------------------
#
# SE's nested forcing chains follow a supposition with chains inside its branch: static
# forcing chains (9.5), multiple (10.0), dynamic (10.5), dynamic (+) (11.0), each with the
# length increment of everything the conclusion rests on (nested chains are long: SE's
# figures run 0.5 to 1.0 above the base). Following every inner chain of every branch as
# SE does costs seconds a state; the proxy below asks the same question more cheaply, at
# the first state where SE's lower chains find nothing: is there a candidate whose
# branch (singles) breaks once the inner chains of one kind (static, then dynamic) strike
# what they can in it? The kind that first refutes one gives the base, the size of the
# smallest refutation its increment.

NESTED = ((STATIC, 9.5), (DYNAMIC, 10.5))
BEYOND = 11.5  # placed: no refutation of either kind; SE's hardest run 11.0 to 11.9
TOP = 11.9  # SE's highest rating of any known puzzle: the proxy's increments stop there
INNER_ROUNDS = 6


def _inner_conclusions(branch: Candidates, mode: int) -> tuple[list, list, int]:
    """What chains of `mode` conclude in a branch (STATIC: a supposition that reaches its
    negation; DYNAMIC: one that breaks the branch): (placements, eliminations, their
    total complexity)."""
    b = Branches(branch, mode)
    size, placed, gone, total = b.size, [], [], 0
    for cell, d in _candidates(branch):
        for on in (True, False):
            lit = _lit(cell, d, on, size)
            at, _, _, _, conflict = b.of(lit)
            if mode == STATIC and at[lit ^ 1] >= 0:
                total += b.length(lit, [lit ^ 1])
            elif mode != STATIC and conflict >= 0:
                total += b.length(lit, [conflict, conflict ^ 1])
            else:
                continue
            (gone if on else placed).append((cell, d + 1))
    return placed, gone, total


def _refuted(grid: Candidates, cell: int, digit: int, mode: int) -> int | None:
    """The complexity of refuting (cell, digit) with inner chains of `mode` in its
    branch, or None when they cannot."""
    from solver.logic.forcing import propagate

    branch = grid.copy()
    branch.place(cell, digit)
    trail, broken = propagate(branch)
    total = 1 + len(trail)
    for _ in range(INNER_ROUNDS):
        if broken:
            return total
        placed, gone, length = _inner_conclusions(branch, mode)
        if not placed and not gone:
            return None
        for c, d in gone:
            branch.eliminate(c, d)
        for c, d in placed:
            if branch.values[c] == 0:
                if not branch.marks[c, d - 1]:
                    return total + length  # the branch needs a digit it has struck
                branch.place(c, d)
        trail, broken = propagate(branch)
        total += length + len(trail)
    return total if broken else None


def nested_rating(grid: Candidates) -> float:
    """SE's nested chains' rating for a state no lower chain of SE's can move: the base of
    the first inner kind that refutes a candidate, plus the length increment of the
    shortest refutation, at most TOP (BEYOND when neither kind refutes any)."""
    for mode, base in NESTED:
        found = [_refuted(grid, c, d + 1, mode) for c, d in _candidates(grid)]
        found = [f for f in found if f is not None]
        if found:
            return round(min(base + length_increment(min(found)), TOP), 1)
    return BEYOND
