"""The chain graph's weak links on a digit and the chain search's levels, compiled (numba,
`cache=True`).

`seeing_pairs` tests every two nodes of a digit for a weak link (disjoint, every cell of
the one seeing every cell of the other) on their 64-bit cell words: in numpy each digit's
pairs were a few whole-matrix operations, whose set-up cost more than the tests.

`aic.reach` finds the shortest alternating walk between every two literals at once: row t
of a bit-packed matrix holds the literals whose walks of the current length end at t, and
one level ORs the rows along every literal edge. In numpy a level gathered a copy of the
source row of every edge before ORing them together (a few MB a level on the grouped
graph); compiled, each edge's row is ORed straight into its target's, and the new pairs,
the seen pairs and the level's bit planes are written in the same pass.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def disjoint_and_seeing(a, a_seen, b, b_seen):
    """Whether cell sets a and b (rows of 64-bit words) share no cell and every cell of
    each sees every cell of the other, given the cells seeing all of a (`a_seen`) and all
    of b: the weak link between two chain nodes, and the restricted common between two
    almost locked sets' places for a digit."""
    clash = a[0] & 0  # of the words' type
    for w in range(a.shape[0]):  # two words on 9x9: no early exit needed
        # a shared cell, or a cell of one not seeing all of the other
        clash |= (a[w] & (b[w] | ~b_seen[w])) | (~a_seen[w] & b[w])
    return clash == 0


@njit(cache=True)
def search_levels(frontier, src, first, targets, planes, max_links):
    """Run the levels from `frontier` (walks of length 0: each literal itself) until no
    pair is new or `max_links` is reached; each pair's first level is written in binary
    across `planes` (plane b holds bit b). Edges are grouped by target: those of
    targets[k] are src[first[k]:first[k + 1]]. Returns the deepest level with new pairs."""
    m, width = frontier.shape
    seen = np.zeros_like(frontier)
    nxt = np.zeros_like(frontier)
    rows = len(first)
    deepest = 0
    for level in range(1, max_links + 1):
        nxt[:] = 0
        for k in range(rows):
            stop = first[k + 1] if k + 1 < rows else len(src)
            t = targets[k]
            for e in range(first[k], stop):
                s = src[e]
                for w in range(width):
                    nxt[t, w] |= frontier[s, w]
        found = False
        for i in range(m):
            for w in range(width):
                new = nxt[i, w] & ~seen[i, w]
                if new:
                    found = True
                    seen[i, w] |= new
                    for b in range(planes.shape[0]):
                        if level >> b & 1:
                            planes[b, i, w] |= new
        if not found:
            break
        deepest = level
        frontier, nxt = nxt, frontier
    return deepest


@njit(cache=True)
def seeing_pairs(member, seen, digits, order):
    """(x, y), x < y, of every two nodes on the same digit that share no cell and whose
    cells all see each other: digit by digit in `order`, then x, then y ascending.
    `member` and `seen` are each node's cells and the cells seeing all of them (rows of
    64-bit words), `digits` each node's digit."""
    n = member.shape[0]
    count = np.zeros(digits.max() + 1 if n else 1, np.int64)
    for x in range(n):
        count[digits[x]] += 1
    total = 0
    for d in order:
        total += count[d] * (count[d] - 1) // 2
    out = np.empty((total, 2), np.int64)
    n_out = 0
    ids = np.empty(n, np.int64)
    for d in order:
        m = 0
        for x in range(n):
            if digits[x] == d:
                ids[m] = x
                m += 1
        for i in range(m):
            x = ids[i]
            for j in range(i + 1, m):
                y = ids[j]
                if disjoint_and_seeing(member[x], seen[x], member[y], seen[y]):
                    out[n_out, 0] = x
                    out[n_out, 1] = y
                    n_out += 1
    return out[:n_out]


@njit(cache=True)
def _level(planes, row, w, bit):
    """The level of a pair, read off its bits across the planes."""
    level = 0
    for b in range(planes.shape[0]):
        if (planes[b, row, w] >> np.uint64(bit)) & np.uint64(1):
            level |= 1 << b
    return level


@njit(cache=True)
def chain_ends(planes, n, digit, hit, single, cell, count, marks, sees, ends, ends_hit, others):
    """The ends of every chain of three links or more from "s false" to "t true" (s and t
    nodes) that eliminate something, pair by pair in the order of s, then t:

    - same digit (s not t): the cells seeing both ends and holding the digit (`hit[x]`:
      those seeing all of node x and holding its digit) are not empty: rows (s, t,
      level) of `ends`, and those cells as a row of words of `ends_hit`;
    - different digits, single cells A and B (`single`, `cell`): in one cell with more
      than the two digits (`count`), or in cells that see each other where one holds the
      other's digit (`marks`, `sees`): rows (s, t, level) of `others`.

    `planes` are the search's bit planes (`search_levels`): start literal n + s is "s
    false", target literal t < n is "t true". Rows beyond the arrays' lengths are counted,
    not written (growing the arrays inside the loop made it ten times slower): returns
    how many of each there are, so the caller can run it again with room for all."""
    width = planes.shape[2]
    cell_width = hit.shape[1]
    n_ends, n_others = 0, 0
    for s in range(n):
        row = n + s
        for w in range(min(width, (n + 63) // 64)):
            reached = _reached_word(planes, row, w)
            while reached:
                low = reached & (~reached + np.uint64(1))
                reached ^= low
                bit = _bit_index(low)
                t = w * 64 + bit
                if t >= n:
                    break
                if digit[s] == digit[t]:
                    if s == t:
                        continue
                    some = False
                    for v in range(cell_width):
                        if hit[s, v] & hit[t, v]:
                            some = True
                    if not some:
                        continue
                    level = _level(planes, row, w, bit)
                    if level < 3:
                        continue
                    if n_ends < ends.shape[0]:
                        ends[n_ends, 0], ends[n_ends, 1], ends[n_ends, 2] = s, t, level
                        for v in range(cell_width):
                            ends_hit[n_ends, v] = hit[s, v] & hit[t, v]
                    n_ends += 1
                elif single[s] and single[t]:
                    a, c = cell[s], cell[t]
                    if a == c:
                        ok = count[a] > 2
                    else:
                        ok = sees[a, c] and (marks[a, digit[t] - 1] or marks[c, digit[s] - 1])
                    if not ok:
                        continue
                    level = _level(planes, row, w, bit)
                    if level < 3:
                        continue
                    if n_others < others.shape[0]:
                        others[n_others, 0], others[n_others, 1] = s, t
                        others[n_others, 2] = level
                    n_others += 1
    return n_ends, n_others


@njit(cache=True, inline="always")
def _reached_word(planes, row, w):
    """Word w of the target literals that start literal `row` reaches, at any level."""
    reached = planes[0, row, w]
    for b in range(1, planes.shape[0]):
        reached |= planes[b, row, w]
    return reached


@njit(cache=True, inline="always")
def _bit_index(low):
    """The index of the one bit set in `low` (a uint64), by halving."""
    bit = 0
    for shift in (32, 16, 8, 4, 2, 1):
        if low >> np.uint64(shift):
            low >>= np.uint64(shift)
            bit += shift
    return bit


@njit(cache=True)
def reached_columns(planes, first_row, n_rows, columns):
    """[row, word]: for start literals first_row .. first_row + n_rows - 1, bit j set when
    target literal columns[j] is reached at any level: the few columns a finder reads,
    packed straight off the bit planes instead of unpacking every level of every pair."""
    width = planes.shape[2]
    out = np.zeros((n_rows, (len(columns) + 63) // 64), np.uint64)
    reached = np.empty(width, np.uint64)
    one = np.uint64(1)
    for i in range(n_rows):
        row = first_row + i
        for w in range(width):
            reached[w] = _reached_word(planes, row, w)
        for j in range(len(columns)):
            t = columns[j]
            if (reached[t // 64] >> np.uint64(t % 64)) & one:
                out[i, j // 64] |= one << np.uint64(j % 64)
    return out
