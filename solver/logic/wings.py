"""Wings: short patterns of two-digit cells around a pivot.

- XY-wing: pivot {x,y} sees pincers {x,z} and {y,z}. Whichever the pivot is, one pincer
  is z, so a cell seeing both pincers cannot be z.
- XYZ-wing: pivot {x,y,z} sees pincers {x,z} and {y,z}: one of the three is z, so a cell
  seeing all three cannot be z.
- W-wing: two cells {x,y} that do not see each other, joined by a strong link on x (a unit
  where x has exactly two places, one seeing each cell). If both cells were x, that unit
  would have no place for x; so one of them is y, and a cell seeing both cannot be y.

They only use "sees" (shared units), so they work on every geometry.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from solver.logic.candidates import Candidates
from solver.logic.memo import Memo
from solver.logic.step import Step, elimination_text
from solver.logic.subsets import bits, digit_masks


def _seen_by_all(grid: Candidates, cells, digit: int) -> tuple[tuple[int, int], ...]:
    """Cells (other than `cells`) seeing every one of `cells` and still holding `digit`."""
    seen = grid.layout.sees[list(cells)].all(axis=0) & grid.marks[:, digit - 1]
    return tuple((int(c), digit) for c in np.flatnonzero(seen) if c not in cells)


def xy_wings(grid: Candidates) -> Iterator[Step]:
    masks = digit_masks(grid)
    sees = grid.layout.sees
    pairs = [c for c in range(len(masks)) if masks[c].bit_count() == 2]
    for pivot in pairs:
        x, y = bits(masks[pivot])
        wings = [c for c in pairs if sees[pivot, c] and masks[c] != masks[pivot]]
        for a in wings:
            if not masks[a] & (1 << (x - 1)):
                continue
            z_mask = masks[a] & ~(1 << (x - 1))
            for b in wings:
                if masks[b] != z_mask | (1 << (y - 1)) or z_mask & (1 << (y - 1)):
                    continue
                z = bits(z_mask)[0]
                gone = _seen_by_all(grid, (a, b), z)
                if gone:
                    yield Step(
                        "XY-wing",
                        f"XY-wing: pivot {grid.name(pivot)} is {grid.symbol(x)} or "
                        f"{grid.symbol(y)}; either way one of {grid.name(a)} "
                        f"({grid.symbol(x)}{grid.symbol(z)}) and {grid.name(b)} "
                        f"({grid.symbol(y)}{grid.symbol(z)}) is {grid.symbol(z)}, so a cell "
                        f"seeing both cannot be: {elimination_text(grid, gone)}",
                        eliminations=gone,
                        cells=(pivot, a, b),
                        digits=(x, y, z),
                    )


def xyz_wings(grid: Candidates) -> Iterator[Step]:
    masks = digit_masks(grid)
    sees = grid.layout.sees
    pairs = [c for c in range(len(masks)) if masks[c].bit_count() == 2]
    for pivot in range(len(masks)):
        if masks[pivot].bit_count() != 3:
            continue
        wings = [c for c in pairs if sees[pivot, c] and masks[c] & ~masks[pivot] == 0]
        for i, a in enumerate(wings):
            for b in wings[i + 1 :]:
                common = masks[a] & masks[b]
                if masks[a] == masks[b] or common.bit_count() != 1:
                    continue
                z = bits(common)[0]
                gone = _seen_by_all(grid, (pivot, a, b), z)
                if gone:
                    yield Step(
                        "XYZ-wing",
                        f"XYZ-wing: {grid.name(pivot)} ({''.join(grid.symbol(d) for d in bits(masks[pivot]))}) "
                        f"with {grid.name(a)} and {grid.name(b)}: one of the three is "
                        f"{grid.symbol(z)}, so a cell seeing all three cannot be: "
                        f"{elimination_text(grid, gone)}",
                        eliminations=gone,
                        cells=(pivot, a, b),
                        digits=tuple(bits(masks[pivot])),
                    )


# A digit's strong links depend only on its places, which most steps leave alone, and
# colouring, the single-digit patterns and the W-wing all ask for them: remembered by the
# places.
_STRONG = Memo(limit=4_000)


def strong_links(grid: Candidates, digit: int) -> tuple[tuple[int, int, int], ...]:
    """Units where `digit` has exactly two places: (unit, cell, cell)."""
    column = grid.marks[:, digit - 1]
    return _STRONG.get(grid.geometry, column.tobytes(), lambda: _strong_links(grid, column))


def _strong_links(grid: Candidates, column: np.ndarray) -> tuple[tuple[int, int, int], ...]:
    cells = grid.layout.unit_cells
    places = column[cells]
    links = []
    for u in np.flatnonzero(places.sum(axis=1) == 2):
        a, b = cells[u][places[u]]
        links.append((int(u), int(a), int(b)))
    return tuple(links)


def w_wings(grid: Candidates) -> Iterator[Step]:
    masks = digit_masks(grid)
    sees = grid.layout.sees
    pairs = [c for c in range(len(masks)) if masks[c].bit_count() == 2]
    for i, p in enumerate(pairs):
        for q in pairs[i + 1 :]:
            if masks[p] != masks[q] or sees[p, q]:
                continue
            for x, y in (bits(masks[p]), bits(masks[p])[::-1]):
                gone = _seen_by_all(grid, (p, q), y)
                if not gone:
                    continue
                for unit, a, b in strong_links(grid, x):
                    if {a, b} & {p, q}:
                        continue
                    for end_p, end_q in ((a, b), (b, a)):
                        if sees[p, end_p] and sees[q, end_q]:
                            yield Step(
                                "W-wing",
                                f"W-wing: {grid.name(p)} and {grid.name(q)} both hold "
                                f"{grid.symbol(min(x, y))}{grid.symbol(max(x, y))}; {grid.unit_name(unit)} "
                                f"must put {grid.symbol(x)} in {grid.name(end_p)} or "
                                f"{grid.name(end_q)}, which see them, so they cannot both be "
                                f"{grid.symbol(x)}: one is {grid.symbol(y)}, and a cell seeing "
                                f"both cannot be: {elimination_text(grid, gone)}",
                                eliminations=gone,
                                cells=(p, q, end_p, end_q),
                                units=(unit,),
                                digits=(x, y),
                            )
                            break
