"""The rules correct the recogniser: crafted probability tables over generated puzzles."""

from __future__ import annotations

import numpy as np
import pytest

from api.correct import PEERS, conflicting_pairs, correct
from samples.synthetic import make_puzzle
from solver.fast import count_solutions_81


def count(values: np.ndarray, limit: int = 2):
    return count_solutions_81(np.ascontiguousarray(values, dtype=np.int8), limit)


def confident(values: np.ndarray, p: float = 0.98) -> np.ndarray:
    """A probability table that believes `values` with probability p everywhere."""
    probs = np.full((81, 10), (1 - p) / 9, dtype=np.float32)
    probs[np.arange(81), values] = p
    return probs


def puzzle(seed: int) -> tuple[np.ndarray, np.ndarray]:
    givens, solution = make_puzzle(np.random.default_rng(seed), 28)
    return givens.reshape(81).astype(np.int8), solution.reshape(81).astype(np.int8)


def misread(givens: np.ndarray, *, conflict: bool, avoid: frozenset = frozenset()):
    """A given cell (not in `avoid`) and a wrong digit for it that makes the board conflict
    (or not) and lose its unique solution."""
    for cell in np.flatnonzero(givens):
        if cell in avoid:
            continue
        for digit in range(1, 10):
            if digit == givens[cell]:
                continue
            read = givens.copy()
            read[cell] = digit
            if bool(conflicting_pairs(read)) == conflict and count(read)[0] != 1:
                return int(cell), digit, read
    raise AssertionError("no such misreading")


@pytest.mark.parametrize("conflict", [True, False])
def test_a_misread_digit_is_fixed_and_reported(conflict):
    givens, solution = puzzle(11 + conflict)
    cell, digit, read = misread(givens, conflict=conflict)
    probs = confident(read)
    probs[cell] = 0.01
    probs[cell, digit], probs[cell, givens[cell]] = 0.55, 0.36

    fix = correct(read, probs.reshape(9, 9, 10))

    assert fix.status == "corrected"
    assert np.array_equal(fix.solution, solution)
    assert [(c.cell, c.read, c.now) for c in fix.changes] == [(cell, digit, givens[cell])]
    assert fix.changes[0].confidence == pytest.approx(0.55)
    assert fix.read_count == (-1 if conflict else count(read)[0])


def test_a_proper_reading_is_left_alone():
    givens, solution = puzzle(3)
    fix = correct(givens, confident(givens))
    assert fix.status == "unique" and fix.changes == () and fix.tried == 0
    assert np.array_equal(fix.solution, solution)


def test_a_faint_digit_read_as_empty_is_restored():
    givens, solution = puzzle(5)
    # drop givens until the board has several solutions: a digit the reader missed
    read = givens.copy()
    for cell in np.flatnonzero(givens):
        read[cell] = 0
        if count(read)[0] > 1:
            break
    probs = confident(read)
    probs[cell] = 0.005  # a clear second choice: 60 times any other digit
    probs[cell, 0], probs[cell, givens[cell]] = 0.6, 0.3

    fix = correct(read, probs)

    assert fix.status == "corrected"
    assert [(c.cell, c.read, c.now) for c in fix.changes] == [(cell, 0, givens[cell])]
    assert np.array_equal(fix.solution, solution)


def test_an_unsure_digit_in_an_empty_cell_is_dropped():
    """Pencil marks or a wrong fill-in, read as a digit the recogniser is unsure of."""
    givens, solution = puzzle(6)
    read = givens.copy()
    cell = int(np.flatnonzero(givens == 0)[0])
    digit = next(d for d in range(1, 10) if (givens[PEERS[cell]] == d).any())  # conflicts
    read[cell] = digit
    probs = confident(read)
    probs[cell] = 0.54 / 8
    probs[cell, digit], probs[cell, 0] = 0.45, 0.01

    fix = correct(read, probs)

    assert fix.status == "corrected"
    assert [(c.cell, c.read, c.now) for c in fix.changes] == [(cell, digit, 0)]
    assert np.array_equal(fix.solution, solution)


def two_solution_board(seed: int):
    """A board with exactly two solutions and a cell where they differ."""
    _, solution = puzzle(seed)
    read = solution.copy()
    for cell in np.random.default_rng(seed).permutation(81):
        read[cell] = 0  # empty a full grid cell by cell until a second solution appears
        n = count(read, 3)[0]
        if n == 2:
            break
        if n > 2:
            read[cell] = solution[cell]
    assert count(read, 3)[0] == 2
    first = count(read)[1]
    for cell in np.flatnonzero(read == 0):
        for digit in range(1, 10):
            if digit != first[cell]:
                trial = read.copy()
                trial[cell] = digit
                if count(trial)[0] == 1:
                    return read, int(cell), int(first[cell]), digit
    raise AssertionError("the two solutions differ nowhere")


def test_an_ambiguous_board_is_reported_not_guessed():
    read, cell, one, other = two_solution_board(8)
    probs = confident(read)
    probs[cell] = 0.02
    probs[cell, 0], probs[cell, one], probs[cell, other] = 0.5, 0.22, 0.22

    fix = correct(read, probs)

    assert fix.status == "ambiguous" and not fix.solved and fix.solution is None
    assert fix.read_count == 2
    assert {c.now for rival in fix.rivals for c in rival if c.cell == cell} == {one, other}


def test_a_clear_winner_among_rivals_is_taken():
    read, cell, one, other = two_solution_board(8)
    probs = confident(read)
    probs[cell] = 0.001
    probs[cell, 0], probs[cell, one], probs[cell, other] = 0.5, 0.49, 0.005

    fix = correct(read, probs)

    assert fix.status == "corrected"
    assert fix.solution[cell] == one and fix.changes[0].now == one


def test_a_proper_but_doubtful_reading_is_refused():
    board, cell, one, other = two_solution_board(9)
    read = board.copy()
    read[cell] = one  # one solution as read, but `other` is nearly as likely
    probs = confident(read)
    probs[cell] = 0.01
    probs[cell, one], probs[cell, other] = 0.5, 0.42

    fix = correct(read, probs)

    assert fix.read_count == 1 and fix.status == "ambiguous" and fix.solution is None
    assert 0.5 < fix.posterior < 0.8

    probs[cell, one], probs[cell, other] = 0.9, 0.02  # now the reading is clearly right
    assert correct(read, probs).status == "unique"


def test_nothing_found_names_the_cells_at_fault():
    givens, _ = puzzle(21)
    first, _, read = misread(givens, conflict=True)
    near = {int(p) for p in PEERS[first]} | {first}
    second, digit, _ = misread(givens, conflict=True, avoid=frozenset(near))
    read[second] = digit  # two misreads far apart: one change cannot mend both

    fix = correct(read, confident(read, 0.9), max_changes=1)

    assert fix.status == "not_found" and fix.solution is None
    assert {first, second} <= set(fix.suspects)
    assert fix.read_count == -1


def test_the_search_is_bounded():
    givens, _ = puzzle(30)
    read = givens.copy()
    read[np.flatnonzero(givens)[:6]] = 0  # many solutions, and every cell is unsure
    probs = np.full((81, 10), 0.1, dtype=np.float32)

    fix = correct(read, probs, max_tries=200, budget_ms=1000)

    assert fix.tried <= 200
    assert fix.status in ("not_found", "ambiguous")
