"""Train the glyph classifier of other boards: `python -m api.train.symbols` (seeded).

Why its own model: the 9x9 reader's models know the digits 1-9 (and a hand's from print);
a 6x6 prints 1-6, a 16x16 "0", letters A-P and the two-digit numbers 10-16. The glyphs are
print in a known set of faces, so the classifier learns from boards rendered here in every
installed face that draws the digits and the letters A-P (`api.train.digits`' faces,
shading, line widths, and its photograph: corner error, bend, low resolution, blur, light,
noise, JPEG), cut by the very `vision.symbols.cut_symbols` the reader uses. A cell whose cut
finds as many glyphs as it prints gives each its label; turned glyphs (a quarter turn, or
half a turn where that is no other glyph) and specks are "no symbol", which is how the
reader finds which way up a board stands.

There are no labelled photos of these boards, so it is measured on the board photos of
`bench/boards.py`, which are rendered by another route (`samples.boards`: the sheet's
drawing, photographed by `samples.pages`), in faces drawn at random.

    python -m api.train.symbols                 # writes vision/models/symbols.npz
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from PIL import ImageFont

from api.train.digits import (
    accuracy,
    digit_fonts,
    glyph_bitmap,
    photograph,
    random_style,
    render_grid,
    save,
    train,
)
from vision.symbols import CELL, CONVENTIONS, GLYPHS, MODEL, cut_symbols

HIDDEN = (192, 96)
# glyphs a half turn leaves a glyph (themselves or another): not "no symbol" turned so
SYMMETRIC = set("01689HINOS")  # a half-turned sans "1" is a bar, as an "I" is
BOARDS = ((6, (2, 3)), (9, (3, 3)), (16, (4, 4)), (16, (4, 4)))


def symbol_fonts() -> list[Path]:
    """The digit faces that also draw A-P as distinct glyphs."""
    fonts = []
    for path in digit_fonts():
        font = ImageFont.truetype(str(path), 40)
        shapes = [glyph_bitmap(font, ch) for ch in "ABCDEFGHIJKLMNOP"]
        if all(s.any() for s in shapes) and len({s.tobytes() for s in shapes}) == 16:
            fonts.append(path)
    return fonts


def board_texts(rng: np.random.Generator, size: int) -> tuple[np.ndarray, list[str]]:
    """A board's cells (1..size, 0 empty) and what each prints, by a convention drawn at
    random for a 16x16."""
    values = rng.integers(1, size + 1, size * size) * (rng.random(size * size) < 0.45)
    if size == 16:
        forms = CONVENTIONS[list(CONVENTIONS)[rng.integers(len(CONVENTIONS))]]
    else:
        forms = tuple(str(v) for v in range(1, size + 1))
    return values, ["" if v == 0 else forms[v - 1] for v in values]


def board_samples(n_boards: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(images (N, S, S) uint8, labels (N,)): every glyph cut from n_boards rendered and
    photographed boards whose cell held as many glyphs as it printed, then those glyphs
    turned as "no symbol"."""
    rng = np.random.default_rng(seed)
    fonts = symbol_fonts()
    images, labels = [], []
    for _ in range(n_boards):
        size, boxes = BOARDS[rng.integers(len(BOARDS))]
        values, texts = board_texts(rng, size)
        style = random_style(rng, fonts)
        style = replace(style, digit_height=min(style.digit_height, 0.7))  # as boards print
        flat = render_grid(values, style, rng, texts=texts, box_shape=boxes)
        square = photograph(flat, rng, side=size * CELL)
        for cell, text in zip(cut_symbols(square, size), texts, strict=True):
            if len(cell.glyphs) == len(text) and text:
                for glyph, ch in zip(cell.glyphs, text, strict=True):
                    images.append(glyph)
                    labels.append(1 + GLYPHS.index(ch))
            elif not text:  # specks and smudges in an empty cell, but not bars: a bar
                # there is a piece of a line, and taught as no symbol it unteaches "I"/"1"
                for glyph, (_, _, w, h) in zip(cell.glyphs, cell.boxes, strict=True):
                    if max(w, h) < 4 * min(w, h):
                        images.append(glyph)
                        labels.append(0)
    x = (np.array(images) * 255).astype(np.uint8)
    y = np.array(labels, np.int64)
    return x, y


def turned(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A glyph turned a quarter either way, or half a turn when that makes no glyph: the
    negatives that tell which way up a board stands."""
    out = []
    for image, label in zip(x, y, strict=True):
        if label == 0:
            continue
        ch = GLYPHS[label - 1]
        k = int(rng.choice([1, 3] if ch in SYMMETRIC else [1, 2, 3]))
        out.append(np.rot90(image, k))
    return np.array(out)


def main(argv: list[str] | None = None) -> None:
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        args = sys.argv[1:] if argv is None else argv
        os.execve(sys.executable, [sys.executable, "-m", "api.train.symbols", *args], env)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=MODEL)
    ap.add_argument("--boards", type=int, default=700, help="synthetic boards to render")
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    t0 = time.time()
    print(f"rendering {args.boards} boards ...", flush=True)
    x, y = board_samples(args.boards, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    negatives = turned(x, y, rng)
    keep = rng.random(len(negatives)) < 0.5  # half as many turned glyphs as glyphs
    x = np.concatenate([x, negatives[keep]])
    y = np.concatenate([y, np.zeros(int(keep.sum()), np.int64)])
    counts = np.bincount(y, minlength=len(GLYPHS) + 1)
    print(f"  {len(x)} glyphs; per class {counts.tolist()}", flush=True)
    w = train(x, y, args.seed, epochs=args.epochs, hidden=HIDDEN, classes=len(GLYPHS) + 1)
    print(f"training accuracy {accuracy(x.astype(np.float32) / 255, y, w):.4f}")
    note = (
        f"MLP {x.shape[1] * x.shape[2]}-{HIDDEN[0]}-{HIDDEN[1]}-{len(GLYPHS) + 1}, seed "
        f"{args.seed}, {args.boards} rendered boards, {len(x)} glyphs"
    )
    save(w, args.out, note)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB) in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
