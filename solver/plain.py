"""A plain-Python solver: no compile step, so a one-off puzzle is answered at once.

Loading the compiled engine (numba itself, then the cached machine code) costs about 0.6 s
per process, a hundred times what this search needs for a typical published puzzle. So a
process that has not loaded the compiled engine yet tries this search first, with a budget
of branches; past the budget it gives up and the compiled engine takes over. It is also
the plain-Python yardstick in bench/solver.py, which is why it stays the straightforward
solver a careful Python programmer writes: candidates are ints (bit k-1 = symbol k),
placing a symbol clears it from the peers, hidden singles are found per unit, and the
search branches on the cell with the fewest candidates.

>>> from solver.grid import parse
>>> count, solutions = search(parse("1-53---9-" "---6-----" "------271" "82-------"
...     "---487---" "------53-" "23-------" "--7-59---" "--6---8-4"))
>>> count, "".join(map(str, solutions[0][:9]))
(1, '175328496')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.geometry import Geometry, per_geometry
from solver.grid import Puzzle


class BudgetExceeded(Exception):
    """The search tried more branches than it was allowed; use the compiled engine."""


@dataclass(frozen=True)
class _Board:
    full: int
    units: list[list[int]]
    peers: list[list[int]]


@per_geometry
def _board(geometry: Geometry) -> _Board:
    return _Board(
        (1 << geometry.size) - 1,
        [list(unit) for unit in geometry.units],
        [sorted(p) for p in geometry.peers],
    )


def search(
    puzzle: Puzzle, *, limit: int = 2, keep: int = 2, budget: int | None = None
) -> tuple[int, list[np.ndarray]]:
    """Count solutions up to `limit`, keeping the first `keep` as int8 value arrays.

    Parameters
    ----------
    puzzle : Puzzle
    limit : int
        Stop counting here.
    keep : int
        How many solutions to keep.
    budget : int, optional
        Branches the search may try; None: no budget.

    Returns
    -------
    count : int
        Capped at `limit`.
    solutions : list of ndarray
        Up to `keep` of them, each (n_cells,) int8.

    Raises
    ------
    BudgetExceeded
        After `budget` branches.

    Examples
    --------
    >>> from solver.grid import parse
    >>> count, solutions = search(parse("1234" + "." * 12), limit=2, keep=1)
    >>> count, solutions[0][:4].tolist()
    (2, [1, 2, 3, 4])
    """
    count, found = search_values(
        puzzle.geometry, puzzle.values.tolist(), limit=limit, keep=keep, budget=budget
    )
    return count, [np.array(values, dtype=np.int8) for values in found]


def search_values(
    geometry: Geometry,
    values: list[int],
    *,
    limit: int = 2,
    keep: int = 2,
    budget: int | None = None,
) -> tuple[int, list[list[int]]]:
    """`search` on a plain list of cell values (0 = blank), answering in lists."""
    board = _board(geometry)
    cand = [board.full] * len(values)
    for cell, value in enumerate(values):
        if value:
            bit = 1 << (value - 1)
            if not cand[cell] & bit or not _assign(board, cand, cell, bit):
                return 0, []
    found: list[list[int]] = []
    tries = [budget if budget is not None else -1]
    count = _search(board, cand, max(limit, 1), keep, found, tries)
    return count, [[m.bit_length() for m in solved] for solved in found]


def _assign(board: _Board, cand: list[int], cell: int, bit: int) -> bool:
    """Put `bit` in `cell` and propagate naked singles; False on a contradiction."""
    peers = board.peers
    todo = [(cell, bit)]
    while todo:
        cell, bit = todo.pop()
        cand[cell] = bit
        for p in peers[cell]:
            m = cand[p]
            if m & bit:
                m &= ~bit
                if not m:
                    return False
                cand[p] = m
                if not m & (m - 1):
                    todo.append((p, m))
    return True


def _hidden_singles(board: _Board, cand: list[int]) -> int:
    """Place symbols that fit in one cell of a unit: 1 if any placed, 0 if none, -1 on failure."""
    placed = 0
    full = board.full
    for unit in board.units:
        once = twice = 0
        for c in unit:
            m = cand[c]
            twice |= once & m
            once |= m
        if once != full:
            return -1
        only = once & ~twice
        while only:
            bit = only & -only
            only ^= bit
            for c in unit:
                if cand[c] & bit:
                    if cand[c] != bit:
                        if not _assign(board, cand, c, bit):
                            return -1
                        placed = 1
                    break
    return placed


def _search(
    board: _Board, cand: list[int], limit: int, keep: int, found: list, tries: list[int]
) -> int:
    """Solutions below this node, at most `limit`; the first `keep` appended to `found`."""
    while True:
        placed = _hidden_singles(board, cand)
        if placed < 0:
            return 0
        if not placed:
            break
    best, best_n = -1, 1 << 30
    for c, m in enumerate(cand):
        if m & (m - 1):
            n = m.bit_count()
            if n < best_n:
                best, best_n = c, n
                if n == 2:
                    break
    if best < 0:
        if len(found) < keep:
            found.append(cand)
        return 1
    count = 0
    m = cand[best]
    while m and count < limit:
        if tries[0] == 0:
            raise BudgetExceeded
        tries[0] -= 1
        bit = m & -m
        m ^= bit
        trial = cand[:]
        if _assign(board, trial, best, bit):
            count += _search(board, trial, limit - count, keep, found, tries)
    return count
