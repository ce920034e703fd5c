"""Soundness on real puzzles: every step `all_steps` offers at a state of `explain` agrees
with the solution.

Puzzles are drawn from every set in ``../shared/puzzles`` (easy, 17-clue, top1465, the
two "hardest" lists) with a fixed seed; each is explained and, at its explain states,
every placement and elimination of every step of every technique is checked against the
puzzle's unique solution. The test runs a small fixed sample so the suite stays quick;
``bench/soundness.py`` runs the same check over 2,000 puzzles and prints the counts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from solver.grid import parse
from solver.logic.explain import TECHNIQUE_NAMES, all_steps, explain

SHARED = Path(__file__).resolve().parents[2] / "shared"
PUZZLES = SHARED / "puzzles"
SETS = ("kaggle_style10000", "17clue", "top1465", "hardest1106", "hardest11plus1000")


def draw(per_set: int, seed: int = 18, root: Path = PUZZLES, sets=SETS) -> list[tuple[str, str]]:
    """(set name, puzzle line): `per_set` puzzles from every set, the same on every run. A
    set smaller than that gives all it has and the next set makes up the difference."""
    chosen = []
    owed = 0
    for name in sets:
        lines = (root / f"{name}.txt").read_text().split()
        take = min(per_set + owed, len(lines))
        owed = per_set + owed - take
        for line in random.Random(f"{seed}-{name}").sample(lines, take):
            chosen.append((name, line))
    return chosen


@dataclass
class Tally:
    puzzles: int = 0
    states: int = 0
    steps: int = 0
    changes: int = 0
    wrong: list = field(default_factory=list)  # (puzzle, state index, technique, bad)

    def add(self, other: Tally) -> None:
        self.puzzles += other.puzzles
        self.states += other.states
        self.steps += other.steps
        self.changes += other.changes
        self.wrong += other.wrong


def check_puzzle(line: str, stride: int = 1, techniques=TECHNIQUE_NAMES) -> Tally:
    """Explain `line`; at every `stride`-th state (the first always) run `all_steps` and
    check each of its placements and eliminations against the solution."""
    e = explain(parse(line), keep_snapshots=True)
    solution = e.solution
    tally = Tally(puzzles=1)
    for k, state in enumerate(e.snapshots):
        if k % stride:
            continue
        tally.states += 1
        for step in all_steps(state.copy(), techniques, unique=e.unique):
            bad = [(c, d) for c, d in step.placements if solution[c] != d]
            bad += [(c, d) for c, d in step.eliminations if solution[c] == d]
            tally.steps += 1
            tally.changes += step.changes
            if bad:
                tally.wrong.append((line, k, step.technique, bad))
    return tally


@pytest.mark.skipif(not PUZZLES.is_dir(), reason="../shared not present (puzzle sets)")
def test_every_step_at_explain_states_agrees_with_the_solution():
    """A fixed sample: one puzzle of every set, every fifth state, every technique but
    forcing chains and nets (sound by construction: they follow singles; their explain
    steps are checked in test_logic_explain.py, the nets' on library states too) and the
    mutant squirmbags and whales (a quarter of a second a state; checked on the library's
    states in test_logic_reglib.py) so the test stays within a minute or two."""
    names = [
        n for n in TECHNIQUE_NAMES if n not in ("forcing chain", "forcing net", "large mutant fish")
    ]
    total = Tally()
    for _, line in draw(1):
        total.add(check_puzzle(line, stride=5, techniques=names))
    assert total.states >= 30 and total.steps > 600, (total.states, total.steps)
    assert not total.wrong, total.wrong[:3]
