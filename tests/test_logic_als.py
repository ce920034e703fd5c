"""Almost locked sets and Sue de Coq: exact eliminations on crafted grids, 9x9 and 16x16.

Every cell starts open with every candidate; a few cells are narrowed to draw the pattern,
so the expected eliminations follow from the pattern alone (HoDoKu's library checks the
rest: tests/test_logic_reglib.py)."""

from __future__ import annotations

import numpy as np

from solver.geometry import standard
from solver.logic.als import almost_locked_sets, als_xz, death_blossoms
from solver.logic.candidates import Candidates
from solver.logic.sue_de_coq import sue_de_coq
from tests.test_logic_reglib import needs_library


def open_grid(n: int) -> Candidates:
    g = standard(n)
    size = g.size
    symbols = "123456789ABCDEFG"[:size]
    return Candidates(g, np.zeros(g.n_cells, np.int8), np.ones((g.n_cells, size), bool), symbols)


def narrow(grid: Candidates, **cells: str) -> Candidates:
    """narrow(grid, r1c1="12"): the named cells keep only those digits (1-9)."""
    g = grid.geometry
    for name, digits in cells.items():
        r, c = (int(x) for x in name[1:].split("c"))
        cell = g.cell_at[(r - 1, c - 1)]
        grid.marks[cell] = False
        for d in digits:
            grid.marks[cell, int(d) - 1] = True
    return grid


def named(grid: Candidates, changes) -> set[tuple[str, int]]:
    return {(grid.name(c), d) for c, d in changes}


def test_a_two_candidate_cell_is_the_smallest_almost_locked_set():
    grid = narrow(open_grid(3), r1c1="12", r5c1="13", r5c2="23")
    found = {tuple(grid.name(c) for c in s.cells) for s in almost_locked_sets(grid)}
    assert ("r1c1",) in found and ("r5c1", "r5c2") in found
    assert ("r1c2",) not in found  # nine candidates in one cell is no ALS


def xz_pattern(n: int) -> Candidates:
    # A = r1c1 (12), B = r5c1 + r5c2 (123): 1 joins them (r1c1 and r5c1 share column 1),
    # so A holds 2 or B does (in r5c2)
    return narrow(open_grid(n), r1c1="12", r5c1="13", r5c2="23")


XZ_GONE = {("r1c2", 2), ("r2c2", 2), ("r3c2", 2), ("r4c1", 2), ("r6c1", 2)}


def test_als_xz_removes_z_from_cells_seeing_both_sets():
    grid = xz_pattern(3)
    steps = [s for s in als_xz(grid) if named(grid, s.eliminations) == XZ_GONE]
    assert steps and "ALS-XZ" in steps[0].text


def test_als_xz_on_16x16():
    grid = xz_pattern(4)
    # boxes are 4x4 here: r1c1's box is r1-r4 x c1-c4 and r5c2's is r5-r8 x c1-c4, so the
    # cells seeing both are r1c2 (row 1), r2c2-r4c2 (box, column 2) and r6c1-r8c1
    gone = {("r1c2", 2), ("r2c2", 2), ("r3c2", 2), ("r4c2", 2)}
    gone |= {("r6c1", 2), ("r7c1", 2), ("r8c1", 2)}
    assert any(named(grid, s.eliminations) == gone for s in als_xz(grid))


def test_als_xz_needs_the_restricted_common_to_see_across():
    # B's 1 moved to r5c3, which does not see r1c1: A and B could both hold 1
    grid = narrow(open_grid(3), r1c1="12", r5c3="13", r5c2="23")
    assert not any(named(grid, s.eliminations) == XZ_GONE for s in als_xz(grid))


def test_death_blossom_on_a_crafted_stem():
    # stem r1c1 (12); petal for 1: r1c5 (13); petal for 2: r5c1 (23): either way 3 is in
    # r1c5 or r5c1, so r5c5 (sees both) cannot be 3
    grid = narrow(open_grid(3), r1c1="12", r1c5="13", r5c1="23")
    steps = [s for s in death_blossoms(grid) if ("r5c5", 3) in named(grid, s.eliminations)]
    assert steps and steps[0].cells[0] == grid.geometry.cell_at[(0, 0)]


def test_sue_de_coq_shares_the_intersection_between_line_and_box():
    # r1c1 + r1c2 hold 1234; r1c5 (12) in the row, r2c1 (34) in the box: four cells,
    # four digits, so 1 and 2 leave the rest of row 1, 3 and 4 the rest of box 1
    grid = narrow(open_grid(3), r1c1="1234", r1c2="1234", r1c5="12", r2c1="34")
    want = {(f"r1c{c}", d) for c in (3, 4, 6, 7, 8, 9) for d in (1, 2)}
    want |= {(name, d) for name in ("r1c3", "r2c2", "r2c3", "r3c1", "r3c2", "r3c3") for d in (3, 4)}
    assert any(named(grid, s.eliminations) == want for s in sue_de_coq(grid))


def test_sue_de_coq_needs_disjoint_line_and_box_digits():
    # the box cell shares 2 with the row cell: 2 could be in both, no deduction of that shape
    grid = narrow(open_grid(3), r1c1="1234", r1c2="1234", r1c5="12", r2c1="24")
    cells = {grid.geometry.cell_at[(0, 4)], grid.geometry.cell_at[(1, 0)]}
    assert not any(cells <= set(s.cells) for s in sue_de_coq(grid))


@needs_library
def test_grouped_chains_pass_through_almost_locked_sets():
    """HoDoKu's grouped AIC "with ALS" (reglib line 1331): the chain needs an ALS as a node;
    the grouped AIC finds the case's eliminations and names the set, and the same graph
    without ALS nodes does not find them."""
    from solver.logic.aic import chain_steps, grouped_aics
    from tests.test_logic_reglib import library_cases

    case = dict(library_cases())[1331]
    found = [s for s in grouped_aics(case.grid.copy()) if set(s.eliminations) == case.eliminations]
    assert found and "=ALS[" in found[0].text
    plain = chain_steps(case.grid.copy(), "grouped AIC", {"groups": True}, ("ends", "ends2"))
    assert all(set(s.eliminations) != case.eliminations for s in plain)


def test_remembered_unit_sets_give_what_a_fresh_search_gives():
    """ALS are remembered per unit between states: after a candidate goes, the sets of
    the state (from the units it left alone, remembered, and the others, searched) are
    those of a search from nothing, in the same order."""
    from solver.logic import als as als_module

    def described(sets):
        return [(s.cells, s.digits, s.holders, s.seen, s.unit) for s in sets]

    grid = narrow(open_grid(3), r1c1="12", r1c2="23", r1c3="13", r2c1="145", r5c5="67")
    almost_locked_sets(grid)  # remembered
    later = grid.copy()
    later.marks[later.geometry.cell_at[(1, 0)], 3] = False  # r2c1 loses 4
    remembered = described(almost_locked_sets(later))
    als_module._UNIT_SETS.clear()
    assert remembered == described(almost_locked_sets(later))


def test_compiled_petals_match_their_definition():
    """`als_kernel.petal_table` and `bloom_reach` say what the death blossom's words say:
    a petal for digit d of a stem does not hold the stem and has all its places for d
    seeing it; z is within reach when some cell holding z, not the stem, is seen in all
    their places for z by a petal holding z of every stem digit."""
    from solver.grid import parse
    from solver.logic import als
    from solver.logic.explain import explain
    from solver.logic.subsets import bits, digit_masks

    e = explain(
        parse("4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"),
        keep_snapshots=True,
    )
    checked = 0
    for grid in e.snapshots[::8]:
        g = als.als_graph(grid)
        masks = digit_masks(grid)
        peers = als._peer_masks(grid.geometry)
        stems = [c for c in grid.empty_cells().tolist() if 2 <= masks[c].bit_count() <= 4]
        if not stems or not g.sets:
            continue
        petal, union = als._petal_table(grid, g, stems)
        holding = als._words(g.holding, grid.geometry.n_cells)
        reach = als.kernel.bloom_reach(
            petal,
            np.array(stems, dtype=np.int64),
            np.array([masks[c] for c in stems], dtype=np.int64),
            g.holder_words,
            g.seen_words,
            holding,
        )
        for k, stem in enumerate(stems):
            of = {}
            for d in range(1, 10):
                of[d] = [
                    i
                    for i, s in enumerate(g.sets)
                    if not s.mask >> stem & 1
                    and d in s.holders
                    and s.holders[d] & ~peers[stem] == 0
                ]
                assert np.flatnonzero(petal[d, k]).tolist() == of[d]
                every = 0
                for i in of[d]:
                    every |= g.sets[i].digits
                assert union[d, k] == every
            for z in range(1, 10):
                if masks[stem] >> (z - 1) & 1:
                    continue
                cells = g.holding[z - 1] & ~(1 << stem)
                for d in bits(masks[stem]):
                    seen = 0
                    for i in of[d]:
                        if z in g.sets[i].holders:
                            seen |= g.sets[i].seen[z] & ~g.sets[i].mask
                    cells &= seen
                assert reach[k, z] == bool(cells)
                checked += bool(cells)
    assert checked


def new_strong_links(grid: Candidates):
    """The loops' graph, and the strong links it has that the grouped chains' has not."""
    from solver.logic.aic import build_graph

    plain = build_graph(grid, groups=True, als=True)
    graph = build_graph(grid, groups=True, als=True, forcing=True)
    known = {tuple(p) for p in plain.strong_found.tolist()}
    return graph, [(a, b) for a, b in graph.strong_found.tolist() if (a, b) not in known]


def forcing_links(grid: Candidates) -> set[tuple[tuple[str, ...], int, str, int]]:
    """(the set's x-cells, x, the forced cell, z) for each link from an ALS to a cell it
    forces, by name."""
    graph, links = new_strong_links(grid)
    found = set()
    for a, b in links:
        cells = set(graph.als_through(a, b)[0])
        group, forced = (a, b) if set(graph.nodes[a][0]) <= cells else (b, a)
        (x_cells, x), ((cell,), z) = graph.nodes[group], graph.nodes[forced]
        found.add((tuple(grid.name(c) for c in x_cells), x, grid.name(cell), z))
    return found


def test_an_almost_locked_set_forces_a_cell_that_sees_its_other_digits():
    """r7c8 r7c9 r9c9 (1568, box 9) is an ALS: without its 5 it holds 1, 6 and 8, in
    r7c9 and r9c9 for 1 and 6, so r1c9 (136), which sees those two in column 9, is 3:
    r7c8's 5 or r1c9's 3 is true. No unit holds the set and r1c9 (a larger set would link
    them). r2c9 (1367) keeps two digits the set does not reach: not forced."""
    grid = narrow(open_grid(3), r7c8="58", r7c9="18", r9c9="16", r1c9="136", r2c9="1367")
    found = forcing_links(grid)
    assert (("r7c8",), 5, "r1c9", 3) in found
    assert (("r7c8", "r7c9"), 8, "r1c9", 3) in found  # without 8: 1, 5, 6 locked
    assert not any(cell == "r2c9" for _, _, cell, _ in found)


def test_every_forcing_link_holds_in_the_solution():
    """Each link from an ALS to a cell it forces is a strong inference: in the solution the
    set holds x or the cell holds z, at every state of a hard puzzle's explanation."""
    from solver.grid import parse
    from solver.logic.explain import explain
    from tests.test_logic_explain import HARD

    e = explain(parse(HARD[0]), keep_snapshots=True)
    checked = 0
    for state in e.snapshots[::5]:
        graph, links = new_strong_links(state)
        for a, b in links:
            ends = [graph.nodes[a], graph.nodes[b]]
            assert any(e.solution[c] == d for cells, d in ends for c in cells), ends
            checked += 1
    assert checked > 20


@needs_library
def test_a_continuous_loop_through_a_forced_cell():
    """HoDoKu's grouped continuous nice loop on reglib line 1253 leaves an ALS through a
    cell it forces; the loop is found with that link, and not without it."""
    from solver.logic.aic import GROUPED, chain_steps, grouped_continuous_nice_loops
    from tests.test_logic_reglib import library_cases

    case = dict(library_cases())[1253]
    found = [
        s
        for s in grouped_continuous_nice_loops(case.grid.copy())
        if case.eliminations <= set(s.eliminations)
    ]
    assert found and "=ALS[r7c8 r7c9 r8c9 r9c9 (12568) forces r1c9]=" in found[0].text
    plain = chain_steps(case.grid.copy(), "loop", GROUPED, ("cycle",))
    assert all(not case.eliminations <= set(s.eliminations) for s in plain)
