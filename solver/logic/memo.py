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

from collections.abc import Callable, Hashable
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
