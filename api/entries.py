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
    """

    entries: np.ndarray
    kinds: str
    candidates: tuple[int, ...]


def hand_marks(kinds: np.ndarray, givens: np.ndarray) -> HandMarks:
    """Read the user's marks from the cell model's probabilities, given the printed digits
    the puzzle was solved from (after any correction).

    Parameters
    ----------
    kinds : (81, 20) float
        Class probabilities of `vision.kinds.CLASSES` per cell.
    givens : (81,) int
        The printed digits used for solving, 0 = not printed.

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
    letters = np.array(list(".wc"))[choice]
    letters[givens > 0] = "p"
    written = letters == "w"
    entries = np.where(written, kinds[:, 10:19].argmax(axis=1) + 1, 0).astype(np.int8)
    candidates = tuple(int(i) for i in np.flatnonzero(letters == "c"))
    return HandMarks(entries, "".join(letters), candidates)


def find_mistakes(entries: np.ndarray, solution: np.ndarray) -> tuple[Mistake, ...]:
    """Every entry that disagrees with the solution, in reading order."""
    entries = np.asarray(entries).reshape(81)
    solution = np.asarray(solution).reshape(81)
    wrong = np.flatnonzero((entries > 0) & (entries != solution))
    return tuple(Mistake(int(i), int(entries[i]), int(solution[i])) for i in wrong)


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
