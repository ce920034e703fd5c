"""Finned and sashimi fish: exact eliminations on crafted grids, 9x9 and 16x16."""

from __future__ import annotations

import numpy as np

from solver.geometry import standard
from solver.logic import all_steps
from solver.logic.candidates import Candidates
from solver.logic.fish import finned_fish
from tests.test_logic_reglib import library_cases, needs_library


def open_grid(n: int) -> Candidates:
    g = standard(n)
    size = g.size
    return Candidates(g, np.zeros(g.n_cells, np.int8), np.ones((g.n_cells, size), bool), "0" * size)


def keep_in_row(grid: Candidates, digit: int, row: int, cols: set[int]) -> None:
    """Digit `digit` may stay in `row` only at `cols` (0-based)."""
    g = grid.geometry
    for c in range(g.cols):
        if c not in cols:
            grid.marks[g.cell_at[(row, c)], digit - 1] = False


def finned_eliminations(grid: Candidates, technique: str) -> set[tuple[tuple[int, int], int]]:
    g = grid.geometry
    found = set()
    for step in all_steps(grid, [technique], unique=True):
        found |= {(g.positions[c], d) for c, d in step.eliminations}
    return found


def test_finned_x_wing_on_16x16_removes_only_cells_seeing_the_fin():
    grid = open_grid(4)  # 16x16, boxes 4x4
    keep_in_row(grid, 1, 0, {0, 6})
    keep_in_row(grid, 1, 1, {0, 1, 6})  # r2c2 is the fin, in box 1 with r2c1
    steps = [s for s in all_steps(grid, ["finned X-wing"], unique=True) if s.digits == (1,)]
    wanted = {((2, 0), 1), ((3, 0), 1)}  # column 1 inside box 1, below the base rows
    g = grid.geometry
    assert any({(g.positions[c], d) for c, d in s.eliminations} == wanted for s in steps)
    assert all(s.technique in ("finned X-wing", "sashimi X-wing", "Siamese X-wing") for s in steps)


def test_sashimi_x_wing_is_named_and_sound():
    grid = open_grid(3)
    keep_in_row(grid, 5, 0, {0, 6})
    keep_in_row(grid, 5, 3, {0, 7, 8})  # no 5 at r4c7: sashimi, fins r4c8 and r4c9
    g = grid.geometry
    steps = [s for s in all_steps(grid, ["finned X-wing"], unique=True) if s.digits == (5,)]
    sashimi = [s for s in steps if s.technique == "sashimi X-wing"]
    assert any(
        {(g.positions[c], d) for c, d in s.eliminations} == {((4, 6), 5), ((5, 6), 5)}
        for s in sashimi
    )


def test_no_fin_no_finned_fish():
    grid = open_grid(3)
    keep_in_row(grid, 2, 0, {0, 6})
    keep_in_row(grid, 2, 3, {0, 6})  # a plain X-wing: not finned
    steps = [s for s in all_steps(grid, ["finned X-wing"], unique=True) if s.digits == (2,)]
    assert not any({grid.geometry.positions[c][1] for c in s.cells} <= {0, 6} for s in steps)


@needs_library
def test_two_finned_fish_on_the_same_base_lines_make_one_siamese_step():
    """HoDoKu's Siamese swordfish (reglib line 590): a finned and a sashimi swordfish on
    rows 1, 4 and 8 for 5, each making part of the eliminations; the Siamese step makes all."""
    case = dict(library_cases())[590]
    steps = list(finned_fish(case.grid.copy(), 3))
    siamese = [s for s in steps if s.technique == "Siamese swordfish"]
    assert [set(s.eliminations) for s in siamese] == [case.eliminations]
    assert all(set(s.eliminations) < case.eliminations for s in steps if s not in siamese)


def test_remembered_digit_searches_give_what_a_fresh_search_gives():
    """Each digit's finned fish are remembered by its places between states: along an
    explanation, every state's finned fish (some digits remembered, some searched) are
    those of a search from nothing, in the same order, with the same words."""
    from solver.grid import parse
    from solver.logic import fish as fish_module
    from solver.logic.explain import explain

    def said(grid, k):
        return [(s.technique, s.text, s.eliminations) for s in finned_fish(grid, k)]

    e = explain(
        parse("4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"),
        keep_snapshots=True,
    )
    checked = 0
    for grid in e.snapshots[::4]:
        for k in (2, 3):
            remembered = said(grid, k)
            fish_module._BY_DIGIT.clear()
            assert remembered == said(grid, k)
            checked += bool(remembered)
    assert checked


def test_the_clover_is_not_searched_for_franken_mutant_or_kraken_fish(shared_dir):
    """The clover's five grids (369 cells) took the Franken search eight minutes at the
    first state of the seed documents' clover: those searches leave it out, as they leave
    out boards above 9x9 (the other techniques list hundreds of steps there)."""
    import re

    from solver.grid import parse
    from solver.logic import explain

    text = (shared_dir / "puzzles" / "seed_examples.md").read_text()
    board = re.findall(r"```\n(.*?)```", text, re.S)[2]
    state = explain(parse(board, variant="clover"), keep_snapshots=True).snapshots[0]
    assert all_steps(state, ["Franken fish", "mutant fish", "kraken fish"], unique=True) == []
    assert len(all_steps(state, ["ALS-XZ"], unique=True)) > 100
