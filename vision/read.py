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
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from vision.board import Board, board_kind, diagonal_strokes
from vision.candidates import noted_candidates
from vision.cells import Cells, cut_cells, darkness, with_coloured_ink, without_coloured_ink
from vision.errors import UnsupportedBoard
from vision.gate import (
    gate_classes,
    gate_inputs,
    gate_path,
    print_kinds,
    sure_of_the_print,
    surely_print,
)
from vision.inkcolour import ink_colours, kinds_by_colour, may_show_a_pen, pen_ink
from vision.kinds import (
    cell_kinds,
    hand_digits,
    print_only,
    printed_probabilities,
    upright_kinds,
)
from vision.kinds import model_path as cell_model_path
from vision.lattice import SAMURAI
from vision.load import MAX_PIXELS, as_bgr, load_image
from vision.locate import Located, locate_grid, locate_grids, samurai_around
from vision.mesh import cell_homographies, cell_under, square_to_photo, warp_mesh
from vision.recognise import DEFAULT_ENGINE, ENGINES, calibrated, recognise, upright_turns
from vision.reread import faint_entries
from vision.symbols import CELL as SYMBOL_CELL
from vision.symbols import (
    alphabet_for,
    convention_of,
    cut_symbols,
    read_glyphs,
    symbol_odds,
    upright_turn,
)
from vision.typeface import kinds_by_typeface, kinds_unlike_the_print, kinds_without_a_hand
from vision.warp import WARP_SIDE, grid_homography, to_image, turn, turn_boxes, warp_grid


@dataclass
class Reading:
    """What was read from one photo.

    givens (9, 9) int8, 0 = empty; probabilities (9, 9, 10) float32 (column 0 = empty);
    corners (4, 2) float32 TL, TR, BR, BL of the upright grid in original-image pixels;
    homography (3, 3) float64, original-image pixels -> the upright warped square of `side`
    pixels; cell_boxes (9, 9, 4) x0, y0, x1, y1 of each cell in that square; ink_boxes
    (9, 9, 4) float x0, y0, x1, y1 of the ink the reader isolated in each cell, in that
    square, NaN where it found none (the drawing is placed and sized by it); image the
    loaded full-resolution BGR photo (EXIF orientation applied); score how sudoku-like the
    located grid looked (about 0.3-0.8); timings in milliseconds per stage.

    kinds (81, 20) float32: per cell the probability of each class of `vision.kinds.CLASSES`
    (empty, printed 1-9, written 1-9, candidates), or None when no cell model is installed;
    then `probabilities` are the printed view of them (a hand-written digit is "empty" for
    the puzzle). warped: the upright warped grid in colour the cell model read (None
    without one); cells: the cut cells, turned upright. print_probabilities (81, 10): with
    a cell model, what the print reader alone read (every digit taken for print), the
    reading of a photo before cell models: a second opinion for the solver.

    mesh (10, 10, 2): on a bent page, the crossings of the upright grid's curved lines in
    the photo, and cell_homographies (9, 9, 3, 3) each cell's own photo -> square map
    (`vision.mesh`); None on a flat page, where `homography` maps every cell. Use
    `to_photo` and `homography_at` to map either way.

    print_alone: the gate (`vision.gate`) found the page surely print alone, so the cell
    model was not asked; kinds are then the print reader's (`vision.gate.print_kinds`).
    """

    givens: np.ndarray
    probabilities: np.ndarray
    corners: np.ndarray
    homography: np.ndarray
    side: int
    cell_boxes: np.ndarray
    image: np.ndarray
    ink_boxes: np.ndarray
    score: float = 0.0
    turns: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    kinds: np.ndarray | None = None
    warped: np.ndarray | None = None
    cells: Cells | None = None
    print_probabilities: np.ndarray | None = None
    mesh: np.ndarray | None = None
    cell_homographies: np.ndarray | None = None
    print_alone: bool = False

    def to_photo(self, points: np.ndarray) -> np.ndarray:
        """Points (N, 2) of the upright square in the photo: through each point's cell's own
        homography on a bent page, through `homography` on a flat one."""
        if self.cell_homographies is None:
            return to_image(points, self.homography)
        return square_to_photo(points, self.cell_homographies, self.side)

    def homography_at(self, point) -> np.ndarray:
        """Photo -> square (3, 3) around a square point: its cell's on a bent page."""
        if self.cell_homographies is None:
            return self.homography
        rows, cols = cell_under(np.asarray(point, np.float64).reshape(1, 2), self.side)
        return self.cell_homographies[rows[0], cols[0]]


def read_photo(
    source: bytes | str | Path | np.ndarray,
    *,
    engine: str | None = None,
    max_pixels: int = MAX_PIXELS,
    calibrate: bool = True,
    gate: bool = True,
) -> Reading:
    """Read the sudoku in a photo.

    Parameters
    ----------
    source : bytes, str, Path or ndarray
        The photo: a path, the file's bytes, or a BGR array.
    engine : str, optional
        The digit recogniser (`vision.recognise.ENGINES`); by default the shipped classifier.
    max_pixels : int
        Width x height above which the photo is refused before decoding.
    calibrate : bool
        False leaves the engine's probabilities as it gave them (to fit a calibration on).
    gate : bool
        Let the gate (`vision.gate`) spare the cell model on a page surely print alone.

    Returns
    -------
    Reading

    Raises
    ------
    NotAnImage, ImageTooLarge, Unreadable
        The source is not a usable image.
    NoGridFound
        No sudoku grid in it.

    Examples
    --------
    >>> reading = read_photo("samples/sheet-01.jpg")
    >>> "".join(map(str, reading.givens[0])), reading.side
    ('970006002', 450)
    """
    start = time.perf_counter()
    image = load_image(source, max_pixels=max_pixels)
    load_ms = (time.perf_counter() - start) * 1000
    reading = read_image(
        image, engine=engine, max_pixels=max_pixels, calibrate=calibrate, gate=gate
    )
    reading.timings["load"] += load_ms
    return reading


@dataclass
class Page:
    """A decoded photo and every grid located in it, the main one first (`locate_grids`).

    A page holds several grids: they are all found first, then each is read by one call of
    `read_located`, as a photo's single grid is. image: the full-resolution BGR photo;
    gray: the same in grey; grids: where each grid is; timings: load and locate, in ms.
    """

    image: np.ndarray
    gray: np.ndarray
    grids: list[Located]
    timings: dict[str, float] = field(default_factory=dict)


def locate_page(source: bytes | str | Path | np.ndarray, *, max_pixels: int = MAX_PIXELS) -> Page:
    """Load a photo and find every sudoku grid in it.

    Raises
    ------
    NotAnImage, ImageTooLarge, Unreadable
        The source is not a usable image.
    NoGridFound
        No sudoku grid in it.

    Examples
    --------
    >>> page = locate_page("samples/sheet-01.jpg")
    >>> len(page.grids), sorted(page.timings)
    (1, ['load', 'locate'])
    """
    timings: dict[str, float] = {}
    clock = Stopwatch(timings)
    image = load_image(source, max_pixels=max_pixels)
    clock.lap("load")
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    grids = locate_grids(gray)
    clock.lap("locate")
    return Page(image, gray, grids, timings)


def read_image(
    image: np.ndarray,
    *,
    engine: str | None = None,
    max_pixels: int = MAX_PIXELS,
    calibrate: bool = True,
    gate: bool = True,
) -> Reading:
    """Read the sudoku in an already loaded image.

    Parameters
    ----------
    image : ndarray of uint8
        BGR, BGRA or grey.
    engine : str, optional
        The digit recogniser (`vision.recognise.ENGINES`); by default the shipped classifier.
    max_pixels : int
        Width x height above which the image is refused.
    calibrate : bool
        False leaves the engine's probabilities as it gave them.
    gate : bool
        Let the gate (`vision.gate`) spare the cell model on a page surely print alone.

    Returns
    -------
    Reading

    Examples
    --------
    >>> from vision.load import load_image
    >>> reading = read_image(load_image("samples/sheet-01.jpg"))
    >>> int((reading.givens > 0).sum()), reading.timings.keys() >= {"locate", "recognise"}
    (28, True)
    """
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
    return read_located(
        image, gray, located, engine=engine, timings=timings, calibrate=calibrate, gate=gate
    )


def read_located(
    image: np.ndarray,
    gray: np.ndarray,
    located: Located,
    *,
    engine: str | None = None,
    timings: dict[str, float] | None = None,
    calibrate: bool = True,
    gate: bool = True,
    boards: bool = False,
) -> Reading | BoardReading:
    """Read the grid already located in an image: warp, cut, turn upright, recognise.

    The live camera mode finds the grid by tracking it from the last frame's corners and
    reads only when its content changed, so locating and reading are separate steps.

    Parameters
    ----------
    image : np.ndarray
        The BGR image.
    gray : np.ndarray
        The same image in gray.
    located : Located
        Where the grid is (corners in any rotation: the read turns them upright).
    engine : str, optional
        The recogniser (default DEFAULT_ENGINE).
    timings : dict, optional
        Milliseconds per stage, added to.
    calibrate : bool
        False leaves the engine's probabilities as it gave them.
    gate : bool
        Let the gate (`vision.gate`) spare the cell model on a page surely print alone;
        False always asks it (`read_again`).
    boards : bool
        Tell the board's kind: a 6x6 or 16x16 (`Located.size`) is read by `read_board`, a
        diagonal 9x9 comes back as a `BoardReading` holding its 9x9 reading, and a kind
        not solved here (killer, jigsaw, samurai) raises UnsupportedBoard. Without it, every
        grid is read as a plain 9x9 (the live camera, the benches of the 9x9 reader).

    Returns
    -------
    Reading, or BoardReading (with `boards`)
    """
    engine = engine or DEFAULT_ENGINE
    timings = {} if timings is None else timings
    if boards and located.size == SAMURAI:
        raise UnsupportedBoard("samurai")
    if boards and located.size != 9:
        return read_board(image, gray, located, engine=engine, timings=timings)
    clock = Stopwatch(timings)
    side = WARP_SIDE
    corners, mesh = located.corners, located.mesh
    if mesh is None:
        warped, homography = warp_grid(gray, corners, side)
    else:  # a bent page: each cell warped by its own four crossings
        corners = np.float32([mesh[0, 0], mesh[0, 9], mesh[9, 9], mesh[9, 0]])
        homography = grid_homography(corners, side)
        warped = warp_mesh(gray, cell_homographies(mesh, side), side)
    clock.lap("warp")
    board = lined = None
    if boards:
        board = Board(9, (3, 3), refused="samurai") if samurai_around(gray, corners) else None
        board = board or board_kind(warped, 9)
        if board.refused:
            raise UnsupportedBoard(board.refused)
        lined = diagonal_strokes(warped) if board.variant == "diagonal" else None
        if lined is not None:  # lines drawn corner to corner cross the digits: lifted off
            warped = cv2.inpaint(warped, lined, 3, cv2.INPAINT_TELEA)

    model = cell_model_path()
    # the gate's rule and figures are the default engine's (its calibrated sureness): with
    # another engine (Tesseract) the cell model always reads
    gated = gate and engine == DEFAULT_ENGINE and model.is_file() and gate_path(model).is_file()
    dark = darkness(warped) if gated else None
    cells = cut_cells(warped, dark=dark)
    clock.lap("cells")

    # print, pen and pencil told apart on the colour grid; the cell model also says which
    # way up the grid stands (the digit classifier alone is fooled by hand-writing)
    color = kinds = probabilities = None
    plain = alone = False
    k = turns = upright_turns(cells)
    cut = cells
    if gated:  # a page surely print alone spares the cell model (`vision.gate`)
        probabilities = recognise(cells.rotated(k), engine)
        sure = calibrated(probabilities, engine)  # what the gate's rule weighs
        alone = print_alone(dark, cells, k, sure, gate_path(model))
        if alone:
            cells = without_coloured_ink(cells)
    if model.is_file() and not alone:  # else print only: no colour warp (milliseconds at 12 MP)
        if mesh is None:
            color, _ = warp_grid(image, corners, side, nearest=True)
        else:
            color = warp_mesh(image, cell_homographies(mesh, side), side)
        if lined is not None:
            color = cv2.inpaint(color, lined, 3, cv2.INPAINT_TELEA)
        cells, k, kinds, plain = kinds_in_colour(color, cells, k)
        if not plain:
            cells, kinds = weighed_by_page(color, cells, k, kinds)
        color = np.ascontiguousarray(np.rot90(color, k))
    cells = cells.rotated(k)
    corners, homography = turn(corners, homography, side, k)
    if mesh is not None:
        mesh = np.rot90(mesh, k).copy()  # the crossings turned as the cells are
    if probabilities is None or not alone and (cells.images is not cut.images or k != turns):
        probabilities = recognise(cells, engine)  # the colour look cut more, or a turn changed
    print_reading = None
    if alone:  # what the cell model says of a page of print alone: nothing written
        kinds = print_kinds(sure)
    elif kinds is not None:  # the cell model says whether print, the engines which digit
        if not plain:
            kinds = kinds_without_a_hand(kinds, cells.blobs, cells.images)
            boxes = turn_boxes(cells.boxes, side, k)  # in the upright colour grid
            cells, kinds = with_faint_entries(color, boxes, cells, kinds)
            kinds = noted_candidates(color, boxes, kinds)  # "34" noted is not one entry
        print_reading = calibrated(probabilities, engine) if calibrate else probabilities
        probabilities = printed_probabilities(kinds, probabilities, cells.ink)
    if calibrate:
        probabilities = sure if alone else calibrated(probabilities, engine)
    clock.lap("recognise")

    reading = Reading(
        givens=probabilities.argmax(axis=1).astype(np.int8).reshape(9, 9),
        probabilities=probabilities.astype(np.float32).reshape(9, 9, 10),
        corners=corners.astype(np.float32),
        homography=homography,
        side=side,
        cell_boxes=turn_boxes(cells.boxes, side, k).reshape(9, 9, 4),
        image=image,
        ink_boxes=ink_boxes(cells, side, k),
        score=located.score,
        turns=k,
        timings=timings,
        kinds=kinds,
        warped=color,
        cells=cells,
        print_probabilities=None if print_reading is None else print_reading.astype(np.float32),
        mesh=mesh,
        cell_homographies=None if mesh is None else cell_homographies(mesh, side),
        print_alone=alone,
    )
    if board is not None and board.variant != "standard":
        return as_board(reading, board)
    return reading


@dataclass
class BoardReading:
    """What was read from a board other than the plain 9x9 (`read_board`): a 6x6, a 16x16,
    or a diagonal sudoku.

    board: its kind (`vision.board.Board`, box shape as upright); symbols: the printed
    form of each value 1..size (a 16x16's "A" or "12"); convention: a 16x16's way of
    printing them (`vision.symbols.CONVENTIONS`), else None; givens (size, size) int8, 0
    empty; probabilities (size, size, size + 1) float32, column 0 empty; corners,
    homography, side: as `Reading`'s, the upright square `side` pixels; cell_boxes (size,
    size, 4) and ink_boxes (size, size, 4) in that square (NaN where no ink); image the
    photo. A diagonal 9x9 is read by the 9x9 reader and keeps its `Reading` as `nine`.
    """

    board: Board
    symbols: tuple[str, ...]
    convention: str | None
    givens: np.ndarray
    probabilities: np.ndarray
    corners: np.ndarray
    homography: np.ndarray
    side: int
    cell_boxes: np.ndarray
    ink_boxes: np.ndarray
    image: np.ndarray
    score: float = 0.0
    turns: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    nine: Reading | None = None

    @property
    def inked(self) -> np.ndarray:
        """(size, size) bool: where the photo shows a mark (a glyph cut; on a diagonal 9x9, a
        blob the 9x9 reader cut): the only cells a correction may give a symbol."""
        if self.nine is not None and self.nine.cells is not None:
            return np.asarray(self.nine.cells.blobs, bool).reshape(self.size, self.size)
        return ~np.isnan(self.ink_boxes[..., 0])

    @property
    def size(self) -> int:
        return self.board.size

    def to_photo(self, points: np.ndarray) -> np.ndarray:
        return to_image(points, self.homography)

    def homography_at(self, point) -> np.ndarray:
        return self.homography


def read_board(
    image: np.ndarray,
    gray: np.ndarray,
    located: Located,
    *,
    engine: str | None = None,
    timings: dict[str, float] | None = None,
) -> BoardReading:
    """Read a 6x6 or 16x16 board already located (`Located.size`): warp it at
    `vision.symbols.CELL` pixels a cell, tell its boxes (`vision.board`), turn it upright
    by its glyphs (`vision.symbols.upright_turn`, only among the turns its box shape
    allows), cut and read its glyphs, and weigh every cell's symbols by the convention
    that explains the board best.

    Raises UnsupportedBoard for a kind the project does not solve.
    """
    engine = engine or DEFAULT_ENGINE
    timings = {} if timings is None else timings
    clock = Stopwatch(timings)
    size = located.size
    side = size * SYMBOL_CELL
    warped, homography = warp_grid(gray, located.corners, side)
    clock.lap("warp")
    board = board_kind(warped, size)
    if board.refused:
        raise UnsupportedBoard(board.refused)
    cells = cut_symbols(warped, size)
    allowed = [0, 1, 2, 3]
    if board.box_shape[0] != board.box_shape[1]:  # a 6x6's boxes stand 2 rows by 3 columns
        allowed = [0, 2] if board.box_shape == (2, 3) else [1, 3]
    k = upright_turn(cells, allowed)
    corners, homography = turn(located.corners, homography, side, k)
    if k:
        warped = np.ascontiguousarray(np.rot90(warped, k))
        cells = cut_symbols(warped, size)
    clock.lap("cells")
    box = board.box_shape if k % 2 == 0 else board.box_shape[::-1]
    board = replace(board, box_shape=box)
    glyphs = read_glyphs(np.array([g for c in cells for g in c.glyphs]).reshape(-1, 28, 28), engine)
    per_cell, at = [], 0
    for c in cells:
        per_cell.append(glyphs[at : at + len(c.glyphs)])
        at += len(c.glyphs)
    convention = convention_of(per_cell, size)
    symbols = alphabet_for(size, convention)
    odds = symbol_odds(per_cell, symbols)
    clock.lap("recognise")
    edges = np.arange(size) * SYMBOL_CELL
    cell_boxes = np.stack(
        np.broadcast_arrays(
            edges[None, :],
            edges[:, None],
            edges[None, :] + SYMBOL_CELL,
            edges[:, None] + SYMBOL_CELL,
        ),
        axis=-1,
    )
    ink = np.full((size * size, 4), np.nan)
    for i, c in enumerate(cells):
        if c.boxes:
            xs = [b[0] for b in c.boxes] + [b[0] + b[2] for b in c.boxes]
            ys = [b[1] for b in c.boxes] + [b[1] + b[3] for b in c.boxes]
            ink[i] = (min(xs), min(ys), max(xs), max(ys))
    return BoardReading(
        board=board,
        symbols=symbols,
        convention=convention,
        givens=odds.argmax(axis=1).astype(np.int8).reshape(size, size),
        probabilities=odds.reshape(size, size, size + 1),
        corners=corners.astype(np.float32),
        homography=homography,
        side=side,
        cell_boxes=cell_boxes,
        ink_boxes=ink.reshape(size, size, 4),
        image=image,
        score=located.score,
        turns=k,
        timings=timings,
    )


def as_board(reading: Reading, board: Board) -> BoardReading:
    """A diagonal 9x9's reading by the 9x9 reader, as a board's: its digits are the
    symbols, its printed view the probabilities."""
    return BoardReading(
        board=board,
        symbols=tuple("123456789"),
        convention=None,
        givens=reading.givens,
        probabilities=reading.probabilities,
        corners=reading.corners,
        homography=reading.homography,
        side=reading.side,
        cell_boxes=reading.cell_boxes,
        ink_boxes=reading.ink_boxes,
        image=reading.image,
        score=reading.score,
        turns=reading.turns,
        timings=reading.timings,
        nine=reading,
    )


def warm_up() -> None:
    """Load now what the first photo would otherwise wait for: the digit model and its
    calibration, the cell and hand model sessions (`vision.kinds.warm_up`), the image
    decoders' plug-ins and OpenCV's colour tables. Measured here: the first photo after
    start-up 1.0 s with them left to it, against 0.35 s for the next."""
    from PIL import Image

    from vision import gate, kinds
    from vision.cells import cell_interiors, cell_peaks, grown_ink
    from vision.load import area_means
    from vision.locate import comb_totals
    from vision.mesh import best_paths
    from vision.recognise import calibrations, load_model
    from vision.render import blend, default_font, place

    Image.init()
    cv2.cvtColor(np.zeros((1, 1, 3), np.uint8), cv2.COLOR_BGR2LAB)
    load_model()
    calibrations()
    kinds.warm_up()
    gate.warm_up(kinds.model_path())
    default_font()
    best_paths(np.zeros((2, 3), np.float32), np.ones((1, 2)), 1, 0.1)  # the compiled trace
    area_means()(np.zeros((3, 3), np.uint8), 3)  # the locator's small copy of a large photo
    comb_totals()(np.zeros(4, np.float32), 1.0, np.zeros(1), np.ones(1))  # its corners' combs
    # the cut's digits (`vision.cells.digit_image`), on a cell of a grid as it cuts
    cell = np.zeros((2, 3), np.float32)[:, :2]
    grown_ink()(np.ones((2, 2), bool), np.ones((2, 2), np.int32), 2, cell, 0.1)
    cell_interiors()(np.zeros((2, 2), np.uint8), np.zeros((1, 4), np.int64), np.zeros(1, bool))
    middle = np.zeros((1, 4), np.int64)
    cell_peaks()(
        np.zeros((2, 2), np.float32),
        np.zeros((2, 2), np.uint8),
        middle,
        middle.astype(np.int32),
        np.ones(1, bool),
    )
    # the compiled drawing (`vision.render.Page.stamp`), on a box of a photo as it draws
    place()(1, 1, 0.0, 0.0, 1.0, 1.0, 1.0, np.eye(3), np.eye(3), 4, 4)
    box = np.zeros((2, 3, 3), np.uint8)[:, :2]  # a view: rows apart, as in a photo
    blend()(box, np.ones((2, 2), np.uint8), np.zeros(3, np.int32))


def print_alone(dark: np.ndarray, cells: Cells, k: int, reading: np.ndarray, gate: Path) -> bool:
    """Whether the gate (`vision.gate`) finds the cut cells (not yet turned) a page of print
    alone, with `reading` the print reader's calibrated probabilities of the cells turned
    `k` quarter turns upright. A digit the print reader is unsure of settles it first,
    without the gate's network: most hand-filled pages stop there."""
    order = np.rot90(np.arange(81).reshape(9, 9), k).ravel()
    ink = cells.ink[order]
    if not sure_of_the_print(reading, ink):
        return False
    classes = gate_classes(gate_inputs(dark, cells), gate)[order]
    return surely_print(classes, reading, ink)


def read_again(reading: Reading, engine: str | None = None) -> Reading:
    """The grid of a reading the gate passed as print alone, read again with the cell model
    asked (`read_located` with `gate=False`): what the photo pipeline does when that
    reading did not solve as it stood, since a person's wrong entry taken for print leaves
    no solution, and the cell model reads some faint or doubtful print better."""
    start = time.perf_counter()
    gray = cv2.cvtColor(reading.image, cv2.COLOR_BGR2GRAY)
    located = Located(reading.corners, reading.score, mesh=reading.mesh)
    again = read_located(reading.image, gray, located, engine=engine, timings={}, gate=False)
    again.timings = {**reading.timings, "read again": (time.perf_counter() - start) * 1000}
    return again


def kinds_in_colour(color: np.ndarray, cells: Cells, k: int) -> tuple[Cells, int, np.ndarray, bool]:
    """The cells with what colour adds (`with_coloured_ink`), the turn, the cell model's kinds
    (with the hand model's digits, `vision.kinds.upright_kinds`) and whether the page reads
    as print alone (`print_only`: then the hand's further looks could change nothing).

    The cell model first reads the grey cut's cells, in turn `k` or its half turn. A page it
    reads as print alone is not looked at in colour: the colour look (about 5 ms) only
    seeks digits in cells without grey ink, which the print-only reading leaves empty.
    Otherwise the colour look runs, and only where it finds a digit is the model asked
    again (those cells too; the channels are the same), which is then what reading after
    the colour look always gave. On Wicht's 160 print-only photos the colour look found
    something on 11, none that changed a status, given or solution (checked over all 400
    labelled photos against the reading after the colour look: see docs/benchmarks.md,
    Round 5).
    """
    turns = (k, k + 2)
    k, kinds, channels = cell_kinds(color, cells, turns)
    if print_only(kinds):
        return without_coloured_ink(cells), k, kinds, True
    cells = with_coloured_ink(color, cells)  # pen the grey threshold missed
    if cells.pen.ink.any():  # the cells it found are asked about too
        k, kinds, _ = cell_kinds(color, cells, turns, channels=channels)
        if print_only(kinds):
            return cells, k, kinds, True
    return cells, k, hand_digits(kinds, channels, k, cells), False


def weighed_by_page(
    color: np.ndarray, cells: Cells, k: int, kinds: np.ndarray
) -> tuple[Cells, np.ndarray]:
    """The cells and the cell model's kinds (of the cells turned `k` quarter turns)
    corrected by what the whole page says: its print has one ink and its entries their
    pen's (`vision.inkcolour`), and a press repeats its glyphs, so a digit unlike the page's
    print of it is a hand's (`vision.typeface`). Digits found in colour alone in the page's
    pen join the cells, which are read again with them in view. Colour is measured only on
    a page with surely written cells to learn a pen from (`may_show_a_pen`)."""
    turned = cells.rotated(k)
    if not may_show_a_pen(kinds):
        return cells, by_typeface(kinds, turned.images)
    # turned cells' boxes stay in the unturned colour grid's coordinates
    boxes = np.concatenate([turned.ink_boxes, turned.pen.ink_boxes])
    by_colour = np.repeat([False, True], 81)  # the pen's boxes: ink found in colour
    colours, pen_colours = np.split(ink_colours(color, boxes, by_colour), 2)
    kinds = by_typeface(kinds_by_colour(kinds, colours), turned.images)
    # digits found in colour alone, in the page's pen: read again with them in view
    joining = pen_ink(kinds, colours, turned.pen.ink, pen_colours)
    if joining.any():
        cells = cells.with_pen(np.rot90(np.arange(81).reshape(9, 9), k).ravel()[joining])
        _, kinds = upright_kinds(color, cells, turns=(k,), spare_print=False)
        colours = np.where(joining[:, None], pen_colours, colours)
        kinds = by_typeface(kinds_by_colour(kinds, colours), cells.rotated(k).images)
    return cells, kinds


def with_faint_entries(
    color: np.ndarray, boxes: np.ndarray, cells: Cells, kinds: np.ndarray
) -> tuple[Cells, np.ndarray]:
    """The upright cells and kinds with the faint pencil the grey cut missed: where the cell
    model sees a hand's mark and no digit was cut, the cell is cut against its own paper
    and read by the hand models (`vision.reread.faint_entries`); those cells then count as
    marked, their contrast the mark's."""
    printed = cells.ink & (kinds[:, 1:10].sum(axis=1) > 0.5)
    print_ink = float(np.median(cells.contrast[printed])) if printed.any() else 0.0
    kinds, found, contrast = faint_entries(color, boxes, kinds, cells.blobs, print_ink)
    if not found.any():
        return cells, kinds
    marked = cells.blobs | found
    return replace(cells, marked=marked, contrast=np.where(found, contrast, cells.contrast)), kinds


def by_typeface(kinds: np.ndarray, images: np.ndarray) -> np.ndarray:
    """The kinds weighed by the page's typeface: a digit with a twin is print, and a doubtful
    one unlike the page's sure print of it a hand's (`vision.typeface`)."""
    return kinds_unlike_the_print(kinds_by_typeface(kinds, images), images)


def ink_boxes(cells: Cells, side: int, k: int) -> np.ndarray:
    """(9, 9, 4) float boxes of the ink found in the cells (turned upright by `k` quarter
    turns), NaN in the cells where none was found."""
    boxes = turn_boxes(cells.ink_boxes, side, k).astype(np.float64)
    boxes[~cells.ink] = np.nan
    return boxes.reshape(9, 9, 4)


class Stopwatch:
    """Milliseconds since the last lap, written into a timings dict under the stage name."""

    def __init__(self, timings: dict[str, float]):
        self.timings = timings
        self.last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.timings[stage] = (now - self.last) * 1000
        self.last = now
