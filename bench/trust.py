"""Never a confident wrong answer: the correction fed faulty readings, and how far the engines'
confidences can be trusted.

    .venv/bin/python bench/trust.py [--simulated 20000] [--photos 160] [--plot docs/img/reliability.png]

1. The wichtounet photos (real phone photos, printed givens as truth) read by both engines;
   each reading judged by today's correction (the commit named by --base) and by this one:
   solved right, refused (by status) and WRONG (solved with another solution).
2. Simulated readings of generated puzzles with faults: 1-3 missed givens (no ink, or a faint
   mark), confusable swaps (1/7, 3/8, 5/6, 6/8, 8/9, 4/9), spurious digits from specks and
   pencil marks, several at once; every cell's probability drawn from the engine's own
   measured confidences on the photos (digits read right, digits read wrong, empty cells).
3. Reliability per engine: the top probability of every cell against whether it was right,
   the expected calibration error (ECE), the accuracy of the cells reported at >= 99.95%,
   and the same after temperature scaling fitted on the even photos and measured on the odd
   ones. Written as a PNG reliability plot.

The machine is shared: the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != REPO / "bench"]
sys.path.insert(0, str(REPO))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from api.evaluation import wicht_samples  # noqa: E402
from api.pipeline import _ink, judge  # noqa: E402
from samples.synthetic import make_puzzle  # noqa: E402
from solver.fast import count_solutions_81  # noqa: E402

SHARED = REPO.parent / "shared"
WICHT = SHARED / "datasets" / "wichtounet" / "images"
ENGINES = ("classifier", "tesseract")
CONFUSABLE = [(1, 7), (3, 8), (5, 6), (6, 8), (8, 9), (4, 9)]
BINS = np.array([0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 0.9995, 1.0 + 1e-9])


def old_correct(base: str):
    """`correct` as it was at commit `base`: today's behaviour to compare with."""
    text = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{base}:api/correct.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_correct.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("old_correct", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_correct"] = module
    spec.loader.exec_module(module)
    return module.correct


def solution_of(givens: np.ndarray) -> np.ndarray | None:
    n, first = count_solutions_81(np.ascontiguousarray(givens.reshape(81), dtype=np.int8), 2)
    return np.asarray(first, np.int8) if n == 1 else None


def held_out(sample, fold: int | None, folds: int) -> bool:
    """Whether the photo's puzzle lies in `fold` (api.train_cells' folds by puzzle), i.e. a
    cell model trained with `--fold fold` never saw it; every photo when fold is None."""
    if fold is None:
        return True
    from api.train_cells import fold_of

    return fold_of("w" + "".join(map(str, sample.givens)), folds) == fold


def read_photos(engine: str, limit: int, fold: int | None = None, folds: int = 4) -> list[dict]:
    from vision import NoGridFound, read_photo

    out = []
    for sample in wicht_samples(WICHT)[:limit]:
        if sample.givens is None or solution_of(sample.givens) is None:
            continue
        if engine == "classifier" and not held_out(sample, fold, folds):
            continue
        try:
            r = read_photo(sample.path, engine=engine)
        except NoGridFound:
            out.append(dict(name=sample.name, truth=sample.givens.reshape(81), reading=None))
            continue
        out.append(
            dict(
                name=sample.name,
                truth=sample.givens.reshape(81).astype(np.int8),
                givens=r.givens.reshape(81),
                probs=r.probabilities.reshape(81, 10).astype(np.float64),
                ink=_ink(r),
                reading=True,
            )
        )
    return out


def verdict(solved: bool, solution, truth_solution) -> str:
    if not solved:
        return "refused"
    return "right" if np.array_equal(np.asarray(solution), truth_solution) else "WRONG"


def judge_new(givens, probs, ink) -> tuple[bool, np.ndarray | None]:
    result = judge(givens.reshape(9, 9), probs.reshape(9, 9, 10), ink=ink)
    if not result.solved:
        return False, None
    return True, np.array([int(c) for c in result.solution], np.int8)


def judge_old(correct, givens, probs) -> tuple[bool, np.ndarray | None]:
    if int((givens > 0).sum()) < 17:
        return False, None
    fix = correct(givens, probs)
    return fix.solved, fix.solution


def tally(verdicts: list[str]) -> str:
    n = len(verdicts)
    return (
        f"{verdicts.count('right'):5d} right  {verdicts.count('refused'):5d} refused"
        f"  {verdicts.count('WRONG'):3d} WRONG  (of {n})"
    )


# ---------------------------------------------------------------- calibration


def cell_outcomes(photos: list[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top probability, right or not, and the photo's index, for every cell read."""
    conf, right, which = [], [], []
    for i, p in enumerate(photos):
        if not p["reading"]:
            continue
        probs = p["probs"]
        conf.append(probs.max(axis=1))
        right.append(probs.argmax(axis=1) == p["truth"])
        which.append(np.full(81, i))
    return np.concatenate(conf), np.concatenate(right), np.concatenate(which)


def ece(conf: np.ndarray, right: np.ndarray) -> tuple[float, list[tuple[float, float, int]]]:
    """Expected calibration error over BINS, and per bin (mean confidence, accuracy, n)."""
    idx = np.digitize(conf, BINS) - 1
    rows, total = [], 0.0
    for b in range(len(BINS) - 1):
        m = idx == b
        if m.any():
            rows.append((float(conf[m].mean()), float(right[m].mean()), int(m.sum())))
            total += m.sum() * abs(conf[m].mean() - right[m].mean())
    return total / len(conf), rows


def temperature(photos: list[dict], fit: np.ndarray) -> float:
    """The temperature T minimising the negative log likelihood of the truth on the photos
    in `fit` (probabilities p -> p^(1/T), renormalised)."""
    logp = np.log(np.clip(np.concatenate([photos[i]["probs"] for i in fit]), 1e-9, 1))
    truth = np.concatenate([photos[i]["truth"] for i in fit]).astype(int)
    best = (np.inf, 1.0)
    for t in np.exp(np.linspace(np.log(0.3), np.log(8), 80)):
        z = logp / t
        z -= z.max(axis=1, keepdims=True)
        ll = z[np.arange(len(z)), truth] - np.log(np.exp(z).sum(axis=1))
        best = min(best, (-ll.mean(), float(t)))
    return best[1]


def scaled(probs: np.ndarray, t: float) -> np.ndarray:
    z = np.log(np.clip(probs, 1e-9, 1)) / t
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def plot(curves: dict[str, list[tuple[float, float, int]]], path: Path) -> None:
    """Reliability diagram: mean confidence (x) against accuracy (y) per bin, one colour
    per curve, the diagonal for perfect calibration; x and y from 0.5 to 1."""
    size, pad = 520, 60
    img = np.full((size + 2 * pad, size + 2 * pad + 200, 3), 255, np.uint8)

    def at(x, y):
        lo = 0.5
        return (
            int(pad + (x - lo) / (1 - lo) * size),
            int(pad + size - (max(y, lo) - lo) / (1 - lo) * size),
        )

    cv2.rectangle(img, at(0.5, 1.0), at(1.0, 0.5), (0, 0, 0), 1)
    cv2.line(img, at(0.5, 0.5), at(1.0, 1.0), (160, 160, 160), 1, cv2.LINE_AA)
    for v in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        x, y = at(v, 0.5)
        cv2.putText(img, f"{v:.1f}", (x - 12, y + 20), 0, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
        x, y = at(0.5, v)
        cv2.putText(img, f"{v:.1f}", (x - 40, y + 5), 0, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(img, "confidence", (pad + size // 2 - 40, size + 2 * pad - 10), 0, 0.5, 0, 1)
    cv2.putText(img, "accuracy", (5, pad - 20), 0, 0.5, 0, 1)
    colours = [(200, 80, 0), (0, 120, 255), (60, 160, 60), (160, 0, 160)]
    for i, (name, rows) in enumerate(curves.items()):
        colour = colours[i % len(colours)]
        pts = [at(c, a) for c, a, _ in rows if c >= 0.5]  # the plot shows 0.5 to 1
        for a, b in zip(pts, pts[1:], strict=False):
            cv2.line(img, a, b, colour, 2, cv2.LINE_AA)
        for p in pts:
            cv2.circle(img, p, 4, colour, -1, cv2.LINE_AA)
        y = pad + 20 + 24 * i
        cv2.line(img, (size + pad + 20, y - 5), (size + pad + 45, y - 5), colour, 2)
        cv2.putText(img, name, (size + pad + 50, y), 0, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), img)


# ---------------------------------------------------------------- simulation


class Pools:
    """The engine's measured confidences: of digits read right, of digits read wrong (the
    read digit's probability), and of empty cells read empty."""

    def __init__(self, photos: list[dict]):
        right, wrong, empty = [], [], []
        for p in photos:
            if not p["reading"]:
                continue
            probs, truth = p["probs"], p["truth"]
            top, read = probs.max(axis=1), probs.argmax(axis=1)
            right += list(top[(truth > 0) & (read == truth)])
            wrong += list(top[(read > 0) & (read != truth)])
            empty += list(top[(truth == 0) & (read == 0)])
        self.right, self.empty = np.array(right), np.array(empty)
        self.wrong = np.array(wrong) if len(wrong) >= 5 else np.array([0.5, 0.6, 0.7, 0.8, 0.9])


def cell_row(rng, value: int, p: float, second: int | None = None, share: float = 0.8):
    """Probabilities with `value` at p; `second` (when given) takes `share` of the rest,
    the others spread unevenly."""
    row = (1 - p) * rng.dirichlet(np.full(10, 0.3))
    if second is not None:
        row *= 1 - share
        row[second] += (1 - p) * share
    row[value] = 0
    row *= (1 - p) / max(row.sum(), 1e-12)
    row[value] = p
    return row


def simulated(rng, pools: Pools):
    """One faulty reading of a generated puzzle: (givens, probs, ink, true solution, faults)."""
    givens, solution = make_puzzle(rng, int(rng.integers(24, 33)))
    truth, solution = givens.reshape(81).astype(np.int8), solution.reshape(81).astype(np.int8)
    read = truth.copy()
    probs = np.zeros((81, 10))
    ink = (truth > 0).astype(np.float64)
    for c in range(81):
        pool = pools.right if truth[c] else pools.empty
        probs[c] = cell_row(rng, truth[c], float(rng.choice(pool)))
    faults = []
    for _ in range(int(rng.choice([1, 1, 1, 2, 2, 3]))):
        kind = rng.choice(["missed", "missed", "swap", "speck", "pencil"])
        digit_cells, empty_cells = np.flatnonzero(read > 0), np.flatnonzero(read == 0)
        if kind == "missed":
            c = int(rng.choice(digit_cells))
            read[c] = 0
            if rng.random() < 0.5:  # the cut drifted off the digit: no ink at all
                probs[c] = cell_row(rng, 0, float(rng.choice(pools.empty)))
                ink[c] = 0.0
            else:  # a faint mark the recogniser calls empty
                probs[c] = cell_row(rng, 0, float(rng.uniform(0.5, 0.99)), truth[c], 0.9)
                ink[c] = float(rng.uniform(0.3, 1.0))
        elif kind == "swap":
            pairs = [(a, b) for a, b in CONFUSABLE for a, b in ((a, b), (b, a))]
            options = [(c, b) for c in digit_cells for a, b in pairs if read[c] == a]
            if not options:
                continue
            c, b = options[int(rng.integers(len(options)))]
            probs[c] = cell_row(rng, b, float(rng.choice(pools.wrong)), truth[c], 0.9)
            read[c] = b
        else:  # a speck or pencil mark read as a digit
            c = int(rng.choice(empty_cells))
            d = int(rng.integers(1, 10))
            probs[c] = cell_row(rng, d, float(rng.choice(pools.wrong)), 0, 0.7)
            read[c] = d
            ink[c] = 1.0
        faults.append(str(kind))
    return read, probs, ink, solution, faults


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--simulated", type=int, default=20_000)
    ap.add_argument("--photos", type=int, default=160)
    ap.add_argument("--base", default="c52a3ca", help="commit of today's correction")
    ap.add_argument("--plot", type=Path, default=REPO / "docs" / "img" / "reliability.png")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument(
        "--held-out-fold",
        type=int,
        default=None,
        help="with $SUDOKU_LENS_CELL_MODEL set to the model trained by `api.train_cells"
        " --fold K`: read with the classifier only the photos of fold K (never trained on)",
    )
    ap.add_argument("--folds", type=int, default=4)
    args = ap.parse_args()
    if not WICHT.is_dir():
        sys.exit("../shared not present: bench/trust.py needs the wichtounet photos")
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores, shared)")
    today = old_correct(args.base)
    curves, sims = {}, {}
    if args.held_out_fold is not None:
        print(
            f"classifier: fold {args.held_out_fold} of {args.folds} only, cell model"
            f" {os.environ.get('SUDOKU_LENS_CELL_MODEL', '(shipped)')}"
        )
    for engine in ENGINES:
        t = time.perf_counter()
        photos = read_photos(engine, args.photos, args.held_out_fold, args.folds)
        print(f"\n== {engine}: {len(photos)} photos read in {time.perf_counter() - t:.0f} s")
        new, old = [], []
        for p in photos:
            truth_solution = solution_of(p["truth"])
            if not p["reading"]:
                new.append("refused")
                old.append("refused")
                continue
            new.append(verdict(*judge_new(p["givens"], p["probs"], p["ink"]), truth_solution))
            old.append(verdict(*judge_old(today, p["givens"], p["probs"]), truth_solution))
        print(f"photos, today ({args.base}): {tally(old)}")
        print(f"photos, this correction:   {tally(new)}")
        for name, v_old, v_new in zip([p["name"] for p in photos], old, new, strict=True):
            if v_old != v_new:
                print(f"   {name}: {v_old} -> {v_new}")

        conf, right, which = cell_outcomes(photos)
        e, rows = ece(conf, right)
        sure = conf >= 0.9995
        print(
            f"calibration: ECE {e:.4f} over {len(conf)} cells; cells at >= 99.95%:"
            f" {int(sure.sum())}, right {right[sure].mean():.4%}"
        )
        read_idx = [i for i, p in enumerate(photos) if p["reading"]]
        fit, held = read_idx[0::2], read_idx[1::2]
        temp = temperature(photos, fit)
        held_photos = [dict(photos[i], probs=scaled(photos[i]["probs"], temp)) for i in held]
        raw_held = [photos[i] for i in held]
        e_raw, _ = ece(*cell_outcomes(raw_held)[:2])
        c2, r2, _ = cell_outcomes(held_photos)
        e_t, rows_t = ece(c2, r2)
        sure2 = c2 >= 0.9995
        acc = f"{r2[sure2].mean():.4%}" if sure2.any() else "-"
        print(
            f"temperature {temp:.2f} fitted on the even photos; on the odd ones ECE"
            f" {e_raw:.4f} -> {e_t:.4f}; cells at >= 99.95% after: {int(sure2.sum())}, right {acc}"
        )
        for c, a, n in rows:
            print(f"   bin mean confidence {c:.4f}  accuracy {a:.4f}  cells {n}")
        curves[f"{engine} as shipped"] = rows
        curves[f"{engine} T={temp:.2f} (odd)"] = rows_t

        pools = Pools(photos)
        rng = np.random.default_rng(args.seed)
        verdicts, wrong_examples = [], []
        t = time.perf_counter()
        for _ in range(args.simulated):
            read, probs, ink, solution, faults = simulated(rng, pools)
            if int((read > 0).sum()) < 17:
                verdicts.append("refused")
                continue
            v = verdict(*judge_new(read, probs, ink), solution)
            verdicts.append(v)
            if v == "WRONG" and len(wrong_examples) < 5:
                wrong_examples.append(faults)
        secs = time.perf_counter() - t
        sims[engine] = verdicts
        print(
            f"simulated readings ({engine} confidences): {tally(verdicts)}"
            f"  [{secs:.0f} s, load {os.getloadavg()[0]:.2f}]"
        )
        for f in wrong_examples:
            print("   WRONG with faults:", ", ".join(f))
    plot(curves, args.plot)
    print(f"\nreliability plot: {args.plot}")


if __name__ == "__main__":
    main()
