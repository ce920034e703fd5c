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
from functools import partial
from itertools import combinations

from solver.geometry import Geometry
from solver.logic.candidates import Candidates, layout, per_geometry
from solver.logic.memo import Memo, by_digit
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


def cover_lines(
    grid: Candidates, d: int, base: list[int], cover_of: dict[int, int]
) -> dict[int, int]:
    """For each base line, the cover lines where digit index d can still go, as a bit mask
    (bit i: the i-th cover line): a fish is a choice of base lines whose masks together
    set few bits."""
    places = grid.marks[:, d].tolist()  # a list reads faster than numpy item by item
    units = grid.geometry.units
    masks = {}
    for u in base:
        where = 0
        for c in units[u]:
            if places[c]:
                where |= 1 << cover_of[c]
        masks[u] = where
    return masks


# A digit's fish, finned or not, depend only on where that digit can still go (and the
# board and its symbols, for the sentence): each digit's search is remembered by its places.
_BY_DIGIT = Memo(limit=5_000)  # about 45 states of 108 searches (2 orientations, 9 digits, 6 kinds)


def fish(grid: Candidates, k: int) -> Iterator[Step]:
    """Fish of size k for every digit, grid and orientation."""
    for f in range(len(line_families(grid.geometry))):
        yield from by_digit(_BY_DIGIT, grid, ("fish", f, k), partial(_digit_fish, f=f, k=k))


def _digit_fish(grid: Candidates, digit: int, f: int, k: int) -> Iterator[Step]:
    units = grid.geometry.units
    marks = grid.marks
    name = FISH_NAMES[k]
    base, cover, cover_of = line_families(grid.geometry)[f]
    d = digit - 1
    spots = {
        u: where
        for u, where in cover_lines(grid, d, base, cover_of).items()
        if 2 <= where.bit_count() <= k
    }
    if len(spots) < k:
        return
    for rows in combinations(spots, k):
        covered = 0
        for u in rows:
            covered |= spots[u]
        if covered.bit_count() != k:
            continue
        cols = [cover[i] for i in range(len(cover)) if covered >> i & 1]
        in_base = {c for u in rows for c in units[u]}
        gone = tuple((c, d + 1) for v in cols for c in units[v] if marks[c, d] and c not in in_base)
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


FINNED_NAMES = {2: "X-wing", 3: "swordfish", 4: "jellyfish"}


@per_geometry
def _fin_boxes(geometry: Geometry) -> list[list[tuple[list[int], int, frozenset[int]]]]:
    """Per line family (as `line_families` orders them): every box as (its cells, the
    cover lines it crosses as a bit mask, the base lines it crosses)."""
    lay = layout(geometry)
    boxes = [geometry.units[u] for u, kind in enumerate(lay.kind) if kind == "box"]
    result = []
    for base, _cover, cover_of in line_families(geometry):
        per_box = []
        for box in boxes:
            cols = {cover_of[c] for c in box if c in cover_of}
            crossed = frozenset(u for u in base if set(geometry.units[u]) & set(box))
            if cols:
                per_box.append((list(box), sum(1 << i for i in cols), crossed))
        result.append(per_box)
    return result


def finned_fish(grid: Candidates, k: int) -> Iterator[Step]:
    """Finned and sashimi fish of size k, then the Siamese pairs among them.

    A *Siamese* fish is two finned fish of one digit on the same base lines with different
    cover lines or fins: each is sound on its own, so one step may make both's
    eliminations (HoDoKu gives them as one step).
    """
    found = []
    for fish_found in _finned_fish(grid, k):
        found.append(fish_found)
        yield fish_found[-1]
    for (rows, covers, fins, step), (rows2, covers2, fins2, step2) in combinations(found, 2):
        if rows != rows2 or step.digits != step2.digits:
            continue
        gone = tuple(sorted(set(step.eliminations) | set(step2.eliminations)))
        if len(gone) > max(len(step.eliminations), len(step2.eliminations)):
            yield _siamese_step(grid, step, step2, rows, (covers, covers2), (fins, fins2), gone)


def _siamese_step(grid, step, step2, rows, covers, fins, gone) -> Step:
    sym = grid.symbol(step.digits[0])
    name = f"Siamese {FINNED_NAMES[len(rows)]}"
    cover_names = [", ".join(grid.unit_name(v) for v in c) for c in covers]
    base_names = ", ".join(grid.unit_name(u) for u in rows)
    return Step(
        name,
        f"{name} on {sym}: two finned fish on {base_names}, one with cover {cover_names[0]} "
        f"and fins {cell_list(grid, fins[0])}, one with cover {cover_names[1]} and fins "
        f"{cell_list(grid, fins[1])}; each holds alone, so both eliminate: "
        f"{elimination_text(grid, gone)}",
        eliminations=gone,
        cells=tuple(dict.fromkeys(step.cells + step2.cells)),
        units=tuple(dict.fromkeys(step.units + step2.units)),
        digits=step.digits,
    )


def _finned_fish(grid: Candidates, k: int) -> Iterator[tuple]:
    """(base lines, cover lines, fins, step) of every finned and sashimi fish of size k: k
    base lines whose places for a digit fall in k cover lines except for some *fins*, all
    inside one box.

    If no fin held the digit, the base lines would form a plain fish and the cover lines
    would lose the digit elsewhere; if a fin holds it, every cell seeing all the fins loses
    it. Either way a cell that is in a cover line, outside the base lines, and in the fins'
    box cannot hold the digit. It is *sashimi* when some base line has at most one place
    inside the cover lines (without its fins it would not look like a fish at all).
    Needs rows, columns and boxes (every square or rectangular board, each clover grid).
    The search works on bit masks of cover lines: a box's fins are what is left of the
    base lines' places once k cover lines hold all the places outside that box.
    """
    for f in range(len(line_families(grid.geometry))):
        search = partial(_digit_finned_fish, f=f, k=k)
        yield from by_digit(_BY_DIGIT, grid, ("finned", f, k), search)


def _digit_finned_fish(grid: Candidates, digit: int, f: int, k: int) -> Iterator[tuple]:
    """`_finned_fish`'s answers for line family `f` and one digit."""
    g = grid.geometry
    base, cover, cover_of = line_families(g)[f]
    boxes = _fin_boxes(g)[f]
    return _search_finned(grid, digit - 1, k, base, cover, cover_of, boxes)


def _search_finned(grid, d, k, base, cover, cover_of, boxes) -> Iterator[tuple]:
    width = max((bin(m).count("1") for _, m, _ in boxes), default=0)
    spots = {
        u: where
        for u, where in cover_lines(grid, d, base, cover_of).items()
        if where and where.bit_count() <= k + width
    }
    if len(spots) < k:
        return
    for rows in combinations(spots, k):
        union = 0
        for u in rows:
            union |= spots[u]
        if union.bit_count() <= k:
            continue  # a plain fish (or less): not finned
        for box, box_cols, crossed in boxes:
            # the places outside the box's cover lines are never fins, so they alone must
            # fit in k cover lines (`required` below holds them), and a fin needs the box
            if (union & ~box_cols).bit_count() > k or not union & box_cols:
                continue
            required = 0
            for u in rows:
                required |= spots[u] & ~box_cols if u in crossed else spots[u]
            if required.bit_count() > k or not union & box_cols & ~required:
                continue
            yield from _finned_in(grid, d, k, rows, spots, union, box, box_cols, required, cover)


def _finned_in(grid, d, k, rows, spots, union, box, box_cols, required, cover):
    marks = grid.marks
    units = grid.geometry.units
    base_cells = {c for u in rows for c in units[u]}
    in_box = [c for c in box if c in base_cells and marks[c, d]]
    free = k - required.bit_count()
    extra_choices = [1 << i for i in range(len(cover)) if (union & box_cols & ~required) >> i & 1]
    for extra in combinations(extra_choices, min(free, len(extra_choices))):
        covered = required | sum(extra)
        if covered.bit_count() != k or any(not spots[u] & covered for u in rows):
            continue
        cover_lines = [cover[i] for i in range(len(cover)) if covered >> i & 1]
        cover_cells = {c for v in cover_lines for c in units[v]}
        fins = [c for c in in_box if c not in cover_cells]
        if not fins:
            continue
        gone = tuple(
            (c, d + 1)
            for c in sorted(box)
            if c in cover_cells and c not in base_cells and marks[c, d]
        )
        if gone:
            step = _finned_step(grid, d + 1, k, rows, cover_lines, spots, covered, fins, gone)
            yield tuple(rows), tuple(cover_lines), tuple(fins), step


def _finned_step(grid, digit, k, rows, cover_lines, spots, covered, fins, gone) -> Step:
    sashimi = any((spots[u] & covered).bit_count() <= 1 for u in rows)
    name = ("sashimi " if sashimi else "finned ") + FINNED_NAMES[k]
    sym = grid.symbol(digit)
    base_names = ", ".join(grid.unit_name(u) for u in rows)
    cover_names = ", ".join(grid.unit_name(v) for v in cover_lines)
    return Step(
        name,
        f"{name} on {sym}: in {base_names} the {sym}s lie in {cover_names} except for the "
        f"fin{'s' if len(fins) > 1 else ''} {cell_list(grid, fins)}; either a fin is {sym} "
        f"or the cover lines get their {sym}s from the base lines, so a cover cell that "
        f"sees every fin cannot be {sym}: {elimination_text(grid, gone)}",
        eliminations=gone,
        cells=tuple(fins),
        units=tuple(rows) + tuple(cover_lines),
        digits=(digit,),
    )
