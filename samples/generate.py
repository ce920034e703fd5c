"""Regenerate the sample photos in this folder and their ground truth (truth.json).

    .venv/bin/python samples/generate.py            # writes samples/*.jpg and samples/truth.json
    .venv/bin/python samples/generate.py --out DIR  # somewhere else

Every photo is a synthetic phone photo (samples/synthetic.py) of a puzzle with exactly one
solution: newspapers, puzzle books and printed sheets at moderate angles, in sizes from
640x480 to 3000x2250, one of them stored sideways, one partly solved in pen. Same script, same bytes: each photo comes
from its own fixed seed.

truth.json maps each file name to its 81-character `givens` and `solution` ("0" = empty),
the grid's `corners` in the photo (TL, TR, BR, BL of the upright grid, pixels), the digits
written in by hand (`handwritten`, 81 characters, or null), and how it was made (`kind`, `size`, `seed`, font, angles).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout

from samples import synthetic  # noqa: E402

# name, kind, (width, height), seed, style overrides
SAMPLES = (
    ("newspaper-01", "newspaper", (640, 480), 101, {}),
    ("newspaper-02", "newspaper", (640, 480), 102, {}),
    ("newspaper-03", "newspaper", (800, 600), 103, {"roll": 87.0}),  # stored sideways
    ("newspaper-04", "newspaper", (960, 1280), 104, {"shaded_boxes": True}),
    ("newspaper-05", "newspaper", (1600, 1200), 105, {}),
    ("newspaper-06", "newspaper", (2000, 1500), 106, {}),
    ("newspaper-07", "newspaper", (1280, 960), 107, {"filled": 0.3}),  # partly solved in pen
    ("book-01", "book", (1200, 1600), 201, {}),
    ("book-02", "book", (1024, 768), 202, {}),
    ("book-03", "book", (3000, 2250), 203, {}),
    ("book-04", "book", (1536, 2048), 204, {}),
    ("sheet-01", "sheet", (640, 480), 301, {}),
    ("sheet-02", "sheet", (1280, 960), 302, {}),
    ("sheet-03", "sheet", (1500, 2000), 303, {}),
    ("sheet-04", "sheet", (1920, 1080), 304, {}),
)


def sample(kind: str, size: tuple[int, int], seed: int, overrides: dict):
    """One photo: the seed's puzzle and style, with `overrides` applied to the style."""
    rng = np.random.default_rng([seed, 0])
    givens, solution = synthetic.make_puzzle(rng, int(rng.integers(24, 34)))
    style = synthetic.random_style(np.random.default_rng([seed, 2]), kind)
    style = replace(style, **overrides)
    return synthetic.render_photo(givens, solution, seed=seed, size=size, style=style)


def truth(photo, kind: str, size: tuple[int, int]) -> dict:
    """The ground-truth record written to truth.json for one photo."""
    style = photo.style
    return {
        "givens": synthetic.grid_string(photo.givens),
        "solution": synthetic.grid_string(photo.solution),
        "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in photo.corners],
        "kind": kind,
        "size": list(size),
        "seed": photo.seed,
        "font": Path(style.digit_font).name if style.digit_font else "Pillow default",
        "angles": {k: round(getattr(style, k), 1) for k in ("roll", "pitch", "yaw")},
        "curl": round(style.curl, 2),
        "handwritten": synthetic.grid_string(photo.handwritten)
        if photo.handwritten is not None
        else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    records = {}
    total = 0
    for name, kind, size, seed, overrides in SAMPLES:
        photo = sample(kind, size, seed, overrides)
        assert synthetic.count_solutions(photo.givens) == 1, f"{name}: puzzle not unique"
        path = args.out / f"{name}.jpg"
        path.write_bytes(photo.jpeg)
        records[path.name] = truth(photo, kind, size)
        total += len(photo.jpeg)
        print(f"{path.name:18} {size[0]:>4}x{size[1]:<4} {len(photo.jpeg) // 1024:>5} KB")
    lines = [f" {json.dumps(name)}: {json.dumps(record)}" for name, record in records.items()]
    (args.out / "truth.json").write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(
        f"{len(records)} photos, {total / 2**20:.1f} MB, ground truth in {args.out / 'truth.json'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
