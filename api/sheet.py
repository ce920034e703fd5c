"""A printable sheet of puzzles, drawn like a newspaper's page: print it, solve in pencil,
photograph it for `sudoku-lens photo --mode check`.

Why drawn this way: the photo reader finds a grid by its bold outer frame and box lines and
reads printed digits best in a plain upright face, so the sheet uses exactly what newspapers
print: a heavy border, bold box lines, thin cell lines, digits in a clean sans face (Liberation
Sans or DejaVu Sans from Debian's fonts, Pillow's own face when neither is installed), a wide
white margin around every grid, and under each grid its number and level. A4 portrait,
six 9x9 grids a page (two 16x16 or 4x4/6x6 grids as their size allows); PDF keeps every page,
PNG writes one file a page (`sheet.png`, `sheet-2.png`, ...).

>>> from solver import generate
>>> pages = render_sheet(generate("easy", count=2, seed=1), dpi=60)
>>> len(pages), pages[0].size
(1, (496, 701))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

A4_INCHES = (8.27, 11.69)
FORMATS = (".pdf", ".png")
# Line widths as a share of a cell: a newspaper's heavy frame, bold box lines, hairlines.
BORDER, BOX_LINE, CELL_LINE = 0.08, 0.06, 0.018
DIGIT_HEIGHT = 0.6  # a printed digit's height / cell
DIAGONAL_TINT = 215  # grey level of a diagonal sudoku's diagonal cells
BOX_TINT = 228  # grey level of the alternate boxes some papers shade
DIAGONAL_MARKS = ("shaded", "lines")  # how a diagonal sudoku marks its diagonals
WIDE_SYMBOL = 0.78  # the widest a symbol of two characters ("10".."16") may be / cell
FONT_NAMES = ("LiberationSans-Regular.ttf", "DejaVuSans.ttf", "FreeSans.ttf")
FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
# Grids a page holds by board side: (columns, rows)
PER_PAGE = {4: (2, 3), 6: (2, 3), 9: (2, 3), 16: (1, 2)}


@dataclass(frozen=True)
class Placed:
    """Where one puzzle sits on its page: the grid's outer top-left corner and side, pixels."""

    page: int
    origin: tuple[int, int]
    side: int


def digit_font_path() -> str | None:
    """The first of FONT_NAMES installed, or None (Pillow's bundled face)."""
    for root in FONT_DIRS:
        if root.is_dir():
            for name in FONT_NAMES:
                found = next(root.rglob(name), None)
                if found is not None:
                    return str(found)
    return None


def _font(size: int, path: str | None = None) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The face at `path` (the sheet's, `digit_font_path`, when None) at `size` pixels."""
    path = path or digit_font_path()
    return ImageFont.truetype(path, size) if path else ImageFont.load_default(size)


def layout(count: int, board: int, dpi: int = 200) -> list[Placed]:
    """Where each of `count` grids of side `board` goes: pages of A4 at `dpi`, each grid in
    its own cell of the page's columns and rows, with room under it for the caption.

    >>> [p.page for p in layout(7, 9, dpi=100)]
    [0, 0, 0, 0, 0, 0, 1]
    """
    width, height = (round(side * dpi) for side in A4_INCHES)
    columns, rows = PER_PAGE[board]
    margin = round(0.6 * dpi)
    slot_w = (width - 2 * margin) / columns
    slot_h = (height - 2 * margin) / rows
    side = int(min(0.84 * slot_w, 0.8 * slot_h))
    placed = []
    for k in range(count):
        page, at = divmod(k, columns * rows)
        row, column = divmod(at, columns)
        x = margin + column * slot_w + (slot_w - side) / 2
        y = margin + row * slot_h + (slot_h - side) * 0.3
        placed.append(Placed(page, (round(x), round(y)), side))
    return placed


def draw_grid(
    draw: ImageDraw.ImageDraw,
    line: str,
    origin,
    side: int,
    box_shape,
    diagonal: bool = False,
    *,
    symbols: Sequence[str] | None = None,
    font_path: str | None = None,
    digit_height: float = DIGIT_HEIGHT,
    lines: tuple[float, float, float] = (BORDER, BOX_LINE, CELL_LINE),
    diagonal_mark: str = "shaded",
    shaded_boxes: bool = False,
    centre_ink: bool = False,
) -> None:
    """One puzzle, black on white: `line` its cells in reading order ('.' empty). A
    diagonal sudoku's two diagonals are tinted light grey, as puzzle books mark them.

    The keywords print it in other papers' styles (their defaults are the sheet's):
    `symbols` the cells' printed texts in reading order ('' empty) in place of `line`'s
    characters, for symbols of two characters ("10".."16") or a '0' that is a symbol;
    `font_path` the face; `digit_height` a printed '8''s height / cell, symbols of two
    characters in a smaller face that fits WIDE_SYMBOL of a cell, as magazines print them;
    `lines` the widths of the outer frame, the box lines and the cell lines / cell;
    `diagonal_mark` "shaded" (the diagonal cells tinted) or "lines" (a thin line corner to
    corner along each diagonal); `shaded_boxes` alternate boxes tinted light grey;
    `centre_ink` centres each symbol's ink in its cell rather than the face's line (whose
    middle sits below a digit's in many faces: a tall digit then meets a bold frame).
    """
    if diagonal_mark not in DIAGONAL_MARKS:
        raise ValueError(f"diagonal_mark must be one of {DIAGONAL_MARKS}, not {diagonal_mark!r}")
    texts = [s if s not in ".0" else "" for s in line] if symbols is None else list(symbols)
    n = math.isqrt(len(texts))
    cell = side / n
    x0, y0 = origin
    border, box_line, cell_line = lines
    box_rows, box_cols = box_shape
    if shaded_boxes:
        for r in range(0, n, box_rows):
            for c in range(0, n, box_cols):
                if (r // box_rows + c // box_cols) % 2:
                    x, y = x0 + c * cell, y0 + r * cell
                    draw.rectangle((x, y, x + box_cols * cell, y + box_rows * cell), fill=BOX_TINT)
    if diagonal and diagonal_mark == "shaded":
        for r in range(n):
            for c in {r, n - 1 - r}:
                x, y = x0 + c * cell, y0 + r * cell
                draw.rectangle((x, y, x + cell, y + cell), fill=DIAGONAL_TINT)
    elif diagonal:
        w = max(1, round(cell_line * cell))
        draw.line((x0, y0, x0 + side - 1, y0 + side - 1), fill=0, width=w)
        draw.line((x0 + side - 1, y0, x0, y0 + side - 1), fill=0, width=w)
    font = _digit_font(cell, digit_height, font_path)
    _draw_symbols(draw, texts, origin, cell, font, centre_ink)
    for i in range(n + 1):
        if i in (0, n):
            width = border
        elif i % box_cols == 0:
            width = box_line
        else:
            width = cell_line
        _line(draw, x0, y0, side, i * cell, width * cell, vertical=True)
    for i in range(n + 1):
        if i in (0, n):
            width = border
        elif i % box_rows == 0:
            width = box_line
        else:
            width = cell_line
        _line(draw, x0, y0, side, i * cell, width * cell, vertical=False)


def _draw_symbols(draw, texts: list[str], origin, cell: float, font, centre_ink=False) -> None:
    """Each non-empty text centred in its cell (reading order), its ink's box when
    `centre_ink`; one of two or more characters in the face shrunk so that the widest of
    them fits WIDE_SYMBOL of a cell."""
    n = math.isqrt(len(texts))
    x0, y0 = origin
    wide = [t for t in texts if len(t) > 1]
    small = font
    if wide and isinstance(font, ImageFont.FreeTypeFont):
        widest = max(font.getlength(t) for t in set(wide))
        if widest > WIDE_SYMBOL * cell:
            small = font.font_variant(size=max(6, int(font.size * WIDE_SYMBOL * cell / widest)))
    for k, symbol in enumerate(texts):
        if symbol:
            r, c = divmod(k, n)
            cx, cy = x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell
            face = small if len(symbol) > 1 else font
            if centre_ink:
                left, top, right, bottom = face.getbbox(symbol, anchor="lt")
                at = (round(cx - (left + right) / 2), round(cy - (top + bottom) / 2))
                draw.text(at, symbol, font=face, fill=0, anchor="lt")
            else:
                draw.text((cx, cy), symbol, font=face, fill=0, anchor="mm")


def _line(draw, x0, y0, side, at, width, vertical: bool) -> None:
    """A rule at offset `at` from the grid's edge, kept inside the outer frame."""
    w = max(1, round(width))
    start = round(min(max(at - w / 2, 0), side - w))
    if vertical:
        draw.rectangle((x0 + start, y0, x0 + start + w - 1, y0 + side - 1), fill=0)
    else:
        draw.rectangle((x0, y0 + start, x0 + side - 1, y0 + start + w - 1), fill=0)


def _digit_font(cell: float, height: float = DIGIT_HEIGHT, path: str | None = None):
    """The face (`path`, the sheet's when None) sized so that a printed '8' is `height` of
    a cell tall."""
    probe = _font(100, path)
    left, top, right, bottom = probe.getbbox("8")
    return _font(max(6, round(100 * height * cell / max(1, bottom - top))), path)


def caption(number: int, made) -> str:
    """The line under a grid: its number and, when graded, its level and rating."""
    text = f"No. {number}"
    found = getattr(made, "grade", None)
    if found is not None:
        text += f"   {found.level}"
        rating = getattr(found, "rating", None)
        if rating is not None:
            text += f" (ER {rating:.1f})"
    return text


def render_sheet(made: list, *, dpi: int = 200, title: str = "Sudoku") -> list[Image.Image]:
    """The pages (greyscale PIL images) holding every puzzle of `made` (solver.generate's
    `Made`s, all of one board size), numbered from 1 in order."""
    if not made:
        raise ValueError("no puzzles to lay out")
    geometry = made[0].puzzle.geometry
    board = geometry.size
    if any(m.puzzle.geometry.size != board for m in made):
        raise ValueError("every puzzle of a sheet must have the same board size")
    placed = layout(len(made), board, dpi)
    size = tuple(round(side * dpi) for side in A4_INCHES)
    pages = [Image.new("L", size, 255) for _ in range(placed[-1].page + 1)]
    draws = [ImageDraw.Draw(page) for page in pages]
    heading = _font(round(0.22 * dpi))
    small = _font(round(0.13 * dpi))
    for k, draw in enumerate(draws):
        draw.text((round(0.6 * dpi), round(0.3 * dpi)), title, font=heading, fill=0)
        footer = f"page {k + 1} of {len(pages)}"
        draw.text(
            (size[0] - round(0.6 * dpi), size[1] - round(0.3 * dpi)),
            footer,
            font=small,
            fill=0,
            anchor="rs",
        )
    box = geometry.box_shape or (math.isqrt(board),) * 2
    for number, (m, at) in enumerate(zip(made, placed, strict=True), start=1):
        draw = draws[at.page]
        diagonal = m.puzzle.geometry.name.startswith("diagonal")
        draw_grid(draw, m.line, at.origin, at.side, box, diagonal)
        below = (at.origin[0], at.origin[1] + at.side + round(0.08 * dpi))
        draw.text(below, caption(number, m), font=small, fill=0, anchor="la")
    return pages


def sheet_paths(path: Path, pages: int) -> list[Path]:
    """The files a sheet is written to: one PDF, or one PNG a page (-2, -3, ... after the
    first)."""
    if path.suffix.lower() == ".pdf" or pages == 1:
        return [path]
    return [path] + [path.with_name(f"{path.stem}-{k}{path.suffix}") for k in range(2, pages + 1)]


def save_sheet(pages: list[Image.Image], path: str | Path, dpi: int = 200) -> list[Path]:
    """Write the pages as one PDF or PNG files, by the path's suffix; the paths written.

    Raises ValueError naming the suffix when it is neither .pdf nor .png.
    """
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"sheet {str(path)!r}: write a .pdf or a .png, not {path.suffix!r}")
    paths = sheet_paths(path, len(pages))
    if path.suffix.lower() == ".pdf":
        pages[0].save(path, "PDF", resolution=dpi, save_all=True, append_images=pages[1:])
    else:
        for page, target in zip(pages, paths, strict=True):
            page.save(target, "PNG", dpi=(dpi, dpi))
    return paths
