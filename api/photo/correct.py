"""Recognition that the rules correct: the most probable reading that is a proper sudoku.

A photo solver's commonest failure is one misread digit: a 3 read as 8 makes the board
conflict, have no solution, or several. The recogniser gives, for every cell, a probability
for "empty" and for each digit, so a reading is not one grid but a distribution over grids.
`correct` searches that distribution, most probable grids first, for the most probable grid
with EXACTLY one solution, and reports every cell it changed.

How: the cost of changing a cell from its read value r to v is log P(r) - log P(v), so the
cost of a set of changes is minus the log of how much less probable the whole grid becomes.
The cheap changes (low-confidence cells) come first; sets of changes are enumerated in
increasing total cost with a heap (each set once), cheap rule checks discard most of them, and
the survivors go to the solver's counter with limit 2. A read digit may also be "empty" (a
hand-written fill-in, a smudge) and an empty cell may hold a faint digit: both are just other
columns of the probability table.

Never a confident wrong answer: a digit is added only where the photo shows ink; every
re-reading with exactly one solution not much less probable than the best is collected; every
single change of the winner's grid is probed and the mass of larger rival change sets is
bounded (`rival_bound`); a solution is accepted only when the readings leading to it outweigh
that bound and hold `Limits.min_posterior` (95%) of the mass found, and when its uniqueness
does not hinge on one doubtful digit whose other readings would leave the puzzle open (a
given missed where no ink was seen, closed by a misread digit or a speck: `_hinge`). The
reading itself, when it already has one solution, is just the first (cheapest) candidate.
When several solutions compete, or the budget runs out first, the result says so and names
the cells most likely at fault, and for a reading with several solutions the cells where one
added digit would settle it.
"""

from __future__ import annotations

import functools
import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from solver.geometry import standard

FLOOR = 1e-6  # no reading is ever impossible: probabilities are floored here
REMOVAL_COST = 6.0  # a read digit may be a fill-in or smudge: at least ~1 in 400
MIN_INK = 0.25  # a digit is added only to a cell showing at least this evidence of ink
# How likely a photo is to hold a given its reader missed with no ink seen in that cell: of the
# 51 givens read as empty in the 320 wichtounet readings (both engines), none lacked ink, so
# at most about 3 in 320 photos (the rule of three). A rival reading with several solutions
# can only be the photo if such a given was missed.
MISSED_PRIOR = 0.01
# How much a digit clearly on paper (a user's entry, read for sure) weighs against a solution
# it contradicts: such a digit disagrees with the true solution when the user erred or the
# reader did; 0.1 stands for a user who gets nearly half their entries wrong, so the paper
# never outweighs the print on a few entries (see `paper_weight`).
PAPER_DOUBT = 0.1
# The winner's uniqueness must not hinge on a doubtful digit: for each of its cells, the summed
# probability (relative to the winner) of the values that leave several solutions, i.e. of
# "this digit is really another, and a given was missed where the reader saw no ink", is at
# most MAX_HINGE (`_hinge`). MISSED_PRIOR weighs such readings as rivals, but it is a guess
# from 320 photos; this rule does not lean on it. Measured (bench/trust.py's simulation,
# 7000 readings per engine): every reading the correction answered WRONG had a hinge of at
# least 0.088, and the right wichtounet readings of the classifier at most 0.03 (0.13 on one
# symmetric puzzle, before NEAR_ODDS; Tesseract's refused 7 of 160, each with a real doubt
# of 0.08 to 0.38).
MAX_HINGE = 0.05
# Odds that a grid whose givens are 180° symmetric still hides a missed given: the print would
# then be asymmetric, or both givens of a mirrored pair were missed. Such a grid's hinge is
# weighed by these odds (`_hinge`). Measured as MAX_HINGE: any odds from 0 to 1/10 gave the
# same counts (no WRONG reading of seeds 11 and 12 had a symmetric grid; one of seed 13 does,
# two mirrored givens both missed: docs/photos.md); without them (odds 1) one more
# classifier photo and two more Tesseract photos were refused, and 3-4% fewer simulated
# readings of symmetric puzzles solved. 1/40 sits well inside that range.
NEAR_ODDS = 1 / 40
# The symmetric pattern vouches for the print only when no empty cell of the winner could hold
# a missed given: a cell showing ink (`MIN_INK`) whose print reading gives a digit at least
# this chance. Both givens of a mirrored pair missed keep the pattern symmetric, and one of
# them usually left some ink (the one WRONG reading of bench/trust.py's seed 13: r5c6, a 7
# read empty at 0.76 with ink 0.39); a clear hand entry or pencil marks read as such give
# print no such chance.
MISSED_DOUBT = 0.1
# A hinge's readings with several solutions are searched for up to this many solutions when
# digits clearly on paper may tell them apart (`_hinge_on_paper`); beyond it the paper is
# asked only whether some other solution contradicts none of it, or one
# (`fewest_contradicted`). A whole grid filled in by hand leaves any other solution at least
# four contradicted entries.
PAPER_SOLUTIONS = 50
# A single rival reading with another solution at least this likely against the winner's own
# reading refuses the winner, however many readings share the winner's solution: the
# posterior sums them, so a winner seen several ways (a pencil mark kept or dropped) can
# pass 95% against a rival nearly as likely as its best reading. 1/30 was chosen after the
# one WRONG reading left in bench/trust.py's 20,000 (seed 11) had its rival at 1 to 26; it
# cost 11 and 18 of 7000 simulated readings solved right and no photo; validated on fresh
# readings (seed 13, docs/photos.md).
RIVAL_ODDS = 1 / 30


# (81, 20) indices of each cell's peers (same row, column or box), from the solver's geometry
PEERS = np.array([sorted(peers) for peers in standard(3).peers], dtype=np.int64)


def cell_name(cell: int, size: int = 9) -> str:
    """r3c5: 1-based row and column, as players say it, on a board `size` cells a side."""
    return f"r{cell // size + 1}c{cell % size + 1}"


@dataclass(frozen=True)
class Change:
    """One cell the rules corrected: `read` was seen, `now` is used (0 = empty)."""

    cell: int
    read: int
    now: int
    confidence: float  # the recogniser's probability of what it read
    probability: float  # its probability of the value now used
    size: int = 9  # the board's side (`api.photo.boards`)

    @property
    def name(self) -> str:
        return cell_name(self.cell, self.size)

    def __str__(self) -> str:
        show = {0: "empty"}
        return (
            f"{self.name}: read {show.get(self.read, self.read)} ({self.confidence:.0%}),"
            f" now {show.get(self.now, self.now)}"
        )

    def said(self, entry: bool = False) -> str:
        """As `str`, or for a printed digit the rules dropped that the check then judges as
        the person's `entry`, what became of it: it was never empty on paper.

        >>> change = Change(60, 7, 0, 0.79, 0.2)
        >>> change.said(), change.said(entry=True)
        ('r7c7: read 7 (79%), now empty', 'r7c7: read 7 (79%) as print, judged as your entry')
        """
        if entry and self.read and not self.now:
            return f"{self.name}: read {self.read} ({self.confidence:.0%}) as print, judged as your entry"
        return str(self)


@dataclass(frozen=True)
class Correction:
    """What the search found.

    status: "unique" (the reading was already a proper sudoku, nothing changed),
    "corrected" (changes made the grid have exactly one solution), "ambiguous" (several
    nearly equally probable corrections lead to different solutions: refused), "not_found"
    (nothing consistent within the budget). `read_count` is how many solutions the read grid
    has (0, 1 or 2 meaning "several"), or -1 when its givens conflict.
    """

    status: str
    values: np.ndarray  # (81,) int8: the grid to solve (the read grid unless corrected)
    solution: np.ndarray | None  # (81,) int8 when status is unique or corrected
    read_count: int
    changes: tuple[Change, ...] = ()
    suspects: tuple[int, ...] = ()  # cells most likely misread, most suspect first
    conflicts: tuple[tuple[int, int], ...] = ()  # conflicting pairs of the read grid
    tried: int = 0  # grids given to the solver's counter
    cost: float = 0.0  # -log(probability ratio) of the chosen grid against the reading
    posterior: float = 1.0  # share of the found readings' probability behind this solution
    elapsed_ms: float = 0.0
    note: str = ""
    rivals: tuple[tuple[Change, ...], ...] = field(default=())
    # a several-solution reading: (cell, digits) where one added digit makes it unique,
    # the cells with most ink first (the likely missed givens)
    completions: tuple[tuple[int, tuple[int, ...]], ...] = ()
    unexplored: float = 0.0  # bound on the rival mass left unexplored (see rival_bound)
    # the digits clearly on paper chose the solution among readings of the print that,
    # weighed without them, would have been refused as too close to call
    by_paper: bool = False
    # the winner's doubtful digit whose other readings leave several solutions (`_hinge`):
    # its cell (-1 for none) and their summed weight against the winner
    hinge_cell: int = -1
    hinge: float = 0.0

    @property
    def solved(self) -> bool:
        return self.status in ("unique", "corrected")


def conflicting_pairs(values: np.ndarray) -> list[tuple[int, int]]:
    """Pairs of cells (a < b) that share a unit and hold the same digit."""
    values = np.asarray(values).reshape(81)
    same = (values[PEERS] == values[:, None]) & (values[:, None] > 0)
    cell, peer = np.nonzero(same)  # by cell, then by peer: PEERS' rows are sorted
    other = PEERS[cell, peer]
    first = cell < other
    return list(zip(cell[first].tolist(), other[first].tolist(), strict=True))


def cell_confidence(values: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """(81,) the recogniser's probability of each cell's value in `values`."""
    probs = np.asarray(probabilities, dtype=np.float64).reshape(81, 10)
    return probs[np.arange(81), np.asarray(values).reshape(81).astype(np.int64)]


def suspects(values: np.ndarray, probabilities: np.ndarray, limit: int = 5) -> tuple[int, ...]:
    """Cells most likely misread: those in conflicts first, then the least confident givens."""
    values = np.asarray(values).reshape(81)
    conf = cell_confidence(values, probabilities)
    in_conflict = {c for pair in conflicting_pairs(values) for c in pair}
    order = sorted(range(81), key=lambda c: (c not in in_conflict, values[c] == 0, conf[c]))
    return tuple(int(c) for c in order[:limit] if c in in_conflict or values[c] > 0)


def removal_cost(log_read: float) -> float:
    """Cost of deciding that a cell read as a digit holds no printed digit at all.

    The recogniser only knows digits it was shown; pencil marks, a hand-written fill-in or a
    smudge get some digit with low confidence and little "empty". So half of the probability
    it did not give its digit is taken as "not a printed digit", and any read digit can be
    dropped for at most REMOVAL_COST: a digit read at 50% costs 0.7, at 99% 5.3.
    """
    p = math.exp(log_read)
    return min(REMOVAL_COST, max(0.0, log_read - math.log(max((1 - p) / 2, FLOOR))))


def _disjoint_pairs(pairs: list[tuple[int, int]]) -> int:
    """How many conflicting pairs share no cell (a greedy matching): a lower bound on the
    number of cells any correction must change."""
    used: set[int] = set()
    n = 0
    for a, b in pairs:
        if a not in used and b not in used:
            used |= {a, b}
            n += 1
    return n


def _moves(
    cost: np.ndarray, values: np.ndarray, may_add: np.ndarray, per_cell: int, max_move_cost: float
) -> list[Move]:
    """Every plausible single-cell change, cheapest first: at
    most `per_cell` per cell, none dearer than `max_move_cost`, and a digit added to an
    empty cell only where the photo shows ink (`may_add`)."""
    table = zip(*_move_table(cost, values, may_add, per_cell, max_move_cost), strict=True)
    return sorted(Move(float(c), int(cell), int(v)) for cell, v, c in table)


def _move_table(cost, values, may_add, per_cell: int, max_move_cost: float):
    """`_moves` as arrays: cells, values and costs, in no order."""
    cost = cost.copy()
    cost[(values == 0) & ~may_add, 1:] = np.inf
    order = np.argsort(cost, axis=1, kind="stable")[:, :per_cell]
    picked = np.take_along_axis(cost, order, axis=1)
    keep = picked <= max_move_cost
    return np.repeat(np.arange(81), per_cell)[keep.ravel()], order[keep], picked[keep]


def _subsets_by_cost(costs: list[float], max_size: int):
    """Yield (total, indices) for non-empty subsets of `costs` (sorted ascending) in
    nondecreasing total, each subset once: extend with the next item, or swap the last
    item for the next one."""
    if not costs:
        return
    heap = [(costs[0], (0,))]
    while heap:
        total, chosen = heapq.heappop(heap)
        yield total, chosen
        last = chosen[-1]
        if last + 1 < len(costs):
            if len(chosen) < max_size:
                heapq.heappush(heap, (total + costs[last + 1], chosen + (last + 1,)))
            swapped = chosen[:-1] + (last + 1,)
            heapq.heappush(heap, (total - costs[last] + costs[last + 1], swapped))


def _default_counter() -> Counter:
    from solver.fast import count_solutions_81

    return count_solutions_81


def _default_batch(grids: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The solver's counts (capped at `limit`) and first solutions of many 9x9 grids in one
    compiled call: the same counts as `count_solutions_81` one by one, and so the same
    solution wherever there is exactly one."""
    from solver.fast import solve_batch

    return solve_batch(grids, limit=limit)


Counter = Callable[[np.ndarray, int], tuple[int, "np.ndarray | None"]]


def remembered(count: Counter, many=None) -> Counter:
    """`count` asked at most once per grid and limit: the search, the probing of the
    winner's single changes and the missed givens' completions reach many grids twice
    (the reading itself, a winner's single change the search already tried; issue 32).

    Its `all(grids, limit)` asks for a list of grids at once: those not asked before go to
    `many` (``many(grids (N, 81), limit) -> (counts, first solutions)``, the solver's batch,
    one compiled call) when given, else one by one to `count`.

    >>> calls = []
    >>> once = remembered(lambda grid, limit: calls.append(limit) or (1, grid))
    >>> grid = np.zeros(81, np.int8)
    >>> _ = once(grid, 2), once(grid.copy(), 2), once(grid, 3)
    >>> calls
    [2, 3]
    """
    answers: dict[bytes, tuple[int, np.ndarray | None]] = {}

    def ask(values: np.ndarray, limit: int) -> tuple[int, np.ndarray | None]:
        key = values.tobytes() + bytes((limit,))  # the grids here are all int8
        answer = answers.get(key)
        if answer is None:
            answer = answers[key] = count(values, limit)
        return answer

    def ask_all(grids: list[np.ndarray], limit: int) -> list[tuple[int, np.ndarray | None]]:
        keys = [grid.tobytes() + bytes((limit,)) for grid in grids]
        if many is not None:
            new = {key: grid for key, grid in zip(keys, grids, strict=True) if key not in answers}
            if new:
                counts, firsts = many(np.stack(list(new.values())), limit)
                for key, n, first in zip(new, counts.tolist(), firsts, strict=True):
                    answers[key] = (n, first if n else None)
        return [ask(grid, limit) for grid in grids]

    ask.all = ask_all
    return ask


class Move(NamedTuple):
    """One cell read as another value, and what that costs: minus the log of how much less
    probable the reading becomes (see `change_costs`)."""

    cost: float
    cell: int
    value: int


class Candidate(NamedTuple):
    """A re-reading with exactly one solution: its cost, the moves from the reading, the
    grid and its solution."""

    cost: float
    moves: tuple[Move, ...]
    grid: np.ndarray
    solution: np.ndarray


@dataclass(frozen=True)
class Limits:
    """How far the correction may stray from the reading, how sure it must be, and how much
    work it may do.

    Parameters
    ----------
    max_changes : int
        Most cells one correction may change; 0 asks for no correction at all.
    per_cell : int
        Other values tried per cell, likeliest first.
    max_move_cost, max_cost : float
        Dearest single change, and dearest set of changes, in nats (minus the log of the
        reading's probability ratio).
    window : float
        Once a grid with one solution is found, every such grid up to this much costlier
        is collected as a rival.
    min_posterior : float
        Share of the weighed mass the winning solution needs.
    max_tries, max_steps : int
        Work budget: solver calls and enumerated change sets. Never the clock, so the
        answer is a function of the reading alone.
    min_ink : float
        A digit is added only to a cell showing at least this evidence of ink.
    missed_prior : float
        Weight of a rival reading with several solutions, which can be the photo only if a
        given was also missed where the reader saw no ink. 1 counts such readings in full.
    max_hinge : float
        Most weight, against the winner, of one cell's changes that leave several
        solutions, before `missed_prior` (`_hinge`); inf turns the rule off.
    """

    max_changes: int = 5
    per_cell: int = 3
    max_move_cost: float = 12.0
    max_cost: float = 16.0
    window: float = 4.0
    min_posterior: float = 0.95
    max_tries: int = 3000
    max_steps: int = 40_000
    min_ink: float = MIN_INK
    missed_prior: float = MISSED_PRIOR
    max_hinge: float = MAX_HINGE

    @property
    def searching(self) -> bool:
        return self.max_changes > 0 and self.max_tries > 0


NO_CORRECTION = Limits(max_changes=0)
SEVERAL = b"several solutions"  # the mass of readings with several solutions (see weigh)


@dataclass(frozen=True)
class Reading:
    """What the recogniser saw, in the forms the correction works with."""

    values: np.ndarray  # (81,) int8, 0 = empty
    probs: np.ndarray  # (81, 10) float64, column 0 = empty
    logp: np.ndarray  # (81, 10) their logs, floored at FLOOR
    ink: np.ndarray  # (81,) the photo's evidence of a mark in each cell, 0..1
    conflicts: tuple[tuple[int, int], ...]
    paper: np.ndarray  # (81,) int8 digits clearly on paper where no given was read, else 0

    @classmethod
    def of(cls, givens, probabilities, ink=None, paper=None) -> Reading:
        """givens (9, 9) or (81,); probabilities (9, 9, 10) or (81, 10); ink (81,) or None
        for 1 - P(empty); paper (81,) or None for none."""
        values = np.ascontiguousarray(np.asarray(givens).reshape(81), dtype=np.int8)
        probs = np.asarray(probabilities, dtype=np.float64).reshape(81, 10)
        marked = 1.0 - probs[:, 0] if ink is None else np.asarray(ink, np.float64).reshape(81)
        logp = np.log(np.clip(probs, FLOOR, 1.0))
        shown = np.zeros(81, np.int8) if paper is None else np.asarray(paper, np.int8).reshape(81)
        shown = np.where(values > 0, 0, shown).astype(np.int8)  # a given speaks for itself
        return cls(values, probs, logp, marked, tuple(conflicting_pairs(values)), shown)

    def changes(self, moves) -> tuple[Change, ...]:
        """The moves as `Change`s, in cell order."""
        v, p = self.values, self.probs
        return tuple(
            Change(
                m.cell,
                int(v[m.cell]),
                m.value,
                float(p[m.cell, v[m.cell]]),
                float(p[m.cell, m.value]),
            )
            for m in sorted(moves, key=lambda m: m.cell)
        )

    def suspects(self) -> tuple[int, ...]:
        return suspects(self.values, self.probs)


@dataclass(frozen=True)
class Weighing:
    """The probability mass behind each solution found (relative to the reading), after the
    winner's single changes were probed, and a bound on the mass of the rivals not explored."""

    winner: Candidate
    mass: dict[bytes, float]  # the print's own weight behind each solution
    unexplored: float
    probes: int  # solver calls the probing made
    paper: dict[bytes, float] = field(default_factory=dict)  # `paper_weight`, 1 if absent
    # `_hinge`: the weight of the winner's most doubtful cell's changes that leave several
    # solutions, before the missed prior, times NEAR_ODDS when its givens are symmetric;
    # and that cell
    hinge: float = 0.0
    hinge_cell: int = -1
    # the heaviest single rival reading with another solution, against the winner's own
    closest: float = 0.0

    def weight(self, key: bytes, paper: bool = True) -> float:
        return self.mass[key] * (self.paper.get(key, 1.0) if paper else 1.0)

    @property
    def winner_mass(self) -> float:
        return self.weight(self.winner.solution.tobytes())

    @property
    def posterior(self) -> float:
        return self.winner_mass / sum(self.weight(k) for k in self.mass)

    @property
    def print_posterior(self) -> float:
        """The winner's share weighed by the print alone, as if nothing were on paper."""
        key = self.winner.solution.tobytes()
        return self.weight(key, False) / sum(self.mass.values())


def correct(
    givens: np.ndarray,
    probabilities: np.ndarray,
    *,
    ink: np.ndarray | None = None,
    paper: np.ndarray | None = None,
    limits: Limits = Limits(),
    count: Counter | None = None,
) -> Correction:
    """Most probable grid near the reading with exactly one solution, or a refusal.

    Parameters
    ----------
    givens : (9, 9) or (81,) ints
        The digits as read, 0 = empty.
    probabilities : (9, 9, 10) or (81, 10)
        The recogniser's probabilities, column 0 = empty.
    ink : (81,) floats, optional
        The photo's own evidence of a mark in each cell (0..1: the reader's blob or the
        cell model's 1 - P(empty)); a digit is added only where it reaches
        `limits.min_ink`. Default: 1 - P(empty) of `probabilities`.
    paper : (81,) ints, optional
        Digits clearly on paper where no given was read (the user's entries, read for
        sure), 0 elsewhere: evidence, never givens. Each solution's weight is multiplied
        by `PAPER_DOUBT` for every one it contradicts (`paper_weight`), so a reading of the
        print that the entries contradict cannot tie with one they agree with.
    limits : Limits
        How far to search and how sure to be (see `Limits`).
    count : callable, optional
        ``count(values, limit) -> (n, first solution)``; the solver's numba counter.

    Returns
    -------
    Correction
        ``unique`` or ``corrected`` with the solution, or a refusal (``ambiguous``,
        ``not_found``) naming the suspect cells and, for a reading with several
        solutions, the cells where one added digit would make it unique.

    Examples
    --------
    A 5 read as 6 (55% against 40%) breaks the rules; reading it as 5 mends them:

    >>> puzzle = ("53..7....6..195....98....6.8...6...34..8.3..17...2...6"
    ...           ".6....28....419..5....8..79")
    >>> givens = np.array([0 if c == "." else int(c) for c in puzzle])
    >>> probs = np.full((81, 10), 0.001)
    >>> probs[np.arange(81), givens] = 0.991
    >>> givens[0] = 6
    >>> probs[0] = [0.01, 0.0, 0.0, 0.0, 0.0, 0.40, 0.55, 0.02, 0.01, 0.01]
    >>> fix = correct(givens, probs)
    >>> fix.status, [str(c) for c in fix.changes]
    ('corrected', ['r1c1: read 6 (55%), now 5'])
    """
    start = time.perf_counter()
    if count is None:  # the same reading corrected once (issue 32)
        fix = _correct_once(*map(_as_key, (givens, probabilities, ink, paper)), limits)
    else:
        reading = Reading.of(givens, probabilities, ink, paper)
        fix = _correct(reading, limits, remembered(count))
    return replace(fix, elapsed_ms=(time.perf_counter() - start) * 1000)


def _as_key(array) -> tuple | None:
    """An array as a hashable key: (dtype, shape, bytes)."""
    if array is None:
        return None
    array = np.ascontiguousarray(array)
    return array.dtype.str, array.shape, array.tobytes()


def _of_key(key: tuple | None) -> np.ndarray | None:
    return None if key is None else np.frombuffer(key[2], np.dtype(key[0])).reshape(key[1])


@functools.lru_cache(maxsize=64)
def _correct_once(givens, probabilities, ink, paper, limits: Limits) -> Correction:
    """`correct` with the solver's counter, remembered per reading: a reading judged
    twice (a live camera's steady frames, a check after a solve) asks the solver nothing
    the second time."""
    reading = Reading.of(*map(_of_key, (givens, probabilities, ink, paper)))
    return _correct(reading, limits, remembered(_default_counter(), _default_batch))


def _correct(reading: Reading, limits: Limits, count: Counter) -> Correction:
    """The correction's steps: the reading as it is, its missed givens, the search, the
    weighing of what was found, and the verdict."""
    read_count, as_read = _as_read(reading, count)
    if as_read is not None and not limits.searching:
        return _verdict(reading, read_count, "unique", solution=as_read.solution)
    beyond = beyond_doubt(reading, as_read, limits) if as_read is not None else None
    if beyond is not None:  # no rival could weigh enough to matter: nothing to search
        rivals, unexplored = beyond
        return _verdict(
            reading,
            read_count,
            "unique",
            solution=as_read.solution,
            posterior=1.0 / (1.0 + rivals),
            unexplored=unexplored,
        )
    missed = {"completions": missed_givens(reading, count) if read_count > 1 else ()}
    if not limits.searching:
        return _verdict(
            reading, read_count, "not_found", note="corrections were not asked for", **missed
        )
    if _disjoint_pairs(list(reading.conflicts)) > limits.max_changes:
        note = f"more than {limits.max_changes} cells would have to change"
        return _verdict(reading, read_count, "not_found", note=note, **missed)
    found, tried = _search(reading, limits, count, [as_read] if as_read else [])
    if read_count > 1:
        likely = tuple(c for c, _ in missed["completions"][:5])
        missed["suspects"] = likely or reading.suspects()
    if not found:
        note = "no nearby reading has exactly one solution"
        return _verdict(reading, read_count, "not_found", note=note, **missed)
    weighing = weigh(reading, found, count, limits.missed_prior, limits.max_hinge)
    return _judge(reading, read_count, found, weighing, tried, limits, missed)


def _as_read(reading: Reading, count: Counter) -> tuple[int, Candidate | None]:
    """How many solutions the reading has (-1 when its givens conflict, 2 for several), and
    the reading itself as the first candidate when it has exactly one."""
    if reading.conflicts:
        return -1, None
    n, first = count(reading.values, 2)
    if n != 1:
        return n, None
    return n, Candidate(0.0, (), reading.values, np.asarray(first, dtype=np.int8))


def beyond_doubt(reading: Reading, as_read: Candidate, limits: Limits):
    """Bounds that settle a reading with exactly one solution as it stands, without the
    search or the weighing: (the summed weight of every rival the weighing could find,
    that of the readings it would leave unexplored), relative to the reading's own, or
    None when they are too heavy to settle it so.

    Every rival with another solution changes a read digit into another, or drops one and
    adds a digit other than the solution's (digits added alone keep a unique grid's
    solution or kill it; drops alone keep it or leave several). So its weight is a term of
    a product over cells of (1 + that cell's move weights), among the sets holding such
    moves: the search's moves (`_moves`) for what it can find, and every single change of a
    read digit for what `weigh` probes. When those stay below every refusal (`RIVAL_ODDS`,
    `limits.max_hinge`, `limits.min_posterior`), and the product over every move the
    weighing bounds (`rival_bound`) stays below the reading's own weight, the weighing
    could only have answered "unique" with this solution: on a sure printed page it would
    spend about 3 ms of solver calls and bounds to say so (issue 32). Digits on paper
    that contradict the solution could prefer a rival: then None.

    >>> puzzle = ("53..7....6..195....98....6.8...6...34..8.3..17...2...6"
    ...           ".6....28....419..5....8..79")
    >>> givens = np.array([0 if c == "." else int(c) for c in puzzle])
    >>> sure = np.full((81, 10), 1e-5); sure[np.arange(81), givens] = 0.999
    >>> reading = Reading.of(givens, sure)
    >>> as_read = _as_read(reading, _default_counter())[1]
    >>> rivals, unexplored = beyond_doubt(reading, as_read, Limits())
    >>> rivals < RIVAL_ODDS and unexplored < 1
    True
    >>> sure[0] = [0.01, 0.0, 0.0, 0.0, 0.0, 0.40, 0.55, 0.02, 0.01, 0.01]   # a doubtful 5
    >>> beyond_doubt(Reading.of(givens, sure), as_read, Limits()) is None
    True
    """
    values, solution = reading.values, as_read.solution.astype(np.int64)
    if ((reading.paper > 0) & (reading.paper != solution)).any():
        return None
    weighed = change_costs(values, reading.logp, drops=False)
    if (weighed < 0).any():  # a digit read against its likeliest value: weigh it all
        return None
    read = values > 0
    cells = np.arange(81)
    # what the search can find: its moves, with the costs it gives them
    searched = np.zeros((81, 10))
    at, value, cost = _move_table(
        change_costs(values, reading.logp),
        values,
        reading.ink >= limits.min_ink,
        limits.per_cell,
        limits.max_move_cost,
    )
    searched[at, value] = np.exp(-cost)
    drop = np.where(read, searched[:, 0], 0.0)
    change = np.where(read, searched[:, 1:].sum(axis=1), 0.0)
    agree = np.where(read, 0.0, searched[cells, solution])  # the solution's digit added
    depart = np.where(read, 0.0, searched[:, 1:].sum(axis=1)) - agree
    with_drops = np.prod(1.0 + drop)
    adds, agreeing_adds = np.prod(1.0 + agree + depart), np.prod(1.0 + agree)
    found = (np.prod(1.0 + drop + change) - with_drops) * adds
    found += (with_drops - 1.0) * (adds - agreeing_adds)
    # what `weigh` probes: every single change of a read digit (`_probe_singles`)
    weight = np.exp(-weighed)  # inf (the value read) -> 0
    held = np.zeros((81, 10), bool)  # a digit a peer holds: no single change writes it
    held[cells[:, None], values[PEERS]] = True
    held[:, 0] = False
    probed = float(np.where(held, 0.0, weight)[read].sum())
    rivals = float(found) + probed * max(1.0, limits.missed_prior)  # several solutions weigh so
    posterior = limits.min_posterior
    enough = min(
        RIVAL_ODDS, limits.max_hinge, (1.0 - posterior) / posterior if posterior else math.inf
    )
    unexplored = math.expm1(float(np.log1p(weight.sum(axis=1)).sum()))
    if rivals >= enough or unexplored >= 1.0:
        return None
    return rivals, unexplored


def missed_givens(reading: Reading, count: Counter) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """A several-solution reading's likely missed givens: every cell where one added digit
    makes it unique (`_completions`), the cells with most ink first."""
    completions = _completions(reading.values, count)
    return tuple(sorted(completions, key=lambda cd: -reading.ink[cd[0]]))


def paper_weight(paper: np.ndarray, solution: np.ndarray) -> float:
    """`PAPER_DOUBT` to the power of the digits on paper that `solution` contradicts.

    >>> paper_weight(np.array([0, 3, 4]), np.array([1, 3, 5]))   # one of two contradicted
    0.1
    """
    shown = paper > 0
    return PAPER_DOUBT ** int((paper[shown] != solution[shown]).sum())


def weigh(
    reading: Reading,
    found: list[Candidate],
    count: Counter,
    missed_prior: float = 1.0,
    max_hinge: float = MAX_HINGE,
) -> Weighing:
    """Weigh each distinct solution by the probability of every reading that leads to it,
    then look at the rest of the space from the winner's grid: its single changes (allowed
    or not) are probed with the solver, larger sets bounded (`rival_bound`); weights
    relative to the winner, then to the reading. Readings with several solutions weigh
    `missed_prior` times their probability, under the key SEVERAL.

    The digits on paper (`Reading.paper`) multiply each known solution's weight by
    `paper_weight`, at most 1, and the winner is the heaviest after that. Then the marks
    the winner contradicts are set aside (they are what the result reports as the user's
    mistakes or unclear entries), and every solution, the winner's included, is weighed
    by the rest: a rival is weighed down for each of those it contradicts, the winner not
    at all. The readings with several solutions keep their full weight, and the
    unexplored rivals are charged only for the cells they are forced to change
    (`rival_bound`)."""
    mass: dict[bytes, float] = {}
    paper: dict[bytes, float] = {}
    for found_one in found:
        key = found_one.solution.tobytes()
        mass[key] = mass.get(key, 0.0) + math.exp(-found_one.cost)
        paper[key] = paper_weight(reading.paper, found_one.solution)
    best = max(mass, key=lambda k: (mass[k] * paper[k], k))
    winner = next(f for f in found if f.solution.tobytes() == best)
    # the marks the winner contradicts are its mistakes or misreads (`api.photo.entries`): set
    # aside, they lift no rival; the rest weigh every solution that contradicts them
    shown = np.where(reading.paper == winner.solution, reading.paper, 0)
    paper = {k: paper_weight(shown, np.frombuffer(k, np.int8)) for k in mass}
    changed = sorted({m.cell for m in winner.moves})
    costs = change_costs(winner.grid, reading.logp, drops=False)
    singles, probes = _probe_singles(winner.grid, costs, changed, count)
    scale = math.exp(-winner.cost)
    known = {tuple((m.cell, m.value) for m in f.moves) for f in found}
    for move, weight, solution in singles:
        if (move,) not in known:  # a rival (or a twin) the search did not reach
            if solution == SEVERAL:
                weight *= missed_prior
            mass[solution] = mass.get(solution, 0.0) + weight * scale
            if solution != SEVERAL and solution not in paper:
                paper[solution] = paper_weight(shown, np.frombuffer(solution, np.int8))
    unexplored = rival_bound(costs, winner.grid, changed, winner.solution, shown) * scale
    hinge, cell = _hinge(reading, winner, singles, shown, max_hinge)
    closest = _closest_rival(found, singles, winner, paper)
    return Weighing(winner, mass, unexplored, probes, paper, hinge, cell, closest)


def symmetric(values: np.ndarray) -> bool:
    """Whether the givens' pattern is unchanged by a half turn about the centre, as most
    newspapers print it."""
    filled = np.asarray(values).reshape(81) > 0
    return bool((filled == filled[::-1]).all())


def _hinge(
    reading: Reading, winner: Candidate, singles, shown: np.ndarray, max_hinge: float
) -> tuple[float, int]:
    """How far the winner's uniqueness hinges on one doubtful digit, and that digit's cell
    (-1 when none does).

    A single change of the winner's grid that leaves several solutions is the photo only if
    a given was also missed where the reader saw no ink; `weigh` discounts it by
    `missed_prior`. But the digit that makes a reading unique with the wrong solution is
    exactly such a digit: a printed 8 read as 3 beside a missed given, the 3 closing the
    puzzle that the 8 left open, or a speck read as a digit. So here each cell's changes
    that leave several solutions are summed without that discount, and the heaviest cell
    is the hinge: how likely it is that this digit is really something that leaves the
    puzzle open. One cell, not all: summed over every given, the engines' small doubts
    about digits they read right add up to as much as one real doubt (on the wichtounet
    photos the sum over cells refused 9 classifier readings that were right at 0.05, the
    heaviest cell none). Undoing one of the winner's own changes does not count: that
    weight is the reading's own, already weighed against the winner by the search. When
    the winner's givens are symmetric, a missed given would have made the print
    asymmetric (or two mirrored givens were both missed): the hinge is weighed by
    `NEAR_ODDS`, unless an empty cell shows ink that may be such a given
    (`_inked_empty_cells`). Digits clearly on paper that agree with the winner (`shown`)
    weigh each such reading by how well its other solutions fit them (`_hinge_on_paper`):
    a given missed by the reader was not missed by the person who filled the grid in. They
    can only lower a cell's weight, so only the cells that would refuse the winner without
    them (above `max_hinge`) are weighed so."""
    changed = {m.cell: reading.values[m.cell] for m in winner.moves}
    per_move: dict[int, list[tuple[int, float]]] = {}
    for (cell, v), weight, solution in singles:
        if solution == SEVERAL and changed.get(cell, -1) != v:
            per_move.setdefault(cell, []).append((v, weight))
    if not per_move:
        return 0.0, -1
    per_cell = {c: sum(w for _, w in moves) for c, moves in per_move.items()}
    order = sorted(per_cell, key=lambda c: (-per_cell[c], c))
    vouched = symmetric(winner.grid) and not _inked_empty_cells(reading, winner.grid).any()
    odds = NEAR_ODDS if vouched else 1.0
    if shown.any():
        per_cell = _hinge_on_paper(winner, per_move, order, per_cell, shown, max_hinge / odds)
    cell = max(order, key=lambda c: (per_cell[c], -c))
    return per_cell[cell] * odds, cell


def _hinge_on_paper(
    winner: Candidate, per_move, order, per_cell, shown, floor: float
) -> dict[int, float]:
    """Each cell's hinge weighed by the digits on paper, heaviest cells first until no
    lighter one could weigh more than `floor` or than a cell already weighed: a change
    that leaves several solutions counts with the `paper_weight` of its likeliest other
    solution (up to `PAPER_SOLUTIONS` of them; beyond that, in full). The winner's solution
    among them is no rival."""
    from solver.fast import search_one

    weighed = dict(per_cell)
    best = floor
    for cell in order:
        if per_cell[cell] <= best:
            break
        total = 0.0
        for v, weight in per_move[cell]:
            grid = winner.grid.copy()
            grid[cell] = v
            count, solutions, _ = search_one(grid, limit=PAPER_SOLUTIONS + 1, keep=PAPER_SOLUTIONS)
            if count <= PAPER_SOLUTIONS:
                others = [s for s in solutions[:count] if not np.array_equal(s, winner.solution)]
                free = np.where(grid == 0, shown, 0)  # a digit the reading sets is its own
                fit = max((paper_weight(free, s) for s in others), default=0.0)
            else:
                fit = PAPER_DOUBT ** fewest_contradicted(grid, shown, winner.solution)
            total += weight * fit
        weighed[cell] = total
        best = max(best, total)
    return weighed


def fewest_contradicted(grid: np.ndarray, shown: np.ndarray, solution: np.ndarray) -> int:
    """How few of the digits on paper (`shown`) some solution of `grid` other than `solution`
    contradicts: 0, 1, or 2 when every other one contradicts at least two.

    Asked of the solver (`near_solutions`), not of a list of the grid's solutions, so a
    reading with thousands of solutions is still weighed by the paper; the answer is a
    lower bound that only ever overstates a rival's fit.

    >>> solution = np.array(list(map(int, "534678912672195348198342567859761423426853791"
    ...     "713924856961537284287419635345286179")), np.int8)
    >>> open_grid = np.zeros(81, np.int8)
    >>> fewest_contradicted(open_grid, solution, solution)    # the paper pins the winner
    2
    >>> fewest_contradicted(open_grid, np.zeros(81, np.int8), solution)   # nothing on paper
    0
    """
    near = near_solutions(grid, shown, solution)
    if near is None:
        return 0
    paper = np.where(np.asarray(grid).reshape(81) == 0, np.asarray(shown).reshape(81), 0)
    return min((int(((paper > 0) & (paper != s)).sum()) for s in near), default=2)


def near_solutions(grid: np.ndarray, paper: np.ndarray, solution: np.ndarray):
    """The solutions of `grid` other than `solution` that contradict at most one digit on
    `paper` (its digits in `grid`'s empty cells): the grid with the paper's digits, all or
    all but one, as givens. None when one of those has more than `PAPER_SOLUTIONS`."""
    from solver.fast import search_one

    grid = np.asarray(grid, np.int8).reshape(81)
    paper = np.where(grid == 0, np.asarray(paper).reshape(81), 0).astype(np.int8)
    solution = np.asarray(solution).reshape(81)
    near: dict[bytes, np.ndarray] = {}
    for cell in [-1, *np.flatnonzero(paper)]:
        givens = np.where((paper > 0) & (np.arange(81) != cell), paper, grid).astype(np.int8)
        count, solutions, _ = search_one(
            givens, limit=PAPER_SOLUTIONS + 2, keep=PAPER_SOLUTIONS + 1
        )
        if count > PAPER_SOLUTIONS:
            return None
        near.update((s.tobytes(), s) for s in solutions[:count] if not np.array_equal(s, solution))
    return list(near.values())


def _inked_empty_cells(reading: Reading, grid: np.ndarray) -> np.ndarray:
    """(81,) the cells empty in `grid` that could hold a missed given: ink seen there
    (`MIN_INK`) and the print reading gives a digit at least `MISSED_DOUBT`."""
    digit = 1.0 - reading.probs[:, 0]
    return (grid == 0) & (reading.ink >= MIN_INK) & (digit >= MISSED_DOUBT)


def _closest_rival(found, singles, winner: Candidate, paper: dict[bytes, float]) -> float:
    """The heaviest single reading (found, or a probed single change) whose solution is not
    the winner's, against the winner's own reading, each times its `paper_weight` (see
    `RIVAL_ODDS`)."""
    key = winner.solution.tobytes()
    best = 0.0
    for f in found:
        other = f.solution.tobytes()
        if other != key:
            best = max(best, math.exp(winner.cost - f.cost) * paper.get(other, 1.0))
    for _, weight, solution in singles:
        if solution not in (key, SEVERAL):
            best = max(best, weight * paper.get(solution, 1.0))
    return best


def _judge(reading, read_count, found, weighing: Weighing, tried, limits, missed) -> Correction:
    """Accept the winner only when neither the unexplored rivals nor the found ones could
    outweigh it."""
    first_of: dict[bytes, tuple[Move, ...]] = {}
    for f in found:
        first_of.setdefault(f.solution.tobytes(), f.moves)
    rivals = tuple(reading.changes(moves) for moves in first_of.values())
    winner = weighing.winner
    work = dict(
        tried=tried + weighing.probes,
        posterior=weighing.posterior,
        cost=winner.cost,
        unexplored=weighing.unexplored,
    )
    if weighing.unexplored >= weighing.winner_mass:
        note = (
            f"the readings not explored could outweigh the best one (up to"
            f" {weighing.unexplored:.2g} against {weighing.winner_mass:.2g})"
        )
        return _verdict(
            reading, read_count, "ambiguous", rivals=rivals, note=note, **work, **missed
        )
    if weighing.posterior < limits.min_posterior:
        note = (
            "several readings lead to different solutions (the likeliest has"
            f" {weighing.posterior:.0%})"
        )
        return _verdict(
            reading, read_count, "ambiguous", rivals=rivals, note=note, **work, **missed
        )
    if weighing.closest >= RIVAL_ODDS:
        note = (
            "another reading with a different solution is nearly as likely"
            f" (1 to {1 / weighing.closest:.0f})"
        )
        return _verdict(
            reading, read_count, "ambiguous", rivals=rivals, note=note, **work, **missed
        )
    if weighing.hinge > limits.max_hinge:
        cell = weighing.hinge_cell
        note = (
            f"the solution hinges on {cell_name(cell)}: read otherwise, the puzzle would have"
            " several solutions, so a given may have been missed"
        )
        # the hinge first, then the reading's own suspects (its likely missed givens when
        # it has several solutions)
        others = missed.get("suspects") or reading.suspects()
        hinged = (cell,) + tuple(c for c in others if c != cell)
        return _verdict(
            reading,
            read_count,
            "ambiguous",
            rivals=rivals,
            note=note,
            hinge_cell=cell,
            hinge=weighing.hinge,
            **work,
            **{**missed, "suspects": hinged[:5]},
        )
    print_alone = weighing.unexplored >= weighing.weight(winner.solution.tobytes(), False)
    work["by_paper"] = print_alone or weighing.print_posterior < limits.min_posterior
    if not winner.moves:  # the reading as it is, with no rival worth the name
        return _verdict(reading, read_count, "unique", solution=winner.solution, **work)
    return _verdict(
        reading,
        read_count,
        "corrected",
        values=winner.grid,
        solution=winner.solution,
        changes=reading.changes(winner.moves),
        **work,
    )


def _verdict(reading: Reading, read_count: int, status: str, **kw) -> Correction:
    """A `Correction` of `reading`: a refusal names its suspects unless told others."""
    kw.setdefault("values", reading.values)
    kw.setdefault("solution", None)
    kw.setdefault("suspects", () if status in ("unique", "corrected") else reading.suspects())
    return Correction(status, read_count=read_count, conflicts=reading.conflicts, **kw)


def change_costs(values: np.ndarray, logp: np.ndarray, drops: bool = True) -> np.ndarray:
    """(81, 10) cost of reading each cell as each value instead of what was read (inf for
    the value read): minus the log of the probability ratio, a dropped digit at most
    `removal_cost` when `drops` (the search's allowance for pencil marks and smudges; the
    rival bound weighs by the probabilities alone)."""
    cells = np.arange(81)
    read = logp[cells, values.astype(np.int64)]
    cost = read[:, None] - logp  # below 0 where another value is likelier (rival bound)
    if drops:
        cost = np.maximum(cost, 0.0)
        digits = np.flatnonzero(values > 0)  # only a read digit can be dropped
        drop = np.array([removal_cost(x) for x in read[digits].tolist()])
        cost[digits, 0] = np.minimum(cost[digits, 0], drop)
    cost[cells, values.astype(np.int64)] = np.inf  # not a change
    return cost


def _completions(values: np.ndarray, count) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Every empty cell where one added digit makes a several-solution grid unique, with
    those digits: where a person can settle the reading in one tap. At most 81 x 9 solver
    calls, fewer after the rule check."""
    out = []
    for cell in np.flatnonzero(values == 0):
        taken = set(values[PEERS[cell]].tolist())
        digits = []
        for d in range(1, 10):
            if d in taken:
                continue
            grid = values.copy()
            grid[cell] = d
            if count(grid, 2)[0] == 1:
                digits.append(d)
        if digits:
            out.append((int(cell), tuple(digits)))
    return tuple(out)


def _probe_singles(grid, cost_table, changed, count):
    """Every single change of the winner's grid that could lead to another solution: a read
    digit turned into another or dropped, or any change where the winner departed from the
    reading. ((cell, value), weight relative to the winner, solution bytes or SEVERAL) for
    those, and the solver calls made.

    A change that leaves several solutions is no proper sudoku by itself, but it is what the
    photo shows if a given was also missed where the reader saw no ink (the missed givens
    of issue 11); its solutions all differ from the winner's where it holds another digit,
    so `weigh` counts it as a rival, times `missed_prior`, and `_hinge` in full. A lone
    added digit cannot change a unique grid's solution, so adds need no solver."""
    probed = grid != 0
    probed[list(changed)] = True
    held = np.zeros((81, 10), bool)  # a digit some peer holds: writing it breaks the rules
    held[np.arange(81)[:, None], grid[PEERS]] = True
    held[:, 0] = False
    cells, values = np.nonzero(np.isfinite(cost_table) & ~held & probed[:, None])
    trials = np.repeat(grid[None], len(cells), axis=0)
    trials[np.arange(len(cells)), cells] = values
    moves = zip(cells.tolist(), values.tolist(), cost_table[cells, values].tolist(), strict=True)
    trials = list(trials)
    # one solver call for them all where the counter can batch (about 100 grids a photo)
    many = getattr(count, "all", None)
    answers = many(trials, 2) if many else [count(trial, 2) for trial in trials]
    out = []
    for (cell, v, c), (n, first) in zip(moves, answers, strict=True):
        if n == 1:
            sol = np.asarray(first, dtype=np.int8).tobytes()
            out.append(((cell, v), math.exp(-c), sol))
        elif n > 1:
            out.append(((cell, v), math.exp(-c), SEVERAL))
    return out, len(trials)


def rival_bound(cost_table, grid, changed, solution, paper=None) -> float:
    """An upper bound on the probability mass, relative to the winner's grid (which has one
    solution), of every set of two or more changes to it that could lead to another
    solution.

    Every set of changes, one per cell, weighs the product of its moves' weights
    exp(-cost); over all sets that is a product over cells of (1 + the cell's summed
    weight). A digit that a peer already holds needs that peer changed too, so its weight
    is multiplied by the peer's. A rival must change a read digit or a cell where the
    winner departed from the reading (added digits alone keep a unique grid's solution or
    kill it), and if every move of a set drops a digit or writes the winner's own digit,
    the winner's solution still fits the changed grid: such a set can only leave several
    solutions (counted in full). Every other rival holds a *departing* move, a digit other
    than the winner's: at a read or changed cell, or an added digit beside a drop. Single
    changes are probed exactly (`_probe_singles`), so only sets of two or more are
    counted.

    With `paper` (digits clearly on paper, `Reading.paper`) a departing move (c, v) also
    names cells the rival's solution must change: c itself, and each cell of c's row,
    column and box where the winner's solution holds v (the rival holds v at c). Each of
    them that shows the winner's digit on paper multiplies the rival's weight by
    `PAPER_DOUBT` (`paper_weight`); a set is charged this once, at its first departing
    move, so no cell is counted twice. The rivals are also bounded solution by solution
    (`_paper_rivals`), and the lower of the two bounds holds: on a grid filled in by hand
    the first lets a set of many doubtful givens weigh in full beside one departing move.
    """
    weight = np.exp(-cost_table)  # inf cost -> 0
    weight[:, 1:] *= _blocker_weights(weight, grid)
    rival = np.zeros(81, bool)
    rival[grid > 0] = True
    rival[changed] = True
    mine = np.zeros((81, 10), bool)  # the winner's own digit
    mine[np.arange(81), np.asarray(solution).reshape(81)] = True
    departing = ~mine
    departing[:, 0] = False
    drops = np.where(rival, weight[:, 0], 0.0)
    neutral = np.where(mine, weight, 0.0).sum(axis=1) + np.where(rival, 0.0, weight[:, 0])
    leave = np.where(departing & rival[:, None], weight, 0.0)  # departing at a rival cell
    add = np.where(departing & ~rival[:, None], weight, 0.0)  # departing add
    every = weight.sum(axis=1)

    def first_departing(before, moves, after, factor) -> float:
        """Sum over sets holding a move of `moves`, charged at the first such cell: the
        cells before it take `before`, the cells after it `after`."""
        head = np.concatenate([[1.0], np.cumprod(1 + before)[:-1]])
        tail = np.concatenate([np.cumprod((1 + after)[::-1])[::-1][1:], [1.0]])
        return float((head * (moves * factor).sum(axis=1) * tail).sum())

    def departing_sets(factor) -> float:
        # (A) a departing move at a read or changed cell, anything else anywhere
        leaving = first_departing(neutral + drops + add.sum(axis=1), leave, every, factor)
        # (B) no departing move at a rival cell, a drop and a departing add
        quiet = neutral + add.sum(axis=1)
        adding = first_departing(neutral + drops, add, quiet + drops, factor)
        adding -= first_departing(neutral, add, quiet, factor)
        return leaving + adding - float((leave * factor).sum())  # the singles were probed

    # (C) drops and the winner's own digits only: several solutions at most, counted in full
    several = math.exp(np.log1p(neutral + drops).sum()) - math.exp(np.log1p(neutral).sum())
    several -= float(drops.sum())  # the single drops were probed
    if paper is None:
        return max(0.0, departing_sets(1.0) + several)
    by_moves = departing_sets(_paper_factors(solution, paper)) + several
    near = _paper_rivals(np.exp(-cost_table), grid, solution, paper)
    if near is None:
        return max(0.0, by_moves)
    by_solutions = near + PAPER_DOUBT**2 * (departing_sets(1.0) + several)
    return max(0.0, min(by_moves, by_solutions))


def _blocker_weights(weight: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """(81, 9) for each cell and digit 1-9, the summed weight (`weight.sum(axis=1)`) of the
    lightest peer that holds that digit in `grid`, 1 where no peer does: a digit a peer
    already holds needs that peer changed too (`rival_bound`). All cells at once: a loop
    over the 729 pairs took 4 ms of the 7 a printed photo's correction took (issue 32)."""
    held = np.asarray(grid).reshape(81)[PEERS]  # (81, 20) the peers' digits
    peer_weight = weight.sum(axis=1)[PEERS]
    digits = np.arange(1, 10)[:, None, None]
    lightest = np.where(held[None] == digits, peer_weight[None], np.inf).min(axis=2)  # (9, 81)
    return np.where(np.isfinite(lightest), lightest, 1.0).T


def _paper_rivals(weight, grid, solution, paper) -> float | None:
    """The rivals' mass bounded through the solutions they could lead to, given the digits
    on `paper` (all agreeing with the winner's `solution`) in the cells the winner leaves
    empty: the user's entries, which the print reading does not see as digits.

    Every other sudoku solution that contradicts at most one entry is listed
    (`near_solutions`; None if there are too many to list). Such a solution is reached only
    by a grid inside it: each of the winner's digits kept, dropped or, where that solution
    differs, changed to its digit, and each empty cell left (times `PAPER_DOUBT` if that
    contradicts the entry there) or given its digit; the weights of all such grids, whether they have one solution or several,
    multiply out cell by cell, and their sum is returned. Every other solution contradicts
    at least two entries, so `rival_bound` counts the rest of the rivals, and the readings
    with several solutions, times `PAPER_DOUBT` squared: with the paper, a reading that
    leaves the print open is answered by the solution the entries fit
    (`api.photo.pipeline`), and a rival that reads a printed digit into an entry's cell pays
    that reading's weight, from the cell model's print classes, apart from the entry's own
    reading (as `_paper_factors` does).
    """
    entries = np.where(grid == 0, np.asarray(paper).reshape(81), 0).astype(np.int8)
    near = near_solutions(np.zeros(81, np.int8), entries, solution)
    if near is None:
        return None
    cells = np.arange(81)
    unseen = 0.0
    for other in near:
        theirs = weight[cells, other]
        left = np.where((entries > 0) & (entries != other), PAPER_DOUBT, 1.0)
        kept = np.where(grid == other, 1.0 + weight[:, 0], weight[:, 0] + theirs)
        unseen += float(np.prod(np.where(grid == 0, left + theirs, kept)))
    return unseen


def _paper_factors(solution, paper) -> np.ndarray:
    """(81, 10) `PAPER_DOUBT` to the power of the cells that a move (c, v) forces a rival's
    solution to change and that show the winner's digit on paper (see `rival_bound`)."""
    solution = np.asarray(solution).reshape(81).astype(np.int64)
    agree = (np.asarray(paper).reshape(81) == solution) & (solution > 0)
    holds = np.zeros((81, 10))
    holds[np.arange(81), solution] = agree  # cell e shows S[e] on paper
    witnesses = holds[PEERS].sum(axis=1) + agree[:, None]
    witnesses[np.arange(81), solution] = 0  # the winner's own digit forces nothing
    witnesses[:, 0] = 0
    return PAPER_DOUBT**witnesses


def _search(
    reading: Reading, limits: Limits, count: Counter, found: list[Candidate]
) -> tuple[list[Candidate], int]:
    """Every grid with exactly one solution among the change sets cheaper than the first
    such grid's cost + `limits.window` (and `limits.max_cost`), cheapest first, after those
    in `found`; and the solver calls made."""
    values = reading.values
    may_add = reading.ink >= limits.min_ink
    moves = _moves(
        change_costs(values, reading.logp), values, may_add, limits.per_cell, limits.max_move_cost
    )
    costs = [m.cost for m in moves]
    must_touch = [set(p) for p in reading.conflicts]  # every conflict needs one of its cells
    peers = [set(PEERS[cell].tolist()) for cell in range(81)]
    blockers = _Blockers(values, moves)
    found = list(found)
    tried = steps = 0
    limit = min(limits.max_cost, found[0].cost) + limits.window if found else limits.max_cost
    for total, chosen in _subsets_by_cost(costs, limits.max_changes):
        if total > limit:
            break
        steps += 1
        if steps > limits.max_steps or tried >= limits.max_tries:
            break
        if len({moves[i].cell for i in chosen}) < len(chosen):
            continue  # two values for one cell: not a reading
        if not _consistent(chosen, moves, blockers, must_touch, peers):
            continue
        grid = values.copy()
        for i in chosen:
            grid[moves[i].cell] = moves[i].value
        tried += 1
        n, first = count(grid, 2)
        if n == 1:
            picked = tuple(moves[i] for i in chosen)
            found.append(Candidate(total, picked, grid, np.asarray(first, dtype=np.int8)))
            if len(found) == 1:
                limit = min(limits.max_cost, total) + limits.window
    return found, tried


class _Blockers(dict):
    """For move i, the cells that already hold the digit it writes (each must change too);
    worked out only for the moves the search actually reaches."""

    def __init__(self, values: np.ndarray, moves: list):
        super().__init__()
        self.values, self.moves = values, moves

    def __missing__(self, i: int) -> set[int]:
        _, cell, v = self.moves[i]  # a Move
        peers = PEERS[cell]
        found = {int(c) for c in peers[self.values[peers] == v]} if v else set()
        self[i] = found
        return found


def _consistent(chosen, moves, blockers, must_touch, peers) -> bool:
    """Cheap rule checks before the solver: one change per cell, every conflict of the
    reading touched, and no written digit clashing with a peer (read or written)."""
    cells = {moves[i].cell for i in chosen}
    if len(cells) < len(chosen):
        return False
    if any(not (t & cells) for t in must_touch):
        return False
    if any(not blockers[i] <= cells for i in chosen):
        return False
    for a in chosen:
        for b in chosen:
            same = a < b and moves[a].value and moves[a].value == moves[b].value
            if same and moves[b].cell in peers[moves[a].cell]:
                return False
    return True
