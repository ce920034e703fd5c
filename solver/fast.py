"""The fast engine: bitmask constraint propagation with minimum-remaining-values search.

Each cell holds its candidates as a bitmask (bit k-1 set = symbol k still possible).
Placing a symbol removes it from every peer (naked singles cascade through a queue); then
every unit is scanned once with the `once`/`twice` trick to find symbols that fit in only
one of its cells (hidden singles) or in none (contradiction). When propagation stalls, the
search branches on a cell with the fewest candidates, copying the 81 masks per level (a
few hundred bytes) instead of undoing moves.

Everything here is compiled by numba (`cache=True`, so only the very first run pays for
compilation). The kernels are generic over the geometry: tables of peers and units are
arguments, masks are int32, so 4×4 up to 25×25, diagonal and clover boards all run the
same code. A standard 9×9 board, the common case by far, is handed to `solver.bands`, which
keeps one bitboard per digit and is 1.5 to 2.5 times faster; this kernel still explains why
a 9×9 puzzle has no solution. Three entry points:

- `search_one` / `count_solutions_81`: one puzzle, count up to a limit, keep solutions;
- `solve_batch`: an (N, n_cells) array of puzzles in one compiled call (one thread);
- `solve_parallel`: the same over all cores (numba `prange`, puzzles dealt round-robin).

Locked candidates (a symbol confined to where a box meets a line leaves the rest of the
line, and vice versa) join the propagation while the board is still open; they are
computed from per-segment masks (the cells where two units meet) for speed.

>>> import numpy as np
>>> givens = np.zeros(81, np.int8)
>>> count, solution = count_solutions_81(givens, 2)
>>> count, sorted(solution[:9].tolist()) == list(range(1, 10))
(2, True)
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np
from numba import njit, prange

from solver import bands
from solver import geometry as geo
from solver.bands import popcount as _popcount
from solver.geometry import Geometry, per_geometry

# Why a propagation failed, kept for the user's "why is there no solution".
FAIL_NONE, FAIL_CELL, FAIL_UNIT, FAIL_CELL_TWO = 0, 1, 2, 3
# Locked candidates run when singles stall and at least this many cells are unsolved.
# The trade: a pass scans every box-line meeting, which costs about as much as a search
# node; early in the search it cuts whole subtrees, late it costs more than the branches it
# saves. A lower threshold favours sparse, hard boards (fewer nodes), a higher one boards
# that singles nearly solve. Measured on 9×9 (nodes per puzzle, top1465 / hardest-11+):
# never 52 / 171, always 21 / 140, from 50 unsolved 26 / 163. Batch puzzles/s by threshold,
# two sweeps on a quiet machine (hardest-11+ / top1465 / 17-clue):
# 0: 4.1k/20.5k/74k, 40: 4.2-4.5k/22k/79k, 50: 4.9-5.0k/23.6k/76k, 55: 5.1k/22.6k/73k,
# 60: 5.1k/20.3k/70k, never: 5.1k/16.3k/68k. 55 buys 2-4% on the hardest set for about
# 4% on top1465 and 17-clue against 50; 40 would favour 17-clue-like boards instead.
# (Only the generic kernel reads it: 16×16, diagonal, clover and the 9×9 "no solution"
# explanation; `solver.bands` has its own locked-candidates rule.)
LOCKED_FROM = 55


# What the kernels take: a namedtuple, which numba compiles as a tuple (no cost), read by
# name. The fields are `Tables`' arrays, in its order.
KernelTables = namedtuple(
    "KernelTables",
    "peers n_peers units cell_units n_cell_units lock_shared lock_a lock_b lock_sizes"
    " seg_cells seg_n seg_pairs seg_pair_n locked_from",
)
# One search's scratch (see `_buffers`).
Scratch = namedtuple("Scratch", "stack queue branch_cell branch_rest dirty stats")


@dataclass(frozen=True)
class Tables:
    """A geometry flattened into the arrays the kernels read."""

    peers: np.ndarray  # (n_cells, max_peers) int32, padded with -1
    n_peers: np.ndarray  # (n_cells,) int32
    units: np.ndarray  # (n_units, size) int32
    cell_units: np.ndarray  # (n_cells, max_units_per_cell) int32, padded with -1
    n_cell_units: np.ndarray  # (n_cells,) int32
    # Pairs of units meeting in 2+ cells (box and line): the shared cells and each unit's
    # other cells, for locked candidates. Padded with -1; lengths in `lock_sizes`.
    lock_shared: np.ndarray  # (n_pairs, max_shared) int32
    lock_a: np.ndarray  # (n_pairs, size) int32
    lock_b: np.ndarray  # (n_pairs, size) int32
    lock_sizes: np.ndarray  # (n_pairs, 3) int32
    # The same pairs when each unit's other cells are a union of segments (the shared
    # cells of some pair): then masks per segment are computed once and each pair costs
    # a handful of ORs. Standard boards are all of this kind; the rest use the lock_* lists.
    seg_cells: np.ndarray  # (n_segments, max_segment) int32, padded with -1
    seg_n: np.ndarray  # (n_segments,) int32
    seg_pairs: np.ndarray  # (n_seg_pairs, 1 + 2 * max_parts) int32: shared, parts of a, parts of b
    seg_pair_n: np.ndarray  # (n_seg_pairs, 2) int32: how many parts for a and for b
    size: int
    locked_from: np.ndarray = field(default_factory=lambda: np.array([LOCKED_FROM], np.int32))

    @property
    def arrays(self) -> KernelTables:
        """What the kernels take."""
        return KernelTables(
            self.peers,
            self.n_peers,
            self.units,
            self.cell_units,
            self.n_cell_units,
            self.lock_shared,
            self.lock_a,
            self.lock_b,
            self.lock_sizes,
            self.seg_cells,
            self.seg_n,
            self.seg_pairs,
            self.seg_pair_n,
            self.locked_from,
        )


@per_geometry
def tables_for(geometry: Geometry) -> Tables:
    """The kernels' tables for a geometry, built once per Geometry object."""
    peers = [sorted(p) for p in geometry.peers]
    width = max(map(len, peers))
    table = np.full((geometry.n_cells, width), -1, dtype=np.int32)
    for cell, ps in enumerate(peers):
        table[cell, : len(ps)] = ps
    owners = geometry.units_of
    cell_units = np.full((geometry.n_cells, max(map(len, owners))), -1, dtype=np.int32)
    for cell, us in enumerate(owners):
        cell_units[cell, : len(us)] = us
    sets = [frozenset(u) for u in geometry.units]
    meetings = []  # (unit a, unit b, shared cells)
    for i, a in enumerate(sets):
        for j in range(i + 1, len(sets)):
            if len(a & sets[j]) >= 2:
                meetings.append((i, j, a & sets[j]))
    segments = sorted({m[2] for m in meetings}, key=sorted)
    seg_index = {seg: k for k, seg in enumerate(segments)}
    pairs, seg_pairs = [], []
    for i, j, shared in meetings:
        parts_a = _as_segments(sets[i] - shared, sets[i], segments, seg_index)
        parts_b = _as_segments(sets[j] - shared, sets[j], segments, seg_index)
        if parts_a is None or parts_b is None:
            pairs.append((sorted(shared), sorted(sets[i] - shared), sorted(sets[j] - shared)))
        else:
            seg_pairs.append((seg_index[shared], parts_a, parts_b))
    size = geometry.size
    lock = np.full((max(len(pairs), 1), 3, size), -1, dtype=np.int32)
    lock_sizes = np.zeros((max(len(pairs), 1), 3), dtype=np.int32)
    for p, parts in enumerate(pairs):
        for k, cells in enumerate(parts):
            lock[p, k, : len(cells)] = cells
            lock_sizes[p, k] = len(cells)
    if not pairs:
        lock_sizes = lock_sizes[:0]
    width = max([len(seg) for seg in segments] + [1])
    seg_cells = np.full((max(len(segments), 1), width), -1, dtype=np.int32)
    seg_n = np.zeros(max(len(segments), 1), dtype=np.int32)
    for k, seg in enumerate(segments):
        seg_cells[k, : len(seg)] = sorted(seg)
        seg_n[k] = len(seg)
    most = max([max(len(a), len(b)) for _, a, b in seg_pairs] + [1])
    seg_pair_table = np.full((len(seg_pairs), 1 + 2 * most), -1, dtype=np.int32)
    seg_pair_n = np.zeros((len(seg_pairs), 2), dtype=np.int32)
    for p, (shared, a, b) in enumerate(seg_pairs):
        seg_pair_table[p, 0] = shared
        seg_pair_table[p, 1 : 1 + len(a)] = a
        seg_pair_table[p, 1 + most : 1 + most + len(b)] = b
        seg_pair_n[p] = (len(a), len(b))
    return Tables(
        lock_shared=np.ascontiguousarray(lock[:, 0]),
        lock_a=np.ascontiguousarray(lock[:, 1]),
        lock_b=np.ascontiguousarray(lock[:, 2]),
        lock_sizes=lock_sizes,
        seg_cells=seg_cells,
        seg_n=seg_n,
        seg_pairs=seg_pair_table,
        seg_pair_n=seg_pair_n,
        peers=table,
        n_peers=np.array([len(p) for p in peers], dtype=np.int32),
        units=np.array(geometry.units, dtype=np.int32),
        cell_units=cell_units,
        n_cell_units=np.array([len(u) for u in owners], dtype=np.int32),
        size=geometry.size,
    )


def _as_segments(rest, unit, segments, seg_index) -> list[int] | None:
    """`rest` as a disjoint union of segments inside `unit`, or None if it is not one."""
    chosen, covered = [], set()
    for seg in segments:
        if seg <= rest and not seg & covered:
            chosen.append(seg_index[seg])
            covered |= seg
    return chosen if covered == rest else None


STANDARD_9 = tables_for(geo.standard(3))


@per_geometry
def is_standard_9(geometry: Geometry) -> bool:
    """True for the plain 9×9 board in reading order, which `solver.bands` solves."""
    plain = geo.standard(3)
    return (
        geometry.positions == plain.positions
        and len(geometry.units) == len(plain.units)
        and set(map(frozenset, geometry.units)) == set(map(frozenset, plain.units))
    )


def _bands(geometry: Geometry | None, generic: bool = False) -> bool:
    return not generic and (geometry is None or is_standard_9(geometry))


@njit(cache=True, inline="always")
def _mark(dirty, cell_units, n_cell_units, cell):
    for k in range(n_cell_units[cell]):
        dirty[cell_units[cell, k]] = 1


@njit(cache=True, inline="always")
def _remove_from(cand, cells, n, bits, queue, qt, t, dirty, fail):
    """Remove `bits` from cells[:n]; returns the new queue end, or -1 on a contradiction."""
    for k in range(n):
        c = cells[k]
        m = cand[c]
        if m & bits:
            m &= ~bits
            cand[c] = m
            if m == 0:
                fail[0] = FAIL_CELL
                fail[1] = c
                fail[2] = bits
                return -1
            _mark(dirty, t.cell_units, t.n_cell_units, c)
            if m & (m - 1) == 0:
                queue[qt] = c
                qt += 1
                cand[cand.shape[0] - 1] -= 1
    return qt


@njit(cache=True, inline="always")
def _locked_candidates(cand, queue, qt, t, dirty, fail):
    """Box-line interactions: a symbol that, within one unit, fits only where it meets a
    second unit is removed from the rest of that second unit. Returns the new queue end
    (unchanged when nothing was removed), or -1 on a contradiction."""
    shared, rest_a, rest_b, sizes = t.lock_shared, t.lock_a, t.lock_b, t.lock_sizes
    seg_cells, seg_n, seg_pairs, seg_pair_n = t.seg_cells, t.seg_n, t.seg_pairs, t.seg_pair_n
    start = qt
    changed = False
    if seg_pairs.shape[0]:
        masks = np.empty(seg_cells.shape[0], np.int32)
        for s in range(seg_cells.shape[0]):
            m = 0
            for k in range(seg_n[s]):
                m |= cand[seg_cells[s, k]]
            masks[s] = m
        most = (seg_pairs.shape[1] - 1) // 2
        for p in range(seg_pairs.shape[0]):
            in_shared = masks[seg_pairs[p, 0]]
            in_a = 0
            for k in range(seg_pair_n[p, 0]):
                in_a |= masks[seg_pairs[p, 1 + k]]
            in_b = 0
            for k in range(seg_pair_n[p, 1]):
                in_b |= masks[seg_pairs[p, 1 + most + k]]
            only_a = in_shared & ~in_a & in_b
            if only_a:
                for k in range(seg_pair_n[p, 1]):
                    s = seg_pairs[p, 1 + most + k]
                    qt = _remove_from(
                        cand, seg_cells[s], seg_n[s], only_a, queue, qt, t, dirty, fail
                    )
                    if qt < 0:
                        return -1
                changed = True
            only_b = in_shared & ~in_b & in_a
            if only_b:
                for k in range(seg_pair_n[p, 0]):
                    s = seg_pairs[p, 1 + k]
                    qt = _remove_from(
                        cand, seg_cells[s], seg_n[s], only_b, queue, qt, t, dirty, fail
                    )
                    if qt < 0:
                        return -1
                changed = True
    for p in range(sizes.shape[0]):
        in_shared = 0
        for k in range(sizes[p, 0]):
            in_shared |= cand[shared[p, k]]
        in_a = 0
        for k in range(sizes[p, 1]):
            in_a |= cand[rest_a[p, k]]
        in_b = 0
        for k in range(sizes[p, 2]):
            in_b |= cand[rest_b[p, k]]
        only_a = in_shared & ~in_a & in_b
        if only_a:
            qt = _remove_from(cand, rest_b[p], sizes[p, 2], only_a, queue, qt, t, dirty, fail)
            if qt < 0:
                return -1
            changed = True
        only_b = in_shared & ~in_b & in_a
        if only_b:
            qt = _remove_from(cand, rest_a[p], sizes[p, 1], only_b, queue, qt, t, dirty, fail)
            if qt < 0:
                return -1
            changed = True
    return qt if changed or qt > start else -2


@njit(cache=True, inline="always")
def _propagate(cand, queue, qt, t, dirty, full, fail):
    """Apply the queued placements, then hidden singles, until nothing changes.

    Only units marked in `dirty` (some cell of theirs changed) are scanned for hidden
    singles. Returns False at the first contradiction, recording in `fail` what emptied:
    (FAIL_CELL, cell, symbol bit) or (FAIL_UNIT, unit, missing bits).
    """
    peers, n_peers, units = t.peers, t.n_peers, t.units
    cell_units, n_cell_units = t.cell_units, t.n_cell_units
    unsolved = cand.shape[0] - 1  # the last slot counts the cells not yet solved
    qh = 0
    n_units, size = units.shape
    while True:
        while qh < qt:
            cell = queue[qh]
            qh += 1
            bit = cand[cell]
            # The hottest loop, written out: _remove_from would take a row view of `peers`
            # (with its reference counting) for every placement.
            for k in range(n_peers[cell]):
                p = peers[cell, k]
                m = cand[p]
                if m & bit:
                    m &= ~bit
                    cand[p] = m
                    if m == 0:
                        fail[0] = FAIL_CELL
                        fail[1] = p
                        fail[2] = bit
                        return False
                    _mark(dirty, cell_units, n_cell_units, p)
                    if m & (m - 1) == 0:
                        queue[qt] = p
                        qt += 1
                        cand[unsolved] -= 1
        found = False
        for u in range(n_units):
            if not dirty[u]:
                continue
            dirty[u] = 0
            once = 0
            twice = 0
            placed = 0
            for k in range(size):
                m = cand[units[u, k]]
                twice |= once & m
                once |= m
                if m & (m - 1) == 0:
                    placed |= m
            if once != full:
                fail[0] = FAIL_UNIT
                fail[1] = u
                fail[2] = full & ~once
                return False
            exactly = once & ~twice & ~placed
            if exactly == 0:
                continue
            for k in range(size):
                cell = units[u, k]
                e = cand[cell] & exactly
                if e:
                    if e & (e - 1):
                        fail[0] = FAIL_CELL_TWO
                        fail[1] = cell
                        fail[2] = e
                        return False
                    cand[cell] = e
                    _mark(dirty, cell_units, n_cell_units, cell)
                    queue[qt] = cell
                    qt += 1
                    cand[unsolved] -= 1
                    found = True
        if found:
            continue
        if cand[unsolved] < t.locked_from[0]:
            return True
        qt = _locked_candidates(cand, queue, qt, t, dirty, fail)
        if qt == -1:
            return False
        if qt == -2:
            return True


@njit(cache=True, inline="always")
def _fewest_candidates(cand):
    """The unsolved cell with the fewest candidates, or -1 when every cell is solved."""
    n_cells = cand.shape[0] - 1
    if cand[n_cells] == 0:
        return -1
    best = -1
    best_count = 99
    for c in range(n_cells):
        m = cand[c]
        rest = m & (m - 1)
        if rest:
            if rest & (rest - 1) == 0:
                return c  # two candidates: as few as an open cell can have
            count = _popcount(m)
            if count < best_count:
                best_count = count
                best = c
    return best


@njit(cache=True, inline="always")
def _store(cand, out):
    for c in range(out.shape[0]):
        m = cand[c]
        out[c] = _popcount(m - 1) + 1


@njit(cache=True)
def _search(givens, t, limit, buffers, out, fail):
    """Count solutions of one puzzle up to `limit`, storing the first `len(out)` of them.

    `buffers` is scratch from `_buffers`: one row of candidate masks per search level, the
    placement queue, the branch cells and their untried candidates, dirty-unit flags.
    Returns the count; fail[0] is FAIL_NONE unless the givens' own propagation failed.
    """
    stack, queue, branch_cell, branch_rest = (
        buffers.stack,
        buffers.queue,
        buffers.branch_cell,
        buffers.branch_rest,
    )
    dirty, stats = buffers.dirty, buffers.stats
    units = t.units
    n = givens.shape[0]
    size = units.shape[1]
    full = (1 << size) - 1
    fail[0] = FAIL_NONE
    cand = stack[0]
    for c in range(n):
        cand[c] = full
    cand[n] = n
    dirty[:] = 1
    qt = 0
    for c in range(n):
        v = givens[c]
        if v > 0:
            cand[c] = 1 << (v - 1)
            queue[qt] = c
            qt += 1
            cand[n] -= 1
    if not _propagate(cand, queue, qt, t, dirty, full, fail):
        return 0
    scratch = np.zeros(3, np.int32)
    depth = 0
    count = 0
    while True:
        cell = _fewest_candidates(stack[depth])
        if cell < 0:
            if count < out.shape[0]:
                _store(stack[depth], out[count])
            count += 1
            if count >= limit:
                return count
            depth -= 1
        else:
            branch_cell[depth] = cell
            branch_rest[depth] = stack[depth, cell]
        # Try the next candidate at the deepest level that has one left.
        while depth >= 0:
            rest = branch_rest[depth]
            if rest == 0:
                depth -= 1
                continue
            bit = rest & -rest
            rest ^= bit
            branch_rest[depth] = rest
            cell = branch_cell[depth]
            if rest == 0:
                # Last candidate: no need to keep this level's state, work in place.
                nxt = stack[depth]
                level = depth
            else:
                nxt = stack[depth + 1]
                nxt[:] = stack[depth]
                level = depth + 1
            nxt[cell] = bit
            nxt[n] -= 1
            queue[0] = cell
            dirty[:] = 0
            _mark(dirty, t.cell_units, t.n_cell_units, cell)
            stats[0] += 1
            if _propagate(nxt, queue, 1, t, dirty, full, scratch):
                depth = level
                break
            if level == depth:
                depth -= 1
        if depth < 0:
            return count


@njit(cache=True)
def _buffers(n_cells, n_units):
    """A `Scratch`: one row of candidate masks per search level (the last slot counts the
    unsolved cells), the placement queue, the branch cells and their untried candidates,
    dirty-unit flags, statistics (search nodes)."""
    return Scratch(
        np.empty((n_cells + 1, n_cells + 1), np.int32),
        np.empty(n_cells + 1, np.int32),
        np.empty(n_cells + 1, np.int32),
        np.empty(n_cells + 1, np.int32),
        np.empty(n_units, np.uint8),
        np.zeros(2, np.int64),
    )


@njit(cache=True)
def _search_one(givens, t, limit, out, fail):
    buffers = _buffers(givens.shape[0], t.units.shape[0])
    return _search(givens, t, limit, buffers, out, fail)


@njit(cache=True)
def _batch(puzzles, t, limit, counts, solutions):
    buffers = _buffers(puzzles.shape[1], t.units.shape[0])
    fail = np.zeros(3, np.int32)
    for i in range(puzzles.shape[0]):
        counts[i] = _search(puzzles[i], t, limit, buffers, solutions[i : i + 1], fail)
    return buffers.stats[0]


@njit(cache=True, parallel=True)
def _parallel(puzzles, t, limit, counts, solutions, n_workers):
    for w in prange(n_workers):
        buffers = _buffers(puzzles.shape[1], t.units.shape[0])
        fail = np.zeros(3, np.int32)
        for i in range(w, puzzles.shape[0], n_workers):
            counts[i] = _search(puzzles[i], t, limit, buffers, solutions[i : i + 1], fail)


# ----------------------------------------------------------------------------- Python API


def search_one(
    givens: np.ndarray, geometry: Geometry | None = None, *, limit: int = 2, keep: int = 2
) -> tuple[int, np.ndarray, np.ndarray]:
    """Count one puzzle's solutions up to `limit`, keeping the first `keep`.

    Parameters
    ----------
    givens : ndarray of int8, shape (n_cells,)
        0 = blank, 1..size.
    geometry : Geometry, optional
        The board (default: the 9×9 sudoku).
    limit : int
        Stop counting here.
    keep : int
        How many solutions to return.

    Returns
    -------
    count : int
        Capped at `limit`.
    solutions : ndarray of int8, shape (keep, n_cells)
        The first `count` rows are solutions.
    fail : ndarray, shape (3,)
        (kind, index, bits) from the propagation of the givens: kind FAIL_CELL means cell
        `index` lost its last candidate (bits = the symbol removed last), FAIL_UNIT means
        unit `index` has no place left for the symbols in `bits`; FAIL_NONE otherwise.

    Examples
    --------
    >>> count, solutions, fail = search_one(np.zeros(81, np.int8), limit=3)
    >>> count, solutions.shape, int(fail[0]) == FAIL_NONE
    (3, (2, 81), True)
    """
    fail = np.zeros(3, np.int32)
    if _bands(geometry):
        count, solutions = bands.count_solutions(givens, limit, keep)
        if count:
            return count, solutions, fail
        # no solution: the generic kernel says which constraint empties first
    t = STANDARD_9 if geometry is None else tables_for(geometry)
    givens = np.ascontiguousarray(givens, dtype=np.int8)
    out = np.zeros((max(keep, 1), givens.shape[0]), np.int8)
    count = _search_one(givens, t.arrays, max(limit, 1), out, fail)
    return int(count), out[: min(count, keep)], fail


def count_solutions_81(values: np.ndarray, limit: int) -> tuple[int, np.ndarray | None]:
    """Count a 9×9 puzzle's solutions up to `limit` (the photo pipeline's uniqueness check).

    Parameters
    ----------
    values : ndarray of int8, shape (81,)
        0 = blank.
    limit : int

    Returns
    -------
    count : int
        Capped at `limit`.
    solution : ndarray of int8, shape (81,), or None
        The first solution found.

    Examples
    --------
    >>> count, first = count_solutions_81(np.zeros(81, np.int8), 2)
    >>> count, sorted(set(first[:9].tolist())) == list(range(1, 10))
    (2, True)
    """
    count, solutions = bands.count_solutions(values, limit, keep=1)
    return count, (solutions[0] if count else None)


def solve_batch(
    puzzles: np.ndarray, geometry: Geometry | None = None, *, limit: int = 1, generic: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Solve many puzzles of one board shape in one compiled call on one thread.

    Parameters
    ----------
    puzzles : ndarray of int8, shape (N, n_cells)
    geometry : Geometry, optional
        The board (default: the 9×9 sudoku, solved by `solver.bands`' bitboard kernel).
    limit : int
        Count solutions up to here; 1 is the benchmark's "first solution" mode.
    generic : bool
        Run this module's kernel even on a 9×9 board (the benchmark compares them).

    Returns
    -------
    counts : ndarray, shape (N,)
        Capped at `limit`.
    solutions : ndarray of int8, shape (N, n_cells)
        The first solution of each, a row of zeros where there is none.

    Examples
    --------
    >>> counts, solutions = solve_batch(np.zeros((2, 81), np.int8), limit=2)
    >>> counts.tolist(), solutions.shape
    ([2, 2], (2, 81))
    """
    if _bands(geometry, generic):
        return bands.solve_batch(puzzles, limit=limit)
    t = STANDARD_9 if geometry is None else tables_for(geometry)
    puzzles = np.ascontiguousarray(puzzles, dtype=np.int8)
    counts = np.zeros(puzzles.shape[0], np.int32)
    solutions = np.zeros(puzzles.shape, np.int8)
    _batch(puzzles, t.arrays, max(limit, 1), counts, solutions)
    return counts, solutions


def search_nodes(
    puzzles: np.ndarray, geometry: Geometry | None = None, *, limit: int = 1, generic: bool = False
) -> int:
    """How many branches the search tried over a batch (for the benchmark's profile).

    Parameters
    ----------
    puzzles, geometry, limit, generic
        As for `solve_batch`.

    Returns
    -------
    int

    Examples
    --------
    >>> search_nodes(np.zeros((1, 81), np.int8)) >= 0
    True
    """
    if _bands(geometry, generic):
        return bands.search_nodes(puzzles, limit=limit)[0]
    t = STANDARD_9 if geometry is None else tables_for(geometry)
    puzzles = np.ascontiguousarray(puzzles, dtype=np.int8)
    counts = np.zeros(puzzles.shape[0], np.int32)
    return int(_batch(puzzles, t.arrays, max(limit, 1), counts, np.zeros(puzzles.shape, np.int8)))


def solve_parallel(
    puzzles: np.ndarray, geometry: Geometry | None = None, *, limit: int = 1, workers: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """`solve_batch` spread over threads.

    Parameters
    ----------
    puzzles, geometry, limit
        As for `solve_batch`.
    workers : int
        Threads; 0 (the default) every core numba may use.

    Returns
    -------
    counts, solutions
        As for `solve_batch`.

    Examples
    --------
    >>> counts, _ = solve_parallel(np.zeros((4, 81), np.int8), workers=2)
    >>> counts.tolist()
    [1, 1, 1, 1]
    """
    import numba

    if _bands(geometry):
        return bands.solve_parallel(puzzles, limit=limit, workers=workers)
    t = STANDARD_9 if geometry is None else tables_for(geometry)
    puzzles = np.ascontiguousarray(puzzles, dtype=np.int8)
    counts = np.zeros(puzzles.shape[0], np.int32)
    solutions = np.zeros(puzzles.shape, np.int8)
    workers = workers or numba.get_num_threads()
    _parallel(puzzles, t.arrays, max(limit, 1), counts, solutions, workers)
    return counts, solutions
