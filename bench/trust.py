"""Never a confident wrong answer: the correction fed faulty readings, and how far the engines'
confidences can be trusted.

    .venv/bin/python bench/trust.py [--simulated 20000] [--photos 160] [--plot docs/img/reliability.png]
        [--engine classifier|tesseract] [--holdout-model /tmp/digits_holdout.npz]
        [--write-calibration]

1. The wichtounet photos (real phone photos, printed givens as truth) read by both engines;
   each reading judged by today's correction (the commit named by --base) and by this one:
   solved right, refused (by status) and WRONG (solved with another solution). Each is
   judged as the pipeline judges it: what the cell model calls print, then, when that does
   not solve, the print reader's own reading (`api.photo.pipeline.judge_reading`).
2. Simulated readings of generated puzzles with faults: 1-3 missed givens (no ink, or a faint
   mark), confusable swaps (1/7, 3/8, 5/6, 6/8, 8/9, 4/9), spurious digits from specks and
   pencil marks, several at once; every cell's probability drawn from the engine's own
   measured confidences on the photos (digits read right, digits read wrong, empty cells).
   Two puzzles in three have their givens 180° symmetric, as newspapers print them, one in
   three not (some books and sites): the counts are broken down by pattern and by fault
   kind, and every WRONG reading is printed with its faults.
3. Calibration per engine (`vision.calibration`), fitted on readings the engine did not
   train on: Tesseract on the even photos (checked on the odd), the classifier on the
   photos that `api.train.digits --holdout` left out, read by that model (pass it with
   --holdout-model). The expected calibration error (ECE) and the accuracy of the cells
   shown as 100% (>= 99.5%) before and after, on the held-out half; a PNG reliability plot;
   --write-calibration ships what was fitted (vision/models/calibration.json).

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
from types import SimpleNamespace

REPO = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != REPO / "bench"]
sys.path.insert(0, str(REPO))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from api.photo.correct import cell_name  # noqa: E402
from api.photo.evaluation import wicht_samples  # noqa: E402
from api.photo.pipeline import _ink, judge  # noqa: E402
from samples.synthetic import make_puzzle  # noqa: E402
from solver.fast import count_solutions_81  # noqa: E402

SHARED = REPO.parent / "shared"
WICHT = SHARED / "datasets" / "wichtounet" / "images"
ENGINES = ("classifier", "tesseract")
CONFUSABLE = [(1, 7), (3, 8), (5, 6), (6, 8), (8, 9), (4, 9)]
SWAPS = [(a, b) for a, b in CONFUSABLE for a, b in ((a, b), (b, a))]  # (printed, read)
BINS = np.array([0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 0.9995, 1.0 + 1e-9])


def old_correct(base: str):
    """`correct` as it was at commit `base`: today's behaviour to compare with."""
    text = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{base}:api/photo/correct.py"],
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
    """Whether the photo's puzzle lies in `fold` (api.train.cells' folds by puzzle), i.e. a
    cell model trained with `--fold fold` never saw it; every photo when fold is None."""
    if fold is None:
        return True
    from api.train.cells import fold_of

    return fold_of("w" + "".join(map(str, sample.givens)), folds) == fold


def read_photos(
    engine: str, limit: int, fold: int | None = None, folds: int = 4, keep=None
) -> list[dict]:
    """The photos' readings with the engine's raw probabilities (calibration is fitted and
    applied here); `keep(sample)` picks photos."""
    from vision import NoGridFound, read_photo

    out = []
    for sample in wicht_samples(WICHT)[:limit]:
        if sample.givens is None or solution_of(sample.givens) is None:
            continue
        if engine == "classifier" and not held_out(sample, fold, folds):
            continue
        if keep is not None and not keep(sample):
            continue
        try:
            r = read_photo(sample.path, engine=engine, calibrate=False)
        except NoGridFound:
            out.append(dict(name=sample.name, truth=sample.givens.reshape(81), reading=None))
            continue
        out.append(
            dict(
                name=sample.name,
                truth=sample.givens.reshape(81).astype(np.int8),
                givens=r.givens.reshape(81),
                raw=r.probabilities.reshape(81, 10).astype(np.float64),
                # the print reader's own reading: the pipeline's second opinion
                alone=None
                if r.print_probabilities is None
                else r.print_probabilities.reshape(81, 10).astype(np.float64),
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
    read digit's probability), and of empty cells read empty; and its confusion matrix
    (printed digit -> digit read), from which the simulated swaps are drawn."""

    def __init__(self, photos: list[dict]):
        right, wrong, empty = [], [], []
        self.confusion = np.zeros((10, 10))
        for p in photos:
            if not p["reading"]:
                continue
            probs, truth = p["probs"], p["truth"]
            top, read = probs.max(axis=1), probs.argmax(axis=1)
            right += list(top[(truth > 0) & (read == truth)])
            wrong += list(top[(read > 0) & (read != truth)])
            empty += list(top[(truth == 0) & (read == 0)])
            np.add.at(self.confusion, (truth, read), 1)
        self.right, self.empty = np.array(right), np.array(empty)
        self.wrong = np.array(wrong) if len(wrong) >= 5 else np.array([0.5, 0.6, 0.7, 0.8, 0.9])

    def swap_weight(self, printed: int, read: int) -> float:
        """How often the engine read `printed` as `read` (plus one, so that every
        confusable pair of the issue occurs)."""
        return 1.0 + self.confusion[printed, read]


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
    """One faulty reading of a generated puzzle: (givens, probs, ink, true solution, faults,
    symmetric). `faults` are (kind, what exactly) pairs; a third of the puzzles have no
    symmetric pattern of givens."""
    symmetric = bool(rng.random() >= 1 / 3)
    givens, solution = make_puzzle(rng, int(rng.integers(24, 33)), symmetric=symmetric)
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
                kind = "missed-no-ink"
            else:  # a faint mark the recogniser calls empty
                probs[c] = cell_row(rng, 0, float(rng.uniform(0.5, 0.99)), truth[c], 0.9)
                ink[c] = float(rng.uniform(0.3, 1.0))
                kind = "missed-faint"
            what = f"{cell_name(c)} {truth[c]} read empty at {probs[c, 0]:.3f}, ink {ink[c]:.2f}"
        elif kind == "swap":
            options = [(c, b) for c in digit_cells for a, b in SWAPS if read[c] == a]
            if not options:
                continue
            weight = np.array([pools.swap_weight(truth[c], b) for c, b in options])
            c, b = options[int(rng.choice(len(options), p=weight / weight.sum()))]
            probs[c] = cell_row(rng, b, float(rng.choice(pools.wrong)), truth[c], 0.9)
            read[c] = b
            what = f"{cell_name(c)} {truth[c]} read {b} at {probs[c, b]:.3f} ({truth[c]} at {probs[c, truth[c]]:.3f})"
        else:  # a speck or pencil mark read as a digit
            c = int(rng.choice(empty_cells))
            d = int(rng.integers(1, 10))
            probs[c] = cell_row(rng, d, float(rng.choice(pools.wrong)), 0, 0.7)
            read[c] = d
            ink[c] = 1.0
            what = f"{cell_name(c)} read {d} at {probs[c, d]:.3f} (empty {probs[c, 0]:.3f})"
        faults.append((str(kind), what))
    return read, probs, ink, solution, faults, symmetric


class Tallies:
    """Verdicts of the simulated readings, in all and broken down by the puzzle's pattern of
    givens and by each kind of fault the reading holds."""

    def __init__(self):
        self.all: list[str] = []
        self.by: dict[str, list[str]] = {}
        self.wrong: list[list[tuple[str, str]]] = []

    def add(self, verdict_: str, faults, symmetric: bool) -> None:
        self.all.append(verdict_)
        keys = ["symmetric" if symmetric else "asymmetric"]
        keys += sorted({f"with {kind}" for kind, _ in faults})
        for key in keys:
            self.by.setdefault(key, []).append(verdict_)
        if verdict_ == "WRONG":
            self.wrong.append(faults)

    def report(self, show: int) -> None:
        print("   by pattern of givens, and by each fault kind a reading holds:")
        order = ["symmetric", "asymmetric"] + sorted(k for k in self.by if k.startswith("with"))
        for key in order:
            if key in self.by:
                print(f"     {key:<22s} {tally(self.by[key])}")
        if self.wrong:
            blind = sum(any(k == "missed-no-ink" for k, _ in f) for f in self.wrong)
            print(
                f"   WRONG with a given missed where the reader saw no ink: {blind} of"
                f" {len(self.wrong)}"
            )
        for faults in self.wrong[:show]:
            print("   WRONG with faults: " + "; ".join(f"{k} {w}" for k, w in faults))


def calibrate(photos: list[dict], calibration) -> list[dict]:
    """The photos with `calibration` applied: probabilities, and the values they read."""
    out = []
    for p in photos:
        if p["reading"]:
            probs = calibration.apply(p["raw"])
            p = dict(p, probs=probs, givens=probs.argmax(axis=1).astype(np.int8))
            if p.get("alone") is not None:
                p["alone_probs"] = calibration.apply(p["alone"])
        out.append(p)
    return out


def opinions(p: dict):
    """The photo's readings in the order the pipeline judges them (`judge_reading`): what
    the cell model calls print, then, when that does not solve, the print reader's own
    reading (every digit taken for print)."""
    yield p["givens"], p["probs"]
    if p.get("alone_probs") is not None:
        yield p["alone_probs"].argmax(axis=1).astype(np.int8), p["alone_probs"]


def first_solved(judged) -> tuple[bool, np.ndarray | None]:
    """The first of the (solved, solution) verdicts that solved, else a refusal."""
    return next(((True, solution) for solved, solution in judged if solved), (False, None))


def puzzle_key(sample) -> str:
    """The 81 digits of a sample's givens: how `api.train.digits` groups photos."""
    return "".join(map(str, np.asarray(sample.givens).ravel()))


def fit_on(photos: list[dict], per_value: bool, split: str):
    from vision.calibration import fit

    read = [p for p in photos if p["reading"]]
    raw = np.concatenate([p["raw"] for p in read])
    truth = np.concatenate([p["truth"] for p in read])
    return fit(raw, truth, per_value=per_value, fitted_on=split)


def calibration_report(name: str, photos: list[dict]) -> list[tuple[float, float, int]]:
    """Prints the ECE and the accuracy of the cells shown as 100% (>= 99.5%); returns the
    reliability rows."""
    conf, right, _ = cell_outcomes(photos)
    e, rows = ece(conf, right)
    shown = conf >= 0.995
    share = f" ({right[shown].mean():.4%})" if shown.any() else ""
    print(
        f"  {name}: ECE {e:.4f} over {len(conf)} cells; cells shown as 100% (>= 99.5%):"
        f" {int(shown.sum())}, right {int(right[shown].sum())}{share}"
    )
    return rows


def fitted_calibration(engine: str, photos: list[dict], args) -> tuple[object, list[dict], str]:
    """The engine's calibration fitted on readings it did not train on, and those readings.

    Tesseract never trained on these photos: fitted on the even ones, checked on the odd.
    The classifier trained on every wichtounet photo, so its calibration is fitted on the
    photos that a model trained without them (`api.train.digits --holdout`, one puzzle
    in four left out) never saw, read by that model: its temperature alone (too few wrong
    cells to learn confusions from), half fitted and half checked.
    """
    read = [p for p in photos if p["reading"]]
    if engine == "tesseract":
        split = "tesseract: the even wichtounet photos (its own outputs); checked on the odd"
        calibration = fit_on(read[0::2], True, split)
        return calibration, calibrate(read[1::2], calibration), split
    if args.holdout_model is None:
        return None, [], ""
    from api.train.digits import held_out as digits_held_out

    os.environ["SUDOKU_LENS_DIGIT_MODEL"] = str(args.holdout_model)
    try:
        unseen = read_photos(
            engine,
            args.photos,
            keep=lambda s: digits_held_out(SimpleNamespace(puzzle=puzzle_key(s))),
        )
    finally:
        del os.environ["SUDOKU_LENS_DIGIT_MODEL"]
    unseen = [p for p in unseen if p["reading"]]
    wrong = sum(int((p["raw"].argmax(axis=1) != p["truth"]).sum()) for p in unseen[0::2])
    split = (
        "classifier: the wichtounet photos of the puzzles `api.train.digits --holdout`"
        f" leaves out ({len(unseen)} photos), read by that model; the even ones fitted"
        f" ({wrong} wrong cells of {81 * len(unseen[0::2])})"
    )
    calibration = fit_on(unseen[0::2], False, split)
    return calibration, calibrate(unseen[1::2], calibration), split


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--simulated", type=int, default=20_000)
    ap.add_argument("--photos", type=int, default=160)
    ap.add_argument("--base", default="c52a3ca", help="commit of today's correction")
    ap.add_argument(
        "--plot",
        type=Path,
        default=None,
        help="reliability plot (default docs/img/reliability.png, when both engines run)",
    )
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument(
        "--holdout-model",
        type=Path,
        default=None,
        help="digits.npz written by `python -m api.train.digits --holdout`: fit the"
        " classifier's calibration on the photos it left out",
    )
    ap.add_argument(
        "--write-calibration",
        action="store_true",
        help="write the fitted calibrations to vision/models/calibration.json",
    )
    ap.add_argument(
        "--held-out-fold",
        type=int,
        default=None,
        help="with $SUDOKU_LENS_CELL_MODEL set to the model trained by `api.train.cells"
        " --fold K`: read with the classifier only the photos of fold K (never trained on)",
    )
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--engine", choices=ENGINES, action="append", help="only this engine")
    ap.add_argument("--show-wrong", type=int, default=60, help="WRONG readings printed")
    args = ap.parse_args()
    if not WICHT.is_dir():
        sys.exit("../shared not present: bench/trust.py needs the wichtounet photos")
    from vision.calibration import Calibration, save
    from vision.recognise import calibrations

    print(f"load average {os.getloadavg()[0]:.2f} (2 cores, shared)")
    today = old_correct(args.base)
    curves, fitted = {}, {}
    if args.held_out_fold is not None:
        print(
            f"classifier: fold {args.held_out_fold} of {args.folds} only, cell model"
            f" {os.environ.get('SUDOKU_LENS_CELL_MODEL', '(shipped)')}"
        )
    for engine in args.engine or ENGINES:
        t = time.perf_counter()
        raw = read_photos(engine, args.photos, args.held_out_fold, args.folds)
        print(f"\n== {engine}: {len(raw)} photos read in {time.perf_counter() - t:.0f} s")

        shipped = calibrations().get(engine, Calibration())
        calibration, unseen, split = fitted_calibration(engine, raw, args)
        if calibration is not None:
            fitted[engine] = calibration
            print(f"calibration fitted on {split}")
            extra = ", per-digit bins and confusions" if calibration.right else ""
            if calibration.temperature == 1.0 and not calibration.right:
                extra = " (too few wrong cells to fit one: probabilities kept as given)"
            print(f"  temperature {calibration.temperature:.2f}{extra}")
            before = calibrate(unseen, Calibration())
            calibration_report("held out, uncalibrated", before)
            rows = calibration_report("held out, calibrated", unseen)
            curves[f"{engine} raw (held out)"] = ece(*cell_outcomes(before)[:2])[1]
            curves[f"{engine} calibrated (held out)"] = rows
        use = calibration if calibration is not None else shipped
        photos = calibrate(raw, use)
        calibration_report(
            "every photo, calibrated"
            + (" (in-sample for the shipped classifier)" if engine == "classifier" else ""),
            photos,
        )

        new, old = [], []
        for p in photos:
            truth_solution = solution_of(p["truth"])
            if not p["reading"]:
                new.append("refused")
                old.append("refused")
                continue
            new_ = first_solved(judge_new(g, probs, p["ink"]) for g, probs in opinions(p))
            old_ = first_solved(judge_old(today, g, probs) for g, probs in opinions(p))
            new.append(verdict(*new_, truth_solution))
            old.append(verdict(*old_, truth_solution))
        print(f"photos, today ({args.base}): {tally(old)}")
        print(f"photos, this correction:   {tally(new)}")
        if engine == "tesseract":
            odd = new[1::2]
            print(f"   of which the odd (held-out) photos: {tally(odd)}")
        for name, v_old, v_new in zip([p["name"] for p in photos], old, new, strict=True):
            if v_old != v_new:
                print(f"   {name}: {v_old} -> {v_new}")

        pools = Pools(photos)
        rng = np.random.default_rng(args.seed)
        tallies, faults_seen = Tallies(), {}
        t = time.perf_counter()
        for _ in range(args.simulated):
            read, probs, ink, solution, faults, symmetric = simulated(rng, pools)
            for kind, _ in faults:
                faults_seen[kind] = faults_seen.get(kind, 0) + 1
            if int((read > 0).sum()) < 17:
                tallies.add("refused", faults, symmetric)
                continue
            tallies.add(verdict(*judge_new(read, probs, ink), solution), faults, symmetric)
        secs = time.perf_counter() - t
        print(
            f"simulated readings ({engine} confidences): {tally(tallies.all)}"
            f"  [{secs:.0f} s, load {os.getloadavg()[0]:.2f}]"
        )
        print(
            "   faults injected: " + ", ".join(f"{k} {v}" for k, v in sorted(faults_seen.items()))
        )
        tallies.report(args.show_wrong)
    if args.write_calibration and fitted:
        save({**calibrations(), **fitted})
        print("\nwrote vision/models/calibration.json")
    if args.plot is None and not args.engine:
        args.plot = REPO / "docs" / "img" / "reliability.png"
    if curves and args.plot is not None:
        plot(curves, args.plot)
        print(f"\nreliability plot: {args.plot}")


if __name__ == "__main__":
    main()
