"""Unique rectangle, type 1: a deduction that relies on the puzzle having one solution.

Four empty cells at the corners of a rectangle (two board rows, two board columns) such
that every unit touching them holds exactly two of them (on a plain 9×9 board: the corners
lie in exactly two boxes). If all four held only {a,b}, swapping a and b in them would give
a second solution. So when three corners are exactly {a,b}, the fourth must take one of
its other digits: a and b leave it.

The "every unit holds 0 or 2 corners" test is what makes the swap valid, so it is stated
over units and works on every geometry (rectangles whose corners fall in four boxes, or
on a diagonal, are rejected by it). Only used when the puzzle is known to have exactly one
solution.
"""

from __future__ import annotations

from collections.abc import Iterator

from solver.logic.candidates import Candidates
from solver.logic.step import Step, digit_list, elimination_text
from solver.logic.subsets import bits, digit_masks


def _deadly(grid: Candidates, corners) -> bool:
    """Every unit containing a corner contains exactly two of them."""
    units = grid.geometry.units_of
    touched: dict[int, int] = {}
    for c in corners:
        for u in units[c]:
            touched[u] = touched.get(u, 0) + 1
    return all(n == 2 for n in touched.values())


def unique_rectangles(grid: Candidates) -> Iterator[Step]:
    masks = digit_masks(grid)
    g = grid.geometry
    pos = g.positions
    pairs: dict[int, list[int]] = {}
    for c, m in enumerate(masks):
        if m.bit_count() == 2:
            pairs.setdefault(m, []).append(c)
    for mask, cells in pairs.items():
        for a in cells:
            for b in cells:
                if b == a or pos[b][0] != pos[a][0]:
                    continue
                for c in cells:
                    if c in (a, b) or pos[c][1] != pos[a][1]:
                        continue
                    d = g.cell_at.get((pos[c][0], pos[b][1]))
                    if d is None or masks[d] & mask != mask or masks[d] == mask:
                        continue
                    corners = (a, b, c, d)
                    if not _deadly(grid, corners):
                        continue
                    gone = tuple((d, x) for x in bits(mask))
                    yield Step(
                        "unique rectangle",
                        f"unique rectangle: {grid.name(a)}, {grid.name(b)} and {grid.name(c)} "
                        f"can only be {digit_list(grid, bits(mask))}; if {grid.name(d)} were "
                        f"one of them too, the two digits could be swapped in the four cells "
                        f"and the puzzle would have two solutions: {elimination_text(grid, gone)}",
                        eliminations=gone,
                        cells=corners,
                        digits=tuple(bits(mask)),
                    )
