"""New puzzles made to order: one solution, a chosen shape, symmetry, level or rating.

How a puzzle is made (QQwing's and HoDoKu's recipe, with the project's own engines):

1. a full grid: a dozen or so random givens placed where the rules allow, completed by the
   fast engine (`solver.fast`), digits relabelled at random;
2. holes dug in random order, one *orbit* of the asked symmetry at a time (a cell and its
   mirror images), each kept open only while the fast engine still counts exactly one
   solution (limit 2): a single pass leaves no orbit that could go;
3. graded by the project's own logic (`solver.logic.explain`), first limited to the
   techniques of the asked level: where that gets stuck, the solution's digits of that
   cell's orbit go back in and it is tried again; a candidate it finishes gets the full
   grade, which decides; one too easy is dropped for a fresh grid. An easy puzzle is dug
   with singles alone (a puzzle singles fill is unique), so it never needs a second grade.

Unfair and extreme puzzles are rare among random ones (about one in four and one in three
hundred), so candidates are drawn until one fits or the time limit passes; cheap filters
(singles alone fill it: easy; how many branches the fast engine's search needs, none for
most easy to hard puzzles) drop most candidates that cannot fit before logic grades them.

>>> made = generate("easy", seed=1)[0]
>>> made.grade.level, made.puzzle.n_givens >= 17, len(made.line)
('easy', True, 81)
"""

from __future__ import annotations

import math
import signal
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from solver import geometry as geo
from solver.grid import Puzzle, format_line

if TYPE_CHECKING:
    from solver.logic.grade import Grade

# HoDoKu's five (solver.logic.grade.LEVELS, whose "guess", logic cannot finish, is never
# made); named here so that `import solver` does not load the logic engine
MADE_LEVELS = ("easy", "medium", "hard", "unfair", "extreme")
SIZES = (4, 6, 9, 16)
VARIANTS = ("standard", "diagonal")
DEFAULT_TIME_LIMIT = 60.0  # seconds for the whole order, unless told otherwise
RATING_RANGE = (1.0, 11.9)  # Sudoku Explainer's scale


class GenerateError(ValueError):
    """An order that cannot be made: the message names the option and what is allowed."""


class GenerateTimeout(GenerateError):
    """No puzzle fitting the order was found within the time limit."""


# -- symmetry --------------------------------------------------------------------------------

# Maps of a board position (r, c) on an n×n board, m = n - 1: the images of a cell under
# the symmetry's group, besides the cell itself.
_MAPS: dict[str, tuple[Callable[[int, int, int], tuple[int, int]], ...]] = {
    "none": (),
    "central": (lambda r, c, m: (m - r, m - c),),  # 180° turn: the newspaper's symmetry
    "rotational": (  # 90° turns
        lambda r, c, m: (c, m - r),
        lambda r, c, m: (m - r, m - c),
        lambda r, c, m: (m - c, r),
    ),
    "vertical": (lambda r, c, m: (r, m - c),),  # mirror in the vertical axis (left <-> right)
    "horizontal": (lambda r, c, m: (m - r, c),),  # mirror in the horizontal axis
    "diagonal": (lambda r, c, m: (c, r),),  # mirror in the main diagonal
    "antidiagonal": (lambda r, c, m: (m - c, m - r),),
    "dihedral": (  # every turn and mirror of the square
        lambda r, c, m: (c, m - r),
        lambda r, c, m: (m - r, m - c),
        lambda r, c, m: (m - c, r),
        lambda r, c, m: (r, m - c),
        lambda r, c, m: (m - r, c),
        lambda r, c, m: (c, r),
        lambda r, c, m: (m - c, m - r),
    ),
}
SYMMETRIES = tuple(_MAPS)


def orbits(geometry: geo.Geometry, symmetry: str) -> list[tuple[int, ...]]:
    """The cells that must be given or open together for `symmetry`, each orbit once.

    >>> [len(o) for o in orbits(geo.standard(2), "central")]
    [2, 2, 2, 2, 2, 2, 2, 2]
    >>> len(orbits(geo.standard(3), "central")), len(orbits(geo.standard(3), "dihedral"))
    (41, 15)
    """
    m = geometry.rows - 1
    seen: set[int] = set()
    found = []
    for cell, (r, c) in enumerate(geometry.positions):
        if cell in seen:
            continue
        orbit = {cell} | {geometry.cell_at[f(r, c, m)] for f in _MAPS[symmetry]}
        seen |= orbit
        found.append(tuple(sorted(orbit)))
    return found


def is_symmetric(values: np.ndarray, geometry: geo.Geometry, symmetry: str) -> bool:
    """Whether the given cells form a pattern with `symmetry`.

    >>> g = geo.standard(2)
    >>> is_symmetric(np.array([1] + [0] * 14 + [2]), g, "central")
    True
    """
    given = np.asarray(values) != 0
    return all(len({bool(given[c]) for c in orbit}) == 1 for orbit in orbits(geometry, symmetry))


# -- the fast engine's answers -----------------------------------------------------------------


def count(values: np.ndarray, geometry: geo.Geometry, limit: int = 2) -> int:
    """Solutions of `values`, counted by the fast engine no further than `limit`."""
    from solver import fast

    return fast.search_one(values, geometry, limit=limit, keep=1)[0]


def is_minimal(values: np.ndarray, geometry: geo.Geometry) -> bool:
    """Whether no given can go: every one removed alone lets a second solution in.

    >>> is_minimal(np.zeros(16, np.int8), geo.standard(2))
    True
    """
    values = np.array(values, np.int8)
    for cell in np.flatnonzero(values):
        digit = values[cell]
        values[cell] = 0
        unique = count(values, geometry) == 1
        values[cell] = digit
        if unique:
            return False
    return True


def full_grid(rng: np.random.Generator, geometry: geo.Geometry) -> np.ndarray:
    """A random solved board: random givens where the rules allow them, completed by the
    fast engine, then the digits relabelled at random (which keeps every unit whole).
    Boards above 9x9 start from a grid known to be solvable instead (`_large_grid`).

    >>> grid = full_grid(np.random.default_rng(0), geo.standard(3))
    >>> sorted(grid[:9].tolist()) == list(range(1, 10))
    True
    """
    from solver import fast

    if geometry.n_cells > 81:
        return _large_grid(rng, geometry)
    n, size = geometry.n_cells, geometry.size
    peers = [np.fromiter(p, np.intp) for p in geometry.peers]
    while True:
        values = np.zeros(n, np.int8)
        for cell in rng.permutation(n)[: max(size, n // 7)]:
            allowed = np.setdiff1d(np.arange(1, size + 1), values[peers[cell]])
            if len(allowed):
                values[cell] = rng.choice(allowed)
        found, solutions, _ = fast.search_one(values, geometry, limit=1, keep=1)
        if found:
            return _relabelled(rng, solutions[0], size)


def _relabelled(rng, grid: np.ndarray, size: int) -> np.ndarray:
    relabel = np.concatenate([[0], rng.permutation(size) + 1]).astype(np.int8)
    return relabel[grid]


def _large_grid(rng, geometry: geo.Geometry) -> np.ndarray:
    """A random solved 16x16 (or larger) board that never asks the engine to prove a dead
    end: on 256 cells random givens can contradict each other deep down, and a search that
    has to show there is no solution can run for minutes (numba code, which no time limit
    interrupts). So: the engine's first solution of the empty board, turned and mirrored,
    its rows and columns shuffled within bands and stacks (standard boards), relabelled;
    a third of its cells kept as givens, completed afresh by the engine (a solution exists:
    the grid they came from), and relabelled again."""
    from solver import fast

    n, size = geometry.n_cells, geometry.size
    side = geometry.rows
    _, solutions, _ = fast.search_one(np.zeros(n, np.int8), geometry, limit=1, keep=1)
    grid = _relabelled(rng, solutions[0], size).reshape(side, side)
    grid = np.rot90(grid, int(rng.integers(4)))
    if rng.random() < 0.5:
        grid = grid.T
    if geometry.name.startswith(f"{size}x{size}") and geometry.box_shape:
        box_rows, box_cols = geometry.box_shape
        rows = np.concatenate([b * box_rows + rng.permutation(box_rows) for b in
                               rng.permutation(side // box_rows)])  # fmt: skip
        cols = np.concatenate([b * box_cols + rng.permutation(box_cols) for b in
                               rng.permutation(side // box_cols)])  # fmt: skip
        grid = grid[rows][:, cols]
    grid = grid.reshape(n)
    givens = np.zeros(n, np.int8)
    kept = rng.permutation(n)[: n // 3]
    givens[kept] = grid[kept]
    _, solutions, _ = fast.search_one(givens, geometry, limit=1, keep=1)
    return _relabelled(rng, solutions[0], size)


def dig(
    rng: np.random.Generator,
    solution: np.ndarray,
    geometry: geo.Geometry,
    cells: list[tuple[int, ...]],
    keeps: Callable[[np.ndarray], bool] | None = None,
    values: np.ndarray | None = None,
) -> np.ndarray:
    """Open the orbits of `cells` in random order, each only while the puzzle keeps one
    solution (and `keeps(values)` holds, when given). Starts from the full `solution`, or
    from `values`."""
    values = np.array(solution if values is None else values, np.int8)
    for k in rng.permutation(len(cells)):
        orbit = cells[k]
        if not values[orbit[0]]:
            continue
        values[list(orbit)] = 0
        ok = keeps(values) if keeps is not None else count(values, geometry) == 1
        if not ok:
            values[list(orbit)] = solution[list(orbit)]
    return values


# -- singles, for easy puzzles -----------------------------------------------------------------


def singles_fill(values: np.ndarray, geometry: geo.Geometry) -> bool:
    """Whether naked and hidden singles alone fill the board (an easy puzzle's test; what
    singles fill has one solution, so no count is needed).

    >>> singles_fill(np.zeros(16, np.int8), geo.standard(2))
    False
    """
    t = _singles_tables(geometry)
    full = (1 << geometry.size) - 1
    values = np.array(values, np.int64)
    while True:
        bits = np.where(values > 0, 1 << np.maximum(values - 1, 0), 0)
        taken = np.bitwise_or.reduce(bits[t.peers], axis=1)
        cand = np.where(values > 0, 0, full & ~taken)
        empty = values == 0
        if not empty.any():
            return True
        if (cand[empty] == 0).any():
            return False
        placed = False
        naked = empty & (cand & (cand - 1) == 0)
        if naked.any():
            values[naked] = np.log2(cand[naked]).astype(np.int64) + 1
            placed = True
        else:
            unit_cand = cand[t.units]  # (units, size)
            for d in range(geometry.size):
                has = (unit_cand >> d) & 1
                once = has.sum(axis=1) == 1
                if once.any():
                    cells = t.units[once, np.argmax(has[once], axis=1)]
                    values[cells] = d + 1
                    placed = True
        if not placed:
            return False


@dataclass(frozen=True)
class _Tables:
    peers: np.ndarray  # (n_cells, n_peers)
    units: np.ndarray  # (n_units, size)


@geo.per_geometry
def _singles_tables(geometry: geo.Geometry) -> _Tables:
    width = max(len(p) for p in geometry.peers)
    peers = np.array([sorted(p) + [sorted(p)[0]] * (width - len(p)) for p in geometry.peers])
    return _Tables(peers, np.array(geometry.units))


# -- grading -----------------------------------------------------------------------------------

# explain's technique families whose steps the grade table does not name by prefix
_FAMILY_LEVELS = {
    "Franken fish": "unfair",
    "mutant fish": "extreme",
    "large mutant fish": "extreme",
}


def family_level(family: str) -> str:
    """The highest level of a technique family of `solver.logic.explain` (its steps' names
    start with the family's name in the grade table, e.g. "unique rectangle type 2")."""
    from solver.logic.grade import TECHNIQUES

    if family in _FAMILY_LEVELS:
        return _FAMILY_LEVELS[family]
    levels = [level for name, (level, _) in TECHNIQUES.items() if name.startswith(family)]
    return max(levels, key=level_rank)


def families_up_to(level: str) -> list[str]:
    """explain's technique families no harder than `level`: logic that stops where a puzzle
    of that level would need something harder.

    >>> families_up_to("easy")
    ['full house', 'naked single', 'hidden single']
    """
    from solver.logic.explain import TECHNIQUE_NAMES

    rank = level_rank(level)
    return [f for f in TECHNIQUE_NAMES if level_rank(family_level(f)) <= rank]


def level_rank(level: str) -> int:
    """A level's place on the scale, easy 0 (solver.logic.grade.level_rank)."""
    from solver.logic.grade import level_rank as rank

    return rank(level)


class _OutOfTime(BaseException):
    """Raised by the alarm inside a grade that takes too long (a BaseException, so that no
    `except Exception` on the way can swallow it)."""


@contextmanager
def _alarm(seconds: float):
    """Interrupt the code inside after `seconds` with _OutOfTime (a SIGALRM timer, in the
    main thread of a POSIX process); elsewhere a no-op, and only the checks between
    candidates keep time. Logic grades are pure computation: stopping one midway is safe,
    except inside numba's compiler (a kernel's first call): an exception there is swallowed
    by LLVM's callback and leaves the kernel's cache entry without code, so every later
    compile of it fails ("no compiled object yet"). While this thread holds the compiler's
    lock the alarm rings again a little later instead."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return
    from numba.core.compiler_lock import global_compiler_lock

    def ring(signum, frame):
        if global_compiler_lock.is_locked():
            signal.setitimer(signal.ITIMER_REAL, 0.01)
            return
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def grade(puzzle: Puzzle, techniques: list[str] | None = None):
    """The project's grade of `puzzle` (solver.logic.explain), with the explanation."""
    from solver.logic import explain

    return explain(puzzle, techniques=techniques)


# -- orders ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Order:
    """What to make: the board, the pattern of its givens and how hard it must be."""

    level: str | None = None
    rating: tuple[float, float] | None = None
    symmetry: str = "none"
    size: int = 9
    variant: str = "standard"
    minimal: bool = False

    @property
    def geometry(self) -> geo.Geometry:
        if self.variant == "diagonal":
            return geo.diagonal(math.isqrt(self.size))
        return geo.for_size(self.size)

    @property
    def graded(self) -> bool:
        return self.level is not None or self.rating is not None

    @property
    def span(self) -> tuple[str, str] | None:
        """The easiest and hardest level the order's puzzles can have: the asked level
        twice, or the levels of the techniques rated within the asked range."""
        if self.level is not None or self.rating is None:
            return None if self.level is None else (self.level, self.level)
        low, high = self.rating
        levels = sorted({lv for r, lv in reachable_ratings() if low <= r <= high}, key=level_rank)
        return levels[0], levels[-1]

    @property
    def aim(self) -> str | None:
        """The level to make for: the hardest the order allows (logic limited to it must
        finish a candidate before the full grade looks)."""
        return None if self.span is None else self.span[1]

    def fit(self, found: Grade) -> int:
        """-1 when `found` is too easy for the order, 1 too hard, 0 when it fits."""
        if self.level is not None:
            return int(np.sign(level_rank(found.level) - level_rank(self.level)))
        if self.rating is not None:
            low, high = self.rating
            value = rating_of(found)
            return -1 if value < low else (1 if value > high else 0)
        return 1 if found.level == "guess" else 0

    def describe(self) -> str:
        asked = [f"{self.size}x{self.size}"]
        if self.variant != "standard":
            asked.append(self.variant)
        if self.level:
            asked.append(self.level)
        if self.rating:
            asked.append(f"rated {self.rating[0]:g}..{self.rating[1]:g}")
        if self.symmetry != "none":
            asked.append(f"{self.symmetry} symmetry")
        if self.minimal:
            asked.append("minimal")
        return ", ".join(asked)


def rating_of(found: Grade) -> float:
    """The grade's rating on Sudoku Explainer's scale (`Grade.rating`)."""
    return float(found.rating)


@cache
def reachable_ratings() -> tuple[tuple[float, str], ...]:
    """(rating, level) of every rating a step of the project's logic can have: each
    technique's (solver.logic.rating.RATINGS), chains with SE's length increments up to one
    point more; the marked guess (logic cannot finish) left out, as it is never made.

    >>> min(reachable_ratings()), max(r for r, _ in reachable_ratings())
    ((1.0, 'easy'), 10.0)
    """
    from solver.logic.grade import TECHNIQUES
    from solver.logic.rating import CHAINS, RATINGS, SE_TIERS

    # SE's own tiers: a hidden single in a box, direct pointing, claiming, hidden subsets
    found = {(rating, TECHNIQUES[name][0]) for rating, _, name, _ in SE_TIERS}
    for name, rating in RATINGS.items():
        level = TECHNIQUES[name][0]
        if level == "guess":
            continue
        extra = range(11) if name in CHAINS else range(1)
        found |= {(round(rating + k / 10, 1), level) for k in extra}
    return tuple(sorted(found))


def check_reachable(low: float, high: float, text: str) -> None:
    """GenerateError when no step of the project's logic is rated within low..high.

    >>> check_reachable(2.1, 2.2, "2.1..2.2")
    Traceback (most recent call last):
    ...
    solver.generate.GenerateError: rating '2.1..2.2' is impossible: no step of the project's logic is rated between 2.1 and 2.2 (nearest: 2 and 2.3; nothing above 10 is made: only SE's nested chains rate higher, beyond this logic, and random grids all but never need them)
    """
    ratings = sorted({r for r, _ in reachable_ratings()})
    if any(low <= r <= high for r in ratings):
        return
    below = [r for r in ratings if r < low]
    above = [r for r in ratings if r > high]
    nearest = " and ".join(
        f"{r:g}" for r in ([below[-1]] if below else []) + ([above[0]] if above else [])
    )
    raise GenerateError(
        f"rating {text!r} is impossible: no step of the project's logic is rated between "
        f"{low:g} and {high:g} (nearest: {nearest}; nothing above {ratings[-1]:g} is made: "
        "only SE's nested chains rate higher, beyond this logic, and random grids all but "
        "never need them)"
    )


def parse_rating(text: str) -> tuple[float, float]:
    """A rating range as people write it: "6.6..7.2", "6.6-7.2" or one number "7.2" (that
    rating to one decimal, 7.15..7.25); GenerateError naming what is wrong otherwise.

    >>> parse_rating("6.6..7.2"), parse_rating("4.5")
    ((6.6, 7.2), (4.45, 4.55))
    >>> parse_rating("7.2..6.6")
    Traceback (most recent call last):
    ...
    solver.generate.GenerateError: rating '7.2..6.6': the low end 7.2 is above the high end 6.6
    """
    cleaned = text.strip().replace("..", " ").replace("-", " ").split()
    try:
        bounds = [float(x) for x in cleaned]
    except ValueError:
        bounds = []
    if len(bounds) == 1:
        bounds = [round(bounds[0] - 0.05, 2), round(bounds[0] + 0.05, 2)]
    if len(bounds) != 2:
        raise GenerateError(f"rating {text!r} is not a range like 6.6..7.2 or a number like 7.2")
    return checked_range(*bounds, text)


def checked_range(low: float, high: float, text: str) -> tuple[float, float]:
    """(low, high) when it is a range on Sudoku Explainer's scale, else GenerateError
    naming what is wrong (`text`: the range as the user wrote it)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        raise GenerateError(f"rating {text!r} is not a range like 6.6..7.2 or a number like 7.2")
    lowest, highest = RATING_RANGE
    if low > high:
        raise GenerateError(f"rating {text!r}: the low end {low:g} is above the high end {high:g}")
    if high < lowest or low > highest:
        raise GenerateError(
            f"rating {text!r} is impossible: Sudoku Explainer's scale runs from "
            f"{lowest:g} to {highest:g}"
        )
    return low, high


def make_order(
    level: str | None = None,
    *,
    rating: str | tuple[float, float] | None = None,
    symmetry: str = "none",
    size: int = 9,
    variant: str = "standard",
    minimal: bool = False,
    reachable: bool = True,
) -> Order:
    """Check the options of an order; GenerateError names the first one that cannot be.
    `reachable=False` leaves out the one check that loads the logic engine (whether any
    technique is rated within the asked range), for a caller that must stay quick.

    >>> make_order("hard", symmetry="central").geometry.size
    9
    >>> make_order(size=6, variant="diagonal")
    Traceback (most recent call last):
    ...
    solver.generate.GenerateError: variant diagonal needs square boxes: size 4, 9 or 16, not 6
    """
    if level is not None and level not in MADE_LEVELS:
        raise GenerateError(f"unknown level {level!r}; choose one of {', '.join(MADE_LEVELS)}")
    if level is not None and rating is not None:
        raise GenerateError("ask for a level or a rating, not both")
    if isinstance(rating, str):
        rating = parse_rating(rating)
    elif rating is not None:
        low, high = (float(x) for x in rating)
        rating = checked_range(low, high, f"{low:g}..{high:g}")
    if rating is not None and reachable:
        check_reachable(*rating, f"{rating[0]:g}..{rating[1]:g}")
    if symmetry not in SYMMETRIES:
        raise GenerateError(f"unknown symmetry {symmetry!r}; choose one of {', '.join(SYMMETRIES)}")
    if size not in SIZES:
        raise GenerateError(f"size {size} is not made; choose one of {', '.join(map(str, SIZES))}")
    if variant not in VARIANTS:
        raise GenerateError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    if variant == "diagonal" and math.isqrt(size) ** 2 != size:
        raise GenerateError(f"variant diagonal needs square boxes: size 4, 9 or 16, not {size}")
    return Order(level, rating, symmetry, size, variant, minimal)


# -- making ------------------------------------------------------------------------------------

# A too-hard candidate gets back at most this many orbits (a 9x9 one; a larger board as
# many a 81 cells) before it is dropped.
MAX_ADDED = 6
# Branches the fast engine's search needs to prove a candidate unique, by the level it can
# be: a cheap filter before logic grades it (measured over 2,000 random minimal 9x9
# puzzles: easy ones need none, medium ones rarely more than 3, unfair ones at least one;
# one in 60 of those needing 8 or more is extreme, against one in 300 of all).
BRANCHES = {"medium": (0, 3), "hard": (1, None), "unfair": (1, None), "extreme": (8, None)}
GRADE_BUDGET = 8.0  # seconds one grade may take before its candidate is dropped


@dataclass(frozen=True)
class Made:
    """One new puzzle: its board, solution, the project's grade and what it took."""

    puzzle: Puzzle
    solution: Puzzle
    grade: Grade | None  # None for boards made without a level or rating above 9x9
    seconds: float
    candidates: int  # full grids drawn to make it

    @property
    def line(self) -> str:
        return format_line(self.puzzle)

    def to_dict(self) -> dict:
        found = self.grade
        return {
            "puzzle": self.line,
            "solution": format_line(self.solution),
            "givens": self.puzzle.n_givens,
            "level": found.level if found else None,
            "score": found.score if found else None,
            "hardest": found.hardest if found else None,
            "rating": getattr(found, "rating", None) if found else None,
            "seconds": round(self.seconds, 4),
            "candidates": self.candidates,
        }


def generate(
    level: str | None = None,
    *,
    rating: str | tuple[float, float] | None = None,
    count: int = 1,
    symmetry: str = "none",
    size: int = 9,
    variant: str = "standard",
    minimal: bool = False,
    seed: int | None = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
) -> list[Made]:
    """`count` new puzzles with exactly one solution each, made to the order.

    Parameters
    ----------
    level : {"easy", "medium", "hard", "unfair", "extreme"}, optional
        HoDoKu's level, by the project's own grade (`solver.logic.explain`).
    rating : str or (low, high), optional
        A range on Sudoku Explainer's scale instead of a level ("6.6..7.2").
    count : int
        How many.
    symmetry : str
        Pattern of the givens: one of SYMMETRIES ("central" is the newspapers' 180° turn).
    size : {4, 6, 9, 16}
    variant : {"standard", "diagonal"}
    minimal : bool
        No given can go: each one removed lets a second solution in.
    seed : int, optional
        Same seed, same puzzles.
    time_limit : float, optional
        Seconds for the whole order (None: no limit); GenerateTimeout past it.

    Returns
    -------
    list of Made

    Raises
    ------
    GenerateError
        An option that cannot be made (unknown level, diagonal 6x6, impossible rating).
    GenerateTimeout
        Not made within the time limit; the message says what was found meanwhile.

    Examples
    --------
    >>> [m.grade.level for m in generate("medium", count=2, seed=3)]
    ['medium', 'medium']
    """
    order = make_order(
        level, rating=rating, symmetry=symmetry, size=size, variant=variant, minimal=minimal
    )
    return list(make(order, count=count, seed=seed, time_limit=time_limit))


def make(
    order: Order, *, count: int = 1, seed: int | None = None, time_limit: float | None = None
) -> Iterator[Made]:
    """The puzzles of `order` one at a time (the CLI prints each as soon as it is made).
    A bad count or seed raises GenerateError at once, before the first puzzle."""
    if count < 1:
        raise GenerateError(f"count must be at least 1, not {count}")
    if seed is not None and seed < 0:
        raise GenerateError(f"seed must be 0 or more, not {seed}")
    # the order joins the seed, so that one seed gives other grids for other orders
    rng = np.random.default_rng(None if seed is None else [seed, zlib.crc32(repr(order).encode())])
    deadline = math.inf if time_limit is None else time.monotonic() + time_limit
    return (_make_one(rng, order, deadline, time_limit, number) for number in range(count))


def _make_one(rng, order: Order, deadline: float, time_limit, number: int) -> Made:
    started = time.perf_counter()
    geometry = order.geometry
    cells = orbits(geometry, order.symmetry)
    seen: dict[str, int] = {}
    drawn = 0
    while True:
        if time.monotonic() > deadline:
            raise GenerateTimeout(_timeout_message(order, time_limit, number, drawn, seen))
        drawn += 1
        solution, values = _candidate(rng, order, geometry, cells)
        if values is None or not _may_fit(order, geometry, values):
            continue
        found = _fitted(rng, order, geometry, solution, values, cells, deadline, seen)
        if found is not None:
            values, graded = found
            alphabet = _alphabet(geometry)
            return Made(
                Puzzle(geometry, values, alphabet),
                Puzzle(geometry, solution, alphabet),
                graded,
                time.perf_counter() - started,
                drawn,
            )


def _alphabet(geometry: geo.Geometry) -> str:
    from solver.grid import ALPHABETS

    return ALPHABETS[geometry.size][0]


def _candidate(rng, order: Order, geometry, cells):
    """A full grid and a puzzle dug from it: (solution, values), values None when the order
    asks for a minimal puzzle and this one is minimal only orbit by orbit."""
    solution = full_grid(rng, geometry)
    if order.aim == "easy" and not order.minimal:
        return solution, dig(rng, solution, geometry, cells, keeps=_singles(geometry))
    values = dig(rng, solution, geometry, cells)
    if order.minimal and order.symmetry != "none" and not is_minimal(values, geometry):
        return solution, None
    return solution, values


def _singles(geometry):
    return lambda values: singles_fill(values, geometry)


def _may_fit(order: Order, geometry, values) -> bool:
    """Whether the candidate has a chance at the order's levels: not filled by singles
    alone (an easy puzzle) unless easy ones fit, and needing the levels' range of search
    branches (from the easiest level's lower bound, or the hardest's when even the easiest
    is unfair or above: a rating of 8.5 and up is mostly kraken fish and forcing chains)."""
    span = order.span
    if span is None or span[0] == "easy":
        return True
    if singles_fill(values, geometry):
        return False
    if geometry.size != 9:
        return True  # the ranges are 9x9's; counting 16x16 branches can take long
    from solver import fast

    easiest, hardest = span
    rare = level_rank(easiest) >= level_rank("unfair")
    low = BRANCHES[hardest if rare else easiest][0]
    high = BRANCHES[hardest][1]
    branches = fast.search_nodes(values[None, :], geometry, limit=2)
    return branches >= low and (high is None or branches <= high)


def _fitted(rng, order: Order, geometry, solution, values, cells, deadline, seen):
    """(values, grade) when the candidate fits the order, perhaps after getting back a few
    orbits where it was too hard; None otherwise.

    Logic limited to the aimed level's techniques looks first (`stuck_cell`): where it gets
    stuck, the candidate is too hard, found without the dear searches (chains, kraken fish)
    and the rating a full grade would make there. Only a candidate that logic finishes at
    that level gets the full grade, which decides."""
    if not order.graded and geometry.size != 9:
        return values, None  # unique is all that was asked; logic on 16x16 takes long
    aim = order.aim
    families = None if aim in (None, "extreme") else families_up_to(aim)
    if order.level == "extreme":  # most candidates are unfair at most: found without a rating
        easier = _timed(deadline, stuck_cell, geometry, values, families_up_to("unfair"))
        if easier is None or easier is _OVERRAN:
            seen["unfair or easier"] = seen.get("unfair or easier", 0) + 1
            return None
    for _ in range(MAX_ADDED * max(1, geometry.n_cells // 81) + 1):
        if families is not None:
            stuck = _timed(deadline, stuck_cell, geometry, values, families)
            if stuck is _OVERRAN:
                return None
            if stuck is not None:
                seen[f"harder than {aim}"] = seen.get(f"harder than {aim}", 0) + 1
                if order.minimal:
                    return None
                values = _with_orbit_given(values, solution, stuck, cells)
                continue
        explained = _timed(deadline, grade, Puzzle(geometry, values, _alphabet(geometry)))
        if explained is _OVERRAN:
            return None
        found = explained.grade
        seen[found.level] = seen.get(found.level, 0) + 1
        fit = order.fit(found)
        if fit == 0:
            return values, found
        if fit < 0 or order.minimal:
            return None
        values = _with_hard_cell_given(rng, values, solution, explained, cells)
    return None


def stuck_cell(geometry, values, families: list[str]) -> int | None:
    """Where logic limited to `families` gets stuck on the puzzle: the open cell with the
    fewest candidates there (where `explain` would guess), or None when it finishes. Stops
    at the first stall and rates nothing, unlike a full `explain`.

    >>> g = geo.standard(3)
    >>> stuck_cell(g, np.zeros(81, np.int8), families_up_to("hard"))
    0
    """
    from solver.logic.candidates import Candidates
    from solver.logic.explain import _on_the_way, _still_valid, next_steps

    grid = Candidates.from_values(geometry, values, _alphabet(geometry))
    chosen = _on_the_way(families, True)
    while not grid.is_solved:
        batch = [step for step in next_steps(grid, chosen) if _still_valid(grid, step)]
        if not batch:
            counts = np.where(grid.values == 0, grid.marks.sum(axis=1), 10_000)
            return int(np.argmin(counts))
        for step in batch:
            if _still_valid(grid, step):
                grid.apply(step)
    return None


_OVERRAN = object()  # what `_timed` answers when its call took too long


def _timed(deadline, call, *args):
    """call(*args), or _OVERRAN when it overran GRADE_BUDGET or the order's deadline."""
    budget = min(GRADE_BUDGET, deadline - time.monotonic())
    if budget <= 0:
        return _OVERRAN
    try:
        with _alarm(budget):
            return call(*args)
    except _OutOfTime:
        return _OVERRAN


def _with_orbit_given(values, solution, cell: int, cells):
    """The puzzle with the solution's digits in the orbit of `cell`."""
    values = np.array(values, np.int8)
    orbit = list(next(o for o in cells if cell in o))
    values[orbit] = solution[orbit]
    return values


def _with_hard_cell_given(rng, values, solution, explained, cells):
    """The puzzle with one more orbit given: one of the open cells of the first hardest
    step (so that step, or the guess, is no longer needed)."""
    from solver.logic.rating import step_rating

    values = np.array(values, np.int8)
    open_now = values == 0
    steps = explained.steps
    hardest = max(range(len(steps)), key=lambda k: (step_rating(steps[k]), -k))
    for step in steps[:hardest]:
        for cell, _digit in step.placements:
            open_now[cell] = False
    touched = [c for c in steps[hardest].cells if open_now[c]]
    pool = touched or np.flatnonzero(open_now).tolist()
    return _with_orbit_given(values, solution, pool[int(rng.integers(len(pool)))], cells)


def _timeout_message(order: Order, time_limit, number: int, drawn: int, seen) -> str:
    levels = ", ".join(f"{n} {level}" for level, n in sorted(seen.items(), key=_rank_key))
    made = f"{number} made, " if number else ""
    return (
        f"no puzzle fitting the order ({order.describe()}) within the time limit of "
        f"{time_limit:g} s: {made}{drawn} candidates drawn"
        + (f", graded {levels}" if levels else "")
        + "; raise the time limit or ask for something less rare"
    )


def _rank_key(item):
    name = item[0].removeprefix("harder than ").removesuffix(" or easier")
    return level_rank(name) + (0.5 if item[0].startswith("harder") else 0)
