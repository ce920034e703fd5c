"""Read the symbols printed in a board's cells: digits, two-digit numbers and letters.

A 6x6 prints 1-6; a 16x16 ("super sudoku") prints its sixteen symbols one of four ways:
1 to 16 (two digits in one cell), 0-F, 1-9 then A-G, or A-P. So each cell's ink is cut
into glyphs, left to right, each glyph is read as one of GLYPHS (or as no symbol), and the
board's convention is the one that explains all its glyphs best (`convention_of`): a
round "0" and an "O" differ little, but a board printing both "0" and "G" is not 0-F.
Every cell's reading is then a probability for each of the board's symbols, which the
solver's rules can weigh.

Two engines read glyphs, as for the 9x9 (`vision.recognise`):

- "classifier": a small perceptron (`vision/models/symbols.npz`, trained by
  `python -m api.train.symbols` on glyphs rendered in the installed fonts and cut by this
  very module), run with numpy: a 16x16's hundred glyphs in about a millisecond.
- "tesseract": every glyph pasted into one mosaic for a single Tesseract call, its
  whitelist the alphabet's glyphs.

>>> square = np.full((6 * CELL, 6 * CELL), 230, np.uint8)
>>> cells = cut_symbols(square, 6)
>>> len(cells), sum(len(c.glyphs) for c in cells)
(36, 0)
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.cells import SIZE, normalised

CELL = 48  # pixels a cell in the square symbols are cut from
GLYPHS = "0123456789ABCDEFGHIJKLMNOP"  # classes 1..26 of the model; 0 is "no symbol"
# how each board prints its symbols: the glyphs of value 1, 2, ... in order
CONVENTIONS = {
    "1-16": tuple(str(v) for v in range(1, 17)),
    "0-F": tuple("0123456789ABCDEF"),
    "1-9A-G": tuple("123456789ABCDEFG"),
    "A-P": tuple("ABCDEFGHIJKLMNOP"),
}
DIGITS = {n: tuple(str(v) for v in range(1, n + 1)) for n in (4, 6, 8, 9)}
MODEL = Path(__file__).resolve().parent / "models" / "symbols.npz"
INSET = 0.05  # of a cell: a glyph's inside starts past its lines
MIN_HEIGHT = 0.2  # of a cell: a glyph is at least this tall (specks are not)
EMPTY_SURE = 0.995  # an inkless cell is empty
CUT_LEVEL = 0.45  # of a cell's darkest ink: its glyphs' strokes
FLOOR = 0.3  # of the board's strong print: no cell's glyph is fainter
GROW_LEVEL = 0.2  # of a cell's darkest ink: the hairlines its glyphs' strong marks grow into


@dataclass
class SymbolCell:
    """One cell's glyphs, left to right: each normalised (SIZE x SIZE, ink 1.0 on 0) with
    its box (x, y, w, h) in the square."""

    glyphs: list[np.ndarray] = field(default_factory=list)
    boxes: list[tuple[int, int, int, int]] = field(default_factory=list)


def ink_of(square: np.ndarray) -> np.ndarray:
    """The print's darkness above its own paper (float32, 0 on paper): a black-hat a third
    of a cell wide takes away the paper's tint, a shaded box and a shadow."""
    across = int(CELL / 3) | 1
    return cv2.morphologyEx(square, cv2.MORPH_BLACKHAT, np.ones((across, across), np.uint8)).astype(
        np.float32
    )


def cut_symbols(square: np.ndarray, size: int) -> list[SymbolCell]:
    """Each cell's glyphs, in reading order, from a board's grey square of CELL pixels a
    cell (`vision.warp.warp_grid`).

    The ink is the print above its paper (`ink_of`), the lines (strokes longer than most of
    a cell) taken out; a cell's glyphs are its ink beyond CUT_LEVEL of its own darkest, so
    print in a shaded box or a shadow is cut as whole as on white. In each cell, inside INSET of its sides, the marks at least MIN_HEIGHT of a cell
    tall are its glyphs; marks side by side are separate glyphs ("12"), marks above one
    another (a broken stroke) one.
    """
    dark = ink_of(square)
    strong = float(np.percentile(dark, 99.5))
    floor = max(12.0, FLOOR * strong)  # the paper's grain and a shadow's edge stay below
    lines = board_lines((dark > max(12.0, 0.4 * strong)).astype(np.uint8)) > 0
    dark = np.where(lines, 0, dark).astype(np.float32)
    cells = []
    lo = round(INSET * CELL)
    for r in range(size):
        for c in range(size):
            y, x = r * CELL + lo, c * CELL + lo
            window = dark[y : y + CELL - 2 * lo, x : x + CELL - 2 * lo]
            top = float(window.max())
            level = max(floor, CUT_LEVEL * top)  # its own print's contrast
            faint = (window > max(0.5 * floor, GROW_LEVEL * top)).astype(np.uint8)
            cells.append(cell_glyphs(window, (window > level).astype(np.uint8), (x, y), faint))
    return cells


def board_lines(mask: np.ndarray) -> np.ndarray:
    """The board's lines in an ink mask: strokes running most of a cell across or down
    (thickened across first, so a line a little askew still runs), grown by a pixel."""
    length = int(0.8 * CELL)
    across = cv2.morphologyEx(
        cv2.dilate(mask, np.ones((3, 1), np.uint8)), cv2.MORPH_OPEN, np.ones((1, length), np.uint8)
    )
    down = cv2.morphologyEx(
        cv2.dilate(mask, np.ones((1, 3), np.uint8)), cv2.MORPH_OPEN, np.ones((length, 1), np.uint8)
    )
    return cv2.dilate(across | down, np.ones((3, 3), np.uint8))


def cell_glyphs(
    crop: np.ndarray, mask: np.ndarray, origin=(0, 0), faint: np.ndarray | None = None
) -> SymbolCell:
    """The glyphs in one cell's inside (its darkness, float32, and its ink mask), left to
    right; origin: where the inside's top left lies in the square. With `faint` (a lower
    level's mask), each glyph is the faint ink connected to its strong marks: a serif "0"'s
    hairline top and bottom join its two thick sides into one glyph.

    >>> crop = np.zeros((40, 40), np.float32); crop[8:28, 16:20] = 200   # a bar: a 1
    >>> found = cell_glyphs(crop, (crop > 80).astype(np.uint8))
    >>> len(found.glyphs), found.glyphs[0].shape, found.boxes[0]
    (1, (28, 28), (16, 8, 4, 20))
    """
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = mask.shape
    strong = []
    for k in range(1, count):
        x, y, bw, bh, area = stats[k]
        tall = bh >= MIN_HEIGHT * CELL or (bw >= MIN_HEIGHT * CELL and bh >= 0.1 * CELL)
        if tall and area >= 0.01 * CELL * CELL and not line_remnant(x, y, bw, bh, w, h):
            strong.append(k)
    if faint is not None and strong:  # each strong mark grown into the faint ink round it
        _, grown, fstats, _ = cv2.connectedComponentsWithStats(faint | mask, connectivity=8)
        parts = sorted({int(grown[labels == k][0]) for k in strong})
        labels, stats = grown, fstats
    else:
        parts = strong
    marks = [
        [stats[k][0], stats[k][1], stats[k][0] + stats[k][2], stats[k][1] + stats[k][3], [k]]
        for k in parts
    ]
    marks.sort(key=lambda m: m[0])
    glyphs: list[list] = []
    for m in marks:  # marks that overlap across (a stroke broken in two) are one glyph
        if glyphs and min(m[2], glyphs[-1][2]) - max(m[0], glyphs[-1][0]) > 0.5 * min(
            m[2] - m[0], glyphs[-1][2] - glyphs[-1][0]
        ):
            g = glyphs[-1]
            g[:4] = min(g[0], m[0]), min(g[1], m[1]), max(g[2], m[2]), max(g[3], m[3])
            g[4] += m[4]
        else:
            glyphs.append(m)
    found = SymbolCell()
    for x0, y0, x1, y1, ks in glyphs[:3]:
        keep = np.isin(labels[y0:y1, x0:x1], ks)
        keep = cv2.dilate(keep.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        ink = np.where(keep, crop[y0:y1, x0:x1], 0)
        strong_ink = max(float(np.percentile(ink[keep], 90)), 1.0)
        found.glyphs.append(normalised(np.clip(ink / strong_ink, 0, 1).astype(np.float32), SIZE))
        found.boxes.append((int(origin[0] + x0), int(origin[1] + y0), int(x1 - x0), int(y1 - y0)))
    return found


def line_remnant(x: int, y: int, width: int, height: int, w: int, h: int) -> bool:
    """Whether a mark is a piece of the board's line left inside a cell: a bar a sixth of a
    cell thin along the cell's side, touching it or within a seventh of a cell of it (an
    "I" or a "1" is printed in the middle). `w`, `h`: the cell inside's size."""
    edge, thin = CELL / 7, CELL / 6
    upright = width <= thin and (
        x <= 1 or x + width >= w - 1 or min(x + width / 2, w - x - width / 2) <= edge
    )
    lying = height <= thin and (
        y <= 1 or y + height >= h - 1 or min(y + height / 2, h - y - height / 2) <= edge
    )
    return upright or lying


# --------------------------------------------------------------------- glyphs to classes


def load_model(path: str | Path | None = None) -> dict:
    """The glyph classifier's weights: the shipped model, or $SUDOKU_LENS_SYMBOL_MODEL."""
    return _read(Path(path or os.environ.get("SUDOKU_LENS_SYMBOL_MODEL") or MODEL))


@functools.lru_cache(maxsize=4)
def _read(path: Path) -> dict:
    if not path.is_file():
        raise FileNotFoundError(
            f"symbol model {path} is missing: run `python -m api.train.symbols`"
        )
    with np.load(path) as data:
        return {k: data[k].astype(np.float32) for k in data.files if k[0] in "wb"}


def classify_glyphs(images: np.ndarray, weights: dict | None = None) -> np.ndarray:
    """(N, 27) probabilities for N normalised glyph images: column 0 "no symbol", then
    GLYPHS in order."""
    from vision.recognise import forward

    if len(images) == 0:
        return np.zeros((0, len(GLYPHS) + 1), np.float32)
    w = load_model() if weights is None else weights
    x = np.asarray(images, np.float32).reshape(len(images), -1)
    return forward(x, w).astype(np.float32)


def tesseract_glyphs(images: np.ndarray, whitelist: str = GLYPHS) -> np.ndarray:
    """(N, 27) probabilities for N glyph images read by Tesseract in one call."""
    from vision.recognise import mosaic, tesseract_words

    probs = np.full((len(images), len(GLYPHS) + 1), 0.02, np.float32)
    probs[:, 0] = 0.3  # unread: probably a glyph Tesseract could not make out
    if len(images) == 0:
        return probs
    sheet, centres = mosaic((np.asarray(images) * 255).astype(np.uint8))
    data = tesseract_words(sheet, whitelist)
    for text, left, top, width, height, conf in zip(
        data["text"], data["left"], data["top"], data["width"], data["height"], data["conf"],
        strict=True,
    ):  # fmt: skip
        text = text.strip().upper()
        if len(text) != 1 or text not in GLYPHS or float(conf) < 0:
            continue
        cx, cy = left + width / 2, top + height / 2
        slot = int(np.argmin(np.abs(centres[:, 0] - cx) + np.abs(centres[:, 1] - cy)))
        p = min(max(float(conf) / 100, 0.3), 0.98)
        probs[slot] = (1 - p) / len(GLYPHS)
        probs[slot, 1 + GLYPHS.index(text)] = p
    return probs / probs.sum(axis=1, keepdims=True)


ENGINES = ("classifier", "tesseract")


def read_glyphs(images: np.ndarray, engine: str = "classifier") -> np.ndarray:
    """(N, 27) glyph probabilities by the named engine."""
    if engine == "tesseract":
        return tesseract_glyphs(images)
    if engine != "classifier":
        raise ValueError(
            f"unknown recognition engine {engine!r}; choose one of {', '.join(ENGINES)}"
        )
    return classify_glyphs(images)


def upright_turn(cells: list[SymbolCell], allowed=(0, 1, 2, 3), weights: dict | None = None) -> int:
    """The quarter turns (counter-clockwise, as `np.rot90`) of `allowed` that stand the
    glyphs upright: the turn in which the classifier is surest they are symbols at all
    (it was taught turned glyphs as "no symbol"). A glyph turns with the square: the
    square turned k times shows each glyph turned k times."""
    images = np.array([g for cell in cells for g in cell.glyphs][:64])
    if len(images) == 0:
        return min(allowed)
    scores = {}
    for k in allowed:
        p = classify_glyphs(np.rot90(images, k, axes=(1, 2)), weights)
        scores[k] = float(np.log(1 - p[:, 0] + 1e-6).sum())
    return max(scores, key=scores.get)


# --------------------------------------------------------------------- conventions


def alphabet_for(size: int, convention: str | None) -> tuple[str, ...]:
    """The printed forms of values 1..size."""
    if size == 16:
        return CONVENTIONS[convention or "1-9A-G"]
    return DIGITS[size]


def symbol_odds(cells_glyphs: list[np.ndarray], alphabet: tuple[str, ...]) -> np.ndarray:
    """(cells, len(alphabet) + 1) each cell's probability of being empty (column 0) or
    holding each printed form, from its glyphs' probabilities (each (k, 27)).

    A form of one glyph takes the glyph's probability of that class; a form of two ("12")
    the product over its glyphs, as long as the cell has as many glyphs. An inkless cell
    is empty; the odds of a cell of glyphs that fit no form fall on its likeliest forms.
    """
    n = len(alphabet)
    out = np.zeros((len(cells_glyphs), n + 1), np.float64)
    for i, probs in enumerate(cells_glyphs):
        if len(probs) == 0:
            out[i, 0] = EMPTY_SURE
            out[i, 1:] = (1 - EMPTY_SURE) / n
            continue
        for v, form in enumerate(alphabet, start=1):
            if len(form) != len(probs):
                out[i, v] = 1e-6
                continue
            out[i, v] = np.prod([probs[j, 1 + GLYPHS.index(ch)] for j, ch in enumerate(form)])
        out[i, 0] = 0.15 * float(np.prod(probs[:, 0]))  # specks the classifier calls no symbol
    out = np.maximum(out, 1e-9)
    return (out / out.sum(axis=1, keepdims=True)).astype(np.float32)


def fit_of(cells_glyphs: list[np.ndarray], alphabet: tuple[str, ...]) -> float:
    """How well an alphabet explains every inked cell's glyphs: the log of each cell's
    likeliest form, summed (a form of the wrong length is near impossible)."""
    total = 0.0
    for probs in cells_glyphs:
        if len(probs) == 0:
            continue
        best = 1e-9
        for form in alphabet:
            if len(form) == len(probs):
                best = max(
                    best,
                    float(np.prod([probs[j, 1 + GLYPHS.index(ch)] for j, ch in enumerate(form)])),
                )
        total += np.log(best)
    return total


def convention_of(cells_glyphs: list[np.ndarray], size: int) -> str | None:
    """The 16x16 convention (of CONVENTIONS) that explains the glyphs best; None for
    other boards, whose digits are 1..size."""
    if size != 16:
        return None
    return max(CONVENTIONS, key=lambda name: fit_of(cells_glyphs, CONVENTIONS[name]))
