"""One alternating-inference graph for every chain: X-chain, XY-chain, AIC, nice loops,
and their grouped forms.

A *node* is a digit in a cell, or in a *group*: the cells of a box-line intersection that
still hold the digit ("the digit is somewhere in these cells"). Links between nodes:

- strong (``=``): exactly one of the two is true: a unit whose places for the digit are
  the two nodes, or the two digits of a two-candidate cell;
- weak (``-``): not both: the same digit in nodes that see each other, or two digits of
  one cell (every strong link here is also weak).

Grouped chains also pass through *almost locked sets* (N cells of a unit holding N + 1
digits): if an ALS loses digit x it is locked, so each other digit y is in it. Its x-cells
and its y-cells are then two nodes with a strong link (``=ALS[...]=``, at least one is
true; both may be), as HoDoKu's grouped chains "with ALS" use them.

Read as implications on *literals* (node true, node false), a strong link takes "a is
false" to "b is true" and a weak link takes "a is true" to "b is false", so every walk in
the literal graph alternates strong and weak links: it *is* an alternating chain. The
search finds, for every pair of literals, the shortest such walk, level by level over
bit-packed start sets (all starts at once, numpy), and reads conclusions off it:

- ``not s => n`` (an AIC from s to n): s or n is true. Same digit: a cell seeing both
  cannot hold it (type 1: X-chain when all links are on one digit, XY-chain when every
  strong link is a two-candidate cell). Different digits in cells that see each other:
  neither cell holds the other's digit (type 2); in the same cell: it holds one of the two.
- ``s => not s`` (a discontinuous nice loop): s is false; ``not s => s``: s is true.

The techniques below search restricted graphs (X-chain: one digit; XY-chain:
two-candidate cells) so each step carries the name a player knows; all use only units and
"sees", so they work on every geometry; groups need boxes and lines.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property
from itertools import chain, combinations

import numpy as np

from solver.logic.candidates import Candidates, layout, per_geometry
from solver.logic.memo import Memo
from solver.logic.reach_kernel import chain_ends, search_levels, seeing_pairs
from solver.logic.step import Step, cell_list, elimination_text

MAX_LINKS = 20
# the grouped chains' graph: box-line groups and almost locked sets as nodes
GROUPED = {"groups": True, "als": True}
# the grouped continuous loops' graph: the same, and the cells an ALS forces (HoDoKu's
# loops use them; `all_steps` alone looks for continuous loops, so the search for chains
# on the way to a solution stays as it is)
GROUPED_LOOPS = {**GROUPED, "forcing": True}
# ALS nodes up to this many cells: HoDoKu's library needs five (94 of its 96 grouped loop and
# AIC cases with 5, 91 with 4); each size more costs about a third more time a state
MAX_ALS_CELLS = 5


@dataclass
class Graph:
    """Nodes and links. Links are kept as arrays of node pairs (a < b) in the order they
    were found, repeats included: the search needs only the arrays, and the sets are made
    (in that same order, so a walk takes the same route every time) only to say a chain."""

    nodes: list[tuple[tuple[int, ...], int]]  # (cells, digit)
    strong_found: np.ndarray  # (k, 2) node pairs
    weak_found: np.ndarray
    groups: bool
    # [node, word]: the cells seeing every cell of the node (64-bit words), as the weak
    # links were found with them; a chain's ends eliminate among them
    seen: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.uint64))
    # strong links that hold only through an almost locked set, for the sentence and for a
    # continuous loop's eliminations: node pairs (a < b) as a * len(nodes) + b, ascending,
    # each with its set (an index into `als_sets`, each set's cells and digits as bits)
    als_keys: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    als_owner: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    als_sets: list[tuple[tuple[int, ...], int]] = field(default_factory=list)

    def als_through(self, a: int, b: int) -> tuple[tuple[int, ...], int] | None:
        """The almost locked set (cells, digits) that alone makes the strong link a-b, or
        None (looked up in sorted arrays: a dict of every such link cost more to make
        than the rest of the graph's ALS part)."""
        key = min(a, b) * len(self.nodes) + max(a, b)
        i = int(np.searchsorted(self.als_keys, key))
        if i < len(self.als_keys) and self.als_keys[i] == key:
            return self.als_sets[int(self.als_owner[i])]
        return None

    @cached_property
    def strong(self) -> set[tuple[int, int]]:
        return _link_set(self.strong_found)

    @cached_property
    def weak(self) -> set[tuple[int, int]]:
        return _link_set(self.weak_found)


def _link_set(found: np.ndarray) -> set[tuple[int, int]]:
    return set(zip(found[:, 0].tolist(), found[:, 1].tolist(), strict=True))


def _in_set_order(links: set[tuple[int, int]]) -> np.ndarray:
    """The set's pairs as a (k, 2) array, in the set's own order."""
    flat = np.fromiter(chain.from_iterable(links), dtype=np.intp, count=2 * len(links))
    return flat.reshape(-1, 2)


def _node_index(nodes, key):
    return nodes.setdefault(key, len(nodes))


@per_geometry
def _peer_masks(geometry) -> list[int]:
    """Each cell's peers as an int bit mask."""
    return [sum(1 << p for p in peers) for peers in geometry.peers]


def words(masks: list[int], n_cells: int) -> np.ndarray:
    """Int cell masks as rows of 64-bit words."""
    width = -(-n_cells // 64)
    raw = b"".join(m.to_bytes(8 * width, "little") for m in masks)
    return np.frombuffer(raw, dtype=np.uint64).reshape(len(masks), width)


def _pair_array(pairs) -> np.ndarray:
    return np.array(pairs, dtype=np.intp).reshape(-1, 2)


def build_graph(
    grid: Candidates,
    *,
    in_cell: bool = True,
    conjugates: bool = True,
    bivalue_only: bool = False,
    groups: bool = False,
    als: bool = False,
    forcing: bool = False,
) -> Graph:
    """The nodes and links of `grid`'s pencil marks, restricted as the technique needs."""
    marks = grid.marks
    counts = marks.sum(axis=1)
    cells_ok = (counts == 2) if bivalue_only else (counts > 0)
    cell_of, digit_of = np.nonzero(marks & cells_ok[:, None])  # cell by cell, digits rising
    pairs = zip(cell_of.tolist(), digit_of.tolist(), strict=True)
    index = {((c,), d + 1): i for i, (c, d) in enumerate(pairs)}
    strong: list[np.ndarray] = []
    weak: list[np.ndarray] = []
    if in_cell:
        within, bivalue = _in_cell_links(cell_of)
        weak.append(within)
        strong.append(bivalue)
    if groups:
        _add_groups(grid, index)
    no_als = (_pair_array([]), np.zeros(0, dtype=np.intp), [])
    als_pairs, als_owner, als_sets = _add_als(grid, index, forcing) if als else no_als
    strong.append(als_pairs)
    nodes = list(index)
    seeing, seen = _seeing_pairs(grid, nodes)
    weak.append(seeing)
    if conjugates:
        if groups:
            conjugate = _conjugate_links(grid, index)
        else:
            conjugate = _conjugate_pairs(grid, cell_of, digit_of)
        strong.append(conjugate)
        weak.append(conjugate)
    strong_found, weak_found = np.concatenate(strong), np.concatenate(weak)
    graph = Graph(nodes, strong_found, weak_found, groups, seen)
    if len(als_pairs):
        # a conjugate pair or a two-candidate cell is a stronger reason for the same link
        size = len(nodes)
        keys = als_pairs[:, 0] * size + als_pairs[:, 1]
        kept = ~np.isin(keys, weak_found[:, 0] * size + weak_found[:, 1])
        order = np.argsort(keys[kept])
        graph.als_keys = keys[kept][order]
        graph.als_owner = als_owner[kept][order]
        graph.als_sets = als_sets
    return graph


def _in_cell_links(cell_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weak links between every two digits of a cell, strong between the two of a
    two-candidate cell (node ids are numbered cell by cell): cell by cell, each cell's
    pairs as `itertools.combinations` orders them."""
    if not len(cell_of):
        return _pair_array([]), _pair_array([])
    starts = np.flatnonzero(np.r_[True, cell_of[1:] != cell_of[:-1]])
    size = np.diff(np.r_[starts, len(cell_of)])
    per_cell = size * (size - 1) // 2
    owner = np.repeat(np.arange(len(size)), per_cell)
    nth = np.arange(len(owner)) - np.repeat(np.cumsum(per_cell) - per_cell, per_cell)
    first, second = _combination_tables(int(size.max()))
    within = np.stack(
        [starts[owner] + first[size[owner], nth], starts[owner] + second[size[owner], nth]],
        axis=1,
    )
    two = starts[size == 2]
    return within.astype(np.intp), np.stack([two, two + 1], axis=1).astype(np.intp)


def _seeing_pairs(grid: Candidates, nodes) -> tuple[np.ndarray, np.ndarray]:
    """Weak links on one digit: disjoint nodes whose cells all see each other (cell sets as
    64-bit words, every pair tested compiled: `reach_kernel.seeing_pairs`), digit by digit
    in the order the digits first appear, then node order; and each node's cells seeing
    all of it, as words."""
    g = grid.geometry
    shapes = _node_shapes(g)
    member_rows, seen_rows = [], []
    for cells, _ in nodes:
        shape = shapes.get(cells)
        if shape is None:
            if len(shapes) > 100_000:  # large boards: keep the table bounded
                shapes.clear()
            shape = shapes[cells] = _node_shape(g, cells)
        member_rows.append(shape[0])
        seen_rows.append(shape[1])
    width = -(-g.n_cells // 64)
    member = np.frombuffer(b"".join(member_rows), dtype=np.uint64).reshape(-1, width)
    seen = np.frombuffer(b"".join(seen_rows), dtype=np.uint64).reshape(-1, width)
    digits = np.array([d for _, d in nodes], dtype=np.int64)
    _, first = np.unique(digits, return_index=True)
    found = seeing_pairs(member, seen, digits, digits[np.sort(first)])
    return found.astype(np.intp), seen


@per_geometry
def _node_shapes(geometry) -> dict:
    """cells -> (the cells, the cells seeing all of them) as the bytes of a row of 64-bit
    words, once per node shape."""
    return {}


def _node_shape(geometry, cells: tuple[int, ...]) -> tuple[bytes, bytes]:
    peers = _peer_masks(geometry)
    member, seen = 0, (1 << geometry.n_cells) - 1
    for c in cells:
        member |= 1 << c
        seen &= peers[c]
    size = 8 * -(-geometry.n_cells // 64)
    return member.to_bytes(size, "little"), seen.to_bytes(size, "little")


def _conjugate_pairs(grid: Candidates, cell_of: np.ndarray, digit_of: np.ndarray) -> np.ndarray:
    """Strong (and weak) links of a unit's only two places for a digit, unit by unit, then
    digit by digit, between single-cell nodes (numbered cell by cell, as `build_graph`)."""
    node = np.full(grid.marks.shape, -1, dtype=np.intp)
    node[cell_of, digit_of] = np.arange(len(cell_of))
    cells = grid.layout.unit_cells
    places_of = grid.marks[cells]  # [unit, position, digit]
    u, d = np.nonzero(places_of.sum(axis=1) == 2)
    rows, at = np.nonzero(places_of[u, :, d])  # two places a row, in the unit's order
    ends = node[cells[u[rows], at], d[rows]].reshape(-1, 2)
    ends = ends[(ends >= 0).all(axis=1) & (ends[:, 0] != ends[:, 1])]
    return np.sort(ends, axis=1)


def _conjugate_links(grid: Candidates, index) -> np.ndarray:
    """Strong (and weak) links of the grouped graph: each split of a unit's places for a
    digit into two nodes (cells or groups), unit by unit."""
    units = grid.geometry.units
    found = []
    places_of = grid.marks[grid.layout.unit_cells]  # [unit, position, digit]
    which, digit = np.nonzero(places_of.sum(axis=1) >= 2)
    rows = places_of[which, :, digit].tolist()
    for u, d, row in zip(which.tolist(), digit.tolist(), rows, strict=True):
        places = tuple(c for c, here in zip(units[u], row, strict=True) if here)
        for x, y in _splits(grid, u, places):
            a, b = index.get((x, d + 1)), index.get((y, d + 1))
            if a is not None and b is not None and a != b:
                found.append((min(a, b), max(a, b)))
    return _pair_array(found)


def _share(grid: Candidates, cells, kinds) -> bool:
    """Do `cells` lie together in a unit of one of `kinds` (a single cell always does)?"""
    if len(cells) == 1:
        return True
    kind = grid.layout.kind
    units_of = grid.geometry.units_of
    common = set(units_of[cells[0]])
    for c in cells[1:]:
        common &= set(units_of[c])
    return any(kind[u] in kinds for u in common)


@per_geometry
def _known_splits(geometry) -> dict:
    return {}


def _splits(grid: Candidates, unit: int, places) -> list:
    """`_two_parts`, remembered: they depend only on the geometry, the unit and the places."""
    known = _known_splits(grid.geometry)
    parts = known.get((unit, places))
    if parts is None:
        if len(known) > 100_000:  # large boards: keep the table bounded
            known.clear()
        parts = known[unit, places] = list(_two_parts(grid, unit, places))
    return parts


def _two_parts(grid: Candidates, unit: int, places):
    """Splits of a unit's places for a digit into two nodes (cells or groups)."""
    if len(places) < 2:
        return
    if len(places) == 2:
        yield (places[0],), (places[1],)
    if len(places) > 6:
        return
    kind = grid.layout.kind[unit]
    units_of = grid.geometry.units_of
    seen = set()
    for c in places:
        for u in units_of[c]:
            if u == unit or grid.layout.kind[u] not in ("row", "column", "box"):
                continue
            if kind != "box" and grid.layout.kind[u] != "box":
                continue
            part = tuple(p for p in places if u in units_of[p])
            rest = tuple(p for p in places if p not in part)
            if not rest or (part, rest) in seen or (rest, part) in seen:
                continue
            ok = _share(grid, rest, ("box",) if kind != "box" else ("row", "column"))
            if ok and (len(part) > 1 or len(rest) > 1):
                seen.add((part, rest))
                yield part, rest


def _add_groups(grid: Candidates, index) -> None:
    """Group nodes: a box-line intersection holding the digit in two or more cells (box by
    box, line by line, digit by digit)."""
    crossings, padded = _crossings(grid.geometry)
    if not crossings:
        return
    held = grid.marks[padded] & (padded >= 0)[:, :, None]  # [crossing, position, digit]
    which, digit = np.nonzero(held.sum(axis=1) >= 2)
    rows = held[which, :, digit].tolist()  # padded: longer than a short crossing
    for i, d, row in zip(which.tolist(), digit.tolist(), rows, strict=True):
        cells = tuple(c for c, here in zip(crossings[i], row, strict=False) if here)
        _node_index(index, (cells, d + 1))


@per_geometry
def _crossings(geometry) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """The cells (in the line's order) of every box-line intersection of two or more
    cells, box by box, then line by line; and the same padded with -1 as an array."""
    kind = layout(geometry).kind
    boxes = [u for u, k in enumerate(kind) if k == "box"]
    lines = [u for u, k in enumerate(kind) if k in ("row", "column")]
    found = []
    for b in boxes:
        box = set(geometry.units[b])
        for u in lines:
            common = tuple(c for c in geometry.units[u] if c in box)
            if len(common) >= 2:
                found.append(common)
    widest = max((len(c) for c in found), default=0)
    padded = np.full((len(found), widest), -1, dtype=np.intp)
    for i, common in enumerate(found):
        padded[i, : len(common)] = common
    return found, padded


def _add_als(
    grid: Candidates, index, forcing: bool = False
) -> tuple[np.ndarray, np.ndarray, list[tuple]]:
    """Nodes for the digits of every almost locked set of two or more cells (one cell is a
    two-candidate cell, linked already), and the strong links between each two of them:
    the node pairs (a < b, each once, in the order first found: set by set, then as
    `itertools.combinations` pairs them), the set each pair was first found in (an index
    into the third item), and each set's (cells, digits). The pairs are made with arrays
    from each set's node numbers, not pair by pair. With `forcing`, also the links from
    each set to the cells it forces (`_forcing_pairs`), after them."""
    from solver.logic.als import als_graph  # als builds on this module's masks

    # the sets of the state's ALS finders (tried before the grouped chains), not found again
    sets = [s for s in als_graph(grid).sets if 2 <= len(s.cells) <= MAX_ALS_CELLS]
    ids: list[int] = []
    sizes: list[int] = []
    for s in sets:
        keys = _als_nodes(s)
        ids.extend([_node_index(index, key) for key in keys])
        sizes.append(len(keys))
    if not sets:
        return _pair_array([]), np.zeros(0, dtype=np.intp), []
    node = np.array(ids, dtype=np.intp)
    size = np.array(sizes, dtype=np.intp)
    per_set = size * (size - 1) // 2
    owner = np.repeat(np.arange(len(sets)), per_set)
    nth = np.arange(len(owner)) - np.repeat(np.cumsum(per_set) - per_set, per_set)
    first, second = _combination_tables(int(size.max()))
    start = (np.cumsum(size) - size)[owner]
    a = node[start + first[size[owner], nth]]
    b = node[start + second[size[owner], nth]]
    low, high = np.minimum(a, b), np.maximum(a, b)
    _, once = np.unique(low * len(index) + high, return_index=True)
    once.sort()
    pairs = np.stack([low[once], high[once]], axis=1)
    owner = owner[once]
    if forcing:  # those a larger set (with the cell) makes already are left out
        more, more_owner = _forcing_pairs(grid, sets, index)
        new = ~np.isin(more[:, 0] * len(index) + more[:, 1], low * len(index) + high)
        pairs = np.concatenate([pairs, more[new]])
        owner = np.concatenate([owner, more_owner[new]])
    return pairs, owner, [(s.cells, s.digits) for s in sets]


def _forcing_pairs(grid: Candidates, sets, index) -> tuple[np.ndarray, np.ndarray]:
    """Strong links from an almost locked set to a cell it forces: if the set loses x it is
    locked, so a cell outside it that sees every place of the set's digit e loses e; a
    cell of three or more candidates, without x, that sees the set's every place of all
    its candidates but one, z, is then z. So the set's x-cells or that cell's z is true
    (HoDoKu's ALS left through several digits at once, "forcing" the next cell). Two-
    candidate cells are left out: the set's x = e link and the cell's e = z say the same.
    A cell in one unit with the whole set makes a larger set with it, which links x and z
    already: the links are new where the cell sees only the places that matter.
    Returns the node pairs (a < b) and the set of each."""
    marks = grid.marks
    size = grid.geometry.size
    n_cells = len(marks)
    bit = np.left_shift(1, np.arange(size))
    cand = marks.astype(np.int64) @ bit  # each cell's candidates as bits
    wide = (marks.sum(axis=1) >= 3) & (grid.values == 0)
    seen = np.stack([s.seen_words[1 : size + 1] for s in sets])  # [set, digit - 1, word]
    seen = np.unpackbits(seen.view(np.uint8), axis=2, count=n_cells, bitorder="little")
    seen_digits = np.einsum("sdc,d->sc", seen.astype(np.int64), bit)  # [set, cell]
    unseen = cand[None, :] & ~seen_digits  # a set's seen digits are its own
    forced = wide[None, :] & (unseen != 0) & (unseen & (unseen - 1) == 0)  # one unseen
    pairs, owners = [], []
    for k, c in zip(*np.nonzero(forced), strict=True):
        z = int(unseen[k, c]).bit_length()
        nodes = {key[1]: key for key in _als_nodes(sets[k])}
        for x in range(1, size + 1):
            if x in nodes and not cand[c] >> (x - 1) & 1:
                a, b = _node_index(index, nodes[x]), index[((int(c),), z)]
                pairs.append((min(a, b), max(a, b)))
                owners.append(int(k))
    return _pair_array(pairs), np.array(owners, dtype=np.intp)


@cache
def _combination_tables(most: int) -> tuple[np.ndarray, np.ndarray]:
    """first[m, q], second[m, q]: the q-th pair of positions of m items, in the order of
    `itertools.combinations(range(m), 2)`."""
    first = np.zeros((most + 1, max(1, most * (most - 1) // 2)), dtype=np.intp)
    second = np.zeros_like(first)
    for m in range(2, most + 1):
        for q, (i, j) in enumerate(combinations(range(m), 2)):
            first[m, q], second[m, q] = i, j
    return first, second


def _als_nodes(s) -> list[tuple[tuple[int, ...], int]]:
    """An almost locked set's places for each of its digits, as node keys: kept on the set
    (a unit's sets are remembered between states)."""
    if s.nodes is None:
        nodes = [(tuple(c for c in s.cells if h >> c & 1), d) for d, h in s.holders.items()]
        object.__setattr__(s, "nodes", nodes)
    return s.nodes


# -- the search --------------------------------------------------------------------------


@dataclass
class Reach:
    graph: Graph
    # [bit, start literal, 64-bit word of target literals]: each pair's level (the links
    # of its shortest walk, 0 none) written in binary, one bit plane per binary digit
    planes: np.ndarray
    found: dict = field(default_factory=dict)  # kinds -> `conclusions`, once asked for

    @cached_property
    def dist(self) -> np.ndarray:
        """dist[start literal, target literal]: the levels as one matrix, unpacked only
        where a finder reads more than the chain ends (continuous loops, kraken fish)."""
        return _levels(self.planes, 2 * len(self.graph.nodes))

    def levels_at(self, starts: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """dist[starts, targets], read off the bit planes pair by pair."""
        words = self.planes[:, starts, targets // 64]
        bits = (words >> (targets % 64).astype(np.uint64)) & np.uint64(1)
        weights = np.left_shift(1, np.arange(len(self.planes)))[:, None]
        return (bits.astype(np.int64) * weights).sum(axis=0)

    @cached_property
    def links_out(self) -> tuple[list[int], list[int]]:
        """Each literal's next literals (offsets, targets), in the order of the link sets:
        made only to say a chain. From a true literal the links are weak, from a false one
        strong."""
        return _successors(self.graph)


def _successors(graph: Graph) -> tuple[list[int], list[int]]:
    n = len(graph.nodes)
    # literal i: node i true; literal n + i: node i false. A strong link (a, b) leads from
    # "a false" to "b true" and back; a weak one from "a true" to "b false" and back
    strong, weak = _in_set_order(graph.strong), _in_set_order(graph.weak)
    src = np.concatenate([(n + strong).ravel(), weak.ravel()])
    dst = np.concatenate([strong[:, ::-1].ravel(), (n + weak[:, ::-1]).ravel()])
    order = np.argsort(src, kind="stable")
    offsets = np.searchsorted(src[order], np.arange(2 * n + 1))
    return offsets.tolist(), dst[order].tolist()


def _next_literals(r: Reach, lit: int) -> Iterator[tuple[int, str]]:
    offsets, targets = r.links_out
    kind = "=" if lit >= len(r.graph.nodes) else "-"
    for nxt in targets[offsets[lit] : offsets[lit + 1]]:
        yield nxt, kind


def _literal_edges(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """Every literal edge once (source, target): a strong link takes "a false" to "b true",
    a weak one "a true" to "b false", both ways."""
    n = len(graph.nodes)
    sa, sb = _distinct(graph.strong_found, n)
    wa, wb = _distinct(graph.weak_found, n)
    src = np.concatenate([n + sa, n + sb, wa, wb])
    dst = np.concatenate([sb, sa, n + wb, n + wa])
    return src.astype(np.intp), dst.astype(np.intp)


def _distinct(pairs: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct pairs (a < b < n), as two arrays (one number a pair: a quick sort)."""
    keys = np.unique(pairs[:, 0] * n + pairs[:, 1])
    return keys // max(n, 1), keys % max(n, 1)


def reach(graph: Graph, max_links: int = MAX_LINKS) -> Reach:
    """Shortest alternating walk between every pair of literals, all at once: bit-packed
    rows, and one level ORs them along every literal edge. The search runs backwards (row
    t holds the literals t reaches, found by following edges into their sources), so its
    rows are the starts of `dist` as they are."""
    m = 2 * len(graph.nodes)
    start, end = _literal_edges(graph)
    if m == 0 or start.size == 0:
        return Reach(graph, np.zeros((1, m, -(-m // 64)), dtype=np.uint64))
    order = np.argsort(start, kind="stable")
    src, dst = end[order], start[order]
    first = np.flatnonzero(np.r_[True, dst[1:] != dst[:-1]])  # each row's first edge
    targets = dst[first]
    # frontier[s] = set of literals t whose walks of the current length from s end at t,
    # as bits packed into 64-bit words
    width = -(-m // 64)
    frontier = np.zeros((m, width), dtype=np.uint64)
    every = np.arange(m)
    frontier[every, every // 64] = np.left_shift(1, every % 64).astype(np.uint64)
    # the levels written as binary numbers, one packed bit plane per binary digit: each
    # pair is first reached at one level only, so a pair's bits across the planes spell
    # its level (unpacking a few planes at the end is far cheaper than writing every
    # level's new pairs into the matrix)
    planes = np.zeros((max_links.bit_length(), m, width), dtype=np.uint64)
    deepest = search_levels(frontier, src, first, targets, planes, max_links)
    return Reach(graph, planes[: max(1, deepest.bit_length())])


def _levels(planes: np.ndarray, count: int) -> np.ndarray:
    """The matrix of levels spelled by the bit planes' rows, for the first `count` target
    literals (in place, few temporaries)."""
    dist = np.unpackbits(planes[0].view(np.uint8), axis=1, count=count, bitorder="little")
    for b, plane in enumerate(planes[1:], 1):
        bit = np.unpackbits(plane.view(np.uint8), axis=1, count=count, bitorder="little")
        dist |= np.left_shift(bit, b, out=bit)
    return dist


def walk(r: Reach, start: int, target: int, avoid=()) -> list[tuple[int, str]]:
    """The literals of a shortest walk from `start` to `target` (different literals), each
    with the link ("=" or "-") that leads into it, never through `avoid`; [] if none."""
    parent: dict[int, tuple[int, str] | None] = {start: None}
    for lit in avoid:
        parent.setdefault(lit, None)
    queue = deque([start])
    offsets, targets = r.links_out
    n = len(r.graph.nodes)
    while queue and target not in parent:
        lit = queue.popleft()
        kind = "=" if lit >= n else "-"
        for nxt in targets[offsets[lit] : offsets[lit + 1]]:
            if nxt not in parent:
                parent[nxt] = (lit, kind)
                queue.append(nxt)
    if target not in parent:
        return []
    path = []
    lit = target
    while parent[lit] is not None:
        prev, kind = parent[lit]
        path.append((lit, kind))
        lit = prev
    path.append((start, ""))
    return path[::-1]


# -- conclusions ---------------------------------------------------------------------------


def _node_text(grid: Candidates, node) -> str:
    cells, digit = node
    return "|".join(grid.name(c) for c in cells) + f"({grid.symbol(digit)})"


def chain_text(grid: Candidates, r: Reach, path) -> str:
    n = len(r.graph.nodes)
    parts = []
    before = None
    for lit, kind in path:
        text = _node_text(grid, r.graph.nodes[lit % n])
        if kind == "=" and before is not None:
            kind = _strong_text(grid, r.graph, before % n, lit % n)
        parts.append(f"{kind} {text}" if kind else text)
        before = lit
    return " ".join(parts)


def _strong_text(grid: Candidates, graph: Graph, a: int, b: int) -> str:
    """The strong link's sign: "=ALS[cells (digits)]=" where only an almost locked set makes
    it, "=ALS[cells (digits) forces cell]=" where the set forces a cell outside it."""
    through = graph.als_through(a, b)
    if through is None:
        return "="
    cells, digits = through
    symbols = "".join(grid.symbol(d + 1) for d in range(grid.geometry.size) if digits >> d & 1)
    outside = [graph.nodes[k][0][0] for k in (a, b) if not set(graph.nodes[k][0]) <= set(cells)]
    forces = f" forces {grid.name(outside[0])}" if outside else ""
    return f"=ALS[{' '.join(grid.name(c) for c in cells)} ({symbols}){forces}]="


def conclusions(grid: Candidates, r: Reach, *, kinds=("ends", "ends2", "loop")) -> Iterator[tuple]:
    """(links, start literal, target literal, placements, eliminations, what) for every
    conclusion, shortest first, one per distinct set of changes."""
    graph = r.graph
    nodes = graph.nodes
    n = len(nodes)
    if n == 0:
        return
    found = []
    if "ends" in kinds:
        found.extend(_chain_ends(grid, r))
    if "loop" in kinds:
        every = np.arange(n)
        to_false = r.levels_at(every, n + every).tolist()  # s => not s
        to_true = r.levels_at(n + every, every).tolist()  # not s => s
        for i, (cells, d) in enumerate(nodes):
            if to_false[i]:
                gone = tuple((c, d) for c in cells)
                found.append((to_false[i], i, n + i, (), gone, "false"))
            if len(cells) == 1 and to_true[i]:  # the cell holds d
                gone = tuple((cells[0], e) for e in grid.digits_of(cells[0]) if e != d)
                if gone:
                    found.append((to_true[i], n + i, i, (), gone, "true"))
    if "cycle" in kinds:
        found.extend(_continuous_loops(grid, r))
    # one strong link (or a three-link loop) is a locked candidate or a subset, found
    # earlier under its own name: a chain has at least three links, a loop four
    found = [f for f in found if f[0] >= (3 if f[5] in ("ends", "ends2") else 4)]
    found.sort(key=lambda item: (item[0], -len(item[3]) - len(item[4])))
    seen = set()
    for item in found:
        key = (frozenset(item[3]), frozenset(item[4]))
        if key not in seen:
            seen.add(key)
            yield item


def _chain_ends(grid: Candidates, r: Reach) -> list:
    """The conclusions of a chain from "s false" to "t true" (not s => t: s or t is true),
    the pairs picked out compiled off the search's bit planes (`reach_kernel.chain_ends`):

    - type 1, one digit: a cell seeing both ends cannot hold it;
    - type 2, digits x and y, single cells A and B: in one cell, it holds x or y; in
      cells that see each other, neither holds the other's digit.

    Type 1 first, then type 2, each in the order of s, then t."""
    nodes = r.graph.nodes
    n = len(nodes)
    marks = grid.marks
    digit = np.array([d for _, d in nodes], dtype=np.int64)
    cell = np.array([cells[0] for cells, _ in nodes], dtype=np.int64)
    single = np.array([len(cells) == 1 for cells, _ in nodes], dtype=bool)
    # each node's cells seeing all of it and holding its digit
    hit = r.graph.seen & _holding_words(marks)[digit - 1]
    args = (r.planes, n, digit, hit, single, cell, marks.sum(axis=1), marks, grid.layout.sees)
    room = (256, 256)
    while True:
        ends = np.empty((room[0], 3), dtype=np.int64)
        ends_hit = np.empty((room[0], hit.shape[1]), dtype=np.uint64)
        others = np.empty((room[1], 3), dtype=np.int64)
        counts = chain_ends(*args, ends, ends_hit, others)
        if counts[0] <= room[0] and counts[1] <= room[1]:
            break
        room = counts  # a second run, with room for every row
    ends, ends_hit, others = ends[: counts[0]], ends_hit[: counts[0]], others[: counts[1]]
    found = []
    for (s, t, level), words in zip(ends.tolist(), ends_hit, strict=True):
        d = nodes[s][1]
        cells = np.flatnonzero(np.unpackbits(words.view(np.uint8), bitorder="little"))
        gone = tuple((int(c), d) for c in cells)
        found.append((level, n + s, t, (), gone, "ends"))
    for s, t, level in others.tolist():
        a, b, dx, dy = int(cell[s]), int(cell[t]), int(digit[s]), int(digit[t])
        if a == b:
            gone = tuple((a, e) for e in grid.digits_of(a) if e not in (dx, dy))
        else:
            gone = tuple(p for p in ((a, dy), (b, dx)) if marks[p[0], p[1] - 1])
        found.append((level, n + s, t, (), gone, "ends2"))
    return found


def _holding_words(marks: np.ndarray) -> np.ndarray:
    """[digit - 1, word]: the cells holding each digit, as 64-bit words."""
    n_cells, size = marks.shape
    width = -(-n_cells // 64)
    padded = np.zeros((size, 64 * width), dtype=bool)
    padded[:, :n_cells] = marks.T
    return np.packbits(padded, axis=1, bitorder="little").view(np.uint64)


def _loops_through(r: Reach, node: int) -> Iterator[list[tuple[int, str]]]:
    """Alternating cycles through `node` (true, then out by a weak link), one per weak
    neighbour: the shortest walk back that avoids both nodes' literals on the way."""
    n = len(r.graph.nodes)
    for nxt, kind in _next_literals(r, node):
        if not r.dist[nxt, node] or r.dist[nxt, node] < 3:
            continue
        avoid = {node, node + n, nxt, (nxt + n) % (2 * n)}
        rest = walk(r, nxt, node, avoid=avoid - {node})
        if rest:
            yield [(node, ""), (nxt, kind)] + rest[1:]


def _continuous_loops(grid: Candidates, r: Reach) -> list[tuple]:
    """Continuous nice loops: a cycle of distinct, disjoint nodes alternating strong and
    weak links. Counting shows every weak link of it joins exactly one true node, so a
    weak link on one digit clears that digit from cells seeing both its nodes, and a weak
    link inside a cell clears the cell's other digits."""
    graph = r.graph
    nodes = graph.nodes
    n = len(nodes)
    sees = grid.layout.sees
    found = []
    done: set[frozenset[int]] = set()
    loops = ((i, c) for i in range(n) if r.dist[i, i] for c in _loops_through(r, i))
    for i, cycle in loops:
        lits = [lit for lit, _ in cycle[:-1]]
        ids = [lit % n for lit in lits]
        cands = [(c, nodes[k][1]) for k in ids for c in nodes[k][0]]
        if len(set(ids)) != len(ids) or len(set(cands)) != len(cands) or len(ids) < 4:
            continue
        if frozenset(ids) in done:
            continue
        done.add(frozenset(ids))
        gone = set()
        inside = set(cands)
        for (a, _), (b, kind) in zip(cycle, cycle[1:], strict=False):
            if kind != "-":
                continue
            (ca, da), (cb, db) = nodes[a % n], nodes[b % n]
            if da == db:
                seen = sees[list(ca) + list(cb)].all(axis=0) & grid.marks[:, da - 1]
                gone |= {(int(c), da) for c in np.flatnonzero(seen)}
            elif len(ca) == 1 and ca == cb:
                gone |= {(ca[0], e) for e in grid.digits_of(ca[0]) if e not in (da, db)}
        for (a, _), (b, kind) in zip(cycle, cycle[1:], strict=False):
            through = graph.als_through(a % n, b % n)
            if kind == "=" and through is not None:
                gone |= _als_link_rest(grid, through, nodes[a % n], nodes[b % n])
        gone -= inside
        if gone:
            found.append((len(cycle) - 1, i, cycle, (), tuple(sorted(gone)), "cycle"))
    return found


def _als_link_rest(grid: Candidates, als, a, b) -> set[tuple[int, int]]:
    """What a strong link through an almost locked set clears in a closed loop, where
    exactly one end of each link is true.

    Between two of its digits x and y, the set holds just one of them: its other digits
    are locked in it. From its x-cells to a cell it forces to z (`_forcing_pairs`): either
    it lacks x, and holds all its other digits, or it holds x and the cell is one of its
    other candidates e, which the set then lacks. Either way its digits but x and those
    other candidates are locked in it, and each such e is in the set's e-cells or the cell."""
    cells = set(als[0])
    if set(a[0]) <= cells and set(b[0]) <= cells:
        return _locked_rest(grid, als, (a[1], b[1]))
    (_, x), ((cell,), z) = (a, b) if set(a[0]) <= cells else (b, a)
    exits = [e for e in grid.digits_of(cell) if e != z]
    gone = _locked_rest(grid, als, (x, *exits))
    for e in exits:
        places = [c for c in als[0] if grid.marks[c, e - 1]] + [cell]
        gone |= _seeing_all(grid, places, e, outside=[*als[0], cell])
    return gone


def _locked_rest(grid: Candidates, als, ends) -> set[tuple[int, int]]:
    """In a closed loop exactly one end of each link is true, so an ALS linked on x and y
    holds just one of them: its other digits are locked in it, and leave every cell
    outside that sees all of the set's places for them."""
    cells, digits = als
    gone = set()
    for d in range(1, grid.geometry.size + 1):
        if not digits >> (d - 1) & 1 or d in ends:
            continue
        places = [c for c in cells if grid.marks[c, d - 1]]
        gone |= _seeing_all(grid, places, d, outside=cells)
    return gone


def _seeing_all(grid: Candidates, places, d: int, outside) -> set[tuple[int, int]]:
    """Digit d in the cells, but those of `outside`, that see every one of `places`."""
    seeing = grid.layout.sees[places].all(axis=0) & grid.marks[:, d - 1]
    seeing[list(outside)] = False
    return {(int(c), d) for c in np.flatnonzero(seeing)}


def _sentence(grid, r, path, start, target, what) -> str:
    n = len(r.graph.nodes)
    s = _node_text(grid, r.graph.nodes[start % n])
    t = _node_text(grid, r.graph.nodes[target % n])
    legend = "(= one of the two is true, - not both)"
    text = chain_text(grid, r, path)
    if what == "ends":
        return f"{text} {legend}; {s} or {t} is true, so a cell seeing both cannot hold it"
    if what == "ends2":
        return f"{text} {legend}; {s} or {t} is true, so neither cell holds the other's digit"
    if what == "cycle":
        return (
            f"{text} {legend}: a closed loop, so every weak link in it has exactly one true "
            "end, and cells seeing both ends of one lose that digit"
        )
    if what == "false":
        return f"{text} {legend}; supposing {s} true leads to it being false, so it is false"
    return f"{text} {legend}; supposing {s} false leads to it being true, so it is true"


_REACHES = Memo(limit=8)


def _reach_of(grid: Candidates, **options) -> Reach:
    """The search for `grid` with graph `options`, kept for the state's other finders (AIC
    and nice loops share one graph): keyed by the pencil marks themselves."""
    key = (grid.marks.tobytes(), tuple(sorted(options.items())))
    return _REACHES.get(grid.geometry, key, lambda: reach(build_graph(grid, **options)))


def chain_steps(grid: Candidates, name: str, options: dict, kinds):
    r = _reach_of(grid, **options)
    graph = r.graph
    for _links, start, target, placements, gone, what in _conclusions_of(grid, r, kinds):
        path = target if what == "cycle" else walk(r, int(start), int(target))
        text = _sentence(grid, r, path, int(start), path[-1][0], what)
        changes = (
            elimination_text(grid, gone)
            if gone
            else (f"places {cell_list(grid, [c for c, _ in placements])}")
        )
        n = len(graph.nodes)
        yield Step(
            name,
            f"{name}: {text}: {changes}",
            placements=tuple(placements),
            eliminations=tuple(gone),
            cells=tuple(dict.fromkeys(c for lit, _ in path for c in graph.nodes[lit % n][0])),
            digits=tuple(sorted({graph.nodes[lit % n][1] for lit, _ in path})),
        )


def x_chains(grid: Candidates) -> Iterator[Step]:
    """One digit, conjugate pairs and cells that see each other."""
    if not _aic_has_ends(grid):
        return iter(())
    return chain_steps(grid, "X-chain", {"in_cell": False}, kinds=("ends",))


def xy_chains(grid: Candidates) -> Iterator[Step]:
    """Two-candidate cells joined by a shared digit."""
    if not _aic_has_ends(grid):
        return iter(())
    options = {"conjugates": False, "bivalue_only": True}
    return chain_steps(grid, "XY-chain", options, kinds=("ends",))


def _aic_has_ends(grid: Candidates) -> bool:
    """Does the AIC graph lead to any elimination from a chain's two ends? The X-chain and
    XY-chain graphs are parts of it (the same candidates as nodes, fewer links), so each
    of their chains is an AIC with the same ends and eliminations (a walk from "s false" to
    "t true" has an odd number of links in both, so one of three or more stays one of
    three or more): when the AIC graph has none, neither has any. Most states that reach
    the chains have none, and the AIC graph, searched once, serves the AIC and nice loop
    finders next: this spares building the two smaller graphs there."""
    found = _conclusions_of(grid, _reach_of(grid), ("ends", "ends2"))
    return any(item[5] == "ends" for item in found)


def _conclusions_of(grid: Candidates, r: Reach, kinds) -> list[tuple]:
    """`conclusions` of a search, kept with it: the X-chain and XY-chain finders ask the
    AIC graph's before the AIC finder does."""
    kinds = tuple(kinds)
    if kinds not in r.found:
        r.found[kinds] = list(conclusions(grid, r, kinds=kinds))
    return r.found[kinds]


def aics(grid: Candidates) -> Iterator[Step]:
    """Alternating inference chains: any strong and weak links, single cells."""
    return chain_steps(grid, "AIC", {}, kinds=("ends", "ends2"))


def nice_loops(grid: Candidates) -> Iterator[Step]:
    """Discontinuous nice loops: a candidate that proves itself false (or true)."""
    return chain_steps(grid, "nice loop", {}, kinds=("loop",))


def continuous_nice_loops(grid: Candidates) -> Iterator[Step]:
    """Closed loops: each of their eliminations is also an AIC's (the loop minus one weak
    link), so `explain` skips them; `all_steps` shows them as players know them."""
    return chain_steps(grid, "continuous nice loop", {}, kinds=("cycle",))


def grouped_continuous_nice_loops(grid: Candidates) -> Iterator[Step]:
    return chain_steps(grid, "grouped continuous nice loop", GROUPED_LOOPS, kinds=("cycle",))


def grouped_aics(grid: Candidates) -> Iterator[Step]:
    return chain_steps(grid, "grouped AIC", GROUPED, kinds=("ends", "ends2"))


def grouped_nice_loops(grid: Candidates) -> Iterator[Step]:
    return chain_steps(grid, "grouped nice loop", GROUPED, kinds=("loop",))
