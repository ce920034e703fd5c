"""Train the reader's gate (`vision.gate`): is a page surely print alone?

    python -m api.train.gate                                  # -> vision/models/cells.gate.onnx
    python -m api.train.gate --fold 2 --out /tmp/fold2.gate.onnx   # hold fold 2 out

The same labelled photos, folds and synthetic hand-writing as the cell model
(`api.train.cells`: Wicht's print and hand-filled twins, Kubiesa's pen, pencil and
candidates), its 20 classes folded into the gate's four (empty, print, written,
candidates), its inputs made as the reader makes them (`vision.gate.gate_inputs` on the grey
grid's darkness and cut). Every example is shown in a random quarter turn: the reader asks
the gate before it knows which way up the grid stands. About 80 seconds a model on two
cores; it never runs at import.

With `--fold k`, the held-out photos' pages are judged by `vision.gate.surely_print` (on
their upright grids, with the print reader's own calibrated reading) and the pages and
cells passed are printed per source: no page with a hand's mark may pass.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from api.train.cells import (
    CACHE,
    SHARED,
    WRITTEN,
    Hand,
    derive_kubiesa,
    export,
    fold_of,
    kubiesa_labels,
    kubiesa_photos,
    read_grids,
    train,
    wichtounet_photos,
    written_into,
)
from vision.cells import cut_cells, darkness
from vision.gate import (
    CANDIDATES,
    CLASSES,
    EMPTY,
    HAND,
    PRINT,
    SIDE,
    blank,
    gate_inputs,
    gate_path,
    surely_print,
)
from vision.gate import WRITTEN as GATE_WRITTEN
from vision.kinds import CANDIDATES as CELL_CANDIDATES
from vision.kinds import MODEL


def gate_class(classes: np.ndarray) -> np.ndarray:
    """The cell model's classes (`vision.kinds.CLASSES`) folded into the gate's."""
    out = np.full(classes.shape, PRINT, np.int16)
    out[classes == 0] = EMPTY
    out[(classes > WRITTEN) & (classes < CELL_CANDIDATES)] = GATE_WRITTEN
    out[classes == CELL_CANDIDATES] = CANDIDATES
    return out


def inputs_of(grid: np.ndarray):
    """The gate's inputs for an upright colour grid, and its cut cells."""
    gray = cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY)
    dark = darkness(gray)
    cells = cut_cells(gray, dark=dark)
    return gate_inputs(dark, cells), cells


def examples(photos, grids, hand: Hand, rng, variants: int):
    """The inked cells of every photo, and of `variants` synthetic hand-filled copies."""
    xs, ys = [], []
    for photo in photos:
        if photo.path not in grids:
            continue
        grid = grids[photo.path][0]
        copies = [(grid, photo.classes)]
        if (photo.classes == 0).any():
            copies += [written_into(grid, photo.classes, hand, rng) for _ in range(variants)]
        for g, classes in copies:
            x, _ = inputs_of(g)
            inked = ~blank(x)
            xs.append(x[inked])
            ys.append(gate_class(classes)[inked])
    return np.concatenate(xs).astype(np.float16), np.concatenate(ys).astype(np.int16)


def network():
    """A strided convolution, one more and a little dense layer: about 0.39 M multiply-adds
    a cell, fifteen times fewer than the cell model's 5.9 M (0.8 ms for 50 cells here,
    against 3.1). Tried on fold 0 (held out, docs/benchmarks.md, Round 7): the same
    without the stride (8, 16 and 32 channels at full size) told print from hand a little
    better but cost 1.9 ms; 16 x 16 inputs, or 4 x 4 patches as the first layer, cost 0.5
    to 0.7 ms but passed far fewer printed pages."""
    import torch.nn as nn

    return nn.Sequential(
        nn.Conv2d(2, 16, 3, stride=2, padding=1),  # 16
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.MaxPool2d(2),  # 8
        nn.Conv2d(16, 32, 3, padding=1),
        nn.BatchNorm2d(32),
        nn.ReLU(),
        nn.MaxPool2d(2),  # 4
        nn.Flatten(),
        nn.Linear(32 * 16, 32),
        nn.ReLU(),
        nn.Linear(32, len(CLASSES)),
    )


def turned(x, rng_torch):
    """Each batch in one random quarter turn, shifted by up to a pixel, darkness scaled."""
    import torch

    k = int(torch.randint(0, 4, (1,), generator=rng_torch))
    dx, dy = torch.randint(-1, 2, (2,), generator=rng_torch).tolist()
    x = torch.rot90(x, k, dims=(2, 3))
    x = torch.roll(x, shifts=(dy, dx), dims=(2, 3))
    gain = 0.8 + 0.4 * torch.rand((x.shape[0], 1, 1, 1), generator=rng_torch)
    x[:, :1] = torch.clamp(x[:, :1] * gain, 0, 1)
    return x


def weights(y: np.ndarray) -> np.ndarray:
    """Per example, so that the rarer classes (empty marks, candidates) count. A hand's
    classes were once weighed four times more on top: print then read as a hand's on
    held-out pages (0.9 on printed 4s), and the page's rule (`vision.gate.HAND`) is the
    better place to lean towards the cell model."""
    counts = np.bincount(y, minlength=len(CLASSES)).astype(np.float64)
    per_class = (counts.sum() / np.maximum(counts, 1)) ** 0.5
    per_class /= per_class[y].mean()
    return per_class[y].astype(np.float32)


def held_out(photos, grids, path: Path) -> None:
    """The held-out pages judged by `surely_print`, per source, on their upright grids."""
    from vision.gate import gate_classes
    from vision.recognise import DEFAULT_ENGINE, calibrated, recognise

    for source in ("wichtounet", "mixed", "kubiesa"):
        mine = [p for p in photos if p.source == source and p.path in grids]
        if not mine:
            continue
        passed, hand_pages, hand_cells, hand_seen = 0, 0, 0, 0
        for photo in mine:
            x, cells = inputs_of(grids[photo.path][0])
            gate = gate_classes(x, path)
            reading = calibrated(recognise(cells, DEFAULT_ENGINE), DEFAULT_ENGINE)
            truth = gate_class(photo.classes)
            hand = (truth == GATE_WRITTEN) | (truth == CANDIDATES)
            passed += surely_print(gate, reading, cells.ink)
            hand_pages += hand.any()
            hand_cells += hand.sum()
            hand_seen += (gate[hand, GATE_WRITTEN] + gate[hand, CANDIDATES] >= HAND).sum()
        print(
            f"held out, {source}: {len(mine)} pages ({hand_pages} with a hand's mark),"
            f" {passed} passed as print alone; hand cells the gate calls a hand's:"
            f" {hand_seen}/{hand_cells}",
            file=sys.stderr,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--out", type=Path, default=gate_path(MODEL))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--variants", type=int, default=2, help="synthetic copies per photo")
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--fold", type=int, default=None, help="hold this fold out")
    parser.add_argument("--kinds", type=Path, default=CACHE / "kubiesa-kinds.json")
    args = parser.parse_args(argv)
    started = time.time()
    rng = np.random.default_rng(args.seed)
    hand = Hand(rng, args.shared)
    all_wicht, all_kub = wichtounet_photos(args.shared), kubiesa_labels(args.shared)
    truth = [(p.path, np.where(p.classes >= 10, p.classes - 9, p.classes) % 10) for p in all_wicht]
    truth += [(path, np.where(values == 10, 0, values)) for path, _, values in all_kub]
    grids = read_grids(truth)
    letters = derive_kubiesa(args, all_wicht, all_kub, grids, hand, rng)
    photos = all_wicht + kubiesa_photos(all_kub, letters)

    def keep(photo) -> bool:
        return args.fold is None or fold_of(photo.group, args.folds) != args.fold

    x, y = examples([p for p in photos if keep(p)], grids, hand, rng, args.variants)
    print(f"{len(x)} inked cells: {np.bincount(y, minlength=4).tolist()}", file=sys.stderr)
    model = train(x, y, weights(y), args.seed, args.epochs, network, turned)
    export(model, args.out, (1, 2, SIDE, SIDE))
    if args.fold is not None:
        held_out([p for p in photos if not keep(p)], grids, args.out)
    print(
        f"wrote {args.out} ({args.out.stat().st_size // 1024} KB) in {time.time() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
