"""Sue de Coq: a box-line intersection whose digits are shared out between the line and
the box.

Take two or three open cells C where a box meets a line, holding digits V, at least two
more than cells. Add cells D from the rest of the line and E from the rest of the box
(outside C), so that no digit is a candidate in both D and E, and the cells C + D + E hold
exactly as many digits as they are cells. A digit can then be at most once in them (a
digit of D lives in the line, one of E in the box, one of C only in both), and there are
as many digits as cells: each is there exactly once. So the rest of the line loses the
digits of D and those of C not in E, and the rest of the box those of E and those of C
not in D.

It needs boxes and lines (rows or columns, read from the unit names), so it runs on every
board that has them.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from solver.logic.candidates import Candidates, per_geometry
from solver.logic.step import Step, cell_list, digit_list, elimination_text
from solver.logic.subsets import bits, digit_masks

MAX_GROUP = 4  # cells taken from the rest of the line or box (the surplus is 2 to 4 digits)


@per_geometry
def intersections(geometry) -> list[tuple[int, int, tuple[int, ...]]]:
    """(box, line, shared cells) for every box and row or column sharing two or more cells."""
    from solver.logic.candidates import layout

    kind = layout(geometry).kind
    boxes = [u for u, k in enumerate(kind) if k == "box"]
    lines = [u for u, k in enumerate(kind) if k in ("row", "column")]
    out = []
    for b in boxes:
        box = set(geometry.units[b])
        for line in lines:
            shared = tuple(c for c in geometry.units[line] if c in box)
            if len(shared) >= 2:
                out.append((b, line, shared))
    return out


def _groups(cells: list[int], masks: list[int], core: int) -> list[tuple[tuple[int, ...], int]]:
    """Subsets of `cells` that could share out some of `core`'s digits: each holds a core
    digit and has fewer digits outside the core than cells ("gain" at least one)."""
    out = []
    for k in range(1, min(len(cells), MAX_GROUP) + 1):
        for group in combinations(cells, k):
            union = 0
            for c in group:
                union |= masks[c]
            if union & core and (union & ~core).bit_count() < k:
                out.append((group, union))
    return out


def sue_de_coq(grid: Candidates) -> Iterator[Step]:
    masks = digit_masks(grid)
    units = grid.geometry.units
    for box, line, shared in intersections(grid.geometry):
        open_shared = [c for c in shared if masks[c]]
        line_rest = [c for c in units[line] if masks[c] and c not in shared]
        box_rest = [c for c in units[box] if masks[c] and c not in shared]
        for k in (2, 3):
            for core_cells in combinations(open_shared, k):
                core = 0
                for c in core_cells:
                    core |= masks[c]
                extra = core.bit_count() - k
                if extra < 2:
                    continue
                # D and E each take on at least one of the core's surplus digits
                in_line = _groups(line_rest, masks, core)
                in_box = _groups(box_rest, masks, core)
                for d_cells, d_digits in in_line:
                    d_gain = len(d_cells) - (d_digits & ~core).bit_count()
                    for e_cells, e_digits in in_box:
                        if d_digits & e_digits:
                            continue
                        e_gain = len(e_cells) - (e_digits & ~core).bit_count()
                        if d_gain + e_gain != extra:
                            continue
                        step = _step(
                            grid,
                            masks,
                            box,
                            line,
                            core_cells,
                            core,
                            d_cells,
                            d_digits,
                            e_cells,
                            e_digits,
                        )
                        if step is not None:
                            yield step


def _step(grid, masks, box, line, core_cells, core, d_cells, d_digits, e_cells, e_digits):
    units = grid.geometry.units
    used = set(core_cells) | set(d_cells) | set(e_cells)
    line_digits = d_digits | (core & ~e_digits)
    box_digits = e_digits | (core & ~d_digits)
    gone = set()
    for c in units[line]:
        if c not in used:
            gone.update((c, d) for d in bits(masks[c] & line_digits))
    for c in units[box]:
        if c not in used:
            gone.update((c, d) for d in bits(masks[c] & box_digits))
    if not gone:
        return None
    gone_t = tuple(sorted(gone))
    cells = (*core_cells, *d_cells, *e_cells)
    return Step(
        "Sue de Coq",
        f"Sue de Coq: {cell_list(grid, core_cells)} (where {grid.unit_name(box)} meets "
        f"{grid.unit_name(line)}) hold {digit_list(grid, bits(core))}; with "
        f"{cell_list(grid, d_cells)} of the line ({digit_list(grid, bits(d_digits))}) and "
        f"{cell_list(grid, e_cells)} of the box ({digit_list(grid, bits(e_digits))}), "
        f"{len(cells)} cells hold {len(cells)} digits, each at most once, so each exactly once: "
        f"{elimination_text(grid, gone_t)}",
        eliminations=gone_t,
        cells=cells,
        units=(box, line),
        digits=tuple(bits(core | d_digits | e_digits)),
    )
