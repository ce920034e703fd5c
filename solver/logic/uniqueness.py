"""Deductions that rely on the puzzle having one solution: unique rectangles, hidden
rectangles, BUG+1.

A *deadly pattern* is four empty cells at the corners of a rectangle (two board rows, two
board columns) such that every unit touching them holds exactly two of them (on a plain
board: the corners lie in exactly two boxes). If the solution had only digits a and b in
them, swapping a and b would give a second solution. So in a puzzle with one solution, not
all four corners end up in {a, b}; each type below is a way of using that. A corner whose
marks are a subset of {a, b} is a *floor* corner (it may have lost a or b: "missing
candidates" are fine, the swap argument is about the solution, not the marks); the others
are *roof* corners.

- type 1: three floor corners; the roof cannot be a or b.
- type 2 / 5: every roof corner has exactly one extra digit c, the same for all; one of
  them is c, so a cell seeing every roof corner holding c cannot be c (type 2 when the two
  roof corners share a line, type 5 when they are diagonal or three).
- type 3: two roof corners in one unit act as one cell holding their extra digits; with
  other cells of that unit they form a naked subset, whose digits leave the rest of it.
- type 4: two roof corners in one unit where a has no other place: one of them is a, so
  neither can be b (else the other is a and the corners are deadly).
- type 6: two diagonal floor corners; if a's only places in the rectangle's two rows and
  two columns are the corners, a is on one diagonal, and not on the roof's (deadly).
- hidden rectangle: a floor corner; in the opposite corner's row and column a has no place
  but the rectangle's corners; if the opposite corner were b, the other two would be a and
  the fourth b: deadly; so it is not b.
- BUG+1: every empty cell has two candidates but one, which has three; every digit occurs
  twice in every unit except one digit of that cell, three times in its units. Without that
  digit the grid would be a "bivalue universal grave", which has no or two solutions; so
  the cell holds it (the step removes the cell's other two candidates, as HoDoKu does).

The "every unit holds 0 or 2 corners" test is what makes the swap valid, so it is stated
over units and works on every geometry (rectangles whose corners fall in four boxes, or on
a diagonal, are rejected by it). Only used when the puzzle is known to have one solution.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

import numpy as np

from solver.logic.candidates import Candidates
from solver.logic.step import Step, cell_list, digit_list, elimination_text
from solver.logic.subsets import bits, digit_masks


def _deadly(grid: Candidates, corners) -> bool:
    """Every unit containing a corner contains exactly two of them."""
    units = grid.geometry.units_of
    touched: dict[int, int] = {}
    for c in corners:
        for u in units[c]:
            touched[u] = touched.get(u, 0) + 1
    return all(n == 2 for n in touched.values())


def rectangles(
    grid: Candidates, every_floor: bool = False
) -> Iterator[tuple[tuple[int, int, int, int], int]]:
    """Every (corners, {a,b} mask) with four empty corners forming a deadly pattern, where a
    floor corner (marks within {a,b}) exists and every corner holds a or b. Corners are
    ordered (floor corner, same row, same column, opposite); each rectangle once, or once
    per bivalue floor corner when `every_floor`."""
    masks = digit_masks(grid)
    g = grid.geometry
    pos, at = g.positions, g.cell_at
    seen = set()
    for first, m in enumerate(masks):
        if m.bit_count() != 2:
            continue
        r1, c1 = pos[first]
        for r2 in range(g.rows):
            if r2 == r1:
                continue
            for c2 in range(g.cols):
                if c2 == c1:
                    continue
                b, c, d = at.get((r1, c2)), at.get((r2, c1)), at.get((r2, c2))
                if b is None or c is None or d is None:
                    continue
                corners = (first, b, c, d)
                if any(not masks[x] & m for x in corners) or any(grid.values[x] for x in corners):
                    continue
                key = (frozenset(corners), m, first if every_floor else None)
                if key in seen or not _deadly(grid, corners):
                    continue
                seen.add(key)
                yield corners, m


def _shared_units(grid: Candidates, cells) -> list[int]:
    units_of = grid.geometry.units_of
    common = set(units_of[cells[0]])
    for c in cells[1:]:
        common &= set(units_of[c])
    return sorted(common)


def _why(grid: Candidates, corners, m: int) -> str:
    return (
        f"the four cells {cell_list(grid, corners)} cannot end up holding only "
        f"{digit_list(grid, bits(m))} (the two digits could then be swapped: two solutions)"
    )


def unique_rectangles(grid: Candidates) -> Iterator[Step]:
    """Unique rectangle types 1 to 6, every instance."""
    masks = digit_masks(grid)
    sees = grid.layout.sees
    marks = grid.marks
    for corners, m in rectangles(grid):
        floor = [x for x in corners if not masks[x] & ~m]
        roof = [x for x in corners if masks[x] & ~m]
        why = _why(grid, corners, m)
        if len(floor) == 3:
            gone = tuple((roof[0], d) for d in bits(masks[roof[0]] & m))
            yield _ur_step(
                grid,
                1,
                corners,
                m,
                gone,
                f"{why}; so {grid.name(roof[0])}, the only cell with other digits, is neither",
            )
            continue
        extras = {masks[x] & ~m for x in roof}
        if len(extras) == 1 and len(roof) >= 2:
            extra = extras.pop()
            if extra.bit_count() == 1:
                c = bits(extra)[0]
                seen = sees[roof].all(axis=0) & marks[:, c - 1]
                gone = tuple((int(x), c) for x in np.flatnonzero(seen) if x not in corners)
                if gone:
                    kind = 2 if len(roof) == 2 and _shared_units(grid, roof) else 5
                    yield _ur_step(
                        grid,
                        kind,
                        corners,
                        m,
                        gone,
                        f"{why}; so one of {cell_list(grid, roof)} is {grid.symbol(c)}",
                    )
        if len(roof) != 2:
            if len(floor) == 2:
                yield from _type_6(grid, corners, m, floor, roof, why)
            continue
        units = _shared_units(grid, roof)
        if units:
            yield from _type_3(grid, corners, m, roof, units, masks, why)
            yield from _type_4(grid, corners, m, roof, units, why)
        else:
            yield from _type_6(grid, corners, m, floor, roof, why)


def _ur_step(grid, kind, corners, m, gone, reason) -> Step:
    name = f"unique rectangle type {kind}"
    return Step(
        name,
        f"{name}: {reason}: {elimination_text(grid, gone)}",
        eliminations=tuple(gone),
        cells=tuple(corners),
        digits=tuple(bits(m)),
    )


def _type_3(grid, corners, m, roof, units, masks, why) -> Iterator[Step]:
    extra = (masks[roof[0]] | masks[roof[1]]) & ~m
    for u in units:
        others = [
            x
            for x in grid.geometry.units[u]
            if x not in roof
            and not grid.values[x]
            and masks[x]
            and not masks[x] & ~extra
            or x not in roof
            and not grid.values[x]
            and masks[x].bit_count() <= 4
        ]
        for n in range(1, 4):
            for group in combinations(others, n):
                digits = extra
                for x in group:
                    digits |= masks[x]
                if digits.bit_count() != n + 1:
                    continue
                # the subset clears every unit holding the roof and the group together
                shared = _shared_units(grid, list(roof) + list(group))
                gone = tuple(
                    dict.fromkeys(
                        (x, d)
                        for v in shared
                        for x in grid.geometry.units[v]
                        if x not in roof and x not in group and not grid.values[x]
                        for d in bits(masks[x] & digits)
                    )
                )
                if gone:
                    yield _ur_step(
                        grid,
                        3,
                        corners,
                        m,
                        gone,
                        f"{why}; so {cell_list(grid, roof)} hold one of "
                        f"{digit_list(grid, bits(extra))}, and with {cell_list(grid, group)} "
                        f"they lock {digit_list(grid, bits(digits))} in "
                        + " and ".join(grid.unit_name(v) for v in shared),
                    )


def _type_4(grid, corners, m, roof, units, why) -> Iterator[Step]:
    a_b = bits(m)
    for u in units:
        cells = grid.geometry.units[u]
        for x, y in (a_b, a_b[::-1]):
            places = [c for c in cells if grid.marks[c, x - 1]]
            if sorted(places) != sorted(roof):
                continue
            gone = tuple((c, y) for c in roof if grid.marks[c, y - 1])
            if gone:
                yield _ur_step(
                    grid,
                    4,
                    corners,
                    m,
                    gone,
                    f"{why}; in {grid.unit_name(u)} {grid.symbol(x)} can only go in "
                    f"{cell_list(grid, roof)}, so one of them is {grid.symbol(x)} and neither "
                    f"can be {grid.symbol(y)}",
                )


def _lines_through(grid, cells) -> set[int]:
    kind = grid.layout.kind
    return {u for c in cells for u in grid.geometry.units_of[c] if kind[u] in ("row", "column")}


def _type_6(grid, corners, m, floor, roof, why) -> Iterator[Step]:
    if len(floor) != 2 or len(roof) != 2 or _shared_units(grid, floor):
        return
    lines = _lines_through(grid, corners)
    for x in bits(m):
        outside = [
            c
            for u in lines
            for c in grid.geometry.units[u]
            if c not in corners and grid.marks[c, x - 1]
        ]
        if outside:
            continue
        gone = tuple((c, x) for c in roof if grid.marks[c, x - 1])
        if gone:
            yield _ur_step(
                grid,
                6,
                corners,
                m,
                gone,
                f"{why}; in their rows and columns {grid.symbol(x)} can only go in the four "
                f"cells, so on one diagonal; on {cell_list(grid, roof)} it would leave "
                f"{cell_list(grid, floor)} the other digit",
            )


def hidden_rectangles(grid: Candidates) -> Iterator[Step]:
    """A floor corner, and a digit whose places in the opposite corner's row and column are
    only the rectangle's corners: the opposite corner cannot be the other digit."""
    masks = digit_masks(grid)
    kind = grid.layout.kind
    units_of = grid.geometry.units_of
    for corners, m in rectangles(grid, every_floor=True):
        first, b, c, d = corners
        if masks[first] & ~m:
            continue
        lines = [u for u in set(units_of[d]) if kind[u] in ("row", "column")]
        for x, y in (bits(m), bits(m)[::-1]):
            if not grid.marks[d, y - 1]:
                continue
            if any(
                grid.marks[cell, x - 1] and cell not in corners
                for u in lines
                for cell in grid.geometry.units[u]
            ):
                continue
            if not (grid.marks[b, x - 1] and grid.marks[c, x - 1]):
                continue
            gone = ((d, y),)
            yield Step(
                "hidden rectangle",
                f"hidden rectangle: {_why(grid, corners, m)}; in the row and column of "
                f"{grid.name(d)}, {grid.symbol(x)} can only go in the four cells, so if "
                f"{grid.name(d)} were {grid.symbol(y)}, {grid.name(b)} and {grid.name(c)} would be "
                f"{grid.symbol(x)} and {grid.name(first)} {grid.symbol(y)}: "
                f"{elimination_text(grid, gone)}",
                eliminations=gone,
                cells=corners,
                digits=tuple(bits(m)),
            )


def bug_plus_one(grid: Candidates) -> Iterator[Step]:
    """BUG+1: all empty cells bivalue but one trivalue cell; place its odd digit."""
    counts = np.where(grid.values == 0, grid.marks.sum(axis=1), 0)
    if not (counts > 0).any() or (counts > 3).any() or (counts == 3).sum() != 1:
        return
    cell = int(np.flatnonzero(counts == 3)[0])
    odd = []
    for digit in grid.digits_of(cell):
        marks = grid.marks.copy()
        marks[cell, digit - 1] = False
        per_unit = marks[grid.layout.unit_cells].sum(axis=1)  # (units, digits)
        if ((per_unit == 0) | (per_unit == 2)).all():
            odd.append(digit)
    if len(odd) != 1:
        return
    digit = odd[0]
    gone = tuple((cell, d) for d in grid.digits_of(cell) if d != digit)
    yield Step(
        "BUG+1",
        f"BUG+1: every empty cell but {grid.name(cell)} has two candidates and every digit "
        f"two places in each unit, except {grid.symbol(digit)} in the units of "
        f"{grid.name(cell)}; without it the grid would have no or two solutions, so "
        f"{grid.name(cell)} must be {grid.symbol(digit)}: {elimination_text(grid, gone)}",
        eliminations=gone,
        cells=(cell,),
        digits=(digit,),
    )


def _solver_rectangles(grid: Candidates) -> Iterator[tuple[int, int, int, int]]:
    """Deadly-shaped corners (a, b, c, d): b shares a's row, c its column, d is opposite;
    none of them a given, a placed and b or c placed (both types of avoidable rectangle
    start from a placed corner beside another). Each rectangle once per corner order used
    by the callers."""
    g = grid.geometry
    if grid.given is None:
        return  # without knowing the givens, a placed digit may be a given: no deduction
    given, values = grid.given, grid.values
    pos, at = g.positions, g.cell_at
    for a in range(g.n_cells):
        if given[a] or not values[a]:
            continue
        r1, c1 = pos[a]
        for r2 in range(g.rows):
            for c2 in range(g.cols):
                if r2 == r1 or c2 == c1:
                    continue
                b, c, d = at.get((r1, c2)), at.get((r2, c1)), at.get((r2, c2))
                if None in (b, c, d) or given[b] or given[c] or given[d]:
                    continue
                if not values[b] and not values[c]:
                    continue
                if _deadly(grid, (a, b, c, d)):
                    yield a, b, c, d


def avoidable_rectangles(grid: Candidates) -> Iterator[Step]:
    """Avoidable rectangles: the solver's own digits (not givens) in a deadly pattern.

    - type 1: three corners placed: a holds x, b and c hold y; d cannot be x (the four
      would hold x and y crosswise, swappable: the givens could not tell them apart).
    - type 2: a holds x and b holds y (placed, one line); c holds y plus one digit z and d
      holds x plus the same z: one of c, d is z, so a cell seeing both cannot be.

    Sound only for a puzzle with one solution and when the givens are known (a placed
    digit taken for a given would make it wrong).
    """
    values, masks = grid.values, digit_masks(grid)
    said: set = set()
    for a, b, c, d in _solver_rectangles(grid):
        x, y = int(values[a]), int(values[b])
        corners = (a, b, c, d)
        if x and y and x != y and values[c] == y and not values[d] and grid.has(d, x):
            key = (1, frozenset(corners), x)
            if key in said:
                continue
            said.add(key)
            gone = ((d, x),)
            yield Step(
                "avoidable rectangle type 1",
                f"avoidable rectangle type 1: {grid.name(a)} holds {grid.symbol(x)}, "
                f"{grid.name(b)} and {grid.name(c)} hold {grid.symbol(y)}, none of them a "
                f"given; if {grid.name(d)} were {grid.symbol(x)} too, the two digits could be "
                f"swapped in the four cells and the puzzle would have two solutions: "
                f"{elimination_text(grid, gone)}",
                eliminations=gone,
                cells=corners,
                digits=(x, y),
            )
        # type 2: a and one neighbour placed, the other two corners empty
        for p, q, r, t in ((a, b, c, d), (a, c, b, d)):
            x, y = int(values[p]), int(values[q])
            if x and y and x != y and not values[r] and not values[t]:
                yield from _avoidable_2(grid, masks, (p, q, r, t), x, y, said)


def _avoidable_2(grid: Candidates, masks, corners, x: int, y: int, said: set) -> Iterator[Step]:
    """Type 2 with a = x and b = y placed; c (beside a) is y or z, d (beside b) x or z."""
    a, b, c, d = corners
    mc, md = masks[c], masks[d]
    xb, yb = 1 << (x - 1), 1 << (y - 1)
    if not mc & yb or not md & xb or (mc & ~yb).bit_count() != 1 or mc & ~yb != md & ~xb:
        return
    z = bits(mc & ~yb)[0]
    seen = grid.layout.sees[c] & grid.layout.sees[d] & grid.marks[:, z - 1]
    gone = tuple((int(t), z) for t in np.flatnonzero(seen))
    key = (2, frozenset(corners), gone)
    if gone and key not in said:
        said.add(key)
        yield Step(
            "avoidable rectangle type 2",
            f"avoidable rectangle type 2: {grid.name(a)} holds {grid.symbol(x)} and "
            f"{grid.name(b)} {grid.symbol(y)} (neither a given); {grid.name(c)} can only be "
            f"{grid.symbol(y)} or {grid.symbol(z)} and {grid.name(d)} {grid.symbol(x)} or "
            f"{grid.symbol(z)}; without {grid.symbol(z)} the four would make two solutions, "
            f"so one of them is {grid.symbol(z)} and a cell seeing both cannot be: "
            f"{elimination_text(grid, gone)}",
            eliminations=gone,
            cells=corners,
            digits=(x, y, z),
        )
