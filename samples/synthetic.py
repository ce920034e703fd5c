"""Synthetic phone photos of printed sudokus, with their ground truth.

Why: real photos with labels are few; a generator that knows exactly which digit sits in which
cell and where the grid's corners landed lets tests and samples use fresh photos at any size.
The photo is built the way a real one forms: a flat printed page (grid, digits in one of the
Debian fonts, a title, columns of text, yesterday's solution as a smaller second grid,
show-through from the back of the sheet; on request some cells already written in by hand
with `filled=0.3`) is bent (page curl, and on request a strong curl or a crease:
`curled_photo`), seen by a pinhole camera at an
angle, lit unevenly, shadowed, blurred, given sensor noise and saved as JPEG. Everything
follows from one seed.

    >>> photo = make_photo(7, size=(640, 480))
    >>> photo.image.shape, photo.givens.shape, photo.corners.shape
    ((480, 640, 3), (9, 9), (4, 2))

Puzzles: a solved grid from the classic band pattern, shuffled within its symmetries, then
cells removed in symmetric pairs while the project's solver still finds exactly one solution.
This module lives beside the samples, not in `vision`, because it needs the solver (and
`vision` never imports `solver`); tests, benchmarks and `samples/generate.py` use it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

import solver

KINDS = ("newspaper", "book", "sheet")

# ---------------------------------------------------------------------------------------------
# Puzzles


def solved_grid(rng: np.random.Generator) -> np.ndarray:
    """A random complete sudoku (9, 9) int8: the band pattern, shuffled within its symmetries.

    Relabelling digits, permuting rows within a band, bands, columns within a stack, stacks and
    transposing all keep a grid valid.
    """
    base = np.array([[(3 * (r % 3) + r // 3 + c) % 9 for c in range(9)] for r in range(9)])
    digits = rng.permutation(9) + 1
    grid = digits[base]
    rows = np.concatenate([3 * b + rng.permutation(3) for b in rng.permutation(3)])
    cols = np.concatenate([3 * s + rng.permutation(3) for s in rng.permutation(3)])
    grid = grid[rows][:, cols]
    if rng.random() < 0.5:
        grid = grid.T
    return grid.astype(np.int8)


def count_solutions(givens: np.ndarray, limit: int = 2) -> int:
    """How many solutions `givens` (9, 9) has, counting no further than `limit` (the
    project's solver)."""
    line = "".join(str(int(v)) for v in np.asarray(givens).reshape(81))
    return solver.count_solutions(line, limit=limit)


def make_puzzle(
    rng: np.random.Generator, n_givens: int = 28, symmetric: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """(givens, solution), each (9, 9) int8, givens having exactly one solution.

    Cells are removed in symmetric pairs (as newspapers print them: 180° about the centre)
    while the puzzle stays unique; stops at `n_givens` or when no pair can go. With
    `symmetric=False` single cells are removed instead, for the puzzles that are not printed
    symmetric (some books and sites): a check that the reading does not lean on symmetry.
    """
    solution = solved_grid(rng)
    givens = solution.copy()
    for i in rng.permutation(41 if symmetric else 81):
        if np.count_nonzero(givens) <= n_givens:
            break
        r, c = divmod(int(i), 9)
        trial = givens.copy()
        trial[r, c] = 0
        if symmetric:
            trial[8 - r, 8 - c] = 0
        if count_solutions(trial) == 1:
            givens = trial
    return givens, solution


# ---------------------------------------------------------------------------------------------
# Fonts

FONT_FILES = {
    "sans": (
        "LiberationSans-Bold.ttf",
        "LiberationSans-Regular.ttf",
        "DejaVuSans-Bold.ttf",
        "DejaVuSans.ttf",
        "FreeSansBold.ttf",
        "FreeSans.ttf",
        "NimbusSans-Bold.otf",
        "NimbusSans-Regular.otf",
        "NimbusSansNarrow-Bold.otf",
        "LiberationSansNarrow-Bold.ttf",
    ),
    "serif": (
        "LiberationSerif-Regular.ttf",
        "LiberationSerif-Bold.ttf",
        "DejaVuSerif.ttf",
        "FreeSerif.ttf",
        "FreeSerifBold.ttf",
        "NimbusRoman-Regular.otf",
        "NimbusRoman-Bold.otf",
        "C059-Roman.otf",
        "C059-Bold.otf",
        "P052-Roman.otf",
        "P052-Bold.otf",
        "URWBookman-Light.otf",
        "URWBookman-Demi.otf",
    ),
}
FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))


@functools.cache
def installed_fonts(family: str) -> tuple[str, ...]:
    """Paths of the fonts of `family` ("sans" or "serif") found on this machine."""
    by_name = {}
    for root in FONT_DIRS:
        if root.is_dir():
            for path in root.rglob("*"):
                by_name.setdefault(path.name, str(path))
    return tuple(by_name[name] for name in FONT_FILES[family] if name in by_name)


@functools.lru_cache(maxsize=256)
def _font(path: str | None, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A font at `size` pixels; Pillow's bundled font when no TTF/OTF is installed."""
    if path is None:
        return ImageFont.load_default(size)
    return ImageFont.truetype(path, size)


# ---------------------------------------------------------------------------------------------
# Style: every random choice, drawn once from the seed


@dataclass(frozen=True)
class Style:
    """How one photo looks. `random_style` draws one; `make_photo(**overrides)` adjusts it."""

    kind: str = "newspaper"
    digit_font: str | None = None  # path; None = Pillow's bundled font
    text_font: str | None = None
    digit_height: float = 0.62  # printed digit height / cell height
    thin_line: float = 0.025  # line widths / cell size
    thick_line: float = 0.07
    border_line: float = 0.09
    shaded_boxes: bool = False  # alternate 3x3 boxes tinted grey
    paper: tuple[float, float, float] = (226, 222, 210)  # BGR
    ink: tuple[float, float, float] = (40, 38, 38)
    show_through: float = 0.05  # mirrored text from the back of the sheet
    grid_fraction: float = 0.7  # grid size / shorter photo side
    offset: tuple[float, float] = (0.0, 0.0)  # grid centre offset / photo size
    roll: float = 0.0  # degrees, in-plane rotation
    pitch: float = 0.0  # degrees, camera tilt about the page's x axis
    yaw: float = 0.0
    curl: float = 0.0  # page bend: vertical bow at the grid's edge, in cells
    curl_skew: float = 0.0  # asymmetric (cubic) part of the bend
    side_bow: float = 0.0  # horizontal bow, in cells
    fold: float = 0.0  # a crease across the grid: the rows kink by this many cells per half-grid
    fold_at: float = 0.0  # where the crease runs, -1 (left edge) .. 1 (right edge)
    light: float = 0.9  # mean brightness factor
    gradient: tuple[float, float] = (0.0, 0.0)  # brightness change across the photo
    vignette: float = 0.1
    warmth: float = 0.05  # warm (tungsten) colour cast
    shadow: float = 0.0  # darkness of a soft shadow (0 = none)
    blur: float = 0.02  # Gaussian sigma / cell size
    noise: float = 3.0  # sensor noise sigma in grey levels
    jpeg_quality: int = 85
    shake: float = 0.0  # camera-shake streak length / cell size (0 = a steady hand)
    shake_angle: float = 0.0  # degrees
    text: bool = True  # title and columns of words around the grid
    second_grid: bool = True  # yesterday's solution beside the puzzle
    background: tuple[float, float, float] = (90, 110, 140)  # BGR table colour
    filled: float = 0.0  # share of the empty cells already written in by hand (pen)
    pen: tuple[float, float, float] = (120, 45, 25)  # BGR ballpoint blue
    # a partly solved puzzle as people leave it (off unless asked for):
    hand_fonts: bool = False  # Debian's hand-writing fonts (and pencil) instead of italics
    pencil_entries: float = 0.0  # share of the written entries made in pencil, not pen
    candidates: float = 0.0  # share of the still empty cells holding pencil candidates
    mistakes: int = 0  # written entries that are wrong
    crossed: int = 0  # entries struck out and written again beside (the new one right)
    pencil: tuple[float, float, float] = (105, 105, 112)  # BGR graphite
    extra: dict = field(default_factory=dict)


def random_style(rng: np.random.Generator, kind: str = "newspaper") -> Style:
    """A plausible phone photo of `kind` ("newspaper", "book", "sheet"), moderate angles."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    u = rng.uniform
    family = "serif" if kind == "book" or (kind == "newspaper" and rng.random() < 0.3) else "sans"
    digit_fonts = installed_fonts(family) or installed_fonts("sans") or (None,)
    serif = installed_fonts("serif")
    text_fonts = tuple(f for f in serif if "Bold" not in f and "Demi" not in f) or (None,)
    paper = {
        "newspaper": (u(200, 222), u(212, 230), u(218, 236)),
        "book": (u(222, 238), u(232, 244), u(238, 248)),
        "sheet": (u(238, 250), u(240, 250), u(240, 250)),
    }[kind]
    grey = u(25, 55) if kind == "newspaper" else u(10, 35)
    thin = u(0.015, 0.04)
    thick = thin * u(2.0, 3.5)
    tilt = 28 if kind != "sheet" else 22
    return Style(
        kind=kind,
        digit_font=digit_fonts[rng.integers(len(digit_fonts))],
        text_font=text_fonts[rng.integers(len(text_fonts))],
        digit_height=u(0.5, 0.66),
        thin_line=thin,
        thick_line=thick,
        border_line=thick * u(1.0, 1.6),
        shaded_boxes=kind == "newspaper" and rng.random() < 0.25,
        paper=paper,
        ink=(grey, grey, grey + u(0, 8)),
        show_through=u(0.03, 0.09) if kind == "newspaper" else u(0.0, 0.03),
        grid_fraction=u(0.55, 0.85),
        offset=(u(-0.08, 0.08), u(-0.08, 0.08)),
        roll=u(-12, 12),
        pitch=u(-tilt, tilt),
        yaw=u(-tilt * 0.7, tilt * 0.7),
        curl=0.0 if kind == "sheet" else u(-0.25, 0.25),
        curl_skew=0.0 if kind == "sheet" else u(-0.15, 0.15),
        side_bow=0.0 if kind == "sheet" else u(-0.15, 0.15),
        light=u(0.72, 1.0),
        gradient=(u(-0.3, 0.3), u(-0.3, 0.3)),
        vignette=u(0.0, 0.3),
        warmth=u(-0.03, 0.12),
        shadow=u(0.2, 0.45) if rng.random() < 0.5 else 0.0,
        blur=u(0.008, 0.03),
        noise=u(1.5, 6.0),
        jpeg_quality=int(rng.integers(60, 93)),
        text=True,
        second_grid=rng.random() < 0.8,
        background=(u(40, 140), u(60, 150), u(80, 170)),
        shake=u(0.02, 0.06) if rng.random() < 0.3 else 0.0,
        shake_angle=u(0, 180),
    )


# ---------------------------------------------------------------------------------------------
# The flat printed page (an ink-coverage image: 0 = paper, 255 = full ink)

_WORD_TEXT = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there one all we their when been has more if "
    "will would who so no council weather market river county school season minister train "
    "garden report village festival league coast harbour library answer puzzle crossword "
    "tomorrow morning evening north south price shares bridge museum summer winter road"
)
WORDS = tuple(_WORD_TEXT.split())


@dataclass(frozen=True)
class Page:
    """The flat page: ink coverage, where the puzzle grid sits (top-left, size) in pixels."""

    ink: np.ndarray  # (H, W) uint8
    grid_origin: tuple[int, int]
    grid_size: int
    pen: np.ndarray | None = None  # (H, W) uint8 hand-written digits, if any
    handwritten: np.ndarray | None = None  # (9, 9) int8 the digits written in, 0 = none
    pencil: np.ndarray | None = None  # (H, W) uint8 pencil strokes, if any
    candidates: np.ndarray | None = None  # (9, 9) bool cells holding pencil candidates


def _draw_text_block(draw, rng, font, box, line_height) -> None:
    """Fill `box` (x0, y0, x1, y1) with lines of random words."""
    x0, y0, x1, y1 = box
    y = y0
    while y + line_height <= y1:
        line, width = [], 0.0
        while True:
            word = WORDS[rng.integers(len(WORDS))]
            w = font.getlength(word + " ")
            if x0 + width + w > x1:
                break
            line.append(word)
            width += w
        if rng.random() < 0.12:  # paragraph end: a short line, then a gap
            line = line[: max(1, len(line) // 2)]
        draw.text((x0, y), " ".join(line), font=font, fill=255)
        y += line_height * (1.6 if rng.random() < 0.1 else 1.0)


def _draw_grid(draw, style: Style, origin, size: int, digits: np.ndarray, font) -> None:
    """A 9x9 grid whose outer edge covers pixels origin .. origin + size - 1, digits centred."""
    x0, y0 = origin
    cell = size / 9
    if style.shaded_boxes:
        for br in range(3):
            for bc in range(3):
                if (br + bc) % 2:
                    bx, by = x0 + bc * 3 * cell, y0 + br * 3 * cell
                    draw.rectangle((bx, by, bx + 3 * cell, by + 3 * cell), fill=28)
    for r in range(9):
        for c in range(9):
            d = int(digits[r, c])
            if d:
                left, top, right, bottom = font.getbbox(str(d), anchor="lt")
                cx = x0 - 0.5 + (c + 0.5) * cell - (left + right) / 2
                cy = y0 - 0.5 + (r + 0.5) * cell - (top + bottom) / 2
                draw.text(
                    (round(cx + 0.5), round(cy + 0.5)), str(d), font=font, fill=255, anchor="lt"
                )
    for i in range(10):
        if i in (0, 9):
            width = style.border_line
        else:
            width = style.thick_line if i % 3 == 0 else style.thin_line
        w = max(1, round(width * cell))
        centre = i * cell  # offset of the line centre from the grid's outer edge
        start = round(min(max(centre - w / 2, 0), size - w))  # kept inside the outer edge
        draw.rectangle((x0 + start, y0, x0 + start + w - 1, y0 + size - 1), fill=255)
        draw.rectangle((x0, y0 + start, x0 + size - 1, y0 + start + w - 1), fill=255)


def _digit_font(style: Style, cell: float):
    """The digit font sized so that a printed '8' is `digit_height` of a cell tall."""
    probe = _font(style.digit_font, 100)
    left, top, right, bottom = probe.getbbox("8")
    size = max(6, round(100 * style.digit_height * cell / max(1, bottom - top)))
    return _font(style.digit_font, size)


def draw_page(
    rng: np.random.Generator,
    style: Style,
    givens: np.ndarray,
    grid_size: int,
    solution: np.ndarray | None = None,
) -> Page:
    """The printed page around a grid of `grid_size` pixels: title, text, second grid, and
    (when `style.filled` and the `solution` are given) some cells written in by hand."""
    g = grid_size
    width, height = round(2.3 * g), round(2.15 * g)
    on_left = rng.random() < 0.6
    gx = round(0.3 * g) if on_left else width - round(0.3 * g) - g
    gy = round(0.55 * g)
    img = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(img)
    cell = g / 9
    _draw_grid(draw, style, (gx, gy), g, givens, _digit_font(style, cell))
    if style.text:
        title = _font(style.digit_font, max(8, round(0.09 * g)))
        draw.text((gx, gy - round(0.3 * g)), "SUDOKU", font=title, fill=255)
        small = _font(style.text_font, max(6, round(0.035 * g)))
        level = ["Easy", "Moderate", "Difficult", "Fiendish"][rng.integers(4)]
        words = (
            f"No. {rng.integers(1000, 9999)}   {level}.  Fill the grid so that every row, "
            "column and 3x3 box contains 1 to 9."
        ).split(" ")
        while len(words) > 1 and small.getlength(" ".join(words)) > g:  # stays above the grid
            words.pop()
        draw.text((gx, gy - round(0.14 * g)), " ".join(words), font=small, fill=255)
        body = _font(style.text_font, max(6, round(0.03 * g)))
        line = 0.042 * g
        _draw_text_block(draw, rng, body, (gx, gy + g + 0.12 * g, gx + g, height - 0.05 * g), line)
        col0 = gx + g + 0.14 * g if on_left else 0.05 * g
        col1 = width - 0.05 * g if on_left else gx - 0.14 * g
        rule_x = (gx + g + col0) / 2 if on_left else (col1 + gx) / 2
        draw.rectangle((rule_x, 0.05 * g, rule_x + max(1, 0.004 * g), height), fill=200)
        small_size = round(min(col1 - col0, 0.5 * g))
        sy = gy + round(rng.uniform(0.1, 0.45) * g)
        if style.second_grid:
            _draw_text_block(draw, rng, body, (col0, 0.05 * g, col1, sy - 0.12 * g), line)
            draw.text((col0, sy - 0.08 * g), "Yesterday's solution", font=small, fill=255)
            other = solved_grid(rng)
            thin = replace(style, thin_line=style.thin_line * 1.5)
            _draw_grid(
                draw,
                thin,
                (round(col0), sy),
                small_size,
                other,
                _digit_font(style, small_size / 9),
            )
            _draw_text_block(
                draw, rng, body, (col0, sy + small_size + 0.08 * g, col1, height), line
            )
        else:
            _draw_text_block(draw, rng, body, (col0, 0.05 * g, col1, height - 0.05 * g), line)
        top_text = (0.05 * g, 0.02 * g, width - 0.05 * g, gy - 0.36 * g)
        _draw_text_block(draw, rng, body, top_text, line)
    ink = np.asarray(img)
    del img, draw
    if style.show_through > 0:  # the back of the sheet, mirrored and soft
        back = cv2.GaussianBlur(cv2.flip(ink, 1), (0, 0), 0.004 * g + 0.5)
        ink = np.maximum(ink, cv2.convertScaleAbs(back, alpha=style.show_through))
    pen, handwritten = None, None
    if style.hand_fonts and solution is not None:
        hand = _hand_filled(rng, style, givens, solution, (width, height), (gx, gy), g)
        return Page(ink, (gx, gy), g, *hand)
    if style.filled > 0 and solution is not None:
        pen, handwritten = _handwriting(rng, style, givens, solution, (width, height), (gx, gy), g)
    return Page(ink, (gx, gy), g, pen, handwritten)


HAND_FONTS = (
    "Z003-MediumItalic.otf",
    "URWBookman-LightItalic.otf",
    "DejaVuSans-Oblique.ttf",
    "FreeSerifItalic.ttf",
)


def _handwriting(rng, style: Style, givens, solution, size, origin, g):
    """A pen layer with `style.filled` of the empty cells written in, a little askew, and
    which digits those are (9, 9)."""
    fonts = [path for name in HAND_FONTS for path in _font_paths(name)] or [None]
    font_path = fonts[rng.integers(len(fonts))]
    empty = np.argwhere(np.asarray(givens) == 0)
    chosen = empty[rng.permutation(len(empty))[: round(style.filled * len(empty))]]
    layer = Image.new("L", size, 0)
    handwritten = np.zeros((9, 9), np.int8)
    cell = g / 9
    for r, c in chosen:
        digit = str(int(solution[r, c]))
        face = _font(font_path, max(6, round(cell * rng.uniform(0.55, 0.8))))
        left, top, right, bottom = face.getbbox(digit, anchor="lt")
        glyph = Image.new("L", (right - left + 8, bottom - top + 8), 0)
        ImageDraw.Draw(glyph).text((4 - left, 4 - top), digit, font=face, fill=230, anchor="lt")
        glyph = glyph.rotate(rng.uniform(-12, 12), resample=Image.BICUBIC, expand=True)
        x = origin[0] + (c + 0.5 + rng.uniform(-0.1, 0.1)) * cell - glyph.width / 2
        y = origin[1] + (r + 0.5 + rng.uniform(-0.1, 0.1)) * cell - glyph.height / 2
        layer.paste(glyph, (round(x), round(y)), glyph)
        handwritten[r, c] = solution[r, c]
    return np.asarray(layer), handwritten


# Debian's hand-writing fonts (packages fonts-dkg-handwriting, fonts-breip, fonts-humor-sans,
# fonts-comic-neue): people's digits rather than italics. Not fonts-femkeklaver: its digits
# are hollow outlines, which no pen or pencil draws.
HAND_WRITING_FONTS = (
    "dkg.ttf",
    "Breip.ttf",
    "Humor-Sans.ttf",
    "ComicNeue-Regular.otf",
)


def _hand_filled(rng, style: Style, givens, solution, size, origin, g):
    """A puzzle partly solved by a person: pen and pencil layers, the digits written (some
    wrong, some struck out and written again) and the cells holding pencil candidates.

    Returns (pen layer, written digits (9, 9), pencil layer, candidate cells (9, 9)).
    """
    fonts = [path for name in HAND_WRITING_FONTS for path in _font_paths(name)]
    fonts = fonts or [path for name in HAND_FONTS for path in _font_paths(name)] or [None]
    font_path = fonts[rng.integers(len(fonts))]
    pen, pencil = Image.new("L", size, 0), Image.new("L", size, 0)
    handwritten = np.zeros((9, 9), np.int8)
    candidates = np.zeros((9, 9), bool)
    cell = g / 9
    empty = [tuple(rc) for rc in np.argwhere(np.asarray(givens) == 0)]
    order = [empty[i] for i in rng.permutation(len(empty))]
    n_written = round(style.filled * len(order))
    written, rest = order[:n_written], order[n_written:]
    wrong = set(written[: style.mistakes])
    crossed = set(written[style.mistakes : style.mistakes + style.crossed])

    def put(layer, digit: int, r: int, c: int, height: float, dx: float, dy: float, fill=230):
        face = _font(font_path, max(5, round(cell * height)))
        left, top, right, bottom = face.getbbox(str(digit), anchor="lt")
        glyph = Image.new("L", (right - left + 8, bottom - top + 8), 0)
        ImageDraw.Draw(glyph).text(
            (4 - left, 4 - top), str(digit), font=face, fill=fill, anchor="lt"
        )
        glyph = glyph.rotate(rng.uniform(-10, 10), resample=Image.BICUBIC, expand=True)
        x = origin[0] + (c + 0.5 + dx) * cell - glyph.width / 2
        y = origin[1] + (r + 0.5 + dy) * cell - glyph.height / 2
        layer.paste(glyph, (round(x), round(y)), glyph)
        return x, y, glyph.width, glyph.height

    for r, c in written:
        right = int(solution[r, c])
        digit = right
        if (r, c) in wrong:
            digit = int(rng.choice([d for d in range(1, 10) if d != right]))
        layer = pencil if rng.random() < style.pencil_entries else pen
        if (r, c) in crossed:  # a wrong first try, struck out, the right digit beside it
            old = int(rng.choice([d for d in range(1, 10) if d != right]))
            x, y, w, h = put(layer, old, r, c, 0.45, -0.2, -0.15)
            ImageDraw.Draw(layer).line(
                [(x, y + h), (x + w, y)], fill=230, width=max(1, round(cell / 18))
            )
            put(layer, digit, r, c, 0.5, 0.2, 0.15)
        else:
            put(
                layer,
                digit,
                r,
                c,
                rng.uniform(0.55, 0.8),
                rng.uniform(-0.1, 0.1),
                rng.uniform(-0.1, 0.1),
            )
        handwritten[r, c] = digit
    for r, c in rest[: round(style.candidates * len(rest))]:
        right = int(solution[r, c])
        others = [d for d in range(1, 10) if d != right]
        marks = [right] + [
            int(d) for d in rng.choice(others, int(rng.integers(1, 4)), replace=False)
        ]
        for d in marks:  # small digits where players put them: 1 top left ... 9 bottom right
            row, col = divmod(d - 1, 3)
            put(pencil, d, r, c, 0.28, (col - 1) / 3.3, (row - 1) / 3.3)
        candidates[r, c] = True
    return np.asarray(pen), handwritten, np.asarray(pencil), candidates


def _font_paths(name: str) -> tuple[str, ...]:
    """Installed files called `name` (any font directory)."""
    return tuple(str(p) for root in FONT_DIRS if root.is_dir() for p in root.rglob(name))


# ---------------------------------------------------------------------------------------------
# Geometry: page -> bent page -> camera


def _rotation(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Camera rotation from degrees: pitch about x, yaw about y, roll about the optical axis."""
    a, b, c = np.radians([pitch, yaw, roll])
    rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])
    rz = np.array([[np.cos(c), -np.sin(c), 0], [np.sin(c), np.cos(c), 0], [0, 0, 1]])
    return rz @ rx @ ry


@dataclass(frozen=True)
class Camera:
    """Maps page pixels to photo pixels: bend the page, then a homography (pinhole camera).

    The bend moves y by a bow that depends on x, then x by one that depends on y; both are
    exactly invertible, which is what `cv2.remap` needs (photo pixel -> page pixel).
    """

    homography: np.ndarray  # bent page -> photo
    centre: tuple[float, float]  # grid centre on the page
    cell: float  # cell size on the page, pixels
    curl: float
    curl_skew: float
    side_bow: float
    fold: float = 0.0
    fold_at: float = 0.0

    def _bow_y(self, x):
        t = (x - self.centre[0]) / (4.5 * self.cell)  # -1 .. 1 across the grid
        crease = self.fold * np.abs(t - self.fold_at)  # a kink where the page was folded
        return self.cell * (self.curl * t * t + self.curl_skew * t * t * t + crease)

    def _bow_x(self, y):
        t = (y - self.centre[1]) / (4.5 * self.cell)
        return self.cell * self.side_bow * t * t

    def to_photo(self, points: np.ndarray) -> np.ndarray:
        """Page points (N, 2) -> photo points (N, 2)."""
        x, y = points[:, 0].astype(np.float64), points[:, 1].astype(np.float64)
        y = y + self._bow_y(x)
        x = x + self._bow_x(y)
        return cv2.perspectiveTransform(np.stack([x, y], 1)[None], self.homography)[0]

    def page_maps(self, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
        """For every photo pixel, the page pixel it shows (float32 maps for cv2.remap)."""
        inv = np.linalg.inv(self.homography).astype(np.float32)
        xs = np.arange(width, dtype=np.float32)[None, :]
        ys = np.arange(height, dtype=np.float32)[:, None]
        w = inv[2, 0] * xs + inv[2, 1] * ys
        w += inv[2, 2]
        np.reciprocal(w, out=w)
        x = inv[0, 0] * xs + inv[0, 1] * ys
        x += inv[0, 2]
        x *= w
        y = inv[1, 0] * xs + inv[1, 1] * ys
        y += inv[1, 2]
        y *= w
        del w  # in place from here on: a 12 MP photo's maps are big
        if self.side_bow:
            t = y - np.float32(self.centre[1])
            t *= np.float32(1 / (4.5 * self.cell))
            t *= t
            t *= np.float32(self.cell * self.side_bow)
            x -= t
            del t
        if self.curl or self.curl_skew or self.fold:
            t = x - np.float32(self.centre[0])
            t *= np.float32(1 / (4.5 * self.cell))
            bow = t * np.float32(self.curl_skew)
            bow += np.float32(self.curl)
            bow *= t
            bow *= t
            if self.fold:
                bow += np.float32(self.fold) * np.abs(t - np.float32(self.fold_at))
            bow *= np.float32(self.cell)
            y -= bow
        return x, y


def place_camera(style: Style, page: Page, size: tuple[int, int]) -> Camera:
    """A camera that sees the grid at the style's angles, filling `grid_fraction` of the photo.

    Shrinks the grid until its (bent) outline stays inside the photo with a margin.
    """
    width, height = size
    g = page.grid_size
    edge = np.linspace(0, 1, 19)
    outline = np.concatenate(
        [
            np.stack([edge, 0 * edge], 1),
            np.stack([1 + 0 * edge, edge], 1),
            np.stack([edge, 1 + 0 * edge], 1),
            np.stack([0 * edge, edge], 1),
        ]
    ) * g + (np.array(page.grid_origin) - 0.5)
    pose = Pose(style.roll, style.pitch, style.yaw, style.grid_fraction, style.offset)
    for _ in range(40):
        camera = camera_at(
            page,
            size,
            pose,
            (style.curl, style.curl_skew, style.side_bow, style.fold, style.fold_at),
        )
        pts = camera.to_photo(outline)
        margin = 0.03 * min(width, height)
        inside = (pts.min(0) >= margin).all() and (
            pts.max(0) <= [width - margin, height - margin]
        ).all()
        if inside:
            return camera
        pose = replace(pose, fraction=pose.fraction * 0.95)
    raise ValueError("could not fit the grid inside the photo; check the style's angles")


@dataclass(frozen=True)
class Pose:
    """Where the camera looks from: angles in degrees, the grid's size as a share of the
    photo's shorter side (seen head-on), and the grid centre's offset as a share of the
    photo's width and height."""

    roll: float = 0.0
    pitch: float = 0.0
    yaw: float = 0.0
    fraction: float = 0.7
    offset: tuple[float, float] = (0.0, 0.0)


def camera_at(
    page: Page, size: tuple[int, int], pose: Pose, bend: tuple[float, ...] = (0, 0, 0)
) -> Camera:
    """The pinhole camera of `pose` looking at the page's grid; `bend` is (curl, curl_skew,
    side_bow, fold, fold_at) of the page (the last two may be left out: no crease)."""
    width, height = size
    g = page.grid_size
    cx, cy = page.grid_origin[0] - 0.5 + g / 2, page.grid_origin[1] - 0.5 + g / 2
    focal = 0.8 * math.hypot(width, height)
    k = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]])
    rot = _rotation(pose.roll, pose.pitch, pose.yaw)
    distance = focal * g / (pose.fraction * min(width, height))
    to_world = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], float)
    extrinsic = np.column_stack([rot[:, 0], rot[:, 1], [0, 0, distance]])
    h = k @ extrinsic @ to_world
    shift = np.array([[1, 0, pose.offset[0] * width], [0, 1, pose.offset[1] * height], [0, 0, 1]])
    return Camera(shift @ h, (cx, cy), g / 9, *bend)


# ---------------------------------------------------------------------------------------------
# Light, shadow, lens and sensor


def _smooth_noise(rng, shape, scale: int) -> np.ndarray:
    """Low-frequency noise in about -1..1, upsampled from a coarse random field."""
    h, w = shape
    coarse = rng.standard_normal((max(2, h // scale), max(2, w // scale))).astype(np.float32)
    return cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)


def _table_texture(rng, shape) -> np.ndarray:
    """Brightness of the surface under the page: wood grain (long streaks) or a soft cloth."""
    h, w = shape
    if rng.random() < 0.5:
        return 1 + 0.12 * _smooth_noise(rng, shape, 48)
    along = rng.random() < 0.5  # grain direction
    fine = rng.standard_normal((max(2, h // 3), 4) if along else (4, max(2, w // 3)))
    grain = cv2.resize(fine.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    return 1 + 0.08 * grain + 0.06 * _smooth_noise(rng, shape, 64)


def _shadow_mask(rng, shape) -> np.ndarray:
    """A soft-edged blob entering from one side of the photo (a hand or a phone), 0..1."""
    h, w = shape
    small = (max(8, h // 8), max(8, w // 8))
    mask = np.zeros(small, np.float32)
    sh, sw = small
    side = rng.integers(4)
    depth = rng.uniform(0.15, 0.4)
    a, b = sorted(rng.uniform(0, 1, 2))
    b = max(b, a + 0.3)
    if side == 0:
        poly = [(a * sw, 0), (b * sw, 0), (b * sw * 0.9, depth * sh), (a * sw * 1.1, depth * sh)]
    elif side == 1:
        poly = [(sw, a * sh), (sw, b * sh), ((1 - depth) * sw, b * sh), ((1 - depth) * sw, a * sh)]
    elif side == 2:
        poly = [(a * sw, sh), (b * sw, sh), (b * sw, (1 - depth) * sh), (a * sw, (1 - depth) * sh)]
    else:
        poly = [(0, a * sh), (0, b * sh), (depth * sw, b * sh * 0.95), (depth * sw, a * sh)]
    cv2.fillPoly(mask, [np.round(np.array(poly)).astype(np.int32)], 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), 0.04 * max(sh, sw))
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)


def _light_field(rng, style: Style, shape) -> np.ndarray:
    """Brightness per pixel: mean level, linear gradient, vignette, optional shadow."""
    h, w = shape
    ys = np.linspace(-0.5, 0.5, h, dtype=np.float32)[:, None]
    xs = np.linspace(-0.5, 0.5, w, dtype=np.float32)[None, :]
    field = style.light * (1 + style.gradient[0] * xs + style.gradient[1] * ys)
    field = field * (1 - style.vignette * (xs * xs + ys * ys) * 2)
    if style.shadow > 0:
        field = field * (1 - style.shadow * _shadow_mask(rng, shape))
    return np.clip(field, 0.15, 1.2)


def _shake_kernel(length: float, angle: float) -> np.ndarray | None:
    """A normalised line kernel: the streak a shaking hand leaves during the exposure."""
    if length < 1.5:
        return None
    size = int(np.ceil(length)) | 1
    kernel = np.zeros((size, size), np.float32)
    c, d = (size - 1) / 2, np.radians(angle)
    dx, dy = np.cos(d) * (length - 1) / 2, np.sin(d) * (length - 1) / 2
    ends = np.round(np.array([[c - dx, c - dy], [c + dx, c + dy]]) * 16).astype(np.int32)
    cv2.line(kernel, tuple(ends[0]), tuple(ends[1]), 1.0, 1, cv2.LINE_AA, shift=4)
    return kernel / kernel.sum()


def _expose(rng, style: Style, ink, on_page, cell_px: float, pen=None, pencil=None):
    """The photo the sensor records from ink and page coverage (uint8 maps in photo space):
    paper and table colours, light and shadow, lens blur, sensor noise. BGR uint8.

    Works one colour channel at a time so a 12 MP photo needs no (H, W, 3) float arrays.
    """
    shape = ink.shape
    f32 = np.float32
    inked = ink.astype(f32) * f32(1 / 255)
    lit = _light_field(rng, style, shape).astype(f32)
    lit_ink = inked * lit  # the light each layer reflects: ink, pen, paper, table
    lit *= 1 - inked
    lit_pen = None
    if pen is not None:
        penned = pen.astype(f32) * f32(1 / 255)
        lit_pen = penned * lit
        lit *= 1 - penned
        del penned
    lit_pencil = None
    if pencil is not None:
        graphite = pencil.astype(f32) * f32(0.7 / 255)  # graphite lets some paper through
        lit_pencil = graphite * lit
        lit *= 1 - graphite
        del graphite
    page = on_page.astype(f32) * f32(1 / 255)
    lit_paper = (1 + 0.012 * _smooth_noise(rng, shape, 40)) * page * lit
    lit *= 1 - page
    del page, inked
    lit_table = _table_texture(rng, shape).astype(f32) * lit
    del lit
    luma = rng.standard_normal(shape, dtype=f32) * f32(style.noise)
    cast = (1 - style.warmth, 1.0, 1 + 0.5 * style.warmth)  # BGR: warm light
    sigma = max(0.3, style.blur * cell_px)
    streak = _shake_kernel(style.shake * cell_px, style.shake_angle)
    image = np.empty((*shape, 3), np.uint8)
    for c in range(3):
        channel = lit_table * f32(style.background[c] * cast[c])
        channel += lit_paper * f32(style.paper[c] * cast[c])
        channel += lit_ink * f32(style.ink[c] * cast[c])
        if lit_pen is not None:
            channel += lit_pen * f32(style.pen[c] * cast[c])
        if lit_pencil is not None:
            channel += lit_pencil * f32(style.pencil[c] * cast[c])
        cv2.GaussianBlur(channel, (0, 0), sigma, dst=channel)
        if streak is not None:
            cv2.filter2D(channel, -1, streak, dst=channel, borderType=cv2.BORDER_REFLECT)
        channel += luma
        channel += rng.standard_normal(shape, dtype=f32) * f32(0.4 * style.noise)
        channel += 0.5
        image[..., c] = np.clip(channel, 0, 255)
        del channel
    return image


# ---------------------------------------------------------------------------------------------
# The photo


@dataclass(frozen=True)
class SyntheticPhoto:
    """A generated photo and what is known about it.

    `image` is BGR uint8 exactly as decoded from `jpeg`; `corners` (4, 2) float32 are the outer
    corners of the puzzle grid in the photo, TL, TR, BR, BL of the upright grid.
    """

    image: np.ndarray
    jpeg: bytes
    givens: np.ndarray  # (9, 9) int8, 0 = empty
    solution: np.ndarray | None  # (9, 9) int8
    corners: np.ndarray
    style: Style
    seed: int
    handwritten: np.ndarray | None = None  # (9, 9) int8 digits written in by hand, 0 = none
    candidates: np.ndarray | None = None  # (9, 9) bool cells holding pencil candidates

    @property
    def kinds(self) -> str:
        """81 letters as the reader reports them: `.` empty, `p` printed, `w` written, `c`
        pencil candidates."""
        letters = np.full(81, ".")
        letters[np.asarray(self.givens).reshape(81) > 0] = "p"
        if self.handwritten is not None:
            letters[np.asarray(self.handwritten).reshape(81) > 0] = "w"
        if self.candidates is not None:
            letters[np.asarray(self.candidates).reshape(81)] = "c"
        return "".join(letters)


def render_photo(
    givens: np.ndarray,
    solution: np.ndarray | None = None,
    *,
    seed: int = 0,
    size: tuple[int, int] = (640, 480),
    style: Style | None = None,
    kind: str = "newspaper",
) -> SyntheticPhoto:
    """A phone photo (width, height) = `size` of `givens` printed on a page of `kind`.

    The page is drawn at about 1.3x the resolution the grid gets in the photo, so resampling
    it through the camera anti-aliases lines and digits the way a lens does.
    """
    givens = np.asarray(givens, dtype=np.int8).reshape(9, 9)
    width, height = size
    if width < 64 or height < 64:
        raise ValueError(f"photo size {size} is too small; need at least 64x64")
    rng = np.random.default_rng([seed, 1])
    style = style or random_style(rng, kind)
    grid_px = style.grid_fraction * min(width, height)
    page = draw_page(rng, style, givens, max(90, round(1.3 * grid_px)), solution)
    image, buf, corners = photograph(rng, style, page, size)
    return SyntheticPhoto(
        image=image,
        jpeg=buf.tobytes(),
        givens=givens,
        solution=None if solution is None else np.asarray(solution, np.int8).reshape(9, 9),
        corners=corners,
        style=style,
        seed=seed,
        handwritten=page.handwritten,
        candidates=page.candidates,
    )


def photograph(rng: np.random.Generator, style: Style, page: Page, size: tuple[int, int]):
    """The phone photo (width, height) = `size` of a flat `page`, its grid seen at the
    style's angles: (BGR image as decoded from the JPEG, the JPEG buffer, grid corners)."""
    width, height = size
    grid_px = style.grid_fraction * min(width, height)
    camera = place_camera(style, page, size)
    map_x, map_y = camera.page_maps(width, height)
    ink = cv2.remap(page.ink, map_x, map_y, cv2.INTER_LINEAR, borderValue=0)
    sheet = np.full(page.ink.shape, 255, np.uint8)
    on_page = cv2.remap(sheet, map_x, map_y, cv2.INTER_LINEAR, borderValue=0)
    pen = pencil = None
    if page.pen is not None:
        pen = cv2.remap(page.pen, map_x, map_y, cv2.INTER_LINEAR, borderValue=0)
    if page.pencil is not None:
        pencil = cv2.remap(page.pencil, map_x, map_y, cv2.INTER_LINEAR, borderValue=0)
    del map_x, map_y

    image = _expose(rng, style, ink, on_page, grid_px / 9, pen, pencil)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg_quality])
    g = page.grid_size
    ox, oy = page.grid_origin[0] - 0.5, page.grid_origin[1] - 0.5
    corners = camera.to_photo(np.array([[ox, oy], [ox + g, oy], [ox + g, oy + g], [ox, oy + g]]))
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), buf, corners.astype(np.float32)


def photograph_sheet(
    sheet: np.ndarray,
    origin: tuple[int, int],
    side: int,
    *,
    seed: int = 0,
    size: tuple[int, int] = (1280, 960),
    **overrides,
) -> SyntheticPhoto:
    """A phone photo of one grid of a printed sheet (`sheet`: the page, greyscale, black on
    white, e.g. `api.sheet.render_sheet`'s), the grid's outer corner at `origin` and `side`
    pixels wide; the rest of the page (the other grids, captions) is in the photo too.
    `givens` of the result are unknown here (zeros): the caller knows what it printed.
    """
    rng = np.random.default_rng([seed, 4])
    style = replace(random_style(np.random.default_rng([seed, 2]), "sheet"), **overrides)
    page = Page(255 - np.asarray(sheet, np.uint8), tuple(origin), int(side))
    image, buf, corners = photograph(rng, style, page, size)
    empty = np.zeros((9, 9), np.int8)
    return SyntheticPhoto(image, buf.tobytes(), empty, None, corners, style, seed)


def make_photo(
    seed: int,
    *,
    size: tuple[int, int] = (640, 480),
    kind: str = "newspaper",
    n_givens: int | None = None,
    **overrides,
) -> SyntheticPhoto:
    """A fresh puzzle (unique solution) photographed as `kind`; same seed, same photo.

    `overrides` replace fields of the drawn `Style`, e.g. `curl=0, pitch=0` for a flat page
    seen head-on, `shadow=0`, `second_grid=False`.
    """
    rng = np.random.default_rng([seed, 0])
    givens, solution = make_puzzle(rng, n_givens or int(rng.integers(24, 34)))
    style = random_style(np.random.default_rng([seed, 2]), kind)
    if overrides:
        style = replace(style, **overrides)
    return render_photo(givens, solution, seed=seed, size=size, style=style)


# A newspaper held in one hand sags into a curve whose bow across a printed sudoku (about
# 9 cm wide) reaches about a centimetre at the grid's edges: one cell.
NEWSPAPER_IN_HAND = 1.0


def curled_photo(
    seed: int,
    curl: float,
    *,
    fold: float = 0.0,
    size: tuple[int, int] = (640, 480),
    **overrides,
) -> SyntheticPhoto:
    """A newspaper photo whose page bows by `curl` cells at the grid's edges (half of it the
    other way across the rows), optionally with a crease that kinks the rows by `fold` cells
    per half-grid somewhere across the grid; moderate angles, no other bend.

    >>> photo = curled_photo(3, NEWSPAPER_IN_HAND, fold=0.3)
    >>> float(abs(photo.style.curl)), photo.style.fold
    (1.0, 0.3)
    """
    rng = np.random.default_rng([seed, 3])
    bend = dict(
        curl=float(curl * rng.choice([-1.0, 1.0])),
        curl_skew=0.0,
        side_bow=float(0.5 * curl * rng.choice([-1.0, 1.0])),
        fold=fold,
        fold_at=float(rng.uniform(-0.6, 0.6)),
        pitch=float(rng.uniform(-15, 15)),
        yaw=float(rng.uniform(-10, 10)),
    )
    return make_photo(seed, size=size, kind="newspaper", **{**bend, **overrides})


def grid_string(grid: np.ndarray) -> str:
    """81 characters in reading order, '0' for an empty cell."""
    return "".join(str(int(v)) for v in np.asarray(grid).reshape(81))


# ---------------------------------------------------------------------------------------------
# A moving video: the live camera mode's test footage


@dataclass(frozen=True)
class VideoFrame:
    """One frame of a synthetic video and its truth.

    `corners` (4, 2): TL, TR, BR, BL of the upright grid in the frame (they may lie outside
    it); `centres` (9, 9, 2): where each cell's centre is; `cell` (9, 9): the local cell side
    in pixels; `in_view`: the whole grid is inside the frame; `hand`: the hand covers part of
    the grid.
    """

    jpeg: bytes
    corners: np.ndarray
    centres: np.ndarray
    cell: np.ndarray
    in_view: bool
    hand: bool

    @property
    def image(self) -> np.ndarray:
        return cv2.imdecode(np.frombuffer(self.jpeg, np.uint8), cv2.IMREAD_COLOR)


@dataclass(frozen=True)
class SyntheticVideo:
    """A puzzle on a page filmed by a moving phone: `frames` at `fps`."""

    givens: np.ndarray
    solution: np.ndarray
    frames: list[VideoFrame]
    fps: float
    size: tuple[int, int]


def _bump(t: float, start: float, end: float) -> float:
    """0 outside [start, end], rising smoothly to 1 in the middle and back."""
    if not start < t < end:
        return 0.0
    return math.sin(math.pi * (t - start) / (end - start)) ** 2


def video_pose(t: float, out_of_view: bool = True) -> Pose:
    """The scripted motion at time t in [0, 1): the phone pans, tilts both ways, rotates
    from -10 to 25 degrees and (with `out_of_view`) pans far right so that the right third
    of the grid leaves the frame, then comes back."""
    away = 0.42 * _bump(t, 0.38, 0.58) if out_of_view else 0.0
    return Pose(
        roll=-10 + 35 * t + 4 * math.sin(6 * math.pi * t),
        pitch=16 * math.sin(3 * math.pi * t),
        yaw=12 * math.sin(2 * math.pi * t + 1),
        fraction=0.62 + 0.08 * math.sin(2 * math.pi * t),
        offset=(0.1 * math.sin(2 * math.pi * t) + away, 0.06 * math.sin(4 * math.pi * t + 0.5)),
    )


HAND_TIME = (0.68, 0.9)  # the share of the video during which a hand crosses the frame


def _hand(size: tuple[int, int], t: float) -> np.ndarray | None:
    """Coverage (H, W) float32 0..1 of a hand and forearm crossing from the bottom right to
    the top left during HAND_TIME, None outside it."""
    start, end = HAND_TIME
    if not start < t < end:
        return None
    width, height = size
    u = (t - start) / (end - start)
    palm = np.array([1.15 - 1.3 * u, 1.05 - 0.9 * u]) * (width, height)
    direction = np.array([0.8, 0.6])
    elbow = palm + direction * 1.5 * max(width, height)
    mask = np.zeros((height, width), np.float32)
    axes = (int(0.16 * height), int(0.11 * height))
    angle = math.degrees(math.atan2(direction[1], direction[0]))
    cv2.ellipse(mask, tuple(int(v) for v in palm), axes, angle, 0, 360, 1.0, -1, cv2.LINE_AA)
    cv2.line(
        mask,
        tuple(int(v) for v in palm),
        tuple(int(v) for v in elbow),
        1.0,
        int(0.2 * height),
        cv2.LINE_AA,
    )
    return cv2.GaussianBlur(mask, (0, 0), 0.006 * width + 0.5)


def make_video(
    seed: int,
    *,
    n_frames: int = 150,
    size: tuple[int, int] = (640, 480),
    fps: float = 25.0,
    hand: bool = True,
    out_of_view: bool = True,
    quality: int = 80,
    **overrides,
) -> SyntheticVideo:
    """A flat printed page with a fresh puzzle, filmed along `video_pose` for `n_frames`.

    Each frame is exposed anew (sensor noise, light), blurred like a phone video and
    JPEG-encoded; a hand crosses the grid during HAND_TIME. The page is flat, so the truth
    (corners, cell centres) is the camera's homography of the page's grid, exactly.

    Examples
    --------
    >>> video = make_video(1, n_frames=3)
    >>> len(video.frames), video.frames[0].centres.shape, video.frames[0].in_view
    (3, (9, 9, 2), True)
    """
    rng = np.random.default_rng([seed, 0])
    givens, solution = make_puzzle(rng, int(rng.integers(24, 34)))
    style = random_style(np.random.default_rng([seed, 2]), "sheet")
    style = replace(
        style, curl=0.0, curl_skew=0.0, side_bow=0.0, shadow=0.0, shake=0.0, **overrides
    )
    width, height = size
    page = draw_page(
        np.random.default_rng([seed, 1]), style, givens, round(1.0 * min(size)), solution
    )
    g, (ox, oy) = page.grid_size, (page.grid_origin[0] - 0.5, page.grid_origin[1] - 0.5)
    outline = np.array([[ox, oy], [ox + g, oy], [ox + g, oy + g], [ox, oy + g]])
    steps = (np.arange(9) + 0.5) * g / 9
    xs, ys = np.meshgrid(ox + steps, oy + steps)
    page_centres = np.stack([xs.ravel(), ys.ravel()], axis=1)
    sheet = np.full(page.ink.shape, 255, np.uint8)
    skin = np.array([120, 150, 205], np.float32)  # BGR
    frames = []
    for i in range(n_frames):
        t = i / n_frames
        camera = camera_at(page, size, video_pose(t, out_of_view))
        map_x, map_y = camera.page_maps(width, height)
        ink = cv2.remap(page.ink, map_x, map_y, cv2.INTER_LINEAR, borderValue=0)
        on_page = cv2.remap(sheet, map_x, map_y, cv2.INTER_LINEAR, borderValue=0)
        corners = camera.to_photo(outline)
        cell_px = float(np.linalg.norm(corners[1] - corners[0])) / 9
        image = _expose(np.random.default_rng([seed, 3, i]), style, ink, on_page, cell_px)
        covered = False
        cover = _hand(size, t) if hand else None
        if cover is not None:
            grid_mask = np.zeros((height, width), np.uint8)
            cv2.fillConvexPoly(grid_mask, np.round(corners).astype(np.int32), 1)
            covered = bool((cover[grid_mask > 0] > 0.5).any())
            shade = (0.75 + 0.25 * cover)[..., None] * skin
            image = (image * (1 - cover[..., None]) + shade * cover[..., None]).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        centres = camera.to_photo(page_centres).reshape(9, 9, 2)
        right = camera.to_photo(page_centres + [g / 18, 0]).reshape(9, 9, 2)
        down = camera.to_photo(page_centres + [0, g / 18]).reshape(9, 9, 2)
        cell = 2 * np.sqrt(
            np.linalg.norm(right - centres, axis=2) * np.linalg.norm(down - centres, axis=2)
        )
        in_view = bool(((corners >= 0) & (corners < [width, height])).all())
        frames.append(
            VideoFrame(buf.tobytes(), corners.astype(np.float32), centres, cell, in_view, covered)
        )
    return SyntheticVideo(givens, solution, frames, fps, size)
