"""Templates: where a digit can still go, as a whole, not unit by unit (Template Set and
Template Delete, HoDoKu's last resort before brute force).

A *template* of digit d is one way to place all nine d's of a 9x9 board: one in every row,
column and box. There are 46,656 of them. The solution puts each digit in one template, so
only templates that fit the grid count: they cover every placed d and use only cells where
d is placed or still a candidate (so no cell holding another digit). A cell that every
fitting template of another digit e uses is e's, so a template of d through it is dropped
too, and so on until nothing more drops (as HoDoKu does). Then

- a candidate cell of d that lies in no remaining template cannot be d (Template Delete);
- an empty cell that lies in every remaining template must be d (Template Set).

Every single-digit pattern (fish of any shape, skyscrapers, kites, X-chains) is a partial
view of this one, which is why it is tried so late: it finds everything they find on a
digit, but explains it only as "every arrangement of the d's says so". HoDoKu tries it
after forcing chains, as the last thing before brute force, and so does `explain`.

The 46,656 templates are built once (about 0.3 s), by backtracking row by row over the
columns not used yet and the boxes not holding a d yet, and kept as bit masks of their
cells (two 64-bit words: rows 1-5 and rows 6-9); for each digit a template fits when it
has no bit outside the digit's allowed cells, one numpy pass over the 46,656 masks. The
AND and OR of the remaining masks give both steps. Measured on the 1,112 states of HoDoKu's
library (`tests/test_logic_reglib.py`), on the shared 2-core machine: 1.5 ms a state for
all nine digits (Template Set or Template Delete; each computes the templates afresh).
Only plain 9x9 boards (rows, columns, 3x3 boxes, 81 cells); diagonal sudoku counts, its
extra units only make fewer arrangements possible, so the steps stay sound. On other boards
the techniques find nothing.

>>> from solver.grid import parse
>>> puzzle = parse(".62...5.....9752......6.849...8.26....4.5.9....16.4...295.1......3426.....6...12.")
>>> grid = Candidates.from_values(puzzle.geometry, puzzle.values)
>>> step = next(s for s in template_deletes(grid) if s.digits == (4,))
>>> sorted(grid.name(c) for c, _ in step.eliminations)
['r1c1', 'r2c2', 'r7c9', 'r9c1', 'r9c9']
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import numpy as np

from solver.logic.candidates import Candidates
from solver.logic.step import Step, cell_list, elimination_text

SIZE = 9
BOX = 3


@cache
def all_templates() -> np.ndarray:
    """(46656, 9) array: row r of a template holds its d in column [t, r]; built by
    backtracking over rows with masks of the columns and boxes already used."""
    found: list[tuple[int, ...]] = []
    columns: list[int] = []

    def place_row(row: int, used_columns: int, used_boxes: int) -> None:
        if row == SIZE:
            found.append(tuple(columns))
            return
        for column in range(SIZE):
            box = (row // BOX) * BOX + column // BOX
            if used_columns >> column & 1 or used_boxes >> box & 1:
                continue
            columns.append(column)
            place_row(row + 1, used_columns | 1 << column, used_boxes | 1 << box)
            columns.pop()

    place_row(0, 0, 0)
    return np.array(found, dtype=np.int8)


# the 81 cells as bits of two words: rows 1-5 (45 bits) and rows 6-9 (36 bits)
SPLIT = 5 * SIZE


@cache
def template_bits() -> tuple[np.ndarray, np.ndarray]:
    """Each template as bits of its cells (row * 9 + column): two uint64 arrays."""
    cells = np.arange(SIZE, dtype=np.int64) * SIZE + all_templates()
    low = np.where(cells < SPLIT, np.left_shift(1, cells % SPLIT), 0)
    high = np.where(cells >= SPLIT, np.left_shift(1, cells % SPLIT), 0)
    return low.sum(axis=1).astype(np.uint64), high.sum(axis=1).astype(np.uint64)


def _as_bits(cells: np.ndarray) -> tuple[int, int]:
    """A boolean per cell as the two words of `template_bits`."""
    low = sum(1 << int(c) for c in np.flatnonzero(cells[:SPLIT]))
    high = sum(1 << int(c) for c in np.flatnonzero(cells[SPLIT:]))
    return low, high


def _cells_of(low: int, high: int) -> list[int]:
    return [c for c in range(SPLIT) if low >> c & 1] + [
        SPLIT + c for c in range(SIZE * SIZE - SPLIT) if high >> c & 1
    ]


def _plain_9x9(grid: Candidates) -> bool:
    g = grid.geometry
    return (
        g.size == SIZE
        and g.n_cells == SIZE * SIZE
        and g.box_shape == (BOX, BOX)
        and all(g.cell_at.get((r, c)) == r * SIZE + c for r in range(SIZE) for c in range(SIZE))
    )


def fitting_templates(grid: Candidates, digit: int) -> tuple[np.ndarray, np.ndarray]:
    """Every template of `digit` that fits the grid on its own, as the two words of its
    cells."""
    low, high = template_bits()
    allowed_low, allowed_high = _as_bits((grid.values == digit) | grid.marks[:, digit - 1])
    fits = ((low & np.uint64(~allowed_low & (1 << 64) - 1)) == 0) & (
        (high & np.uint64(~allowed_high & (1 << 64) - 1)) == 0
    )
    return low[fits], high[fits]


def _every(words: tuple[np.ndarray, np.ndarray]) -> tuple[int, int]:
    low, high = words
    if not low.size:
        return 0, 0
    return int(np.bitwise_and.reduce(low)), int(np.bitwise_and.reduce(high))


def fitting_together(grid: Candidates) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """digit -> its fitting templates, less those that use a cell every fitting template
    of another digit uses (that cell is the other digit's), until none is dropped."""
    fitting = {d: fitting_templates(grid, d) for d in range(1, SIZE + 1)}
    every = {d: _every(words) for d, words in fitting.items()}
    changed = True
    while changed:
        changed = False
        for d, (low, high) in fitting.items():
            taken_low = taken_high = 0
            for e, (e_low, e_high) in every.items():
                if e != d:
                    taken_low, taken_high = taken_low | e_low, taken_high | e_high
            keep = ((low & np.uint64(taken_low)) == 0) & ((high & np.uint64(taken_high)) == 0)
            if not keep.all():
                fitting[d] = (low[keep], high[keep])
                every[d] = _every(fitting[d])
                changed = True
    return fitting


def _cover(words: tuple[np.ndarray, np.ndarray]) -> tuple[int, list[int], list[int]]:
    """How many templates there are, the cells they all use, and the cells none uses."""
    low, high = words
    if not low.size:
        return 0, [], []
    every = _cells_of(*_every(words))
    some = set(_cells_of(int(np.bitwise_or.reduce(low)), int(np.bitwise_or.reduce(high))))
    none = [c for c in range(SIZE * SIZE) if c not in some]
    return len(low), every, none


def template_sets(grid: Candidates) -> Iterator[Step]:
    """Per digit, one step placing it in every empty cell that every fitting template of
    the digit uses."""
    if not _plain_9x9(grid):
        return
    for digit, words in fitting_together(grid).items():
        n, every, _ = _cover(words)
        cells = [c for c in every if grid.values[c] == 0]
        if cells:
            yield _set_step(grid, digit, n, cells)


def template_deletes(grid: Candidates) -> Iterator[Step]:
    """Per digit, one step removing it from every candidate cell that no fitting template
    of the digit uses."""
    if not _plain_9x9(grid):
        return
    for digit, words in fitting_together(grid).items():
        n, _, none = _cover(words)
        cells = [c for c in none if grid.marks[c, digit - 1]]
        if n and cells:
            yield _delete_step(grid, digit, n, cells)


def _arrangements(n: int, sym: str) -> str:
    if n == 1:
        return f"only one arrangement of all nine {sym}s (one in every row, column and box) fits"
    return f"{n} arrangements of all nine {sym}s (one in every row, column and box) fit"


def _set_step(grid: Candidates, digit: int, n: int, cells: list[int]) -> Step:
    sym = grid.symbol(digit)
    places = tuple((c, digit) for c in cells)
    every = "it" if n == 1 else "every one of them"
    return Step(
        "template set",
        f"template set on {sym}: {_arrangements(n, sym)} the placed {sym}s and the "
        f"candidates; {every} puts {sym} in {cell_list(grid, cells)}, so "
        f"{'that cell is' if len(cells) == 1 else 'those cells are'} {sym}",
        placements=places,
        cells=tuple(cells),
        digits=(digit,),
    )


def _delete_step(grid: Candidates, digit: int, n: int, cells: list[int]) -> Step:
    sym = grid.symbol(digit)
    gone = tuple((c, digit) for c in cells)
    return Step(
        "template delete",
        f"template delete on {sym}: {_arrangements(n, sym)} the placed {sym}s and the "
        f"candidates, and none of them puts {sym} in {cell_list(grid, cells)}: "
        f"{elimination_text(grid, gone)}",
        eliminations=gone,
        cells=tuple(cells),
        digits=(digit,),
    )
