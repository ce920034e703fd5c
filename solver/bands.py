"""The 9×9 engine: for each digit, the cells that may still hold it, as three 27-bit bands.

Why a second engine: `solver.fast` reads candidates one cell at a time through tables, so
that every geometry (16×16, diagonal, clover) can run it. The standard 9×9 board, which is
what photos, puzzle files and the benchmarks hold, is worth a layout of its own. A band is
three rows of boxes, 27 cells, so one machine word holds where a digit may go in a band and
nine digits × three bands describe the board. Then:

- naked singles for a whole band come from a few ORs and ANDs over the nine digit words
  (a cell with exactly one candidate, or none: a contradiction);
- a digit's hidden singles in rows and boxes are single-bit tests on shifts of one word,
  and in columns on the three words folded together; only digits whose words changed since
  they were last checked are looked at again;
- when singles stall, each band's (and stack's) digits become 3×3 matrices of where each
  may still go (row × box); locked candidates are one table lookup per matrix, and the
  triad rules (a minirow holds exactly three digits) bit-sliced counts over the nine;
- a search level is 32 words to copy; it branches on a digit's configurations in a band or
  stack (which row of each box it takes: six at most) when one has two left, else on a
  cell, as tdoku's notes describe; with the triads this brings the guesses per puzzle to
  tdoku's (hardest11+: 35 a puzzle, first solution).

The same idea as JCZSolve and tdoku's bitboards, written for numba (our own code: tdoku is
the yardstick in bench/solver.py). It answers the same
questions as `solver.fast` (count up to a limit, keep the first solutions) and is used by it
for every standard 9×9 board (single, batch, parallel and photo); `fast` keeps the generic kernel
for everything else and for explaining why a puzzle has no solution.

>>> import numpy as np
>>> puzzle = np.array([int(ch) for ch in
...     "530070000600195000098000060800060003400803001700020006060000280000419005000080079"],
...     np.int8)
>>> counts, solutions = solve_batch(puzzle[None, :], limit=2)
>>> int(counts[0]), "".join(map(str, solutions[0][:9]))
(1, '534678912')
"""

from __future__ import annotations

from collections import namedtuple
from itertools import permutations

import numpy as np
from numba import njit, prange, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from solver.geometry import standard

BAND = (1 << 27) - 1  # every cell of a band
ROW = 0x1FF  # one row of a band
BOX = 0x7 | 0x7 << 9 | 0x7 << 18  # the first box of a band: three cells of each of its rows
CONFIGURATION = 128  # a branch on a digit's configurations in a band (see `_branch`)
STACK_CONFIGURATION = 256  # the same in a stack
BRANCH_STACKS = True  # configurations in stacks too
WORDS = 32  # 9 digits × 3 bands, the placed cells of each band, two spare (256 bytes)
BRANCH_CONFIGURATIONS = True  # else cells only (see `_branch`)
LEVELS = 140  # search levels: 81 cells, 27 digit-bands and 27 digit-stacks at most
TRIADS = True  # the triad rules beside locked candidates (see `_triad_rules`)

# A search's scratch, made once per batch (per thread): one board state per search level,
# the digit words as last checked for hidden singles, the branches and their untried
# options, statistics (branches tried, guesses), the triad pass's matrices (raw, mat) and
# the matrices it left per digit-band and digit-stack (bands: band t's digit d at 9 * t + d,
# stack j's at 27 + 9 * j + d, each digit's folded columns at 54 + d). A namedtuple, which numba
# compiles as a tuple; the search gets raw pointers into it (`_borrowed`).
Scratch = namedtuple("Scratch", "stack seen branch_cell branch_rest stats raw mat bands")


def _peer_masks() -> np.ndarray:
    """(81, 3): for each cell, its peers (`Geometry.peers` of the 9×9 board) in each band."""
    masks = np.zeros((81, 3), np.int64)
    for cell, peers in enumerate(standard(3).peers):
        for other in peers:
            masks[cell, other // 27] |= 1 << (other % 27)
    return masks


PEERS = _peer_masks()
PEERS_FLAT = PEERS.reshape(-1).copy()  # cell c's peers in band k at 3 * c + k


def _segment_tables() -> tuple[np.ndarray, np.ndarray]:
    """Locked candidates on a 3×3 matrix of where a digit may go: entry (i, j) set when it
    may go in row i ∩ box j of a band (or in box i ∩ column j of a stack). A matrix row with
    one entry confines the digit to that column of the matrix, and a matrix column with one
    entry confines it to that row: the rest of that column (row) loses it. The rules are the
    same both ways round, so one table serves both.

    Returns KEEP (512,): the matrix after the rules, to a fixed point; and SEGMENTS (512,):
    a band word's cells for a matrix (entry (i, j) = row i, columns 3j..3j+2)."""
    row = [0x7 << (3 * i) for i in range(3)]  # matrix row i
    col = [0x49 << j for j in range(3)]  # matrix column j
    keep = np.arange(512, dtype=np.int64)  # every matrix at once, to a fixed point
    while True:
        nxt = keep.copy()
        for i in range(3):
            for j in range(3):
                entry = 1 << (3 * i + j)
                nxt[(keep & row[i]) == entry] &= ~(col[j] & ~entry)  # row i holds only (i, j)
                nxt[(keep & col[j]) == entry] &= ~(row[i] & ~entry)  # column j holds only (i, j)
        if (nxt == keep).all():
            break
        keep = nxt
    bits = (np.arange(512)[:, None] >> np.arange(9)) & 1
    cells = np.array([0x7 << (9 * (e // 3) + 3 * (e % 3)) for e in range(9)], np.int64)
    return keep, (bits * cells).sum(axis=1)


KEEP, SEGMENTS = _segment_tables()
# for a row's 9 cells, the boxes (3 bits) in which it has any
BOXES_OF = np.array([(m & 7 > 0) | (m & 0x38 > 0) << 1 | (m & 0x1C0 > 0) << 2 for m in range(512)])
COLUMN = 1 | 1 << 9 | 1 << 18  # the first column of a band


def _triad_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FORCED (512,): the entries of a matrix alone in their row (the digit must go there);
    CROSS (512,): for a set of entries, the other entries of their rows and columns;
    COLUMNS (8,): a band word's cells of the columns in a 3-bit set."""
    rows = [0x7 << (3 * i) for i in range(3)]
    cols = [0x49 << j for j in range(3)]
    forced = np.zeros(512, np.int64)
    cross = np.zeros(512, np.int64)
    for m in range(512):
        for e in range(9):
            if m >> e & 1:
                line = rows[e // 3] | cols[e % 3]
                if m & rows[e // 3] == 1 << e:
                    forced[m] |= 1 << e
                cross[m] |= line
        cross[m] &= ~m
    columns = np.array([sum(COLUMN << c for c in range(3) if r >> c & 1) for r in range(8)])
    return forced, cross, columns


FORCED, CROSS, COLUMNS = _triad_tables()
KEEP_FORCED = KEEP | FORCED[KEEP] << 9  # both at one lookup


def _configuration_tables() -> tuple[np.ndarray, np.ndarray]:
    """A digit takes one row in each box of a band, a different row in each: one of six
    configurations, each a permutation matrix (row i, box j). PERMUTATIONS (6,): those
    matrices; WITHIN (512,): which of the six (bit k) a matrix still allows."""
    perms = np.array([sum(1 << (3 * i + p[i]) for i in range(3)) for p in permutations(range(3))])
    within = np.array([sum(1 << k for k, q in enumerate(perms) if q & m == q) for m in range(512)])
    return perms, within


PERMUTATIONS, WITHIN = _configuration_tables()
CONFIGURATIONS = np.array([bin(m).count("1") for m in WITHIN])  # how many a matrix allows


@intrinsic
def _ctpop(typingctx, x):
    """The CPU's popcount instruction (LLVM's ctpop): numba's integer arithmetic on int64
    words does not match LLVM's popcount idiom, so the arithmetic version stayed a dozen
    instructions."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@njit(cache=True, inline="always")
def popcount(m):
    """Bits set in a mask (non-negative int64)."""
    return _ctpop(m)


@njit(cache=True, inline="always")
def _u(i):
    """A table index as unsigned: numba tests a signed index for being negative (to count
    from the end), a shift and an AND per lookup."""
    return np.uint64(i)


@njit(cache=True, inline="always")
def _bit_index(bit):
    """Index of the lowest bit set in `bit` (one instruction: tzcnt)."""
    return trailing_zeros(bit)


# The kernels below read and write one board state as WORDS consecutive int64 of a flat
# array `s` from offset `o`: `s[o + 3 * d + b]` where digit d may go in band b, then
# `s[o + 27 + b]` the placed cells of band b. A search level is the next WORDS words. Offsets
# rather than row views: a view of a numba array is a reference-counted object, and taking
# one per node and per call cost about 15% of the time in atomic increments. `s` is a raw
# pointer (`_borrowed`), which numba indexes without testing for negative indices.


@njit(cache=True, inline="always")
def _place_bit(s, o, d, b, bit):
    """Fix digit d (0-based) in the cell `bit` of band b; False when d is no longer
    possible there. Band and bit rather than a cell number: no division by 27."""
    if not s[o + 3 * d + b] & bit:
        return False
    for e in range(9):
        s[o + 3 * e + b] &= ~bit
    _clear_peers(s, o, d, b, bit)
    return True


@njit(cache=True, inline="always")
def _clear_peers(s, o, d, b, bit):
    """Remove digit d from the peers of the cell `bit` of band b, and mark it placed."""
    i = o + 3 * d
    c = 3 * (27 * b + _bit_index(bit))
    s[i] &= ~PEERS_FLAT[_u(c)]
    s[i + 1] &= ~PEERS_FLAT[_u(c + 1)]
    s[i + 2] &= ~PEERS_FLAT[_u(c + 2)]
    s[i + b] |= bit
    s[o + 27 + b] |= bit


@njit(cache=True, inline="always")
def _place(s, o, d, cell):
    """Fix digit d (0-based) in `cell`; False when d is no longer possible there."""
    return _place_bit(s, o, d, cell // 27, 1 << (cell % 27))


@njit(cache=True, inline="always")
def _naked_singles(s, o):
    """Place every cell left with one candidate; 1 if any was placed, 0 if none, -1 when a
    cell has no candidate left."""
    placed = 0
    for b in range(3):
        once = 0
        twice = 0
        for d in range(9):
            w = s[o + 3 * d + b]
            twice |= once & w
            once |= w
        if once != BAND:
            return -1
        singles = once & ~twice & ~s[o + 27 + b]
        if not singles:
            continue
        placed = 1
        # digit by digit: a single that an earlier one emptied is caught by the next pass
        for d in range(9):
            mine = s[o + 3 * d + b] & singles
            if not mine:
                continue
            singles &= ~mine
            while mine:
                bit = mine & -mine
                mine ^= bit
                # the only candidate: no other digit's word holds the cell
                if not s[o + 3 * d + b] & bit:
                    return -1
                _clear_peers(s, o, d, b, bit)
            if not singles:
                break
    return placed


@njit(cache=True, inline="always")
def _hidden_singles(s, o, d):
    """Place digit d where it has one place left in a row, box or column; as
    `_naked_singles`, -1 when some unit has no place left for d."""
    placed = 0
    i = o + 3 * d
    for b in range(3):
        w = s[i + b]
        found = 0
        for k in range(3):
            row = (w >> (9 * k)) & ROW
            box = (w >> (3 * k)) & BOX
            if row == 0 or box == 0:
                return -1
            if row & (row - 1) == 0:
                found |= row << (9 * k)
            if box & (box - 1) == 0:
                found |= box << (3 * k)
        found &= ~s[o + 27 + b]
        while found:
            bit = found & -found
            found ^= bit
            if not _place_bit(s, o, d, b, bit):
                return -1
            placed = 1
    # columns: fold the nine rows into "seen once" and "seen twice or more" per column
    once = 0
    twice = 0
    done = 0  # columns where d is placed already
    for b in range(3):
        w = s[i + b]
        p = w & s[o + 27 + b]
        done |= p | p >> 9 | p >> 18
        for k in range(3):
            row = (w >> (9 * k)) & ROW
            twice |= once & row
            once |= row
    if once != ROW:
        return -1
    lone = once & ~twice & ~done
    while lone:
        col = lone & -lone
        lone ^= col
        for b in range(3):
            w = s[i + b]
            for k in range(3):
                bit = col << (9 * k)
                if w & bit:
                    if not _place_bit(s, o, d, b, bit):
                        return -1
                    placed = 1
    return placed


@njit(cache=True, inline="always")
def _count4(k, c1, c2, c3, c4):
    """Bit-sliced counters over 9-bit matrices: at least one, two, three, four."""
    return c1 | k, c2 | (c1 & k), c3 | (c2 & k), c4 | (c3 & k)


@njit(cache=True)
def _triad_rules(raw, mat):
    """A band's (or stack's) nine digit matrices `raw` (entry = minirow, or minicolumn) made
    consistent: `mat` gets each digit's matrix after locked candidates and, when TRIADS,
    the triad rules. A minirow holds exactly three digits: where only three can go they all
    must (each leaves the rest of its row and box), where three must go no other can.
    False on a contradiction (a minirow with fewer than three digits possible, or four
    forced)."""
    if not TRIADS:
        for d in range(9):
            mat[d] = KEEP[_u(raw[d])]
        return True
    c1 = c2 = c3 = c4 = 0
    f1 = f2 = f3 = f4 = 0
    for d in range(9):
        kf = KEEP_FORCED[_u(raw[d])]
        k = kf & 0x1FF
        mat[d] = k
        c1, c2, c3, c4 = _count4(k, c1, c2, c3, c4)
        f1, f2, f3, f4 = _count4(kf >> 9, f1, f2, f3, f4)
    if c3 != 0x1FF or f4:
        return False
    need = c3 & ~c4
    full = f3
    if need | full:
        for d in range(9):
            k = mat[d]
            cross = CROSS[_u(k & need)]
            mat[d] = KEEP[_u(k & ~cross & ~(full & ~(KEEP_FORCED[_u(k)] >> 9)))]
    return True


@njit(cache=True)
def _triads(s, o, raw, mat, bands):
    """Locked candidates (and triads) in every band, then every stack; -1 on a
    contradiction, 1 when something was removed, else 0. `bands` keeps each digit's band
    matrices as this pass leaves them, for `_branch` to count configurations from."""
    changed = 0
    for b in range(3):
        for d in range(9):
            w = s[o + 3 * d + b]
            raw[d] = (
                BOXES_OF[_u(w & ROW)]
                | BOXES_OF[_u((w >> 9) & ROW)] << 3
                | BOXES_OF[_u(w >> 18)] << 6
            )
        if not _triad_rules(raw, mat):
            return -1
        for d in range(9):
            bands[9 * b + d] = mat[d]
            if mat[d] != raw[d]:
                s[o + 3 * d + b] &= SEGMENTS[_u(mat[d])]
                changed = 1
    # each digit's columns per band (9 bits each), then each stack's matrix from them
    for d in range(9):
        folded = 0
        for b in range(3):
            w = s[o + 3 * d + b]
            folded |= ((w | w >> 9 | w >> 18) & ROW) << (9 * b)
        bands[54 + d] = folded
    for j in range(3):
        for d in range(9):
            x = bands[54 + d] >> (3 * j)
            raw[d] = (x & 7) | ((x >> 6) & 0x38) | ((x >> 12) & 0x1C0)
        if not _triad_rules(raw, mat):
            return -1
        for d in range(9):
            bands[27 + 9 * j + d] = mat[d]
            gone = raw[d] & ~mat[d]
            if gone:
                for b in range(3):
                    r = (gone >> (3 * b)) & 7
                    if r:
                        s[o + 3 * d + b] &= ~(COLUMNS[_u(r)] << (3 * j))
                changed = 1
    return changed


@njit(cache=True, inline="always")
def _solved(s, o):
    return s[o + 27] == BAND and s[o + 28] == BAND and s[o + 29] == BAND


@njit(cache=True)
def _propagate(s, o, seen, raw, mat, bands):
    """Naked and hidden singles until nothing changes, then locked candidates (and triads)
    while they remove anything; False on a contradiction.

    `seen` holds each digit's words as they were when its hidden singles were last looked
    for: a digit whose words are unchanged has none to offer, so it is skipped.
    """
    passes = 0
    while True:
        placed = _naked_singles(s, o)
        if placed < 0:
            return False
        if placed:
            continue  # naked singles first: they cost a few word operations per band
        digits = 0  # the digits whose words changed, found without a branch per digit
        for j in range(27):
            digits |= (s[o + j] != seen[j]) << j
        digits = (digits | digits >> 1 | digits >> 2) & 0x1249249
        while digits:
            j = _bit_index(digits)
            digits &= digits - 1
            d = j // 3
            i = o + j
            seen[j] = s[i]
            seen[j + 1] = s[i + 1]
            seen[j + 2] = s[i + 2]
            found = _hidden_singles(s, o, d)
            if found < 0:
                return False
            if found:
                placed = 1
        if placed:
            continue
        if _solved(s, o):
            return True
        if passes == 1:
            return True
        passes += 1
        placed = _triads(s, o, raw, mat, bands)
        if placed < 0:
            return False
        if not placed:
            return True


@njit(cache=True)
def _branch_cell(s, o):
    """An open cell with two candidates, else one with the fewest; -1 when all are placed."""
    for b in range(3):
        open_ = BAND & ~s[o + 27 + b]
        if not open_:
            continue
        once = 0
        twice = 0
        more = 0
        for d in range(9):
            w = s[o + 3 * d + b]
            more |= twice & w
            twice |= once & w
            once |= w
        two = twice & ~more & open_
        if two:
            return 27 * b + _bit_index(two & -two)
    best = -1
    fewest = 10
    for b in range(3):
        open_ = BAND & ~s[o + 27 + b]
        while open_:
            bit = open_ & -open_
            open_ ^= bit
            n = 0
            for d in range(9):
                if s[o + 3 * d + b] & bit:
                    n += 1
            if n < fewest:
                fewest = n
                best = 27 * b + _bit_index(bit)
    return best


@njit(cache=True)
def _branch(s, o, bands):
    """Where to branch: (cell, its candidates as bits), or (CONFIGURATION + 3 * d + b, the
    configurations digit d may still take in band b as bits); (-1, 0) when every cell is
    placed. The choice tdoku's notes describe: the open band with the fewest
    configurations left over all its digits, and there the digit with the fewest, when it
    has two; else a cell with the fewest candidates (two when there is one), or the digit
    if it has fewer configurations than that cell has candidates. Branching on
    configurations halved the guesses on the hard sets (with the triad rules)."""
    best = -1
    best_n = 7
    best_mask = 0
    if _solved(s, o):
        return -1, 0
    if BRANCH_CONFIGURATIONS:
        band_best = 1000
        for t in range(6 if BRANCH_STACKS else 3):
            total = 0
            b_best = -1
            b_n = 7
            for d in range(9):
                # as the last triad pass left them: bands, then stacks
                n = CONFIGURATIONS[_u(bands[9 * t + d])]
                if n > 1:
                    total += n
                    if n < b_n:
                        b_best, b_n = d, n
            if b_best >= 0 and total < band_best:
                band_best = total
                best, best_n = 9 * t + b_best, b_n
        if best >= 0:
            t, d = divmod(best, 9)
            best_mask = WITHIN[_u(bands[best])]
            best = 3 * d + t % 3 + (CONFIGURATION if t < 3 else STACK_CONFIGURATION)
        if best >= 0 and best_n == 2:
            return best, best_mask
    cell = _branch_cell(s, o)
    if cell < 0:
        return -1, 0
    digits = _candidates(s, o, cell)
    if popcount(digits) <= best_n:
        return cell, digits
    return best, best_mask


@njit(cache=True, inline="always")
def _candidates(s, o, cell):
    """The digits still possible in `cell`, as bits (bit d = digit d + 1)."""
    b = cell // 27
    bit = 1 << (cell % 27)
    digits = 0
    for d in range(9):
        if s[o + 3 * d + b] & bit:
            digits |= 1 << d
    return digits


@njit(cache=True, inline="always")
def _take(s, o, where, k):
    """Take option k of a branch (see `_branch`): place digit k in a cell, or give a digit
    its k-th configuration in a band. False when that empties something."""
    if where < CONFIGURATION:
        return _place(s, o, k, where)
    if where < STACK_CONFIGURATION:
        i = o + where - CONFIGURATION
        s[i] &= SEGMENTS[_u(PERMUTATIONS[_u(k)])]
        return s[i] != 0
    d, j = divmod(where - STACK_CONFIGURATION, 3)
    p = PERMUTATIONS[_u(k)]  # entry (band b, column c of the stack)
    for b in range(3):
        i = o + 3 * d + b
        s[i] &= ~(COLUMNS[_u(7 & ~(p >> (3 * b)))] << (3 * j))
        if s[i] == 0:
            return False
    return True


@njit(cache=True)
def _store(s, o, out, row):
    for d in range(9):
        for b in range(3):
            w = s[o + 3 * d + b]
            while w:
                bit = w & -w
                w ^= bit
                out[row, 27 * b + _bit_index(bit)] = d + 1


@njit(cache=True)
def _search(puzzles, p, limit, scratch, out, keep):
    """Count solutions of puzzles[p] up to `limit`, storing the first `keep` of them in rows
    p, p + 1, ... of `out`; `scratch` is a `Scratch` of raw pointers (`_borrowed`)."""
    stack, seen, branch_cell, branch_rest, stats, raw, mat, bands = scratch
    for i in range(27):
        stack[i] = BAND
    stack[27] = 0
    stack[28] = 0
    stack[29] = 0
    for cell in range(81):
        v = puzzles[p, cell]
        if v > 0 and not _place(stack, 0, v - 1, cell):
            return 0
    for i in range(27):
        seen[i] = -1
    if not _propagate(stack, 0, seen, raw, mat, bands):
        return 0
    depth = 0
    count = 0
    while True:
        o = depth * WORDS
        cell, options = _branch(stack, o, bands)
        if cell < 0:
            if count < keep:
                _store(stack, o, out, p + count)
            count += 1
            if count >= limit:
                return count
            depth -= 1
        else:
            branch_cell[depth] = cell
            branch_rest[depth] = options
        # Try the next candidate at the deepest level that has one left.
        while depth >= 0:
            rest = branch_rest[depth]
            if rest == 0:
                depth -= 1
                continue
            bit = rest & -rest
            rest ^= bit
            branch_rest[depth] = rest
            o = depth * WORDS
            for i in range(27):
                seen[i] = stack[o + i]
            if rest == 0:
                # Last candidate: this level's state is not needed again, work in place.
                level = depth
            else:
                level = depth + 1
                for i in range(WORDS):
                    stack[o + WORDS + i] = stack[o + i]
                stats[1] += 1
            stats[0] += 1
            n = level * WORDS
            if _take(stack, n, branch_cell[depth], _bit_index(bit)) and _propagate(
                stack, n, seen, raw, mat, bands
            ):
                depth = level
                break
            if level == depth:
                depth -= 1
        if depth < 0:
            return count


@njit(cache=True)
def _buffers():
    return Scratch(
        np.empty(LEVELS * WORDS, np.int64),
        np.empty(27, np.int64),
        np.empty(LEVELS, np.int64),
        np.empty(LEVELS, np.int64),
        np.zeros(2, np.int64),
        np.empty(9, np.int64),
        np.empty(9, np.int64),
        np.empty(63, np.int64),
    )


@intrinsic
def _address_as_pointer(typingctx, address):
    """An int64 pointer from an address (for `_borrowed`)."""
    pointer = types.CPointer(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(pointer))

    return pointer(address), codegen


@njit(cache=True)
def _borrowed(owner):
    """`owner`'s memory as a raw pointer, which numba indexes like an array but neither
    reference-counts nor checks: every array an njit function takes is counted on entry and
    exit, an atomic instruction each (with the search's helpers called per placement and
    per node, that was a quarter of the time on the hardest set), and every index into an
    array is tested for being negative (numba's wraparound), a shift and an AND per word
    read. The caller keeps `owner` alive while the pointer is in use."""
    return _address_as_pointer(owner.ctypes.data)


@njit(cache=True)
def _borrowed_buffers(buffers):
    """A `Scratch` of raw pointers (see `_borrowed`) into `buffers`."""
    return Scratch(
        _borrowed(buffers.stack),
        _borrowed(buffers.seen),
        _borrowed(buffers.branch_cell),
        _borrowed(buffers.branch_rest),
        _borrowed(buffers.stats),
        _borrowed(buffers.raw),
        _borrowed(buffers.mat),
        _borrowed(buffers.bands),
    )


@njit(cache=True)
def _solve_rows(puzzles, start, step, limit, counts, solutions):
    """Puzzles start, start + step, ... : counts capped at `limit`, first solutions."""
    owner = _buffers()
    scratch = _borrowed_buffers(owner)
    for i in range(start, puzzles.shape[0], step):
        counts[i] = _search(puzzles, i, limit, scratch, solutions, 1)
    return owner.stats


@njit(cache=True)
def _batch(puzzles, limit, counts, solutions):
    return _solve_rows(puzzles, 0, 1, limit, counts, solutions)


@njit(cache=True, parallel=True)
def _parallel(puzzles, limit, counts, solutions, n_workers):
    for w in prange(n_workers):
        _solve_rows(puzzles, w, n_workers, limit, counts, solutions)


@njit(cache=True)
def _count(givens, limit, out):
    owner = _buffers()
    return _search(givens, 0, limit, _borrowed_buffers(owner), out, out.shape[0])


def count_solutions(givens: np.ndarray, limit: int = 2, keep: int = 2) -> tuple[int, np.ndarray]:
    """Solutions of one 9×9 puzzle ((81,) digits, 0 = empty), counted up to `limit`:
    (count, the first `keep` solutions as (k, 81) int8)."""
    givens = np.ascontiguousarray(givens, dtype=np.int8).reshape(1, 81)
    out = np.zeros((max(keep, 1), 81), np.int8)
    count = _count(givens, max(limit, 1), out)
    return int(count), out[: min(count, keep)]


def solve_batch(puzzles: np.ndarray, *, limit: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """An (N, 81) array of puzzles in one compiled call on one thread: (counts capped at
    `limit`, first solutions, rows of zeros where there is none)."""
    puzzles = np.ascontiguousarray(puzzles, dtype=np.int8)
    counts = np.zeros(puzzles.shape[0], np.int32)
    solutions = np.zeros(puzzles.shape, np.int8)
    _batch(puzzles, max(limit, 1), counts, solutions)
    return counts, solutions


def search_nodes(puzzles: np.ndarray, *, limit: int = 1) -> tuple[int, int]:
    """How many branches the search tried over a batch, and at how many of them a
    candidate was left to try after it (guesses: a state was copied), for the benchmark's
    profile."""
    puzzles = np.ascontiguousarray(puzzles, dtype=np.int8)
    counts = np.zeros(puzzles.shape[0], np.int32)
    stats = _batch(puzzles, max(limit, 1), counts, np.zeros(puzzles.shape, np.int8))
    return int(stats[0]), int(stats[1])


def solve_parallel(
    puzzles: np.ndarray, *, limit: int = 1, workers: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """`solve_batch` spread over `workers` threads (default: every core numba may use)."""
    import numba

    puzzles = np.ascontiguousarray(puzzles, dtype=np.int8)
    counts = np.zeros(puzzles.shape[0], np.int32)
    solutions = np.zeros(puzzles.shape, np.int8)
    _parallel(puzzles, max(limit, 1), counts, solutions, workers or numba.get_num_threads())
    return counts, solutions
