"""Train the shipped digit classifier: `python -m api.train.digits` (seeded, one command).

Why a home-made model: the runtime must need only numpy and OpenCV (this OpenCV has no
cv2.ml), and printed digits that `vision.cells` has already isolated, centred and scaled are
an easy problem for a small multilayer perceptron. The model is a plain .npz of weights
(`vision/models/digits.npz`, float16, under 1 MB); `vision.recognise` runs it with numpy.

Training data, all cut by the very same `vision.cells.cut_cells` the product uses, so the
model sees exactly what it will be asked about:

1. Synthetic grids: whole 9x9 grids rendered with Pillow in the Debian fonts installed here
   (DejaVu, Liberation, FreeFont, URW base35, Noto Latin), with realistic damage: thin and
   thick lines, digit size and offset, stroke weight, shaded boxes, a perspective error of a
   few percent (an imperfect locator), page bend, blur, low resolution, uneven light and
   shadow, noise and JPEG. Cells that hold no digit but still show a blob are the "not a
   digit" class 0 (specks, smudges, line remnants).
2. Real crops from ../shared/datasets/wichtounet/images, warped with the LABELLED corners of
   outlines.csv (so the model does not depend on the locator) and labelled from the .dat
   files. Some photos are stored sideways: the rotation is the one whose ink pattern and
   readings (by a first, synthetic-only model) agree best with the labels.
   The kubiesa photos are not used: their labels mix printed and handwritten digits.

Held-out measurement: `--holdout` leaves out every photo of one puzzle in four (photos are
grouped by their puzzle, since many puzzles were photographed several times) and writes the
model elsewhere, so `bench/recognition.py --model ...` measures generalisation to puzzles
and photos the model has never seen. The shipped model is trained on all real crops.

    python -m api.train.digits                 # writes vision/models/digits.npz
    python -m api.train.digits --holdout --out /tmp/digits_holdout.npz

It lives in `api`, beside `api.train.cells`, because its labelled photos are read by the one
reader of the data sets' formats, `api.photo.evaluation`, and `vision` never imports `api`.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from api.photo.evaluation import wicht_samples
from vision.cells import SIZE, cut_cells
from vision.recognise import MODEL
from vision.warp import WARP_SIDE

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
HIDDEN = (128, 64)  # small enough to read a grid in about a millisecond on one thread
FONT_DIRS = ["/usr/share/fonts/truetype", "/usr/share/fonts/opentype"]
NOT_FONTS = ("Symbol", "D050000L", "Z003", "Math")  # no plain digits there
NOTO_LATIN = ("NotoSans-", "NotoSerif-", "NotoSansMono-", "NotoSansDisplay-", "NotoSerifDisplay-")


# ---------------------------------------------------------------- fonts


def digit_fonts() -> list[Path]:
    """Font files here that draw the ten digits as real glyphs (not the missing-glyph box)."""
    fonts = []
    for d in FONT_DIRS:
        for path in sorted(Path(d).rglob("*")):
            if path.suffix.lower() not in (".ttf", ".otf") or any(
                s in path.name for s in NOT_FONTS
            ):
                continue
            if path.name.startswith("Noto") and not path.name.startswith(NOTO_LATIN):
                continue
            if draws_digits(path):
                fonts.append(path)
    return fonts


def draws_digits(path: Path) -> bool:
    try:
        font = ImageFont.truetype(str(path), 40)
    except OSError:
        return False
    glyphs = [glyph_bitmap(font, ch) for ch in "123456789\uffff"]
    return all(g.any() for g in glyphs[:-1]) and len({g.tobytes() for g in glyphs}) == 10


def glyph_bitmap(font, ch: str) -> np.ndarray:
    img = Image.new("L", (60, 60), 0)
    ImageDraw.Draw(img).text((5, 5), ch, font=font, fill=255)
    return np.asarray(img)


# ---------------------------------------------------------------- synthetic grids


@dataclass
class Style:
    """How one synthetic newspaper grid is printed."""

    font: Path
    cell: int
    digit_height: float  # fraction of the cell
    thin: int
    thick: int
    paper: int
    ink: int
    stroke: int


def random_style(rng: np.random.Generator, fonts: list[Path]) -> Style:
    thin = int(rng.integers(1, 4))
    slanted = [f for f in fonts if any(s in f.name for s in ("Ital", "Obli", "Ita."))]
    upright = [f for f in fonts if f not in slanted]
    pool = slanted if rng.random() < 0.15 else upright  # puzzles are rarely set in italics
    return Style(
        font=pool[rng.integers(len(pool))],
        cell=int(rng.integers(36, 64)),
        digit_height=float(rng.uniform(0.45, 0.8)),
        thin=thin,
        thick=thin + int(rng.integers(0, 5)),
        paper=int(rng.integers(175, 256)),
        ink=int(rng.integers(0, 80)),
        stroke=int(rng.random() < 0.15),
    )


def render_grid(
    digits: np.ndarray,
    style: Style,
    rng: np.random.Generator,
    texts: list[str] | None = None,
    box_shape: tuple[int, int] = (3, 3),
) -> np.ndarray:
    """A flat, upright printed grid (gray uint8, side n * cell, lines on its border) of the
    n x n `digits` (0 empty); `texts`, when given, is what each cell prints instead of its
    digit (a 16x16's "A" or "12", printed smaller when two glyphs wide), and `box_shape`
    the (rows, columns) of a box."""
    n = math.isqrt(len(digits))
    cell = style.cell
    side = n * cell
    img = Image.new("L", (side, side), style.paper)
    draw = ImageDraw.Draw(img)
    box_rows, box_cols = box_shape
    if rng.random() < 0.2:  # some puzzles shade alternate boxes
        shade = style.paper - int(rng.integers(15, 60))
        for br in range(n // box_rows):
            for bc in range(n // box_cols):
                if (br + bc) % 2:
                    draw.rectangle(
                        [
                            bc * box_cols * cell,
                            br * box_rows * cell,
                            (bc + 1) * box_cols * cell,
                            (br + 1) * box_rows * cell,
                        ],
                        fill=shade,
                    )
    px = int(round(style.digit_height * cell / 0.72))  # cap height is about 0.72 em
    font = ImageFont.truetype(str(style.font), px)
    narrow = ImageFont.truetype(str(style.font), max(6, int(px * 0.72)))
    for i in np.flatnonzero(digits):
        r, c = divmod(int(i), n)
        dx, dy = rng.normal(0, 0.04 * cell, 2)
        x, y = (c + 0.5) * cell + dx, (r + 0.5) * cell + dy
        ink = int(np.clip(style.ink + rng.integers(-10, 10), 0, 255))
        text = str(digits[i]) if texts is None else texts[i]
        draw.text(
            (x, y),
            text,
            font=font if len(text) == 1 else narrow,
            fill=ink,
            anchor="mm",
            stroke_width=style.stroke,
            stroke_fill=ink,
        )
    for i in np.flatnonzero(digits == 0):
        if rng.random() < 0.06:
            smudge(draw, divmod(int(i), n), cell, style, rng)
    for k in range(n + 1):
        w = style.thick if k % box_cols == 0 else style.thin
        h = style.thick if k % box_rows == 0 else style.thin
        p = min(side - 1, k * cell)
        draw.rectangle([p - w // 2, 0, p - w // 2 + w - 1, side], fill=style.ink)
        draw.rectangle([0, p - h // 2, side, p - h // 2 + h - 1], fill=style.ink)
    return np.asarray(img)


def smudge(draw: ImageDraw.ImageDraw, rc: tuple[int, int], cell: int, style: Style, rng) -> None:
    """A mark that is not a digit in an empty cell: a dot, a dash or a small blot."""
    r, c = rc
    x, y = (c + rng.uniform(0.3, 0.7)) * cell, (r + rng.uniform(0.3, 0.7)) * cell
    size = rng.uniform(0.04, 0.15) * cell
    ink = int(np.clip(style.ink + rng.integers(0, 100), 0, 255))
    kind = rng.integers(3)
    if kind == 0:
        draw.ellipse([x - size, y - size, x + size, y + size], fill=ink)
    elif kind == 1:
        draw.line(
            [x - 2 * size, y, x + 2 * size, y + rng.uniform(-1, 1) * size],
            fill=ink,
            width=max(1, int(size / 2)),
        )
    else:
        draw.ellipse(
            [x - 1.5 * size, y - size, x + 1.5 * size, y + size],
            outline=ink,
            width=max(1, int(size / 3)),
        )


def photograph(flat: np.ndarray, rng: np.random.Generator, side: int = WARP_SIDE) -> np.ndarray:
    """What the locator and warp hand over for this printed grid: a warped square of `side`
    with a small corner error, page bend, low resolution, blur, uneven light, noise, JPEG."""
    n = flat.shape[0]
    margin = n // 6
    page = cv2.copyMakeBorder(flat, margin, margin, margin, margin, cv2.BORDER_REPLICATE)
    corners = np.float32([[0, 0], [n, 0], [n, n], [0, n]]) + margin
    corners += rng.normal(0, 0.008 * n, (4, 2)).astype(np.float32)
    if rng.random() < 0.5:  # page bend: a smooth sideways displacement
        amp = rng.uniform(0, 0.012) * n
        yy, xx = np.mgrid[0 : page.shape[0], 0 : page.shape[1]].astype(np.float32)
        phase = rng.uniform(0, np.pi)
        mapx = xx + amp * np.sin(np.pi * yy / page.shape[0] + phase)
        mapy = yy + amp * np.sin(np.pi * xx / page.shape[1] + phase)
        page = cv2.remap(page, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    low = int(rng.uniform(0.35, 1.3) * side)  # the resolution the camera really had
    dst = np.float32([[0, 0], [low, 0], [low, low], [0, low]])
    img = cv2.warpPerspective(
        page, cv2.getPerspectiveTransform(corners, dst), (low, low), borderMode=cv2.BORDER_REPLICATE
    )
    img = img.astype(np.float32)
    sigma = rng.uniform(0, 1.4) if rng.random() < 0.75 else rng.uniform(1.4, 2.6)  # defocus
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img *= light(low, rng)
    img += rng.normal(0, rng.uniform(0, 8), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        img = jpeg(img, int(rng.integers(25, 95)))
    return cv2.resize(img, (side, side), interpolation=cv2.INTER_LINEAR)


def light(n: int, rng: np.random.Generator) -> np.ndarray:
    """A multiplicative light field: a gradient, sometimes a soft shadow blob."""
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n
    a, b = rng.uniform(-0.35, 0.35, 2)
    field = 1 + a * (xx - 0.5) + b * (yy - 0.5)
    if rng.random() < 0.3:
        cx, cy, r = rng.uniform(0, 1, 3)
        field *= 1 - rng.uniform(0.2, 0.5) * np.exp(
            -((xx - cx) ** 2 + (yy - cy) ** 2) / (0.1 + r * 0.2)
        )
    return field * rng.uniform(0.6, 1.05)


def jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)


def synthetic_samples(n_grids: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(images (N, S, S) uint8, labels (N,)) from n_grids rendered and photographed grids:
    every cell in which cut_cells found a blob, labelled with its digit or 0."""
    rng = np.random.default_rng(seed)
    fonts = digit_fonts()
    images, labels = [], []
    for _ in range(n_grids):
        digits = rng.integers(1, 10, 81) * (rng.random(81) < rng.uniform(0.25, 0.6))
        style = random_style(rng, fonts)
        cells = cut_cells(photograph(render_grid(digits, style, rng), rng))
        images.append(cells.images[cells.ink])
        labels.append(digits[cells.ink])
    return np.concatenate(images), np.concatenate(labels).astype(np.int64)


# ---------------------------------------------------------------- real photos


@dataclass
class LabelledPhoto:
    """A wichtounet photo with its labelled corners (p1..p4 as in outlines.csv) and givens."""

    path: Path
    corners: np.ndarray  # (4, 2) float32
    givens: np.ndarray  # (9, 9) int, upright

    @property
    def puzzle(self) -> str:
        return "".join(map(str, self.givens.ravel()))

    def warped(self, side: int = WARP_SIDE) -> np.ndarray:
        gray = cv2.imread(str(self.path), cv2.IMREAD_GRAYSCALE)
        dst = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
        return cv2.warpPerspective(
            gray, cv2.getPerspectiveTransform(self.corners, dst), (side, side)
        )


def wichtounet_photos(shared: Path = SHARED) -> list[LabelledPhoto]:
    """Every wichtounet images/ photo that has a labelled outline and givens, in name order."""
    samples = wicht_samples(shared / "datasets" / "wichtounet" / "images")
    photos = [
        LabelledPhoto(s.path, s.corners, s.givens.astype(int))
        for s in samples
        if s.corners is not None and s.givens is not None
    ]
    return sorted(photos, key=lambda p: p.path.name)


def held_out(photo: LabelledPhoto) -> bool:
    """One puzzle in four (by a stable hash of its givens) is held out, with all its photos."""
    return hashlib.sha1(photo.puzzle.encode()).digest()[0] % 4 == 0


def real_samples(photos: list[LabelledPhoto], weights: dict) -> tuple[np.ndarray, np.ndarray]:
    """Blobs cut from the photos, labelled from the .dat, each photo turned upright first."""
    from vision.recognise import classify

    images, labels = [], []
    for photo in photos:
        base = cut_cells(photo.warped())
        best = None
        for k in range(4):
            cells = base.rotated(k)
            truth = photo.givens.ravel()
            pattern = int((cells.ink != (truth > 0)).sum())
            read = classify(cells.images[cells.ink], weights).argmax(axis=1)
            agree = int((read == truth[cells.ink]).sum())
            score = (pattern, -agree)
            if best is None or score < best[0]:
                best = (score, cells)
        cells = best[1]
        truth = photo.givens.ravel()
        if best[0][0] > 6:
            continue  # outline too far off to trust its cells
        images.append(cells.images[cells.ink])
        labels.append(truth[cells.ink])
    return np.concatenate(images), np.concatenate(labels).astype(np.int64)


# ---------------------------------------------------------------- the model


def init(rng: np.random.Generator, sizes: tuple[int, ...]) -> dict:
    w = {}
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        w[f"w{i}"] = (rng.normal(0, np.sqrt(2 / a), (a, b))).astype(np.float32)
        w[f"b{i}"] = np.zeros(b, np.float32)
    return w


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Small shifts of a pixel and contrast changes, on the fly."""
    n = len(x)
    sx, sy = rng.integers(-1, 2, 2)
    x = np.roll(x, (int(sy), int(sx)), axis=(1, 2))
    gain = rng.uniform(0.7, 1.1, (n, 1, 1)).astype(np.float32)
    return np.clip(x * gain, 0, 1)


def train(
    x: np.ndarray, y: np.ndarray, seed: int, epochs: int, hidden=HIDDEN, classes: int = 10
) -> dict:
    """Adam on softmax cross-entropy, minibatches of 128; returns float32 weights."""
    from vision.recognise import forward

    rng = np.random.default_rng(seed)
    sizes = (SIZE * SIZE, *hidden, classes)
    w = init(rng, sizes)
    m = {k: np.zeros_like(v) for k, v in w.items()}
    v2 = {k: np.zeros_like(v) for k, v in w.items()}
    step = 0
    x = x.astype(np.float32) / 255
    for epoch in range(epochs):
        lr = 1e-3 * (0.5 ** (epoch / max(1, epochs / 3)))
        order = rng.permutation(len(x))
        loss_sum = 0.0
        for start in range(0, len(x), 128):
            idx = order[start : start + 128]
            xb = augment(x[idx], rng).reshape(len(idx), -1)
            acts = forward(xb, w, keep=True, dot=np.matmul)
            p = acts[-1]
            loss_sum += float(-np.log(p[np.arange(len(idx)), y[idx]] + 1e-9).sum())
            grads = backward(acts, y[idx], w)
            step += 1
            for k in w:
                m[k] = 0.9 * m[k] + 0.1 * grads[k]
                v2[k] = 0.999 * v2[k] + 0.001 * grads[k] ** 2
                mh = m[k] / (1 - 0.9**step)
                vh = v2[k] / (1 - 0.999**step)
                w[k] -= lr * mh / (np.sqrt(vh) + 1e-8)
        print(f"  epoch {epoch + 1}/{epochs}: loss {loss_sum / len(x):.4f}", flush=True)
    return w


def backward(acts: list[np.ndarray], y: np.ndarray, w: dict) -> dict:
    n_layers = len(acts) - 1
    delta = acts[-1].copy()
    delta[np.arange(len(y)), y] -= 1
    delta /= len(y)
    grads = {}
    for i in reversed(range(n_layers)):
        grads[f"w{i}"] = acts[i].T @ delta
        grads[f"b{i}"] = delta.sum(axis=0)
        if i:
            delta = (delta @ w[f"w{i}"].T) * (acts[i] > 0)
    return grads


def accuracy(x: np.ndarray, y: np.ndarray, w: dict) -> float:
    from vision.recognise import forward

    p = forward(x.reshape(len(x), -1).astype(np.float32), w)
    return float((p.argmax(axis=1) == y).mean())


def save(w: dict, path: Path, note: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {k: v.astype(np.float16) for k, v in w.items()}
    buf = io.BytesIO()
    np.savez_compressed(buf, note=np.array(note), **arrays)
    path.write_bytes(buf.getvalue())


def main(argv: list[str] | None = None) -> None:
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        # one BLAS thread: reproducible sums, and no thrashing on a shared machine
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        args = sys.argv[1:] if argv is None else argv
        os.execve(sys.executable, [sys.executable, "-m", "api.train.digits", *args], env)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=MODEL)
    ap.add_argument("--grids", type=int, default=1500, help="synthetic grids to render")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--holdout", action="store_true", help="leave out one puzzle in four")
    ap.add_argument("--no-real", action="store_true", help="synthetic digits only")
    args = ap.parse_args(argv)
    t0 = time.time()
    print(f"rendering {args.grids} synthetic grids ...", flush=True)
    xs, ys = synthetic_samples(args.grids, args.seed)
    print(f"  {len(xs)} synthetic blobs, {int((ys == 0).sum())} not digits", flush=True)
    x, y = xs, ys
    real_note = "no real crops"
    if not args.no_real:
        if not (SHARED / "datasets" / "wichtounet").is_dir():
            raise SystemExit(
                f"{SHARED} not found: pass --no-real to train on synthetic digits only"
            )
        print("first model (synthetic only), to turn real photos upright ...", flush=True)
        first = train(xs, ys, args.seed, epochs=3)
        photos = [p for p in wichtounet_photos() if not (args.holdout and held_out(p))]
        xr, yr = real_samples(photos, first)
        print(
            f"  {len(xr)} real blobs from {len(photos)} photos; first model reads {accuracy(xr.astype(np.float32) / 255, yr, first):.4f}"
        )
        # real crops are few: repeat them so they weigh about a quarter of the data
        reps = max(1, len(xs) // (3 * len(xr)))
        x = np.concatenate([xs, *[xr] * reps])
        y = np.concatenate([ys, *[yr] * reps])
        real_note = f"{len(xr)} real crops x{reps} from {len(photos)} wichtounet photos" + (
            " (holdout excluded)" if args.holdout else ""
        )
    print(f"training on {len(x)} samples ...", flush=True)
    w = train(x, y, args.seed + 1, epochs=args.epochs)
    print(f"training accuracy {accuracy(x.astype(np.float32) / 255, y, w):.4f}")
    note = f"MLP {SIZE * SIZE}-{HIDDEN[0]}-{HIDDEN[1]}-10, seed {args.seed}, {args.grids} synthetic grids, {real_note}"
    save(w, args.out, note)
    print(
        f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB) in {time.time() - t0:.0f} s: {note}"
    )


if __name__ == "__main__":
    main()
