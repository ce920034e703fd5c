"""Remote pairs and multi-colours on crafted grids, 9x9 and 16x16."""

from __future__ import annotations

from solver.logic.chains import multi_colours, remote_pairs
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
