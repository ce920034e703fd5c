"""Results remembered between the states of one explanation.

Most steps of an explanation change a few candidates, so much of what a finder works out
at one state (a unit's almost locked sets, a digit's strong links, the chain graph of the
whole state) is asked for again, unchanged, at the next, or by another finder of the same
state. A `Memo` keeps such results keyed by what they depend on and by the board's
geometry, bounded so that a long-running server does not grow without end (what depends on
the geometry alone is `solver.geometry.per_geometry`'s).

>>> from solver.geometry import standard
>>> memo, g = Memo(limit=2), standard(3)
>>> memo.get(g, "key", lambda: [1, 2]) is memo.get(g, "key", lambda: [3])
True
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


class Memo:
    """A bounded table of results per geometry, emptied when it outgrows `limit`.

    A key holds the geometry's id, and a hit must be of that very geometry object: an
    id is reused once its object is freed, and a board of another size must never be
    answered from this one's results."""

    def __init__(self, limit: int):
        self.limit = limit
        self._table: dict[tuple, tuple] = {}

    def get(self, geometry, key: Hashable, compute: Callable[[], T]) -> T:
        """The result remembered for (`geometry`, `key`), else `compute()`, remembered."""
        full = (id(geometry), key)
        hit = self._table.get(full)
        if hit is not None and hit[0] is geometry:
            return hit[1]
        value = compute()
        if len(self._table) > self.limit:
            self._table.clear()
        self._table[full] = (geometry, value)
        return value

    def clear(self) -> None:
        """Forget everything (a test comparing remembered results with fresh ones)."""
        self._table.clear()


def digit_places(grid) -> list[bytes]:
    """Each digit's places (index d - 1) as bytes: the key of whatever depends on where
    one digit can go and on nothing else."""
    raw = grid.marks.T.tobytes()  # one row a digit
    n = grid.geometry.n_cells
    return [raw[i : i + n] for i in range(0, len(raw), n)]


def by_digit(
    memo: Memo, grid, what: Hashable, find: Callable[[object, int], Iterable[T]]
) -> Iterator[T]:
    """`find(grid, d)`'s items for d = 1, 2, ... in turn, each digit's list remembered in
    `memo` by the digit's places (and the symbols, which the sentences print).

    A single-digit pattern (fish, skyscraper, colouring, ...) of digit d depends only on
    where d can go; between two states of one explanation most digits keep their places
    (about four in five on hard `top1465` states), so their searches need not be redone.
    `find` must read nothing of the grid but digit d's places, its geometry and symbols."""
    places = digit_places(grid)
    for d in range(1, len(places) + 1):
        key = (what, grid.alphabet, d, places[d - 1])
        yield from memo.get(grid.geometry, key, lambda d=d: list(find(grid, d)))
