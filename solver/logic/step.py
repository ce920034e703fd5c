"""One deduction a person could make, and the words that explain it.

A `Step` names its technique, the cells, units and digits the deduction rests on, what it
changes (placements, eliminations: pairs (cell, digit)) and a plain sentence such as
"r4c5 must be 7: it is the only cell of box 5 that can hold 7". Steps are plain data, so
the CLI, the HTTP API and the tests read them the same way.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    technique: str
    text: str
    placements: tuple[tuple[int, int], ...] = ()
    eliminations: tuple[tuple[int, int], ...] = ()
    cells: tuple[int, ...] = ()
    units: tuple[int, ...] = ()
    digits: tuple[int, ...] = ()

    @property
    def changes(self) -> int:
        return len(self.placements) + len(self.eliminations)

    def to_dict(self, geometry, alphabet: str) -> dict:
        """JSON-ready description: cells by players' names, digits as printed symbols."""

        def pairs(items):
            return [{"cell": geometry.cell_name(c), "digit": alphabet[d - 1]} for c, d in items]

        return {
            "technique": self.technique,
            "text": self.text,
            "placements": pairs(self.placements),
            "eliminations": pairs(self.eliminations),
            "cells": [geometry.cell_name(c) for c in self.cells],
            "units": [geometry.unit_names[u] for u in self.units],
            "digits": [alphabet[d - 1] for d in self.digits],
        }


def cell_list(grid, cells) -> str:
    """ "r1c2, r1c5 and r3c3": cells named for a sentence."""
    names = [grid.name(c) for c in cells]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def digit_list(grid, digits) -> str:
    """ "1, 4 and 7"."""
    symbols = [grid.symbol(d) for d in digits]
    if len(symbols) <= 1:
        return "".join(symbols)
    return ", ".join(symbols[:-1]) + " and " + symbols[-1]


def elimination_text(grid, eliminations) -> str:
    """ "removes 7 from r1c1 and r1c2; 3 from r5c5": eliminations grouped by digit."""
    by_digit: dict[int, list[int]] = {}
    for cell, digit in eliminations:
        by_digit.setdefault(digit, []).append(cell)
    parts = [
        f"{grid.symbol(d)} from {cell_list(grid, cells)}" for d, cells in sorted(by_digit.items())
    ]
    return "removes " + "; ".join(parts)
