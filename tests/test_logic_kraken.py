"""Kraken fish (`solver.logic.kraken`): a finned fish whose fins are followed by chains.

The state below is where `explain` got stuck on top1465's first puzzle before kraken fish
(every other pattern finds nothing there; it went on with a forcing chain): kraken fish
must make progress there, soundly, and `hint` must offer it before a forcing chain."""

from __future__ import annotations

from solver.grid import Puzzle
from solver.logic.explain import TECHNIQUE_NAMES, all_steps, hint, solutions
from solver.logic.kraken import POOLS, SIZES, _compiled, _python, fish_bodies, kraken_fish
from solver.logic.pencilmarks import read_pencilmarks

# top1465 #1 (4...3....) where every technique short of forcing chains was stuck
STUCK = (
    ":0000::4...3.......6..8..........1....5..9..8....6...7.2........1+927..5+13...+94+29+2+7.+4."
    "+1..:513 913 516 916 518 523 923 126 726 228 729 533 933 237 538 643 444 446 447 449 153 "
    "253 453 354 754 459 163 463 663 466 678 878 679 879 894 696 896 398 598 399 599::"
)
LAST_RESORT = ("kraken fish", "forcing chain", "forcing net", "template set", "template delete")


def stuck_state():
    grid = read_pencilmarks(STUCK)
    solution = solutions(Puzzle(grid.geometry, grid.values, grid.alphabet), limit=1)[0]
    return grid, solution


def test_nothing_short_of_kraken_fish_moves_there():
    grid, _ = stuck_state()
    names = [n for n in TECHNIQUE_NAMES if n not in LAST_RESORT]
    assert all_steps(grid, names, unique=True) == []


def test_kraken_fish_makes_sound_progress_where_everything_else_is_stuck():
    grid, solution = stuck_state()
    steps = list(kraken_fish(grid))
    assert steps
    for step in steps:
        assert step.eliminations and not step.placements
        assert all(solution[c] != d for c, d in step.eliminations), step.text
    # the first: a finned X-wing on 3 (rows 2 and 7, columns 8 and 9, fins r2c1, r2c2)
    first = steps[0]
    assert {(grid.name(c), d) for c, d in first.eliminations} == {("r4c9", 3)}
    assert "finned X-wing on 3" in first.text and "r2c1 and r2c2" in first.text


def test_hint_offers_the_kraken_fish_before_a_forcing_chain():
    grid, _ = stuck_state()
    step = hint(grid)
    assert step is not None and step.technique == "kraken fish"


def test_a_fish_body_is_its_fins_and_each_cover_units_base_places():
    grid, _ = stuck_state()
    names = grid.geometry.unit_names
    fish = {
        (tuple(names[u] for u in base), tuple(sorted(names[u] for u in covers))): (fins, bodies)
        for base, covers, fins, bodies in fish_bodies(grid, 3, 2, 0)
    }
    fins, bodies = fish[("row 2", "row 7"), ("column 8", "column 9")]
    assert [grid.name(c) for c in fins] == ["r2c1", "r2c2"]
    in_cover = [[grid.name(c) for c in range(81) if body >> c & 1] for body in bodies]
    assert sorted(in_cover) == [["r2c8", "r7c8"], ["r2c9", "r7c9"]]


def test_compiled_search_finds_what_the_python_search_finds():
    grid, _ = stuck_state()
    for k in SIZES:
        for pool in POOLS:
            for d in range(1, 10):
                holding = sum(1 << c for c in range(81) if grid.marks[c, d - 1])
                places = {u: m & holding for u, m in enumerate(grid.layout.unit_mask)}
                places = {u: m for u, m in places.items() if grid.layout.kind[u] != "other"}
                bases = [
                    u
                    for u in places
                    if grid.layout.kind[u] in pool[0] and 2 <= places[u].bit_count() <= k + 2
                ]
                compiled = list(_compiled(grid, holding, bases, k, pool))
                python = list(_python(grid, places, bases, k, pool))
                assert {(b, frozenset(c), f) for b, c, f in compiled} == {
                    (b, frozenset(c), f) for b, c, f in python
                }, (k, pool, d)
