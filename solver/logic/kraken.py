"""Kraken fish: a finned fish whose fins are followed by alternating chains.

A finned fish on digit d (k base units whose places for d, apart from a few *fins*, all
lie in k cover units) proves that a fin holds d, or else that every cover unit gets its d
from the base units' places in it. So for each cover unit, one of "its base places" or
"the fins" holds d: an *either-or* set of candidates. When every candidate of such a set,
supposed true, makes some candidate Y false (it sees Y, or an alternating chain of the
grouped chains' graph leads from it to "Y is false"), Y is false whichever of them holds.

HoDoKu's kraken types 1 (Y is the fish digit in the cover unit: the base places see it)
and 2 (any Y) are both this argument. As in HoDoKu's kraken search: basic and Franken
fish (boxes among base or cover units), at most two fins, no endo fins (a place in two
base units), but only X-wings and swordfish (HoDoKu goes up to jellyfish: on the first 300
top1465 puzzles jellyfish finished no puzzle more and made the search three times
dearer, and three fins none more either); the fins need not share a box. The chains are those `aic.py` searches for grouped AICs (group
nodes and almost locked sets), whose graph the state has usually built already. It comes
after every other pattern, just before forcing chains: HoDoKu files it with them as a last
resort (and its default solver leaves it off); a kraken fish is still one fish and one
chain per fin, which a player can follow, where a forcing chain follows singles anywhere.

Needs rows, columns and boxes (read from the unit names); boards up to 9x9 only (on
16x16 the base sets run into millions, as for the Franken fish).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from solver.logic import aic
from solver.logic import fish_kernel as kernel
from solver.logic.als import _bits_of
from solver.logic.candidates import Candidates
from solver.logic.complex_fish import _kernel_tables
from solver.logic.fish import FISH_NAMES
from solver.logic.reach_kernel import reached_columns
from solver.logic.step import Step, cell_list, elimination_text

MAX_SIZE = 9  # board size: above it the base sets run into millions
MAX_FINS = 2  # HoDoKu's kraken search allows two fins (and no endo fin)
SIZES = (2, 3)  # X-wing and swordfish: jellyfish finished no more puzzles (see above)
# (base kinds, cover kinds): basic fish first (rows against columns and back), then Franken
POOLS = (
    ({"row"}, {"column"}),
    ({"column"}, {"row"}),
    ({"row", "box"}, {"column", "box"}),
    ({"column", "box"}, {"row", "box"}),
)


def kraken_fish(grid: Candidates) -> Iterator[Step]:
    """Every kraken fish step: smaller fish first, basic before Franken, each distinct set
    of eliminations once."""
    g = grid.geometry
    kinds = set(grid.layout.kind)
    if g.size > MAX_SIZE or g.n_cells > MAX_SIZE**2 or not {"row", "column", "box"} <= kinds:
        return
    r = aic._reach_of(grid, **aic.GROUPED)
    falsify = _falsifies(grid, r)
    said: set[frozenset] = set()
    for k in SIZES:
        for pool in range(len(POOLS)):
            for d in range(1, g.size + 1):
                for fish, body, hit in _hits(grid, falsify, d, k, pool):
                    gone = falsify.candidates(hit)
                    if frozenset(gone) not in said:
                        said.add(frozenset(gone))
                        either = (*_bits_of(body), *fish[2])
                        yield _step(grid, r, d, k, fish, either, gone)


def _hits(grid: Candidates, falsify: _Falsifies, d: int, k: int, pool: int) -> Iterator[tuple]:
    """((base, covers, fins), body, what it makes false as bits of `falsify.keys`) for each
    fish on d and cover unit whose base places (the body) or fins, whichever holds the
    digit, make some candidate false: the fish in the search's order, then its covers."""
    found = _fish_of(grid, d, k, pool)
    if isinstance(found, _Fish):  # tested compiled, on the digit's cells renumbered
        rules = falsify.rows(d, found.cells)
        which, hits = kernel.kraken_hits(found.fins, found.bodies, rules)
        for (f, c), words in zip(which.tolist(), hits, strict=True):
            yield found.fish(f), found.body(f, c), int.from_bytes(words.tobytes(), "little")
        return
    rules_out = falsify.by_cell(d)
    for base, covers, fins, bodies in found:
        by_fins = -1
        for c in fins:
            by_fins &= rules_out.get(c, 0)
        if not by_fins:
            continue
        for body in bodies:
            hit = _ruled_out(rules_out, body, by_fins)
            if hit:
                yield (base, covers, fins), body, hit


@dataclass(frozen=True, eq=False)
class _Fish:
    """Every fish of one digit, size and pool from the compiled search, as arrays: a
    long list of tuples cost more to make than the search, and most of it is passed over."""

    cells: list[int]  # the digit's cells: cell i of the local numbering is cells[i]
    k: int
    units: np.ndarray  # [fish, 2k]: base units, then cover units
    fins: np.ndarray  # [fish]: the fins, as bits of the local numbering
    bodies: np.ndarray  # [fish, k]: each cover unit's base places (fins not), local bits

    def _cells(self, local: int) -> list[int]:
        return [self.cells[i] for i in _bits_of(local)]

    def fish(self, f: int) -> tuple:
        units = self.units[f].tolist()
        fins = tuple(self._cells(int(self.fins[f])))
        return tuple(units[: self.k]), tuple(units[self.k :]), fins

    def body(self, f: int, c: int) -> int:
        """A cover unit's base places, as a cell mask."""
        return sum(1 << cell for cell in self._cells(int(self.bodies[f, c])))

    def listed(self) -> list[tuple]:
        """`fish_bodies`' tuples."""
        return [
            (*self.fish(f), tuple(self.body(f, c) for c in range(self.k)))
            for f in range(len(self.units))
        ]


# A digit's fish depend only on where the digit can still go, which changes little between
# two states of one explanation: each search is remembered (as complex_fish does), keyed by
# the geometry's identity and kept beside it.
_FOUND: OrderedDict = OrderedDict()
MAX_FOUND = 500  # about seven states (72 searches each)


def _fish_of(grid: Candidates, d: int, k: int, pool: int) -> _Fish | list[tuple]:
    """The fish on digit d with k base units of POOLS[pool]: a `_Fish` from the compiled
    search, or `fish_bodies`' tuples for a digit with too many cells for it."""
    holding = 0
    for c in np.flatnonzero(grid.marks[:, d - 1]):
        holding |= 1 << int(c)
    key = (id(grid.geometry), holding, k, pool)
    hit = _FOUND.get(key)
    if hit is not None and hit[0] is grid.geometry:
        return hit[1]
    if holding.bit_count() <= kernel.MAX_CELLS:
        found = _compiled_fish(grid, holding, k, POOLS[pool])
    else:
        found = list(_search(grid, holding, k, POOLS[pool]))
    _FOUND[key] = (grid.geometry, found)
    while len(_FOUND) > MAX_FOUND:  # the oldest first
        try:
            _FOUND.popitem(last=False)
        except KeyError:  # another thread emptied it meanwhile
            break
    return found


def fish_bodies(grid: Candidates, d: int, k: int, pool: int) -> list[tuple]:
    """(base units, cover units, fin cells, each cover unit's base places as a cell mask)
    of every fish on digit d with k base units of POOLS[pool]'s base kinds, covers of its
    cover kinds and one or two fins; Franken pools only yield fish with a box among their
    units (the rest are basic)."""
    found = _fish_of(grid, d, k, pool)
    return found.listed() if isinstance(found, _Fish) else found


def _pool_bases(grid: Candidates, holding: int, k: int, pool):
    """Each unit of the pool's kinds with its places (a dict), and the base units to try."""
    kind = grid.layout.kind
    unit_mask = grid.layout.unit_mask
    base_kinds, cover_kinds = pool
    places = {
        u: unit_mask[u] & holding for u, t in enumerate(kind) if t in base_kinds | cover_kinds
    }
    bases = [
        u for u in places if kind[u] in base_kinds and 2 <= places[u].bit_count() <= k + MAX_FINS
    ]
    return places, bases


def _compiled_fish(grid: Candidates, holding: int, k: int, pool) -> _Fish:
    """The compiled search's fish (`_compiled`), kept as arrays over the digit's cells."""
    _, bases = _pool_bases(grid, holding, k, pool)
    cells = _bits_of(holding)
    records, places = _records(grid, cells, bases, k, pool)
    units = np.ascontiguousarray(records[:, : 2 * k])
    fins = np.ascontiguousarray(records[:, 2 * k])
    base_mask = np.bitwise_or.reduce(places[units[:, :k]], axis=1)
    bodies = places[units[:, k:]] & (base_mask & ~fins)[:, None]
    return _Fish(cells, k, units, fins, bodies)


def _search(grid: Candidates, holding: int, k: int, pool) -> Iterator[tuple]:
    """`fish_bodies`' tuples from the Python search, for a digit with more cells than the
    compiled search takes (`_fish_of` sends the others to `_compiled_fish`)."""
    places, bases = _pool_bases(grid, holding, k, pool)
    for base, covers, fins in _python(grid, places, bases, k, pool):
        base_mask = 0
        for u in base:
            base_mask |= places[u]
        body = base_mask & ~fins
        yield base, covers, tuple(_bits_of(fins)), tuple(places[u] & body for u in covers)


def _compiled(grid: Candidates, holding: int, bases, k: int, pool) -> Iterator[tuple]:
    """The fish of `_python`, from the compiled Franken fish search (`fish_kernel`) run
    for kraken fish: every fish with a fin, seen from outside or not; in `_python`'s form,
    for the test that the two searches agree (`_compiled_fish` keeps them as arrays)."""
    cells = _bits_of(holding)
    records, _ = _records(grid, cells, bases, k, pool)
    for row in records.tolist():
        fins = sum(1 << cells[i] for i in _bits_of(row[2 * k]))
        yield tuple(row[:k]), tuple(row[k : 2 * k]), fins


def _records(grid: Candidates, cells: list[int], bases, k: int, pool):
    """The compiled search's records (k base units, k covers, fins as bits of the local
    numbering of `cells`, the digit's cells) and every unit's places in that numbering."""
    tables = _kernel_tables(grid.geometry)
    places, peers = kernel.renumbered(
        np.array(cells, np.int64), tables.unit_cells, tables.peer_cells
    )
    base_kinds, cover_kinds = pool
    family = "Franken" if "box" in base_kinds else "basic"
    records = kernel.digit_fish(
        np.array(bases, np.int64),
        sum(1 << kernel.KIND_CODE[t] for t in cover_kinds),
        k,
        places,
        tables.kinds,
        tables.cell_units[cells],
        peers,
        (1 << len(cells)) - 1,
        kernel.FAMILY_CODE[family],
        MAX_FINS,
        0,
        True,
    )
    return records, places


def _python(grid: Candidates, places, bases, k: int, pool) -> Iterator[tuple]:
    """(base units, cover units, fins as a cell mask) of every fish with a fin: the
    search for digits with too many cells for `fish_kernel`."""
    kind = grid.layout.kind
    units_of = grid.geometry.units_of
    boxes = {u for u in places if kind[u] == "box"}
    franken = "box" in pool[0]
    for base, base_mask in _base_sets(bases, places, k):
        options = {
            c: [u for u in units_of[c] if kind[u] in pool[1] and u not in base]
            for c in _bits_of(base_mask)
        }
        # a Franken fish without a box among its base units needs one among its covers
        need_box = boxes if franken and not boxes.intersection(base) else None
        for covers, fins in _covers(base_mask, k, places, options, need_box):
            yield tuple(base), tuple(covers), fins


def _base_sets(bases, places, k, start=0, chosen=(), union=0) -> Iterator[tuple]:
    """k base units whose places do not overlap (no endo fins), and their places."""
    if len(chosen) == k:
        yield list(chosen), union
        return
    for i in range(start, len(bases)):
        u = bases[i]
        if not places[u] & union:
            yield from _base_sets(bases, places, k, i + 1, chosen + (u,), union | places[u])


def _covers(base_mask, k, places, options, need_box=None) -> list[tuple[list[int], int]]:
    """Every way to cover the base places with k cover units (one of them from `need_box`
    when given) and one or two fins: the first place not yet covered takes one of its own
    units, or is a fin (the compiled search's order and answers)."""
    out: list[tuple[list[int], int]] = []
    seen: set[tuple[frozenset, int]] = set()

    def grow(covers, covered, fins, boxed):
        left = base_mask & ~covered & ~fins
        if not left:
            key = (frozenset(covers), fins)
            if fins and boxed and len(covers) == k and key not in seen:
                seen.add(key)
                out.append((covers, fins))
            return
        if len(covers) == k and left.bit_count() + fins.bit_count() > MAX_FINS:
            return
        cell = (left & -left).bit_length() - 1
        if len(covers) < k:
            last = len(covers) == k - 1
            for u in options[cell]:
                if u in covers:
                    continue
                now_boxed = boxed or u in need_box
                if last and not now_boxed:
                    continue
                grow(covers + [u], covered | places[u], fins, now_boxed)
        if fins.bit_count() < MAX_FINS:
            grow(covers, covered, fins | 1 << cell, boxed)

    grow([], 0, 0, need_box is None)
    return out


@dataclass
class _Falsifies:
    """What each candidate, supposed true, makes false (read off the grouped chains'
    search): for every graph node, the candidates (single-cell nodes, the `keys`) it leads
    to false, as rows of 64-bit words."""

    words: np.ndarray  # [node, word]: bit j is keys[j]
    node_of: np.ndarray  # [cell, digit - 1]: the node of that candidate, -1 if none
    keys: list[tuple[int, int]]  # the candidates (cell, digit), in node order

    def rows(self, d: int, cells) -> np.ndarray:
        """What digit d in each of `cells` makes false (a row of words a cell)."""
        return self.words[self.node_of[cells, d - 1]]

    def by_cell(self, d: int) -> dict[int, int]:
        """cell -> what digit d there makes false, as an int over the keys."""
        cells = np.flatnonzero(self.node_of[:, d - 1] >= 0)
        rows = self.rows(d, cells)
        return {
            c: int.from_bytes(row.tobytes(), "little")
            for c, row in zip(cells.tolist(), rows, strict=True)
        }

    def candidates(self, hit: int) -> tuple[tuple[int, int], ...]:
        """The candidates of a mask over the keys, ascending."""
        return tuple(sorted(self.keys[j] for j in _bits_of(hit)))


def _falsifies(grid: Candidates, r) -> _Falsifies:
    """For every node supposed true, the candidates it makes false (`_Falsifies`)."""
    nodes = r.graph.nodes
    n = len(nodes)
    index = {(cells[0], d): i for i, (cells, d) in enumerate(nodes) if len(cells) == 1}
    keys = sorted(index, key=index.get)
    # "node true" reaches "key false": read off the search's bit planes
    targets = np.array([n + index[key] for key in keys], dtype=np.int64)
    words = reached_columns(r.planes, 0, n, targets)
    node_of = np.full((grid.geometry.n_cells, grid.geometry.size), -1, dtype=np.intp)
    for (c, d), i in index.items():
        node_of[c, d - 1] = i
    return _Falsifies(words, node_of, keys)


def _ruled_out(rules_out, cells: int, start: int) -> int:
    """What the digit in every one of `cells` (a mask) makes false, among what `start`
    allows (masks over the keys); `rules_out` is that digit's cell -> mask."""
    hit = start
    while cells and hit:
        low = cells & -cells
        hit &= rules_out.get(low.bit_length() - 1, 0)
        cells ^= low
    return hit


def _either(grid, cells) -> str:
    """ "r1c2, r1c5 or r3c3"."""
    names = [grid.name(c) for c in cells]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _step(grid, r, d, k, fish_units, either, gone) -> Step:
    base, covers, fins = fish_units
    sym = grid.symbol(d)
    family = "Franken " if any(grid.layout.kind[u] == "box" for u in (*base, *covers)) else ""
    fin_cells = list(fins)
    fish = f"finned {family}{FISH_NAMES[k]}"
    bases = ", ".join(grid.unit_name(u) for u in base)
    cover_names = ", ".join(grid.unit_name(u) for u in covers)
    fin_word = "fin" if len(fin_cells) == 1 else "fins"
    body = [c for c in either if c not in fin_cells]
    if body:
        unit = next(u for u in covers if all(grid.layout.unit_mask[u] >> c & 1 for c in body))
        either_text = (
            f"so {grid.unit_name(unit)} gets its {sym} from {_either(grid, body)}, or a fin "
            "holds it"
        )
    else:
        either_text = f"too few cover units for the base units, so a fin holds {sym}"
    cell, digit = gone[0]
    n = len(r.graph.nodes)
    index = {(cells[0], dd): i for i, (cells, dd) in enumerate(r.graph.nodes) if len(cells) == 1}
    target = index[(cell, digit)]
    chains = "; ".join(
        aic.chain_text(grid, r, aic.walk(r, index[(c, d)], n + target)) for c in either
    )
    more = " (and so for the others)" if len(gone) > 1 else ""
    name = "kraken fish"
    return Step(
        name,
        f"{name}: {fish} on {sym}: the {sym}s of {bases} lie in {cover_names} except for the "
        f"{fin_word} {cell_list(grid, fin_cells)}; {either_text}; each of these makes "
        f"{grid.name(cell)}({grid.symbol(digit)}) false{more}: {chains} (= one of the two "
        f"is true, - not both): {elimination_text(grid, gone)}",
        eliminations=gone,
        cells=tuple(either),
        units=tuple(base) + tuple(covers),
        digits=tuple(sorted({d} | {dd for _, dd in gone})),
    )
