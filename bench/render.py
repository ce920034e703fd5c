"""How long drawing the solution onto a photo takes, at 640x480 and at 12 MP.

    .venv/bin/python bench/render.py [--runs 15] [--threads N]

Photos come from samples.synthetic (a flat newspaper page seen at an angle), each with about
50 empty cells to fill, one corrected cell (ring) and the grid outline. Printed per size:
p50 / p90 wall milliseconds (and p50 CPU milliseconds, steadier on a busy machine) of
`draw_solution` (on the photo as the reader read it; the reading is not timed) and of
`encode` (JPEG quality 90), and two
references from the same run: a plain copy of the photo (the floor: the overlay is a new
image) and the straightforward way (warp a full-photo mask of all digits, then blend every
pixel), to show what drawing each digit only where it lands saves. Target: render at most
80 ms at 12 MP.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from samples.synthetic import make_photo  # noqa: E402
from vision.read import read_image  # noqa: E402
from vision.render import (  # noqa: E402
    DIGIT_COLOUR,
    Overlay,
    Style,
    default_font,
    draw_solution,
    encode,
    glyph,
)

SIDE = 450
SIZES = {"640x480": (640, 480), "12 MP (4000x3000)": (4000, 3000)}


def scene(size):
    """(reading, overlay) for one synthetic photo of `size`: its empty cells' answers and
    one corrected given."""
    photo = make_photo(7, size=size, curl=0, curl_skew=0, side_bow=0, n_givens=30)
    digits = np.where(photo.givens == 0, photo.solution, 0)
    corrected = np.zeros((9, 9), bool)
    corrected[tuple(np.argwhere(photo.givens > 0)[0])] = True
    return read_image(photo.image), Overlay(digits, corrected=corrected)


def whole_photo_warp(image, h, digits):
    """The reference: all digits into one upright mask at photo resolution, one warp of the
    whole photo, a float blend of every pixel."""
    height, width = image.shape[:2]
    scale = max(width, height) / SIDE
    big = round(SIDE * scale)
    mask = np.zeros((big, big), np.uint8)
    cell = big / 9
    for r, c in zip(*np.nonzero(digits), strict=True):
        patch, cx, cy = glyph(int(digits[r, c]), round(0.6 * cell), default_font())
        x0, y0 = round((c + 0.5) * cell - cx), round((r + 0.5) * cell - cy)
        ph, pw = patch.shape
        mask[y0 : y0 + ph, x0 : x0 + pw] = np.maximum(mask[y0 : y0 + ph, x0 : x0 + pw], patch)
    to_mask = np.diag([scale, scale, 1.0]) @ h
    alpha = cv2.warpPerspective(mask, to_mask, (width, height), flags=cv2.WARP_INVERSE_MAP)
    a = alpha.astype(np.float32)[..., None] / 255
    return (image * (1 - a) + np.array(DIGIT_COLOUR, np.float32) * a).astype(np.uint8)


def timed(fn, runs: int) -> tuple[float, float, float]:
    """(wall p50, wall p90, CPU p50) milliseconds of `fn()` over `runs` runs after a warm-up.

    CPU time (all threads of this process) is steadier than wall time on a shared machine.
    """
    fn()
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    wall.sort()
    p90 = wall[min(len(wall) - 1, round(0.9 * (len(wall) - 1)))]
    return statistics.median(wall), p90, statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description="overlay rendering speed")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--threads", type=int, default=None, help="cv2.setNumThreads")
    args = parser.parse_args()
    if args.threads is not None:
        cv2.setNumThreads(args.threads)
    print(f"render benchmark: {args.runs} runs each, OpenCV threads {cv2.getNumThreads()}")
    print(f"{'photo':20} {'step':34} {'p50 ms':>8} {'p90 ms':>8} {'CPU p50':>8}")
    for name, size in SIZES.items():
        reading, overlay = scene(size)
        image, h, digits = reading.image, reading.homography, overlay.digits
        style = Style(outline=True)
        out = draw_solution(reading, overlay, style)
        rows = [
            (
                f"draw_solution ({np.count_nonzero(digits)} digits)",
                lambda r=reading, o=overlay, s=style: draw_solution(r, o, s),
            ),
            ("encode JPEG q90", lambda out=out: encode(out, "jpeg", 90)),
            ("reference: copy of the photo", image.copy),
            (
                "reference: whole-photo mask warp",
                lambda image=image, h=h, d=digits: whole_photo_warp(image, h, d),
            ),
        ]
        for step, fn in rows:
            p50, p90, cpu = timed(fn, args.runs)
            print(f"{name:20} {step:34} {p50:8.1f} {p90:8.1f} {cpu:8.1f}")


if __name__ == "__main__":
    main()
