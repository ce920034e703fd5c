"""Forcing nets: every candidate supposed true and false, singles followed, and what breaks
the grid or what every case leads to read off (contradiction and verity)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from solver.geometry import standard
from solver.grid import parse
from solver.logic.candidates import Candidates
from solver.logic.explain import explain
from solver.logic.forcing import forcing_nets

# top1465 (magictour), puzzle 260: its explanation reaches for a forcing chain at step 25
NEEDS_FORCING = "..8.9.1...6.5...2......6....3.1.7.5.........9..4...3...5....2...7...3.8.2..7....4"


def first_forcing_state():
    e = explain(parse(NEEDS_FORCING), keep_snapshots=True)
    k = next(i for i, s in enumerate(e.steps) if s.technique.startswith("forcing chain"))
    return e.snapshots[k], e.solution


def test_every_net_step_agrees_with_the_solution_and_each_kind_is_found():
    grid, solution = first_forcing_state()
    steps = list(forcing_nets(grid.copy()))
    kinds = Counter(s.technique for s in steps)
    assert set(kinds) == {
        "forcing net (contradiction)",
        "forcing net (either way)",
        "forcing net (cell)",
        "forcing net (unit)",
    }
    for step in steps:
        assert all(solution[c] == d for c, d in step.placements), step.text
        assert all(solution[c] != d for c, d in step.eliminations), step.text
        assert step.placements or step.eliminations


def test_either_way_names_what_both_cases_lead_to():
    grid, _ = first_forcing_state()
    either = [s for s in forcing_nets(grid.copy()) if s.technique == "forcing net (either way)"]
    step = next(s for s in either if s.text.startswith("r1c1 is 5 or not"))
    named = {(grid.name(c), d) for c, d in step.eliminations}
    assert named == {("r5c1", 5), ("r6c1", 6)}
    assert "if it is: r1c1=5" in step.text and "if not: r1c1=7" in step.text


def test_a_candidate_whose_removal_breaks_the_grid_is_placed():
    """Row 1 has no place for 5 but r1c1: supposing r1c1 is not 5 leaves row 1 without a
    5, so the net places it (a contradiction of the supposition "false")."""
    g = standard(3)
    grid = Candidates(g, np.zeros(81, np.int8), np.ones((81, 9), bool), "123456789")
    grid.marks[1:9, 4] = False
    steps = [s for s in forcing_nets(grid) if s.placements == ((0, 5),)]
    assert steps and steps[0].technique == "forcing net (contradiction)"
    assert "suppose r1c1 is not 5" in steps[0].text and "so r1c1 is 5" in steps[0].text


def test_explain_tries_nets_only_after_forcing_chains():
    """Forcing chains come first (HoDoKu's order); a net is the last logic before a guess."""
    from solver.logic.explain import TECHNIQUE_NAMES

    names = list(TECHNIQUE_NAMES)
    assert names.index("forcing chain") < names.index("forcing net") < names.index("template set")
    e = explain(parse(NEEDS_FORCING), techniques=[n for n in names if n != "forcing chain"])
    used = [s.technique for s in e.steps]
    assert any(t.startswith("forcing net") for t in used)
    assert e.solved_by_logic
