"""Almost locked sets: ALS-XZ, ALS-XY-wing, ALS chain and death blossom.

An *almost locked set* (ALS) is n cells of one unit that hold n + 1 digits between them
(one two-candidate cell is the smallest). Take one digit away and the other n fill the n
cells: the set is then *locked*, and each of those digits is in it. Two ALS that do not
share cells are joined by a *restricted common* digit x when every cell of the one holding
x sees every cell of the other holding x: x cannot be in both, so at least one of them is
locked without x.

- ALS-XZ: A and B joined by x, and z another digit of both: A or B is locked without x, so
  z is in A or in B, and a cell seeing every z of both cannot be z. Joined by two digits
  (*doubly linked*), both are locked, so every digit of each leaves the cells that see all
  its places in that set.
- ALS-XY-wing: A and B each joined to a pivot C, by x and y (x not y): C is locked without
  x or without y, so A or B is locked, and a shared digit z leaves the cells seeing all z
  of A and B.
- ALS chain: A1 joined to A2 by x1, A2 to A3 by x2 (x2 not x1), ... to An: if A1 is locked
  without z, each next set is locked in turn, so z is in A1 or in An (z not the first or
  last link's digit): the same elimination.
- death blossom: a *stem* cell, and for each of its digits d a *petal* ALS holding d in
  cells that all see the stem. The stem is one of its digits, so that petal is locked
  without d; a digit z of every petal then leaves the cells seeing all of them.

Everything here uses only units and "sees", so it runs on every geometry. Cell sets are
Python int bit masks; ALS bigger than `MAX_CELLS` on boards above 9×9 are not looked for (a
16×16 unit has tens of thousands of subsets).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from solver.logic import als_kernel as kernel
from solver.logic.aic import _peer_masks
from solver.logic.aic import words as _words
from solver.logic.candidates import Candidates, per_geometry
from solver.logic.memo import Memo
from solver.logic.step import Step, cell_list, digit_list, elimination_text
from solver.logic.subsets import bits, digit_masks

MAX_CELLS_LARGE = 4  # ALS size limit on boards above 9×9
MAX_CHAIN = 7  # sets in a chain: every chain of HoDoKu's library has at most seven


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: one object per set
class Als:
    cells: tuple[int, ...]
    mask: int  # the cells, as bits
    digits: int  # its digits, as bits (digit d is bit d - 1)
    holders: dict[int, int]  # digit -> its cells holding that digit (bits)
    seen: dict[int, int]  # digit -> cells outside the set seeing every holder (bits)
    unit: int
    # the same as rows of 64-bit words, made once per set (a unit's sets are remembered
    # between states) for the tests of every pair at once: row 0 the cells, row d the
    # holders of d (`holder_words`) or the cells seeing them (`seen_words`), 0 if none
    holder_words: np.ndarray
    seen_words: np.ndarray
    nodes: list | None = None  # its places per digit as chain nodes, once the chains ask


def _bits_of(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _unit_built(open_cells, unit: int, found: np.ndarray, holders, seen) -> list[Als]:
    """The sets `als_kernel.unit_sets` found among a unit's open cells, each with its rows
    of `als_kernel.set_words` and the same rows as Python ints (the finders' dicts, read
    off the words' bytes rather than ANDed again cell by cell)."""
    row = 8 * holders.shape[2]  # bytes a row
    stride = holders.shape[1] * row  # bytes a set
    holder_bytes, seen_bytes = holders.tobytes(), seen.tobytes()
    out = []
    for s, (chosen, union) in enumerate(found.tolist()):
        at = s * stride
        mask = int.from_bytes(holder_bytes[at : at + row], "little")
        holder_ints, seen_ints = {}, {}
        for d in bits(union):
            start = at + d * row
            holder_ints[d] = int.from_bytes(holder_bytes[start : start + row], "little")
            seen_ints[d] = int.from_bytes(seen_bytes[start : start + row], "little")
        cells = tuple(open_cells[i] for i in _bits_of(chosen))
        out.append(Als(cells, mask, union, holder_ints, seen_ints, unit, holders[s], seen[s]))
    return out


def almost_locked_sets(grid: Candidates) -> list[Als]:
    """Every ALS of every unit (a cell set found in two units is kept once)."""
    masks = digit_masks(grid)
    found: dict[int, Als] = {}
    for u, unit in enumerate(grid.geometry.units):
        for s in _unit_sets(grid, u, unit, masks):
            found.setdefault(s.mask, s)
    return list(found.values())


# A unit's ALS depend only on its cells' candidates (and the geometry): between two states
# of one explanation most units are unchanged, so each unit's sets are remembered.
_UNIT_SETS = Memo(limit=2_000)  # about 70 states of 27 units


def _unit_sets(grid: Candidates, u: int, unit, masks) -> list[Als]:
    """The ALS of one unit, in `als_kernel.unit_sets`' order."""
    g = grid.geometry

    def build() -> list[Als]:
        limit = g.size if g.size <= 9 else MAX_CELLS_LARGE
        open_cells = [c for c in unit if masks[c]]
        top = min(limit, len(open_cells) - 1)
        candidates = np.array([masks[c] for c in open_cells], dtype=np.int64)
        found = kernel.unit_sets(candidates, top)
        holders, seen = kernel.set_words(
            np.array(open_cells, dtype=np.int64), candidates, found, _peer_words(g), g.size
        )
        return _unit_built(open_cells, u, found, holders, seen)

    return _UNIT_SETS.get(g, (u, tuple(masks[c] for c in unit)), build)


@per_geometry
def _peer_words(geometry) -> np.ndarray:
    """Each cell's peers as a row of 64-bit words."""
    return _words(_peer_masks(geometry), geometry.n_cells)


@dataclass
class AlsGraph:
    sets: list[Als]
    holding: list[int]  # digit - 1 -> the cells still holding it (bits)
    holder_words: np.ndarray  # [set, row, word]: each set's `Als.holder_words`
    seen_words: np.ndarray
    useful: np.ndarray | None = None  # `_useful_ends`, once a finder needs it
    # the restricted commons, set by set (see `_restricted_commons`): [link, (set, other
    # set, digit)], and where each set's links start (one more entry than sets)
    link_table: np.ndarray | None = None
    first_link: np.ndarray | None = None

    def having(self, d: int) -> np.ndarray:
        """The sets holding digit d, in order."""
        return np.flatnonzero(self.holder_words[:, d].any(axis=1))

    def links_of(self, i: int) -> list[tuple[int, int]]:
        """Set i's links [(other set, restricted common digit)], in order."""
        rows = self.link_table[self.first_link[i] : self.first_link[i + 1], 1:]
        return [(j, x) for j, x in rows.tolist()]


_GRAPHS = Memo(limit=4)


def als_graph(grid: Candidates) -> AlsGraph:
    """The ALS of `grid` and their restricted commons, kept for the state's other finders."""
    return _GRAPHS.get(grid.geometry, grid.marks.tobytes(), lambda: _new_graph(grid))


def _new_graph(grid: Candidates) -> AlsGraph:
    sets = almost_locked_sets(grid)
    width = -(-grid.geometry.n_cells // 64)
    empty = np.zeros((0, grid.geometry.size + 1, width), dtype=np.uint64)
    holder_words = np.stack([s.holder_words for s in sets]) if sets else empty
    seen_words = np.stack([s.seen_words for s in sets]) if sets else empty
    g = AlsGraph(sets, _digit_cells(grid), holder_words, seen_words)
    g.link_table = _restricted_commons(g)
    sizes = np.bincount(g.link_table[:, 0], minlength=len(sets))
    g.first_link = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    return g


def _restricted_commons(g: AlsGraph) -> np.ndarray:
    """(i, j, x) rows for every pair of sets joined by a restricted common x, grouped by
    i ascending; each set's in the order of the digits as they first occur among the
    sets, then j ascending (every pair tested compiled, `als_kernel.restricted_commons`)."""
    if not g.sets:
        return np.zeros((0, 3), dtype=np.int64)
    having = g.holder_words[:, 1:].any(axis=2)  # [set, digit - 1]
    digits = np.array(_digits_by_first_set(having), dtype=np.int64)
    found = kernel.restricted_commons(g.holder_words, g.seen_words, digits)
    return found[np.argsort(found[:, 0], kind="stable")]


def _digits_by_first_set(having: np.ndarray) -> list[int]:
    """The digits held by some set, in the order they first occur going through the sets
    (a set's own digits ascending): the order of the restricted commons' links."""
    held = np.flatnonzero(having.any(axis=0))
    if not len(held):
        return []
    first = having[:, held].argmax(axis=0)
    return [int(d) + 1 for d in held[np.lexsort((held, first))]]


def _digit_cells(grid: Candidates) -> list[int]:
    """For each digit (index d - 1), the cells still holding it, as bits."""
    weights = [1 << c for c in range(grid.geometry.n_cells)]
    return [
        sum(weights[c] for c in grid.marks[:, d].nonzero()[0].tolist())
        for d in range(grid.geometry.size)
    ]


def _targets(g: AlsGraph, digit: int, *sets: Als) -> tuple[tuple[int, int], ...]:
    """Cells outside `sets` holding `digit` and seeing every place of it in them."""
    hits = g.holding[digit - 1]
    for s in sets:
        hits &= s.seen[digit] & ~s.mask
    return tuple((c, digit) for c in _bits_of(hits)) if hits else ()


def _describe(grid: Candidates, s: Als) -> str:
    digits = "".join(grid.symbol(d) for d in bits(s.digits))
    return f"{cell_list(grid, s.cells)} ({digits})"


def _compiled_links(g) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ALS graph as the compiled searches read it: each set's first link, every link's
    other set and digit, and each set's digits as a bit mask."""
    return (
        g.first_link,
        np.ascontiguousarray(g.link_table[:, 1]),
        np.ascontiguousarray(g.link_table[:, 2]),
        np.array([s.digits for s in g.sets], dtype=np.int64),
    )


def als_xz(grid: Candidates) -> Iterator[Step]:
    g = als_graph(grid)
    useful = _useful_ends(grid, g)
    alone = np.array(_lone_ends(grid, g), dtype=np.int64)
    # the linked pairs that could eliminate something, picked out compiled: most of a
    # state's pairs cannot (a singly linked pair with no cell seeing all of a shared digit,
    # a doubly linked one with no cell seeing all of a digit of one or both)
    pairs = kernel.xz_candidates(*_compiled_links(g), useful, alone)
    for i, j in pairs.tolist():
        a, b = g.sets[i], g.sets[j]
        xs = [d for k, d in g.links_of(i) if k == j]
        gone: set[tuple[int, int]] = set()
        for z in bits(a.digits & b.digits):
            if z not in xs or len(xs) > 1:
                gone.update(_targets(g, z, a, b))
        if len(xs) > 1:  # doubly linked: both sets locked
            both = a.mask | b.mask
            for s in (a, b):
                for z in bits(s.digits):
                    if z not in xs:
                        gone.update(e for e in _targets(g, z, s) if not both >> e[0] & 1)
        if not gone:
            continue
        gone_t = tuple(sorted(gone))
        x = digit_list(grid, xs)
        if len(xs) > 1:
            why = (
                f"they are joined by both {x} (each can be in only one of them), so both "
                "are locked: each digit leaves the cells that see all its places in a set"
            )
        else:
            why = (
                f"they cannot both hold {x}, so one of them is locked without it and holds "
                "its other digits: a digit of both leaves the cells seeing all its places "
                "in both"
            )
        yield Step(
            "ALS-XZ",
            f"ALS-XZ: {_describe(grid, a)} and {_describe(grid, b)} are almost locked "
            f"sets; {why}: {elimination_text(grid, gone_t)}",
            eliminations=gone_t,
            cells=a.cells + b.cells,
            digits=tuple(bits(a.digits | b.digits)),
        )


def als_xy_wings(grid: Candidates) -> Iterator[Step]:
    g = als_graph(grid)
    useful = _useful_ends(grid, g)
    said: set[frozenset] = set()
    # (pivot, its link to a, its link to b): digits of both ends, not their links', that
    # a cell could lose
    candidates = kernel.xy_wing_candidates(*_compiled_links(g), useful)
    for c, p, q in candidates.tolist():
        pivot = g.sets[c]
        links = g.links_of(c)
        (i, x), (j, y) = links[p], links[q]
        a, b = g.sets[i], g.sets[j]
        shared = a.digits & b.digits & ~(1 << (x - 1)) & ~(1 << (y - 1))
        outside = ~(a.mask | b.mask | pivot.mask)
        gone = tuple(
            (cell, z)
            for z in bits(shared)
            for cell in _bits_of(g.holding[z - 1] & a.seen[z] & b.seen[z] & outside)
        )
        if not gone or frozenset(gone) in said:
            continue
        said.add(frozenset(gone))
        yield Step(
            "ALS-XY-wing",
            f"ALS-XY-wing: pivot {_describe(grid, pivot)} is an almost locked set, so it "
            f"holds {grid.symbol(x)} or {grid.symbol(y)}: then {_describe(grid, a)} "
            f"(joined to it by {grid.symbol(x)}) or {_describe(grid, b)} (joined by "
            f"{grid.symbol(y)}) lacks that digit and is locked; a digit of both leaves "
            f"the cells seeing all its places in both: {elimination_text(grid, gone)}",
            eliminations=gone,
            cells=pivot.cells + a.cells + b.cells,
            digits=tuple(bits(a.digits | b.digits | pivot.digits)),
        )


def als_chains(grid: Candidates) -> Iterator[Step]:
    """Chains of four to MAX_CHAIN sets (three are the XY-wing, two the XZ). A *state* is
    (set, the digit its neighbour took away); every (first set, first link) starts one walk
    search, all at once: level by level, the starts reaching each state are bit-packed
    words ORed along every link (the same search as the AIC graph's). Walks may pass a set
    twice; that is still sound (every step is implied by "the first set lacks z"), and the
    shortest walk is the one said. Each set of eliminations is said once, shortest first."""
    g = als_graph(grid)
    n = len(g.sets)
    if n < 4:
        return
    useful = _useful_ends(grid, g)
    size = grid.geometry.size
    # the states: each set's digits, set by set, digits rising
    digits = np.array([s.digits for s in g.sets], dtype=np.int64)
    state_set, state_digit = np.nonzero(digits[:, None] >> np.arange(size) & 1)
    state_digit += 1
    state_of = np.full((n, size + 1), -1, dtype=np.intp)
    state_of[state_set, state_digit] = np.arange(len(state_set))
    # the starts (first set, first link's digit), by set then digit: a chain can only
    # start from a set with some useful end
    table = g.link_table
    opening = table[useful.any(axis=1)[table[:, 0]]]
    start_keys = opening[:, 0] * (size + 1) + opening[:, 2]
    start_key = np.unique(start_keys)
    if not len(start_key):
        return
    first_set, first_digit = np.divmod(start_key, size + 1)
    starts = list(zip(first_set.tolist(), first_digit.tolist(), strict=True))
    src, dst = _walk_edges(g, state_set, state_digit, state_of)
    if not len(src):
        return
    states = list(zip(state_set.tolist(), state_digit.tolist(), strict=True))
    m, w = len(states), -(-len(starts) // 64)
    order = np.argsort(dst, kind="stable")
    src, dst = src[order], dst[order]
    targets, first_edge = np.unique(dst, return_index=True)
    # level 1: the second set of the chain, (j1, x1) for every link first -x1- j1
    second = state_of[opening[:, 1], opening[:, 2]]
    start_bits = np.zeros((m, w * 64), dtype=bool)
    start_bits[second, np.searchsorted(start_key, start_keys)] = True
    frontier = np.packbits(start_bits, axis=1, bitorder="little").view(np.uint64)
    levels = [frontier]
    set_of = state_set
    digit_bit = np.left_shift(1, state_digit - 1).astype(np.int64)
    start_first = first_set
    start_bit = np.left_shift(1, first_digit - 1).astype(np.int64)
    done: set[frozenset] = set()
    pairs: set[tuple[int, int, int]] = set()
    digit_values = 1 << grid.geometry.size
    # level by level, so that `explain`, which takes the first step, stops early
    for links in range(2, MAX_CHAIN):
        frontier = kernel.next_level(frontier, src, first_edge, targets)
        levels.append(frontier)
        if links < 3:
            continue
        hit_start, hit_state, hit_shared = kernel.chain_ends(
            frontier, len(starts), start_first, start_bit, set_of, digit_bit, useful
        )
        hit_end = set_of[hit_state]
        # one walk for each (first set, last set, digits): the first found
        key = (start_first[hit_start] * n + hit_end) * digit_values + hit_shared
        firsts = np.sort(np.unique(key, return_index=True)[1]).tolist()
        for h in firsts:
            r, st, shared = int(hit_start[h]), int(hit_state[h]), int(hit_shared[h])
            first, last = starts[r][0], int(hit_end[h])
            if (first, last, shared) in pairs:
                continue
            pairs.add((first, last, shared))
            a, end = g.sets[first], g.sets[last]
            gone = tuple(e for z in bits(shared) for e in _targets(g, z, a, end))
            if not gone or frozenset(gone) in done:
                continue
            done.add(frozenset(gone))
            walk = _walk_back(levels[:links], src, dst, r, st, states)
            chain = [a] + [g.sets[i] for i, _ in walk]
            yield _chain_step(grid, chain, [d for _, d in walk], bits(shared), gone)


def _walk_edges(g: AlsGraph, state_set, state_digit, state_of) -> tuple[np.ndarray, np.ndarray]:
    """(from, to) state numbers of every walk edge (i, t) -> (j, x), for a link i -x- j
    with x != t: by state, then in the order of i's links."""
    link_digit = g.link_table[:, 2]
    link_to = state_of[g.link_table[:, 1], link_digit]
    per_set = np.diff(g.first_link)
    # every (state, link of its set), state by state
    repeats = per_set[state_set]
    state = np.repeat(np.arange(len(state_set)), repeats)
    offset = np.arange(len(state)) - np.repeat(np.cumsum(repeats) - repeats, repeats)
    link = g.first_link[state_set[state]] + offset
    keep = link_digit[link] != state_digit[state]
    return state[keep], link_to[link[keep]]


def _walk_back(levels, src, dst, r, st, states) -> list[tuple[int, int]]:
    """The states of a walk from start `r` ending in state `st` at the last level."""
    word, bit = divmod(r, 64)
    walk = [st]
    for frontier in reversed(levels[:-1]):
        here = walk[-1]
        for s in src[dst == here].tolist():
            if int(frontier[s, word]) >> bit & 1:
                walk.append(s)
                break
    return [states[s] for s in reversed(walk)]


def _useful_ends(grid: Candidates, g: AlsGraph) -> np.ndarray:
    """useful[i, j]: the digits z (as bits) for which some cell holding z sees every z of
    sets i and j (outside both): what a chain from i to j could eliminate, and exactly
    the digits z with `_targets(g, z, i, j)` (every pair tested compiled,
    `als_kernel.useful_ends`). Kept in the graph for the state's other finders."""
    if g.useful is None:
        holding = _words(g.holding, grid.geometry.n_cells)  # [digit - 1, word]
        g.useful = kernel.useful_ends(g.holder_words, g.seen_words, holding)
    return g.useful


def _lone_ends(grid: Candidates, g: AlsGraph) -> list[int]:
    """For each set, the digits z (as bits) with a cell outside it holding z and seeing
    every z of it: what a doubly linked ALS-XZ could take from that set alone, so that
    the pairs that can take nothing are passed over without their targets listed."""
    size = grid.geometry.size
    holding = _words(g.holding, grid.geometry.n_cells)  # [digit - 1, word]
    hit = (g.seen_words[:, 1:] & holding[None]).any(axis=2)  # [set, digit - 1]
    return (hit.astype(np.int64) << np.arange(size, dtype=np.int64)).sum(axis=1).tolist()


def _chain_step(grid, chain, joins, zs, gone) -> Step:
    parts = [_describe(grid, chain[0])]
    for s, x in zip(chain[1:], joins, strict=True):
        parts.append(f"-{grid.symbol(x)}- {_describe(grid, s)}")
    sym = grid.symbol(zs[0]) if len(zs) == 1 else "one of " + digit_list(grid, zs)
    return Step(
        "ALS chain",
        f"ALS chain: {' '.join(parts)} (neighbours cannot both hold the digit between them): "
        f"if the first set lacks {sym}, each set in turn is locked and the last holds it; so "
        f"a cell seeing every place of it in the first and the last cannot hold it: "
        f"{elimination_text(grid, gone)}",
        eliminations=gone,
        cells=tuple(c for s in chain for c in s.cells),
        digits=tuple(dict.fromkeys((*zs, *joins))),
    )


def death_blossoms(grid: Candidates) -> Iterator[Step]:
    g = als_graph(grid)
    masks = digit_masks(grid)
    sets = g.sets
    stems = [c for c in grid.empty_cells().tolist() if 2 <= masks[c].bit_count() <= 4]
    if not stems or not sets:
        return
    # petals for each stem digit: sets (not holding the stem) whose places for it all see
    # the stem; and the digits z that some cell seen by a petal of every stem digit holds
    petal, union = _petal_table(grid, g, stems)
    stem_digits = np.array([masks[c] for c in stems], dtype=np.int64)
    holding = _words(g.holding, grid.geometry.n_cells)  # [digit - 1, word]
    reach = kernel.bloom_reach(
        petal, np.array(stems, dtype=np.int64), stem_digits, g.holder_words, g.seen_words, holding
    )
    for k, stem in enumerate(stems):
        digits = bits(masks[stem])
        if not all(union[d, k] for d in digits):
            continue
        petals = {d: np.flatnonzero(petal[d, k]).tolist() for d in digits}
        shared = -1
        for d in digits:
            shared &= int(union[d, k])
        blooms: dict[tuple[Als, ...], set[tuple[int, int]]] = {}
        for z in bits(shared & ~masks[stem]):
            if not reach[k, z]:  # no choice of petals could take z from anywhere
                continue
            options = [
                [sets[i] for i in petals[d] if sets[i].digits >> (z - 1) & 1] for d in digits
            ]
            if all(options):
                start = g.holding[z - 1] & ~(1 << stem)
                for choice, hits in _petals(options, z, start, []):
                    blooms.setdefault(choice, set()).update((c, z) for c in _bits_of(hits))
        for chosen, found in blooms.items():
            gone = tuple(sorted(found))
            petal_text = "; ".join(
                f"{grid.symbol(d)}: {_describe(grid, s)}"
                for d, s in zip(digits, chosen, strict=True)
            )
            zs = sorted({d for _, d in gone})
            yield Step(
                "death blossom",
                f"death blossom: stem {grid.name(stem)} is one of "
                f"{''.join(grid.symbol(d) for d in digits)}, and each of them rules out "
                f"a petal (an almost locked set whose places for it all see the stem), "
                f"which is then locked: {petal_text}; every petal holds "
                f"{digit_list(grid, zs)}, so a cell seeing all their places for one of them "
                f"cannot hold it: {elimination_text(grid, gone)}",
                eliminations=gone,
                cells=(stem, *(c for s in chosen for c in s.cells)),
                digits=tuple(dict.fromkeys((*digits, *zs))),
            )


def _petal_table(grid: Candidates, g: AlsGraph, stems: list[int]):
    """petal[d, k, i]: whether set i is a petal for digit d of stem `stems[k]` (it does
    not hold the stem, and its places for d all see it), and union[d, k] the digits of
    those petals together (0: no petal); every digit, stem and set at once, compiled
    (`als_kernel.petal_table`)."""
    digits = np.array([s.digits for s in g.sets], dtype=np.int64)
    stem_cells = np.array(stems, dtype=np.int64)
    return kernel.petal_table(g.holder_words, stem_cells, _peer_words(grid.geometry), digits)


def _petals(options, z, hits, chosen):
    """(petals, cells) for each choice of one petal per stem digit: `hits` are the cells
    holding z that see every z of the petals chosen so far (outside them)."""
    if not hits:
        return
    if len(chosen) == len(options):
        yield tuple(chosen), hits
        return
    for s in options[len(chosen)]:
        chosen.append(s)
        yield from _petals(options, z, hits & s.seen[z] & ~s.mask, chosen)
        chosen.pop()
