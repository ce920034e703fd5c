"""The check under the rules and by the odds (issue 37), on crafted readings.

A hand reading that repeats a digit its unit already shows is re-read before anyone is
told they erred; a digit really written twice is said as a double; a confident reading
without a clash is blamed on the person only when the odds of a slip beat those of a
misread by a wide margin; an unclear entry names what it may be.
"""

from __future__ import annotations

import numpy as np
import pytest

from api.photo.correct import PEERS, cell_name, correct
from api.photo.entries import (
    RIGHT_MISS,
    SLIP,
    WRONG_ODDS,
    HandMarks,
    call,
    entry_posterior,
    judge_entries,
)
from api.photo.pipeline import judge, judge_reading
from samples.synthetic import make_puzzle
from vision.calibration import HandRates, InkRates, save_hand

# fixed misread rates for these tests: a floor of 1 in 100,000 per digit, no temperature
RATES = HandRates({"pen": InkRates(1.0, 1e-5), "pencil": InkRates(1.0, 1e-5)})


@pytest.fixture(autouse=True)
def fixed_rates(tmp_path, monkeypatch):
    path = tmp_path / "rates.json"
    save_hand(RATES, path)
    monkeypatch.setenv("SUDOKU_LENS_HAND_RATES", str(path))


@pytest.fixture(scope="module")
def puzzle():
    givens, solution = make_puzzle(np.random.default_rng(37), 28)
    return givens.reshape(81), solution.reshape(81)


def reading(givens, entries: dict[int, dict[int, float]]):
    """(givens (9, 9), printed probabilities, kinds) of a reading whose print is sure and
    whose entries are read as given: cell -> {digit: probability}."""
    kinds = np.full((81, 20), 1e-7)
    for i in range(81):
        if givens[i]:
            kinds[i, givens[i]] = 1.0
        elif i in entries:
            for digit, p in entries[i].items():
                kinds[i, 9 + digit] = p
        else:
            kinds[i, 0] = 1.0
    kinds /= kinds.sum(axis=1, keepdims=True)
    printed = np.empty((81, 10))
    printed[:, 0] = kinds[:, 0] + kinds[:, 10:].sum(axis=1)
    printed[:, 1:] = kinds[:, 1:10]
    return givens.reshape(9, 9), printed, kinds


def checked(givens, entries):
    g, printed, kinds = reading(givens, entries)
    return judge(g, printed, kinds=kinds, mode="check")


def printed_peer_digit(givens, solution, cell) -> int:
    """A digit printed in a peer of `cell` (so not the cell's own digit)."""
    peers = PEERS[cell]
    return int(next(givens[p] for p in peers if givens[p]))


def empties_of_a_row(givens, solution):
    """Two empty cells of one row, the second's peers printing no copy of the first's
    digit (so the only copy of it around the second is the first's entry)."""
    for row in range(9):
        cells = np.arange(9 * row, 9 * row + 9)
        empty = cells[givens[cells] == 0]
        for a in empty:
            for b in empty:
                if a != b and solution[a] not in givens[PEERS[b]]:
                    return int(a), int(b)
    raise AssertionError("no such pair of empty cells")


def test_a_clash_is_resolved_by_the_second_choice(puzzle):
    """A 3 written over an erased 2, read as 2 beside a printed 2: re-read as the 3 it
    most likely is, not called wrong."""
    givens, solution = puzzle
    cell = int(np.flatnonzero(givens == 0)[0])
    shown = printed_peer_digit(givens, solution, cell)
    right = int(solution[cell])
    result = checked(givens, {cell: {shown: 0.7, right: 0.3}})
    assert result.status == "solved"
    assert result.mistakes == () and result.unclear == ()
    assert result.marks.entries[cell] == right
    assert "all 1 entries are right" in result.message


def test_a_clash_between_two_entries_re_reads_the_doubtful_one(puzzle):
    """Two entries of one row read as the same digit: the sure one stands, the other one
    is re-read as its second choice (the other cell of the clash)."""
    givens, solution = puzzle
    sure, doubtful = empties_of_a_row(givens, solution)
    digit = int(solution[sure])
    right = int(solution[doubtful])
    result = checked(givens, {sure: {digit: 1.0}, doubtful: {digit: 0.7, right: 0.3}})
    assert result.mistakes == () and result.unclear == ()
    assert result.marks.entries[sure] == digit and result.marks.entries[doubtful] == right


def test_a_digit_written_twice_is_said_as_a_double(puzzle):
    givens, solution = puzzle
    sure, twice = empties_of_a_row(givens, solution)
    digit = int(solution[sure])
    result = checked(givens, {sure: {digit: 1.0}, twice: {digit: 1.0}})
    assert [m.cell for m in result.mistakes] == [twice] and result.unclear == ()
    double = result.mistakes[0]
    assert double.reason == "clash" and double.partner == sure
    names = [f"r{c // 9 + 1}c{c % 9 + 1}" for c in (twice, sure)]
    said = f"{names[0]} and {names[1]} both hold {digit}"
    assert str(double) == said and said in result.message
    model = result.to_model().mistakes[0]
    assert model.reason == "clash" and model.clash_with == names[1] and model.said == said
    assert model.right is None  # check mode reveals no answer


def test_a_lone_confident_misread_is_unclear_not_the_persons_mistake(puzzle):
    """Read as another digit at 97% with the right one at 3%, clashing with nothing: a
    slip (2% of entries, shared over 8 digits) is not `WRONG_ODDS` (10) times likelier than
    this misread, so the entry is unclear and names both digits; the rest is still judged."""
    givens, solution = puzzle
    empty = np.flatnonzero(givens == 0)
    cell, other = int(empty[0]), int(empty[1])
    right = int(solution[cell])
    seen = {int(v) for v in givens[PEERS[cell]]} | {int(solution[other])}
    wrong = next(d for d in range(1, 10) if d != right and d not in seen)
    result = checked(givens, {cell: {wrong: 0.97, right: 0.03}, other: {int(solution[other]): 1}})
    assert result.mistakes == ()
    assert [m.cell for m in result.unclear] == [cell]
    assert result.unclear[0].alternatives == (right, wrong)  # likeliest first
    name = f"r{cell // 9 + 1}c{cell % 9 + 1}"
    assert f"{name}: {right} or {wrong}?" in result.message
    assert result.to_model().unclear[0].alternatives == [right, wrong]
    sure = checked(givens, {cell: {wrong: 1.0}, other: {int(solution[other]): 1}})
    assert [(m.cell, m.reason) for m in sure.mistakes] == [(cell, "odds")]
    assert sure.unclear == ()


def test_the_odds_on_fixed_numbers():
    """Read 7 (0.9) or 1 (0.1); the solution says 1; 4 is seen in the unit.
    Prior: 1 at 0.98, the slip 0.02 over 2-9, a seen 4 at DOUBLE (0.05) of the others."""
    likelihood = np.array([0.1, 0, 0, 0, 0, 0, 0.9, 0, 0])
    seen = np.zeros(10, bool)
    seen[4] = True
    post = entry_posterior(likelihood, 1, seen)
    slip_7 = SLIP / (7 + 0.05)  # 2, 3, 5, 6, 7, 8, 9 unseen, 4 seen
    expected_7 = slip_7 * 0.9 / (slip_7 * 0.9 + 0.98 * 0.1)
    assert post[6] == pytest.approx(expected_7)
    assert post[0] == pytest.approx(1 - expected_7)
    assert call(post, 1) == "unclear"  # odds 0.26: a misread is likelier
    sure = 0.99 * RIGHT_MISS
    assert call(np.array([1 - sure] + [sure / 8] * 8), 1) == "right"
    just_wrong = 1 / (1 + WRONG_ODDS)
    assert call(np.array([just_wrong * 0.99, 1 - just_wrong * 0.99] + [0] * 7), 1) == "wrong"
    assert call(np.array([just_wrong * 1.01, 1 - just_wrong * 1.01] + [0] * 7), 1) == "unclear"


def test_misread_rates_per_ink_weigh_the_same_reading_differently():
    """The same reading, a 7 at 99.9%, where 1 belongs: with pen's rare misreads it is the
    person's slip, with pencil's frequent ones it is unclear."""
    solution = np.arange(81) % 9 + 1
    entries = np.zeros(81, np.int8)
    entries[0] = 7
    digits = np.full((81, 9), 1e-6)
    digits[0, 6] = 0.999
    inks = np.full(81, "pen", dtype="<U6")
    marks = HandMarks(entries, "w" + "." * 80, (), digits, inks)
    rates = HandRates({"pen": InkRates(1.0, 1e-7), "pencil": InkRates(1.0, 1e-3)})
    values = np.zeros(81, np.int8)
    assert [m.reason for m in judge_entries(marks, values, solution, rates).mistakes] == ["odds"]
    inks[0] = "pencil"
    pencil = judge_entries(
        HandMarks(entries, "w" + "." * 80, (), digits, inks), values, solution, rates
    )
    assert pencil.mistakes == () and [m.cell for m in pencil.unclear] == [0]


def test_correct_asks_the_solver_once_per_grid(puzzle):
    """Issue 32: the search, the probing and the completions reach the same grids; the
    counter is asked once for each."""
    from solver.fast import count_solutions_81

    givens, _ = puzzle
    probs = np.full((81, 10), 0.001)
    probs[np.arange(81), givens] = 0.991
    read = givens.copy()
    cell = int(np.flatnonzero(givens)[0])
    wrong = int(givens[cell]) % 9 + 1
    read[cell] = wrong
    probs[cell] = 0.01
    probs[cell, wrong], probs[cell, givens[cell]] = 0.55, 0.40
    asked: list[bytes] = []

    def counting(grid, limit):
        asked.append(np.asarray(grid, np.int8).tobytes() + bytes([limit]))
        return count_solutions_81(grid, limit)

    fix = correct(read, probs, count=counting)
    assert fix.solved and fix.values[cell] == givens[cell]
    assert len(asked) > 10 and len(asked) == len(set(asked))


def test_the_same_reading_is_corrected_once(puzzle, monkeypatch):
    """Issue 32: a reading corrected a second time asks the solver nothing."""
    import api.photo.correct as module
    from solver.fast import count_solutions_81

    givens, _ = puzzle
    probs = np.full((81, 10), 0.001)
    probs[np.arange(81), givens] = 0.991
    probs[0, 0] = 0.9  # a reading no other test corrects
    asked = []

    def counting(grid, limit):
        asked.append(1)
        return count_solutions_81(grid, limit)

    monkeypatch.setattr(module, "_default_counter", lambda: counting)
    first = correct(givens, probs)
    calls = len(asked)
    again = correct(givens.copy(), probs.copy())
    assert calls > 0 and len(asked) == calls
    assert again.status == first.status and np.array_equal(again.solution, first.solution)


def test_a_doubtful_reading_is_not_cleared_by_a_sharpening_calibration():
    """A fitted temperature below 1 makes every reading surer: right for the many easy
    crops, but a 1 read at 0.76 beside a 4 at 0.11, in a row printing every other digit
    but 4, would pass as a sure 1 had the person written that 4. An entry is called right
    on the model's own readings: this one is unclear; a sure 1 is still right, and a sure
    4 still wrong by the sharpened odds."""
    solution = np.arange(81) % 9 + 1  # row 1 holds 1 to 9
    values = np.zeros(81, np.int8)
    values[[1, 2, 4, 5, 6, 7, 8]] = [2, 3, 5, 6, 7, 8, 9]  # r1c1 sees every digit but 1, 4
    sharpening = HandRates({"pen": InkRates(0.5, 0.0)})

    def judged(reading: dict[int, float], entry: int = 1):
        digits = np.full((81, 9), 1e-4)
        for digit, p in reading.items():
            digits[0, digit - 1] = p
        digits[0] /= digits[0].sum()
        marks = HandMarks(np.where(np.arange(81) == 0, entry, 0), "w" + "." * 80, (), digits)
        return judge_entries(marks, values, solution, sharpening)

    doubtful = judged({1: 0.76, 4: 0.11, 9: 0.03})
    assert doubtful.mistakes == () and [m.cell for m in doubtful.unclear] == [0]
    assert doubtful.unclear[0].alternatives[:2] == (1, 4)
    sure = judged({1: 0.9999})
    assert sure.mistakes == () and sure.unclear == ()
    wrong = judged({4: 0.99}, entry=4)
    assert [(m.cell, m.reason) for m in wrong.mistakes] == [(0, "odds")]


def test_a_wrong_entry_taken_for_print_is_still_called_wrong(puzzle):
    """A person's wrong 7 that the cell model calls print at 0.79 (hand 0.21) stands as a
    given and leaves the puzzle without a solution; the check then doubts it as a given
    by its hand share, solves without it and calls it wrong, not "no solution"."""
    from vision.kinds import printed_probabilities
    from vision.read import Reading

    givens, solution = puzzle
    cell = next(
        int(c)
        for c in np.flatnonzero(givens == 0)
        if any(d != solution[c] and d not in givens[PEERS[c]] for d in range(1, 10))
    )
    wrong = next(d for d in range(1, 10) if d != solution[cell] and d not in givens[PEERS[cell]])
    _, _, kinds = reading(givens, {})
    kinds[cell] = 1e-7
    kinds[cell, wrong], kinds[cell, 9 + wrong] = 0.79, 0.21
    probabilities = printed_probabilities(kinds)
    assert probabilities[cell].argmax() == wrong  # taken for a given, as the reader does
    photo = Reading(
        givens=probabilities.argmax(axis=1).astype(np.int8).reshape(9, 9),
        probabilities=probabilities.astype(np.float32).reshape(9, 9, 10),
        corners=np.float32([[0, 0], [450, 0], [450, 450], [0, 450]]),
        homography=np.eye(3),
        side=450,
        cell_boxes=np.zeros((9, 9, 4), int),
        image=np.zeros((450, 450, 3), np.uint8),
        ink_boxes=np.full((9, 9, 4), np.nan),
        kinds=kinds.astype(np.float32),
    )
    as_print = judge(photo.givens, photo.probabilities, kinds=kinds, mode="check")
    assert not as_print.solved  # what the check said before it doubted the given
    result = judge_reading(photo, {}, mode="check")
    assert result.status == "solved"
    assert result.solution == "".join(map(str, solution))
    assert [(m.cell, m.written) for m in result.mistakes] == [(cell, wrong)]
    name = cell_name(cell)
    assert f"{name}: read {wrong} (79%) as print, judged as your entry" in result.message
    assert f"is wrong ({name})" in result.message and "now empty" not in result.message
