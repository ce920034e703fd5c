"""Sudoku solving: board geometry, parsing, exact cover (DLX), a compiled fast engine.

>>> from solver import parse, solve
>>> result = solve(parse("1-53---9-" "---6-----" "------271" "82-------" "---487---"
...                      "------53-" "23-------" "--7-59---" "--6---8-4"))
>>> result.status, "".join(map(str, result.solutions[0][:9]))
('unique', '175328496')
"""

from solver.generate import GenerateError, GenerateTimeout, Made, generate
from solver.geometry import Geometry, clover, diagonal, for_size, rectangular, standard
from solver.grid import (
    Puzzle,
    PuzzleFormatError,
    conflicts,
    format_line,
    format_pretty,
    format_rows,
    parse,
)
from solver.many import LineOutcome, solve_many
from solver.solve import SolveResult, count_solutions, is_unique, solve

__all__ = [
    "GenerateError",
    "GenerateTimeout",
    "Made",
    "Geometry",
    "LineOutcome",
    "Puzzle",
    "PuzzleFormatError",
    "SolveResult",
    "clover",
    "conflicts",
    "count_solutions",
    "diagonal",
    "for_size",
    "generate",
    "format_line",
    "format_pretty",
    "format_rows",
    "is_unique",
    "parse",
    "rectangular",
    "solve",
    "solve_many",
    "standard",
]
