"""Each technique fires on a crafted pencil-mark grid built so that it must, and finds
exactly the eliminations the pattern allows (and nothing on a near miss)."""

from __future__ import annotations

import numpy as np

from solver.geometry import diagonal, standard
from solver.logic.aic import x_chains, xy_chains
from solver.logic.candidates import Candidates
from solver.logic.chains import simple_colouring
from solver.logic.fish import fish
from solver.logic.intersections import locked_candidates
from solver.logic.single_digit import skyscrapers, turbot_fish, two_string_kites
from solver.logic.singles import full_house, hidden_singles, naked_singles
from solver.logic.subsets import hidden_subsets, naked_subsets
from solver.logic.uniqueness import unique_rectangles
from solver.logic.wings import w_wings, xy_wings, xyz_wings

G = standard(3)


def cell(name: str) -> int:
    r, c = int(name[1]), int(name[3])
    return G.cell_at[(r - 1, c - 1)]


def open_grid(geometry=G) -> Candidates:
    """Every cell empty with every candidate: no unit has a pattern until we draw one."""
    n, size = geometry.n_cells, geometry.size
    return Candidates(geometry, np.zeros(n, np.int8), np.ones((n, size), bool), "123456789"[:size])


def only(grid: Candidates, **cells: str) -> Candidates:
    """Set the candidates of named cells: only(grid, r1c1="12")."""
    for name, digits in cells.items():
        grid.marks[cell(name)] = False
        for d in digits:
            grid.marks[cell(name), int(d) - 1] = True
    return grid


def without(grid: Candidates, digit: int, names) -> Candidates:
    for name in names:
        grid.marks[cell(name), digit - 1] = False
    return grid


def row(r: int, *, but=()) -> list[str]:
    return [f"r{r}c{c}" for c in range(1, 10) if c not in but]


def col(c: int, *, but=()) -> list[str]:
    return [f"r{r}c{c}" for r in range(1, 10) if r not in but]


def named(pairs) -> set[tuple[str, int]]:
    return {(G.cell_name(c), d) for c, d in pairs}


def test_full_house_names_the_missing_digit():
    grid = Candidates.from_values(G, [1, 2, 3, 4, 5, 6, 7, 8, 0] + [0] * 72)
    steps = full_house(grid)
    assert [(G.cell_name(c), d) for s in steps for c, d in s.placements] == [("r1c9", 9)]
    assert "last empty cell of row 1" in steps[0].text


def test_naked_single_places_the_only_candidate():
    grid = only(open_grid(), r4c5="7")
    steps = naked_singles(grid)
    assert [s.placements for s in steps] == [((cell("r4c5"), 7),)]


def test_hidden_single_sentence_names_cell_unit_and_digit():
    grid = without(open_grid(), 7, [n for n in row(4) if n != "r4c5"])
    steps = [s for s in hidden_singles(grid) if s.placements == ((cell("r4c5"), 7),)]
    assert steps and steps[0].text == (
        "r4c5 must be 7: it is the only cell of row 4 that can hold 7"
    )


def test_pointing_removes_digit_from_rest_of_row():
    box1 = [f"r{r}c{c}" for r in (1, 2, 3) for c in (1, 2, 3)]
    grid = without(open_grid(), 4, [n for n in box1 if n not in ("r1c1", "r1c2")])
    steps = [s for s in locked_candidates(grid) if s.technique.endswith("(pointing)")]
    assert steps
    assert named(steps[0].eliminations) == {(n, 4) for n in row(1, but=(1, 2, 3))}


def test_claiming_removes_digit_from_rest_of_box():
    grid = without(open_grid(), 4, row(1, but=(1, 2, 3)))
    steps = [s for s in locked_candidates(grid) if s.technique.endswith("(claiming)")]
    assert steps
    rest_of_box = {f"r{r}c{c}" for r in (2, 3) for c in (1, 2, 3)}
    assert named(steps[0].eliminations) == {(n, 4) for n in rest_of_box}


def test_naked_pair_clears_row_and_shared_box():
    grid = only(open_grid(), r1c1="12", r1c2="12")
    steps = list(naked_subsets(grid, 2))
    gone = named(steps[0].eliminations)
    assert ("r1c9", 1) in gone and ("r1c9", 2) in gone
    assert ("r3c3", 2) in gone  # the pair also shares box 1
    assert not any(n in ("r1c1", "r1c2") for n, _ in gone)
    assert not any(d not in (1, 2) for _, d in gone)


def test_naked_triple_and_quad():
    grid = only(open_grid(), r5c1="12", r5c4="23", r5c8="13")
    step = next(iter(naked_subsets(grid, 3)))
    assert named(step.eliminations) == {(n, d) for n in row(5, but=(1, 4, 8)) for d in (1, 2, 3)}
    grid = only(open_grid(), r1c9="12", r4c9="34", r6c9="1234", r9c9="14")
    step = next(iter(naked_subsets(grid, 4)))
    assert named(step.eliminations) == {
        (n, d) for n in col(9, but=(1, 4, 6, 9)) for d in (1, 2, 3, 4)
    }


def test_hidden_pair_strips_other_digits():
    grid = open_grid()
    for d in (5, 6):
        without(grid, d, row(2, but=(3, 7)))
    steps = list(hidden_subsets(grid, 2))
    assert steps
    assert named(steps[0].eliminations) == {
        (n, d) for n in ("r2c3", "r2c7") for d in (1, 2, 3, 4, 7, 8, 9)
    }


def test_hidden_triple_and_quad():
    grid = open_grid()
    for d in (1, 2, 3):
        without(grid, d, col(4, but=(2, 5, 8)))
    step = next(iter(hidden_subsets(grid, 3)))
    assert named(step.eliminations) == {
        (n, d) for n in ("r2c4", "r5c4", "r8c4") for d in range(4, 10)
    }
    grid = open_grid()
    for d in (6, 7, 8, 9):
        without(grid, d, row(9, but=(1, 3, 5, 7)))
    step = next(iter(hidden_subsets(grid, 4)))
    assert named(step.eliminations) == {
        (n, d) for n in ("r9c1", "r9c3", "r9c5", "r9c7") for d in range(1, 6)
    }


def _fish_grid(digit: int, rows_and_cols: dict[int, tuple[int, ...]]) -> Candidates:
    grid = open_grid()
    for r, cols in rows_and_cols.items():
        without(grid, digit, row(r, but=cols))
    return grid


def test_x_wing_swordfish_jellyfish():
    cases = {
        2: {1: (2, 7), 5: (2, 7)},
        3: {1: (1, 4), 4: (4, 7), 7: (1, 7)},
        4: {1: (1, 2), 3: (2, 5), 6: (5, 8), 8: (1, 8)},
    }
    for k, pattern in cases.items():
        grid = _fish_grid(3, pattern)
        steps = [s for s in fish(grid, k) if s.digits == (3,)]
        assert steps, k
        cols = {c for cs in pattern.values() for c in cs}
        expected = {(f"r{r}c{c}", 3) for c in cols for r in range(1, 10) if r not in pattern}
        assert named(steps[0].eliminations) == expected


def test_fish_works_transposed_and_not_on_a_near_miss():
    grid = open_grid()
    for c in (3, 8):
        without(grid, 6, col(c, but=(2, 9)))
    step = next(iter(fish(grid, 2)))
    assert named(step.eliminations) == {
        (f"r{r}c{c}", 6) for r in (2, 9) for c in range(1, 10) if c not in (3, 8)
    }
    near = _fish_grid(3, {1: (2, 7), 5: (2, 8)})
    assert not list(fish(near, 2))


def test_xy_wing():
    grid = only(open_grid(), r1c1="12", r1c5="13", r5c1="23")
    step = next(iter(xy_wings(grid)))
    assert named(step.eliminations) == {("r5c5", 3)}


def test_xyz_wing():
    grid = only(open_grid(), r1c1="123", r1c5="13", r2c2="23")
    step = next(iter(xyz_wings(grid)))
    assert named(step.eliminations) == {("r1c2", 3), ("r1c3", 3)}


def test_w_wing():
    grid = only(open_grid(), r1c1="12", r5c9="12")
    without(grid, 1, row(3, but=(2, 9)))
    step = next(iter(w_wings(grid)))
    assert named(step.eliminations) == {("r1c9", 2), ("r5c1", 2)}


def _chain_grid() -> Candidates:
    """Digit 1 with conjugate pairs r1c1=r1c5 (row 1), r1c5=r7c5 (column 5),
    r7c5=r7c2 (row 7): r1c1 or r7c2 is 1; r2c2, r3c2 (box 1, column 2) and
    r8c1, r9c1 (column 1, box 7) see both."""
    grid = open_grid()
    without(grid, 1, row(1, but=(1, 5)))
    without(grid, 1, col(5, but=(1, 7)))
    without(grid, 1, row(7, but=(5, 2)))
    return grid


def test_simple_colouring_trap():
    step = next(iter(simple_colouring(_chain_grid())))
    assert named(step.eliminations) == {("r2c2", 1), ("r3c2", 1), ("r8c1", 1), ("r9c1", 1)}


def test_simple_colouring_wrap():
    grid = open_grid()
    # conjugate pairs of 1: r1c1=r1c5, r1c5=r6c5, r6c5=r6c9, r6c9=r8c9, r8c9=r8c4,
    # r8c4=r5c4. Colours alternate: r1c1 A, r1c5 B, r6c5 A, r6c9 B, r8c9 A, r8c4 B,
    # r5c4 A; but r5c4 and r6c5 share box 5, so colour A is false everywhere.
    without(grid, 1, row(1, but=(1, 5)))
    without(grid, 1, col(5, but=(1, 6)))
    without(grid, 1, row(6, but=(5, 9)))
    without(grid, 1, col(9, but=(6, 8)))
    without(grid, 1, row(8, but=(9, 4)))
    without(grid, 1, col(4, but=(8, 5)))
    step = next(iter(simple_colouring(grid)))
    assert named(step.eliminations) == {(n, 1) for n in ("r1c1", "r6c5", "r8c9", "r5c4")}


def test_x_chain():
    step = next(iter(x_chains(_chain_grid())))
    assert named(step.eliminations) == {("r2c2", 1), ("r3c2", 1), ("r8c1", 1), ("r9c1", 1)}
    assert "r1c1(1) = r1c5(1) - r7c5(1) = r7c2(1)" in step.text


def test_skyscraper_is_the_three_link_x_chain_on_two_rows():
    step = next(iter(skyscrapers(_chain_grid())))
    assert step.technique == "skyscraper"
    assert not list(turbot_fish(_chain_grid())) + list(two_string_kites(_chain_grid()))
    assert named(step.eliminations) == {("r2c2", 1), ("r3c2", 1), ("r8c1", 1), ("r9c1", 1)}
    longer = open_grid()
    # r1c1 = r1c5 (row 1) - r7c5 (column 5) = r7c9 (row 7) - r3c9 (column 9) = r3c3 (row 3):
    # five links; the ends share box 1, whose row 2 loses 1. No three links do anything.
    without(longer, 1, row(1, but=(1, 5)))
    without(longer, 1, col(5, but=(1, 7)))
    without(longer, 1, row(7, but=(5, 9)))
    without(longer, 1, col(9, but=(7, 3)))
    without(longer, 1, row(3, but=(9, 3)))
    assert (
        not list(turbot_fish(longer)) + list(skyscrapers(longer)) + list(two_string_kites(longer))
    )
    step = next(iter(x_chains(longer)))
    assert step.technique == "X-chain"
    assert named(step.eliminations) == {("r2c1", 1), ("r2c2", 1), ("r2c3", 1)}


def test_xy_chain():
    grid = only(open_grid(), r1c1="12", r1c5="23", r5c5="34", r5c9="41")
    step = next(iter(xy_chains(grid)))
    assert named(step.eliminations) == {("r1c9", 1), ("r5c1", 1)}


def test_unique_rectangle_type_1_needs_two_boxes():
    grid = only(open_grid(), r1c1="12", r1c2="12", r4c1="12", r4c2="125")
    step = next(iter(unique_rectangles(grid)))
    assert step.technique == "unique rectangle type 1"
    assert named(step.eliminations) == {("r4c2", 1), ("r4c2", 2)}
    four_boxes = only(open_grid(), r1c1="12", r1c4="12", r4c1="12", r4c4="125")
    assert not list(unique_rectangles(four_boxes))


def test_diagonal_units_take_part_in_singles_and_intersections():
    g = diagonal(3)
    grid = open_grid(g)
    main = [g.cell_at[(i, i)] for i in range(9)]
    for c in main[1:]:
        grid.marks[c, 8] = False  # 9 only at r1c1 on the main diagonal
    steps = hidden_singles(grid)
    assert any(s.placements == ((0, 9),) and "main diagonal" in s.text for s in steps)
    grid = open_grid(g)
    for c in main[3:]:
        grid.marks[c, 4] = False  # 5 of the main diagonal locked in box 1
    steps = [s for s in locked_candidates(grid) if s.digits == (5,)]
    box1 = {g.cell_at[(r, c)] for r in range(3) for c in range(3)}
    assert any({c for c, _ in s.eliminations} == box1 - set(main[:3]) for s in steps)


def test_fish_lines_come_from_unit_names_per_grid():
    from solver.geometry import clover, rectangular
    from solver.logic.fish import line_families

    families = line_families(clover())
    assert len(families) == 10  # five 9×9 grids, rows→columns and columns→rows
    assert all(len(base) == 9 and len(cover) == 9 for base, cover, _ in families)
    g = clover()
    for base, cover, cover_of in families:
        prefix = g.unit_names[base[0]].split(" row")[0].split(" column")[0]
        assert all(g.unit_names[u].startswith(prefix) for u in base + cover)
        assert set(cover_of) == {c for u in base for c in g.units[u]}
    diag = line_families(diagonal(3))
    names = {diagonal(3).unit_names[u] for base, cover, _ in diag for u in base + cover}
    assert not any("diagonal" in n for n in names)
    assert len(line_families(rectangular(2, 3))) == 2


def test_x_wing_on_a_clover_grid():
    from solver.geometry import clover

    g = clover()
    grid = Candidates(g, np.zeros(g.n_cells, np.int8), np.ones((g.n_cells, 9), bool), "123456789")
    # bottom-right grid starts at board (12, 12): its rows 2 and 6 hold 5 only in its
    # columns 3 and 8
    for r in (13, 17):
        for c in range(12, 21):
            if c not in (14, 19):
                grid.marks[g.cell_at[(r, c)], 4] = False
    steps = [s for s in fish(grid, 2) if s.digits == (5,)]
    assert steps
    expected = {
        (g.cell_at[(r, c)], 5) for c in (14, 19) for r in range(12, 21) if r not in (13, 17)
    }
    assert set(steps[0].eliminations) == expected
