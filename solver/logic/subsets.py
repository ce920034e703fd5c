"""Naked and hidden subsets (pairs, triples, quads): field and element reduction.

Within one unit:
- naked subset: k cells whose candidates together are only k digits. Those digits must
  fill those cells, so no other cell that sees all k cells can hold them ("field
  reduction": the digits are spent on these fields).
- hidden subset: k digits whose possible places in the unit are only k cells. Those
  cells must take those digits, so every other candidate leaves them ("element
  reduction": the cells are spent on these elements).

The rule only needs "a unit is a set of cells holding each digit once", so it runs
unchanged on every geometry. Candidates are bitmasks (Python ints) here, which makes the
combination loops cheap.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

import numpy as np

from solver.logic.candidates import Candidates
from solver.logic.step import Step, cell_list, digit_list, elimination_text

SUBSET_NAMES = {2: "pair", 3: "triple", 4: "quad"}


def digit_masks(grid: Candidates) -> list[int]:
    """Each cell's candidates as a bitmask: bit d-1 set when d is possible."""
    weights = 1 << np.arange(grid.geometry.size, dtype=np.int64)
    return (grid.marks.astype(np.int64) @ weights).tolist()


def bits(mask: int) -> list[int]:
    """Digits (1-based) of a bitmask."""
    return [i + 1 for i in range(mask.bit_length()) if mask >> i & 1]


def naked_subsets(grid: Candidates, k: int) -> Iterator[Step]:
    """k cells of a unit sharing k candidates between them."""
    masks = digit_masks(grid)
    sees = grid.layout.sees
    for u, unit in enumerate(grid.geometry.units):
        open_cells = [c for c in unit if 2 <= masks[c].bit_count() <= k]
        if len(open_cells) < k:
            continue
        for group in combinations(open_cells, k):
            union = 0
            for c in group:
                union |= masks[c]
            if union.bit_count() != k:
                continue
            common = np.flatnonzero(sees[list(group)].all(axis=0)).tolist()
            gone = tuple((c, d) for c in common if masks[c] & union for d in bits(masks[c] & union))
            if not gone:
                continue
            name = f"naked {SUBSET_NAMES[k]}"
            yield Step(
                name,
                f"{name} in {grid.unit_name(u)}: {cell_list(grid, group)} can only hold "
                f"{digit_list(grid, bits(union))}, so those digits are spent there and no cell "
                f"seeing all of them can hold one: {elimination_text(grid, gone)}",
                eliminations=gone,
                cells=tuple(group),
                units=(u,),
                digits=tuple(bits(union)),
            )


def hidden_subsets(grid: Candidates, k: int) -> Iterator[Step]:
    """k digits of a unit confined to the same k cells."""
    masks = digit_masks(grid)
    size = grid.geometry.size
    # [unit, digit]: the unit's places for the digit as bits of positions in the unit
    weights = 1 << np.arange(size, dtype=np.int64)
    where_of = np.einsum("upd,p->ud", grid.marks[grid.layout.unit_cells], weights).tolist()
    for u, unit in enumerate(grid.geometry.units):
        places = {
            d + 1: where for d, where in enumerate(where_of[u]) if 2 <= where.bit_count() <= k
        }
        if len(places) < k:
            continue
        for digits in combinations(places, k):
            where = 0
            for d in digits:
                where |= places[d]
            if where.bit_count() != k:
                continue
            cells = [unit[i] for i in range(size) if where >> i & 1]
            keep = sum(1 << (d - 1) for d in digits)
            gone = tuple((c, d) for c in cells for d in bits(masks[c] & ~keep))
            if not gone:
                continue
            name = f"hidden {SUBSET_NAMES[k]}"
            yield Step(
                name,
                f"{name} in {grid.unit_name(u)}: {digit_list(grid, digits)} can only go in "
                f"{cell_list(grid, cells)}, so those cells hold nothing else: "
                f"{elimination_text(grid, gone)}",
                eliminations=gone,
                cells=tuple(cells),
                units=(u,),
                digits=tuple(digits),
            )
