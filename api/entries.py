"""The user's own marks on a photographed puzzle: their entries, checked, and the next step.

The puzzle is the printed digits alone; what the user wrote by hand is read apart from them
(`vision.kinds`) and never taken as a given. Once the printed digits are solved, every
entry is checked against the solution, and the next logical step is found from what is on
paper and right (the printed digits and the right entries), so a hint never builds on a
mistake.

>>> import numpy as np
>>> solution = np.arange(81) % 9 + 1
>>> entries = np.zeros(81, np.int8); entries[[3, 4]] = [4, 7]   # r1c4 right, r1c5 wrong
>>> [str(m) for m in find_mistakes(entries, solution)]
['r1c5: written 7, should be 5']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from api.correct import cell_name


@dataclass(frozen=True)
class Mistake:
    """A hand-written entry that disagrees with the solution."""

    cell: int
    written: int
    right: int

    @property
    def name(self) -> str:
        return cell_name(self.cell)

    def __str__(self) -> str:
        return f"{self.name}: written {self.written}, should be {self.right}"


@dataclass(frozen=True)
class HandMarks:
    """What the user put on paper, cell by cell.

    Attributes
    ----------
    entries : (81,) int8
        The written digit of each cell, 0 where none (printed cells never have one).
    kinds : str
        81 letters: `.` empty, `p` printed, `w` written, `c` pencil candidates.
    candidates : tuple of int
        The cells holding pencil candidates.
    digits : (81, 9) float, optional
        How likely each digit 1-9 is as what was written (each row sums to 1).
    """

    entries: np.ndarray
    kinds: str
    candidates: tuple[int, ...]
    digits: np.ndarray | None = None


def hand_marks(
    kinds: np.ndarray,
    givens: np.ndarray,
    blobs: np.ndarray | None = None,
    faint: float = 0.9,
    pen: np.ndarray | None = None,
    pen_faint: float = 0.7,
) -> HandMarks:
    """Read the user's marks from the cell model's probabilities, given the printed digits
    the puzzle was solved from (after any correction).

    Parameters
    ----------
    kinds : (81, 20) float
        Class probabilities of `vision.kinds.CLASSES` per cell.
    givens : (81,) int
        The printed digits used for solving, 0 = not printed.
    blobs : (81,) bool, optional
        Where the reader cut a digit-shaped blob (`Cells.ink`). Where it cut none, an entry
        or pencil candidates need the cell model's probability of at least `faint`: faint
        pencil reaches it (on fold 0's held-out photos 86% of the 44 entries and all 17
        candidate cells without a blob did), the show-through of the next page and the
        grain of a blurred photo do not (none of 23 did).
    pen : (81,) bool, optional
        Where only coloured ink makes a blob (`Cells.marked` less `Cells.ink`): red pen on a
        dim photo, which the grey threshold misses. There a written entry needs
        `pen_faint` (pencil candidates are grey and keep `faint`): on the Wicht photos
        (in-sample for the shipped cell model) 23 of the 31 hand digits found so reached
        0.7, and of the 12 blobs of colour noise in printed-only photos none did as
        written (one reached 0.62; one reached 0.83 as candidates).

    Returns
    -------
    HandMarks
        A cell with a printed given is `p`; any other cell is whichever of empty, written
        and candidates is most probable.
    """
    kinds = np.asarray(kinds, np.float64).reshape(81, 20)
    givens = np.asarray(givens).reshape(81)
    other = np.stack(
        [kinds[:, 0], kinds[:, 10:19].sum(axis=1), kinds[:, 19]], axis=1
    )  # empty, written, candidates
    choice = other.argmax(axis=1)
    if blobs is not None:
        chosen = other[np.arange(81), choice]
        need = np.where(np.asarray(blobs, bool).reshape(81), 0.0, faint)
        if pen is not None:  # a pen's entry: candidates are pencil, grey, and keep `faint`
            pen_entry = np.asarray(pen, bool).reshape(81) & (need > 0) & (choice == 1)
            need = np.where(pen_entry, pen_faint, need)
        choice[(choice > 0) & (chosen < need)] = 0
    letters = np.array(list(".wc"))[choice]
    letters[givens > 0] = "p"
    written = letters == "w"
    entries = np.where(written, kinds[:, 10:19].argmax(axis=1) + 1, 0).astype(np.int8)
    candidates = tuple(int(i) for i in np.flatnonzero(letters == "c"))
    digits = kinds[:, 10:19] / np.maximum(kinds[:, 10:19].sum(axis=1, keepdims=True), 1e-12)
    return HandMarks(entries, "".join(letters), candidates, digits)


def find_mistakes(entries: np.ndarray, solution: np.ndarray) -> tuple[Mistake, ...]:
    """Every entry that disagrees with the solution, in reading order.

    Parameters
    ----------
    entries : ndarray of int, 81 values
        The user's own digits, 0 where they wrote none.
    solution : ndarray of int, 81 values

    Returns
    -------
    tuple of Mistake

    Examples
    --------
    >>> solution = np.arange(81) % 9 + 1
    >>> entries = np.zeros(81, int); entries[[3, 5]] = 4, 9
    >>> [(m.cell, m.written, m.right) for m in find_mistakes(entries, solution)]
    [(5, 9, 6)]
    """
    entries = np.asarray(entries).reshape(81)
    solution = np.asarray(solution).reshape(81)
    wrong = np.flatnonzero((entries > 0) & (entries != solution))
    return tuple(Mistake(int(i), int(entries[i]), int(solution[i])) for i in wrong)


# An entry read as the right digit is called right only when no other digit keeps this much
# of the read digit's probability (`unclear_entries`). Over the four folds' held-out
# readings of bench/handwriting.py (8,389 right entries, each also taken as a wrong one
# against every other digit), a wrong entry read as the right digit was called right 57
# times in 67,112 with no such doubt, 8 with 0.1 (2.7% of right entries then unclear),
# 6 with 0.05 (4.7%), 19 with 0.2 (1.4%). Again with the hand model reading three sizes
# and 8,203 right entries (stop 29): 10 of 65,512 with 0.1 (3.3% unclear), 5 with 0.05
# (5.4%), 4 with 0.03 (7.5%); Kubiesa's real pens none of 4,384 with any of them (5.5%,
# 9.3%, 12.7% of its right entries unclear). What is left are misreads the hand model is
# sure of, which no such threshold catches at a price a user would bear.
RIGHT_DOUBT = 0.1


def doubted_right(digits: np.ndarray, read: int) -> bool:
    """Whether a reading of a hand's digit, (9,) probabilities of 1-9, read as `read`,
    gives another digit at least `RIGHT_DOUBT` of the read one's probability.

    >>> doubted_right(np.array([0.85, 0.1, 0, 0, 0, 0, 0.05, 0, 0]), 1)  # a 2 at 12%
    True
    """
    others = np.delete(np.asarray(digits), read - 1)
    return bool(others.max() >= RIGHT_DOUBT * digits[read - 1])


def unclear_entries(marks: HandMarks, solution: np.ndarray, doubt: float = 0.05) -> tuple[int, ...]:
    """The entries whose reading cannot say whether they are right: read as another digit
    than the right one while giving the right digit at least `doubt` of the read digit's
    probability, or read as the right digit while another keeps `RIGHT_DOUBT` of it.

    Calling the first kind wrong would often be the reader's mistake, not the user's: on
    fold 0's held-out hand-filled photos every right entry the hand model misread (20 of
    2,214) gave the right digit at least 0.05 of its first choice, while a wrong entry
    (simulated: each real entry against each other digit) did so 1.65% of the time (the
    threshold was chosen on those fold-0 photos). Calling the second kind right would
    sometimes pass a wrong entry that the reader took for the right digit, the one error
    a user checking their grid cannot catch. So these are neither right nor wrong: they
    are named for the user to look at.

    >>> solution = np.arange(81) % 9 + 1              # row 1 holds 1 to 9
    >>> entries = np.zeros(81, int); entries[[3, 5]] = 5, 6
    >>> digits = np.full((81, 9), 0.001)
    >>> digits[3, 4], digits[3, 3] = 0.8, 0.19   # r1c4 read 5, the right 4 nearly as likely
    >>> digits[5, 5], digits[5, 0] = 0.85, 0.12  # r1c6 read 6, right, but a 1 at 14% of it
    >>> unclear_entries(HandMarks(entries, "." * 81, (), digits), solution)
    (3, 5)
    """
    if marks.digits is None:
        return ()
    solution = np.asarray(solution).reshape(81)
    cells = np.flatnonzero((marks.entries > 0) & (marks.entries != solution))
    read = marks.digits[cells, marks.entries[cells] - 1]
    right = marks.digits[cells, solution[cells] - 1]
    read_right = np.flatnonzero((marks.entries > 0) & (marks.entries == solution))
    doubted = [c for c in read_right if doubted_right(marks.digits[c], int(marks.entries[c]))]
    return tuple(sorted(int(c) for c in [*cells[right >= doubt * read], *doubted]))


def clear_marks(
    probabilities: np.ndarray, kinds: np.ndarray, blobs: np.ndarray, sure: float = 0.9
) -> np.ndarray:
    """(81,) the digit each cell clearly shows on paper, printed or written, 0 where unclear.

    A cell counts when the reader cut a digit-shaped blob there (a smudge or show-through
    never does), it more likely holds a digit than not, and the readers that are sure of
    it name one digit: the printed reading and the hand model each count when one digit has
    at least `sure` of its probability, whichever kind the cell is (a blurred given taken
    for a hand's is still clearly a 1 to the print reader); if they name two, it is unclear.

    Parameters
    ----------
    probabilities : (81, 10) float
        The puzzle's view of each cell (`vision.kinds.printed_probabilities`).
    kinds : (81, 20) float
        Class probabilities of `vision.kinds.CLASSES`.
    blobs : (81,) bool
        Where the reader cut a digit (`Cells.ink`).
    """
    probabilities = np.asarray(probabilities, np.float64).reshape(81, 10)
    kinds = np.asarray(kinds, np.float64).reshape(81, 20)
    printed, written = probabilities[:, 1:], kinds[:, 10:19]

    def sure_digit(p: np.ndarray) -> np.ndarray:
        share = p.max(axis=1) / np.maximum(p.sum(axis=1), 1e-12)
        return np.where(share >= sure, p.argmax(axis=1) + 1, 0)

    by_print, by_hand = sure_digit(printed), sure_digit(written)
    agree = (by_print == 0) | (by_hand == 0) | (by_print == by_hand)
    digit = np.maximum(by_print, by_hand)
    a_digit = kinds[:, 0] + kinds[:, 19] <= 0.5  # neither empty nor candidates
    clear = np.asarray(blobs, bool).reshape(81) & a_digit & agree
    return np.where(clear, digit, 0).astype(np.int8)


def agreeing_solution(givens: np.ndarray, marks: np.ndarray) -> np.ndarray | None:
    """The one solution of the printed digits that agrees with every clear mark, or None.

    When the printed digits as read allow several solutions (a given missed, or taken for
    a hand's), what the paper clearly shows is evidence, not a given: the solution is
    still one of the print's, the marks only choose among them. A wrong entry or a
    misread mark agrees with no solution of the print, and then nothing is chosen.

    >>> line = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
    >>> givens = np.array([int(c) for c in line]); givens[0] = 0      # a given missed
    >>> marks = np.zeros(81, np.int8); marks[0] = 5                  # ... but clear on paper
    >>> agreeing_solution(givens, marks)[:9].tolist()
    [5, 3, 4, 6, 7, 8, 9, 1, 2]
    """
    from solver import parse, solve

    givens = np.asarray(givens).reshape(81)
    both = np.where(givens > 0, givens, np.asarray(marks).reshape(81))
    if (both == givens).all():
        return None
    result = solve(parse("".join(str(int(v)) for v in both)))
    if result.status != "unique":
        return None
    return np.asarray(result.solutions[0]).reshape(81)


def state_on_paper(givens: np.ndarray, entries: np.ndarray, solution: np.ndarray) -> np.ndarray:
    """(81,) the printed digits plus the right entries: where a hint starts from."""
    givens = np.asarray(givens).reshape(81)
    entries = np.asarray(entries).reshape(81)
    right = (entries > 0) & (entries == np.asarray(solution).reshape(81))
    return np.where(givens > 0, givens, np.where(right, entries, 0)).astype(np.int8)


def next_step(givens: np.ndarray, entries: np.ndarray, solution: np.ndarray):
    """The easiest logical step from the state on paper (`solver.logic.hint`), or None when
    the grid is already full.

    The right entries join the printed digits as the starting grid: they keep the same
    unique solution, so every technique, uniqueness ones included, stays sound from there.
    """
    from solver.grid import parse
    from solver.logic import hint

    state = state_on_paper(givens, entries, solution)
    if (state > 0).all():
        return None
    return hint(parse("".join(str(int(v)) for v in state)))
