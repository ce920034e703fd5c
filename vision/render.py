"""Draw the solved digits back onto the user's photo, in perspective, as if printed there.

Why this shape: the photo may be 12 MP while the grid was read in a small upright square. Each
digit is rendered once, anti-aliased, as a small alpha patch at about the resolution its cell has
in the photo, then warped straight into the photo through the inverse homography (its cell's
own on a bent page), touching only that digit's bounding box (`cv2.warpPerspective` with
`WARP_INVERSE_MAP`). The cost grows with the number of drawn pixels, not with the photo: a
few milliseconds plus one copy.

Everything is placed by what the reader found (`vision.read.Reading`): its homography and
cell boxes, and the ink it isolated in each cell. Digits are sized like the printed givens'
ink, centred on the cell (moved a little to line up with the print around it), in a strong
blue shaded by the local paper brightness so a digit in a shadow is darker too. Corrected
cells (givens the rules made us re-read) get an orange ring; where the rules set a reading
aside (pencil marks, hand-writing or a smudge taken for a digit), the cell still needs its
answer, which is drawn over that ink. Pixels outside drawn digits, rings and the optional
outline are left exactly as they were. See `draw_solution` for an example.
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.compiled import on_first_use
from vision.read import Reading

DIGIT_COLOUR = (200, 80, 0)  # BGR: a strong blue, unlike black or grey print
CORRECTED_COLOUR = (0, 120, 255)  # BGR orange
OUTLINE_COLOUR = (60, 180, 60)  # BGR green
MISTAKE_COLOUR = (30, 30, 220)  # BGR red: a wrong entry's strike and its right digit
HINT_COLOUR = (200, 60, 160)  # BGR violet: the cells a hint rests on
UNCLEAR_COLOUR = (0, 140, 235)  # BGR amber: entries the reader could not tell, to look at
DEFAULT_HEIGHT = 0.6  # digit height / cell height when the givens cannot be measured
MASTER = 256  # digits are drawn once this tall per font, then shrunk to each size

FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSans-Bold.otf",
)


@functools.cache
def default_font() -> str | None:
    """The first installed TTF/OTF of FONT_CANDIDATES; None means draw with Hershey strokes."""
    return next((path for path in FONT_CANDIDATES if Path(path).is_file()), None)


# ---------------------------------------------------------------------------------------------
# Glyphs: alpha patches, rendered once per digit, height and font


@functools.lru_cache(maxsize=1024)
def glyph(
    digit: int, height: int, font: str | None = None, soft: bool = False
) -> tuple[np.ndarray, float, float]:
    """`digit` as an alpha patch whose ink is `height` pixels tall, with its centre.

    The centre is that of the ink's bounding box, in pixel-centre coordinates of the patch; a
    one-pixel empty margin keeps the warp's interpolation from cutting strokes.

    Parameters
    ----------
    digit : int
        1..9.
    height : int
        The ink's height in pixels.
    font : str or None
        A TTF/OTF path, or None for OpenCV's Hershey strokes.
    soft : bool
        Blur it by a Gaussian of 1.2 pixels.

    Returns
    -------
    alpha : ndarray of uint8, shape (h, w)
        Read-only (it is cached).
    cx, cy : float
        The ink's centre in the patch.

    Examples
    --------
    >>> alpha, cx, cy = glyph(7, 40, None)
    >>> rows = np.nonzero(alpha.max(axis=1) > 127)[0]
    >>> int(rows.max() - rows.min() + 1) in (39, 40, 41)
    True
    """
    height = max(4, int(height))
    if font is None:
        return _soften(_hershey_glyph(digit, height), soft)
    if height > MASTER:
        return _soften(_rendered(digit, height, font), soft)
    alpha, cx, cy = _rendered(digit, MASTER, font)  # shrinking it beats loading a font size
    w, h = (
        max(1, round(alpha.shape[1] * height / MASTER)),
        max(1, round(alpha.shape[0] * height / MASTER)),
    )
    small = cv2.resize(alpha, (w, h), interpolation=cv2.INTER_AREA)
    cx, cy = (cx + 0.5) * w / alpha.shape[1] + 0.5, (cy + 0.5) * h / alpha.shape[0] + 0.5
    small = cv2.copyMakeBorder(small, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    small.flags.writeable = False
    return _soften((small, cx, cy), soft)


@functools.lru_cache(maxsize=64)
def _rendered(digit: int, height: int, font: str) -> tuple[np.ndarray, float, float]:
    """`digit` drawn by FreeType with an '8' `height` pixels tall, cropped, with its centre."""
    face = _face(font, max(4, round(height / _eight_height(font))))
    left, top, right, bottom = face.getbbox(str(digit), anchor="lt")
    canvas = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(canvas).text((2 - left, 2 - top), str(digit), font=face, fill=255, anchor="lt")
    return _centred(np.asarray(canvas))


def _soften(shape: tuple[np.ndarray, float, float], soft: bool) -> tuple[np.ndarray, float, float]:
    """`shape` (alpha, centre x, centre y) blurred by a 1.2 px Gaussian, margin grown to fit."""
    if not soft:
        return shape
    alpha, cx, cy = shape
    wide = cv2.copyMakeBorder(alpha, 4, 4, 4, 4, cv2.BORDER_CONSTANT, value=0)
    wide = cv2.GaussianBlur(wide, (0, 0), 1.2)
    wide.flags.writeable = False
    return wide, cx + 4, cy + 4


@functools.lru_cache(maxsize=256)
def _face(font: str, size: int) -> ImageFont.FreeTypeFont:
    """The font file loaded at `size` pixels (loading costs about a millisecond: keep it)."""
    return ImageFont.truetype(font, size)


@functools.cache
def _eight_height(font: str) -> float:
    """Ink height of an '8' per pixel of font size: what a digit's height is measured by."""
    left, top, right, bottom = _face(font, 200).getbbox("8", anchor="lt")
    return (bottom - top) / 200


def _ladder(x: float) -> int:
    """`x` rounded to a step of a geometric ladder (9% apart), so glyphs are reused across
    cells and photos instead of rendered for every size."""
    return max(4, round(2 ** (round(math.log2(max(x, 1.0)) * 8) / 8)))


def _hershey_glyph(digit: int, height: int) -> tuple[np.ndarray, float, float]:
    """The fallback glyph when no TTF is installed: OpenCV's stroke font, anti-aliased."""
    return _centred(_hershey(str(digit), height / _hershey_eight()))


@functools.cache
def _hershey_eight() -> float:
    """Ink height of a Hershey '8' per unit of scale (getTextSize's height is not the ink's)."""
    alpha = _hershey("8", 4.0)
    ys = np.nonzero((alpha > 127).any(1))[0]
    return (ys.max() - ys.min() + 1) / 4.0


def _hershey(text: str, scale: float) -> np.ndarray:
    """`text` in OpenCV's Hershey duplex font at `scale`, stroke width ~1/9 of the height."""
    font = cv2.FONT_HERSHEY_DUPLEX
    thickness = max(1, round(22 * scale / 9))
    (w, h), base = cv2.getTextSize(text, font, scale, thickness)
    canvas = np.zeros((h + base + 2 * thickness + 4, w + 2 * thickness + 4), np.uint8)
    origin = (thickness + 2, h + thickness + 2)
    cv2.putText(canvas, text, origin, font, scale, 255, thickness, cv2.LINE_AA)
    return canvas


def _centred(alpha: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Crop `alpha` to its ink plus a 1 px margin; return it with the ink box centre."""
    x, y, w, h = cv2.boundingRect(np.ascontiguousarray(alpha))  # of the non-zero pixels
    y0, y1, x0, x1 = y - 1, y + h + 1, x - 1, x + w + 1
    patch = np.ascontiguousarray(alpha[max(0, y0) : y1, max(0, x0) : x1])
    patch.flags.writeable = False
    return patch, (x1 - x0 - 1) / 2, (y1 - y0 - 1) / 2


@functools.lru_cache(maxsize=64)
def ring(size: int, soft: bool = False) -> tuple[np.ndarray, float, float]:
    """An anti-aliased circle outline filling a `size`-pixel square, with its centre."""
    size = max(8, int(size))
    canvas = np.zeros((size + 2, size + 2), np.uint8)
    shift = 4
    radius = (size / 2 - max(1, size / 16)) * (1 << shift)
    centre = round((size + 1) / 2 * (1 << shift))
    thickness = max(1, round(size / 14))
    cv2.circle(canvas, (centre, centre), round(radius), 255, thickness, cv2.LINE_AA, shift)
    canvas.flags.writeable = False
    return _soften((canvas, (size + 1) / 2, (size + 1) / 2), soft)


@functools.lru_cache(maxsize=64)
def strike(size: int, soft: bool = False) -> tuple[np.ndarray, float, float]:
    """An anti-aliased stroke from the lower left to the upper right of a `size`-pixel
    square, like a pen striking a digit out, with the square's centre."""
    size = max(8, int(size))
    canvas = np.zeros((size + 2, size + 2), np.uint8)
    shift = 4
    a, b = round(0.12 * size * (1 << shift)), round(0.88 * size * (1 << shift))
    thickness = max(2, round(size / 10))
    cv2.line(canvas, (a, b), (b, a), 255, thickness, cv2.LINE_AA, shift)
    canvas.flags.writeable = False
    return _soften((canvas, (size + 1) / 2, (size + 1) / 2), soft)


@functools.lru_cache(maxsize=64)
def frame(size: int, soft: bool = False) -> tuple[np.ndarray, float, float]:
    """A rounded square outline filling a `size`-pixel square: a highlighted cell."""
    size = max(8, int(size))
    canvas = np.zeros((size + 2, size + 2), np.uint8)
    thickness = max(2, round(size / 12))
    inset = thickness
    cv2.rectangle(
        canvas, (inset, inset), (size + 1 - inset, size + 1 - inset), 255, thickness, cv2.LINE_AA
    )
    canvas.flags.writeable = False
    return _soften((canvas, (size + 1) / 2, (size + 1) / 2), soft)


# ---------------------------------------------------------------------------------------------
# What to draw, and how


@dataclass(frozen=True)
class Overlay:
    """What to draw, cell by cell: each field a (9, 9) array; None draws none of that kind.

    Parameters
    ----------
    digits : ndarray of int, shape (9, 9)
        The digit to draw in each cell, 0 for nothing.
    corrected : ndarray of bool, optional
        Cells the rules re-read: ringed in orange (around the print the reader found there);
        where the reader found no print, their digit is drawn, in orange.
    cleared : ndarray of bool, optional
        Corrected cells whose ink was not print (the rules dropped what was read there):
        their digit is drawn, in orange and ringed, over that ink.
    over_ink : ndarray of bool, optional
        Cells whose ink is not print (pencil candidates): their digit is drawn over it.
    wrong : ndarray of bool, optional
        Hand-written entries that are wrong: struck through in red, with their `digits`
        value (the right digit, when given) drawn small beside, in red.
    highlight : ndarray of bool, optional
        Cells framed in violet (what a hint rests on).
    unclear : ndarray of bool, optional
        Hand-written entries the reader could not tell from another digit: framed in
        amber, for the user to look at.
    """

    digits: np.ndarray
    corrected: np.ndarray | None = None
    cleared: np.ndarray | None = None
    over_ink: np.ndarray | None = None
    wrong: np.ndarray | None = None
    highlight: np.ndarray | None = None
    unclear: np.ndarray | None = None

    def __post_init__(self) -> None:
        digits = _shaped("digits", self.digits, (9, 9), np.int64)
        if digits.min() < 0 or digits.max() > 9:
            raise ValueError("digits must hold 0 (draw nothing) or 1..9")
        object.__setattr__(self, "digits", digits)
        for name in ("corrected", "cleared", "over_ink", "wrong", "highlight", "unclear"):
            mask = _shaped(name, getattr(self, name), (9, 9), bool)
            object.__setattr__(self, name, np.zeros((9, 9), bool) if mask is None else mask)
        object.__setattr__(self, "cleared", self.cleared & self.corrected)


@dataclass(frozen=True)
class Style:
    """How to draw.

    Parameters
    ----------
    outline : bool
        Draw the found grid's edge (the reading's corners) in green.
    digit_height : float, optional
        Digit height as a fraction of a cell; by default that of the print the reader found.
    colour : tuple of int
        BGR of the solved digits.
    font : str or None
        A TTF/OTF path, "default" (the first of FONT_CANDIDATES installed), or None for
        OpenCV's Hershey strokes.
    soften : bool
        Blur our digits as much as the print is blurred, so they sit in the photo like it.
    inplace : bool
        Draw into the reading's image itself and return it (saves a copy: 7 ms at 12 MP).
    """

    outline: bool = False
    digit_height: float | None = None
    colour: tuple[int, int, int] = DIGIT_COLOUR
    font: str | None = "default"
    soften: bool = True
    inplace: bool = False


def _shaped(name: str, value, shape: tuple[int, ...], dtype) -> np.ndarray | None:
    """`value` as an array of `shape` (None stays None), or a ValueError naming `name`."""
    if value is None:
        return None
    array = np.asarray(value, dtype)
    if array.size != int(np.prod(shape)):
        raise ValueError(f"{name} must have shape {shape}, not {array.shape}")
    return array.reshape(shape)


# ---------------------------------------------------------------------------------------------
# Where the cells are, and the print the reader found in them


@dataclass(frozen=True)
class Layout:
    """Where and how big each cell's drawing goes, from the reader's cells and print.

    centres (9, 9, 2) and heights (9, 9) of the cells in the upright square; places (9, 9,
    2): where a digit goes (the centre, moved to follow the print around it); scales (9, 9):
    glyph pixels per square pixel for a sharp glyph at the cell's size in the photo; tints
    (9, 9, 3): the paper's light there; inks {(r, c): box}: the ink the reader found in each
    cell (x0, y0, x1, y1); digit_height: a cell's fraction our digits are drawn at; blur:
    the print's Gaussian sigma in photo pixels.
    """

    centres: np.ndarray
    heights: np.ndarray
    places: np.ndarray
    scales: np.ndarray
    tints: np.ndarray
    inks: dict
    digit_height: float
    blur: float


def layout(reading: Reading, style: Style) -> Layout:
    """The cells, their print and their light, as the reader found them in `reading`."""
    to_photo = reading.to_photo
    centres, heights = cell_centres(reading.side, reading.cell_boxes)
    inks = ink_boxes(reading)
    prints = {cell: box for cell, box in inks.items() if reading.givens[cell]}
    height = style.digit_height or printed_height(prints, heights) or DEFAULT_HEIGHT
    # our glyph, warped, is already about as soft as a 0.6 px Gaussian
    blur = print_blur(reading.image, to_photo, prints) if style.soften else 0.0
    return Layout(
        centres=centres,
        heights=heights,
        places=centres + print_offsets(prints, centres, heights),
        scales=1.25 * local_scales(to_photo, centres, heights),
        tints=paper_tints(reading.image, to_photo, centres, heights),
        inks=inks,
        digit_height=float(np.clip(height, 0.3, 0.85)),
        blur=math.sqrt(max(blur**2 - 0.36, 0)),
    )


def ink_boxes(reading: Reading) -> dict:
    """{(row, column): (x0, y0, x1, y1)} of the ink the reader found, in the upright square."""
    return {
        (int(r), int(c)): tuple(reading.ink_boxes[r, c])
        for r, c in np.argwhere(~np.isnan(reading.ink_boxes[..., 0]))
    }


def cell_centres(side: int, cell_boxes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The cells' centres and heights in the upright square.

    Parameters
    ----------
    side : int
        The square's side in pixels.
    cell_boxes : ndarray, shape (9, 9, 4), optional
        x0, y0, x1, y1 of each cell as the reader found it; by default a regular 9x9 split.

    Returns
    -------
    centres : ndarray, shape (9, 9, 2)
        x, y of each cell's centre.
    heights : ndarray, shape (9, 9)

    Examples
    --------
    >>> centres, heights = cell_centres(90)
    >>> centres[0, 1].tolist(), float(heights[0, 0])
    ([14.5, 4.5], 10.0)
    """
    if cell_boxes is None:
        step = side / 9
        idx = (np.arange(9) + 0.5) * step - 0.5
        xs, ys = np.meshgrid(idx, idx)
        return np.stack([xs, ys], -1), np.full((9, 9), step)
    boxes = np.asarray(cell_boxes, np.float64).reshape(9, 9, 4)
    return _box_centres(boxes), np.maximum(boxes[..., 3] - boxes[..., 1], 1)


def _box_centres(boxes: np.ndarray) -> np.ndarray:
    """(..., 2) pixel-centre x, y of boxes (..., 4) x0, y0, x1, y1 (x1, y1 exclusive)."""
    boxes = np.asarray(boxes, np.float64)
    return np.stack(
        [(boxes[..., 0] + boxes[..., 2] - 1) / 2, (boxes[..., 1] + boxes[..., 3] - 1) / 2], -1
    )


def printed_height(prints: dict, heights: np.ndarray) -> float | None:
    """Median ink height / cell height of the printed digits `prints` {(r, c): box}; None
    when fewer than three were found."""
    ratios = [(box[3] - box[1]) / heights[cell] for cell, box in prints.items()]
    return float(statistics.median(ratios)) if len(ratios) >= 3 else None


def print_offsets(prints: dict, centres: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """(9, 9, 2) where the print sits relative to each cell's centre, in square pixels.

    A smooth field through the printed digits' offsets (Gaussian weights, 1.2 cells): on a
    curled page, or with cell boxes a little off, our digits then line up with the print
    around them. At most 0.25 of a cell.
    """
    if not prints:
        return np.zeros((9, 9, 2))
    cells = np.array(list(prints))  # (n, 2) row, column
    shift = _box_centres(list(prints.values())) - centres[cells[:, 0], cells[:, 1]]  # (n, 2)
    rows, cols = np.mgrid[0:9, 0:9]
    d2 = (rows[..., None] - cells[:, 0]) ** 2 + (cols[..., None] - cells[:, 1]) ** 2
    weight = np.exp(-d2 / (2 * 1.2**2))  # (9, 9, n)
    offsets = weight @ shift / weight.sum(-1, keepdims=True)
    limit = 0.25 * heights[..., None]
    return np.clip(offsets, -limit, limit)


def _quantile(values: np.ndarray, q: float) -> float:
    """The `q` quantile (nearest rank) of `values`; np.percentile's first call imports
    numpy.ma, tens of milliseconds a worker process would pay on its first photo."""
    flat = np.ravel(values)
    k = min(len(flat) - 1, round(q * (len(flat) - 1)))
    return float(np.partition(flat, k)[k])


def print_blur(image: np.ndarray, to_photo, prints: dict) -> float:
    """Gaussian sigma (photo pixels) of the printed digits' edges, from up to three of them.

    A step edge of contrast C blurred by sigma has a steepest slope of C / (sigma sqrt(2 pi)),
    so sigma = C / (2.5 * steepest slope). Drawing our digits that soft makes them sit in the
    photo like the print instead of looking pasted on.
    """
    sigmas = []
    for x0, y0, x1, y1 in list(prints.values())[:3]:
        box = np.array([[[x0 - 2, y0 - 2], [x1 + 2, y0 - 2], [x1 + 2, y1 + 2], [x0 - 2, y1 + 2]]])
        quad = to_photo(box.reshape(-1, 2).astype(np.float64))
        a, b = np.maximum(np.floor(quad.min(0)).astype(int), 0)
        c, d = np.minimum(np.ceil(quad.max(0)).astype(int), image.shape[1::-1])
        if c - a < 6 or d - b < 6:
            continue
        gray = cv2.cvtColor(image[b:d, a:c], cv2.COLOR_BGR2GRAY).astype(np.float32)
        gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3) / 8
        gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3) / 8
        slope = _quantile(np.hypot(gx, gy), 0.995)
        lo, hi = _quantile(gray, 0.03), _quantile(gray, 0.97)
        if slope > 0 and hi - lo > 30:
            sigmas.append((hi - lo) / (2.5 * slope))
    return float(statistics.median(sigmas)) if sigmas else 0.0


def local_scales(to_photo, centres: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """(9, 9) photo pixels per square pixel at each cell: how big the cell is in the photo
    (the board's shape on another board)."""
    half = (heights / 2)[..., None]
    corner = centres - half
    pts = np.stack([corner, corner + half * [2, 0], corner + half * [0, 2]], 2)  # (9, 9, 3, 2)
    p = to_photo(pts.reshape(-1, 2)).reshape(*heights.shape, 3, 2)
    across = np.hypot(*np.moveaxis(p[:, :, 1] - p[:, :, 0], -1, 0))
    down = np.hypot(*np.moveaxis(p[:, :, 2] - p[:, :, 0], -1, 0))
    return np.maximum(across, down) / heights


PAPER_SAMPLES = 7  # per side of a cell's middle: 49 photo pixels estimate its paper


def paper_tints(
    image: np.ndarray, to_photo, centres: np.ndarray, heights: np.ndarray
) -> np.ndarray:
    """(9, 9, 3) the paper's colour / 235 (BGR) per cell, capped at 1: light and shadow there.

    Our ink is multiplied by it, so a digit drawn in a shadow is as dark as the print there.
    The photo is sampled where each cell's middle (0.6 of the cell) lands, so nothing is
    warped; that mean is paper in an empty cell, and a cell holding print takes the
    brightest of its row's empty cells instead.
    """
    steps = np.linspace(-0.3, 0.3, PAPER_SAMPLES)
    offsets = np.stack(np.meshgrid(steps, steps), -1).reshape(-1, 2)  # (s*s, 2)
    points = centres[:, :, None] + heights[..., None, None] * offsets  # (9, 9, s*s, 2)
    photo = to_photo(points.reshape(-1, 2)).astype(np.float32)
    map_x, map_y = photo[..., 0], photo[..., 1]
    values = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    mean = values.reshape(*heights.shape, -1, 3).astype(np.float64).mean(2)
    brightest = np.take_along_axis(mean, mean.sum(-1).argmax(1)[:, None, None], 1)
    level = mean.sum(-1, keepdims=True)
    mean = np.where(level < 0.8 * brightest.sum(-1, keepdims=True), brightest, mean)
    return np.minimum(mean / 235, 1)


# ---------------------------------------------------------------------------------------------
# Drawing


def draw_solution(reading: Reading, overlay: Overlay, style: Style = Style()) -> np.ndarray:
    """A copy of the reading's photo with `overlay` drawn into its cells, in perspective.

    Everything is placed by what the reader found: its homography and cell boxes, and the
    print in its cells (which sizes our digits, lines them up and sets how soft they are),
    so the drawing and the reading cannot disagree about where the print is.

    Parameters
    ----------
    reading : vision.read.Reading
        What the reader found in the photo (`read_photo`, `read_image`).
    overlay : Overlay
        The digits to draw and the cells to mark.
    style : Style, optional
        How to draw them.

    Returns
    -------
    ndarray of uint8, shape of `reading.image`
        The photo with the overlay; pixels outside what is drawn are unchanged.

    Examples
    --------
    >>> from vision.read import read_photo
    >>> reading = read_photo("samples/sheet-01.jpg")
    >>> digits = np.where(reading.givens == 0, 5, 0)
    >>> out = draw_solution(reading, Overlay(digits))
    >>> out.shape == reading.image.shape, bool((out != reading.image).any())
    (True, True)
    """
    font = default_font() if style.font == "default" else style.font
    cells = layout(reading, style)
    page = Page(reading.image if style.inplace else reading.image.copy(), reading.homography_at)
    draw_digits(page, cells, overlay, font, style.colour)
    draw_marks(page, cells, overlay, font)
    if style.outline:
        draw_outline(page.out, grid_outline(reading))
    return page.out


def draw_board(
    reading, texts: np.ndarray, corrected: np.ndarray | None = None, style: Style = Style()
) -> np.ndarray:
    """A copy of a board's photo (`vision.read.BoardReading`: a 6x6, 16x16 or diagonal
    sudoku) with `texts` (size, size) of str drawn into its cells ("" for none), in
    perspective, sized like its print; `corrected` cells ringed in orange as on a 9x9.

    >>> from types import SimpleNamespace
    >>> photo = np.full((120, 120, 3), 230, np.uint8)
    >>> edges = np.arange(6) * 20
    >>> boxes = np.stack(np.broadcast_arrays(edges[None], edges[:, None], edges[None] + 20,
    ...                                      edges[:, None] + 20), -1)
    >>> board = SimpleNamespace(image=photo, cell_boxes=boxes, side=120,
    ...     ink_boxes=np.full((6, 6, 4), np.nan), givens=np.zeros((6, 6), np.int8),
    ...     homography=np.eye(3), to_photo=lambda p: p, homography_at=lambda p: np.eye(3))
    >>> texts = np.full((6, 6), "", object); texts[2, 3] = "5"
    >>> out = draw_board(board, texts)
    >>> bool((out[40:60, 60:80] != 230).any()), bool((out[:40] == 230).all())
    (True, True)
    """
    font = default_font() if style.font == "default" else style.font
    boxes = np.asarray(reading.cell_boxes, np.float64)
    centres = _box_centres(boxes)
    heights = np.maximum(boxes[..., 3] - boxes[..., 1], 1)
    inks = ink_boxes(reading)
    prints = {cell: box for cell, box in inks.items() if reading.givens[cell]}
    height = style.digit_height or printed_height(prints, heights) or DEFAULT_HEIGHT
    height = float(np.clip(height, 0.3, 0.85))
    scales = 1.25 * local_scales(reading.to_photo, centres, heights)
    tints = paper_tints(reading.image, reading.to_photo, centres, heights)
    page = Page(reading.image if style.inplace else reading.image.copy(), reading.homography_at)
    for r, c in zip(*np.nonzero(texts != ""), strict=True):
        text, h = str(texts[r, c]), heights[r, c]
        scale = max(1.0, scales[r, c])
        pixels = _ladder(height * h * scale)
        paint = np.multiply(style.colour, tints[r, c])
        page.stamp(glyph(text, pixels, font), centres[r, c], pixels / (height * h), paint)
    if corrected is not None:
        for r, c in np.argwhere(corrected):
            h, scale = heights[r, c], max(1.0, scales[r, c])
            orange = np.multiply(CORRECTED_COLOUR, tints[r, c])
            page.stamp(ring(round(0.9 * h * scale)), centres[r, c], scale, orange)
    if style.outline:
        draw_outline(page.out, np.asarray(reading.corners, np.float32))
    return page.out


class Page:
    """The photo being drawn on, with the map from the upright square into it: `homography_at`
    gives photo -> square around a square point (one homography on a flat page, the cell's
    own on a bent one: `Reading.homography_at`)."""

    def __init__(self, out: np.ndarray, homography_at):
        self.out = out
        self.homography_at = homography_at
        self._inverses: dict[bytes, np.ndarray] = {}  # one homography serves a flat page

    def inverse(self, homography: np.ndarray) -> np.ndarray:
        """square -> photo for a photo -> square homography, each inverted once."""
        key = homography.tobytes()
        if key not in self._inverses:
            self._inverses[key] = np.linalg.inv(homography)
        return self._inverses[key]

    def stamp(self, shape, at, scale: float, colour) -> None:
        """Warp `shape` (alpha patch drawn at `scale` patch pixels per square pixel, and its
        centre x, y) so its centre lands on square point `at`, blending `colour` by its ink."""
        patch, px, py = shape
        homography = np.ascontiguousarray(self.homography_at(at), np.float64)
        height, width = self.out.shape[:2]
        x0, y0, x1, y1, to_patch = place()(
            patch.shape[0], patch.shape[1], float(px), float(py), float(at[0]), float(at[1]),
            float(scale), homography, self.inverse(homography), width, height,
        )  # fmt: skip
        if x0 >= x1 or y0 >= y1:
            return
        alpha = cv2.warpPerspective(
            patch, to_patch, (x1 - x0, y1 - y0),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=0,
        )  # fmt: skip
        # blended into the photo itself, only where the glyph has ink (exact elsewhere)
        paint = np.rint(np.asarray(colour, np.float64)).astype(np.int32)
        blend()(self.out[y0:y1, x0:x1], alpha, paint)


def _place(ph, pw, px, py, at_x, at_y, scale, homography, inverse, width, height):
    """Where `Page.stamp` draws a (ph, pw) patch whose centre (px, py) lands on square point
    at: its box in the photo (x0, y0, x1, y1: the patch's corners mapped through `inverse`,
    square -> photo, with a pixel's margin, within the photo), and the map from that box's
    pixels to the patch's (through `homography`, photo -> square, then `scale` about at).
    Compiled (`place`): the same dozen small numpy operations cost a 640x480 photo's 51
    digits more than their warps (drawing 4.1 -> 2.4 ms with `blend`)."""
    lo_x, lo_y, hi_x, hi_y = np.inf, np.inf, -np.inf, -np.inf
    for corner in range(4):
        bx = -0.5 if corner == 0 or corner == 3 else pw - 0.5
        by = -0.5 if corner < 2 else ph - 0.5
        sx, sy = (bx - px) / scale + at_x, (by - py) / scale + at_y
        w = inverse[2, 0] * sx + inverse[2, 1] * sy + inverse[2, 2]
        x = (inverse[0, 0] * sx + inverse[0, 1] * sy + inverse[0, 2]) / w
        y = (inverse[1, 0] * sx + inverse[1, 1] * sy + inverse[1, 2]) / w
        lo_x, hi_x, lo_y, hi_y = min(lo_x, x), max(hi_x, x), min(lo_y, y), max(hi_y, y)
    x0, y0 = max(int(np.floor(lo_x)) - 1, 0), max(int(np.floor(lo_y)) - 1, 0)
    x1, y1 = min(int(np.ceil(hi_x)) + 2, width), min(int(np.ceil(hi_y)) + 2, height)
    # box pixel -> photo (a shift by x0, y0) -> square (homography) -> patch (scale about
    # at, so that at lands on the patch's centre), as one matrix (numba's @ needs scipy)
    offset = (px - scale * at_x, py - scale * at_y)
    matrix = np.empty((3, 3))
    for i in range(3):
        for j in range(3):  # to_patch @ homography
            if i == 2:
                matrix[i, j] = homography[2, j]
            else:
                matrix[i, j] = scale * homography[i, j] + offset[i] * homography[2, j]
        matrix[i, 2] += matrix[i, 0] * x0 + matrix[i, 1] * y0  # @ shift
    return x0, y0, x1, y1, matrix


# `_place` compiled on first use; `vision.read.warm_up` loads it
place = on_first_use(_place)


def _blend(roi: np.ndarray, alpha: np.ndarray, colour: np.ndarray) -> None:
    """`colour` (3 ints) blended into `roi` (H, W, 3 uint8) by `alpha` (H, W, 0-255), in
    place, rounded to the nearest. Compiled (`blend`): a digit's box is mostly paper, which
    this skips, where OpenCV's `blendLinear` weighs every pixel of the box in floats and
    needs a float weight image and a box of solid colour made first (12 MP photos: a
    drawing of 45 digits 12.3 ms with those, 9.8 with this)."""
    height, width = alpha.shape
    for y in range(height):
        for x in range(width):
            a = alpha[y, x]
            if a == 0:
                continue
            for c in range(3):
                roi[y, x, c] = (np.int32(roi[y, x, c]) * (255 - a) + colour[c] * a + 127) // 255


# `_blend` compiled on first use; `vision.read.warm_up` loads it
blend = on_first_use(_blend)


def draw_digits(page: Page, cells: Layout, overlay: Overlay, font, colour) -> None:
    """The answers, sized like the print, and the orange rings of the corrected cells.

    A corrected cell's print stays as it is (ringed), unless the reader found no print
    there, or what it found was not print (cleared, pencil marks): then its digit is drawn.
    """
    o = overlay
    soft = cells.blur > 0.8
    for r, c in np.argwhere(((o.digits > 0) & ~o.wrong) | o.corrected):
        ink = cells.inks.get((r, c))
        at, h, scale = cells.places[r, c], cells.heights[r, c], cells.scales[r, c]
        # a patch pixel of 0.8 blur, itself blurred by one: as soft as the print
        scale = scale / cells.blur if soft else max(1.0, scale)
        height = _ladder(cells.digit_height * h * scale)  # glyph pixels
        scale = height / (cells.digit_height * h)
        tint = cells.tints[r, c]
        over = o.digits[r, c] and (ink is None or o.cleared[r, c] or o.over_ink[r, c])
        if over:
            paint = np.multiply(CORRECTED_COLOUR if o.corrected[r, c] else colour, tint)
            page.stamp(glyph(int(o.digits[r, c]), height, font, soft), at, scale, paint)
        if o.corrected[r, c]:
            if ink is not None and not over:  # around the print itself
                at = _box_centres(ink)
            orange = np.multiply(CORRECTED_COLOUR, tint)
            page.stamp(ring(round(0.9 * h * scale), soft), at, scale, orange)


def draw_marks(page: Page, cells: Layout, overlay: Overlay, font) -> None:
    """Wrong entries struck out in red with the right digit small beside; hint cells framed
    in violet, unclear entries in amber."""
    o = overlay
    for r, c in np.argwhere(o.wrong | o.highlight | o.unclear):
        h, scale, tint = cells.heights[r, c], max(1.0, cells.scales[r, c]), cells.tints[r, c]
        centre = cells.centres[r, c]
        for framed, colour in ((o.highlight, HINT_COLOUR), (o.unclear, UNCLEAR_COLOUR)):
            if framed[r, c]:
                page.stamp(frame(round(0.92 * h * scale)), centre, scale, np.multiply(colour, tint))
        if not o.wrong[r, c]:
            continue
        red = np.multiply(MISTAKE_COLOUR, tint)
        page.stamp(strike(round(0.8 * h * scale)), centre, scale, red)
        if o.digits[r, c]:  # the right digit, small, in the lower right corner
            small = _ladder(0.36 * h * scale)
            shape = glyph(int(o.digits[r, c]), small, font, False)
            page.stamp(shape, centre + 0.24 * h, small / (0.36 * h), red)


def grid_outline(reading: Reading) -> np.ndarray:
    """The grid's edge in the photo as a closed polygon: its four corners on a flat page,
    points along the traced borders (eight a cell) on a bent one."""
    if reading.mesh is None:
        return np.asarray(reading.corners, np.float64)
    side = float(reading.side)
    t = np.linspace(0.0, side, 73)[:-1]
    edge = np.concatenate(
        [
            np.stack([t, 0 * t], 1),  # top, left to right
            np.stack([0 * t + side, t], 1),  # right, down
            np.stack([side - t, 0 * t + side], 1),  # bottom, right to left
            np.stack([0 * t, side - t], 1),  # left, up
        ]
    )
    return reading.to_photo(edge)


def draw_outline(out: np.ndarray, corners: np.ndarray) -> None:
    """The found grid's edge (corners, or points along a bent one), in green, about 1/500 of
    the photo thick."""
    thickness = max(2, round(max(out.shape[:2]) / 500))
    pts = np.round(np.asarray(corners, np.float64) * 16).astype(np.int32)
    cv2.polylines(out, [pts], True, OUTLINE_COLOUR, thickness, cv2.LINE_AA, shift=4)


def encode(image: np.ndarray, fmt: str = "jpeg", quality: int = 90) -> bytes:
    """`image` as the bytes of a JPEG or PNG file; no EXIF, so it shows as it is stored.

    Parameters
    ----------
    image : ndarray of uint8, shape (H, W, 3) or (H, W)
        BGR or grey.
    fmt : str
        "jpeg" (or "jpg") or "png".
    quality : int
        The JPEG quality, 1..100 (PNG always uses a fast compression level).

    Returns
    -------
    bytes

    Examples
    --------
    >>> encode(np.zeros((8, 8, 3), np.uint8), "png")[:4]
    b'\\x89PNG'
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise ValueError("image must be a uint8 BGR (H, W, 3) or grey (H, W) array")
    kind = str(fmt).lower().lstrip(".")
    if kind in ("jpeg", "jpg"):
        if not 1 <= int(quality) <= 100:
            raise ValueError(f"JPEG quality must be 1..100, not {quality}")
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    elif kind == "png":
        ok, buf = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 3])
    else:
        raise ValueError(f"unknown image format {fmt!r}; expected 'jpeg' or 'png'")
    if not ok:
        raise ValueError(f"could not encode the image as {kind}")
    return buf.tobytes()
