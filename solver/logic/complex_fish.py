"""Franken and mutant fish: fish whose base or cover units include boxes (or mix rows and
columns), finned or not.

For one digit, take k *base* units whose places for the digit do not overlap, and k
*cover* units (none of them a base unit) holding every one of those places except some
*fins*. Each base unit holds the digit once, in distinct cells, and each such cell lies in
a cover unit: without a fin true, the k covers get their digit from the base cells, so a
cover cell outside the base units cannot hold it. With fins, one of them may be true
instead, so only cover cells that also see every fin lose the digit.

- *Franken*: base units are rows and boxes and covers columns and boxes (or columns and
  boxes against rows and boxes), with at least one box;
- *mutant*: any other mix of rows, columns and boxes.

(Plain rows-against-columns fish are `fish.py`'s.) Mutant fish up to jellyfish are a
technique of their own, tried after the Franken fish: every finned mutant jellyfish (code
0362, four base units) of HoDoKu's library is found, at about 8 ms of CPU a state for a
mutant swordfish and 35 ms for a jellyfish, searched afresh (the Franken
X-wing to jellyfish together about 17 ms; states of four `top1465` explanations). The
search picks base units with disjoint places, then covers the base places one cell at a
time: the first uncovered cell is covered by one of its own units, or called a fin; so it
only ever tries units that matter. It runs compiled (`fish_kernel`, the same search over
the digit's own cells numbered 0..n-1, about ten times faster than in Python); the Python
search stays for a digit with more than 62 places. Needs rows, columns and boxes (read from
the unit names); diagonals take no part. Boards above 9x9 are not searched (`MAX_SIZE`):
their base sets run into millions; nor is the clover (five 9x9 grids, 369 cells), whose
first hard state took eight minutes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from solver.geometry import per_geometry
from solver.logic import fish_kernel as kernel
from solver.logic.als import _bits_of
from solver.logic.candidates import Candidates, layout
from solver.logic.fish import FISH_NAMES
from solver.logic.step import Step, cell_list, elimination_text

# boards up to 9x9: on 16x16 the base sets run into millions (about 20 s a state)
MAX_SIZE = 9
MAX_ENDO = 1  # places shared by two base units (endo fins)
MAX_FINS = 2  # more fins found no further case of HoDoKu's library, and cost time
FISH_NAMES = {**FISH_NAMES, 5: "squirmbag", 6: "whale"}
FRANKEN = ({"row", "box"}, {"column", "box"})


def _family(base_kinds: set[str], cover_kinds: set[str]) -> str:
    if (base_kinds <= {"row"} and cover_kinds <= {"column"}) or (
        base_kinds <= {"column"} and cover_kinds <= {"row"}
    ):
        return "basic"
    for a, b in (FRANKEN, FRANKEN[::-1]):
        if base_kinds <= a and cover_kinds <= b:
            return "Franken"
    return "mutant"


def complex_fish(grid: Candidates, k: int, family: str) -> Iterator[Step]:
    """Franken (`family="Franken"`) or mutant fish of size k, finned or not."""
    g = grid.geometry
    kind = grid.layout.kind
    # one board of at most 9x9: the clover's five grids (369 cells) took 8 minutes a state
    if not any(t == "box" for t in kind) or g.size > MAX_SIZE or g.n_cells > MAX_SIZE**2:
        return
    for d in range(1, g.size + 1):
        holding = sum(1 << int(c) for c in np.flatnonzero(grid.marks[:, d - 1]))
        for base, covers, fins, gone in _digit_fish(grid, d, holding, k, family):
            yield _step(grid, d, k, family, base, covers, _bits_of(fins), gone)


# A digit's fish depend only on where that digit can still go: between two states of one
# explanation most digits' places are unchanged, so their searches (the dearest step of
# `explain`) are remembered. Keyed by the geometry's identity, kept beside the answer so a
# new geometry at a reused id is never mistaken for the old one.
_FOUND: OrderedDict = OrderedDict()
MAX_FOUND = 20_000


def _digit_fish(grid: Candidates, d: int, holding: int, k: int, family: str) -> list[tuple]:
    """(base, covers, fins, gone) of every fish on digit d, in the search's order."""
    key = (id(grid.geometry), d, holding, k, family)
    hit = _FOUND.get(key)
    if hit is not None and hit[0] is grid.geometry:
        return hit[1]
    found = list(_search_digit(grid, d, holding, k, family))
    _FOUND[key] = (grid.geometry, found)
    while len(_FOUND) > MAX_FOUND:  # the oldest first; each step is one atomic dict call
        try:
            _FOUND.popitem(last=False)
        except KeyError:  # another thread emptied it meanwhile
            break
    return found


def _search_digit(grid: Candidates, d: int, holding: int, k: int, family: str) -> Iterator[tuple]:
    kind = grid.layout.kind
    units = [u for u, t in enumerate(kind) if t in ("row", "column", "box")]
    unit_bits = grid.layout.unit_mask
    places = {u: unit_bits[u] & holding for u in units}
    # a base unit with one place is a placed digit in waiting (a hidden single)
    bases = [u for u in units if 2 <= places[u].bit_count() <= k + MAX_FINS]
    # (base units to choose from, the kinds of cover units allowed against them)
    pools = [(bases, {"row", "column", "box"})]
    if family == "Franken":
        pools = [([u for u in bases if kind[u] in a], b) for a, b in (FRANKEN, FRANKEN[::-1])]
    if holding.bit_count() <= kernel.MAX_CELLS:
        found = _compiled_fish(grid, holding, pools, k, family)
    else:
        found = _python_fish(grid, holding, places, pools, k, family)
    said: set[frozenset] = set()
    for base, covers, fins, hits in found:
        gone = tuple((c, d) for c in _bits_of(hits))
        if frozenset(gone) in said:
            continue
        said.add(frozenset(gone))
        yield base, covers, fins, gone


def _compiled_fish(grid: Candidates, holding: int, pools, k: int, family: str) -> Iterator[tuple]:
    """`_python_fish`'s answers from `fish_kernel`, over the digit's cells renumbered."""
    cells = _bits_of(holding)
    tables = _kernel_tables(grid.geometry)
    places, peers = kernel.renumbered(
        np.array(cells, np.int64), tables.unit_cells, tables.peer_cells
    )
    cell_units = tables.cell_units[cells]
    everything = (1 << len(cells)) - 1  # the digit's places, renumbered
    for pool, allowed in pools:
        records = kernel.digit_fish(
            np.array(pool, np.int64),
            sum(1 << kernel.KIND_CODE[t] for t in allowed),
            k,
            places,
            tables.kinds,
            cell_units,
            peers,
            everything,
            kernel.FAMILY_CODE[family],
            MAX_FINS + MAX_ENDO,
            MAX_ENDO,
        )
        for row in records.tolist():
            fins = sum(1 << cells[i] for i in _bits_of(row[2 * k]))
            hits = sum(1 << cells[i] for i in _bits_of(row[2 * k + 1]))
            yield tuple(row[:k]), tuple(row[k : 2 * k]), fins, hits


@dataclass(frozen=True)
class _Tables:
    kinds: np.ndarray  # kernel kind code of every unit (3: none of row, column, box)
    cell_units: np.ndarray  # (n_cells, most units of a cell), padded with -1
    unit_cells: np.ndarray  # (n_units, size)
    peer_cells: np.ndarray  # (n_cells, most peers of a cell), padded with -1


@per_geometry
def _kernel_tables(geometry) -> _Tables:
    kinds = np.array([kernel.KIND_CODE.get(t, 3) for t in layout(geometry).kind], np.int64)
    widest = max(len(us) for us in geometry.units_of)
    cell_units = np.full((geometry.n_cells, widest), -1, np.int64)
    for c, us in enumerate(geometry.units_of):
        cell_units[c, : len(us)] = us
    most = max(len(ps) for ps in geometry.peers)
    peer_cells = np.full((geometry.n_cells, most), -1, np.int64)
    for c, ps in enumerate(geometry.peers):
        peer_cells[c, : len(ps)] = sorted(ps)
    return _Tables(kinds, cell_units, np.array(geometry.units, np.int64), peer_cells)


def _python_fish(grid: Candidates, holding: int, places, pools, k: int, family: str):
    """(base, covers, fins, eliminations as a mask) of every fish, before duplicates are
    dropped: the search for digits with too many cells for `fish_kernel`."""
    kind = grid.layout.kind
    units_of = grid.geometry.units_of
    peers = _peers(grid)
    found = (
        (b, endo, allowed)
        for pool, allowed in pools
        for b, endo in _base_sets(pool, places, k, 0, [], 0)
    )
    for base, endo, allowed in found:
        base_mask = 0
        for u in base:
            base_mask |= places[u]
        base_kinds = {kind[u] for u in base}
        for covers, fins in _cover_sets(
            base, base_mask, endo, k, places, units_of, kind, allowed, holding, peers
        ):
            cover_kinds = {kind[u] for u in covers}
            if _family(base_kinds, cover_kinds) != family:
                continue
            cover_mask = 0
            for u in covers:
                cover_mask |= places[u]
            hits = cover_mask & ~base_mask
            for f in _bits_of(fins):
                hits &= peers[f]
            if hits:
                yield tuple(base), covers, fins, hits


def _peers(grid: Candidates) -> list[int]:
    return [sum(1 << p for p in peers) for peers in grid.geometry.peers]


def _base_sets(bases, places, k, start, chosen, union, endo=0) -> Iterator[tuple[list[int], int]]:
    """(k base units from index `start` of `bases`, their *endo fins*): places in two base
    units are allowed, at most MAX_ENDO of them, and count as fins (one digit there would
    serve two base units)."""
    if len(chosen) == k:
        yield list(chosen), endo
        return
    for i in range(start, len(bases)):
        u = bases[i]
        shared = endo | (places[u] & union)
        if shared.bit_count() > MAX_ENDO:
            continue
        chosen.append(u)
        yield from _base_sets(bases, places, k, i + 1, chosen, union | places[u], shared)
        chosen.pop()


def _cover_sets(base, base_mask, endo, k, places, units_of, kind, allowed, holding, peers):
    """(covers, fins) for every way to cover the base places with k units (not base
    units, of the `allowed` kinds) and at most MAX_FINS fins."""
    options = {
        c: [u for u in units_of[c] if kind[u] in allowed and u not in base]
        for c in _bits_of(base_mask)
    }
    seen: set[tuple[frozenset, int]] = set()
    out = []
    # a fin is only useful while some cell holding the digit, outside the base, sees
    # every fin so far
    outside = holding & ~base_mask

    def grow(covers, covered, fins, near):
        left = base_mask & ~covered & ~fins
        if not left:
            if len(covers) == k and (frozenset(covers), fins) not in seen:
                seen.add((frozenset(covers), fins))
                out.append((tuple(covers), fins))
            return
        if len(covers) == k and left.bit_count() + fins.bit_count() > MAX_FINS + MAX_ENDO:
            return
        cell = (left & -left).bit_length() - 1
        if len(covers) < k:
            for u in options[cell]:
                if u not in covers:
                    covers.append(u)
                    grow(covers, covered | places[u], fins, near)
                    covers.pop()
        if fins.bit_count() < MAX_FINS + MAX_ENDO and near & peers[cell]:
            grow(covers, covered, fins | 1 << cell, near & peers[cell])

    near = outside
    for cell in _bits_of(endo):
        near &= peers[cell]
    if near:
        grow([], 0, endo, near)
    return out


def _step(grid, digit, k, family, base, covers, fins, gone) -> Step:
    name = f"{family} {FISH_NAMES[k]}"
    if fins:
        name = "finned " + name
    sym = grid.symbol(digit)
    bases = ", ".join(grid.unit_name(u) for u in base)
    cover_names = ", ".join(grid.unit_name(u) for u in covers)
    fin_text = (
        f" except for the fin{'s' if len(fins) > 1 else ''} {cell_list(grid, fins)}" if fins else ""
    )
    then = (
        "so a cover cell outside the base units that sees every fin cannot be it"
        if fins
        else "so a cover cell outside the base units cannot be it"
    )
    return Step(
        name,
        f"{name} on {sym}: the {sym}s of {bases} (no cell shared) all lie in {cover_names}"
        f"{fin_text}; each base unit puts its {sym} in a different cover unit, {then}: "
        f"{elimination_text(grid, gone)}",
        eliminations=gone,
        cells=tuple(fins),
        units=tuple(base) + tuple(covers),
        digits=(digit,),
    )


def franken_fish(grid: Candidates) -> Iterator[Step]:
    for k in (2, 3, 4):
        yield from complex_fish(grid, k, "Franken")


def mutant_fish(grid: Candidates) -> Iterator[Step]:
    """Mutant X-wing to jellyfish (squirmbags and whales are `large_mutant_fish`: their
    search is dearer than a forcing chain)."""
    for k in (2, 3, 4):
        yield from complex_fish(grid, k, "mutant")


def large_mutant_fish(grid: Candidates) -> Iterator[Step]:
    """Mutant squirmbags and whales (five and six base units): 0.1 to 0.15 s of CPU a
    state each, so searched only when asked for by name."""
    for k in (5, 6):
        yield from complex_fish(grid, k, "mutant")


def warm_up() -> None:
    """Compile (or load from numba's disk cache) the fish kernel, once, at set-up: compiled
    fresh it takes about 6 s, which a player's first hard hint would otherwise wait."""
    from solver.geometry import standard

    values = np.zeros(81, np.int8)
    values[:9] = np.arange(1, 10)  # every digit has fewer places than the kernel's 62
    grid = Candidates.from_values(standard(3), values)
    for family in ("Franken", "mutant"):
        next(iter(complex_fish(grid, 2, family)), None)
