"""Single-digit patterns as players name them: skyscraper, two-string kite, turbot fish,
empty rectangle.

All four are short chains on one digit: a strong link (a unit with exactly two places for
the digit: one of them holds it) joined to another strong link by a weak link (two cells
that see each other: not both). One end of the chain or the other holds the digit, so a
cell seeing both ends cannot.

- skyscraper: both strong links in parallel lines (two rows, or two columns), one end of
  each in the same crossing line;
- two-string kite: one strong link in a row, one in a column, joined inside a box;
- turbot fish: any other such chain (one strong link is in a box);
- empty rectangle: a box whose places for the digit all lie on one row and one column of
  the box (a "cross": the box's digit is on that row or on that column), with a strong
  link in a line: a row end sees the cross's row, so its partner or the cross's column
  holds the digit, and the cell where the partner's row meets the cross's column loses it;
- dual two-string kite, dual empty rectangle: two of them through the same box cells (or
  the same box), given as one step with both sets of eliminations, as HoDoKu does.

They read unit kinds (row, column, box) from the unit names, so they work on every board
with rows, columns and boxes (diagonals take no part).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from solver.logic.candidates import Candidates
from solver.logic.memo import Memo, by_digit
from solver.logic.step import Step, cell_list, elimination_text
from solver.logic.wings import strong_links


def _kind_name(kind_a: str, kind_b: str, weak_unit_kinds: set[str]) -> str:
    lines = {"row", "column"}
    if kind_a in lines and kind_a == kind_b and kind_b in lines:
        other = "column" if kind_a == "row" else "row"
        if other in weak_unit_kinds:
            return "skyscraper"
    if {kind_a, kind_b} == lines and "box" in weak_unit_kinds:
        return "two-string kite"
    return "turbot fish"


def _shared_kinds(grid: Candidates, a: int, b: int) -> set[str]:
    units_of = grid.geometry.units_of
    return {grid.layout.kind[u] for u in set(units_of[a]) & set(units_of[b])}


# The skyscraper, kite, turbot fish and dual kite finders all read the same chains, and the
# two empty rectangle finders the same rectangles: each list is found once per state (most
# states have none, so every finder used to search it all again), keyed by the marks.
_FOUND = Memo(limit=8)


def _once_per_state(grid: Candidates, what: str, find) -> list:
    key = (what, grid.marks.tobytes())
    return _FOUND.get(grid.geometry, key, lambda: list(find(grid)))


# Each digit's chains and empty rectangles, remembered by the digit's places.
_BY_DIGIT = Memo(limit=2_000)


def _turbots(grid: Candidates) -> Iterator[tuple]:
    """(name, digit, chain, units, eliminations) of every two-strong-link chain on every
    digit, named by its shape."""
    return by_digit(_BY_DIGIT, grid, "turbots", _digit_turbots)


def _digit_turbots(grid: Candidates, digit: int) -> Iterator[tuple]:
    sees = grid.layout.sees
    kind = grid.layout.kind
    links = strong_links(grid, digit)
    column = grid.marks[:, digit - 1]
    for i, (u1, a1, b1) in enumerate(links):
        for u2, a2, b2 in links[i + 1 :]:
            if {a1, b1} & {a2, b2}:
                continue
            for x, y in ((a1, b1), (b1, a1)):
                for p, q in ((a2, b2), (b2, a2)):
                    if not sees[y, p]:
                        continue
                    both = sees[x] & sees[q] & column
                    both[[x, y, p, q]] = False
                    gone = tuple((int(c), digit) for c in np.flatnonzero(both))
                    if not gone:
                        continue
                    name = _kind_name(kind[u1], kind[u2], _shared_kinds(grid, y, p))
                    yield name, digit, (x, y, p, q), (u1, u2), gone


def _turbot_step(grid, name, digit, chain, units, gone) -> Step:
    x, y, p, q = chain
    sym = grid.symbol(digit)
    n = grid.name
    return Step(
        name,
        f"{name} on {sym}: {n(x)} or {n(y)} is {sym} ({grid.unit_name(units[0])}), and "
        f"{n(p)} or {n(q)} is ({grid.unit_name(units[1])}); {n(y)} and {n(p)} see each other, "
        f"so not both: {n(x)} or {n(q)} is {sym}, and a cell seeing both cannot be: "
        f"{elimination_text(grid, gone)}",
        eliminations=gone,
        cells=chain,
        units=units,
        digits=(digit,),
    )


def _by_kind(grid: Candidates, want: str) -> Iterator[Step]:
    for name, digit, chain, units, gone in _once_per_state(grid, "turbots", _turbots):
        if name == want:
            yield _turbot_step(grid, name, digit, chain, units, gone)


def skyscrapers(grid: Candidates) -> Iterator[Step]:
    return _by_kind(grid, "skyscraper")


def two_string_kites(grid: Candidates) -> Iterator[Step]:
    return _by_kind(grid, "two-string kite")


def turbot_fish(grid: Candidates) -> Iterator[Step]:
    return _by_kind(grid, "turbot fish")


def empty_rectangles(grid: Candidates) -> Iterator[Step]:
    return iter(_once_per_state(grid, "empty rectangles", _empty_rectangles))


def _empty_rectangles(grid: Candidates) -> Iterator[Step]:
    if "box" not in grid.layout.kind:
        return iter(())
    return by_digit(_BY_DIGIT, grid, "empty rectangles", _digit_empty_rectangles)


def _digit_empty_rectangles(grid: Candidates, digit: int) -> Iterator[Step]:
    g = grid.geometry
    kind = grid.layout.kind
    pos = g.positions
    boxes = [u for u, k in enumerate(kind) if k == "box"]
    column = grid.marks[:, digit - 1]
    links = [(u, a, b) for u, a, b in strong_links(grid, digit) if kind[u] in ("row", "column")]
    for box in boxes:
        spots = [c for c in g.units[box] if column[c]]
        if len(spots) < 2:
            continue
        rows = {pos[c][0] for c in spots}
        cols = {pos[c][1] for c in spots}
        box_cells = set(g.units[box])
        for r in sorted(rows):
            for c in sorted(cols):
                if any(pos[s][0] != r and pos[s][1] != c for s in spots):
                    continue
                if len(rows) == 1 or len(cols) == 1:
                    continue  # all on one line: locked candidates, not a rectangle
                yield from _er_steps(grid, digit, box, box_cells, r, c, links, spots)


def _er_steps(grid, digit, box, box_cells, r, c, links, spots) -> Iterator[Step]:
    sees = grid.layout.sees
    column = grid.marks[:, digit - 1]
    sym = grid.symbol(digit)
    n = grid.name
    for u, a, b in links:
        if a in box_cells or b in box_cells:
            continue
        for near, far in ((a, b), (b, a)):
            rest = [s for s in spots if not sees[near, s]]
            if len(rest) == len(spots) or not rest:
                continue
            hit = sees[far] & sees[rest].all(axis=0) & column
            gone = tuple(
                (int(t), digit)
                for t in np.flatnonzero(hit)
                if t not in box_cells and t not in (a, b)
            )
            if not gone:
                continue
            yield Step(
                "empty rectangle",
                f"empty rectangle on {sym}: in {grid.unit_name(box)} the {sym}s lie on the "
                f"cross of row {r + 1} and column {c + 1} ({cell_list(grid, spots)}); "
                f"{n(near)} or {n(far)} is {sym} ({grid.unit_name(u)}); if {n(far)} is not, "
                f"{n(near)} is and the box's {sym} is among {cell_list(grid, rest)}; either "
                f"way a cell seeing {n(far)} and those cannot be {sym}: "
                f"{elimination_text(grid, gone)}",
                eliminations=gone,
                cells=tuple(spots) + (a, b),
                units=(box, u),
                digits=(digit,),
            )


def _duals(grid: Candidates, steps, key, name: str, why: str) -> Iterator[Step]:
    """Pairs of single-digit steps sharing `key` (the same box cells, ...) whose
    eliminations differ: both hold, so their union is one step."""
    groups: dict[tuple, list[Step]] = {}
    for step in steps:
        groups.setdefault(key(step), []).append(step)
    for group in groups.values():
        for i, one in enumerate(group):
            for other in group[i + 1 :]:
                if set(one.eliminations) == set(other.eliminations) or set(one.cells) == set(
                    other.cells
                ):
                    continue
                gone = tuple(sorted(set(one.eliminations) | set(other.eliminations)))
                yield Step(
                    name,
                    f"{name}: {why}; {one.text}; and {other.text}",
                    eliminations=gone,
                    cells=tuple(dict.fromkeys(one.cells + other.cells)),
                    units=tuple(dict.fromkeys(one.units + other.units)),
                    digits=tuple(sorted(set(one.digits) | set(other.digits))),
                )


def dual_kites(grid: Candidates) -> Iterator[Step]:
    """Two two-string kites joined through the same two cells of a box (on one digit, or,
    as HoDoKu also counts them, on two): both hold at once."""
    kites = list(two_string_kites(grid))
    return _duals(
        grid,
        kites,
        lambda s: frozenset(s.cells[1:3]),
        "dual two-string kite",
        "two kites are joined through the same two cells of a box",
    )


def dual_empty_rectangles(grid: Candidates) -> Iterator[Step]:
    """Two empty rectangles on one digit using the same box: both hold at once."""
    return _duals(
        grid,
        list(empty_rectangles(grid)),
        lambda s: (s.digits, s.units[0]),
        "dual empty rectangle",
        "two empty rectangles share the box",
    )
