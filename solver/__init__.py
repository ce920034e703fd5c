"""Sudoku solving: board geometry, parsing, exact cover (DLX), a compiled fast engine.

>>> from solver import parse, solve
>>> result = solve(parse("1-53---9-" "---6-----" "------271" "82-------" "---487---"
...                      "------53-" "23-------" "--7-59---" "--6---8-4"))
>>> result.status, "".join(map(str, result.solutions[0][:9]))
('unique', '175328496')
"""

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

__all__ = [
    "Geometry",
    "Puzzle",
    "PuzzleFormatError",
    "SolveResult",
    "clover",
    "conflicts",
    "count_solutions",
    "diagonal",
    "for_size",
    "format_line",
    "format_pretty",
    "format_rows",
    "is_unique",
    "parse",
    "rectangular",
    "solve",
    "standard",
]


def __getattr__(name: str):
    # The solve API pulls in numba only when first used, so `import solver` stays cheap
    # for the CLI's cold start and for modules that only parse.
    if name in ("solve", "count_solutions", "is_unique", "SolveResult"):
        from solver import solve as _solve_module

        return getattr(_solve_module, name)
    raise AttributeError(f"module 'solver' has no attribute {name!r}")
