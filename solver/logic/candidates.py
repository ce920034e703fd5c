"""The candidate grid: which digits each empty cell may still hold.

A person solving by logic keeps pencil marks; every technique in `solver.logic` reads
them and proposes placements or eliminations. The grid works on any `Geometry` (n²×n²,
rectangular boxes, diagonal, clover) because it only ever asks for units and peers.

`marks` is a boolean array (n_cells, size): marks[cell, d - 1] is True while digit d is
still possible in `cell`. Placed cells have no marks. Placing a digit removes it from
every peer, so the marks are always "fully updated" pencil marks.

>>> from solver.geometry import standard
>>> g = standard(2)
>>> grid = Candidates.from_values(g, [1, 0, 0, 0] + [0] * 12)
>>> grid.digits_of(1)
[2, 3, 4]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from solver.geometry import Geometry, per_geometry

DEFAULT_SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def default_alphabet(size: int) -> str:
    """Symbols for digits 1..size when the puzzle brought none: 1-9, then letters."""
    if size > len(DEFAULT_SYMBOLS):
        raise ValueError(f"no default symbols for a board of size {size}")
    return DEFAULT_SYMBOLS[:size]


@dataclass(frozen=True)
class Layout:
    """Arrays derived once per geometry that the techniques share.

    `unit_cells` is (n_units, size): every unit of every geometry holds `size` cells.
    `sees` is the peer relation as a boolean matrix (n_cells, n_cells).
    `kind[u]` is "row", "column", "box" or "other" (diagonals), read from the unit name;
    `family[u]` groups the rows and columns of one grid (the five grids of the clover),
    so fish pair rows with columns of the same grid.
    """

    geometry: Geometry
    unit_cells: np.ndarray
    sees: np.ndarray
    kind: tuple[str, ...]
    family: tuple[str, ...]
    unit_mask: tuple[int, ...]


_UNIT_NAME = re.compile(r"^(?P<family>.*?)(?P<kind>row|column|box) \d+$")


def _kind_and_family(name: str) -> tuple[str, str]:
    match = _UNIT_NAME.match(name)
    if match is None:
        return "other", name
    return match["kind"], match["family"]


@per_geometry
def layout(geometry: Geometry) -> Layout:
    """The shared arrays for `geometry` (computed once, then cached)."""
    unit_cells = np.array(geometry.units, dtype=np.intp)
    n = geometry.n_cells
    sees = np.zeros((n, n), dtype=bool)
    for cell, peers in enumerate(geometry.peers):
        sees[cell, list(peers)] = True
    kinds, families = zip(*(_kind_and_family(name) for name in geometry.unit_names), strict=True)
    masks = tuple(sum(1 << c for c in unit) for unit in geometry.units)
    return Layout(geometry, unit_cells, sees, kinds, families, masks)


class Candidates:
    """Values placed so far plus the pencil marks of every empty cell."""

    def __init__(
        self,
        geometry: Geometry,
        values: np.ndarray,
        marks: np.ndarray,
        alphabet: str,
        shared: Layout | None = None,
    ):
        self.geometry = geometry
        self.values = values
        self.marks = marks
        self.alphabet = alphabet
        self.layout = shared or layout(geometry)
        # which placed cells were givens (not placed by the solver or the player): the
        # avoidable rectangle needs it; None when unknown (then every value counts as given)
        self.given: np.ndarray | None = None

    @classmethod
    def from_values(cls, geometry: Geometry, values, alphabet: str | None = None) -> Candidates:
        """Pencil marks for a puzzle: every digit its peers do not already hold."""
        values = np.asarray(values, dtype=np.int8).copy()
        size = geometry.size
        if values.shape != (geometry.n_cells,):
            raise ValueError(f"expected {geometry.n_cells} values, got shape {values.shape}")
        marks = np.zeros((geometry.n_cells, size), dtype=bool)
        marks[values == 0] = True
        grid = cls(geometry, np.zeros_like(values), marks, alphabet or default_alphabet(size))
        for cell in np.flatnonzero(values):
            grid.place(int(cell), int(values[cell]))
        grid.given = values != 0
        return grid

    def copy(self) -> Candidates:
        twin = Candidates(
            self.geometry, self.values.copy(), self.marks.copy(), self.alphabet, self.layout
        )
        twin.given = self.given
        return twin

    # -- reading -----------------------------------------------------------------------
    def symbol(self, digit: int) -> str:
        return self.alphabet[digit - 1]

    def name(self, cell: int) -> str:
        return self.geometry.cell_name(cell)

    def unit_name(self, unit: int) -> str:
        return self.geometry.unit_names[unit]

    def digits_of(self, cell: int) -> list[int]:
        return [int(d) + 1 for d in np.flatnonzero(self.marks[cell])]

    def has(self, cell: int, digit: int) -> bool:
        return bool(self.marks[cell, digit - 1])

    def empty_cells(self) -> np.ndarray:
        return np.flatnonzero(self.values == 0)

    @property
    def is_solved(self) -> bool:
        return bool((self.values != 0).all())

    def contradiction(self) -> str | None:
        """Why this grid cannot be finished, or None: an empty cell with no candidate, or
        a unit with a digit that is neither placed nor possible anywhere in it."""
        dead = np.flatnonzero((self.values == 0) & ~self.marks.any(axis=1))
        if dead.size:
            return f"{self.name(int(dead[0]))} has no candidate left"
        cells = self.layout.unit_cells
        placed = np.zeros((len(cells), self.geometry.size), dtype=bool)
        vals = self.values[cells]
        rows, cols = np.nonzero(vals)
        placed[rows, vals[rows, cols] - 1] = True
        possible = self.marks[cells].any(axis=1) | placed
        unit, digit = np.nonzero(~possible)
        if unit.size:
            return f"{self.unit_name(int(unit[0]))} has no place left for {self.symbol(int(digit[0]) + 1)}"
        return None

    # -- changing ------------------------------------------------------------------------
    def place(self, cell: int, digit: int) -> None:
        """Write `digit` in `cell` and strike it from every peer's pencil marks."""
        self.values[cell] = digit
        self.marks[cell] = False
        self.marks[self.layout.sees[cell], digit - 1] = False

    def eliminate(self, cell: int, digit: int) -> None:
        self.marks[cell, digit - 1] = False

    def apply(self, step) -> None:
        """Carry out a step's placements and eliminations."""
        for cell, digit in step.placements:
            self.place(cell, digit)
        for cell, digit in step.eliminations:
            self.eliminate(cell, digit)

    # -- showing -------------------------------------------------------------------------
    def format(self) -> str:
        """The pencil-mark grid as text: each cell shows its value, or its candidates."""
        g = self.geometry
        texts = {}
        for cell in range(g.n_cells):
            if self.values[cell]:
                texts[cell] = self.symbol(int(self.values[cell]))
            else:
                texts[cell] = "".join(self.symbol(d) for d in self.digits_of(cell))
        width = max(len(t) for t in texts.values())
        box_rows, box_cols = g.box_shape or (g.rows, g.cols)
        lines = []
        for r in range(g.rows):
            if r and r % box_rows == 0:
                lines.append("")
            parts = []
            for c in range(g.cols):
                if c and c % box_cols == 0:
                    parts.append(" ")
                cell = g.cell_at.get((r, c))
                parts.append((texts[cell] if cell is not None else "").ljust(width))
            lines.append(" ".join(parts).rstrip())
        return "\n".join(lines)
