"""Synthetic phone photos of whole pages holding several sudoku grids, with every grid's truth.

Why: a newspaper or puzzle-book page often carries several puzzles and a small printed
"yesterday's solution", and a printed sheet of `sudoku-lens new --sheet` carries up to six; a
photo of such a page must give every grid, each at its own place, and never take a solution
grid or a crossword for a puzzle. Real photos of such pages with labels are not to be had, so
this module composes the pages and photographs them the way `samples.synthetic` photographs
one grid (the same camera, bend, light, shadow, blur, noise and JPEG), with the camera framing
the whole page rather than one grid. Every grid's corners in the photo come from the camera's
own mapping, so the truth is exact.

Two kinds of page:

- `sheet_photo`: the project's own printable sheet (`api.sheet.render_sheet`) of 1, 2, 4 or 6
  fresh puzzles (`solver.generate`; 9x9 unless asked for 4x4, 6x6, 16x16 or diagonal boards),
  rasterised directly (what the PNG holds) or through its PDF (`pdftoppm`, when installed).
- `shared_page`: a newspaper-like page built from REAL photos in ../shared (wichtounet's
  `images/`, whose labels are the printed givens): each grid cut out of its photo by its
  labelled corners, turned upright, levelled to paper white, laid out at different sizes
  among columns of text, sometimes a crossword, and a small printed solution grid. Needs
  ../shared (next to the repository's root): `shared_available()` says whether it is there,
  and `shared_page` raises `FileNotFoundError` naming it when not.

Everything follows from the seed; nothing is kept between pages but the list of usable photos
and the last 48 grid cuts (small: a photo's grid, not the photo).

    >>> photo = sheet_photo(2, seed=1, size=(600, 800))
    >>> photo.image.shape, len(photo.grids), photo.grids[0].kind
    ((800, 600, 3), 2, 'puzzle')
"""

from __future__ import annotations

import functools
import math
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw

from samples.synthetic import (
    Page,
    Pose,
    _draw_text_block,
    _expose,
    _font,
    camera_at,
    installed_fonts,
    random_style,
    solved_grid,
)

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
WICHT_IMAGES = SHARED / "datasets" / "wichtounet" / "images"

# Photo sizes (width, height): an old phone's 2 MP up to today's 12 MP, both ways round.
SIZES = ((1200, 1600), (1536, 2048), (2448, 3264), (3000, 4000), (4000, 3000))
SHEET_COUNTS = (1, 2, 4, 6)


@dataclass
class PageGrid:
    """One grid on a photographed page.

    corners: (4, 2) float32 TL, TR, BR, BL of the grid's outer edge in the photo's pixels,
    TL being the upright grid's (as the page reads). givens: 81 characters, '0' empty, what
    is printed. solution: 81 digits. kind: "puzzle", or "solution" for a small fully printed
    solution grid (its givens are its solution). A sheet of other boards (`sheet_photo`'s
    `board`) gives board x board characters in the generator's alphabet ('0' still empty).
    """

    corners: np.ndarray
    givens: str
    solution: str
    kind: str


@dataclass
class PagePhoto:
    """A photo of a page and its truth: `image` BGR uint8 exactly as decoded from `jpeg`;
    `grids` in the page's reading order (by the grids' top edges, those on one line left to
    right); `description` says the source, layout and light, for lists of misses."""

    image: np.ndarray
    jpeg: bytes
    grids: list[PageGrid]
    seed: int
    description: str

    @property
    def puzzles(self) -> list[PageGrid]:
        return [g for g in self.grids if g.kind == "puzzle"]


# origin (x, y) of the grid's outer top-left pixel on the page, side in pixels, givens,
# solution, kind
GridOnPage = tuple[tuple[int, int], int, str, str, str]


# ---------------------------------------------------------------------------------------------
# Photographing a whole page


def reading_order(grids: list[GridOnPage]) -> list[GridOnPage]:
    """Grids sorted as a page reads: by their top edges, grids whose tops lie within a
    quarter of the smaller one's side counted as one line and read left to right."""
    by_top = sorted(grids, key=lambda g: (g[0][1], g[0][0]))
    lines: list[list[GridOnPage]] = []
    for grid in by_top:
        line = lines[-1] if lines else None
        if line and abs(grid[0][1] - line[0][0][1]) < 0.25 * min(grid[1], line[0][1]):
            line.append(grid)
        else:
            lines.append([grid])
    return [g for line in lines for g in sorted(line, key=lambda g: g[0][0])]


def content_box(page_gray: np.ndarray, pad: float = 0.02) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) around everything printed on the page, padded by `pad` of its size:
    what a person frames when photographing the page."""
    step = max(1, min(page_gray.shape) // 600)
    small = page_gray[::step, ::step]
    ys, xs = np.nonzero(small < 235)
    h, w = page_gray.shape
    if len(xs) == 0:
        return 0, 0, w, h
    p = pad * max(h, w)
    x0, x1 = max(0, xs.min() * step - p), min(w, (xs.max() + 1) * step + p)
    y0, y1 = max(0, ys.min() * step - p), min(h, (ys.max() + 1) * step + p)
    return round(x0), round(y0), round(x1), round(y1)


def _box_outline(box) -> np.ndarray:
    """Points along the edges of box (x0, y0, x1, y1): a bent page's edge is curved."""
    x0, y0, x1, y1 = box
    t = np.linspace(0, 1, 13)
    xs, ys = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
    return np.concatenate(
        [
            np.stack([xs, 0 * t + y0], 1),
            np.stack([0 * t + x1, ys], 1),
            np.stack([xs, 0 * t + y1], 1),
            np.stack([0 * t + x0, ys], 1),
        ]
    )


def _frame_page(box, size, pose: Pose, bend, fill: float):
    """The camera of `pose` that shows the content `box` as large as fits in the photo with
    a 2% margin, times `fill` (< 1 leaves more of the table around the page).

    `samples.synthetic.camera_at` aims at a square "grid" on a page: here the square around
    the content box, so its centre is the box's and its bend spans the whole box.
    """
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    target = Page(np.zeros((1, 1), np.uint8), (cx - side / 2 + 0.5, cy - side / 2 + 0.5), side)
    outline = _box_outline(box)
    width, height = size
    margin = 0.02 * min(width, height)

    def fits(fraction: float) -> bool:
        points = camera_at(target, size, replace(pose, fraction=fraction), bend).to_photo(outline)
        return bool(
            (points.min(0) >= margin).all()
            and (points.max(0) <= [width - margin, height - margin]).all()
        )

    low, high = 0.05, 3.0
    for _ in range(24):
        mid = (low + high) / 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return camera_at(target, size, replace(pose, fraction=low * fill), bend)


def _page_scale(camera, box) -> float:
    """Photo pixels per page pixel across the content box (mean of its two axes)."""
    x0, y0, x1, y1 = box
    p = camera.to_photo(np.array([[x0, y0], [x1, y0], [x0, y1]], float))
    return float(
        (np.linalg.norm(p[1] - p[0]) / (x1 - x0) + np.linalg.norm(p[2] - p[0]) / (y1 - y0)) / 2
    )


def _quarter_turns(rng: np.random.Generator, page_shape, size) -> int:
    """How the phone was held: the page's long side along the photo's long side (held the
    other way, the photo is stored sideways, as some users' photos are), upside down rarely."""
    page_tall = page_shape[0] >= page_shape[1]
    photo_tall = size[1] >= size[0]
    if page_tall == photo_tall:
        return 2 if rng.random() < 0.04 else 0
    return int(rng.choice([1, 3]))


def photograph_page(
    page_gray: np.ndarray,
    grids: list[GridOnPage],
    *,
    seed: int,
    size: tuple[int, int] = (1200, 1600),
    description: str = "",
    paper: str = "newspaper",
    turn: int | None = None,
    fill: float | None = None,
    **style_overrides,
) -> PagePhoto:
    """A phone photo (width, height) = `size` of a whole printed page and every grid's truth.

    `page_gray`: the flat page, greyscale uint8, dark print on white; `grids`: where each
    grid sits on it and what it holds. The camera frames the page's content box (tilted,
    rolled by up to 10 degrees plus `turn` quarter turns, drawn when None), the page bends a
    little, and `samples.synthetic`'s exposure adds the paper's colour, light, shadow, blur,
    noise and the JPEG. `paper` is the `random_style` kind ("newspaper", "book", "sheet");
    `style_overrides` replace fields of the drawn `Style` (e.g. `shadow=0`, `light=0.6`).

    A page drawn much finer than the photo resolves is first shrunk (area averaging) to about
    1.3 page pixels a photo pixel, as a lens integrates: remapping it directly would alias
    thin lines away.
    """
    width, height = size
    rng = np.random.default_rng([seed, 11])
    style = random_style(np.random.default_rng([seed, 12]), paper)
    u = rng.uniform
    turns = _quarter_turns(rng, page_gray.shape, size) if turn is None else int(turn) % 4
    style = replace(
        style,
        roll=90.0 * turns + u(-10, 10),
        pitch=float(np.clip(style.pitch, -20, 20)),
        yaw=float(np.clip(style.yaw, -15, 15)),
        curl=0.4 * style.curl,  # in ninths of the page: a page lying on a table, not in hand
        curl_skew=0.4 * style.curl_skew,
        side_bow=0.4 * style.side_bow,
        shake=0.5 * style.shake,
        blur=min(style.blur, 0.02),
    )
    if style_overrides:
        style = replace(style, **style_overrides)
    fill = float(u(0.82, 0.98)) if fill is None else fill
    bend = (style.curl, style.curl_skew, style.side_bow)
    pose = Pose(style.roll, style.pitch, style.yaw)
    page = np.asarray(page_gray, np.uint8)
    box = content_box(page)
    camera = _frame_page(box, size, pose, bend, fill)
    scale = _page_scale(camera, box)
    placed = [(np.asarray(o, float), float(s), g, sol, k) for o, s, g, sol, k in grids]
    if scale < 1 / 1.5:  # shrink the page to about 1.3 page pixels a photo pixel
        f = 1.3 * scale
        h, w = page.shape
        page = cv2.resize(
            page, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA
        )
        fx, fy = page.shape[1] / w, page.shape[0] / h
        box = tuple(round(v * (fx if i % 2 == 0 else fy)) for i, v in enumerate(box))
        # a pixel's centre k maps to (k + 0.5) * f - 0.5: the grid's outer edge is origin - 0.5
        placed = [((o + 0.5) * (fx, fy) - 0.5, s * fx, g, sol, k) for o, s, g, sol, k in placed]
        camera = _frame_page(box, size, pose, bend, fill)
    ink = 255 - page
    del page
    if style.show_through > 0:  # the back of the sheet, mirrored and soft
        back = cv2.GaussianBlur(cv2.flip(ink, 1), (0, 0), 0.0015 * max(ink.shape) + 0.5)
        ink = np.maximum(ink, cv2.convertScaleAbs(back, alpha=0.6 * style.show_through))
        del back
    map_x, map_y = camera.page_maps(width, height)
    photo_ink = cv2.remap(ink, map_x, map_y, cv2.INTER_LINEAR, borderValue=0)
    on_page = cv2.remap(np.full_like(ink, 255), map_x, map_y, cv2.INTER_LINEAR, borderValue=0)
    del map_x, map_y, ink

    truth = []
    sides = []
    for origin, side, givens, solution, kind in placed:
        ox, oy = origin - 0.5
        square = np.array([[ox, oy], [ox + side, oy], [ox + side, oy + side], [ox, oy + side]])
        corners = camera.to_photo(square).astype(np.float32)
        truth.append(((origin[0], origin[1]), side, givens, solution, kind, corners))
        if kind == "puzzle":
            sides.append(float(np.linalg.norm(corners[1] - corners[0])))
    cell_px = max(sides or [0.3 * min(size)]) / 9
    image = _expose(rng, style, photo_ink, on_page, cell_px)
    del photo_ink, on_page
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg_quality])
    del image
    ordered = reading_order([t[:5] for t in truth])
    by_place = {(t[0], t[1]): t for t in truth}
    page_grids = [PageGrid(by_place[(o, s)][5], g, sol, k) for o, s, g, sol, k in ordered]
    light = f"light {style.light:.2f}" + (f", shadow {style.shadow:.2f}" if style.shadow else "")
    view = f"roll {style.roll:.0f}, tilt {style.pitch:.0f}/{style.yaw:.0f}"
    parts = [description, f"{width}x{height}", view, light]
    return PagePhoto(
        image=cv2.imdecode(buf, cv2.IMREAD_COLOR),
        jpeg=buf.tobytes(),
        grids=page_grids,
        seed=seed,
        description="; ".join(p for p in parts if p),
    )


# ---------------------------------------------------------------------------------------------
# The project's own printable sheet


def poor_light_style(rng: np.random.Generator) -> dict:
    """Style overrides for a photo taken under a dim lamp: dark, a deep shadow, a steep
    gradient, more sensor noise and a lower JPEG quality."""
    u = rng.uniform
    return dict(
        light=float(u(0.5, 0.65)),
        shadow=float(u(0.45, 0.6)),
        gradient=(float(u(-0.45, 0.45)), float(u(-0.45, 0.45))),
        vignette=float(u(0.2, 0.35)),
        noise=float(u(6.0, 10.0)),
        jpeg_quality=int(rng.integers(60, 72)),
    )


def sheet_dpi(size: tuple[int, int]) -> int:
    """The dpi an A4 sheet is rendered at for a photo of `size`: at least about 1.4 page
    pixels a photo pixel (so the camera anti-aliases), 150 to 400."""
    from api.sheet import A4_INCHES

    return int(min(400, max(150, math.ceil(1.4 * max(size) / A4_INCHES[1]))))


def rasterise_pdf(pages: list[Image.Image], dpi: int) -> np.ndarray:
    """The first page of the sheet as its PDF prints: saved by `api.sheet.save_sheet`, then
    rasterised by poppler's `pdftoppm` at `dpi` (greyscale). Raises RuntimeError when
    pdftoppm is not installed."""
    from api.sheet import save_sheet

    tool = shutil.which("pdftoppm")
    if tool is None:
        raise RuntimeError("pdftoppm (poppler-utils) is not installed: cannot rasterise a PDF")
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "sheet.pdf"
        save_sheet(pages[:1], pdf, dpi=dpi)
        out = Path(tmp) / "page"
        subprocess.run(
            [tool, "-gray", "-r", str(dpi), "-singlefile", str(pdf), str(out)],
            check=True,
            capture_output=True,
        )
        return np.asarray(Image.open(out.with_suffix(".pgm")).convert("L"))


def sheet_photo(
    count: int,
    *,
    seed: int,
    level: str = "easy",
    size: tuple[int, int] = (1200, 1600),
    poor_light: bool = False,
    via_pdf: bool = False,
    board: int = 9,
    variant: str = "standard",
    **style_overrides,
) -> PagePhoto:
    """A photo of a printed `sudoku-lens new --sheet` page of `count` fresh puzzles, each
    puzzle's truth from the generator; `via_pdf` prints it through its PDF (`rasterise_pdf`)
    rather than the rendered image a PNG holds.

    `board` is the puzzles' side (4, 6, 9 or 16) and `variant` "standard" or "diagonal"
    (`solver.generate`'s); `size` is the photo's. A page holds `api.sheet.PER_PAGE` of them
    (six up to 9x9, two 16x16): a count beyond that is a ValueError naming it. The truth
    grids' strings are the generator's lines in its alphabet, '0' for an empty cell.

    >>> photo = sheet_photo(1, seed=1, size=(450, 600), board=6)
    >>> len(photo.grids[0].givens), len(photo.grids[0].solution)
    (36, 36)
    """
    from api.sheet import PER_PAGE, layout, render_sheet
    from solver import format_line, generate

    if board not in PER_PAGE:
        raise ValueError(f"a sheet prints boards of side {sorted(PER_PAGE)}, not {board}")
    columns, rows = PER_PAGE[board]
    if not 1 <= count <= columns * rows:
        raise ValueError(
            f"a sheet holds 1 to {columns * rows} puzzles of {board}x{board} a page, not {count}"
        )
    made = generate(level, count=count, seed=seed, size=board, variant=variant)
    dpi = sheet_dpi(size)
    pages = render_sheet(made, dpi=dpi)
    page = rasterise_pdf(pages, dpi) if via_pdf else np.asarray(pages[0])
    grids = [
        (at.origin, at.side, m.line.replace(".", "0"), format_line(m.solution), "puzzle")
        for m, at in zip(made, layout(count, board, dpi), strict=True)
    ]
    overrides = poor_light_style(np.random.default_rng([seed, 13])) if poor_light else {}
    overrides.update(style_overrides)
    light = "poor light" if poor_light else "good light"
    kind = "" if (board, variant) == (9, "standard") else f" {variant} {board}x{board}"
    return photograph_page(
        page,
        grids,
        seed=seed,
        size=size,
        description=f"sheet of {count}{kind} ({'pdf' if via_pdf else 'png'}, {level}, {light})",
        paper="sheet",
        **overrides,
    )


# ---------------------------------------------------------------------------------------------
# Newspaper-like pages from real photos (../shared)


def shared_available() -> bool:
    """Whether ../shared's wichtounet photos are there (a user's clone has no ../shared)."""
    return WICHT_IMAGES.is_dir()


@dataclass(frozen=True)
class WichtPuzzle:
    """A wichtounet photo usable as a puzzle: printed givens (81 chars, '0' empty), their one
    solution, and the labelled outline (4, 2) p1..p4 in the photo's pixels."""

    name: str
    path: Path
    givens: str
    solution: str
    outline: np.ndarray


@functools.cache
def wicht_puzzles() -> tuple[WichtPuzzle, ...]:
    """Every wichtounet `images/` photo with an outline and givens that have exactly one
    solution (the project's solver), in file-name order. Raises FileNotFoundError without
    ../shared."""
    if not shared_available():
        raise FileNotFoundError(f"{WICHT_IMAGES} is absent: shared pages need ../shared")
    from api.photo.evaluation import wicht_samples
    from solver import parse, solve

    found = []
    for sample in wicht_samples(WICHT_IMAGES):
        if sample.corners is None or sample.givens is None:
            continue
        givens = "".join(str(int(v)) for v in sample.givens.reshape(81))
        result = solve(parse(givens))
        if result.status != "unique":
            continue
        solution = "".join(str(int(v)) for v in result.solutions[0])
        found.append(WichtPuzzle(sample.name, sample.path, givens, solution, sample.corners))
    return tuple(found)


CUT_MARGIN = 0.05  # paper kept around a cut grid, a share of its side: the border stays whole


def level_paper(gray: np.ndarray, cell: float) -> np.ndarray:
    """A photographed grid made to look printed: the paper's uneven light divided out (the
    paper's brightness is the closing of the image, which removes every dark stroke thinner
    than half a cell) and the ink stretched from its darkest to the paper's white."""
    k = max(3, int(0.5 * cell) | 1)
    paper = cv2.morphologyEx(
        gray, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    )
    paper = cv2.GaussianBlur(paper, (0, 0), 0.5 * cell).astype(np.float32)
    ratio = gray.astype(np.float32) / np.maximum(paper, 1.0)
    dark = float(np.percentile(ratio, 0.5))
    flat = (ratio - dark) / max(0.05, 0.93 - dark)
    return (np.clip(flat, 0, 1) * 255 + 0.5).astype(np.uint8)


def print_grey(colour: np.ndarray) -> np.ndarray:
    """A photographed grid in grey as black print would show it.

    Some puzzles print their digits in red or blue, which the luma turns pale grey; the
    darkest channel keeps them as dark as the lines. Under dim or tinted light one channel
    of the paper is itself dark and noisy (a yellow lamp leaves little blue), so the darkest
    channel is taken only where the paper is bright in every channel, else the luma.
    """
    darkest = colour.min(axis=2)
    if np.percentile(darkest, 75) >= 120:
        return darkest
    return cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)


@functools.lru_cache(maxsize=48)
def upright_cut(name: str) -> tuple[np.ndarray, int, int] | None:
    """The grid of wichtounet photo `name` cut out by its outline, upright and levelled:
    (grey square image, margin, grid side) in pixels, the grid covering margin .. margin +
    side; None when its outline falls outside the photo or the reader finds no grid in it.

    Which way up: some photos are stored sideways and their outline's p1 is then not the
    upright top-left. The project's reader reads the cut (it turns a grid so its digits
    stand upright); when what it reads agrees with the label in at least 72 of 81 cells, its
    turn is trusted, else (a photo too blurred for it) the cut is kept as the outline lies,
    which is upright for every such photo of the set.
    """
    from vision import NoGridFound
    from vision.load import load_image
    from vision.read import read_image

    entry = next(p for p in wicht_puzzles() if p.name == name)
    image = load_image(entry.path)
    h, w = image.shape[:2]
    outline = entry.outline.astype(np.float32)
    if (outline < 0).any() or (outline[:, 0] > w - 1).any() or (outline[:, 1] > h - 1).any():
        return None
    side = round(np.mean([np.linalg.norm(outline[i] - outline[(i + 1) % 4]) for i in range(4)]))
    margin = round(CUT_MARGIN * side)
    square = np.float32([[0, 0], [side, 0], [side, side], [0, side]]) + margin
    to_cut = cv2.getPerspectiveTransform(outline, square)
    n = side + 2 * margin
    colour = cv2.warpPerspective(
        image, to_cut, (n, n), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE
    )
    cut = print_grey(colour)
    try:
        reading = read_image(cut)
    except NoGridFound:
        return None
    read = "".join(str(int(v)) for v in reading.givens.reshape(81))
    turns = 0
    if sum(a == b for a, b in zip(read, entry.givens, strict=True)) >= 72:
        turns = int(np.argmin(np.linalg.norm(square - reading.corners[0], axis=1)))
    cut = np.ascontiguousarray(np.rot90(cut, turns))  # the upright top-left corner to the top-left
    return level_paper(cut, side / 9), margin, side


def _crossword(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, n) bool black squares, symmetric under a half turn as crosswords are."""
    black = rng.random((n, n)) < 0.17
    return black | black[::-1, ::-1]


def draw_crossword(draw: ImageDraw.ImageDraw, rng, origin, side: int) -> None:
    """A crossword block on a white page: a grid of white and black squares with small clue
    numbers; square but not a sudoku, so it must never be taken for one."""
    n = int(rng.choice([13, 15]))
    black = _crossword(rng, n)
    cell = side / n
    x0, y0 = origin
    small = _font(
        installed_fonts("sans")[0] if installed_fonts("sans") else None, max(6, round(0.28 * cell))
    )
    number = 1
    for r in range(n):
        for c in range(n):
            x, y = x0 + c * cell, y0 + r * cell
            if black[r, c]:
                draw.rectangle((x, y, x + cell, y + cell), fill=0)
                continue
            starts_across = (c == 0 or black[r, c - 1]) and c + 1 < n and not black[r, c + 1]
            starts_down = (r == 0 or black[r - 1, c]) and r + 1 < n and not black[r + 1, c]
            if starts_across or starts_down:
                draw.text((x + 0.08 * cell, y + 0.05 * cell), str(number), font=small, fill=0)
                number += 1
    line = max(1, round(0.04 * cell))
    for i in range(n + 1):
        at = round(i * cell)
        draw.rectangle((x0 + at, y0, x0 + at + line - 1, y0 + side), fill=0)
        draw.rectangle((x0, y0 + at, x0 + side, y0 + at + line - 1), fill=0)
    border = max(2, round(0.08 * cell))
    draw.rectangle((x0, y0, x0 + side, y0 + side), outline=0, width=border)


@dataclass
class _Item:
    """One block of a page's layout: a puzzle cut, the solution grid or the crossword."""

    kind: str  # "puzzle", "solution", "crossword"
    side: float
    caption: str
    cut: tuple[np.ndarray, int, int] | None = None
    puzzle: WichtPuzzle | None = None
    line: str = ""  # the solution grid's 81 digits
    at: tuple[float, float] = (0.0, 0.0)  # top-left of the block (caption included)


PAGE_SIZE = (3400, 4800)  # a tabloid page's proportions, pixels
PAGE_MARGIN = 120
GAP = 90


def _shelve(
    items: list[_Item], scale: float, top: float
) -> list[tuple[float, float, float]] | None:
    """Place the blocks left to right in rows (shelves) at `scale` of their sides; the rows'
    (top, bottom, right end of the last block), or None when they overflow the page (room
    for text below is kept)."""
    width, height = PAGE_SIZE
    right = width - PAGE_MARGIN
    rows: list[tuple[float, float, float]] = []
    x, y, row_bottom = PAGE_MARGIN, top, top
    for item in items:
        w = item.side * scale
        h = w * (1 + 2 * CUT_MARGIN) + _caption_height(w)
        if x > PAGE_MARGIN and x + w > right:
            rows.append((y, row_bottom, x - GAP))
            x, y = PAGE_MARGIN, row_bottom + GAP
            row_bottom = y
        if x + w > right:
            return None
        item.at = (x, y)
        x += w + GAP
        row_bottom = max(row_bottom, y + h)
    rows.append((y, row_bottom, x - GAP))
    return rows if row_bottom <= height - PAGE_MARGIN - 300 else None


def _caption_height(width: float) -> float:
    return max(40.0, 0.07 * width)


def _body_font(rng):
    serif = [f for f in installed_fonts("serif") if "Bold" not in f and "Demi" not in f]
    return _font(serif[rng.integers(len(serif))] if serif else None, 34)


def _text_columns(draw, rng, font, box, column: float = 760) -> None:
    """Fill box (x0, y0, x1, y1) with columns of words separated by thin rules."""
    x0, y0, x1, y1 = box
    if x1 - x0 < 300 or y1 - y0 < 90:
        return
    n = max(1, round((x1 - x0) / column))
    step = (x1 - x0) / n
    for k in range(n):
        left = x0 + k * step
        _draw_text_block(draw, rng, font, (left, y0, left + step - 40, y1), 44)
        if k:
            draw.rectangle((left - 22, y0, left - 20, y1), fill=160)


def compose_shared_page(
    rng: np.random.Generator,
    puzzles: list[tuple[WichtPuzzle, tuple[np.ndarray, int, int]]],
    *,
    with_solution_grid: bool = True,
    crossword: bool = False,
) -> tuple[np.ndarray, list[GridOnPage]]:
    """A flat tabloid page (greyscale, white paper) of the cut puzzles at different sizes (the
    first one large), a masthead, captions, columns of text, optionally a small printed
    solution grid (1/4 to 1/5 of the first puzzle) and a crossword; with every grid's place."""
    width, height = PAGE_SIZE
    u = rng.uniform
    items = []
    for k, (entry, cut) in enumerate(puzzles):
        side = u(1300, 1600) if k == 0 else u(700, 1150)
        level = ["Easy", "Moderate", "Difficult", "Fiendish"][rng.integers(4)]
        items.append(
            _Item("puzzle", side, f"SUDOKU No. {rng.integers(100, 9999)}  {level}", cut, entry)
        )
    if crossword:
        items.append(_Item("crossword", u(900, 1300), "CROSSWORD"))
    rest = items[1:]
    rng.shuffle(rest)
    if with_solution_grid:
        line = "".join(str(int(v)) for v in solved_grid(rng).reshape(81))
        small = _Item("solution", items[0].side * u(0.2, 0.25), "Yesterday's solution", line=line)
        rest.insert(int(rng.integers(len(rest) + 1)), small)
    items = [items[0], *rest]
    top = PAGE_MARGIN + 260
    scale = 1.0
    while (rows := _shelve(items, scale, top)) is None:
        scale *= 0.92
    gray = Image.new("L", PAGE_SIZE, 255)
    ink = Image.new("L", PAGE_SIZE, 0)
    paint, write = ImageDraw.Draw(gray), ImageDraw.Draw(ink)
    sans = installed_fonts("sans")
    head = _font(sans[0] if sans else None, 150)
    label = _font(sans[0] if sans else None, 40)
    body = _body_font(rng)
    write.text((PAGE_MARGIN, PAGE_MARGIN), "PUZZLES", font=head, fill=255)
    write.text(
        (width - PAGE_MARGIN, PAGE_MARGIN + 100),
        f"No. {rng.integers(1000, 99999)}",
        font=label,
        fill=255,
        anchor="rs",
    )
    write.rectangle((PAGE_MARGIN, top - 60, width - PAGE_MARGIN, top - 54), fill=255)
    grids: list[GridOnPage] = []
    for item in items:
        x, y = item.at
        w = item.side * scale
        cap = _caption_height(w)
        face = _font(sans[0] if sans else None, max(14, round(0.6 * cap)))
        words = item.caption
        while len(words) > 3 and face.getlength(words) > w:
            words = words[:-1]
        write.text((x, y + 0.1 * cap), words, font=face, fill=255)
        gx, gy = x, y + cap + CUT_MARGIN * w  # a cut's margin stays clear of the caption
        if item.kind == "puzzle":
            image, margin, side = item.cut
            f = w / side
            n = max(1, round(image.shape[0] * f))
            f = n / image.shape[0]
            scaled = cv2.resize(
                image, (n, n), interpolation=cv2.INTER_CUBIC if f > 1 else cv2.INTER_AREA
            )
            px, py = round(gx - margin * f), round(gy - margin * f)
            gray.paste(Image.fromarray(scaled), (px, py))
            origin = (px + (margin + 0.5) * f, py + (margin + 0.5) * f)
            p = item.puzzle
            grids.append((origin, side * f, p.givens, p.solution, "puzzle"))
        elif item.kind == "solution":
            from api.sheet import draw_grid

            s = round(w)
            draw_grid(paint, item.line, (round(gx), round(gy)), s, (3, 3))
            grids.append(((round(gx), round(gy)), s, item.line, item.line, "solution"))
        else:
            draw_crossword(paint, rng, (round(gx), round(gy)), round(w))
    for row_top, row_bottom, row_end in rows:
        _text_columns(write, rng, body, (row_end + GAP, row_top, width - PAGE_MARGIN, row_bottom))
        for item in items:  # under the blocks shorter than their row
            x, y = item.at
            w = item.side * scale
            if row_top <= y < row_bottom:
                _text_columns(
                    write,
                    rng,
                    body,
                    (x, y + w * (1 + 2 * CUT_MARGIN) + _caption_height(w) + 50, x + w, row_bottom),
                    column=w,
                )
    last = rows[-1][1] + GAP
    _text_columns(write, rng, body, (PAGE_MARGIN, last, width - PAGE_MARGIN, height - PAGE_MARGIN))
    page = np.minimum(np.asarray(gray), 255 - np.asarray(ink))
    return page, grids


def shared_page(
    seed: int | np.random.Generator,
    n_puzzles: int | None = None,
    *,
    with_solution_grid: bool = True,
    crossword: bool | None = None,
    size: tuple[int, int] | None = None,
    **style_overrides,
) -> PagePhoto:
    """A photographed newspaper-like page of 2 to 6 real puzzles (wichtounet photos, cut,
    upright, levelled), text, maybe a crossword (drawn when None) and a small solution grid.

    `n_puzzles` and `size` are drawn from the seed when None. Distinct puzzles only (many
    of the set's puzzles appear in several photos). Raises FileNotFoundError without
    ../shared. `seed` may be a Generator: the page's seed is then drawn from it.
    """
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(2**31))
    rng = np.random.default_rng([seed, 21])
    n = int(rng.integers(2, 7)) if n_puzzles is None else n_puzzles
    if not 1 <= n <= 6:
        raise ValueError(f"a shared page holds 1 to 6 puzzles, not {n}")
    size = SIZES[rng.integers(len(SIZES))] if size is None else size
    crossword = bool(rng.random() < 0.4) if crossword is None else crossword
    catalogue = wicht_puzzles()
    chosen, seen = [], set()
    for i in rng.permutation(len(catalogue)):
        entry = catalogue[int(i)]
        if entry.givens in seen:
            continue
        cut = upright_cut(entry.name)
        if cut is None:
            continue
        chosen.append((entry, cut))
        seen.add(entry.givens)
        if len(chosen) == n:
            break
    page, grids = compose_shared_page(
        rng, chosen, with_solution_grid=with_solution_grid, crossword=crossword
    )
    names = ", ".join(entry.name.removesuffix(".jpg") for entry, _ in chosen)
    extras = (", solution grid" if with_solution_grid else "") + (
        ", crossword" if crossword else ""
    )
    return photograph_page(
        page,
        grids,
        seed=seed,
        size=size,
        description=f"shared page {seed}: {n} puzzles ({names}){extras}",
        **style_overrides,
    )
