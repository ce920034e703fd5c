"""Cell recognition alone, per engine, on wichtounet photos warped with their LABELLED corners.

Isolates `vision.cells` + `vision.recognise` from the locator: every photo is warped with the
corners of outlines.csv, cut, turned upright by `upright_turns`, and read. Prints cell
accuracy, photos fully correct, the confusion matrix and milliseconds per photo.

    python bench/recognition.py                       # both engines, all labelled photos
    python bench/recognition.py --engine classifier --holdout --model /tmp/digits_holdout.npz
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from api.train.digits import SHARED, held_out, wichtounet_photos  # noqa: E402
from vision.cells import cut_cells  # noqa: E402
from vision.recognise import ENGINES, recognise, upright_turns  # noqa: E402


def measure(photos, engine: str) -> dict:
    confusion = np.zeros((10, 10), int)
    full, cut_ms, read_ms, cpu_ms, wrong = 0, [], [], [], []
    for photo in photos:
        warped = photo.warped()
        c0 = time.process_time()
        t0 = time.perf_counter()
        cells = cut_cells(warped)
        t1 = time.perf_counter()
        cells = cells.rotated(upright_turns(cells))
        read = recognise(cells, engine).argmax(axis=1)
        t2 = time.perf_counter()
        cpu_ms.append((time.process_time() - c0) * 1000)
        truth = photo.givens.ravel()
        np.add.at(confusion, (truth, read), 1)
        errors = int((read != truth).sum())
        full += errors == 0
        if errors:
            wrong.append(f"{photo.path.name}:{errors}")
        cut_ms.append((t1 - t0) * 1000)
        read_ms.append((t2 - t1) * 1000)
    return dict(
        confusion=confusion,
        full=full,
        n=len(photos),
        cut_ms=cut_ms,
        read_ms=read_ms,
        cpu_ms=cpu_ms,
        wrong=wrong,
    )


def report(engine: str, r: dict) -> None:
    c = r["confusion"]
    acc = np.trace(c) / c.sum()
    digits = c[1:, :].sum()
    print(f"\n== engine {engine}: {r['n']} photos, {c.sum()} cells ({digits} digits)")
    print(f"cell accuracy        {100 * acc:.2f}%  ({c.sum() - np.trace(c)} wrong)")
    print(f"digit cells right    {100 * np.trace(c[1:, 1:]) / digits:.2f}%")
    print(f"photos fully correct {100 * r['full'] / r['n']:.1f}%  ({r['full']}/{r['n']})")
    print(
        f"ms per photo: cut p50 {np.median(r['cut_ms']):.1f}, "
        f"orient+recognise p50 {np.median(r['read_ms']):.1f} p95 {np.percentile(r['read_ms'], 95):.1f}; "
        f"CPU time of both p50 {np.median(r['cpu_ms']):.1f} (wall times suffer on a busy machine; "
        "Tesseract's own process is not in CPU time)"
    )
    print("confusion (rows truth 0=empty..9, columns read):")
    print("      " + " ".join(f"{k:>5}" for k in range(10)))
    for t in range(10):
        print(f"  {t:>2}  " + " ".join(f"{v:>5}" for v in c[t]))
    if r["wrong"]:
        print("photos with errors: " + " ".join(r["wrong"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", choices=ENGINES, action="append")
    ap.add_argument("--model", help="digit model to measure instead of the shipped one")
    ap.add_argument("--holdout", action="store_true", help="only the held-out puzzles' photos")
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    if not (SHARED / "datasets" / "wichtounet").is_dir():
        raise SystemExit(f"{SHARED} not present: nothing to measure")
    if args.model:
        os.environ["SUDOKU_LENS_DIGIT_MODEL"] = args.model
    photos = wichtounet_photos()
    if args.holdout:
        photos = [p for p in photos if held_out(p)]
    if args.limit:
        photos = photos[: args.limit]
    puzzles = len({p.puzzle for p in photos})
    print(
        f"model: {args.model or 'shipped vision/models/digits.npz'}; photos: "
        f"{'held-out puzzles only' if args.holdout else 'all labelled'} "
        f"({len(photos)} photos of {puzzles} puzzles); load average {os.getloadavg()[0]:.1f}"
    )
    for engine in args.engine or ENGINES:
        report(engine, measure(photos, engine))


if __name__ == "__main__":
    main()
