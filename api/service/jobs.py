"""The work a solver process does: plain data in, plain data out (it crosses a pipe).

A job never raises for bad input: an expected failure comes back as
`{"error": {"status", "code", "message", ...}}` so the parent can answer with the right HTTP
status; only a bug raises (and becomes a 500 with the request id in the log).
"""

from __future__ import annotations

import os
import time
from typing import Any


def failure(status: int, code: str, message: str, **extra: Any) -> dict:
    return {"error": {"status": status, "code": code, "message": message, **extra}}


# Every photo status except "solved" is a 422: the photo was processed and what was read
# comes back with the error, so the user can fix a digit and re-solve through /v1/grid.
# an error code of api.failures -> the HTTP status it is answered with
FAILURE_HTTP = {
    "image_too_large": 413,
    "not_an_image": 415,
    "corrupt_image": 415,
    "unreadable": 422,
    "no_grid": 422,
}
UNSOLVED = ("no_grid", "unreadable", "invalid_givens", "no_solution", "multiple_solutions")


def photo(payload: dict) -> dict:
    """Read, solve and draw one uploaded photo.

    payload: data (the upload's bytes), engine ("" = default), max_pixels, png (bool: also
    encode the overlay as PNG). Returns {"result": PhotoResultModel as a dict, "jpeg": bytes
    or None, "png": bytes or None} or a failure.
    """
    from api.failures import failure_of
    from api.pipeline import solve_photo
    from vision.errors import VisionError

    try:
        result = solve_photo(
            payload["data"],
            engine=payload.get("engine") or None,
            encode="jpeg",
            max_pixels=payload["max_pixels"],
        )
    except VisionError as error:
        failed = failure_of(error)
        return failure(FAILURE_HTTP[failed.code], failed.code, failed.message)
    png = None
    if payload.get("png") and result.overlay is not None:
        from vision.render import encode

        started = time.perf_counter()
        png = encode(result.overlay, "png")
        result.timings["encode_png"] = (time.perf_counter() - started) * 1000
    model = result.to_model().model_dump(mode="json")
    if result.status in UNSOLVED:
        return failure(422, result.status, result.message, result=model)
    return {"result": model, "jpeg": result.overlay_bytes, "png": png}


def grid(payload: dict) -> dict:
    """Solve a puzzle given as text; optionally explain it step by step.

    payload: puzzle, variant, alphabet, limit (solutions to find at most), explain (bool).
    """
    import solver

    try:
        puzzle = solver.parse(
            payload["puzzle"], alphabet=payload.get("alphabet"), variant=payload.get("variant")
        )
    except ValueError as error:  # PuzzleFormatError names the position and character
        return failure(422, "invalid_puzzle", str(error))
    started = time.perf_counter()
    result = solver.solve(puzzle, limit=payload["limit"])
    timings = {"solve": (time.perf_counter() - started) * 1000}
    answer = {
        "status": result.status,
        "count": int(result.count),
        "count_is_lower_bound": int(result.count) >= payload["limit"],
        "size": puzzle.geometry.size,
        "givens": line(puzzle),
        "solutions": [line(puzzle.with_values(values)) for values in result.solutions],
        "reason": result.reason or "",
        "conflicts": list(solver_conflicts(puzzle)),
    }
    if payload.get("explain") and result.status in ("unique", "multiple"):
        started = time.perf_counter()
        answer["explanation"] = explain(puzzle)
        timings["explain"] = (time.perf_counter() - started) * 1000
    if (payload.get("all_steps") or payload.get("marks")) and result.status == "unique":
        try:
            answer["all_steps"] = all_steps(puzzle, payload.get("marks"), result.solutions[0])
        except ValueError as error:  # marks that are not marks, or not this puzzle's
            return failure(422, "invalid_puzzle", str(error))
    answer["timings"] = {k: round(v, 2) for k, v in timings.items()}
    return answer


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


JOBS = {"photo": photo, "grid": grid}


def run(kind: str, payload: Any) -> Any:
    return JOBS[kind](payload)


WARM_UP_PUZZLE = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"


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


def warm_up() -> dict:
    """Load everything a first request would otherwise pay for, and report what is there.

    Solves a small drawn sudoku: imports the pipeline, loads the recogniser's models, loads
    the numba solver (compiled once, then cached), runs Tesseract's version check. Returns
    facts for /readyz.
    """
    info: dict[str, Any] = {"pid": os.getpid(), "problems": []}
    started = time.perf_counter()
    try:
        import pytesseract

        info["tesseract"] = str(pytesseract.get_tesseract_version())
    except Exception as error:
        info["tesseract"] = None
        info["problems"].append(f"tesseract not found: {error}")
    try:
        from vision.recognise import DEFAULT_ENGINE, ENGINES

        info["engine"] = os.environ.get("SUDOKU_LENS_ENGINE") or DEFAULT_ENGINE
        info["engines"] = list(ENGINES)
    except Exception as error:
        info["problems"].append(f"recogniser unavailable: {type(error).__name__}: {error}")
    try:
        answer = photo({"data": warm_up_photo(), "engine": "", "max_pixels": 50_000_000})
        info["warm_up_status"] = answer.get("result", answer.get("error", {})).get(
            "status", answer.get("error", {}).get("code")
        )
        info["models_loaded"] = True
    except Exception as error:
        info["models_loaded"] = False
        info["problems"].append(f"warm-up photo failed: {type(error).__name__}: {error}")
    info["warm_up_ms"] = round((time.perf_counter() - started) * 1000, 1)
    return info
