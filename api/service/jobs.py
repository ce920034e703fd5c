"""The work a solver process does: dataclasses and pydantic models in, the same out.

A job never raises for bad input: an expected failure comes back as a `Refused` naming what is
wrong (an api.photo.failures code, a photo's status, `invalid_puzzle`); the HTTP layer alone picks
the status it is answered with (api.service.errors.STATUS_OF). Only a bug raises, and becomes
a 500 whose text goes to the log, never to the client.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

from api.photo.failures import Failure
from api.photo.schema import PhotoResultModel
from api.service.models import GridAnswer, GridRequest


@dataclass(frozen=True)
class PhotoJob:
    """How to treat one uploaded photo (its bytes travel beside this, not pickled in it)."""

    engine: str = ""  # "" = the recogniser's default
    max_pixels: int = 50_000_000
    png: bool = False  # also encode the overlay as PNG
    mode: str = "solve"  # solve, check or hint (api.photo.schema.MODES)


@dataclass(frozen=True)
class SolvedPhoto:
    """A photo read, solved and drawn: the result and the solved photo, encoded."""

    result: PhotoResultModel
    jpeg: bytes | None = None
    png: bytes | None = None


@dataclass(frozen=True)
class Refused:
    """An expected failure: what is wrong with the input, and what was read of it if anything."""

    failure: Failure
    result: PhotoResultModel | None = None


def photo(data: bytes, job: PhotoJob) -> SolvedPhoto | Refused:
    """Read, solve and draw one uploaded photo.

    Parameters
    ----------
    data : bytes
        The upload.
    job : PhotoJob
        Engine, pixel limit, whether to encode a PNG too.

    Returns
    -------
    SolvedPhoto or Refused
        Refused with `result` when the photo was read but cannot be solved as read.
    """
    from api.photo.failures import failure_of
    from api.photo.pipeline import solve_photo
    from vision.errors import VisionError

    try:
        result = solve_photo(
            data,
            engine=job.engine or None,
            encode="jpeg",
            max_pixels=job.max_pixels,
            mode=job.mode,
        )
    except VisionError as error:
        return Refused(failure_of(error))
    png = None
    if job.png and result.overlay is not None:
        from vision.render import encode

        started = time.perf_counter()
        png = encode(result.overlay, "png")
        result.timings["encode_png"] = (time.perf_counter() - started) * 1000
    model = result.to_model()
    if not answered(model):
        failed = Failure(result.status, result.status, result.message)
        return Refused(failed, result=model)
    return SolvedPhoto(model, result.overlay_bytes, png)


def answered(result: PhotoResultModel) -> bool:
    """Whether a photo's result is an answer (HTTP 200) rather than a refusal (422).

    A photo not answered is refused with its status (no_grid, unreadable, invalid_givens,
    no_solution, multiple_solutions: a 422) and what was read comes back with the error, so
    the user can fix a digit and re-solve through /v1/grid.

    A photo may hold several grids (`result.grids`, a puzzle book's page, a newspaper's
    puzzles beside yesterday's solution): it is answered when at least one of its puzzles
    was solved, whatever the others came to (each grid says its own status), or when every
    whole grid in it is a printed solution (status "complete": nothing to solve, nothing
    wrong). A grid cut off by the photo's edge is said, never counted. The result's own
    status is its first puzzle's, so a page answered 200 may still say "no_solution" there
    when a later puzzle was the one solved.

    >>> answered(PhotoResultModel(status="solved"))
    True
    >>> answered(PhotoResultModel(status="no_solution"))
    False
    """
    grids = result.grids or [result]
    if any(grid.status == "solved" for grid in grids):
        return True
    whole = [grid for grid in grids if getattr(grid, "kind", "puzzle") is not None]
    return bool(whole) and all(grid.status == "complete" for grid in whole)


def grid(request: GridRequest) -> GridAnswer | Refused:
    """Solve a puzzle given as text; optionally explain it step by step.

    The search goes one solution past `limit`, so the answer knows whether there are more
    than it returns: `count` is at most `limit`, `count_is_lower_bound` says there are more.

    Parameters
    ----------
    request : GridRequest
        The validated request body.

    Returns
    -------
    GridAnswer or Refused
        Refused (invalid_puzzle) when the text is not a puzzle.
    """
    import solver

    try:
        puzzle = solver.parse(request.puzzle, alphabet=request.alphabet, variant=request.variant)
    except ValueError as error:  # PuzzleFormatError names the position and character
        return Refused(Failure("invalid_puzzle", "invalid_puzzle", str(error)))
    started = time.perf_counter()
    result = solver.solve(puzzle, limit=request.limit + 1)
    timings = {"solve": (time.perf_counter() - started) * 1000}
    found = int(result.count)
    solutions = [] if request.count else result.solutions[: request.limit]
    explanation = None
    if request.explain and result.status in ("unique", "multiple"):
        started = time.perf_counter()
        explanation = explain(puzzle)
        timings["explain"] = (time.perf_counter() - started) * 1000
    steps = None
    if (request.all_steps or request.marks) and result.status == "unique":
        try:
            steps = all_steps(puzzle, request.marks, result.solutions[0])
        except ValueError as error:  # marks that are not marks, or not this puzzle's
            return Refused(Failure("invalid_puzzle", "invalid_puzzle", str(error)))
    return GridAnswer(
        status=result.status,
        count=min(found, request.limit),
        count_is_lower_bound=found > request.limit,
        size=puzzle.geometry.size,
        givens=line(puzzle),
        solutions=[line(puzzle.with_values(values)) for values in solutions],
        reason=result.reason or "",
        conflicts=list(solver_conflicts(puzzle)),
        explanation=explanation,
        all_steps=steps,
        timings={k: round(v, 2) for k, v in timings.items()},
    )


def line(puzzle) -> str:
    """The board as one line of its alphabet, blanks as '.'."""
    from solver.grid import format_line

    return format_line(puzzle)


def solver_conflicts(puzzle) -> list[str]:
    from solver.grid import conflicts

    return conflicts(puzzle)


def explain(puzzle) -> dict:
    """The logic engineer's step-by-step explanation and grade, as JSON-ready data."""
    from solver.logic import explain as explain_puzzle

    return explain_puzzle(puzzle).to_json()


def all_steps(puzzle, marks: str | None, solution) -> list[dict]:
    """Every step available now (solver.logic.all_steps), from the puzzle's pencil marks or
    the player's own `marks` (a HoDoKu library line or a forum candidate grid)."""
    from solver.logic import all_steps as every_step
    from solver.logic.pencilmarks import lost_digits, marks_for

    state = puzzle
    if marks:
        state = marks_for(puzzle, marks)
        lost = lost_digits(state, solution)
        if lost:
            raise ValueError(f"the pencil marks disagree with the solution: {lost[0]}")
    steps = every_step(state, unique=True)
    return [step.to_dict(puzzle.geometry, puzzle.alphabet) for step in steps]


def run(kind: str, job: Any, data: bytes | None = None) -> Any:
    """Dispatch one job by kind.

    Parameters
    ----------
    kind : str
        "photo", "grid" or "live" (one video frame of the live camera mode).
    job : PhotoJob, GridRequest, routers.new.NewRequest or api.photo.live.FrameJob
        What to do.
    data : bytes, optional
        The upload, for a photo or a frame.

    Returns
    -------
    SolvedPhoto, GridAnswer, api.photo.live.FrameAnswer or Refused
    """
    if kind == "photo":
        return photo(data, job)
    if kind == "grid":
        from api.service.routers.new import NewRequest, make_puzzles

        return make_puzzles(job) if isinstance(job, NewRequest) else grid(job)
    if kind == "live":
        from api.photo.live import frame

        return frame(data, job)
    raise ValueError(f"unknown job kind {kind!r}")


WARM_UP_PUZZLE = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"

# Every solver kernel a /v1/grid request can reach: the 9x9 bitboard, the generic engine
# (other sizes and variants share it), counting and the logic engine. Empty boards have
# many solutions, so each search runs far enough to compile or load every function it calls.
WARM_UP_GRIDS = (
    GridRequest(puzzle=WARM_UP_PUZZLE, explain=True),
    GridRequest(puzzle="." * 81, limit=3),
    GridRequest(puzzle="." * 81, limit=3, variant="diagonal"),
    GridRequest(puzzle="." * 441, limit=3, variant="clover"),
    GridRequest(puzzle="." * 16, limit=3, count=True),
    GridRequest(puzzle="." * 256, limit=3, count=True),
    GridRequest(puzzle="." * 625, limit=3),
)


def warm_up_photo(puzzle: str = WARM_UP_PUZZLE, side: int = 420) -> bytes:
    """A plain printed-looking sudoku as JPEG bytes, drawn in a few milliseconds."""
    import cv2
    import numpy as np

    image = np.full((side + 60, side + 60, 3), 245, np.uint8)
    cell = side // 9
    for k in range(10):
        width = 3 if k % 3 == 0 else 1
        at = 30 + k * cell
        cv2.line(image, (30, at), (30 + 9 * cell, at), (20, 20, 20), width)
        cv2.line(image, (at, 30), (at, 30 + 9 * cell), (20, 20, 20), width)
    for i, ch in enumerate(puzzle):
        if ch != "0":
            x, y = 30 + (i % 9) * cell + cell // 4, 30 + (i // 9 + 1) * cell - cell // 5
            cv2.putText(image, ch, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 20, 20), 2)
    return cv2.imencode(".jpg", image)[1].tobytes()


@dataclass
class WarmUp:
    """What a solver process found while warming up: /readyz reports it.

    Attributes
    ----------
    pid : int
        The solver process.
    engine : str or None
        The recogniser photos are read with (None when the recogniser failed to load).
    needs_tesseract : bool
        Whether that engine calls Tesseract.
    tesseract : str or None
        Tesseract's version, None when it is not installed.
    warm : bool
        Every kernel a request can reach ran once: the photo pipeline and each WARM_UP_GRIDS.
    problems : list of str
        What keeps this process from serving the default engine.
    """

    pid: int = field(default_factory=os.getpid)
    engine: str | None = None
    engines: list[str] = field(default_factory=list)
    needs_tesseract: bool = False
    tesseract: str | None = None
    warm: bool = False
    warm_up_status: str | None = None
    warm_up_ms: float = 0.0
    problems: list[str] = field(default_factory=list)


def warm_up() -> WarmUp:
    """Load and compile everything a first request would otherwise pay for.

    Solves a small drawn sudoku (the pipeline, the recogniser's models) and every grid of
    WARM_UP_GRIDS through the compiled solver (numba: compiled once, then loaded from its
    cache), and looks for Tesseract. A process is warm when all of it ran.

    Returns
    -------
    WarmUp
    """
    info = WarmUp()
    started = time.perf_counter()
    try:
        import pytesseract

        info.tesseract = str(pytesseract.get_tesseract_version())
    except Exception:
        info.tesseract = None
    try:
        from vision.recognise import DEFAULT_ENGINE, ENGINES

        info.engine = os.environ.get("SUDOKU_LENS_ENGINE") or DEFAULT_ENGINE
        info.engines = list(ENGINES)
        info.needs_tesseract = info.engine == "tesseract"
        if info.needs_tesseract and not info.tesseract:
            info.problems.append(
                "the tesseract engine is configured but Tesseract was not found "
                "(install Debian's tesseract-ocr)"
            )
    except Exception as error:
        info.problems.append(f"recogniser unavailable: {type(error).__name__}: {error}")
    try:
        import solver.fast  # noqa: F401  from here on every puzzle goes to the compiled tier

        answer = photo(warm_up_photo(), PhotoJob(engine=info.engine or ""))
        info.warm_up_status = (
            answer.result.status if isinstance(answer, SolvedPhoto) else answer.failure.code
        )
        for request in WARM_UP_GRIDS:
            grid(request)
        info.warm = True
    except Exception as error:
        info.problems.append(f"warm-up failed: {type(error).__name__}: {error}")
    info.warm_up_ms = round((time.perf_counter() - started) * 1000, 1)
    return info
