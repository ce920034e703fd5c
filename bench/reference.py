"""A plain-Python bitmask sudoku solver, kept only as the yardstick for bench/solver.py.

No numpy, no numba: candidates are ints (bit d-1 = digit d), placing a digit clears it
from the 20 peers, hidden singles are found per unit, and the search branches on the cell
with the fewest candidates. It is what a careful Python programmer writes in an afternoon;
its speed measured in the same run as the compiled engines gives ratios that survive a
noisy or slower machine.
"""

from __future__ import annotations

ALL = 0x1FF
ROWS = [[r * 9 + c for c in range(9)] for r in range(9)]
COLS = [[r * 9 + c for r in range(9)] for c in range(9)]
BOXES = [
    [(br * 3 + dr) * 9 + bc * 3 + dc for dr in range(3) for dc in range(3)]
    for br in range(3)
    for bc in range(3)
]
UNITS = ROWS + COLS + BOXES
PEERS = [sorted({p for u in UNITS if c in u for p in u} - {c}) for c in range(81)]
BIT = {1 << d: d + 1 for d in range(9)}


def _assign(cand: list[int], cell: int, bit: int) -> bool:
    """Put `bit` in `cell` and propagate naked singles; False on a contradiction."""
    todo = [(cell, bit)]
    while todo:
        cell, bit = todo.pop()
        cand[cell] = bit
        for p in PEERS[cell]:
            m = cand[p]
            if m & bit:
                m &= ~bit
                if not m:
                    return False
                cand[p] = m
                if not m & (m - 1):
                    todo.append((p, m))
    return True


def _hidden_singles(cand: list[int]) -> int:
    """Place digits that fit in one cell of a unit: 1 if any placed, 0 if none, -1 on failure."""
    placed = 0
    for unit in UNITS:
        once = twice = 0
        for c in unit:
            m = cand[c]
            twice |= once & m
            once |= m
        if once != ALL:
            return -1
        only = once & ~twice
        while only:
            bit = only & -only
            only ^= bit
            for c in unit:
                if cand[c] & bit:
                    if cand[c] != bit:
                        if not _assign(cand, c, bit):
                            return -1
                        placed = 1
                    break
    return placed


def _search(cand: list[int]) -> list[int] | None:
    while True:
        found = _hidden_singles(cand)
        if found < 0:
            return None
        if not found:
            break
    best, best_n = -1, 10
    for c in range(81):
        m = cand[c]
        if m & (m - 1):
            n = bin(m).count("1")
            if n < best_n:
                best, best_n = c, n
                if n == 2:
                    break
    if best < 0:
        return cand
    m = cand[best]
    while m:
        bit = m & -m
        m ^= bit
        trial = cand[:]
        if _assign(trial, best, bit):
            solved = _search(trial)
            if solved is not None:
                return solved
    return None


def solve(puzzle: str) -> str | None:
    """First solution of an 81-character puzzle ('.' or '0' blank), or None."""
    cand = [ALL] * 81
    for cell, ch in enumerate(puzzle):
        if ch in "123456789":
            bit = 1 << (int(ch) - 1)
            if not cand[cell] & bit or not _assign(cand, cell, bit):
                return None
    solved = _search(cand)
    if solved is None:
        return None
    return "".join(str(BIT[m]) for m in solved)


if __name__ == "__main__":
    import sys

    for line in sys.stdin:
        line = line.strip()
        if line and not line.startswith("#"):
            print(solve(line) or "no solution")
