"""The plain-Python yardstick for bench/solver.py: `solver.plain` on an 81-character line.

`solver.plain` is what a careful Python programmer writes in an afternoon (int bitmasks,
naked singles propagated on assignment, hidden singles per unit, fewest-candidates
branching; no numpy, no numba). Its speed measured in the same run as the compiled engines
gives ratios that survive a noisy or slower machine.
"""

from __future__ import annotations

from solver.geometry import standard
from solver.plain import search_values

DIGITS = "123456789"
NINE = standard()


def solve(puzzle: str) -> str | None:
    """First solution of an 81-character puzzle ('.' or '0' blank), or None."""
    values = [DIGITS.index(ch) + 1 if ch in DIGITS else 0 for ch in puzzle]
    count, found = search_values(NINE, values, limit=1, keep=1)
    return "".join(map(str, found[0])) if count else None


if __name__ == "__main__":
    import sys

    for line in sys.stdin:
        line = line.strip()
        if line and not line.startswith("#"):
            print(solve(line) or "no solution")
