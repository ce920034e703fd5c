"""Many puzzles at once: text lines in, one outcome per line out, at the compiled engine's speed.

A file of puzzles is mostly plain 81-character 9×9 lines. Those are turned into one int8
array with a byte table and solved in one compiled call, without a `Puzzle` object per line;
every other line (16×16, diagonal, clover, boards with other blank marks) is parsed, and the
boards are batched by shape, one compiled call per shape. Only boards without a solution are
looked at one by one, to say why.

>>> lines = ["1-53---9-" "---6-----" "------271" "82-------" "---487---" "------53-"
...          "23-------" "--7-59---" "--6---8-4", "11" + "." * 79, "not a puzzle"]
>>> [(o.status, (o.solution or "")[:9]) for o in solve_many(lines)]
[('unique', '175328496'), ('invalid', ''), ('unreadable', '')]
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from solver import geometry as geo
from solver.grid import BLANKS, Puzzle, PuzzleFormatError, conflicts, format_line, parse

PLAIN_ALPHABET = "123456789"
# How long a warm-up may take before it is surely compiling rather than loading the cache.
COMPILE_NOTICE_AFTER = 1.5  # seconds


@dataclass(frozen=True)
class LineOutcome:
    """What became of one line.

    Attributes
    ----------
    status : str
        "unique" (solved, and the only solution), "solved" (first solution, uniqueness not
        checked), "multiple", "none" (no solution), "invalid" (givens clash) or "unreadable".
    solution : str or None
        The solved board as one line (`format_line`), when solved.
    reason : str
        Why it failed; empty when solved.
    board : Puzzle or None
        The solved board, when the line went through the parser (not for plain 9×9 lines).
    """

    status: str
    solution: str | None = None
    reason: str = ""
    board: Puzzle | None = None

    @property
    def ok(self) -> bool:
        return self.solution is not None

    def solved_board(self, alphabet: str | None = None, variant: str | None = None) -> Puzzle:
        """The solved board as a `Puzzle` (parsed back from the line when needed)."""
        if self.board is not None:
            return self.board
        return parse(self.solution or "", alphabet=alphabet, variant=variant)


def solve_many(
    lines: Sequence[str],
    *,
    method: str = "fast",
    unique: bool = True,
    workers: int = 1,
    variant: str | None = None,
    alphabet: str | None = None,
) -> list[LineOutcome]:
    """Solve every line; one `LineOutcome` per line, in order. Never raises for a bad line.

    Parameters
    ----------
    lines : sequence of str
        One puzzle per item (any text `parse` reads).
    method : {"fast", "dlx"}
        The compiled propagation engine (batched) or exact cover (one board at a time).
    unique : bool
        Look for a second solution, so that "unique" and "multiple" differ. False takes
        the first solution found ("solved"), which is faster.
    workers : int
        Threads for the fast method: 1 the calling thread only, 0 every core numba may use.
    variant, alphabet : str, optional
        As for `parse`; None detects them per line.

    Returns
    -------
    list of LineOutcome

    Examples
    --------
    >>> [o.status for o in solve_many(["." * 81], unique=False)]
    ['solved']
    >>> solve_many(["." * 81])[0].reason
    'several solutions'
    """
    outcomes: list[LineOutcome | None] = [None] * len(lines)
    limit = 2 if unique else 1
    if method == "fast" and variant in (None, "standard") and alphabet in (None, PLAIN_ALPHABET):
        _solve_plain_lines(lines, outcomes, limit, workers)
    boards: list[tuple[int, Puzzle]] = []
    for k, text in enumerate(lines):
        if outcomes[k] is not None:
            continue
        try:
            boards.append((k, parse(text, alphabet=alphabet, variant=variant)))
        except PuzzleFormatError as exc:
            outcomes[k] = LineOutcome("unreadable", reason=str(exc))
    solved = _solve_boards([b for _, b in boards], method, limit, workers)
    for (k, _), outcome in zip(boards, solved, strict=True):
        outcomes[k] = outcome
    return [_named(o, unique) for o in outcomes]


def _named(outcome: LineOutcome, unique: bool) -> LineOutcome:
    if outcome.status == "solved" and unique:
        return LineOutcome("unique", outcome.solution, "", outcome.board)
    return outcome


def plain_values(lines: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Plain 9×9 lines (81 characters: digits and `BLANKS`) as one (N, 81) int8 array.

    Parameters
    ----------
    lines : sequence of str

    Returns
    -------
    picked : ndarray of int
        Indices of the lines that are plain 9×9 lines.
    values : ndarray, shape (len(picked), 81), int8
        Their cell values, 0 for blanks.

    Examples
    --------
    >>> picked, values = plain_values(["1" + "." * 80, "x" * 81, "2" + "0" * 80])
    >>> picked.tolist(), values[:, 0].tolist()
    ([0, 2], [1, 2])
    """
    candidates = [k for k, text in enumerate(lines) if len(text) == 81 and text.isascii()]
    if not candidates:
        return np.zeros(0, np.intp), np.zeros((0, 81), np.int8)
    raw = np.frombuffer("".join(lines[k] for k in candidates).encode("ascii"), np.uint8)
    values = _BYTE_VALUES[raw.reshape(-1, 81)]
    good = (values >= 0).all(axis=1)
    return np.asarray(candidates, np.intp)[good], values[good]


def _byte_values() -> np.ndarray:
    """Byte -> value on a 9×9 line: 1-9 for digits, 0 for `BLANKS`, -1 for anything else."""
    table = np.full(256, -1, np.int8)
    table[np.frombuffer(BLANKS.encode("ascii"), np.uint8)] = 0
    table[np.frombuffer(PLAIN_ALPHABET.encode("ascii"), np.uint8)] = np.arange(1, 10)
    return table


_BYTE_VALUES = _byte_values()


def _solve_plain_lines(lines, outcomes, limit: int, workers: int) -> None:
    """The common case at full speed: fills `outcomes` for the plain 9×9 lines that have a
    solution (lines without one are left to the general path, which finds the reason)."""
    picked, values = plain_values(lines)
    if not len(picked):
        return
    from solver import fast

    if workers != 1:
        counts, solutions = fast.solve_parallel(values, limit=limit, workers=workers)
    else:
        counts, solutions = fast.solve_batch(values, limit=limit)
    text = (solutions + ord("0")).astype(np.uint8).tobytes().decode("ascii")
    for row, k in enumerate(picked.tolist()):
        if counts[row] == 1:
            outcomes[k] = LineOutcome("solved", text[row * 81 : row * 81 + 81])
        elif counts[row] > 1:
            outcomes[k] = LineOutcome("multiple", reason="several solutions")


def _solve_boards(boards: list[Puzzle], method: str, limit: int, workers: int):
    """One outcome per board; the fast method solves each shape's boards in one call."""
    from solver.solve import solve

    def outcome(count: int, values, board: Puzzle) -> LineOutcome:
        if count == 1:
            solved = board.with_values(values)
            return LineOutcome("solved", format_line(solved), "", solved)
        if count > 1:
            return LineOutcome("multiple", reason="several solutions")
        clashes = conflicts(board)
        if clashes:
            return LineOutcome("invalid", reason="; ".join(clashes))
        return LineOutcome("none", reason=solve(board, method=method).reason)

    if method == "dlx":
        results = []
        for board in boards:
            r = solve(board, method="dlx", limit=limit)
            if r.status == "invalid":
                results.append(LineOutcome("invalid", reason=r.reason))
            else:
                results.append(outcome(min(r.count, limit), r.solution, board))
        return results
    from solver import fast

    results: list = [None] * len(boards)
    by_shape: dict[int, list[int]] = {}
    for i, board in enumerate(boards):
        by_shape.setdefault(id(board.geometry), []).append(i)
    for indices in by_shape.values():
        geometry = boards[indices[0]].geometry
        values = np.stack([boards[i].values for i in indices])
        if workers != 1:
            counts, solutions = fast.solve_parallel(values, geometry, limit=limit, workers=workers)
        else:
            counts, solutions = fast.solve_batch(values, geometry, limit=limit)
        for k, i in enumerate(indices):
            results[i] = outcome(int(counts[k]), solutions[k], boards[i])
    return results


def warm_up(
    method: str = "fast", workers: int = 1, on_compile: Callable[[], None] | None = None
) -> float:
    """Load (or, the first time after install, compile) the engine `solve_many` will use.

    numba keeps the compiled kernels on disk; loading them takes about a second, compiling
    them 15 to 25 seconds. `make run` and `make test` compile them during set-up, so a user
    rarely waits; when it happens anyway, `on_compile` is called once the warm-up has taken
    longer than loading ever does, so that the user is told why nothing moves.

    Parameters
    ----------
    method : {"fast", "dlx"}
    workers : int
        Anything but 1 also loads the multi-threaded kernels.
    on_compile : callable, optional
        Called (from a timer thread) when the warm-up is compiling.

    Returns
    -------
    float
        Seconds taken.

    Examples
    --------
    >>> warm_up() >= 0
    True
    """
    start = time.perf_counter()
    timer = threading.Timer(COMPILE_NOTICE_AFTER, on_compile) if on_compile else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        from solver.solve import solve

        tiny = parse("." * 16)
        solve(tiny, method=method)
        if method == "fast":
            from solver import fast

            for geometry, cells in ((geo.standard(3), 81), (tiny.geometry, 16)):
                empty = np.zeros((1, cells), np.int8)
                fast.solve_batch(empty, geometry)
                if workers != 1:
                    fast.solve_parallel(empty, geometry, workers=workers)
    finally:
        if timer is not None:
            timer.cancel()
    return time.perf_counter() - start


def compile_all() -> float:
    """Compile (or load) every kernel a command may need: `make run`'s set-up calls this.

    Returns
    -------
    float
        Seconds taken: about a second when numba's on-disk cache holds the kernels, 15 to 25
        when they compile (`warm_up` shows the call).
    """
    from solver.fast import count_solutions_81
    from solver.logic.complex_fish import warm_up as warm_up_fish

    start = time.perf_counter()
    warm_up("fast", workers=0)
    warm_up("dlx")
    count_solutions_81(np.zeros(81, np.int8), 2)
    warm_up_fish()
    return time.perf_counter() - start
