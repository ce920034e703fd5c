"""Train the cell model of `vision.kinds`: empty, printed 1-9, written 1-9, candidates.

    pip install -e '.[train]'               # PyTorch (CPU) and onnx: training only
    python -m api.train.cells --cell-only   # all labelled photos -> vision/models/cells.onnx
    python -m api.train.cells --hand-only --variants 2   # its hand model, as shipped
    python -m api.train.cells --seconds --variants 2     # the hand models' second look
    python -m api.train.cells --fold 2 --folds 4 --out /tmp/fold2.onnx   # hold fold 2 out
    python -m api.train.cells --hold-out week:week9 --out /tmp/week9.onnx  # a whole week out

Reproducible with `--seed` (default 7); `make train` runs the three steps as shipped, about
40 minutes on two quiet cores. It never runs at import.
It lives in `api`, not `vision`, because checking the labels needs the solver (a puzzle's
printed digits must have exactly one solution) and `vision` never imports `solver`.

Where the examples come from (nothing of ../shared is copied into the repository; the crops
are cut by this script and cached outside it, under ~/.cache/sudoku-lens):

- real printed digits and empty cells: ../shared/datasets/wichtounet/images (`.dat` labels);
- real hand entries: ../shared/datasets/wichtounet/mixed, the same photos with every empty
  cell filled in by hand (pasted-in hand-writing): a cell blank in `images/*.dat` is written;
- real pen, pencil and candidates: ../shared/datasets/kubiesa. Its labels give the digit or
  10 (candidates) but not printed vs written; `kubiesa_kinds` derives the kind (see there);
- synthetic hand-writing drawn into the empty cells of those same real photos (their own paper,
  lines, light and blur): Debian's hand-writing fonts and the MNIST digits of
  ../shared/datasets/mnist, as pen (black, blue, red) or pencil (grey, faint), slanted,
  off-centre, sometimes crossed out and written again, and pencil candidates (1-6 small
  digits in the 3 x 3 layout players use).

Two networks come out, both ONNX: the cell model (`--out`, every class from the cell's
three channels) and beside it the hand model (`cells.hand.onnx`), which re-reads only
which digit a hand wrote, from the normalised digit image; it learns from the written
cells above and from MNIST's real hands, slanted, stretched, thinned and blurred
(`mnist_digits`), each batch turned, scaled, slanted and shifted afresh (`hand_augment`).
`--hand-only` retrains just the hand model of an existing cell model; `--seconds` trains
two more hand models by the same recipe from other seeds (`cells.hand2.onnx`,
`cells.hand3.onnx`), which read again the digits the hand model is unsure of
(`vision.kinds.second_look`).

Honest measurement: photos are split into folds by puzzle (the same puzzle photographed
twice never sits on both sides), and `--fold k` trains on the other folds only, so
`bench/handwriting.py` measures each photo with a model that never saw it. `--hold-out
week:week9` (or `phone:phone-a`, `light:uneven`, ...) holds out photos unlike the rest
instead, and `--hold-out aside` the split kept aside (`api.train.holdout`).

The synthetic copies are drawn on the photos' own paper, and half of them are then lit
as another page in another room might be (`relit`: tinted paper, a shadow across the grid,
less contrast, blur), so that a digit is learnt apart from its paper and light.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from api.photo.evaluation import read_dat
from vision.cells import cut_cells
from vision.kinds import CANDIDATES, CLASSES, EMPTY, MODEL, cell_channels, hand_model_path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
CACHE = Path.home() / ".cache" / "sudoku-lens"
HAND_FONT_DIRS = (
    "/usr/share/fonts/truetype/fifthhorseman",
    "/usr/share/fonts/truetype/breip",
    "/usr/share/fonts/opentype/bwht",
    "/usr/share/fonts/truetype/femkeklaver",
    "/usr/share/fonts/truetype/humor-sans",
    "/usr/share/fonts/opentype/comic-neue",
    "/usr/share/fonts/truetype/rufscript",
    "/usr/share/fonts/truetype/sjfonts",
)
PRINTED, WRITTEN = 0, 9  # class = 1 + kind offset + digit - 1


# ---------------------------------------------------------------- labelled photos


@dataclass
class LabelledPhoto:
    """A photo and its truth: 81 classes of `vision.kinds.CLASSES`; group names the puzzle
    (folds never split a group)."""

    path: Path
    source: str
    group: str
    classes: np.ndarray


def wichtounet_photos(shared: Path = SHARED) -> list[LabelledPhoto]:
    """Printed-only photos and their hand-filled twins (same group: the same puzzle)."""
    photos = []
    base = shared / "datasets" / "wichtounet"
    for dat in sorted((base / "images").glob("*.dat")):
        printed = read_dat(dat).ravel()
        group = "w" + "".join(map(str, printed))
        photos.append(LabelledPhoto(dat.with_suffix(".jpg"), "wichtounet", group, printed.copy()))
        mixed = base / "mixed" / dat.name
        if mixed.is_file():
            full = read_dat(mixed).ravel()
            classes = np.where(printed > 0, printed, full + WRITTEN).astype(np.int16)
            classes[full == 0] = EMPTY
            photos.append(LabelledPhoto(mixed.with_suffix(".jpg"), "mixed", group, classes))
    return photos


def kubiesa_labels(shared: Path = SHARED) -> list[tuple[Path, str, np.ndarray]]:
    """(photo, puzzle, 81 labels: 0 blank, 1-9 digit, 10 candidates) of Kubiesa's set."""
    base = shared / "datasets" / "kubiesa"
    out = []
    for label in sorted((base / "labels").glob("*.txt")):
        values = np.array(label.read_text().split(), np.int16)
        photo = base / "images" / (label.stem + ".jpg")
        if photo.is_file() and values.size == 81:
            out.append((photo, "k" + "_".join(label.stem.split("_")[:2]), values))
    return out


def kubiesa_kinds(
    labelled: list[tuple[Path, str, np.ndarray]], printed_score: dict[Path, np.ndarray]
) -> list[LabelledPhoto]:
    """Kubiesa's labels with printed and written told apart.

    The labels say which digit stands in a cell, not whether it was printed. Every puzzle
    of the set was photographed four times (two phones, two shots), and its givens are the
    same print in all four, while the hand entries differ between shots or look like a
    hand. So a digit cell is printed when (1) the same digit stands there in every photo of
    the puzzle and (2) the cell looks like print: `printed_score` (the probability of print
    by a model trained without Kubiesa, on Wicht's print and hand-writing and the synthetic
    pen) averaged over the puzzle's photos, and averaged with the cell's mirror image under
    a half turn (published puzzles place their givens symmetrically; a mirror cell without
    a steady digit counts 0), is above one half. Last, (3) the printed digits
    of a puzzle must form a sudoku with exactly one solution; a puzzle where they do not is
    left out of training altogether (`main` reports how many).
    """
    by_group: dict[str, list[tuple[Path, np.ndarray]]] = {}
    for path, group, values in labelled:
        by_group.setdefault(group, []).append((path, values))
    out = []
    for group, members in by_group.items():
        stack = np.stack([v for _, v in members])
        steady = (stack == stack[0]).all(axis=0) & (stack[0] >= 1) & (stack[0] <= 9)
        score = np.mean([printed_score[p] for p, _ in members], axis=0)
        # published puzzles place their givens symmetrically (a half turn maps the pattern
        # onto itself): a cell and its mirror are printed or not together
        mirror = np.where(steady[::-1], score[::-1], 0.0)
        printed = steady & ((score + mirror) / 2 > 0.5)
        givens = np.where(printed, stack[0], 0)
        if not unique_solution(givens):
            continue
        for path, values in members:
            classes = np.where(values == 10, CANDIDATES, values + WRITTEN).astype(np.int16)
            classes[values == 0] = EMPTY
            classes[printed] = values[printed]
            out.append(LabelledPhoto(path, "kubiesa", group, classes))
    return out


def unique_solution(givens: np.ndarray) -> bool:
    """Whether 81 givens (0 = empty) have exactly one solution."""
    import solver

    return solver.count_solutions("".join(str(int(v)) for v in givens), limit=2) == 1


def fold_of(group: str, folds: int) -> int:
    """The fold of a puzzle: a stable hash of its name."""
    return int(hashlib.sha1(group.encode()).hexdigest(), 16) % folds


def photo_folds(photos: list[LabelledPhoto], grids) -> dict[Path, dict[str, str | None]]:
    """Each photo's fold when folds are made by week, phone or light (`api.train.holdout`),
    and whether it is in the split kept aside ("aside": "yes" or None). The light of a
    photo is measured on its upright grid (`read_grids`); a photo not read has none."""
    from api.train import holdout

    lights = {p.path: holdout.light_of(grids[p.path][0]) for p in photos if p.path in grids}
    light = holdout.light_folds(lights)
    out = {}
    for p in photos:
        week, phone = holdout.week_of(p.group), holdout.phone_of(p.path, p.source)
        out[p.path] = {
            by: holdout.fold_label(by, week, phone, light.get(p.path, "even")) for by in holdout.BY
        }
        out[p.path]["aside"] = "yes" if holdout.aside(p.group) else None
    return out


def held_out_photos(
    photos: list[LabelledPhoto], grids, fold: int | None, folds: int, spec: str | None
) -> set[Path]:
    """The photos a model trained with `--fold` or `--hold-out` never sees."""
    if fold is not None:
        return {p.path for p in photos if fold_of(p.group, folds) == fold}
    if spec is None:
        return set()
    by, _, name = spec.partition(":")
    by_photo = photo_folds(photos, grids)
    if by == "aside":
        return {p.path for p in photos if by_photo[p.path]["aside"]}
    from api.train.holdout import folds_of

    if name not in folds_of(by):
        raise SystemExit(f"--hold-out {spec}: {by} folds are {', '.join(folds_of(by))}")
    return {p.path for p in photos if by_photo[p.path][by] == name}


# ---------------------------------------------------------------- reading the photos once


def read_grids(labelled: list[tuple[Path, np.ndarray]]) -> dict[Path, tuple[np.ndarray, object]]:
    """Each photo's upright colour grid and its cut cells, as the reader sees them (cached).

    `labelled` pairs each photo with its 81 true digits (0 where none). The reader's own
    guess of which way up the grid stands is not trusted here (a hand-filled page fools it,
    and a turned grid would pair every cell with another cell's label): of the four quarter
    turns, the one in which the print classifier agrees with the most labelled digits wins.
    """
    from vision.read import read_photo
    from vision.warp import warp_grid

    CACHE.mkdir(parents=True, exist_ok=True)
    out = {}
    for path, digits in labelled:
        key = hashlib.sha1(f"{path}:{path.stat().st_size}".encode()).hexdigest()[:16]
        cached = CACHE / f"upright-{key}.png"
        if cached.is_file():
            warped = cv2.imread(str(cached), cv2.IMREAD_COLOR)
        else:
            try:
                reading = read_photo(path)
                warped, _ = warp_grid(reading.image, reading.corners, reading.side)
            except Exception as error:  # a photo the reader cannot use teaches nothing
                print(f"  skipped {path.name}: {error}", file=sys.stderr)
                continue
            best = max(range(4), key=lambda k, w=warped, d=digits: label_agreement(w, d, k))
            warped = np.ascontiguousarray(np.rot90(warped, best))
            cv2.imwrite(str(cached), warped)
        out[path] = (warped, cut_cells(warped))
    return out


def label_agreement(warped: np.ndarray, digits: np.ndarray, k: int) -> int:
    """How many labelled digits the print classifier reads in the grid turned k times."""
    from vision.recognise import classify

    labelled = (digits >= 1) & (digits <= 9)
    cells = cut_cells(np.ascontiguousarray(np.rot90(warped, k)))
    read = classify(cells.images).argmax(axis=1)
    return int((read[labelled] == digits[labelled]).sum())


# ---------------------------------------------------------------- synthetic hand-writing


def hand_fonts() -> list[str]:
    return sorted(str(p) for d in HAND_FONT_DIRS for p in Path(d).glob("*.[ot]tf"))


def mnist(shared: Path = SHARED) -> tuple[np.ndarray, np.ndarray]:
    path = shared / "datasets" / "mnist" / "mnist10k.npz"
    if not path.is_file():
        print("  no MNIST digits (../shared absent): fonts only", file=sys.stderr)
        return np.zeros((0, 28, 28), np.uint8), np.zeros(0, np.uint8)
    with np.load(path) as data:
        keep = data["labels"] > 0
        return data["images"][keep], data["labels"][keep]


@functools.lru_cache(maxsize=512)
def font_digit(font: str, digit: int) -> np.ndarray:
    """(h, w) float32 alpha of `digit` in the font file, cropped to its ink (96 px type)."""
    face = ImageFont.truetype(font, 96)
    left, top, right, bottom = face.getbbox(str(digit), anchor="lt")
    canvas = Image.new("L", (right - left + 20, bottom - top + 20), 0)
    ImageDraw.Draw(canvas).text((10 - left, 10 - top), str(digit), font=face, fill=255, anchor="lt")
    img = np.asarray(canvas, np.float32) / 255
    ys, xs = np.nonzero(img > 0.2)
    out = img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].copy()
    out.flags.writeable = False
    return out


def print_fonts() -> list[str]:
    """Upright type faces (serif and sans) to print synthetic givens with."""
    from api.train.digits import digit_fonts

    hands = set(hand_fonts())
    slanted = ("Italic", "Oblique", "It.", "BI.")
    return [
        str(f)
        for f in digit_fonts()
        if str(f) not in hands and not any(s in f.name for s in slanted)
    ]


class Hand:
    """Draws hand-written digits (and, for contrast, printed ones) as alpha masks."""

    def __init__(self, rng: np.random.Generator, shared: Path = SHARED):
        self.rng = rng
        self.fonts = hand_fonts()
        self.print_fonts = print_fonts()
        self.mnist_images, self.mnist_labels = mnist(shared)

    def printed(self, digit: int, height: int, font: str) -> np.ndarray:
        """(h, w) float32 alpha of one upright printed digit `height` pixels tall."""
        img = font_digit(font, digit)
        h, w = img.shape
        width = max(2, round(w * height / h))
        return cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)

    def glyph(self, digit: int, height: int) -> np.ndarray:
        """(h, w) float32 alpha in [0, 1] of one digit about `height` pixels tall."""
        rng = self.rng
        if len(self.mnist_images) and (not self.fonts or rng.random() < 0.5):
            choices = np.flatnonzero(self.mnist_labels == digit)
            img = self.mnist_images[rng.choice(choices)].astype(np.float32) / 255
            ys, xs = np.nonzero(img > 0.2)
            img = img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
            # thinner or thicker strokes than MNIST's
            k = rng.choice([0, 0, 1, 2])
            if k == 1:
                img = cv2.erode(img, np.ones((2, 2), np.uint8))
            elif k == 2:
                img = cv2.dilate(img, np.ones((2, 2), np.uint8))
        else:
            img = font_digit(self.fonts[rng.integers(len(self.fonts))], digit)
        h, w = img.shape
        scale = height / h * rng.uniform(0.9, 1.1)
        width = max(2, int(w * scale * rng.uniform(0.8, 1.2)))
        img = cv2.resize(img, (width, max(2, int(h * scale))), interpolation=cv2.INTER_AREA)
        return slant(img, rng.uniform(-0.35, 0.25), rng.uniform(-12, 12))


def slant(img: np.ndarray, shear: float, angle: float) -> np.ndarray:
    h, w = img.shape
    pad = int(max(h, w) * 0.5) + 2
    img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    cy, cx = img.shape[0] / 2, img.shape[1] / 2
    m = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
    m[0, 1] += shear
    m[0, 2] -= shear * cy
    img = cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), flags=cv2.INTER_LINEAR)
    ys, xs = np.nonzero(img > 0.05)
    if not len(ys):
        return img[:2, :2]
    return img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def pen(rng: np.random.Generator) -> tuple[np.ndarray, float, float]:
    """A writing tool: BGR ink colour, opacity, blur sigma. Pens black, blue, red, green;
    pencils grey and faint."""
    roll = rng.random()
    if roll < 0.3:
        color = rng.uniform([10, 10, 10], [70, 70, 70])  # black pen
        return color, rng.uniform(0.75, 1.0), rng.uniform(0, 0.8)
    if roll < 0.55:
        color = rng.uniform([120, 20, 0], [220, 90, 60])  # blue
        return color, rng.uniform(0.6, 1.0), rng.uniform(0, 0.8)
    if roll < 0.62:
        color = rng.uniform([0, 0, 130], [60, 60, 220])  # red
        return color, rng.uniform(0.6, 1.0), rng.uniform(0, 0.8)
    if roll < 0.66:
        color = rng.uniform([20, 90, 0], [80, 160, 60])  # green
        return color, rng.uniform(0.6, 1.0), rng.uniform(0, 0.8)
    g = rng.uniform(60, 150)  # pencil, down to a light grey pressed softly
    return np.array([g, g, g + rng.uniform(-5, 10)]), rng.uniform(0.25, 0.75), rng.uniform(0.3, 1.2)


def paint(grid: np.ndarray, alpha: np.ndarray, x: int, y: int, tool) -> None:
    """Lay ink (alpha mask at x, y) onto the BGR grid in place, multiplied like real ink."""
    color, opacity, sigma = tool
    if sigma > 0.2:
        alpha = cv2.GaussianBlur(alpha, (0, 0), sigma)
    h, w = alpha.shape
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, grid.shape[1]), min(y + h, grid.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    a = (alpha[y0 - y : y1 - y, x0 - x : x1 - x] * opacity)[..., None]
    region = grid[y0:y1, x0:x1].astype(np.float32)
    ink = region * (np.asarray(color, np.float32) / 255.0)
    grid[y0:y1, x0:x1] = np.clip(region * (1 - a) + ink * a, 0, 255).astype(np.uint8)


def write_cell(grid, box, klass: int, hand: Hand, rng) -> int:
    """Draw a written digit or candidates into one cell box; returns the class drawn."""
    x0, y0, x1, y1 = (int(v) for v in box)
    w, h = x1 - x0, y1 - y0
    tool = pen(rng)
    if klass == CANDIDATES:
        digits = rng.choice(np.arange(1, 10), size=rng.integers(1, 7), replace=False)
        small = max(5, int(h * rng.uniform(0.2, 0.3)))
        for d in digits:
            r, c = divmod(int(d) - 1, 3)
            glyph = hand.glyph(int(d), small)
            cx = x0 + (c + 0.5) * w / 3 + rng.uniform(-2, 2)
            cy = y0 + (r + 0.5) * h / 3 + rng.uniform(-2, 2)
            paint(grid, glyph, int(cx - glyph.shape[1] / 2), int(cy - glyph.shape[0] / 2), tool)
        return klass
    digit = klass - WRITTEN
    glyph = hand.glyph(digit, max(8, int(h * rng.uniform(0.45, 0.85))))
    cx = x0 + w / 2 + rng.uniform(-0.15, 0.15) * w
    cy = y0 + h / 2 + rng.uniform(-0.15, 0.15) * h
    if rng.random() < 0.08:  # a wrong first try, struck through, the new digit beside it
        old = hand.glyph(int(rng.integers(1, 10)), max(8, int(h * 0.5)))
        ox, oy = int(x0 + w * 0.08), int(y0 + h * 0.1)
        paint(grid, old, ox, oy, tool)
        strike = np.zeros((old.shape[0] + 4, old.shape[1] + 4), np.float32)
        cv2.line(strike, (0, strike.shape[0] - 1), (strike.shape[1] - 1, 0), 1.0, 2)
        paint(grid, strike, ox - 2, oy - 2, tool)
        cx, cy = x0 + w * 0.65, y0 + h * 0.62
        glyph = hand.glyph(digit, max(8, int(h * 0.5)))
    paint(grid, glyph, int(cx - glyph.shape[1] / 2), int(cy - glyph.shape[0] / 2), tool)
    return klass


def synthetic(
    grid: np.ndarray, classes: np.ndarray, hand: Hand, rng
) -> tuple[np.ndarray, np.ndarray]:
    """The grid with hand-writing drawn into some of its empty cells, then lit as another
    page in another room might be (`relit`): (channels, classes)."""
    grid, classes = written_into(grid, classes, hand, rng)
    if rng.random() < RELIT:
        grid = relit(grid, rng)
    return cell_channels(grid, cut_cells(grid)), classes


# The share of synthetic copies `relit`. Issue 47: on other weeks of the same newspaper a
# clear pencil 3 was read as 1 at 0.9997, most such misreads on pinkish paper with a shadow
# across one side: light the copies the photos of ../shared seldom show.
RELIT = 0.5


def relit(grid: np.ndarray, rng) -> np.ndarray:
    """The grid as if photographed on tinted paper, in a shadow falling across it, with
    less contrast and a little out of focus: each of the four at random, so a digit is
    learnt apart from its paper and light.

    - tint: each colour channel scaled (pink or cream newsprint, now and then blue-grey);
    - shadow: the brightness multiplied by a ramp from 0.4-0.9 on one side to 1 on the
      other, in any direction, with a soft or a hard edge;
    - contrast: ink pulled towards the paper (faint pencil, a washed-out photo);
    - blur: a Gaussian of 0.6-1.6 pixels.

    >>> grid = np.full((90, 90, 3), 200, np.uint8)
    >>> relit(grid, np.random.default_rng(0)).shape
    (90, 90, 3)
    """
    out = grid.astype(np.float32)
    h, w = out.shape[:2]
    if rng.random() < 0.6:
        warm = rng.uniform([0.72, 0.78, 0.95], [0.95, 1.0, 1.0])  # BGR: pink, cream
        out *= warm if rng.random() < 0.8 else warm[::-1]  # or a cold blue-grey
    if rng.random() < 0.6:
        angle = rng.uniform(0, 2 * np.pi)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        along = (np.cos(angle) * (xs / w - 0.5) + np.sin(angle) * (ys / h - 0.5)) / 0.71
        edge = rng.uniform(0.05, 0.8)  # how soft the shadow's edge is
        ramp = np.clip(0.5 + (along - rng.uniform(-0.4, 0.4)) / (2 * edge), 0, 1)
        out *= (rng.uniform(0.4, 0.9) + (1 - rng.uniform(0.4, 0.9)) * ramp)[..., None]
    if rng.random() < 0.4:
        paper = np.percentile(out.reshape(-1, 3), 90, axis=0)
        out = paper - (paper - out) * rng.uniform(0.45, 0.85)
    if rng.random() < 0.4:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.6, 1.6))
    return np.clip(out, 0, 255).astype(np.uint8)


def written_into(
    grid: np.ndarray, classes: np.ndarray, hand: Hand, rng
) -> tuple[np.ndarray, np.ndarray]:
    """A copy of the grid with hand-writing (and some print in another face) drawn into
    some of its empty cells, and the classes of its cells now."""
    cells = cut_cells(grid)
    grid = grid.copy()
    classes = classes.copy()
    empty = np.flatnonzero(classes == EMPTY)
    chosen = empty[rng.random(len(empty)) < rng.uniform(0.3, 0.9)]
    # some cells get printed digits in one type face, so that print is learnt as print
    # whatever the face (a serif book, a sans newspaper), not as "this data set's look"
    font = hand.print_fonts[rng.integers(len(hand.print_fonts))] if hand.print_fonts else None
    ink = (rng.uniform([10, 10, 10], [60, 60, 60]), rng.uniform(0.85, 1.0), rng.uniform(0.2, 0.9))
    height = rng.uniform(0.5, 0.7)
    for i in chosen:
        roll = rng.random()
        if roll < 0.25 and font is not None:
            x0, y0, x1, y1 = (int(v) for v in cells.boxes[i])
            digit = int(rng.integers(1, 10))
            glyph = hand.printed(digit, max(6, int((y1 - y0) * height)), font)
            cx, cy = (x0 + x1) / 2 + rng.uniform(-1, 1), (y0 + y1) / 2 + rng.uniform(-1, 1)
            paint(grid, glyph, int(cx - glyph.shape[1] / 2), int(cy - glyph.shape[0] / 2), ink)
            classes[i] = digit
            continue
        klass = CANDIDATES if roll < 0.45 else WRITTEN + int(rng.integers(1, 10))
        classes[i] = write_cell(grid, cells.boxes[i], klass, hand, rng)
    return grid, classes


# ---------------------------------------------------------------- the network


def network():
    import torch.nn as nn

    def block(a, b):
        return [nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU()]

    return nn.Sequential(
        *block(3, 16),
        nn.MaxPool2d(2),  # 16
        *block(16, 32),
        nn.MaxPool2d(2),  # 8
        *block(32, 64),
        nn.MaxPool2d(2),  # 4
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(64 * 16, 128),
        nn.ReLU(),
        nn.Linear(128, len(CLASSES)),
    )


def hand_network():
    """The hand-written digit reader: the normalised 28 x 28 digit in, digits 1-9 out.
    About 3 M multiply-adds a cell, so re-reading a page's entries costs a few
    milliseconds. On fold 1's held-out hand-filled photos it misread 54 of 3,126 written
    digits after 12 epochs of `augment`, where a LeNet-sized one (1.6 M) misread 68 after 8
    and 60 after 12, and one twice as wide (11 M) 53; more data, not more capacity, was
    what it lacked, hence `hand_augment` and 24 epochs."""
    import torch.nn as nn

    def block(a, b):
        return [nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(), nn.MaxPool2d(2)]

    return nn.Sequential(
        nn.Conv2d(1, 16, 5),  # 24
        nn.BatchNorm2d(16),
        nn.ReLU(),
        *block(16, 16),  # 12
        *block(16, 32),  # 6
        *block(32, 64),  # 3
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.Linear(64 * 9, 128),
        nn.ReLU(),
        nn.Linear(128, 9),
    )


def normalised_digit(alpha: np.ndarray) -> np.ndarray | None:
    """(28, 28) float32: ink cropped and scaled to a 20 px box, centred, as
    `vision.cells.normalise` prepares a cut digit; None when there is no ink."""
    ys, xs = np.nonzero(alpha > 0.1)
    if not len(ys):
        return None
    alpha = alpha[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h, w = alpha.shape
    scale = min(20 / h, 20 / w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    small = cv2.resize(alpha, (nw, nh), interpolation=cv2.INTER_AREA)
    out = np.zeros((28, 28), np.float32)
    top, left = (28 - nh) // 2, (28 - nw) // 2
    out[top : top + nh, left : left + nw] = small
    return out / max(float(out.max()), 1e-3)


def mnist_digits(hand: Hand, rng, copies: int) -> tuple[np.ndarray, np.ndarray]:
    """MNIST's real hands, each `copies` times slanted, stretched, thinned or thickened
    and blurred, normalised like a cut cell: (N, 28, 28) images, (N,) digits 1-9."""
    xs, ys = [], []
    for _ in range(copies):
        for image, digit in zip(hand.mnist_images, hand.mnist_labels, strict=True):
            alpha = cv2.copyMakeBorder(image.astype(np.float32) / 255, 8, 8, 8, 8, 0)
            m = cv2.getRotationMatrix2D((22, 22), rng.uniform(-12, 12), rng.uniform(0.8, 1.1))
            m[0, 1] += rng.uniform(-0.3, 0.3)
            m[1, 0] += rng.uniform(-0.1, 0.1)
            m[0, 0] *= rng.uniform(0.75, 1.2)
            alpha = cv2.warpAffine(alpha, m, (44, 44))
            stroke = rng.integers(4)
            if stroke == 1:
                alpha = cv2.erode(alpha, np.ones((2, 2), np.uint8))
            elif stroke == 2:
                alpha = cv2.dilate(alpha, np.ones((2, 2), np.uint8))
            if rng.random() < 0.4:
                alpha = cv2.GaussianBlur(alpha, (0, 0), rng.uniform(0.5, 1.2))
            digit_image = normalised_digit(alpha)
            if digit_image is not None:
                xs.append(digit_image)
                ys.append(int(digit))
    return np.array(xs, np.float32).reshape(-1, 28, 28), np.array(ys, np.int16)


def hand_examples(x: np.ndarray, y: np.ndarray, hand: Hand, rng, copies: int = 2):
    """The hand model's examples: the written cells among the cell model's (real and
    synthetic, their normalised digit channel) and MNIST's digits; classes 0-8 = 1-9."""
    written = (y >= WRITTEN + 1) & (y <= WRITTEN + 9) & (x[:, 2].max(axis=(1, 2)) > 0)
    cells = x[written][:, 2, 2:30, 2:30].astype(np.float32)
    mnist_x, mnist_y = mnist_digits(hand, rng, copies)
    xs = np.concatenate([cells, mnist_x])[:, None]
    ys = np.concatenate([y[written] - WRITTEN, mnist_y]) - 1
    return xs.astype(np.float16), ys.astype(np.int16)


def augment(x, rng_torch):
    """Shifts of up to two pixels and darkness scaled, per example."""
    import torch

    n = x.shape[0]
    dx, dy = torch.randint(-2, 3, (2,), generator=rng_torch).tolist()
    x = torch.roll(x, shifts=(dy, dx), dims=(2, 3))
    gain = 0.75 + 0.5 * torch.rand((n, 1, 1, 1), generator=rng_torch)
    x = x.clone()
    x[:, :1] = (x[:, :1] * gain).clamp(0, 1)
    return x


def hand_augment(x, rng_torch):
    """A hand's digit as another hand might write it, per example: turned up to 10 degrees,
    scaled and stretched by up to a tenth, slanted, shifted by up to two pixels, the stroke
    sometimes thickened or thinned, darkness scaled, then normalised again to its darkest
    ink as `vision.cells.normalise` does. On the held-out written digits of folds 0 and 1
    (24 epochs) it misread 63 of 5,176 where `augment`'s shifts alone misread 75 in 12
    epochs and 70 with it in 12 (27 of those in one photo located wrongly then)."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]

    def uniform():
        return torch.rand(n, generator=rng_torch) * 2 - 1

    angle = uniform() * np.pi / 18
    scale = 1 + uniform() * 0.1
    scale_x = scale * (1 + uniform() * 0.05)
    shear = uniform() * 0.2
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = torch.cos(angle) / scale_x
    theta[:, 0, 1] = (shear - torch.sin(angle)) / scale_x
    theta[:, 1, 0] = torch.sin(angle) / scale
    theta[:, 1, 1] = torch.cos(angle) / scale
    theta[:, :, 2] = torch.stack([uniform(), uniform()], dim=1) / 7  # two pixels of 28
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, align_corners=False, padding_mode="zeros")
    stroke = torch.randint(0, 4, (n, 1, 1, 1), generator=rng_torch)
    thick = F.max_pool2d(x, 3, 1, 1)
    thin = F.pad(-F.max_pool2d(-x, 2, 1, 0), (0, 1, 0, 1))
    x = torch.where(stroke == 1, (thick + x) / 2, torch.where(stroke == 2, (thin + x) / 2, x))
    x = (x * (0.6 + 0.6 * torch.rand((n, 1, 1, 1), generator=rng_torch))).clamp(0, 1)
    return x / x.amax(dim=(2, 3), keepdim=True).clamp_min(1e-3)


def train(
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    seed: int,
    epochs: int,
    make=network,
    augmented=augment,
):
    """The network `make` builds, trained with AdamW on a one-cycle schedule, each batch
    `augmented`."""
    import torch

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    torch.set_num_threads(2)
    model = make()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * ((len(x) + 255) // 256)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    xt, yt, wt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64)), torch.from_numpy(w)
    loss_fn = torch.nn.CrossEntropyLoss(reduction="none", label_smoothing=0.02)
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(xt), generator=gen)
        total = 0.0
        for start in range(0, len(order), 256):
            idx = order[start : start + 256]
            xb = augmented(xt[idx].float(), gen)
            loss = (loss_fn(model(xb), yt[idx]) * wt[idx]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        print(
            f"  epoch {epoch + 1}/{epochs}: loss {total / len(xt):.4f} ({time.strftime('%H:%M:%S')})",
            file=sys.stderr,
        )
    model.eval()
    return model


def export(model, path: Path, shape=(1, 3, 32, 32)) -> None:
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(shape)
    torch.onnx.export(
        model,
        dummy,
        str(path),
        input_names=["cells"],
        output_names=["logits"],
        dynamic_axes={"cells": {0: "n"}, "logits": {0: "n"}},
        opset_version=13,
        dynamo=False,
    )


# ---------------------------------------------------------------- putting it together


def examples(photos: list[LabelledPhoto], grids, hand: Hand, rng, variants: int):
    """Real crops of every photo, and `variants` synthetic hand-filled copies of each."""
    xs, ys = [], []
    for photo in photos:
        if photo.path not in grids:
            continue
        warped, cells = grids[photo.path]
        xs.append(cell_channels(warped, cells))
        ys.append(photo.classes)
        if not (photo.classes == EMPTY).any():
            continue  # nowhere to write: a copy would only repeat the photo
        for _ in range(variants):
            x, y = synthetic(warped, photo.classes, hand, rng)
            xs.append(x)
            ys.append(y)
    return np.concatenate(xs).astype(np.float16), np.concatenate(ys).astype(np.int16)


def class_weights(y: np.ndarray) -> np.ndarray:
    """Per example, so that rare classes (candidates, some written digits) count."""
    counts = np.bincount(y, minlength=len(CLASSES)).astype(np.float64)
    per_class = (counts.sum() / np.maximum(counts, 1)) ** 0.5
    per_class /= per_class[y].mean()
    return per_class[y].astype(np.float32)


def predict(model, x: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        out = [model(torch.from_numpy(x[i : i + 1024]).float()) for i in range(0, len(x), 1024)]
    return torch.softmax(torch.cat(out), dim=1).numpy()


def derive_kubiesa(args, all_wicht, all_kub, grids, hand, rng) -> dict[str, str]:
    """Kubiesa's kinds, photo name -> 81 letters (`.pwc`), derived once and cached: a model
    trained on Wicht's photos only (never on Kubiesa) scores how much each cell looks like
    print, and `kubiesa_kinds` turns the scores into kinds."""
    if args.kinds.is_file():
        return json.loads(args.kinds.read_text())
    x, y = examples(all_wicht, grids, hand, rng, args.variants)
    first = train(x, y, class_weights(y), args.seed, max(3, args.epochs // 2))
    scores = {}
    for path, _, _ in all_kub:
        if path in grids:
            p = predict(first, cell_channels(*grids[path]))
            printed, written = p[:, 1:10].sum(axis=1), p[:, 10:19].sum(axis=1)
            scores[path] = printed / np.maximum(printed + written, 1e-6)
    derived = kubiesa_kinds([k for k in all_kub if k[0] in scores], scores)
    letters = {p.path.name: "".join(".pppppppppwwwwwwwwwc"[c] for c in p.classes) for p in derived}
    args.kinds.parent.mkdir(parents=True, exist_ok=True)
    args.kinds.write_text(json.dumps(letters, indent=0))
    puzzles = {k[1] for k in all_kub}
    used = {p.group for p in derived}
    print(
        f"kubiesa: {len(used)} of {len(puzzles)} puzzles have printed digits forming a unique"
        f" puzzle ({len(derived)} photos); left out: {sorted(puzzles - used)}",
        file=sys.stderr,
    )
    return letters


def kubiesa_photos(all_kub, letters: dict[str, str]) -> list[LabelledPhoto]:
    out = []
    for path, group, values in all_kub:
        if path.name not in letters:
            continue
        printed = np.array(list(letters[path.name])) == "p"
        classes = np.where(values == 10, CANDIDATES, values + WRITTEN).astype(np.int16)
        classes[values == 0] = EMPTY
        classes[printed] = values[printed]
        out.append(LabelledPhoto(path, "kubiesa", group, classes))
    return out


# The seeds of the second-look hand models (`vision.kinds.second_look`), written beside the
# hand model as cells.hand2.onnx, cells.hand3.onnx (`--seconds`): the same recipe as it.
SECOND_SEEDS = (8, 9)


def main(argv: list[str] | None = None) -> None:
    global RELIT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--out", type=Path, default=MODEL)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--variants", type=int, default=1, help="synthetic copies per photo")
    parser.add_argument("--hand-epochs", type=int, default=24)
    parser.add_argument(
        "--hand-only",
        action="store_true",
        help="keep the cell model at --out, (re)train only its hand-written digit model",
    )
    parser.add_argument(
        "--cell-only", action="store_true", help="train the cell model, not its hand model"
    )
    parser.add_argument(
        "--seconds",
        action="store_true",
        help="keep the cell and hand models at --out, train the second-look hand models"
        f" beside them (cells.hand2.onnx, ...: seeds {', '.join(map(str, SECOND_SEEDS))})",
    )
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--fold", type=int, default=None, help="hold this fold out")
    parser.add_argument(
        "--hold-out", default=None, metavar="BY:FOLD",
        help="hold out a week, phone or light fold (api.train.holdout: week:week9,"
        " phone:phone-a, light:uneven, ...) or the split kept aside (aside)",
    )  # fmt: skip
    parser.add_argument(
        "--kinds",
        type=Path,
        default=CACHE / "kubiesa-kinds.json",
        help="Kubiesa's derived kinds (photo -> 81 letters): read, or derived and written",
    )
    parser.add_argument(
        "--relit", type=float, default=RELIT,
        help=f"the share of synthetic copies relit (tint, shadow, contrast, blur; {RELIT})",
    )  # fmt: skip
    args = parser.parse_args(argv)
    RELIT = args.relit  # the module's share, for `synthetic`
    if args.seconds:
        for number, seed in enumerate(SECOND_SEEDS, start=2):
            train_models(args, seed, True, args.out.with_suffix(f".hand{number}.onnx"))
    else:
        train_models(args, args.seed, args.hand_only, hand_model_path(args.out))


def train_models(args, seed: int, hand_only: bool, hand_out: Path) -> None:
    """The cell model at `args.out` (unless `hand_only` and it is there) and a hand model
    at `hand_out` (unless `args.cell_only`), both from `seed`."""
    started = time.time()
    rng = np.random.default_rng(seed)
    hand = Hand(rng, args.shared)

    all_wicht, all_kub = wichtounet_photos(args.shared), kubiesa_labels(args.shared)
    truth = [(p.path, np.where(p.classes >= 10, p.classes - 9, p.classes) % 10) for p in all_wicht]
    truth += [(path, np.where(values == 10, 0, values)) for path, _, values in all_kub]
    grids = read_grids(truth)
    print(f"read {len(grids)} photos ({time.time() - started:.0f} s)", file=sys.stderr)
    letters = derive_kubiesa(args, all_wicht, all_kub, grids, hand, rng)
    photos = all_wicht + kubiesa_photos(all_kub, letters)
    out_of = held_out_photos(photos, grids, args.fold, args.folds, args.hold_out)

    def keep(photo: LabelledPhoto) -> bool:
        return photo.path not in out_of

    if out_of:
        print(f"held out: {len(out_of)} photos ({args.hold_out or f'puzzle fold {args.fold}'})",
              file=sys.stderr)  # fmt: skip
    x, y = examples([p for p in photos if keep(p)], grids, hand, rng, args.variants)
    print(f"{len(x)} examples: {np.bincount(y, minlength=20).tolist()}", file=sys.stderr)
    if hand_only and args.out.is_file():
        model = None
    else:
        model = train(x, y, class_weights(y), seed, args.epochs)
        export(model, args.out)
    hand_model = None
    if not args.cell_only:
        hx, hy = hand_examples(x, y, hand, rng)
        print(f"{len(hx)} hand-written digits: {np.bincount(hy).tolist()}", file=sys.stderr)
        hand_model = train(
            hx,
            hy,
            np.ones(len(hy), np.float32),
            seed,
            args.hand_epochs,
            hand_network,
            hand_augment,
        )
        export(hand_model, hand_out, (1, 1, 28, 28))
    if out_of:  # the held-out photos' real cells, as a quick check
        for source in ("wichtounet", "mixed", "kubiesa"):
            mine = [p for p in photos if p.source == source and not keep(p)]
            mine = [p for p in mine if p.path in grids]
            if not mine:
                continue
            xs = np.concatenate([cell_channels(*grids[p.path]) for p in mine])
            truth = np.concatenate([p.classes for p in mine])
            written = (truth > WRITTEN) & (truth < CANDIDATES) & (xs[:, 2].max(axis=(1, 2)) > 0)
            if written.any() and hand_model is not None:
                digits = predict(hand_model, xs[written][:, 2:3, 2:30, 2:30]).argmax(axis=1)
                print(
                    f"held out ({args.hold_out or args.fold}), {source}: hand model reads"
                    f" {(digits + 1 + WRITTEN == truth[written]).mean():.4f} of"
                    f" {written.sum()} written digits right",
                    file=sys.stderr,
                )
            if model is None:
                continue
            guess = predict(model, xs).argmax(axis=1)
            whole = (guess.reshape(-1, 81) == truth.reshape(-1, 81)).all(axis=1).mean()
            print(
                f"held out ({args.hold_out or args.fold}), {source}: {len(mine)} photos, cells right"
                f" {(guess == truth).mean():.4f}, photos all right {whole:.3f}",
                file=sys.stderr,
            )
    written = hand_out if model is None else args.out
    size = written.stat().st_size // 1024
    print(f"wrote {written} ({size} KB) in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
