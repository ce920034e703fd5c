"""The shape of a board: which positions are cells and which groups of cells are units.

Every engine in `solver` (exact cover, propagation, logic steps) works on a `Geometry`
rather than on "9×9", so that n²×n² boards, rectangular boxes, diagonal sudoku and the
clover (samurai) layout are all the same problem with different units. A unit is a
group of `size` cells that must hold every symbol exactly once.

>>> g = standard(3)
>>> g.size, g.n_cells, len(g.units)
(9, 81, 27)
>>> g.cell_name(20)
'r3c3'
>>> sorted(g.peers[0])[:4]
[1, 2, 3, 4]

The constructors hand out one shared Geometry object per shape (`standard(3) is for_size(9)`),
so that tables built per geometry with `per_geometry` are built once per process.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property, wraps
from typing import TypeVar


@dataclass(frozen=True)
class Geometry:
    """Cells laid out on a rows×cols board, grouped into units of `size` cells.

    Cells are numbered 0..n_cells-1 in reading order of their board positions;
    `positions[i]` is cell i's (row, col) on the board. Positions that belong to no
    grid (the gaps of the clover layout) are not cells.
    """

    name: str
    rows: int
    cols: int
    size: int
    positions: tuple[tuple[int, int], ...]
    units: tuple[tuple[int, ...], ...]
    unit_names: tuple[str, ...]
    box_shape: tuple[int, int] | None = field(default=None)

    @property
    def n_cells(self) -> int:
        return len(self.positions)

    @cached_property
    def cell_at(self) -> dict[tuple[int, int], int]:
        """Board position -> cell index."""
        return {pos: i for i, pos in enumerate(self.positions)}

    @cached_property
    def units_of(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the indices of the units that contain it."""
        owners: list[list[int]] = [[] for _ in range(self.n_cells)]
        for u, unit in enumerate(self.units):
            for cell in unit:
                owners[cell].append(u)
        return tuple(tuple(o) for o in owners)

    @cached_property
    def peers(self) -> tuple[frozenset[int], ...]:
        """For each cell, every other cell that shares a unit with it."""
        return tuple(
            frozenset(c for u in self.units_of[cell] for c in self.units[u]) - {cell}
            for cell in range(self.n_cells)
        )

    @property
    def is_square_board(self) -> bool:
        """True when every board position is a cell (plain sudoku and diagonal)."""
        return self.n_cells == self.rows * self.cols

    def cell_name(self, cell: int) -> str:
        """Players' name for a cell: r3c5 (1-based row and column on the board)."""
        r, c = self.positions[cell]
        return f"r{r + 1}c{c + 1}"


def _box_shape_for(size: int) -> tuple[int, int]:
    """Boxes for a size: square when size is a square, else the most square rectangle
    with more columns than rows (6 -> 2×3, 8 -> 2×4, 12 -> 3×4), as puzzle books print them.
    """
    root = math.isqrt(size)
    if root * root == size:
        return root, root
    for rows in range(root, 0, -1):
        if size % rows == 0 and rows > 1:
            return rows, size // rows
    raise ValueError(f"no box shape for a board of size {size}: it has no rectangular boxes")


def _grid_units(
    size: int, box_rows: int, box_cols: int, origin: tuple[int, int], cell_at, label: str
) -> list[tuple[str, tuple[int, ...]]]:
    """Rows, columns and boxes of one size×size grid placed at `origin` on a board."""
    r0, c0 = origin
    units = []
    for r in range(size):
        units.append((f"{label}row {r + 1}", tuple(cell_at[(r0 + r, c0 + c)] for c in range(size))))
    for c in range(size):
        units.append(
            (f"{label}column {c + 1}", tuple(cell_at[(r0 + r, c0 + c)] for r in range(size)))
        )
    for b in range(size):
        br, bc = divmod(b, size // box_cols)
        cells = tuple(
            cell_at[(r0 + br * box_rows + dr, c0 + bc * box_cols + dc)]
            for dr in range(box_rows)
            for dc in range(box_cols)
        )
        units.append((f"{label}box {b + 1}", cells))
    return units


def _build(name, rows, cols, positions, named_units, size, box_shape) -> Geometry:
    # Overlapping grids (clover) name the shared box twice; keep one copy of each unit.
    seen: dict[frozenset[int], str] = {}
    for unit_name, cells in named_units:
        seen.setdefault(frozenset(cells), unit_name)
    ordered = [(n, tuple(sorted(c))) for c, n in seen.items()]
    return Geometry(
        name=name,
        rows=rows,
        cols=cols,
        size=size,
        positions=tuple(positions),
        units=tuple(c for _, c in ordered),
        unit_names=tuple(n for n, _ in ordered),
        box_shape=box_shape,
    )


def rectangular(box_rows: int, box_cols: int) -> Geometry:
    """A size×size sudoku with box_rows×box_cols boxes (size = box_rows*box_cols).

    Parameters
    ----------
    box_rows, box_cols : int
        The shape of one box.

    Returns
    -------
    Geometry
        The shared object for this shape: every call with the same box returns it.

    Examples
    --------
    >>> rectangular(2, 3).size
    6
    >>> rectangular(2, 3) is rectangular(2, 3)
    True
    """
    return _rectangular(int(box_rows), int(box_cols))


@cache
def _rectangular(box_rows: int, box_cols: int) -> Geometry:
    size = box_rows * box_cols
    positions = [(r, c) for r in range(size) for c in range(size)]
    cell_at = {p: i for i, p in enumerate(positions)}
    units = _grid_units(size, box_rows, box_cols, (0, 0), cell_at, "")
    return _build(f"{size}x{size}", size, size, positions, units, size, (box_rows, box_cols))


def standard(n: int = 3) -> Geometry:
    """The n²×n² sudoku: 4×4 for n=2, 9×9 for n=3, 16×16 for n=4, 25×25 for n=5.

    Parameters
    ----------
    n : int
        The side of a box.

    Returns
    -------
    Geometry
        The shared object for this n.

    Examples
    --------
    >>> g = standard()
    >>> g.size, g.n_cells, len(g.units), len(g.peers[0])
    (9, 81, 27, 20)
    """
    return rectangular(n, n)


def for_size(size: int) -> Geometry:
    """The usual sudoku for a board side: square boxes when possible, else rectangles.

    Parameters
    ----------
    size : int
        The board's side (4, 6, 9, 16, 25, ...).

    Returns
    -------
    Geometry

    Examples
    --------
    >>> for_size(9) is standard(3), for_size(6) is rectangular(2, 3)
    (True, True)
    """
    return rectangular(*_box_shape_for(size))


def diagonal(n: int = 3) -> Geometry:
    """Sudoku X: both main diagonals also hold every symbol once.

    Parameters
    ----------
    n : int
        As for `standard`.

    Returns
    -------
    Geometry
        One object per n, shared like `standard`'s, whose two extra units are the diagonals.

    Examples
    --------
    >>> len(diagonal().units), len(diagonal().peers[0])
    (29, 26)
    """
    return _diagonal(int(n))


@cache
def _diagonal(n: int) -> Geometry:
    base = standard(n)
    size = base.size
    cell_at = base.cell_at
    named = list(zip(base.unit_names, base.units, strict=True))
    named.append(("main diagonal", tuple(cell_at[(i, i)] for i in range(size))))
    named.append(("anti-diagonal", tuple(cell_at[(i, size - 1 - i)] for i in range(size))))
    return _build(f"diagonal {size}x{size}", size, size, base.positions, named, size, (n, n))


# Clover (samurai): four corner 9×9 grids and a centre one on a 21×21 board; each corner
# grid shares one 3×3 box with the centre grid.
CLOVER_ORIGINS: tuple[tuple[int, int], ...] = ((0, 0), (0, 12), (6, 6), (12, 0), (12, 12))


def clover() -> Geometry:
    """Five overlapping 9×9 grids on a 21×21 board (puzzle books call it samurai).

    Returns
    -------
    Geometry
        The shared clover geometry.

    Examples
    --------
    >>> g = clover()
    >>> g.rows, g.n_cells, len(g.units)
    (21, 369, 131)
    """
    return _clover()


@cache
def _clover() -> Geometry:
    covered = sorted(
        {(r0 + r, c0 + c) for r0, c0 in CLOVER_ORIGINS for r in range(9) for c in range(9)}
    )
    cell_at = {p: i for i, p in enumerate(covered)}
    named = []
    grid_labels = ("top-left", "top-right", "centre", "bottom-left", "bottom-right")
    for label, origin in zip(grid_labels, CLOVER_ORIGINS, strict=True):
        named += _grid_units(9, 3, 3, origin, cell_at, f"{label} grid ")
    return _build("clover", 21, 21, covered, named, 9, (3, 3))


Built = TypeVar("Built")


def per_geometry(build: Callable[[Geometry], Built]) -> Callable[[Geometry], Built]:
    """Memoise `build(geometry)` per Geometry object (a decorator).

    Keyed by identity: hashing a Geometry walks all its cells and units, which costs more
    than solving an easy puzzle, and the constructors above hand out one object per shape
    anyway. The geometry is kept alive beside its result, so an id is never reused.

    Parameters
    ----------
    build : callable
        Geometry -> anything derived from it (tables, masks).

    Returns
    -------
    callable
        The same function, building each geometry's result once.

    Examples
    --------
    >>> calls = []
    >>> @per_geometry
    ... def n_units(geometry):
    ...     calls.append(geometry.name)
    ...     return len(geometry.units)
    >>> n_units(standard(3)), n_units(for_size(9)), calls
    (27, 27, ['9x9'])
    """
    built: dict[int, tuple[Geometry, Built]] = {}

    @wraps(build)
    def lookup(geometry: Geometry) -> Built:
        entry = built.get(id(geometry))
        if entry is None or entry[0] is not geometry:
            entry = built[id(geometry)] = (geometry, build(geometry))
        return entry[1]

    return lookup
