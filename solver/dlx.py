"""Exact cover by Knuth's Algorithm X with dancing links, and sudoku built on it.

An exact cover problem is a 0/1 matrix: choose rows so that every primary column holds
exactly one 1 (secondary columns: at most one). Sudoku is one: a row per (cell, symbol),
a column per constraint (each cell filled once; each unit holds each symbol once). So is
packing pentominoes into a rectangle: a row per placed piece, a column per piece and per
square. `ExactCover` takes any such matrix; `sudoku_cover` builds the one for a geometry,
so every board and variant (diagonal, clover) is just different columns.

The links live in flat int32 arrays and the search (cover, uncover, choose the column with
fewest rows) is compiled by numba with an explicit stack.

>>> problem = ExactCover(3, [[0, 1], [2], [1], [0]])
>>> sorted(sorted(s) for s in problem.solutions())
[[0, 1], [1, 2, 3]]
>>> problem.count()
2
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from numba import njit

from solver.geometry import Geometry, per_geometry

HEAD = 0  # node 0 is the root; nodes 1..n_columns are column headers


class ExactCover:
    """An exact cover problem over `n_columns` columns; `rows[i]` lists row i's columns.

    Columns `n_primary` and above are secondary: covered at most once rather than exactly
    once (the usual trick for "no two queens on a diagonal" and similar).
    """

    def __init__(self, n_columns: int, rows: Sequence[Sequence[int]], n_primary: int | None = None):
        self.n_columns = n_columns
        self.n_primary = n_columns if n_primary is None else n_primary
        self.rows = [sorted(set(r)) for r in rows]
        for i, r in enumerate(self.rows):
            if not r:
                raise ValueError(f"row {i} covers no column")
            if r[0] < 0 or r[-1] >= n_columns:
                raise ValueError(f"row {i} names a column outside 0..{n_columns - 1}")
        self.links = _links(n_columns, self.n_primary, self.rows)
        self.row_node = np.array(
            np.cumsum([0] + [len(r) for r in self.rows[:-1]]) + n_columns + 1, dtype=np.int32
        )

    def search(
        self, *, limit: int = 1, keep: int = 1, chosen: Sequence[int] = ()
    ) -> tuple[int, list[list[int]], int]:
        """Count covers up to `limit` that include the rows in `chosen`.

        Returns (count, the first `keep` covers as row lists, column): `column` is -1, or
        the first primary column left with no row once `chosen` is taken, or -2 when two
        chosen rows overlap.
        """
        chosen_nodes = (
            self.row_node[np.asarray(chosen, dtype=np.int64)]
            if len(chosen)
            else np.zeros(0, np.int32)
        )
        # A cover holds at most one row per primary column (plus the chosen rows).
        depth = min(len(self.rows), self.n_primary + len(chosen)) + 1
        out = np.full((max(keep, 1), depth), -1, dtype=np.int32)
        info = np.zeros(2, np.int32)
        count = _search(
            *[a.copy() for a in self.links], chosen_nodes.astype(np.int32), limit, out, info
        )
        covers = [sorted([int(r) for r in row if r >= 0]) for row in out[: min(count, keep)]]
        return int(count), covers, int(info[0])

    def solutions(self, limit: int = 1_000_000, chosen: Sequence[int] = ()) -> Iterator[list[int]]:
        """The covers (as sorted row indices), up to `limit` of them."""
        _, covers, _ = self.search(limit=limit, keep=limit, chosen=chosen)
        yield from covers

    def count(self, limit: int = 1_000_000, chosen: Sequence[int] = ()) -> int:
        return self.search(limit=limit, keep=0, chosen=chosen)[0]


def _links(n_columns: int, n_primary: int, rows: list[list[int]]) -> tuple[np.ndarray, ...]:
    """The toroidal doubly linked lists as arrays: left, right, up, down, column, row, size."""
    n_nodes = 1 + n_columns + sum(len(r) for r in rows)
    left, right, up, down, col, row = (np.zeros(n_nodes, np.int32) for _ in range(6))
    size = np.zeros(n_columns + 1, np.int32)
    headers = np.arange(1, n_columns + 1)
    # Root and primary headers in one circular list; secondary headers link to themselves.
    ring = np.concatenate([[HEAD], headers[:n_primary]])
    left[ring] = np.roll(ring, 1)
    right[ring] = np.roll(ring, -1)
    left[headers[n_primary:]] = headers[n_primary:]
    right[headers[n_primary:]] = headers[n_primary:]
    up[: n_columns + 1] = np.arange(n_columns + 1)
    down[: n_columns + 1] = np.arange(n_columns + 1)
    col[: n_columns + 1] = np.arange(n_columns + 1)
    row[: n_columns + 1] = -1
    node = n_columns + 1
    for i, cols in enumerate(rows):
        first = node
        for c in cols:
            h = c + 1
            col[node], row[node] = h, i
            up[node], down[node] = up[h], h
            down[up[h]] = node
            up[h] = node
            size[h] += 1
            left[node], right[node] = node - 1, node + 1
            node += 1
        left[first], right[node - 1] = node - 1, first
    return left, right, up, down, col, row, size


@njit(cache=True, inline="always")
def _cover(c, left, right, up, down, col, size):
    right[left[c]] = right[c]
    left[right[c]] = left[c]
    i = down[c]
    while i != c:
        j = right[i]
        while j != i:
            down[up[j]] = down[j]
            up[down[j]] = up[j]
            size[col[j]] -= 1
            j = right[j]
        i = down[i]


@njit(cache=True, inline="always")
def _uncover(c, left, right, up, down, col, size):
    i = up[c]
    while i != c:
        j = left[i]
        while j != i:
            size[col[j]] += 1
            down[up[j]] = j
            up[down[j]] = j
            j = left[j]
        i = up[i]
    right[left[c]] = c
    left[right[c]] = c


@njit(cache=True)
def _search(left, right, up, down, col, row, size, chosen, limit, out, info):
    """Algorithm X with an explicit stack; returns the number of covers found (<= limit)."""
    info[0] = -1
    # Take the chosen rows first (the givens of a puzzle).
    covered = np.zeros(size.shape[0], np.bool_)
    for r in chosen:
        j = r
        while True:
            c = col[j]
            if covered[c]:
                info[0] = -2
                return 0
            covered[c] = True
            _cover(c, left, right, up, down, col, size)
            j = right[j]
            if j == r:
                break
    c = right[HEAD]
    while c != HEAD:
        if size[c] == 0:
            info[0] = c - 1
            return 0
        c = right[c]
    n_chosen = chosen.shape[0]
    stack = np.empty(out.shape[1] + 1, np.int32)
    count = 0
    k = 0
    descend = True
    while True:
        if descend:
            if right[HEAD] == HEAD:
                if count < out.shape[0]:
                    for i in range(n_chosen):
                        out[count, i] = row[chosen[i]]
                    for i in range(k):
                        out[count, n_chosen + i] = row[stack[i]]
                count += 1
                if count >= limit:
                    return count
                descend = False
                if k == 0:
                    return count
                k -= 1
                r = stack[k]
            else:
                # The column with the fewest rows left.
                best = right[HEAD]
                c = right[best]
                while c != HEAD and size[best] > 1:
                    if size[c] < size[best]:
                        best = c
                    c = right[c]
                _cover(best, left, right, up, down, col, size)
                r = down[best]
                if r == best:
                    _uncover(best, left, right, up, down, col, size)
                    descend = False
                    if k == 0:
                        return count
                    k -= 1
                    r = stack[k]
                else:
                    stack[k] = r
                    j = right[r]
                    while j != r:
                        _cover(col[j], left, right, up, down, col, size)
                        j = right[j]
                    k += 1
                    continue
        # Leave row r at level k and move to the next row of its column.
        j = left[r]
        while j != r:
            _uncover(col[j], left, right, up, down, col, size)
            j = left[j]
        c = col[r]
        r = down[r]
        if r == c:
            _uncover(c, left, right, up, down, col, size)
            if k == 0:
                return count
            k -= 1
            r = stack[k]
            continue
        stack[k] = r
        j = right[r]
        while j != r:
            _cover(col[j], left, right, up, down, col, size)
            j = right[j]
        k += 1
        descend = True


# ----------------------------------------------------------------------------- sudoku


class SudokuCover:
    """The exact cover matrix of a geometry: row (cell, symbol) = cell * size + symbol - 1.

    Columns: one per cell ("r3c5 holds a symbol"), then one per (unit, symbol) ("row 3
    holds 7"); `column_name` turns a column back into those words.
    """

    def __init__(self, geometry: Geometry):
        self.geometry = geometry
        n, size = geometry.n_cells, geometry.size
        units_of = geometry.units_of
        rows = [
            [cell] + [n + u * size + s for u in units_of[cell]]
            for cell in range(n)
            for s in range(size)
        ]
        self.problem = ExactCover(n + len(geometry.units) * size, rows)

    def column_name(self, column: int, alphabet: str | None = None) -> str:
        """Words for a constraint left unmet: "r4c5 with no candidate", "no place in row 3 for 7"."""
        g = self.geometry
        if column < g.n_cells:
            return f"{g.cell_name(column)} with no candidate"
        unit, s = divmod(column - g.n_cells, g.size)
        symbol = alphabet[s] if alphabet else str(s + 1)
        return f"no place in {g.unit_names[unit]} for {symbol}"

    def givens_rows(self, values: np.ndarray) -> list[int]:
        size = self.geometry.size
        return [cell * size + int(v) - 1 for cell, v in enumerate(values) if v]

    def search(
        self, values: np.ndarray, *, limit: int = 2, keep: int = 2
    ) -> tuple[int, list[np.ndarray], int]:
        """Count solutions of `values` up to `limit`: (count, solutions, empty column).

        The column is -1, or the first constraint left without candidates by the givens
        (see `column_name`), or -2 when two givens clash.
        """
        g = self.geometry
        count, covers, column = self.problem.search(
            limit=limit, keep=keep, chosen=self.givens_rows(values)
        )
        solutions = []
        for cover in covers:
            grid = np.zeros(g.n_cells, np.int8)
            for r in cover:
                cell, s = divmod(r, g.size)
                grid[cell] = s + 1
            solutions.append(grid)
        return count, solutions, column


@njit(cache=True)
def _sudoku_batch(puzzles, links, row_node, size, limit, counts, solutions):
    left, right, up, down, col, row, sizes = links
    work = (left.copy(), right.copy(), up.copy(), down.copy(), col.copy(), row.copy(), sizes.copy())
    n = puzzles.shape[1]
    chosen = np.empty(n, np.int32)
    out = np.empty((1, row_node.shape[0] + 1), np.int32)
    info = np.zeros(2, np.int32)
    for i in range(puzzles.shape[0]):
        for a in range(7):
            work[a][:] = links[a]
        k = 0
        for cell in range(n):
            v = puzzles[i, cell]
            if v > 0:
                chosen[k] = row_node[cell * size + v - 1]
                k += 1
        out[0, :] = -1
        counts[i] = _search(*work, chosen[:k], limit, out, info)
        if counts[i] > 0:
            for r in out[0]:
                if r >= 0:
                    solutions[i, r // size] = r % size + 1


def solve_batch(
    puzzles: np.ndarray, geometry: Geometry, *, limit: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Solve many puzzles of one board shape by exact cover in one compiled call.

    Parameters
    ----------
    puzzles : ndarray of int8, shape (N, n_cells)
    geometry : Geometry
    limit : int
        Count solutions up to here.

    Returns
    -------
    counts : ndarray, shape (N,)
        Capped at `limit`.
    solutions : ndarray of int8, shape (N, n_cells)
        The first solution of each.

    Examples
    --------
    >>> from solver.geometry import standard
    >>> counts, solutions = solve_batch(np.zeros((1, 16), np.int8), standard(2), limit=5)
    >>> int(counts[0]), sorted(solutions[0, :4].tolist())
    (5, [1, 2, 3, 4])
    """
    cover = sudoku_cover(geometry)
    puzzles = np.ascontiguousarray(puzzles, dtype=np.int8)
    counts = np.zeros(puzzles.shape[0], np.int32)
    solutions = np.zeros(puzzles.shape, np.int8)
    problem = cover.problem
    _sudoku_batch(
        puzzles, problem.links, problem.row_node, geometry.size, max(limit, 1), counts, solutions
    )
    return counts, solutions


@per_geometry
def sudoku_cover(geometry: Geometry) -> SudokuCover:
    """The exact cover matrix of a geometry, built once per Geometry object.

    Parameters
    ----------
    geometry : Geometry

    Returns
    -------
    SudokuCover
        One row per (cell, symbol), one column per constraint.

    Examples
    --------
    >>> from solver.geometry import standard
    >>> sudoku_cover(standard(3)) is sudoku_cover(standard(3))
    True
    """
    return SudokuCover(geometry)
