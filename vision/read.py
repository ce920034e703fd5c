"""From a photo to the 81 givens: load, locate, warp, cut, turn upright, recognise.

`read_photo` takes what a user brings (a path, the file's bytes, an array) and returns a
`Reading` with everything later stages need: the givens and their probabilities for the
solver, the corners and homography for drawing the solution back onto the photo, and the
milliseconds each stage took.

Some photos are stored sideways with no EXIF tag to say so. The grid is then warped as it lies,
cut once, and the classifier is asked cheaply (well under a millisecond) in which of the four
quarter turns the digits stand upright; that turn is folded into the corners (TL is the
upright grid's top left) and the homography (it maps onto the upright square).

>>> reading = read_photo("photo.jpg")                   # doctest: +SKIP
>>> reading.givens[0], reading.timings                 # doctest: +SKIP
(array([0, 0, 0, 7, 0, 0, 0, 8, 0], dtype=int8),
 {'load': 3.1, 'locate': 11.8, 'warp': 0.9, 'cells': 9.4, 'recognise': 1.2})
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.cells import Cells, cut_cells
from vision.kinds import model_path as cell_model_path
from vision.kinds import printed_probabilities, upright_kinds
from vision.load import MAX_PIXELS, as_bgr, load_image
from vision.locate import locate_grid
from vision.recognise import DEFAULT_ENGINE, ENGINES, calibrated, recognise, upright_turns
from vision.warp import WARP_SIDE, turn, turn_boxes, warp_grid


@dataclass
class Reading:
    """What was read from one photo.

    givens (9, 9) int8, 0 = empty; probabilities (9, 9, 10) float32 (column 0 = empty);
    corners (4, 2) float32 TL, TR, BR, BL of the upright grid in original-image pixels;
    homography (3, 3) float64, original-image pixels -> the upright warped square of `side`
    pixels; cell_boxes (9, 9, 4) x0, y0, x1, y1 of each cell in that square; image the
    loaded full-resolution BGR photo (EXIF orientation applied); score how sudoku-like the
    located grid looked (about 0.3-0.8); timings in milliseconds per stage.

    kinds (81, 20) float32: per cell the probability of each class of `vision.kinds.CLASSES`
    (empty, printed 1-9, written 1-9, candidates), or None when no cell model is installed;
    then `probabilities` are the printed view of them (a hand-written digit is "empty" for
    the puzzle). warped: the upright warped grid in colour the cell model read (None
    without one); cells: the cut cells, turned upright.
    """

    givens: np.ndarray
    probabilities: np.ndarray
    corners: np.ndarray
    homography: np.ndarray
    side: int
    cell_boxes: np.ndarray
    image: np.ndarray
    score: float = 0.0
    turns: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    kinds: np.ndarray | None = None
    warped: np.ndarray | None = None
    cells: Cells | None = None


def read_photo(
    source: bytes | str | Path | np.ndarray,
    *,
    engine: str | None = None,
    max_pixels: int = MAX_PIXELS,
) -> Reading:
    """Read the sudoku in a photo given as a path, the file's bytes or a BGR array.

    Raises NotAnImage, ImageTooLarge, Unreadable (the source) or NoGridFound (the content).
    """
    start = time.perf_counter()
    image = load_image(source, max_pixels=max_pixels)
    load_ms = (time.perf_counter() - start) * 1000
    reading = read_image(image, engine=engine, max_pixels=max_pixels)
    reading.timings["load"] += load_ms
    return reading


def read_image(
    image: np.ndarray, *, engine: str | None = None, max_pixels: int = MAX_PIXELS
) -> Reading:
    """Read the sudoku in an already loaded image (BGR, BGRA or gray array)."""
    engine = engine or DEFAULT_ENGINE
    if engine not in ENGINES:
        raise ValueError(
            f"unknown recognition engine {engine!r}; choose one of {', '.join(ENGINES)}"
        )
    timings: dict[str, float] = {}
    clock = Stopwatch(timings)
    image = as_bgr(image, max_pixels=max_pixels)
    clock.lap("load")  # an array given directly: only its checks and conversion

    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    located = locate_grid(gray)
    clock.lap("locate")

    side = WARP_SIDE
    warped, homography = warp_grid(gray, located.corners, side)
    clock.lap("warp")

    cells = cut_cells(warped)
    clock.lap("cells")

    # print, pen and pencil told apart on the colour grid; the cell model also says which
    # way up the grid stands (the digit classifier alone is fooled by hand-writing)
    color = kinds = None
    if cell_model_path().is_file():
        color, _ = warp_grid(image, located.corners, side)
        k, kinds = upright_kinds(color, cells)
        color = np.ascontiguousarray(np.rot90(color, k))
    else:  # print only: no colour warp needed (a 12 MP one costs milliseconds)
        k = upright_turns(cells)
    cells = cells.rotated(k)
    corners, homography = turn(located.corners, homography, side, k)
    probabilities = recognise(cells, engine)
    if kinds is not None:
        if engine == DEFAULT_ENGINE:
            probabilities = printed_probabilities(kinds)
        else:  # the engine says which digit, the cell model whether it is print
            printed = kinds[:, 1:10].sum(axis=1)
            probabilities = probabilities * printed[:, None]
            probabilities[:, 0] += 1.0 - printed
    probabilities = calibrated(probabilities, engine)
    clock.lap("recognise")

    return Reading(
        givens=probabilities.argmax(axis=1).astype(np.int8).reshape(9, 9),
        probabilities=probabilities.astype(np.float32).reshape(9, 9, 10),
        corners=corners.astype(np.float32),
        homography=homography,
        side=side,
        cell_boxes=turn_boxes(cells.boxes, side, k).reshape(9, 9, 4),
        image=image,
        score=located.score,
        turns=k,
        timings=timings,
        kinds=kinds,
        warped=color,
        cells=cells,
    )


class Stopwatch:
    """Milliseconds since the last lap, written into a timings dict under the stage name."""

    def __init__(self, timings: dict[str, float]):
        self.timings = timings
        self.last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.timings[stage] = (now - self.last) * 1000
        self.last = now
