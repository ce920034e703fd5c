"""The pair tests of the almost locked sets, compiled (numba, `cache=True`).

Every finder of `als.py` starts from two tables over every pair of a state's sets (a late
9x9 state has about 250 of them): the restricted commons (digits x such that every x of
the one set sees every x of the other) and the useful ends (digits z that some cell
outside both sees in every place of both). In numpy each digit's pairs were tested as
whole matrices of 64-bit words, a dozen array operations a digit, whose set-up cost
more than the tests themselves; compiled, each pair is a few word operations. The answers
and their order are the numpy code's.

A set is given by its rows of 64-bit cell words (`Als.holder_words`: row 0 its cells,
row d its places for digit d; `Als.seen_words`: row d the cells outside it seeing every
one of those places).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.logic.fish_kernel import _count as _bit_count
from solver.logic.reach_kernel import disjoint_and_seeing


@njit(cache=True)
def _members(holders, d):
    """The sets (ascending) with a place for digit d."""
    n, _, width = holders.shape
    out = np.empty(n, np.int64)
    m = 0
    for s in range(n):
        for w in range(width):
            if holders[s, d, w]:
                out[m] = s
                m += 1
                break
    return out[:m]


@njit(cache=True)
def restricted_commons(holders, seen, digits):
    """(a, b, x) of every ordered pair of sets joined by a restricted common x: digit by
    digit in the order of `digits`, then pairs in row-major order (a, then b, ascending).
    Sets a and b are joined by x when each set's places for x lie outside the other set
    and see all of the other's (a test on the upper triangle, a < b, answering for both
    orders). The pairs are counted first and then written into an array of that size (an
    output array grown as it fills made the whole loop ten times slower)."""
    every_members = []
    every_linked = []
    total = 0
    for d in digits:
        members = _members(holders, d)
        m = len(members)
        linked = np.zeros((m, m), np.bool_)
        for i in range(m):
            a = members[i]
            for j in range(i + 1, m):
                b = members[j]
                # every place of b seen by every place of a (and the places of each
                # outside the other set: `seen` holds no cell of its own set)
                if disjoint_and_seeing(holders[a, d], seen[a, d], holders[b, d], seen[b, d]):
                    linked[i, j] = True
                    linked[j, i] = True
                    total += 2
        every_members.append(members)
        every_linked.append(linked)
    out = np.empty((total, 3), np.int64)
    n_out = 0
    for k in range(len(digits)):
        members, linked = every_members[k], every_linked[k]
        m = len(members)
        for i in range(m):
            for j in range(m):
                if linked[i, j]:
                    out[n_out, 0] = members[i]
                    out[n_out, 1] = members[j]
                    out[n_out, 2] = digits[k]
                    n_out += 1
    return out


@njit(cache=True)
def useful_ends(holders, seen, holding):
    """useful[a, b]: the digits z (bit z - 1) held by both sets a and b (a may be b) such
    that some cell still holding z (`holding[z - 1]`, cell words) sees every place of z
    in both, outside them."""
    n, rows, width = holders.shape
    useful = np.zeros((n, n), np.int64)
    for d in range(1, rows):
        members = _members(holders, d)
        m = len(members)
        if m < 2:
            continue
        bit = np.int64(1) << (d - 1)
        for i in range(m):
            a = members[i]
            for j in range(i, m):
                b = members[j]
                for w in range(width):
                    if seen[a, d, w] & seen[b, d, w] & holding[d - 1, w]:
                        useful[a, b] |= bit
                        useful[b, a] |= bit
                        break
    return useful


@njit(cache=True)
def next_level(frontier, src, first, targets):
    """The ALS chains' next level: each state's row of starts ORed from the rows of the
    states leading to it (edges grouped by target: those of targets[k] come from
    src[first[k]:first[k + 1]]), each edge's row straight into its target's, where numpy
    gathered a copy of every edge's row first."""
    nxt = np.zeros_like(frontier)
    rows = len(first)
    for k in range(rows):
        stop = first[k + 1] if k + 1 < rows else len(src)
        t = targets[k]
        for e in range(first[k], stop):
            s = src[e]
            for w in range(frontier.shape[1]):
                nxt[t, w] |= frontier[s, w]
    return nxt


@njit(cache=True)
def petal_table(holders, stems, peer_words, digits):
    """For death blossoms: petal[d, k, i], whether set i is a petal for digit d of stem
    cell stems[k] (it does not hold the stem, and holds d only in cells seeing it), and
    union[d, k], the digits (bits) of those petals together (0: none)."""
    n_sets, rows, width = holders.shape
    petal = np.zeros((rows, len(stems), n_sets), np.bool_)
    union = np.zeros((rows, len(stems)), np.int64)
    one = np.uint64(1)
    for k in range(len(stems)):
        stem = stems[k]
        word, bit = stem // 64, np.uint64(stem % 64)
        for i in range(n_sets):
            if (holders[i, 0, word] >> bit) & one:
                continue
            for d in range(1, rows):
                held, seen = False, True
                for w in range(width):
                    places = holders[i, d, w]
                    held |= places != 0
                    seen &= (places & ~peer_words[stem, w]) == 0
                if held and seen:
                    petal[d, k, i] = True
                    union[d, k] |= digits[i]
    return petal, union


@njit(cache=True)
def bloom_reach(petal, stems, stem_digits, holders, seen, holding):
    """For death blossoms: reach[k, z], whether some cell holding z, not stem k, is seen
    in all their places for z by some petal (`petal_table`) holding z of each digit of
    stem k (`stem_digits`, bits): else no choice of petals takes z from anywhere."""
    rows, n_stems, n_sets = petal.shape
    width = holders.shape[2]
    reach = np.zeros((n_stems, rows), np.bool_)
    common = np.empty(width, np.uint64)
    seen_by = np.empty(width, np.uint64)
    for k in range(n_stems):
        stem = stems[k]
        for z in range(1, rows):
            if (stem_digits[k] >> (z - 1)) & 1:
                continue
            common[:] = holding[z - 1]
            common[stem // 64] &= ~(np.uint64(1) << np.uint64(stem % 64))
            alive = True
            for d in range(1, rows):
                if not (stem_digits[k] >> (d - 1)) & 1:
                    continue
                seen_by[:] = 0
                for i in range(n_sets):
                    if petal[d, k, i] and holders[i, z].any():
                        for w in range(width):
                            seen_by[w] |= seen[i, z, w] & ~holders[i, 0, w]
                alive = False
                for w in range(width):
                    common[w] &= seen_by[w]
                    alive |= common[w] != 0
                if not alive:
                    break
            reach[k, z] = alive
    return reach


@njit(cache=True)
def chain_ends(frontier, n_starts, start_set, start_digit, state_set, state_digit, useful):
    """For the ALS chains' search at one level: (start, state, digits) for every start r
    whose walks reach state st (bit r of row st of `frontier`, 64-bit words) where some
    digit could leave the cells seeing it in both end sets, neither link's digit:
    useful[start_set[r], state_set[st]] & ~start_digit[r] & ~state_digit[st] (digits as
    bits), not 0. Ordered by start, then state (row-major, as np.nonzero of the dense
    [start, state] matrix, which the reached pairs, mostly without such a digit, no longer
    need to be unpacked into)."""
    m, width = frontier.shape
    count = 0
    for st in range(m):
        for w in range(width):
            x = frontier[st, w]
            while x:
                x &= x - np.uint64(1)
                count += 1
    keys = np.empty(count, np.int64)
    shared = np.empty(count, np.int64)
    n = 0
    for st in range(m):
        for w in range(width):
            x = frontier[st, w]
            b = 0
            while x:
                if x & np.uint64(1):
                    r = w * 64 + b
                    if r < n_starts:
                        digits = useful[start_set[r], state_set[st]]
                        digits &= ~start_digit[r] & ~state_digit[st]
                        if digits:
                            keys[n] = r * m + st
                            shared[n] = digits
                            n += 1
                x >>= np.uint64(1)
                b += 1
    order = np.argsort(keys[:n])
    keys, shared = keys[:n][order], shared[:n][order]
    return keys // m, keys % m, shared


@njit(cache=True)
def xy_wing_candidates(first_link, link_set, link_digit, digits, useful):
    """For the ALS-XY-wings: (pivot, p, q) for every two links p < q of a pivot set (its
    links are first_link[pivot] to first_link[pivot + 1], each to set link_set[l] by digit
    link_digit[l]) to sets a < b by different digits x, y, where a and b share a digit
    other than x and y that some cell could lose (`useful`): the pairs worth listing
    targets for, pivot by pivot, then p, then q (the numpy code's row-major order)."""
    pivots = len(first_link) - 1
    count = 0
    for rounds in range(2):
        if rounds == 1:
            out = np.empty((count, 3), np.int64)
            count = 0
        for c in range(pivots):
            start, stop = first_link[c], first_link[c + 1]
            for p in range(start, stop):
                i, x = link_set[p], np.int64(1) << (link_digit[p] - 1)
                for q in range(start, stop):
                    j, y = link_set[q], np.int64(1) << (link_digit[q] - 1)
                    if i >= j or x == y:
                        continue
                    if digits[i] & digits[j] & useful[i, j] & ~x & ~y:
                        if rounds == 1:
                            out[count, 0] = c
                            out[count, 1] = p - start
                            out[count, 2] = q - start
                        count += 1
    return out


@njit(cache=True)
def xz_candidates(first_link, link_set, link_digit, digits, useful, alone):
    """For ALS-XZ: (a, b), a < b, of every two linked sets that could eliminate something:
    singly linked (by x), when a cell could lose a digit of both other than x (`useful`);
    doubly linked, when a cell could lose a digit of both, or a digit other than the
    links' of one of them alone (`alone`). Set a by set a, then the sets b in the order
    of a's links (its links are first_link[a] to first_link[a + 1], to set link_set[l] by
    digit link_digit[l]): the order the pairs were tried in, one by one, in Python."""
    sets = len(first_link) - 1
    out = np.empty((len(link_set), 2), np.int64)
    joins = np.zeros(sets, np.int64)  # digits (bits) linking a to b
    count = np.zeros(sets, np.int64)
    order = np.empty(sets, np.int64)
    n = 0
    for a in range(sets):
        m = 0
        for p in range(first_link[a], first_link[a + 1]):
            b = link_set[p]
            if b <= a:
                continue
            if count[b] == 0:
                order[m] = b
                m += 1
            count[b] += 1
            joins[b] |= np.int64(1) << (link_digit[p] - 1)
        for t in range(m):
            b = order[t]
            shared = useful[a, b] & digits[a] & digits[b]
            if count[b] == 1:
                worth = (shared & ~joins[b]) != 0
            else:
                worth = shared != 0 or ((alone[a] | alone[b]) & ~joins[b]) != 0
            if worth:
                out[n, 0] = a
                out[n, 1] = b
                n += 1
            count[b] = 0
            joins[b] = 0
    return out[:n]


@njit(cache=True)
def unit_sets(candidates, top):
    """(positions, digits) of every almost locked set among one unit's open cells: sets of
    at most `top` cells (as bits of their positions in `candidates`, the cells' digit
    masks) holding one digit more than they have cells. In the order of a depth-first
    walk that grows each set by a later cell, a set before its extensions; a branch stops
    once its digits pass top + 1, since adding cells never loses a digit. Compiled, the
    walk costs less than making the sets' Python tuples did in a recursive generator."""
    n = candidates.shape[0]
    found = np.empty((16, 2), np.int64)
    n_found = 0
    chosen = np.zeros(max(top, 0) + 1, np.int64)  # the set at each depth, as positions
    union = np.zeros(max(top, 0) + 1, np.int64)  # its digits
    following = np.zeros(max(top, 0) + 1, np.int64)  # the next position to try adding
    depth = 0
    while depth >= 0:
        if depth >= top or following[depth] >= n:
            depth -= 1
            continue
        i = following[depth]
        following[depth] = i + 1
        joined = union[depth] | candidates[i]
        n_digits = _bit_count(joined)
        if n_digits > top + 1:
            continue
        depth += 1
        chosen[depth] = chosen[depth - 1] | (np.int64(1) << i)
        union[depth] = joined
        following[depth] = i + 1
        if n_digits == depth + 1:
            if n_found == found.shape[0]:
                bigger = np.empty((2 * n_found, 2), np.int64)
                bigger[:n_found] = found
                found = bigger
            found[n_found, 0] = chosen[depth]
            found[n_found, 1] = joined
            n_found += 1
    return found[:n_found]


@njit(cache=True)
def set_words(cells, candidates, found, peer_words, size):
    """`Als.holder_words` and `Als.seen_words` of each set `unit_sets` found among `cells`
    (their cell numbers, `candidates` their digit masks), [set, row, word]: row 0 the
    set's cells, row d its places for digit d (holders) or the cells outside it seeing
    every one of them (seen; `peer_words` each cell's peers); 0 for a digit not held."""
    m, width = found.shape[0], peer_words.shape[1]
    one = np.uint64(1)
    holders = np.zeros((m, size + 1, width), np.uint64)
    seen = np.zeros((m, size + 1, width), np.uint64)
    for s in range(m):
        chosen = found[s, 0]
        for i in range(cells.shape[0]):
            if (chosen >> i) & 1:
                c = cells[i]
                holders[s, 0, c >> 6] |= one << np.uint64(c & 63)
        for d in range(1, size + 1):
            if not (found[s, 1] >> (d - 1)) & 1:
                continue
            for w in range(width):
                seen[s, d, w] = ~np.uint64(0)
            for i in range(cells.shape[0]):
                if (chosen >> i) & 1 and (candidates[i] >> (d - 1)) & 1:
                    c = cells[i]
                    holders[s, d, c >> 6] |= one << np.uint64(c & 63)
                    for w in range(width):
                        seen[s, d, w] &= peer_words[c, w]
            for w in range(width):
                seen[s, d, w] &= ~holders[s, 0, w]
    return holders, seen
