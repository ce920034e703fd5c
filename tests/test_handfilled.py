"""Hand-filled puzzles from crafted readings: the print is the puzzle, entries are checked,
check mode reveals nothing, hint mode gives one step from what is right on paper."""

from __future__ import annotations

import json

import numpy as np
import pytest

from api.photo.entries import find_mistakes, hand_marks, state_on_paper
from api.photo.pipeline import judge
from samples.synthetic import make_puzzle

SURE = 0.98
# a written digit the hand model is sure of: the other digits keep this much of it (a
# calibrated sure reading; `api.photo.entries.judge_entries` calls an entry wrong only then)
OTHER_DIGITS = 1e-7


@pytest.fixture(autouse=True)
def fixed_rates(tmp_path, monkeypatch):
    """Misread rates fixed for these tests (1 in 10^6 per digit), not the shipped ones."""
    from vision.calibration import HandRates, InkRates, save_hand

    path = tmp_path / "rates.json"
    save_hand(HandRates({"pen": InkRates(1.0, 1e-6), "pencil": InkRates(1.0, 1e-6)}), path)
    monkeypatch.setenv("SUDOKU_LENS_HAND_RATES", str(path))


def crafted(givens: np.ndarray, written: np.ndarray, candidates=()) -> tuple:
    """(printed givens, printed probabilities (81, 10), kinds (81, 20)) of a confident
    reading: printed digits, written digits and candidate cells as given."""
    givens = givens.reshape(81)
    written = written.reshape(81)
    kinds = np.full((81, 20), (1 - SURE) / 19, np.float32)
    for i in range(81):
        if givens[i]:
            kinds[i, givens[i]] = SURE
        elif written[i]:
            kinds[i, 10:19] = OTHER_DIGITS
            kinds[i, 9 + written[i]] = SURE
        elif i in candidates:
            kinds[i, 19] = SURE
        else:
            kinds[i, 0] = SURE
    printed = np.empty((81, 10), np.float32)
    printed[:, 0] = kinds[:, 0] + kinds[:, 10:].sum(axis=1)
    printed[:, 1:] = kinds[:, 1:10]
    return givens.reshape(9, 9), printed, kinds


def read(givens, written, candidates=(), mode="solve"):
    """The pipeline's verdict on a crafted reading."""
    printed_givens, printed, kinds = crafted(givens, written, candidates)
    return judge(printed_givens, printed, kinds=kinds, mode=mode)


@pytest.fixture(scope="module")
def puzzle():
    givens, solution = make_puzzle(np.random.default_rng(21), 28)
    return givens.reshape(81), solution.reshape(81)


def entries_of(puzzle, right: int, wrong: int):
    """Written entries in the first empty cells: `right` right ones then `wrong` wrong ones."""
    givens, solution = puzzle
    empty = np.flatnonzero(givens == 0)
    written = np.zeros(81, np.int8)
    written[empty[:right]] = solution[empty[:right]]
    for i in empty[right : right + wrong]:
        written[i] = solution[i] % 9 + 1  # always a different digit
    return written, empty


def test_entries_are_never_givens_and_wrong_ones_are_named(puzzle):
    givens, solution = puzzle
    written, empty = entries_of(puzzle, 10, 2)
    result = read(givens, written, candidates=(empty[12],))
    assert result.status == "solved"
    assert result.givens == "".join(map(str, givens))  # the print alone
    assert result.solution == "".join(map(str, solution))
    assert [m.cell for m in result.mistakes] == [int(empty[10]), int(empty[11])]
    assert all(m.right == solution[m.cell] for m in result.mistakes)
    model = result.to_model()
    assert model.entries == "".join(map(str, written))
    assert model.kinds[empty[12]] == "c" and model.kinds[empty[0]] == "w"
    assert model.kinds[int(np.flatnonzero(givens)[0])] == "p"
    assert [c.index for c in model.candidates] == [int(empty[12])]
    assert "2 of 12 entries are wrong" in result.message


def test_a_finished_grid_that_is_all_right_says_so(puzzle):
    givens, solution = puzzle
    written = np.where(givens == 0, solution, 0).astype(np.int8)
    result = read(givens, written)
    assert result.complete and not result.mistakes and result.cells_left == 0
    assert "finished and every entry is right" in result.message


def test_check_mode_reveals_no_answer(puzzle):
    givens, solution = puzzle
    written, _ = entries_of(puzzle, 5, 3)
    result = read(givens, written, mode="check")
    model = result.to_model()
    text = model.model_dump_json()
    assert model.solution is None and model.mode == "check"
    assert len(model.mistakes) == 3 and all(m.right is None for m in model.mistakes)
    assert model.cells_left == int((givens == 0).sum()) - 5
    assert "".join(map(str, solution)) not in text
    assert '"right":' not in text.replace('"right":null', "")


def test_hint_mode_gives_one_step_from_the_right_entries(puzzle):
    givens, solution = puzzle
    written, _ = entries_of(puzzle, 6, 2)
    result = read(givens, written, mode="hint")
    model = result.to_model()
    assert model.solution is None and model.hint is not None
    assert model.hint.sentence and model.hint.technique
    state = state_on_paper(givens, written, solution)
    for placement in model.hint.placements:  # a placement lands on an open cell, rightly
        r, c = (int(x) - 1 for x in placement["cell"][1:].split("c"))
        assert state[9 * r + c] == 0 and solution[9 * r + c] == placement["digit"]
    json.loads(model.model_dump_json())


def test_hand_marks_prefer_print_only_where_the_puzzle_has_it():
    kinds = np.zeros((81, 20), np.float32)
    kinds[:, 0] = 1
    kinds[0] = 0
    kinds[0, 3] = 0.6  # printed 3 ...
    kinds[0, 12] = 0.4  # ... or written 3
    marks = hand_marks(kinds, np.zeros(81, np.int8))  # the correction dropped the print
    assert marks.kinds[0] == "w" and marks.entries[0] == 3


def test_find_mistakes_ignores_empty_cells():
    solution = np.arange(81) % 9 + 1
    assert find_mistakes(np.zeros(81, np.int8), solution) == ()


def test_an_entry_the_reading_cannot_tell_from_the_right_digit_is_unclear_not_wrong(puzzle):
    """Two entries read as wrong digits: one the hand model was sure of (a mistake), one
    where it gave the right digit a fair chance (unclear: named, neither right nor wrong)."""
    givens, solution = puzzle
    written, empty = entries_of(puzzle, 0, 2)
    printed_givens, printed, kinds = crafted(givens, written)
    doubtful = int(empty[1])
    kinds[doubtful, 9 + solution[doubtful]] = 0.3 * SURE  # the right digit nearly as likely
    kinds[doubtful] /= kinds[doubtful].sum()
    result = judge(printed_givens, printed, kinds=kinds)
    assert [m.cell for m in result.mistakes] == [int(empty[0])]
    assert [m.cell for m in result.unclear] == [doubtful]
    model = result.to_model()
    assert [m.index for m in model.unclear] == [doubtful] and model.unclear[0].written == written[
        doubtful
    ]
    assert "1 unclear" in result.message and "1 of 2 entries is wrong" in result.message
    check = judge(printed_givens, printed, kinds=kinds, mode="check").to_model()
    assert check.unclear[0].right is None  # check mode reveals no answer


def test_an_entry_read_as_the_right_digit_with_another_in_doubt_is_unclear_not_right(puzzle):
    """A wrong entry the reader takes for the right digit is the one error a user checking
    their grid cannot catch: an entry read as the right digit while another digit keeps
    nearly as much of the reading is named unclear, not passed as right."""
    givens, solution = puzzle
    written, empty = entries_of(puzzle, 3, 0)
    printed_givens, printed, kinds = crafted(givens, written)
    doubtful = int(empty[2])
    from api.photo.entries import seen_digits

    seen = seen_digits(givens, written)[doubtful]  # a digit its units do not show
    other = next(d for d in range(1, 10) if d != solution[doubtful] and not seen[d])
    kinds[doubtful, 9 + other] = 0.95 * SURE  # read as the right digit, the other nearly so
    kinds[doubtful] /= kinds[doubtful].sum()
    result = judge(printed_givens, printed, kinds=kinds)
    assert result.mistakes == () and [m.cell for m in result.unclear] == [doubtful]
    assert result.unclear[0].written == solution[doubtful]
    assert "1 unclear" in result.message and "are right" not in result.message
    sure = read(givens, written)
    assert sure.unclear == () and "all 3 entries are right" in sure.message
    check = judge(printed_givens, printed, kinds=kinds, mode="check").to_model()
    assert check.unclear[0].right is None  # check mode reveals no answer


def test_a_missed_given_is_settled_by_what_is_clearly_on_paper():
    """The print as read lacks a given, so it allows several solutions; the cell holds a
    clear digit (a blob, the print reader sure of it, the cell model taking it for a hand's):
    the one solution that agrees with it is the answer, and the givens stay the print's."""
    rng = np.random.default_rng(5)
    for _ in range(50):
        givens, solution = (a.reshape(81) for a in make_puzzle(rng, 24))
        missed = next(
            (
                i
                for i in np.flatnonzero(givens)
                if not is_unique(np.where(np.arange(81) == i, 0, givens))
            ),
            None,
        )
        if missed is not None:
            break
    assert missed is not None
    read_givens = givens.copy()
    read_givens[missed] = 0
    printed_givens, printed, kinds = crafted(read_givens, np.zeros(81, np.int8))
    kinds[missed] = 0.001
    kinds[missed, 9 + givens[missed]] = 0.6  # taken for a hand's
    kinds[missed, givens[missed]] = 0.38
    kinds[missed] /= kinds[missed].sum()
    printed[missed] = 0
    printed[missed, 0] = kinds[missed, 10:].sum() + kinds[missed, 0]
    printed[missed, givens[missed]] = 1 - printed[missed, 0]
    blobs = np.zeros(81, bool)
    blobs[missed] = True
    assert judge(printed_givens, printed, kinds=kinds).status == "multiple_solutions"
    result = judge(printed_givens, printed, kinds=kinds, blobs=blobs)
    assert result.status == "solved", result.message
    assert result.solution == "".join(map(str, solution))
    assert result.givens == "".join(map(str, read_givens))
    assert "evidence, not as givens" in result.message
    blobs[:] = False  # nothing clearly on paper: several solutions, none chosen
    assert judge(printed_givens, printed, kinds=kinds, blobs=blobs).status == "multiple_solutions"


def test_a_doubtful_given_is_settled_by_the_entries_around_it():
    """A printed given read at 50% against a rival digit at 45% that gives another unique
    solution: the print alone is refused; the user's clear entries, which agree with one of
    the two solutions, choose it, as evidence (the givens stay the print's)."""
    from solver import count_solutions, solve
    from solver import parse as parse_puzzle

    givens, solution = (a.reshape(81) for a in make_puzzle(np.random.default_rng(31), 28))
    rival = next(
        (int(c), d)
        for c in np.flatnonzero(givens)
        for d in range(1, 10)
        if d != givens[c]
        and count_solutions("".join(map(str, np.where(np.arange(81) == c, d, givens))), limit=2)
        == 1
    )
    cell, digit = rival
    other = solve(parse_puzzle("".join(map(str, np.where(np.arange(81) == cell, digit, givens)))))
    assert np.any(np.asarray(other.solutions[0]).reshape(81) != solution)
    written = np.where(givens == 0, solution, 0)
    printed_givens, printed, kinds = crafted(givens, written)
    printed[cell] = 0.005
    printed[cell, givens[cell]], printed[cell, digit] = 0.5, 0.45
    assert judge(printed_givens, printed, kinds=kinds).status == "unreadable"
    blobs = (givens > 0) | (written > 0)
    result = judge(printed_givens, printed, kinds=kinds, blobs=blobs)
    assert result.status == "solved", result.message
    assert result.solution == "".join(map(str, solution))
    assert result.givens == "".join(map(str, givens))
    assert "evidence, not as givens" in result.message and not result.mistakes


def is_unique(givens) -> bool:
    from solver import count_solutions

    return count_solutions("".join(map(str, givens)), limit=2) == 1


def test_show_through_without_a_blob_is_no_entry():
    """A cell model 80% sure of a written 3 where the reader cut no digit: show-through or
    grain, not an entry; at 95% (a faint pencil digit) it is one."""
    kinds = np.zeros((81, 20), np.float32)
    kinds[:, 0] = 1
    kinds[5] = 0
    kinds[5, 12], kinds[5, 0] = 0.8, 0.2
    kinds[6] = 0
    kinds[6, 12], kinds[6, 0] = 0.95, 0.05
    blobs = np.zeros(81, bool)
    marks = hand_marks(kinds, np.zeros(81, np.int8), blobs)
    assert marks.kinds[5] == "." and marks.kinds[6] == "w" and marks.entries[6] == 3
    assert hand_marks(kinds, np.zeros(81, np.int8)).kinds[5] == "w"  # without blobs: as before


def test_a_blob_of_coloured_pen_lowers_the_bar_for_an_entry():
    """Red pen the grey threshold missed but the colour look found (`pen`): the cell model
    at 80% is an entry there, while without any blob it is not; at 60% it is not either."""
    kinds = np.zeros((81, 20), np.float32)
    kinds[:, 0] = 1
    for cell, share in ((5, 0.8), (6, 0.6)):
        kinds[cell] = 0
        kinds[cell, 12], kinds[cell, 0] = share, 1 - share
    blobs, pen = np.zeros(81, bool), np.zeros(81, bool)
    pen[[5, 6]] = True
    assert hand_marks(kinds, np.zeros(81, np.int8), blobs).kinds[5] == "."
    marks = hand_marks(kinds, np.zeros(81, np.int8), blobs, pen=pen)
    assert marks.kinds[5] == "w" and marks.entries[5] == 3 and marks.kinds[6] == "."
    kinds[7] = 0
    kinds[7, 19], kinds[7, 0] = 0.8, 0.2  # pencil candidates are grey: a pen blob is no help
    pen[7] = True
    assert hand_marks(kinds, np.zeros(81, np.int8), blobs, pen=pen).kinds[7] == "."
