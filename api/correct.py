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

Never a confident wrong answer: every re-reading with exactly one solution that is not much
less probable than the best is collected, and a solution is accepted only when the readings
leading to it hold most (`min_posterior`, 80%) of their total probability. The reading
itself, when it already has one solution, is just the first (cheapest) of those candidates.
When several solutions compete, or the budget runs out first, the result says so and names
the cells most likely at fault.

>>> import numpy as np
>>> from api.correct import correct
>>> # (with the read givens and the recogniser's probabilities of a photo)
>>> # fix = correct(reading.givens, reading.probabilities)
>>> # fix.status in {"unique", "corrected", "ambiguous", "not_found"}
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from solver.geometry import standard

FLOOR = 1e-6  # no reading is ever impossible: probabilities are floored here
REMOVAL_COST = 6.0  # a read digit may be a fill-in or smudge: at least ~1 in 400
MIN_INK = 0.25  # a digit is added only to a cell showing at least this evidence of ink


# (81, 20) indices of each cell's peers (same row, column or box), from the solver's geometry
PEERS = np.array([sorted(peers) for peers in standard(3).peers], dtype=np.int64)


def cell_name(cell: int) -> str:
    """r3c5: 1-based row and column, as players say it."""
    return f"r{cell // 9 + 1}c{cell % 9 + 1}"


@dataclass(frozen=True)
class Change:
    """One cell the rules corrected: `read` was seen, `now` is used (0 = empty)."""

    cell: int
    read: int
    now: int
    confidence: float  # the recogniser's probability of what it read
    probability: float  # its probability of the value now used

    @property
    def name(self) -> str:
        return cell_name(self.cell)

    def __str__(self) -> str:
        show = {0: "empty"}
        return (
            f"{self.name}: read {show.get(self.read, self.read)} ({self.confidence:.0%}),"
            f" now {show.get(self.now, self.now)}"
        )


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

    @property
    def solved(self) -> bool:
        return self.status in ("unique", "corrected")


def conflicting_pairs(values: np.ndarray) -> list[tuple[int, int]]:
    """Pairs of cells (a < b) that share a unit and hold the same digit."""
    values = np.asarray(values).reshape(81)
    same = (values[PEERS] == values[:, None]) & (values[:, None] > 0)
    return [(a, int(b)) for a in range(81) for b in PEERS[a][same[a]] if a < b]


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
) -> list[tuple[float, int, int]]:
    """(cost, cell, new value) of every plausible single-cell change, cheapest first: at
    most `per_cell` per cell, none dearer than `max_move_cost`, and a digit added to an
    empty cell only where the photo shows ink (`may_add`)."""
    cost = cost.copy()
    cost[(values == 0) & ~may_add, 1:] = np.inf
    cells = np.arange(81)
    order = np.argsort(cost, axis=1, kind="stable")[:, :per_cell]
    picked = np.take_along_axis(cost, order, axis=1)
    keep = picked <= max_move_cost
    moves = [
        (float(c), int(cell), int(v))
        for cell, v, c in zip(
            np.repeat(cells, per_cell)[keep.ravel()], order[keep], picked[keep], strict=True
        )
    ]
    moves.sort()
    return moves


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


def _default_counter() -> Callable[[np.ndarray, int], tuple[int, np.ndarray | None]]:
    from solver.fast import count_solutions_81

    return count_solutions_81


def correct(
    givens: np.ndarray,
    probabilities: np.ndarray,
    *,
    ink: np.ndarray | None = None,
    min_ink: float = MIN_INK,
    max_changes: int = 5,
    per_cell: int = 3,
    max_move_cost: float = 12.0,
    max_cost: float = 16.0,
    window: float = 4.0,
    min_posterior: float = 0.95,
    max_tries: int = 3000,
    max_steps: int = 40_000,
    count: Callable[[np.ndarray, int], tuple[int, np.ndarray | None]] | None = None,
) -> Correction:
    """Most probable grid near the reading with exactly one solution, or a refusal.

    givens: (9, 9) or (81,) ints, 0 = empty, as read. probabilities: (9, 9, 10) or (81, 10),
    column 0 = empty. ink: (81,) the photo's own evidence of a mark in each cell (0..1; the
    reader's blob or the cell model's 1 - P(empty)); a digit is added only to a cell with
    at least `min_ink` of it (default: 1 - P(empty) of `probabilities`). At most
    `max_changes` cells change; the cost of a change set is minus the log of the reading's
    probability ratio; sets costlier than `max_cost` are not tried. Once a grid with one
    solution is found, every such grid up to `window` costlier is collected, every single
    change is probed, and the rest of the space is bounded (`rival_bound`): the solution is
    accepted only if it holds `min_posterior` of the found mass plus that bound. Work is
    bounded by `max_tries` solver calls and `max_steps` enumerated sets, never by the clock,
    so the answer is a function of the reading alone. `count(values, limit) -> (n, first
    solution)` defaults to the solver's numba counter.
    """
    start = time.perf_counter()
    count = count or _default_counter()
    values = np.ascontiguousarray(np.asarray(givens).reshape(81), dtype=np.int8)
    probs = np.asarray(probabilities, dtype=np.float64).reshape(81, 10)
    logp = np.log(np.clip(probs, FLOOR, 1.0))
    marked = 1.0 - probs[:, 0] if ink is None else np.asarray(ink, np.float64).reshape(81)
    may_add = marked >= min_ink
    pairs = conflicting_pairs(values)

    def done(status: str, **kw) -> Correction:
        kw.setdefault("values", values)
        kw.setdefault("solution", None)
        kw.setdefault(
            "suspects", () if status in ("unique", "corrected") else suspects(values, probs)
        )
        elapsed = (time.perf_counter() - start) * 1000
        return Correction(
            status, read_count=read_count, conflicts=tuple(pairs), elapsed_ms=elapsed, **kw
        )

    read_count, found, first = -1, [], None
    if not pairs:
        read_count, first = count(values, 2)
        if read_count == 1:  # the reading itself is a proper sudoku: one candidate of many
            found = [(0.0, (), values, np.asarray(first, dtype=np.int8))]
            if max_changes <= 0 or max_tries <= 0:
                return done("unique", solution=found[0][3])
    completions = _completions(values, count) if read_count > 1 else ()
    if read_count > 1:  # the likely missed givens: cells that would complete it, inked first
        order = sorted(completions, key=lambda cd: -marked[cd[0]])
        completions = tuple(order)
    missed = dict(completions=completions)
    if max_changes <= 0 or max_tries <= 0:
        return done("not_found", note="corrections were not asked for", **missed)
    if _disjoint_pairs(pairs) > max_changes:  # each needs its own change: hopeless
        note = f"more than {max_changes} cells would have to change"
        return done("not_found", note=note, **missed)
    cost_table = change_costs(values, logp)
    moves = _moves(cost_table, values, may_add, per_cell, max_move_cost)
    found, tried, _ = _search(
        values,
        moves,
        pairs,
        count,
        found,
        dict(max_changes=max_changes, max_cost=max_cost, window=window, max_tries=max_tries),
        max_steps,
    )

    def changes(picked) -> tuple[Change, ...]:
        return tuple(
            Change(
                cell, int(values[cell]), v, float(probs[cell, values[cell]]), float(probs[cell, v])
            )
            for _, cell, v in sorted(picked, key=lambda m: m[1])
        )

    if read_count > 1:
        missed["suspects"] = tuple(c for c, _ in completions[:5]) or suspects(values, probs)
    if not found:
        return done("not_found", note="no nearby reading has exactly one solution", **missed)
    # Weigh each distinct solution by the probability of every reading that leads to it.
    mass: dict[bytes, float] = {}
    for cost, _, _, solution in found:
        key = solution.tobytes()
        mass[key] = mass.get(key, 0.0) + math.exp(-cost)
    winner = max(mass, key=lambda k: (mass[k], k))
    cost, picked, grid, solution = next(f for f in found if f[3].tobytes() == winner)
    # The rest of the space, seen from the winner's grid: single changes (allowed or not)
    # are probed, larger sets bounded; weights relative to the winner, then to the reading.
    changed = sorted({m[1] for m in picked})
    winner_costs = change_costs(grid, logp, drops=False)
    singles, probes = _probe_singles(grid, winner_costs, changed, count)
    scale = math.exp(-cost)
    known = {tuple((m[1], m[2]) for m in f[1]) for f in found}
    for move, w, sol in singles:
        if (move,) not in known:  # a rival (or a twin) the search did not reach
            mass[sol] = mass.get(sol, 0.0) + w * scale
    unexplored = rival_bound(winner_costs, grid, changed) * scale
    posterior = mass[winner] / sum(mass.values())
    first_of = {}
    for f in found:
        first_of.setdefault(f[3].tobytes(), f[1])
    rivals = tuple(changes(picked_) for picked_ in first_of.values())
    work = dict(tried=tried + probes, posterior=posterior, cost=cost, unexplored=unexplored)
    if unexplored >= mass[winner]:
        note = (
            f"the readings not explored could outweigh the best one (up to {unexplored:.2g}"
            f" against {mass[winner]:.2g})"
        )
        return done("ambiguous", rivals=rivals, note=note, **work, **missed)
    if posterior < min_posterior:
        note = f"several readings lead to different solutions (the likeliest has {posterior:.0%})"
        return done("ambiguous", rivals=rivals, note=note, **work, **missed)
    if not picked:  # the reading as it is, with no rival worth the name
        return done("unique", solution=solution, **work)
    return done("corrected", values=grid, solution=solution, changes=changes(picked), **work)


def change_costs(values: np.ndarray, logp: np.ndarray, drops: bool = True) -> np.ndarray:
    """(81, 10) cost of reading each cell as each value instead of what was read (inf for
    the value read): minus the log of the probability ratio, a dropped digit at most
    `removal_cost` when `drops` (the search's allowance for pencil marks and smudges; the
    rival bound weighs by the probabilities alone)."""
    cells = np.arange(81)
    read = logp[cells, values.astype(np.int64)]
    cost = read[:, None] - logp  # below 0 where another value is likelier (rival bound)
    drop = np.array([removal_cost(x) for x in read])
    if drops:
        cost = np.maximum(cost, 0.0)
        cost[:, 0] = np.where(values > 0, np.minimum(cost[:, 0], drop), cost[:, 0])
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
    """Every single change of the winner's grid that leads to another unique grid: a read
    digit turned into another, or any change where the winner departed from the reading.
    ((cell, value), weight relative to the winner, solution bytes) for those, and the
    solver calls made. A lone added or dropped digit cannot change a unique grid's
    solution, so those need no solver."""
    out, calls = [], 0
    for cell in range(81):
        if grid[cell] == 0 and cell not in changed:
            continue
        held = set(grid[PEERS[cell]].tolist())
        for v in range(10):
            c = cost_table[cell, v]
            if not np.isfinite(c) or (v in held and v) or (v == 0 and cell not in changed):
                continue
            trial = grid.copy()
            trial[cell] = v
            calls += 1
            n, first = count(trial, 2)
            if n == 1:
                sol = np.asarray(first, dtype=np.int8).tobytes()
                out.append(((cell, v), math.exp(-c), sol))
    return out, calls


def rival_bound(cost_table, grid, changed) -> float:
    """An upper bound on the probability mass, relative to the winner's grid (which has one
    solution), of every set of two or more changes to it that could lead to another
    solution.

    Every set of changes, one per cell, weighs the product of its moves' weights
    exp(-cost); over all sets that is a product over cells of (1 + the cell's summed
    weight). Two things no rival escapes make it tight enough to use: a digit that a peer
    already holds needs that peer changed too (so its weight is multiplied by the peer's),
    and a rival must hold a rival move (a read digit turned into another digit, or any
    change where the winner departed from the reading), because added and dropped digits
    alone keep a unique grid's solution or kill it. Single changes are probed exactly
    (`_probe_singles`), so only sets of two or more are counted here.
    """
    weight = np.exp(-cost_table)  # inf cost -> 0
    cell_weight = weight.sum(axis=1)
    for cell in range(81):
        held = grid[PEERS[cell]]
        for v in range(1, 10):
            if weight[cell, v] > 0 and (held == v).any():
                weight[cell, v] *= cell_weight[PEERS[cell][held == v]].min()
    rival = np.zeros((81, 10), bool)
    rival[grid > 0, 1:] = True
    rival[changed] = True
    other = np.where(rival, 0.0, weight).sum(axis=1)
    every = weight.sum(axis=1)
    touching = math.exp(np.log1p(every).sum()) - math.exp(np.log1p(other).sum())
    singles = float(np.where(rival, weight, 0.0).sum())
    return max(0.0, touching - singles)


def _search(values, moves, pairs, count, found, limits, max_steps):
    """Every grid with exactly one solution among the change sets cheaper than the first
    such grid's cost + `window` (and `max_cost`), cheapest first, after those in `found`;
    the solver calls made, and the probability mass of the sets of two or more changes it
    examined (whatever they came to)."""
    max_changes, max_cost, window, max_tries = (
        limits[k] for k in ("max_changes", "max_cost", "window", "max_tries")
    )
    costs = [m[0] for m in moves]
    must_touch = [set(p) for p in pairs]  # every conflict needs one of its cells changed
    peers = [set(PEERS[cell].tolist()) for cell in range(81)]
    blockers = _Blockers(values, moves)
    found = list(found)  # (cost, moves, grid, solution)
    tried = steps = 0
    examined = 0.0
    limit = min(max_cost, found[0][0]) + window if found else max_cost
    for total, chosen in _subsets_by_cost(costs, max_changes):
        if total > limit:
            break
        steps += 1
        if steps > max_steps or tried >= max_tries:
            break
        if len({moves[i][1] for i in chosen}) < len(chosen):
            continue  # two values for one cell: not a reading
        if len(chosen) > 1:
            examined += math.exp(-total)
        if not _consistent(chosen, moves, blockers, must_touch, peers):
            continue
        grid = values.copy()
        for i in chosen:
            grid[moves[i][1]] = moves[i][2]
        tried += 1
        n, first = count(grid, 2)
        if n == 1:
            picked = tuple(moves[i] for i in chosen)
            found.append((total, picked, grid, np.asarray(first, dtype=np.int8)))
            if len(found) == 1:
                limit = min(max_cost, total) + window
    return found, tried, examined


class _Blockers(dict):
    """For move i, the cells that already hold the digit it writes (each must change too);
    worked out only for the moves the search actually reaches."""

    def __init__(self, values: np.ndarray, moves: list):
        super().__init__()
        self.values, self.moves = values, moves

    def __missing__(self, i: int) -> set[int]:
        _, cell, v = self.moves[i]
        peers = PEERS[cell]
        found = {int(c) for c in peers[self.values[peers] == v]} if v else set()
        self[i] = found
        return found


def _consistent(chosen, moves, blockers, must_touch, peers) -> bool:
    """Cheap rule checks before the solver: one change per cell, every conflict of the
    reading touched, and no written digit clashing with a peer (read or written)."""
    cells = {moves[i][1] for i in chosen}
    if len(cells) < len(chosen):
        return False
    if any(not (t & cells) for t in must_touch):
        return False
    if any(not blockers[i] <= cells for i in chosen):
        return False
    for a in chosen:
        for b in chosen:
            same = a < b and moves[a][2] and moves[a][2] == moves[b][2]
            if same and moves[b][1] in peers[moves[a][1]]:
                return False
    return True
