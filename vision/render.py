"""Draw the solved digits back onto the user's photo, in perspective, as if printed there.

Why this shape: the photo may be 12 MP while the grid was read in a small upright square. Each
digit is rendered once, anti-aliased, as a small alpha patch at about the resolution its cell has
in the photo, then warped straight into the photo through the inverse homography, touching
only that digit's bounding box (`cv2.warpPerspective` with `WARP_INVERSE_MAP`). The cost grows
with the number of drawn pixels, not with the photo: a few milliseconds plus one copy.

Digits are sized like the printed ones (their ink height is measured in the cells left
undrawn, i.e. the givens), centred on the cell, in a strong blue shaded by the local paper
brightness so a digit in a shadow is darker too. Corrected cells (givens the rules made us
re-read) get an orange ring; where the rules set a reading aside (pencil marks, hand-writing
or a smudge taken for a digit), the cell still needs its answer, which is drawn over that
ink. Pixels outside drawn digits, rings and the optional outline are left exactly as they
were.

    >>> import numpy as np
    >>> photo = np.full((480, 640, 3), 255, np.uint8)
    >>> homography = np.eye(3)  # the photo's top-left 450 px square is the grid
    >>> digits = np.zeros((9, 9), int); digits[4, 4] = 7
    >>> out = draw_solution(photo, homography, 450, digits)
    >>> bool((out != photo).any()), bool((out[:200] == photo[:200]).all())
    (True, True)
"""

from __future__ import annotations

import functools
import math
import statistics
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

DIGIT_COLOUR = (200, 80, 0)  # BGR: a strong blue, unlike black or grey print
CORRECTED_COLOUR = (0, 120, 255)  # BGR orange
OUTLINE_COLOUR = (60, 180, 60)  # BGR green
MISTAKE_COLOUR = (30, 30, 220)  # BGR red: a wrong entry's strike and its right digit
HINT_COLOUR = (200, 60, 160)  # BGR violet: the cells a hint rests on
DEFAULT_HEIGHT = 0.6  # digit height / cell height when the givens cannot be measured
MASTER = 256  # digits are drawn once this tall per font, then shrunk to each size
MEASURED = 40  # printed digits looked at to measure their height and place

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
    """(alpha (h, w) uint8, centre x, centre y): `digit` whose ink is `height` pixels tall.

    The centre is that of the ink's bounding box, in pixel-centre coordinates of the patch; a
    one-pixel empty margin keeps the warp's interpolation from cutting strokes. `soft` blurs
    it by a Gaussian of 1.2 pixels.
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
# Where the cells are


def cell_centres(side: int, cell_boxes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(centres (9, 9, 2) x, y, cell heights (9, 9)) in the upright square's pixels."""
    if cell_boxes is None:
        step = side / 9
        idx = (np.arange(9) + 0.5) * step - 0.5
        xs, ys = np.meshgrid(idx, idx)
        return np.stack([xs, ys], -1), np.full((9, 9), step)
    boxes = np.asarray(cell_boxes, np.float64).reshape(9, 9, 4)
    centres = np.stack(
        [(boxes[..., 0] + boxes[..., 2] - 1) / 2, (boxes[..., 1] + boxes[..., 3] - 1) / 2], -1
    )
    return centres, np.maximum(boxes[..., 3] - boxes[..., 1], 1)


def ink_blob(gray: np.ndarray, centre, h: float) -> tuple[int, int, int, int] | None:
    """The printed digit in the cell at `centre` (cell height `h`) of the upright grey
    square: its box x, y, w, h in square pixels, or None for an empty cell.

    The largest dark blob after Otsu thresholding of the cell's inner part (inside the grid
    lines); blobs that fill the whole inner part are lines or shadow, not digits.
    """
    side = gray.shape[0]
    half = 0.4 * h
    x0, x1 = round(centre[0] - half), round(centre[0] + half) + 1
    y0, y1 = round(centre[1] - half), round(centre[1] + half) + 1
    if x0 < 0 or y0 < 0 or x1 > side or y1 > side:
        return None
    patch = gray[y0:y1, x0:x1]
    if float(patch.mean()) - float(patch.min()) < 30:
        return None  # too little contrast: no ink
    _, ink = cv2.threshold(patch, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if n < 2:
        return None
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    bx, by, bw, bh = (int(v) for v in stats[best, :4])
    if not 0.25 * h <= bh < 0.79 * h:
        return None
    return x0 + bx, y0 + by, bw, bh


def printed_height(blobs: dict, heights: np.ndarray) -> float | None:
    """Median ink height / cell height of the printed digits `blobs` {(r, c): box}; None
    when fewer than three were found."""
    ratios = [box[3] / heights[cell] for cell, box in blobs.items()]
    return float(statistics.median(ratios)) if len(ratios) >= 3 else None


def print_offsets(blobs: dict, centres: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """(9, 9, 2) where the print sits relative to each cell's centre, in square pixels.

    A smooth field through the printed digits' offsets (Gaussian weights, 1.2 cells): on a
    curled page, or with cell boxes a little off, our digits then line up with the print
    around them. At most 0.25 of a cell.
    """
    if not blobs:
        return np.zeros((9, 9, 2))
    cells = np.array(list(blobs))  # (n, 2) row, column
    boxes = np.array(list(blobs.values()), np.float64)  # x, y, w, h
    ink = boxes[:, :2] + (boxes[:, 2:] - 1) / 2
    shift = ink - centres[cells[:, 0], cells[:, 1]]  # (n, 2)
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


def print_blur(image: np.ndarray, inverse: np.ndarray, blobs: dict) -> float:
    """Gaussian sigma (photo pixels) of the printed digits' edges, from up to three of them.

    A step edge of contrast C blurred by sigma has a steepest slope of C / (sigma sqrt(2 pi)),
    so sigma = C / (2.5 * steepest slope). Drawing our digits that soft makes them sit in the
    photo like the print instead of looking pasted on.
    """
    sigmas = []
    for x, y, w, h in list(blobs.values())[:3]:
        box = np.array(
            [[[x - 2, y - 2], [x + w + 2, y - 2], [x + w + 2, y + h + 2], [x - 2, y + h + 2]]]
        )
        quad = cv2.perspectiveTransform(box.astype(np.float64), inverse)[0]
        x0, y0 = np.maximum(np.floor(quad.min(0)).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(quad.max(0)).astype(int), image.shape[1::-1])
        if x1 - x0 < 6 or y1 - y0 < 6:
            continue
        gray = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
        gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3) / 8
        gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3) / 8
        slope = _quantile(np.hypot(gx, gy), 0.995)
        lo, hi = _quantile(gray, 0.03), _quantile(gray, 0.97)
        if slope > 0 and hi - lo > 30:
            sigmas.append((hi - lo) / (2.5 * slope))
    return float(statistics.median(sigmas)) if sigmas else 0.0


# ---------------------------------------------------------------------------------------------
# Drawing


def _shaped(name: str, value, shape: tuple[int, ...], dtype) -> np.ndarray | None:
    """`value` as an array of `shape` (None stays None), or a ValueError naming `name`."""
    if value is None:
        return None
    array = np.asarray(value, dtype)
    if array.size != int(np.prod(shape)):
        raise ValueError(f"{name} must have shape {shape}, not {array.shape}")
    return array.reshape(shape)


def _validate(image, homography, side, digits):
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3:
        raise ValueError("image must be an (H, W, 3) uint8 BGR array")
    if image.shape[2] != 3:
        raise ValueError(f"image must have 3 channels (BGR), not {image.shape[2]}")
    homography = np.asarray(homography, np.float64)
    if homography.shape != (3, 3) or not np.isfinite(homography).all():
        raise ValueError("homography must be a finite 3x3 matrix")
    if abs(np.linalg.det(homography)) < 1e-12:
        raise ValueError("homography is singular: it cannot be inverted to reach the photo")
    if int(side) < 9:
        raise ValueError(f"side must be at least 9 pixels, not {side}")
    digits = np.asarray(digits)
    if digits.shape != (9, 9):
        raise ValueError(f"digits must have shape (9, 9), not {digits.shape}")
    if digits.min() < 0 or digits.max() > 9:
        raise ValueError("digits must hold 0 (draw nothing) or 1..9")
    return homography, int(side), digits.astype(int)


def local_scales(inverse: np.ndarray, centres: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """(9, 9) photo pixels per square pixel at each cell: how big the cell is in the photo."""
    half = (heights / 2)[..., None]
    corner = centres - half
    pts = np.stack([corner, corner + half * [2, 0], corner + half * [0, 2]], 2)  # (9, 9, 3, 2)
    p = cv2.perspectiveTransform(pts.reshape(1, -1, 2), inverse).reshape(9, 9, 3, 2)
    across = np.hypot(*np.moveaxis(p[:, :, 1] - p[:, :, 0], -1, 0))
    down = np.hypot(*np.moveaxis(p[:, :, 2] - p[:, :, 0], -1, 0))
    return np.maximum(across, down) / heights


def _stamp(out, homography, inverse, patch, centre, at, scale, colour) -> None:
    """Warp `patch` (alpha, drawn at `scale` patch pixels per square pixel, whose point
    `centre` belongs at square point `at`) into `out`, blending `colour` where it has ink."""
    ph, pw = patch.shape
    px, py = centre
    # square -> patch: scale about `at`, so that `at` lands on the patch's `centre`
    to_patch = np.array([[scale, 0, px - scale * at[0]], [0, scale, py - scale * at[1]], [0, 0, 1]])
    box = np.array([[[-0.5, -0.5], [pw - 0.5, -0.5], [pw - 0.5, ph - 0.5], [-0.5, ph - 0.5]]])
    quad = cv2.perspectiveTransform((box - [px, py]) / scale + at, inverse)[0]
    height, width = out.shape[:2]
    x0, y0 = np.maximum(np.floor(quad.min(0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(0)).astype(int) + 2, [width, height])
    if x0 >= x1 or y0 >= y1:
        return
    shift = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
    alpha = cv2.warpPerspective(
        patch, to_patch @ homography @ shift, (int(x1 - x0), int(y1 - y0)),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=0,
    )  # fmt: skip
    weight = alpha.astype(np.float32) * np.float32(1 / 255)
    roi = out[y0:y1, x0:x1]
    solid = np.empty_like(roi)
    solid[:] = colour
    roi[:] = cv2.blendLinear(roi, solid, 1 - weight, weight)  # exact where weight is 0


def paper_tints(square: np.ndarray, centres: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """(9, 9, 3) the paper's colour / 235 (BGR) per cell, capped at 1: light and shadow there.

    Our ink is multiplied by it, so a digit drawn in a shadow is as dark as the print there.
    The mean of a cell's inner part is paper in an empty cell; a cell holding print takes the
    brightest of its row's empty cells instead.
    """
    sums = cv2.integral(square.astype(np.float32))  # (side+1, side+1, 3)
    k = 0.3 * heights
    side = square.shape[0]
    x0 = np.clip(np.round(centres[..., 0] - k), 0, side - 1).astype(int)
    y0 = np.clip(np.round(centres[..., 1] - k), 0, side - 1).astype(int)
    x1 = np.clip(np.round(centres[..., 0] + k) + 1, x0 + 1, side).astype(int)
    y1 = np.clip(np.round(centres[..., 1] + k) + 1, y0 + 1, side).astype(int)
    total = sums[y1, x1] - sums[y0, x1] - sums[y1, x0] + sums[y0, x0]
    mean = total / ((x1 - x0) * (y1 - y0))[..., None]
    brightest = np.take_along_axis(mean, mean.sum(-1).argmax(1)[:, None, None], 1)
    level = mean.sum(-1, keepdims=True)
    mean = np.where(level < 0.8 * brightest.sum(-1, keepdims=True), brightest, mean)
    return np.minimum(mean / 235, 1)


def draw_solution(
    image: np.ndarray,
    homography: np.ndarray,
    side: int,
    digits: np.ndarray,
    *,
    cell_boxes: np.ndarray | None = None,
    corrected: np.ndarray | None = None,
    cleared: np.ndarray | None = None,
    over_ink: np.ndarray | None = None,
    wrong: np.ndarray | None = None,
    highlight: np.ndarray | None = None,
    outline: np.ndarray | None = None,
    digit_height: float | None = None,
    colour: tuple[int, int, int] = DIGIT_COLOUR,
    font: str | None = "default",
    soften: bool = True,
    inplace: bool = False,
) -> np.ndarray:
    """A copy of `image` with `digits` (9, 9; 0 = nothing) drawn into their cells.

    `homography` maps photo pixels to the upright grid square of `side` pixels; `cell_boxes`
    (9, 9, 4) x0, y0, x1, y1 in that square place the cells when the reader found them (else
    a regular 9x9 split). `corrected` (9, 9) bool rings those cells in orange (and draws their
    digit in orange when the cell shows no print). `cleared` (9, 9) bool: corrected cells whose
    ink was not a printed digit (the rules dropped what was read there), so their digit is
    drawn, in orange and ringed, over that ink. `over_ink` (9, 9) bool: cells whose ink is not
    print (pencil candidates): their digit is drawn over it, with no ring. `wrong` (9, 9)
    bool: hand-written entries that are wrong: struck through in red, with their `digits`
    value (the right digit, when given) drawn smaller beside, in red. `highlight` (9, 9)
    bool: cells framed in violet (what a hint rests on). `outline` (4, 2) photo corners draws
    the detected grid's edge.
    `digit_height` (fraction of a cell) overrides the height measured from the printed digits
    in the cells where `digits` is 0. `font` is a TTF/OTF path, "default", or None for
    OpenCV's Hershey font. `soften` blurs our digits as much as the print is blurred.
    `inplace` draws into `image` itself and returns it (saves a copy: 7 ms at 12 MP).
    """
    homography, side, digits = _validate(image, homography, side, digits)
    if font == "default":
        font = default_font()
    corrected = _shaped("corrected", corrected, (9, 9), bool)
    corrected = np.zeros((9, 9), bool) if corrected is None else corrected
    cleared = _shaped("cleared", cleared, (9, 9), bool)
    cleared = np.zeros((9, 9), bool) if cleared is None else cleared & corrected
    masks = {}
    for name, mask in (("over_ink", over_ink), ("wrong", wrong), ("highlight", highlight)):
        mask = _shaped(name, mask, (9, 9), bool)
        masks[name] = np.zeros((9, 9), bool) if mask is None else mask
    over_ink, wrong, highlight = masks["over_ink"], masks["wrong"], masks["highlight"]
    cell_boxes = _shaped("cell_boxes", cell_boxes, (9, 9, 4), np.float64)
    outline = _shaped("outline", outline, (4, 2), np.float64)
    centres, heights = cell_centres(side, cell_boxes)
    # nearest: enough to measure by, and much cheaper when a 12 MP photo shrinks to `side`
    square = cv2.warpPerspective(image, homography, (side, side), flags=cv2.INTER_NEAREST)
    gray = cv2.cvtColor(square, cv2.COLOR_BGR2GRAY)
    # the print in every corrected cell, and enough givens to measure the print by
    looked = list(zip(*np.nonzero(corrected), strict=True))
    looked += list(zip(*np.nonzero((digits == 0) & ~corrected), strict=True))[:MEASURED]
    blobs = {
        cell: box
        for cell in looked
        if (box := ink_blob(gray, centres[cell], heights[cell])) is not None
    }
    if digit_height is None:
        digit_height = printed_height(blobs, heights)
    digit_height = float(np.clip(digit_height or DEFAULT_HEIGHT, 0.3, 0.85))
    inverse = np.linalg.inv(homography)
    # our glyph, warped, is already about as soft as a 0.6 px Gaussian
    blur = math.sqrt(max(print_blur(image, inverse, blobs) ** 2 - 0.36, 0)) if soften else 0.0
    drawn = list(zip(*np.nonzero(((digits > 0) & ~wrong) | corrected), strict=True))
    tints = paper_tints(square, centres, heights)
    scales = 1.25 * local_scales(inverse, centres, heights)  # patch px per square px
    places = centres + print_offsets(blobs, centres, heights)
    out = image if inplace else image.copy()
    for r, c in drawn:
        at, h, scale = places[r, c], heights[r, c], scales[r, c]
        soft = blur > 0.8
        if soft:  # a patch pixel of 0.8 blur, itself blurred by one: as soft as the print
            scale /= blur
        else:
            scale = max(1.0, scale)
        height = _ladder(digit_height * h * scale)  # glyph pixels
        scale = height / (digit_height * h)
        tint = tints[r, c]
        # a corrected cell's print stays as it is, unless it was not print at all
        over = digits[r, c] and ((r, c) not in blobs or cleared[r, c] or over_ink[r, c])
        if over:
            patch, gx, gy = glyph(int(digits[r, c]), height, font, soft)
            ink = np.multiply(CORRECTED_COLOUR if corrected[r, c] else colour, tint)
            _stamp(out, homography, inverse, patch, (gx, gy), at, scale, ink)
        if corrected[r, c]:
            if (r, c) in blobs and not over:  # around the print itself
                x, y, w, bh = blobs[r, c]
                at = (x + (w - 1) / 2, y + (bh - 1) / 2)
            patch, gx, gy = ring(round(0.9 * h * scale), soft)
            ink = np.multiply(CORRECTED_COLOUR, tint)
            _stamp(out, homography, inverse, patch, (gx, gy), at, scale, ink)

    def mark(patch, at, scale, colour, tint) -> None:
        _stamp(out, homography, inverse, patch[0], patch[1:], at, scale, np.multiply(colour, tint))

    for r, c in zip(*np.nonzero(wrong | highlight), strict=True):
        h, scale, tint = heights[r, c], max(1.0, scales[r, c]), tints[r, c]
        if highlight[r, c]:
            mark(frame(round(0.92 * h * scale)), centres[r, c], scale, HINT_COLOUR, tint)
        if not wrong[r, c]:
            continue
        mark(strike(round(0.8 * h * scale)), centres[r, c], scale, MISTAKE_COLOUR, tint)
        if digits[r, c]:  # the right digit, small, in the lower right corner
            small = _ladder(0.36 * h * scale)
            shape = glyph(int(digits[r, c]), small, font, False)
            mark(shape, centres[r, c] + 0.24 * h, small / (0.36 * h), MISTAKE_COLOUR, tint)
    if outline is not None:
        corners = outline
        thickness = max(2, round(max(image.shape[:2]) / 500))
        pts = np.round(corners * 16).astype(np.int32)
        cv2.polylines(out, [pts], True, OUTLINE_COLOUR, thickness, cv2.LINE_AA, shift=4)
    return out


def encode(image: np.ndarray, fmt: str = "jpeg", quality: int = 90) -> bytes:
    """`image` (BGR uint8) as JPEG or PNG file bytes; no EXIF, so it shows as it is stored.

    `quality` is the JPEG quality (1..100); for PNG it picks a fast compression level.
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
