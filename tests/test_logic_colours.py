"""Remote pairs and multi-colours on crafted grids, 9x9 and 16x16."""

from __future__ import annotations

from solver.logic.chains import multi_colours, remote_pairs, simple_colouring
from tests.test_logic_als import named, narrow, open_grid


def remote_pair_grid(n: int):
    # r1c1 - r1c5 - r5c5 - r5c9, all 12: r1c1 and r5c9 are three links apart
    return narrow(open_grid(n), r1c1="12", r1c5="12", r5c5="12", r5c9="12")


def test_remote_pair_clears_cells_seeing_both_ends():
    grid = remote_pair_grid(3)
    want = {(name, d) for name in ("r1c9", "r5c1") for d in (1, 2)}
    assert [named(grid, s.eliminations) for s in remote_pairs(grid)] == [want]


def test_remote_pair_on_16x16():
    grid = remote_pair_grid(4)
    # on 16x16, r1c1 and r5c5 are in different boxes, the same four cells still chain
    want = {(name, d) for name in ("r1c9", "r5c1") for d in (1, 2)}
    assert [named(grid, s.eliminations) for s in remote_pairs(grid)] == [want]


def test_three_cells_are_no_remote_pair():
    grid = narrow(open_grid(3), r1c1="12", r1c5="12", r5c5="12")
    assert list(remote_pairs(grid)) == []


def only_places(grid, digit, cells):
    """`digit` keeps its mark only in the named cells."""
    for c in range(grid.geometry.n_cells):
        grid.marks[c, digit - 1] = grid.name(c) in cells


def test_multi_colours_type_2_makes_a_colour_false():
    # 7 in row 1 only at r1c1 / r1c9 (one cluster), in row 2 only at r2c2 / r2c3 (another);
    # r1c1 sees both r2c2 and r2c3 (box 1), one of which holds 7: r1c1 is not 7
    grid = open_grid(3)
    only_places(grid, 7, {"r1c1", "r1c9", "r2c2", "r2c3"})
    found = [named(grid, s.eliminations) for s in multi_colours(grid)]
    assert {("r1c1", 7)} in found
    assert all(("r1c9", 7) not in f for f in found)  # the other colour is the true one


def test_simple_colours_trap_reaches_a_cell_of_another_cluster():
    # one cluster of 7s: r5c1 = r1c1 (column 1) = r1c5 (row 1) = r2c6 (box 2), coloured
    # r5c1, r1c5 against r1c1, r2c6; r5c6 sees r5c1 and r2c6, one of which is 7, although
    # r5c6 belongs to a cluster of its own (box 5: r5c6 = r4c4)
    grid = open_grid(3)
    g = grid.geometry
    keep = {"column 1": {"r1c1", "r5c1"}, "row 1": {"r1c1", "r1c5"}}
    keep |= {"box 2": {"r1c5", "r2c6"}, "box 5": {"r5c6", "r4c4"}}
    for u, cells in enumerate(g.units):
        if grid.unit_name(u) in keep:
            for c in cells:
                grid.marks[c, 6] = grid.name(c) in keep[grid.unit_name(u)]
    traps = [named(grid, s.eliminations) for s in simple_colouring(grid) if "trap" in s.text]
    assert any(("r5c6", 7) in t for t in traps)
    assert all(("r4c4", 7) not in t for t in traps)  # sees neither colour
