"""Templates (solver/logic/templates.py): the arrangements of a digit's nine copies that fit
the grid, checked on hand-made pencil marks and against a plain search written here."""

from __future__ import annotations

import numpy as np
import pytest

from solver.geometry import standard
from solver.logic.candidates import Candidates
from solver.logic.fish import fish
from solver.logic.templates import all_templates, template_deletes, template_sets
from tests.test_logic_reglib import REGLIB, library_cases

G = standard(3)
# one arrangement of nine digits: row r holds it in column PLAIN[r]
PLAIN = (0, 3, 6, 1, 4, 7, 2, 5, 8)


def open_grid(geometry=G) -> Candidates:
    n, size = geometry.n_cells, geometry.size
    alphabet = "123456789ABCDEFG"[:size]
    return Candidates(geometry, np.zeros(n, np.int8), np.ones((n, size), bool), alphabet)


def at(r: int, c: int) -> int:
    return G.cell_at[(r, c)]


def test_there_are_46656_templates_each_one_digit_per_row_column_and_box():
    templates = all_templates()
    assert templates.shape == (46656, 9)
    assert len({tuple(t) for t in templates.tolist()}) == 46656
    rows = np.arange(9)
    for t in templates[::97]:
        assert sorted(t) == list(range(9))
        assert len(set((rows // 3) * 3 + t // 3)) == 9


def test_nothing_on_an_open_grid():
    grid = open_grid()
    assert list(template_deletes(grid)) == []
    assert list(template_sets(grid)) == []


def test_an_x_wing_is_a_template_delete():
    """1 only in columns 1 and 5 of rows 1 and 5: every arrangement of the 1s puts them
    on those corners, so the rest of columns 1 and 5 loses 1, as the X-wing says."""
    grid = open_grid()
    for r in (0, 4):
        grid.marks[[at(r, c) for c in range(9) if c not in (0, 4)], 0] = False
    steps = list(template_deletes(grid))
    assert [s.digits for s in steps] == [(1,)]
    expected = {(at(r, c), 1) for c in (0, 4) for r in range(9) if r not in (0, 4)}
    assert set(steps[0].eliminations) == expected
    assert {e for s in fish(grid, 2) for e in s.eliminations} == expected
    assert steps[0].technique == "template delete"
    assert "removes 1 from r2c1" in steps[0].text


def test_the_cells_two_arrangements_share_are_set():
    """1 possible only on two arrangements that differ in rows 1 and 2: the other seven
    cells are 1 in both, and no candidate of 1 is outside both."""
    grid = open_grid()
    swapped = (3, 0) + PLAIN[2:]
    grid.marks[:, 0] = False
    for cols in (PLAIN, swapped):
        grid.marks[[at(r, c) for r, c in enumerate(cols)], 0] = True
    sets = list(template_sets(grid))
    assert [s.digits for s in sets] == [(1,)]
    assert set(sets[0].placements) == {(at(r, PLAIN[r]), 1) for r in range(2, 9)}
    assert "2 arrangements" in sets[0].text
    deletes = list(template_deletes(grid))
    assert not any(s.digits == (1,) for s in deletes)  # every 1 is on one of the two
    # the seven cells are 1: no other digit has an arrangement through them
    gone = {e for s in deletes for e in s.eliminations}
    assert {(at(2, PLAIN[2]), d) for d in range(2, 10)} <= gone


def test_a_cell_another_digit_must_take_is_not_for_this_one():
    """2 fits only PLAIN, so r1c1 is 2. On its own, 1 fits two arrangements, OTHER and
    one through r1c1 (OTHER with rows 1 and 7 swapped); the second is dropped, and with it
    1 from r1c1 and r7c2."""
    other = PLAIN[3:] + PLAIN[:3]  # no cell in common with PLAIN
    through = (0,) + other[1:6] + (1,) + other[7:]
    grid = open_grid()
    grid.marks[:, :2] = False
    grid.marks[[at(r, c) for r, c in enumerate(PLAIN)], 1] = True
    for cols in (other, through):
        grid.marks[[at(r, c) for r, c in enumerate(cols)], 0] = True
    by_digit = {s.digits: s for s in template_deletes(grid)}
    assert set(by_digit[(1,)].eliminations) == {(at(0, 0), 1), (at(6, 1), 1)}
    assert "only one arrangement" in by_digit[(1,)].text
    placed = {p for s in template_sets(grid) for p in s.placements}
    assert {(at(r, c), 1) for r, c in enumerate(other)} <= placed
    assert {(at(r, c), 2) for r, c in enumerate(PLAIN)} <= placed


def test_not_on_other_boards():
    for geometry in (standard(2), standard(4)):
        grid = open_grid(geometry)
        grid.marks[:, 0] = False
        grid.marks[0, 0] = True
        assert list(template_deletes(grid)) == [] and list(template_sets(grid)) == []


# -- against a plain search ---------------------------------------------------------------


def _arrangements(allowed: set[int]) -> list[frozenset[int]]:
    """Every set of nine allowed cells, one per row, column and box (row by row)."""
    found = []

    def walk(r, cells, columns, boxes):
        if r == 9:
            found.append(frozenset(cells))
            return
        for c in range(9):
            box = r // 3 * 3 + c // 3
            if at(r, c) in allowed and c not in columns and box not in boxes:
                walk(r + 1, [*cells, at(r, c)], columns | {c}, boxes | {box})

    walk(0, [], frozenset(), frozenset())
    return found


def _expected(grid: Candidates) -> tuple[set, set]:
    """(eliminations, placements) from arrangements found cell by cell, dropping those
    through a cell all of another digit's arrangements use, until none drops."""
    per_digit = {
        d: _arrangements({c for c in range(81) if grid.values[c] == d or grid.marks[c, d - 1]})
        for d in range(1, 10)
    }
    while True:
        musts = {d: frozenset.intersection(*a) if a else frozenset() for d, a in per_digit.items()}
        kept = {
            d: [a for a in arr if not any(a & musts[e] for e in musts if e != d)]
            for d, arr in per_digit.items()
        }
        if kept == per_digit:
            break
        per_digit = kept
    gone, placed = set(), set()
    for d, arr in per_digit.items():
        if not arr:
            continue
        used = frozenset.union(*arr)
        gone |= {(c, d) for c in range(81) if grid.marks[c, d - 1] and c not in used}
        placed |= {(c, d) for c in frozenset.intersection(*arr) if grid.values[c] == 0}
    return gone, placed


@pytest.mark.skipif(not REGLIB.is_file(), reason="../shared not present")
def test_library_states_agree_with_a_plain_search_and_deletes_leave_nothing():
    states = [c.grid for _, c in library_cases() if c.code in ("1201", "1202")][::3]
    assert states
    for grid in states:
        gone, placed = _expected(grid)
        deletes = list(template_deletes(grid))
        sets = list(template_sets(grid))
        assert {e for s in deletes for e in s.eliminations} == gone
        assert {p for s in sets for p in s.placements} == placed
        assert gone or placed
        # deleting what no arrangement uses changes no arrangement: nothing more to find
        after = grid.copy()
        for step in deletes:
            after.apply(step)
        assert list(template_deletes(after)) == []
