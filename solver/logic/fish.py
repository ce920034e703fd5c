"""Basic fish: X-wing (2), swordfish (3), jellyfish (4).

For one digit, take k *base* lines (say rows) in which the digit's places all fall inside
the same k *cover* lines (columns). Each base row must hold the digit once, in k distinct
columns, so those k columns get theirs from the base rows: every other cell of the cover
columns loses the digit. Rows and columns swap roles for the transposed fish.

Fish need a notion of rows and columns, read from the unit names: a unit called
"row 3" / "column 5" (or "centre grid row 3" on the clover) is a line, and rows pair with
columns of the same grid (the same name prefix). Boxes and diagonals take no part, so on
diagonal sudoku the fish are the plain ones of the underlying board, and on the clover each
of the five 9×9 grids has its own fish. The argument only needs the base lines to be
disjoint, which rows (or columns) of one grid always are.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from solver.geometry import Geometry
from solver.logic.candidates import Candidates, layout, per_geometry
from solver.logic.step import Step, cell_list, elimination_text

FISH_NAMES = {2: "X-wing", 3: "swordfish", 4: "jellyfish"}


@per_geometry
def line_families(geometry: Geometry) -> list[tuple[list[int], list[int], dict[int, int]]]:
    """For each grid: (rows, columns, cell -> column index within that grid's columns)
    and the transposed triple, so callers try both orientations."""
    lay = layout(geometry)
    families: dict[str, dict[str, list[int]]] = {}
    for u, (kind, family) in enumerate(zip(lay.kind, lay.family, strict=True)):
        if kind in ("row", "column"):
            families.setdefault(family, {"row": [], "column": []})[kind].append(u)
    result = []
    for lines in families.values():
        for base_kind, cover_kind in (("row", "column"), ("column", "row")):
            base, cover = lines[base_kind], lines[cover_kind]
            if not base or not cover:
                continue
            cover_of = {c: i for i, u in enumerate(cover) for c in geometry.units[u]}
            result.append((base, cover, cover_of))
    return result


def fish(grid: Candidates, k: int) -> Iterator[Step]:
    """Fish of size k for every digit, grid and orientation."""
    units = grid.geometry.units
    marks = grid.marks
    name = FISH_NAMES[k]
    for base, cover, cover_of in line_families(grid.geometry):
        for d in range(grid.geometry.size):
            spots = {}
            for u in base:
                where = 0
                for c in units[u]:
                    if marks[c, d]:
                        where |= 1 << cover_of[c]
                if 2 <= where.bit_count() <= k:
                    spots[u] = where
            if len(spots) < k:
                continue
            for rows in combinations(spots, k):
                covered = 0
                for u in rows:
                    covered |= spots[u]
                if covered.bit_count() != k:
                    continue
                cols = [cover[i] for i in range(len(cover)) if covered >> i & 1]
                in_base = {c for u in rows for c in units[u]}
                gone = tuple(
                    (c, d + 1) for v in cols for c in units[v] if marks[c, d] and c not in in_base
                )
                if not gone:
                    continue
                fins = [c for u in rows for c in units[u] if marks[c, d]]
                sym = grid.symbol(d + 1)
                base_names = ", ".join(grid.unit_name(u) for u in rows)
                cover_names = ", ".join(grid.unit_name(v) for v in cols)
                yield Step(
                    name,
                    f"{name} on {sym}: in {base_names} the {sym}s can only go in "
                    f"{cover_names} ({cell_list(grid, fins)}); each of those lines gets its "
                    f"{sym} there, so the rest of them cannot: {elimination_text(grid, gone)}",
                    eliminations=gone,
                    cells=tuple(fins),
                    units=tuple(rows) + tuple(cols),
                    digits=(d + 1,),
                )
