"""The answers people want from a puzzle: its solution, or why there is not exactly one.

`solve` checks the givens first (two equal symbols in a unit make the puzzle invalid, and
the message names both cells), then counts solutions up to a limit with either engine:
"fast" (bitmask propagation: `solver.plain` for a one-off puzzle in a fresh process, the
compiled `solver.fast` beyond that) or "dlx" (exact cover, `solver.dlx`). It always
looks for at least two solutions, so "unique" is a fact, never a guess.

>>> from solver.grid import parse
>>> solve(parse("." * 81)).status
'multiple'
>>> solve(parse("11" + "." * 79)).reason
'r1c1 and r1c2 both hold 1'
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np

from solver.grid import Puzzle, conflicts, parse

METHODS = ("fast", "dlx")
STATUSES = ("unique", "multiple", "none", "invalid")


@dataclass(frozen=True)
class SolveResult:
    """status: "unique", "multiple", "none" or "invalid".

    `solutions` holds up to `limit` solutions as (n_cells,) int8 arrays of 1..size;
    `count` is the number found, capped at max(limit, 2) (`count == cap` means "at least");
    `reason` says why there is no solution or why the givens are invalid.
    """

    status: str
    solutions: list[np.ndarray] = field(default_factory=list)
    count: int = 0
    reason: str = ""
    cap: int = 2

    @property
    def solution(self) -> np.ndarray | None:
        """The first solution, or None."""
        return self.solutions[0] if self.solutions else None

    @property
    def count_is_exact(self) -> bool:
        return self.count < self.cap


def _as_puzzle(puzzle: Puzzle | str) -> Puzzle:
    return parse(puzzle) if isinstance(puzzle, str) else puzzle


def solve(puzzle: Puzzle | str, *, method: str = "fast", limit: int = 2) -> SolveResult:
    """Solve a puzzle: unique, multiple (with up to `limit` solutions), none or invalid.

    Parameters
    ----------
    puzzle : Puzzle or str
        A parsed board, or any text `parse` reads.
    method : {"fast", "dlx"}
        The compiled propagation engine or exact cover (DLX).
    limit : int
        The most solutions to return; at least two are looked for, to tell unique from
        multiple.

    Returns
    -------
    SolveResult

    Examples
    --------
    >>> solve("." * 81).status, solve("11" + "." * 79).status
    ('multiple', 'invalid')
    >>> solve("." * 81, limit=3).count
    3
    """
    puzzle = _as_puzzle(puzzle)
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    clashes = conflicts(puzzle)
    if clashes:
        return SolveResult("invalid", [], 0, "; ".join(clashes), max(limit, 2))
    cap = max(limit, 2)
    keep = max(limit, 1)
    if method == "fast":
        count, solutions, reason = _fast(puzzle, cap, keep)
    else:
        count, solutions, reason = _dlx(puzzle, cap, keep)
    if count == 0:
        return SolveResult(
            "none", [], 0, reason or "every branch of the search ends in a contradiction", cap
        )
    status = "unique" if count == 1 else "multiple"
    return SolveResult(status, list(solutions[:keep]), count, "", cap)


def count_solutions(puzzle: Puzzle | str, *, limit: int = 1000, method: str = "fast") -> int:
    """How many solutions the puzzle has, counting no further than `limit`.

    Parameters
    ----------
    puzzle : Puzzle or str
        A parsed board, or any text `parse` reads.
    limit : int
        Stop counting here.
    method : {"fast", "dlx"}

    Returns
    -------
    int
        0 for givens that break the rules, else min(solutions, limit).

    Examples
    --------
    >>> count_solutions("." * 81, limit=5), count_solutions("11" + "." * 79)
    (5, 0)
    """
    puzzle = _as_puzzle(puzzle)
    if conflicts(puzzle):
        return 0
    if method == "fast":
        return _fast(puzzle, limit, 0)[0]
    return _dlx(puzzle, limit, 0)[0]


def is_unique(puzzle: Puzzle | str, *, method: str = "fast") -> bool:
    """Whether the puzzle has exactly one solution.

    Parameters
    ----------
    puzzle : Puzzle or str
        A parsed board, or any text `parse` reads.
    method : {"fast", "dlx"}

    Returns
    -------
    bool

    Examples
    --------
    >>> is_unique("." * 81)
    False
    """
    return count_solutions(puzzle, limit=2, method=method) == 1


# Branches the plain search may try before the compiled engine takes over: about 0.2 s,
# more than 99% of the hardest-11+ set needs to prove uniqueness (measured: p99 2,000).
PLAIN_BUDGET = 3000


def _fast(puzzle: Puzzle, limit: int, keep: int) -> tuple[int, list[np.ndarray], str]:
    # Until this process has loaded the compiled engine (0.6 s of numba start-up), a
    # one-off puzzle is answered sooner by the plain search; a hard one falls through.
    if "solver.fast" not in sys.modules:
        from solver import plain

        try:
            count, solutions = plain.search(puzzle, limit=limit, keep=keep, budget=PLAIN_BUDGET)
        except plain.BudgetExceeded:
            pass
        else:
            if count:
                return count, solutions, ""
    from solver import fast

    count, solutions, fail = fast.search_one(puzzle.values, puzzle.geometry, limit=limit, keep=keep)
    return count, list(solutions), _fast_reason(puzzle, fail) if count == 0 else ""


def _fast_reason(puzzle: Puzzle, fail: np.ndarray) -> str:
    from solver import fast

    g = puzzle.geometry
    kind, index, bits = (int(x) for x in fail)
    symbols = [puzzle.alphabet[k] for k in range(g.size) if bits >> k & 1]
    if kind == fast.FAIL_CELL:
        return f"propagating the givens leaves {g.cell_name(index)} with no candidate"
    if kind == fast.FAIL_UNIT:
        return (
            f"propagating the givens leaves no place in {g.unit_names[index]} "
            f"for {' or '.join(symbols)}"
        )
    if kind == fast.FAIL_CELL_TWO:
        return (
            f"propagating the givens makes {g.cell_name(index)} the only place for both "
            f"{' and '.join(symbols)}"
        )
    return "no solution: every branch of the search ends in a contradiction"


def _dlx(puzzle: Puzzle, limit: int, keep: int) -> tuple[int, list[np.ndarray], str]:
    from solver import dlx

    cover = dlx.sudoku_cover(puzzle.geometry)
    count, solutions, column = cover.search(puzzle.values, limit=limit, keep=keep)
    reason = ""
    if count == 0:
        if column >= 0:
            reason = "the givens leave " + cover.column_name(column, puzzle.alphabet)
        else:
            reason = "no solution: every branch of the search ends in a contradiction"
    return count, solutions, reason
