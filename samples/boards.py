"""Synthetic phone photos of sudoku boards other than the plain 9x9, with their truth.

Why: the photo reader learns 6x6 boards (boxes of 2 rows by 3 columns), 16x16 boards (4x4
boxes, their sixteen symbols printed in one of four conventions: 1-16, 0-F, 1-9A-G or A-P)
and diagonal ("X") 9x9 sudoku, and learns to refuse by name the kinds it does not solve
(killer, jigsaw, samurai). Measuring and testing that needs photos of each, printed the many
ways papers and magazines print them, so that a reader cannot lean on one look: several
faces (sans and serif, sometimes bold), symbols 0.45 to 0.7 of a cell high, frames, box lines
and cell lines each of their own width (box lines always visibly bolder than cell lines),
alternate boxes shaded or not, a caption over the grid and a line of rules under it.

A board is drawn flat on a page with `api.sheet.draw_grid` (the sheet's own grid drawing,
given the style) and photographed with `samples.pages.photograph_page` (tilt, roll, light,
shadow, blur, noise, JPEG), which maps the grid's corners through the camera, so the truth
is exact. Puzzles of the supported kinds come from the project's generator (one solution
each); the refused kinds only need to look right: a killer's cages, a jigsaw's regions and a
samurai's five grids are drawn over random solved 9x9 grids, and their truth is their kind.

Everything follows from the seed.

    >>> photo = board_photo("jigsaw", seed=1, size=(480, 640))
    >>> photo.kind, photo.size, photo.givens, photo.corners.shape
    ('jigsaw', 9, None, (4, 2))
    >>> [printed_symbol(10, 16, c) for c in CONVENTIONS], printed_symbol(5, 6, None)
    (['10', '9', 'A', 'J'], '5')
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw

from api.sheet import DIAGONAL_MARKS, _digit_font, draw_grid
from samples.pages import photograph_page, poor_light_style
from samples.synthetic import _font, installed_fonts, random_style, solved_grid

KINDS = ("6x6", "9x9", "16x16", "diagonal", "killer", "jigsaw", "samurai")
CONVENTIONS = ("1-16", "0-F", "1-9A-G", "A-P")  # how a 16x16 prints its 16 symbols
SUPPORTED = ("6x6", "9x9", "16x16", "diagonal")
REFUSED = ("killer", "jigsaw", "samurai")

# kind -> (board side, solver variant, box shape (rows, columns))
BOARDS = {
    "6x6": (6, "standard", (2, 3)),
    "9x9": (9, "standard", (3, 3)),
    "16x16": (16, "standard", (4, 4)),
    "diagonal": (9, "diagonal", (3, 3)),
    "killer": (9, "killer", (3, 3)),
    "jigsaw": (9, "jigsaw", (3, 3)),
    "samurai": (21, "samurai", (3, 3)),
}
_ALPHABETS = {"0-F": "0123456789ABCDEF", "1-9A-G": "123456789ABCDEFG", "A-P": "ABCDEFGHIJKLMNOP"}
_SYMBOL_WORDS = {
    "1-16": "the numbers 1 to 16",
    "0-F": "0 to 9 and A to F",
    "1-9A-G": "1 to 9 and A to G",
    "A-P": "the letters A to P",
}
TITLES = {
    "6x6": ("Mini Sudoku", "Sudoku 6x6", "Junior Sudoku", "Sudoku for Beginners"),
    "9x9": ("Sudoku", "Classic Sudoku", "Daily Sudoku", "SUDOKU"),
    "16x16": ("Super Sudoku", "Sudoku 16x16", "Giant Sudoku", "Mega Sudoku"),
    "diagonal": ("Sudoku X", "Diagonal Sudoku", "X-Sudoku", "Sudoku Diagonal"),
    "killer": ("Killer Sudoku", "KILLER", "Sum Sudoku"),
    "jigsaw": ("Jigsaw Sudoku", "Irregular Sudoku", "Sudoku Jigsaw"),
    "samurai": ("Samurai Sudoku", "Gattai-5", "SAMURAI"),
}
LEVEL_WORDS = ("Easy", "Gentle", "Moderate", "Tough", "Difficult", "Fiendish")
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
SAMURAI_OFFSETS = ((0, 0), (0, 12), (12, 0), (12, 12), (6, 6))  # (row, column) of each grid


def printed_symbol(value: int, size: int, convention: str | None) -> str:
    """Value 1..size as printed: a board up to 9x9 prints str(value); a 16x16 by its
    convention: "1-16" -> "1".."16", "0-F" -> "0".."F", "1-9A-G" -> "1".."9", "A".."G",
    "A-P" -> "A".."P".

    >>> printed_symbol(1, 16, "0-F"), printed_symbol(16, 16, "1-9A-G"), printed_symbol(16, 16, "1-16")
    ('0', 'G', '16')
    """
    if not 1 <= value <= size:
        raise ValueError(f"a {size}x{size} board holds 1 to {size}, not {value}")
    if size <= 9:
        return str(value)
    if size != 16:
        raise ValueError(f"no printed symbols for a {size}x{size} board")
    if convention == "1-16":
        return str(value)
    if convention not in _ALPHABETS:
        raise ValueError(f"a 16x16 prints by one of {CONVENTIONS}, not {convention!r}")
    return _ALPHABETS[convention][value - 1]


def printed_cells(values: np.ndarray, size: int, convention: str | None) -> list[str]:
    """Every cell's printed text in reading order, '' where the value is 0."""
    return [printed_symbol(int(v), size, convention) if v else "" for v in values.reshape(-1)]


@dataclass
class BoardPhoto:
    """A photo of one board and its truth.

    `image` BGR uint8 exactly as decoded from `jpeg`; `corners` (4, 2) float32 TL, TR, BR,
    BL of the grid's outer frame in the photo (a samurai's: its 21x21 outline square), TL
    the upright board's; `givens` / `solution` (size, size) int8 values 0..size (0 empty),
    None for the refused kinds; `size` 6, 9, 16 (9 for killer and jigsaw, 21 for samurai's
    layout); `variant` "standard" or "diagonal", or the refused kind's name; `convention`
    the 16x16's symbols (None otherwise); `description` the print style, convention,
    diagonal mark, light and view in words, for lists of misses.
    """

    image: np.ndarray
    jpeg: bytes
    kind: str
    size: int
    variant: str
    convention: str | None
    corners: np.ndarray
    givens: np.ndarray | None
    solution: np.ndarray | None
    description: str
    seed: int


# ---------------------------------------------------------------------------------------------
# Puzzles


@functools.lru_cache(maxsize=64)
def puzzle(size: int, variant: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(givens, solution), each (size, size) int8 read-only: an easy puzzle of the project's
    generator (one solution; easy keeps a 16x16 to about a second)."""
    from solver import generate

    made = generate("easy", size=size, variant=variant, seed=seed, time_limit=None)[0]
    givens = made.puzzle.values.reshape(size, size).copy()
    solution = made.solution.values.reshape(size, size).copy()
    givens.setflags(write=False)
    solution.setflags(write=False)
    return givens, solution


def _neighbours(cells, free: np.ndarray) -> list[tuple[int, int]]:
    """The cells next to `cells` (up, down, left, right) that are `free` (an (n, n) mask),
    sorted."""
    n = free.shape[0]
    return sorted(
        {
            (r + dr, c + dc)
            for r, c in cells
            for dr, dc in STEPS
            if 0 <= r + dr < n and 0 <= c + dc < n and free[r + dr, c + dc]
        }
    )


def killer_cages(rng: np.random.Generator, n: int = 9) -> np.ndarray:
    """(n, n) cage numbers 0.. : connected cages of 2 to 5 cells covering the board, grown
    from random cells to random sizes; a cell left alone joins a neighbouring cage of fewer
    than 5; drawn again until every cage has 2 to 5."""
    while True:
        cage = np.full((n, n), -1)
        number = 0
        for start in rng.permutation(n * n):
            r, c = divmod(int(start), n)
            if cage[r, c] >= 0:
                continue
            want = int(rng.integers(2, 6))
            cells = [(r, c)]
            cage[r, c] = number
            while len(cells) < want:
                free = _neighbours(cells, cage < 0)
                if not free:
                    break
                cells.append(free[rng.integers(len(free))])
                cage[cells[-1]] = number
            number += 1
        sizes = np.bincount(cage.ravel(), minlength=number)
        for alone in np.nonzero(sizes == 1)[0]:
            if sizes[alone] != 1:  # a lone cell since joined by another
                continue
            ((r, c),) = np.argwhere(cage == alone)
            near = sorted(
                {int(cage[y, x]) for y, x in _neighbours([(r, c)], cage >= 0)} - {int(alone)}
            )
            near = [k for k in near if sizes[k] < 5]
            if near:
                target = near[rng.integers(len(near))]
                cage[r, c] = target
                sizes[target] += 1
                sizes[alone] = 0
        used = sizes[sizes > 0]
        if used.min() >= 2 and used.max() <= 5:
            return np.unique(cage, return_inverse=True)[1].reshape(n, n)


def jigsaw_regions(rng: np.random.Generator, n: int = 9) -> np.ndarray:
    """(n, n) region numbers 0..n-1: n connected irregular regions of n cells each.

    Each region grows from the first free cell in reading order by random free neighbours to
    n cells; one that gets stuck, or leaves free cells in a patch that is not a multiple of
    n, is grown again (up to 30 times, then the whole board is)."""
    while True:
        region = np.full((n, n), -1)
        for k in range(n):
            for _ in range(30):
                if _grow_region(rng, region, k, n):
                    break
                region[region == k] = -1
            else:
                break
        else:
            return region


def _grow_region(rng, region: np.ndarray, k: int, n: int) -> bool:
    cells = [tuple(np.argwhere(region < 0)[0])]
    region[cells[0]] = k
    while len(cells) < n:
        free = _neighbours(cells, region < 0)
        if not free:
            return False
        cells.append(free[rng.integers(len(free))])
        region[cells[-1]] = k
    count, labels = cv2.connectedComponents((region < 0).astype(np.uint8), connectivity=4)
    return all(np.count_nonzero(labels == j) % n == 0 for j in range(1, count))


def _some_cells(rng: np.random.Generator, grid: np.ndarray, low: int, high: int) -> np.ndarray:
    """`grid` with all but `low`..`high` random cells emptied."""
    keep = rng.choice(grid.size, int(rng.integers(low, high + 1)), replace=False)
    shown = np.zeros_like(grid)
    shown.flat[keep] = grid.flat[keep]
    return shown


# ---------------------------------------------------------------------------------------------
# Print styles


@dataclass(frozen=True)
class PrintStyle:
    """How one board is printed (`print_style` draws one; `board_photo`'s keywords of these
    names replace fields). Widths and heights are shares of a cell."""

    font: str | None  # the symbols' face (path); None: Pillow's bundled one
    digit_height: float  # a printed '8' / cell
    border: float  # the outer frame
    box_line: float  # box lines (a jigsaw's region borders)
    cell_line: float
    shaded_boxes: bool  # alternate boxes tinted light grey
    margin: float  # white paper around the board / the board's side
    caption: str  # printed over the board
    level: str  # printed at the caption's right, '' none
    rules: bool  # a line of rules printed under the board
    caption_font: str | None
    paper: str  # samples.synthetic's paper: "newspaper", "book", "sheet"

    @property
    def lines(self) -> tuple[float, float, float]:
        return (self.border, self.box_line, self.cell_line)


def print_style(rng: np.random.Generator, kind: str) -> PrintStyle:
    """A plausible print of `kind`: a face from the installed sans and serif families (a
    bold one on about one board in three), symbols 0.45 to 0.7 of a cell, cell lines 1.2 to 3% of a cell, box lines
    2.2 to 3.5 times those, a frame as bold or bolder, a caption and maybe a level and
    rules, alternate boxes shaded on about one board in four (never on a board whose
    regions are not boxes)."""
    u = rng.uniform
    family = "serif" if rng.random() < 0.35 else "sans"
    faces = installed_fonts(family) or installed_fonts("sans")
    bold = tuple(f for f in faces if "Bold" in f or "Demi" in f)
    regular = tuple(f for f in faces if f not in bold)
    faces = (bold if rng.random() < 0.3 else regular) or faces or (None,)
    captions = installed_fonts("sans") + installed_fonts("serif") or (None,)
    cell_line = u(0.012, 0.03)
    box_line = min(0.09, cell_line * u(2.2, 3.5))
    border = min(0.12, box_line * u(1.0, 1.6))
    shadeable = kind in ("6x6", "9x9", "16x16", "diagonal")
    return PrintStyle(
        font=faces[rng.integers(len(faces))],
        digit_height=u(0.45, 0.7),
        border=border,
        box_line=box_line,
        cell_line=cell_line,
        shaded_boxes=shadeable and rng.random() < 0.25,
        margin=u(0.04, 0.14),
        caption=f"No. {rng.integers(1, 400)}  {TITLES[kind][rng.integers(len(TITLES[kind]))]}",
        level=LEVEL_WORDS[rng.integers(len(LEVEL_WORDS))] if rng.random() < 0.5 else "",
        rules=rng.random() < 0.6,
        caption_font=captions[rng.integers(len(captions))],
        paper=("newspaper", "book", "sheet")[rng.integers(3)],
    )


def rules_text(kind: str, convention: str | None) -> str:
    """The line of rules a paper prints under a board of `kind`."""
    fill = "Fill the grid so that every row, column and"
    return {
        "6x6": f"{fill} 2x3 box contains the digits 1 to 6.",
        "9x9": f"{fill} 3x3 box contains the digits 1 to 9.",
        "16x16": f"{fill} 4x4 box contains {_SYMBOL_WORDS.get(convention or '', '')}.",
        "diagonal": f"{fill} 3x3 box, and both long diagonals, contain the digits 1 to 9.",
        "killer": "The digits in each dotted cage add up to the small number in its corner; "
        "no digit repeats within a cage.",
        "jigsaw": f"{fill} bold-outlined region contains the digits 1 to 9.",
        "samurai": "Each of the five 9x9 grids is a sudoku; the corner boxes they share "
        "belong to both.",
    }[kind]


def describe(style: PrintStyle) -> str:
    """The print style in words."""
    face = Path(style.font).stem if style.font else "Pillow's face"
    words = [
        f"{face} at {style.digit_height:.2f} cell",
        f"lines {style.border:.3f}/{style.box_line:.3f}/{style.cell_line:.3f} cell",
    ]
    if style.shaded_boxes:
        words.append("shaded boxes")
    words.append(f"caption {style.caption!r}" + (f" ({style.level})" if style.level else ""))
    words.append(f"{style.paper} paper")
    return ", ".join(words)


# ---------------------------------------------------------------------------------------------
# The page


def board_page(
    style: PrintStyle,
    side: int,
    rules: str,
    draw_board: Callable[[ImageDraw.ImageDraw, tuple[int, int], int], None],
) -> tuple[np.ndarray, tuple[int, int]]:
    """A flat page (greyscale, white paper) holding one board of `side` pixels, the
    caption (and level) over it and, when the style has them, the rules under it; with the
    board's outer top-left pixel. `draw_board(draw, origin, side)` draws the board."""
    margin = round(style.margin * side)
    caption_px = max(10, round(0.045 * side))
    small_px = max(8, round(0.028 * side))
    caption_face = _font(style.caption_font, caption_px)
    small_face = _font(style.caption_font, small_px)
    lines = _wrapped(rules, small_face, side) if style.rules else []
    top = margin + round(1.6 * caption_px)
    height = top + side + round(0.5 * small_px) + round(1.4 * small_px) * len(lines) + margin
    page = Image.new("L", (side + 2 * margin, height), 255)
    draw = ImageDraw.Draw(page)
    draw.text((margin, margin), style.caption, font=caption_face, fill=0, anchor="lt")
    if style.level:
        draw.text(
            (margin + side, margin + caption_px), style.level, font=small_face, fill=0, anchor="rs"
        )
    origin = (margin, top)
    draw_board(draw, origin, side)
    y = top + side + round(0.5 * small_px)
    for line in lines:
        draw.text((margin, y), line, font=small_face, fill=0, anchor="lt")
        y += round(1.4 * small_px)
    return np.asarray(page), origin


def _wrapped(text: str, face, width: float) -> list[str]:
    """`text` broken into lines no wider than `width` pixels."""
    lines: list[str] = []
    for word in text.split():
        if lines and face.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def _draw_plain(style, box_shape, symbols, diagonal=False, mark="shaded"):
    """The drawing of a board with boxes: `api.sheet.draw_grid` in the style."""

    def draw_board(draw, origin, side):
        draw_grid(
            draw,
            "",
            origin,
            side,
            box_shape,
            diagonal,
            symbols=symbols,
            font_path=style.font,
            digit_height=style.digit_height,
            lines=style.lines,
            diagonal_mark=mark,
            shaded_boxes=style.shaded_boxes,
            centre_ink=True,
        )

    return draw_board


def _dashes(draw, start, end, period: float, dash: float, width: int) -> None:
    """A dashed line from `start` to `end` (level or upright); dashes fall at multiples of
    `period` along the axis, so that lines meeting at a corner continue each other's beat."""
    (xa, ya), (_, yb) = start, end
    along = 0 if ya == yb else 1
    a, b = sorted((start[along], end[along]))
    k = math.floor(a / period)
    while k * period < b:
        s, e = max(a, k * period), min(b, k * period + dash)
        if e > s:
            if along == 0:
                draw.line((s, ya, e, ya), fill=0, width=width)
            else:
                draw.line((xa, s, xa, e), fill=0, width=width)
        k += 1


def cage_outline(cage: np.ndarray, r: int, c: int, inset: float) -> list[tuple]:
    """The pieces of cage outline cell (r, c) carries, in cells from the board's top-left:
    ((x0, y0), (x1, y1)) along each side the cage ends at, `inset` inside it; a piece
    runs on to the next cell where the cage goes on, and turns `inset` past the cell's edge
    at an inner corner, so the pieces join into one outline around the cage."""
    n = cage.shape[0]
    g = cage[r, c]

    def inside(y, x):
        return 0 <= y < n and 0 <= x < n and cage[y, x] == g

    def end(side_open, across, at, sign):
        # the piece's end at the cell's edge `at`: short of it at an outer corner, past it
        # at an inner one, on it where the outline runs straight on
        if not side_open:
            return at - sign * inset
        return at + sign * inset if across else at

    pieces = []
    left, right, top, bottom = c, c + 1, r, r + 1
    for dr, y in ((-1, top + inset), (1, bottom - inset)):
        if not inside(r + dr, c):
            x0 = end(inside(r, c - 1), inside(r + dr, c - 1), left, -1)
            x1 = end(inside(r, c + 1), inside(r + dr, c + 1), right, 1)
            pieces.append(((x0, y), (x1, y)))
    for dc, x in ((-1, left + inset), (1, right - inset)):
        if not inside(r, c + dc):
            y0 = end(inside(r - 1, c), inside(r - 1, c + dc), top, -1)
            y1 = end(inside(r + 1, c), inside(r + 1, c + dc), bottom, 1)
            pieces.append(((x, y0), (x, y1)))
    return pieces


def _draw_killer(style: PrintStyle, givens: np.ndarray, cage: np.ndarray, sums):
    """A killer board: its cages dashed `inset` inside their cells, each cage's sum small
    in its first cell's top-left corner on a white patch, then the grid over them."""
    inset = max(0.1, style.border + 0.03)

    def draw_board(draw, origin, side):
        cell = side / 9
        x0, y0 = origin
        width = max(1, round(0.018 * cell))
        period, dash = 0.13 * cell, 0.08 * cell
        for r in range(9):
            for c in range(9):
                for (ax, ay), (bx, by) in cage_outline(cage, r, c, inset):
                    start, stop = (x0 + ax * cell, y0 + ay * cell), (x0 + bx * cell, y0 + by * cell)
                    _dashes(draw, start, stop, period, dash, width)
        face = _digit_font(cell, 0.22, style.font)
        for k, total in enumerate(sums):
            (r, c), *_ = np.argwhere(cage == k)  # the cage's first cell in reading order
            x = x0 + (c + _half_line(style, c) + 0.03) * cell
            y = y0 + (r + _half_line(style, r) + 0.03) * cell
            box = draw.textbbox((x, y), str(total), font=face, anchor="lt")
            pad = 0.03 * cell
            draw.rectangle((box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad), fill=255)
            draw.text((x, y), str(total), font=face, fill=0, anchor="lt")
        _draw_plain(replace(style, shaded_boxes=False), (3, 3), printed_cells(givens, 9, None))(
            draw, origin, side
        )

    return draw_board


def _half_line(style: PrintStyle, at: int) -> float:
    """How far the rule at line `at` of a 9x9 reaches into the cell after it / cell."""
    if at == 0:
        return style.border
    return (style.box_line if at % 3 == 0 else style.cell_line) / 2


def _draw_jigsaw(style: PrintStyle, givens: np.ndarray, region: np.ndarray):
    """A jigsaw board: the grid with cell lines only, then a bold rule along every cell edge
    between two regions."""

    def draw_board(draw, origin, side):
        plain = replace(style, shaded_boxes=False)
        _draw_plain(plain, (9, 9), printed_cells(givens, 9, None))(draw, origin, side)
        cell = side / 9
        x0, y0 = origin
        w = max(1, round(style.box_line * cell))
        for r in range(9):
            for c in range(9):
                if c and region[r, c] != region[r, c - 1]:
                    _edge(draw, x0, y0, side, c * cell, r * cell, (r + 1) * cell, w, True)
                if r and region[r, c] != region[r - 1, c]:
                    _edge(draw, x0, y0, side, r * cell, c * cell, (c + 1) * cell, w, False)

    return draw_board


def _edge(draw, x0, y0, side, at, start, stop, w: int, vertical: bool) -> None:
    """A bold rule of `w` pixels centred on the cell edge at `at` from `start` to `stop`
    (offsets from the board's top-left), run on by half its width so rules meet squarely."""
    a = round(min(max(at - w / 2, 0), side - w))
    s = round(max(0, start - w / 2))
    e = round(min(side, stop + w / 2)) - 1
    if vertical:
        draw.rectangle((x0 + a, y0 + s, x0 + a + w - 1, y0 + e), fill=0)
    else:
        draw.rectangle((x0 + s, y0 + a, x0 + e, y0 + a + w - 1), fill=0)


def samurai_digits(rng: np.random.Generator) -> np.ndarray:
    """(21, 21) digits shown on a samurai (0 empty, also outside the five grids): each grid a
    random solved grid where no grid before it lies, 24 to 32 cells of each shown."""
    layout = np.zeros((21, 21), np.int8)
    shown = np.zeros((21, 21), np.int8)
    for r, c in SAMURAI_OFFSETS:
        window = layout[r : r + 9, c : c + 9]
        window[window == 0] = solved_grid(rng)[window == 0]
        picked = _some_cells(rng, window, 24, 32)
        view = shown[r : r + 9, c : c + 9]
        view[picked > 0] = picked[picked > 0]
    return shown


def _draw_samurai(style: PrintStyle, shown: np.ndarray):
    """Five 9x9 grids on 21x21 cells, each with its own frame and box lines; the centre one
    first, its corner boxes' digits left to the corner grids drawn over it."""

    def draw_board(draw, origin, side):
        cell = side // 21
        plain = replace(style, shaded_boxes=False)
        for k, (r, c) in enumerate(reversed(SAMURAI_OFFSETS)):
            digits = shown[r : r + 9, c : c + 9].copy()
            if k == 0:  # the centre grid: its corner boxes belong to the corner grids
                for br, bc in ((0, 0), (0, 6), (6, 0), (6, 6)):
                    digits[br : br + 3, bc : bc + 3] = 0
            at = (origin[0] + c * cell, origin[1] + r * cell)
            _draw_plain(plain, (3, 3), printed_cells(digits, 9, None))(draw, at, 9 * cell)

    return draw_board


# ---------------------------------------------------------------------------------------------
# The photo


def _per_cell(seed: int, paper: str, cells: int) -> dict:
    """Blur and shake as `photograph_page` draws them, rescaled from its ninth of the
    board to this board's cell, so that a 16x16's symbols are as sharp as a 9x9's."""
    drawn = random_style(np.random.default_rng([seed, 12]), paper)
    return dict(blur=min(drawn.blur, 0.02) * 9 / cells, shake=0.5 * drawn.shake * 9 / cells)


def board_photo(
    kind: str,
    *,
    seed: int,
    size: tuple[int, int] = (1200, 1600),
    convention: str | None = None,
    diagonal_mark: str | None = None,
    poor_light: bool = False,
    **style_overrides,
) -> BoardPhoto:
    """A phone photo (width, height) = `size` of one board of `kind` filling much of a
    printed page, and its truth.

    `convention` (16x16 only) and `diagonal_mark` ("shaded" or "lines", diagonal only) are
    drawn from the seed when None. `style_overrides` named as `PrintStyle` fields replace the
    print's (e.g. `shaded_boxes=True`, `digit_height=0.5`), the others the photo's
    (`samples.synthetic.Style` fields: `pitch=0`, `shadow=0`, ...); `poor_light` photographs
    under a dim lamp (`samples.pages.poor_light_style`).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    if convention is not None and (kind != "16x16" or convention not in CONVENTIONS):
        raise ValueError(f"convention {convention!r}: a 16x16 takes one of {CONVENTIONS}")
    if diagonal_mark is not None and (kind != "diagonal" or diagonal_mark not in DIAGONAL_MARKS):
        raise ValueError(
            f"diagonal_mark {diagonal_mark!r}: a diagonal takes one of {DIAGONAL_MARKS}"
        )
    rng = np.random.default_rng([seed, 41, KINDS.index(kind)])
    style = print_style(rng, kind)
    printed = {f.name for f in fields(PrintStyle)}
    style = replace(style, **{k: v for k, v in style_overrides.items() if k in printed})
    photo_overrides = {k: v for k, v in style_overrides.items() if k not in printed}
    if kind == "16x16" and convention is None:
        convention = CONVENTIONS[rng.integers(len(CONVENTIONS))]
    if kind == "diagonal" and diagonal_mark is None:
        diagonal_mark = DIAGONAL_MARKS[rng.integers(len(DIAGONAL_MARKS))]
    if diagonal_mark == "shaded":
        style = replace(style, shaded_boxes=False)  # the diagonal's tint alone
    n, variant, box_shape = BOARDS[kind]
    side = n * max(8, round(1.3 * min(size) / n))  # a whole number of pixels a cell
    givens = solution = None
    words = [f"{kind} board"]
    if kind in SUPPORTED:
        givens, solution = (a.copy() for a in puzzle(n, variant, seed))
        symbols = printed_cells(givens, n, convention)
        draw = _draw_plain(style, box_shape, symbols, kind == "diagonal", diagonal_mark or "shaded")
        words.append(f"{np.count_nonzero(givens)} givens")
        if convention:
            words.append(f"symbols {convention}")
        if diagonal_mark:
            words.append(f"diagonals {diagonal_mark}")
    elif kind == "killer":
        cage = killer_cages(rng)
        full = solved_grid(rng)
        sums = np.bincount(cage.ravel(), weights=full.ravel()).astype(int)
        shown = _some_cells(rng, full, 2, 4) if rng.random() < 0.4 else np.zeros_like(full)
        draw = _draw_killer(style, shown, cage, sums)
        words.append(f"{len(sums)} cages, {np.count_nonzero(shown)} digits")
    elif kind == "jigsaw":
        region = jigsaw_regions(rng)
        shown = _some_cells(rng, solved_grid(rng), 22, 30)
        draw = _draw_jigsaw(style, shown, region)
        words.append(f"{np.count_nonzero(shown)} digits")
    else:
        shown = samurai_digits(rng)
        draw = _draw_samurai(style, shown)
        words.append(f"five grids, {np.count_nonzero(shown)} digits")
    page, origin = board_page(style, side, rules_text(kind, convention), draw)
    overrides = _per_cell(seed, style.paper, n)
    if poor_light:
        overrides.update(poor_light_style(np.random.default_rng([seed, 13])))
    overrides.update(photo_overrides)
    words += [describe(style), "poor light" if poor_light else "good light", f"seed {seed}"]
    photo = photograph_page(
        page,
        [(origin, side, "", "", "puzzle")],
        seed=seed,
        size=size,
        description=", ".join(words),
        paper=style.paper,
        **overrides,
    )
    return BoardPhoto(
        image=photo.image,
        jpeg=photo.jpeg,
        kind=kind,
        size=n,
        variant=variant,
        convention=convention,
        corners=photo.grids[0].corners,
        givens=givens,
        solution=solution,
        description=photo.description,
        seed=seed,
    )


def board_photos(
    count: int, seed: int = 0, *, size: tuple[int, int] = (1200, 1600)
) -> Iterator[BoardPhoto]:
    """A bench's mix of `count` photos of the supported kinds: the kinds in turn (the turn
    shifted by one every eight photos), each 16x16 in the next of the CONVENTIONS, each
    diagonal in the next mark, print styles from each photo's seed, and every eighth photo
    in poor light (a different kind each time). Same seed, same photos."""
    rng = np.random.default_rng([seed, 43])
    made = dict.fromkeys(SUPPORTED, 0)
    for i in range(count):
        kind = SUPPORTED[(i + i // 8) % len(SUPPORTED)]
        turn = made[kind]
        made[kind] += 1
        yield board_photo(
            kind,
            seed=int(rng.integers(2**31)),
            size=size,
            convention=CONVENTIONS[turn % len(CONVENTIONS)] if kind == "16x16" else None,
            diagonal_mark=DIAGONAL_MARKS[turn % 2] if kind == "diagonal" else None,
            poor_light=i % 8 == 7,
        )


def refused_photos(
    count: int, seed: int = 0, *, size: tuple[int, int] = (1200, 1600)
) -> Iterator[BoardPhoto]:
    """`count` photos of the kinds the reader refuses by name: killer, jigsaw, samurai in
    turn, every eighth in poor light. Same seed, same photos."""
    rng = np.random.default_rng([seed, 47])
    for i in range(count):
        yield board_photo(
            REFUSED[i % len(REFUSED)],
            seed=int(rng.integers(2**31)),
            size=size,
            poor_light=i % 8 == 7,
        )
