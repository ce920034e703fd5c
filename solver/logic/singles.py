"""Singles: the placements every solver makes first.

- full house: the last empty cell of a unit takes the one digit the unit still lacks;
- naked single: a cell with one candidate left ("the only number that can go in this square");
- hidden single: a digit with one possible cell in a unit ("the only square this number can
  go in").

Each finds every instance at once with array operations over all units, so the singles that
make up most of an easy puzzle cost a few array passes, not a Python loop per cell.

>>> from solver.geometry import standard
>>> from solver.logic.candidates import Candidates
>>> grid = Candidates.from_values(standard(2), [1, 2, 3, 0] + [0] * 12)
>>> full_house(grid)[0].text
'r1c4 must be 4: it is the last empty cell of row 1'
"""

from __future__ import annotations

import numpy as np

from solver.logic.candidates import Candidates
from solver.logic.step import Step


def full_house(grid: Candidates) -> list[Step]:
    """The last empty cell of a unit (one step per cell, from its first such unit)."""
    cells = grid.layout.unit_cells
    empty = grid.values[cells] == 0
    steps, seen = [], set()
    for unit in np.flatnonzero(empty.sum(axis=1) == 1):
        cell = int(cells[unit][empty[unit]][0])
        digits = grid.digits_of(cell)
        if cell in seen or len(digits) != 1:
            continue
        seen.add(cell)
        digit = digits[0]
        steps.append(
            Step(
                "full house",
                f"{grid.name(cell)} must be {grid.symbol(digit)}: it is the last empty cell of "
                f"{grid.unit_name(int(unit))}",
                placements=((cell, digit),),
                cells=(cell,),
                units=(int(unit),),
                digits=(digit,),
            )
        )
    return steps


def naked_singles(grid: Candidates) -> list[Step]:
    """Cells with exactly one candidate left."""
    steps = []
    for cell in np.flatnonzero(grid.marks.sum(axis=1) == 1):
        cell = int(cell)
        digit = grid.digits_of(cell)[0]
        steps.append(
            Step(
                "naked single",
                f"{grid.name(cell)} must be {grid.symbol(digit)}: it is the only candidate "
                "left in that cell",
                placements=((cell, digit),),
                cells=(cell,),
                digits=(digit,),
            )
        )
    return steps


def hidden_singles(grid: Candidates) -> list[Step]:
    """Digits with exactly one possible cell in some unit (one step per cell)."""
    cells = grid.layout.unit_cells
    places = grid.marks[cells]  # (units, size cells, size digits)
    units, digit_index = np.nonzero(places.sum(axis=1) == 1)
    steps, seen = [], set()
    for unit, d in zip(units.tolist(), digit_index.tolist(), strict=True):
        cell = int(cells[unit][places[unit, :, d]][0])
        if cell in seen:
            continue
        seen.add(cell)
        digit = d + 1
        steps.append(
            Step(
                "hidden single",
                f"{grid.name(cell)} must be {grid.symbol(digit)}: it is the only cell of "
                f"{grid.unit_name(unit)} that can hold {grid.symbol(digit)}",
                placements=((cell, digit),),
                cells=(cell,),
                units=(unit,),
                digits=(digit,),
            )
        )
    return steps
