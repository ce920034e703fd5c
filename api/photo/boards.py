"""A board other than the plain 9x9 (6x6, 16x16, diagonal), judged: corrected by its own
rules, solved, and drawn back.

The 9x9's correction (`api.photo.correct`) weighs its readings against the rules of the
plain 9x9. A board of another size or with diagonals has its own units, so its reading is
weighed here against the solver's own geometry (`solver.geometry`): when the symbols read
do not make a puzzle of one solution, the cheapest few re-readings by the reader's own
odds (a doubtful symbol dropped or read as its second likeliest, a missed one added where
ink was seen) are tried, fewest and likeliest first, and the first that makes one
solution is taken. Every door (CLI, JSON, HTTP, the phone page) gets a `PhotoResult` like
the 9x9's, its `size`, `variant` and `convention` saying which board it was, its givens
and solution in the text format `sudoku-lens grid` reads for that board.

>>> from solver import generate
>>> made = generate(None, size=6, seed=1)[0]
>>> values = made.puzzle.values.astype(np.int8)
>>> sure = np.eye(7, dtype=np.float32)[values]          # every cell read for sure
>>> fix = correct_board(values, sure, geometry_of(6, "standard"))
>>> fix.status, fix.changes
('solved', ())
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass

import numpy as np

from api.photo.correct import Change, cell_name
from api.photo.pipeline import PhotoResult
from solver import Puzzle, count_solutions, format_line, solve
from solver.geometry import Geometry, diagonal, for_size

# No puzzle of these sizes has one solution with fewer givens (a 6x6 needs 8, a diagonal
# 9x9 12, a 16x16 some 55): fewer read means the photo was not read.
MIN_GIVENS = {6: 8, 9: 12, 16: 55}
DOUBTED = 10  # the least sure symbols read, and as many inked empty cells, may be re-read
MAX_CHANGES = 3
MAX_TRIES = 400  # re-readings counted before the reading is called unclear
# A re-reading that solves must beat every other that solves otherwise by these log odds
# (30 to 1), or the photo is too unclear to say which (as the 9x9's correction does)
RIVAL = math.log(30)


def geometry_of(size: int, variant: str) -> Geometry:
    """The solver's board: a diagonal sudoku's units include its two diagonals.

    >>> geometry_of(16, "diagonal").name, geometry_of(6, "standard").box_shape
    ('diagonal 16x16', (2, 3))
    """
    if variant == "diagonal":
        return diagonal(math.isqrt(size))
    return for_size(size)


def board_line(values: np.ndarray, geometry: Geometry, alphabet: str) -> str:
    """A board's values as `sudoku-lens grid` reads it: one line, '.' for empty."""
    return format_line(Puzzle(geometry, np.asarray(values, np.uint8).ravel(), alphabet))


def solver_alphabet(size: int, convention: str | None) -> str:
    """The alphabet a board's lines are written in: 0-F for a 16x16 printed so, else the
    solver's default (a 16x16's 1-9A-G also stands for 1-16 and A-P)."""
    if size == 16:
        return "0123456789ABCDEF" if convention == "0-F" else "123456789ABCDEFG"
    return "123456789"[:size]


@dataclass(frozen=True)
class BoardFix:
    """status: solved, invalid_givens, no_solution, multiple_solutions or unreadable;
    values the givens after the changes (cell, read, now, confidence)."""

    status: str
    values: np.ndarray
    changes: tuple[Change, ...]
    solution: np.ndarray | None
    suspects: tuple[int, ...] = ()


def _puzzle(values: np.ndarray, geometry: Geometry) -> Puzzle:
    """The values (0 empty) as the solver's puzzle on that board."""
    alphabet = "123456789ABCDEFGHIJKLMNOP"[: geometry.size]
    return Puzzle(geometry, np.asarray(values, np.uint8).ravel(), alphabet)


def solutions(values: np.ndarray, geometry: Geometry) -> int:
    """0, 1 or 2 (two or more) solutions, under the board's own rules."""
    return count_solutions(_puzzle(values, geometry), limit=2)


def moves(
    values: np.ndarray, probs: np.ndarray, inked: np.ndarray | None = None
) -> list[tuple[float, int, int]]:
    """(cost, cell, new value) re-readings worth a try: each of the DOUBTED least sure
    symbols read, dropped or read as its next likeliest; each of the DOUBTED empty cells
    likeliest to hold a symbol, given it, where the photo shows a mark (`inked`): a symbol
    is never added where no ink was seen. The cost is the log odds against the move."""
    logp = np.log(np.maximum(probs, 1e-9))
    read = np.flatnonzero(values > 0)
    empty = np.flatnonzero((values == 0) & (True if inked is None else np.ravel(inked)))
    found = []
    sure = logp[read, values[read]]
    for cell in read[np.argsort(sure)[:DOUBTED]]:
        order = np.argsort(-logp[cell])
        for new in [0, *[int(v) for v in order[:3] if v not in (0, values[cell])][:1]]:
            found.append((float(logp[cell, values[cell]] - logp[cell, new]), int(cell), new))
    inked = empty[np.argsort(logp[empty, 0])[:DOUBTED]]
    for cell in inked:
        new = int(np.argmax(logp[cell, 1:])) + 1
        found.append((float(logp[cell, 0] - logp[cell, new]), int(cell), new))
    return sorted(found)


def correct_board(
    values: np.ndarray, probs: np.ndarray, geometry: Geometry, inked: np.ndarray | None = None
) -> BoardFix:
    """The reading as it stands if it has one solution, else the cheapest re-reading of at
    most MAX_CHANGES cells (`moves`) that has, when no other nearly as likely (RIVAL)
    solves otherwise."""
    values = np.asarray(values, np.int8).ravel()
    probs = np.asarray(probs, np.float32).reshape(values.size, -1)
    count = solutions(values, geometry)
    if count == 1:
        return BoardFix("solved", values, (), _solution(values, geometry))
    options = moves(values, probs, inked)
    tried = []
    for k in range(1, MAX_CHANGES + 1):
        for chosen in itertools.combinations(options, k):
            if len({cell for _, cell, _ in chosen}) < k:
                continue
            tried.append((sum(c for c, _, _ in chosen), chosen))
    tried.sort(key=lambda t: t[0])
    found = None  # (cost, new values, moves, solution) of the cheapest unique re-reading
    for cost, chosen in tried[:MAX_TRIES]:
        if found is not None and cost > found[0] + RIVAL:
            break
        new = values.copy()
        for _, cell, value in chosen:
            new[cell] = value
        if solutions(new, geometry) != 1:
            continue
        solution = _solution(new, geometry)
        if found is None:
            found = (cost, new, chosen, solution)
        elif not np.array_equal(solution, found[3]):
            # another re-reading nearly as likely solves otherwise: the photo cannot say
            return BoardFix("unreadable", values, (), None, tuple(c for _, c, _ in found[2]))
    if found is not None:
        _, new, chosen, solution = found
        size = geometry.size
        changes = tuple(
            Change(
                cell,
                int(values[cell]),
                int(value),
                float(probs[cell, values[cell]]),
                float(probs[cell, value]),
                size,
            )  # fmt: skip
            for _, cell, value in sorted(chosen, key=lambda m: m[1])
        )
        return BoardFix("solved", new, changes, solution)
    status = {0: "no_solution", 2: "multiple_solutions"}[count]
    if count == 0 and _clashes(values, geometry):
        status = "invalid_givens"
    suspects = tuple(cell for _, cell, _ in options[:3])
    return BoardFix(status, values, (), None, suspects)


def _solution(values: np.ndarray, geometry: Geometry) -> np.ndarray:
    return np.asarray(solve(_puzzle(values, geometry)).solutions[0], np.int8)


def _clashes(values: np.ndarray, geometry: Geometry) -> bool:
    """Whether two cells of a unit hold the same value."""
    for unit in geometry.units:
        seen = values[list(unit)]
        seen = seen[seen > 0]
        if len(seen) != len(set(seen.tolist())):
            return True
    return False


def judge_board(
    reading, timings: dict[str, float], *, use_rules: bool = True, mode: str = "solve"
) -> PhotoResult:
    """The status of a board's reading (`vision.read.BoardReading`): corrected by its own
    rules, solved; the next step in hint mode. A check on such a board checks nothing
    written (a hand's entries are judged on the plain 9x9 alone), and the message says so."""
    board = reading.board
    size, variant = board.size, board.variant
    geometry = geometry_of(size, variant)
    alphabet = solver_alphabet(size, reading.convention)
    read = np.asarray(reading.givens, np.int8).ravel()
    probs = np.asarray(reading.probabilities, np.float32).reshape(size * size, size + 1)
    shape = dict(size=size, variant=variant, convention=reading.convention, mode=mode)
    line = board_line(read, geometry, alphabet)
    conf = probs[np.arange(read.size), read]
    n_read = int((read > 0).sum())
    name = board_name(size, variant)
    if n_read < MIN_GIVENS[size]:
        return PhotoResult(
            "unreadable",
            f"only {n_read} symbols could be read on this {name}; it needs at least {MIN_GIVENS[size]}",
            givens=line, read=line, confidence=conf, timings=timings, **shape,
        )  # fmt: skip
    t = time.perf_counter()
    if use_rules:
        fix = correct_board(read, probs, geometry, reading.inked)
    else:
        count = solutions(read, geometry)
        fix = BoardFix(
            {1: "solved", 0: "no_solution", 2: "multiple_solutions"}[count],
            read, (), _solution(read, geometry) if count == 1 else None,
        )  # fmt: skip
    timings["correct"] = (time.perf_counter() - t) * 1000
    common = dict(
        givens=board_line(fix.values, geometry, alphabet),
        read=line,
        confidence=probs[np.arange(read.size), fix.values],
        corrections=fix.changes,
        suspects=tuple(cell_name(c, size) for c in fix.suspects),
        timings=timings,
        **shape,
    )
    if fix.solution is None:
        said = {
            "invalid_givens": "the symbols read break the rules",
            "no_solution": "the symbols read follow the rules but the puzzle has no solution",
            "multiple_solutions": "the symbols read allow more than one solution",
            "unreadable": "re-readings nearly as likely as each other solve it differently:"
            " the photo is too unclear to be sure",
        }[fix.status]
        return PhotoResult(fix.status, f"{name}: {said}", **common)
    message = f"{name} solved"
    if fix.changes:
        form = ("",) + tuple(reading.symbols)
        cells = "; ".join(
            f"{c.name} {form[c.read] or 'empty'} -> {form[c.now] or 'empty'}" for c in fix.changes
        )
        message += f" after the rules corrected {len(fix.changes)} ({cells})"
    result = PhotoResult(
        "solved", message, solution=board_line(fix.solution, geometry, alphabet), **common
    )
    if mode == "check":
        result.message += (
            "; a check reads a hand's entries on plain 9x9 grids only: none were checked"
            " on this board"
        )
    if mode == "hint":
        from solver.logic import hint

        step = hint(Puzzle(geometry, fix.values.astype(np.uint8), alphabet))
        result.hint = step
        if step is not None:
            result.message += f"; next: {step.text}"
    return result


def board_name(size: int, variant: str) -> str:
    """How a person calls the board: "16x16 sudoku", "diagonal sudoku"."""
    if variant == "diagonal":
        return "diagonal sudoku" if size == 9 else f"diagonal {size}x{size} sudoku"
    return f"{size}x{size} sudoku"


def line_values(line: str, alphabet: str) -> np.ndarray:
    """A board's line (`board_line`) back to its values, 0 for '.'."""
    return np.array([0 if ch == "." else alphabet.index(ch) + 1 for ch in line], np.int8)


def draw_board_result(reading, result: PhotoResult, style) -> np.ndarray:
    """The photo with what the mode asks for drawn into a board: every missing symbol in the
    board's own printed form (solve), the next step's (hint), nothing (check); the cells
    the rules corrected ringed. A diagonal 9x9 is drawn as the 9x9 reader's reading is."""
    from vision.render import Overlay, draw_board, draw_solution

    size = result.size
    alphabet = solver_alphabet(size, result.convention)
    givens = line_values(result.givens, alphabet)
    solution = line_values(result.solution, alphabet)
    corrected = np.zeros(size * size, bool)
    corrected[[c.cell for c in result.corrections]] = True
    if result.mode == "solve":
        shown = np.where((givens == 0) | corrected, solution, 0)
    else:
        shown = np.zeros(size * size, np.int8)
        if result.hint is not None:
            for cell, value in result.hint.placements:
                shown[cell] = value
        corrected[:] = False
    if reading.nine is not None:  # a diagonal 9x9: the 9x9 reader's own drawing
        reading.nine.image = reading.image
        overlay = Overlay(shown.reshape(9, 9), corrected=corrected.reshape(9, 9))
        return draw_solution(reading.nine, overlay, style)
    texts = np.array([""] + list(reading.symbols), object)[shown].reshape(size, size)
    return draw_board(reading, texts, corrected.reshape(size, size), style)
