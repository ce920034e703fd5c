"""From a photo to a solved photo: read the grid, let the rules correct it, solve, draw.

The only place where `vision` (photo -> digits and their probabilities) and `solver` (digits
-> solution) meet. Every photo the reader can decode ends in a `PhotoResult` with one of six
statuses; only input that is not a usable image at all (not an image, too large, corrupt)
raises a `vision.VisionError`, whose message is meant for the user.

>>> result = solve_photo("photo.jpg", encode="jpeg")      # doctest: +SKIP
>>> result.status, result.solution[:9]                     # doctest: +SKIP
('solved', '483921657')
>>> open("photo.solved.jpg", "wb").write(result.overlay_bytes)  # doctest: +SKIP
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import numpy as np

from api.correct import Change, Correction, cell_confidence, cell_name, conflicting_pairs, correct
from api.schema import CorrectionModel, PhotoResultModel, PhotoStatus

MIN_GIVENS = 17  # no 9x9 sudoku with fewer givens has a unique solution
STATUSES = get_args(PhotoStatus)


@dataclass
class PhotoResult:
    """Everything the pipeline learnt about one photo.

    givens: the 81 digits solved from, row by row ("0" = empty), after corrections; read: the
    same before corrections; solution: 81 digits when solved. confidence: (81,) the
    recogniser's probability of each cell's value in `givens`. corners: (4, 2) TL, TR, BR, BL
    in the photo's pixels. overlay: the full-resolution photo with the solution drawn in
    (solved photos, when rendering was asked for); overlay_bytes: it encoded as asked.
    timings: milliseconds per stage (the reader's stages, correct, solve, render, encode,
    total).
    """

    status: str
    message: str = ""
    givens: str | None = None
    read: str | None = None
    solution: str | None = None
    confidence: np.ndarray | None = None
    corners: np.ndarray | None = None
    corrections: tuple[Change, ...] = ()
    suspects: tuple[str, ...] = ()
    overlay: np.ndarray | None = None
    overlay_bytes: bytes | None = None
    timings: dict[str, float] = field(default_factory=dict)
    correction: Correction | None = None

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def to_model(self, *, file: str | None = None, output: str | None = None) -> PhotoResultModel:
        """The JSON-ready result (see api.schema), without the images."""
        conf = None if self.confidence is None else [round(float(c), 4) for c in self.confidence]
        return PhotoResultModel(
            file=file,
            output=output,
            status=self.status,
            message=self.message,
            givens=self.givens,
            read=self.read,
            solution=self.solution,
            corrections=[
                CorrectionModel(
                    cell=c.name,
                    index=c.cell,
                    read=c.read,
                    now=c.now,
                    confidence=round(c.confidence, 4),
                )
                for c in self.corrections
            ],
            suspects=list(self.suspects),
            corners=None
            if self.corners is None
            else [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            confidence=conf,
            min_confidence=None if conf is None else min(conf),
            timings={k: round(v, 2) for k, v in self.timings.items()},
        )


def digits_line(values: np.ndarray) -> str:
    """81 characters, row by row, '0' for empty."""
    return "".join(str(int(v)) for v in np.asarray(values).reshape(81))


def solve_photo(
    source: Any,
    *,
    engine: str | None = None,
    render: bool = True,
    encode: str | None = None,
    outline: bool = True,
    max_pixels: int | None = None,
    use_rules: bool = True,
) -> PhotoResult:
    """Read, correct, solve and draw one photo.

    source: a path, the file's bytes, or a BGR uint8 array. engine: the recogniser (see
    vision.recognise.ENGINES; None = its default). render: draw the solution onto the photo
    (solved photos only). encode: also encode the overlay ("jpeg" or "png") into
    `overlay_bytes`. use_rules: let the sudoku rules correct misread digits.
    Raises vision.VisionError (NotAnImage, ImageTooLarge, Unreadable) when the source is not
    a usable image; every other outcome is a status.
    """
    from vision import NoGridFound, read_photo

    start = time.perf_counter()
    kwargs = {} if max_pixels is None else {"max_pixels": max_pixels}
    try:
        reading = read_photo(source, engine=engine, **kwargs)
    except NoGridFound as error:
        return PhotoResult("no_grid", str(error), timings={"total": _ms(start)})
    timings = dict(reading.timings)
    result = judge(reading.givens, reading.probabilities, timings, use_rules=use_rules)
    result.corners = np.asarray(reading.corners, dtype=np.float32)
    if result.solved and (render or encode):
        result.overlay = _draw(reading, result, outline, timings)
        if encode:
            from vision.render import encode as encode_image

            t = time.perf_counter()
            result.overlay_bytes = encode_image(result.overlay, encode)
            timings["encode"] = _ms(t)
    timings["total"] = _ms(start)
    result.timings = timings
    return result


def judge(
    givens: np.ndarray,
    probabilities: np.ndarray,
    timings: dict[str, float] | None = None,
    *,
    use_rules: bool = True,
) -> PhotoResult:
    """The status of a reading: correct it by the rules if needed, then solve it.

    givens (9, 9) as read, probabilities (9, 9, 10). Separate from the photo so that it can
    be checked on crafted readings.
    """
    timings = {} if timings is None else timings
    read = np.asarray(givens, dtype=np.int8).reshape(81)
    probs = np.asarray(probabilities, dtype=np.float32).reshape(81, 10)
    n_read = int((read > 0).sum())
    base = {"read": digits_line(read), "givens": digits_line(read), "timings": timings}
    if n_read < MIN_GIVENS:
        return PhotoResult(
            "unreadable",
            f"only {n_read} digits could be read; a sudoku needs at least {MIN_GIVENS}",
            confidence=cell_confidence(read, probs),
            **base,
        )
    t = time.perf_counter()
    fix = correct(read, probs, max_changes=5 if use_rules else 0)
    timings["correct"] = _ms(t)
    values = fix.values
    base["givens"] = digits_line(values)
    common = dict(
        confidence=cell_confidence(values, probs),
        corrections=fix.changes,
        suspects=tuple(cell_name(c) for c in fix.suspects),
        correction=fix,
        **base,
    )
    t = time.perf_counter()
    if fix.solved:
        solution = _verified(values, fix.solution)
        timings["solve"] = _ms(t)
        return PhotoResult("solved", _solved_message(fix), solution=solution, **common)
    timings["solve"] = 0.0
    status = {-1: "invalid_givens", 0: "no_solution", 1: "unreadable"}.get(
        fix.read_count, "multiple_solutions"
    )
    return PhotoResult(status, _failure_message(status, fix, read, probs), **common)


def _verified(values: np.ndarray, solution: np.ndarray) -> str:
    """The solution as 81 digits, after checking it keeps the givens and every unit."""
    sol = np.asarray(solution, dtype=np.int8).reshape(81)
    if not (sol[values > 0] == values[values > 0]).all() or conflicting_pairs(sol):
        raise AssertionError("solver returned a grid that is not a solution of the givens")
    if not ((sol >= 1) & (sol <= 9)).all():
        raise AssertionError("solver returned an incomplete grid")
    return digits_line(sol)


def _solved_message(fix: Correction) -> str:
    if not fix.changes:
        return "solved"
    cells = "; ".join(str(c) for c in fix.changes)
    s = "" if len(fix.changes) == 1 else "s"
    return f"solved after the rules corrected {len(fix.changes)} cell{s} ({cells})"


def _failure_message(status: str, fix: Correction, read: np.ndarray, probs: np.ndarray) -> str:
    if status == "invalid_givens":
        head = "the digits read break the rules: " + "; ".join(
            f"{cell_name(a)} and {cell_name(b)} both hold {read[a]}" for a, b in fix.conflicts[:3]
        )
    elif status == "unreadable":
        head = (
            "the digits read have one solution, but other readings nearly as likely have"
            " different ones: the photo is too unclear to be sure"
        )
    elif status == "no_solution":
        head = "the digits read follow the rules but the puzzle has no solution"
    else:
        head = "the digits read allow more than one solution (a digit may have been missed)"
    if fix.status == "ambiguous":
        options = " or ".join(
            ", ".join(str(c) for c in rival) or "as read" for rival in fix.rivals[:2]
        )
        head += f"; several re-readings fit about as well ({options}), so none was chosen"
    conf = cell_confidence(read, probs)
    if fix.suspects:
        named = ", ".join(f"{cell_name(c)} ({conf[c]:.0%})" for c in fix.suspects)
        head += f"; most likely misread: {named}"
    return head


def _draw(reading, result: PhotoResult, outline: bool, timings: dict[str, float]) -> np.ndarray:
    """The photo with the solution drawn into the cells that were empty (and marked where
    the rules corrected a reading)."""
    from vision.render import draw_solution

    t = time.perf_counter()
    givens = np.array([int(c) for c in result.givens], dtype=np.int8).reshape(9, 9)
    solution = np.array([int(c) for c in result.solution], dtype=np.int8).reshape(9, 9)
    corrected = np.zeros(81, dtype=bool)
    corrected[[c.cell for c in result.corrections]] = True
    corrected = corrected.reshape(9, 9)
    # a reading the rules dropped was not print (pencil marks, hand-writing, a smudge): the
    # cell is still empty on paper and gets its answer drawn
    cleared = corrected & (givens == 0)
    digits = np.where((givens == 0) | corrected, solution, 0)
    overlay = draw_solution(
        reading.image,
        reading.homography,
        reading.side,
        digits,
        cell_boxes=reading.cell_boxes,
        corrected=corrected,
        cleared=cleared,
        outline=reading.corners if outline else None,
    )
    timings["render"] = _ms(t)
    return overlay


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def warm_up() -> None:
    """Load the reader and compile (or load the cached) solver once, so that the first
    photo's timings measure the photo, not the start-up (about a second of numba)."""
    import vision  # noqa: F401
    from solver.fast import count_solutions_81

    count_solutions_81(np.zeros(81, dtype=np.int8), 2)


def load_bytes(path: str | Path) -> bytes:
    """A photo file's bytes (the pipeline's usual input)."""
    return Path(path).read_bytes()
