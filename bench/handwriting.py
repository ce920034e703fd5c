"""Hand-filled photos: print, pen and pencil told apart, entries checked, on held-out photos.

    python bench/handwriting.py --split 0  # fold 0's photos, read by fold 0's model (0,1: two)
    python bench/handwriting.py            # every fold (trains the fold models if missing)
    python bench/handwriting.py --shipped  # the shipped model: IN-SAMPLE, said so
    python bench/handwriting.py --write-calibration   # ship the hand model's misread rates

Every figure is measured with a model that did not train on the photo: the labelled photos
are split into folds by puzzle (`api.train.cells.fold_of`), fold k's model is trained on
the other folds (`python -m api.train.cells --fold k`), and each photo is read by its own
fold's model.

The check's decision (`api.photo.entries.judge_entries`) weighs a person's slip against the
reader's misread, and the misread rates per kind of ink (`vision.calibration.HandRates`)
are fitted on real hand crops held out by photo AND by writer: the entries of Kubiesa's
photos (one hand, pen and pencil) are judged with rates fitted on Wicht's mixed set (pasted
hands of other writers) and the other way round. `--write-calibration` fits them on both
and writes vision/models/calibration.json.

What it prints, on the real hand-filled photos of ../shared (kubiesa, wichtounet/mixed),
each issue 37 target beside its figure:
- right entries called wrong (of entries, and photos with any), entries called unclear;
- wrong entries called right and called wrong: simulated (each real right entry, as if the
  solution were each other digit: `simulated`) and real (a real hand's crop of a wrong
  digit, as its own photo read it, pasted into a right entry's cell of another photo,
  `pasted`), and true doubles (a pasted digit its unit already shows) said as doubles;
  the pasted crops the reader does not take for an entry at all (print, empty,
  candidates: the check says nothing of them) counted apart;
- photos solved right, WRONG solutions, every digit cell (print and hand) read right;
- `correct` + `recognise` p50 against today's `correct` (--base) on the same readings;
and beside each figure today's decision (`--base`) on the same readings. With `--crops
PNG` the crops of the wrong entries called right are written out, for a look.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import api.photo.pipeline as pipeline  # noqa: E402
import api.train.cells as tc  # noqa: E402
from api.photo.correct import cell_name  # noqa: E402
from api.photo.entries import (  # noqa: E402
    call,
    entry_posterior,
    ink_kinds,
    seen_digits,
)
from api.scale.threads import limit_threads  # noqa: E402
from api.train import holdout  # noqa: E402
from vision.calibration import HandRates, fit_ink, save_hand  # noqa: E402
from vision.kinds import MODEL, hand_model_path, second_hand_models  # noqa: E402

SHARED = REPO.parent / "shared"
FOLD_DIR = tc.CACHE / "folds"
ERRATA = REPO / "bench" / "errata.csv"  # labels of ../shared that their photos contradict
SETS = ("kubiesa", "wichtounet/mixed")
CASES: list[str] = []  # the wrong entries called right, said after the table
# P(wrong) of every right entry as the check weighs it, and of each simulated wrong entry
# called right: what catching those by `RIGHT_MISS` alone would cost (`print_doubt`)
DOUBT: dict[str, list[float]] = {"right": [], "cases": []}
# the crops behind those cases, for a look (`--crops`): (photo, cell, caption)
LOOKS: list[tuple[tc.LabelledPhoto, int, str]] = []
MODEL_OF: dict[Path, Path] = {}  # the model each photo was read by (`read_all`)
# crops an ink needs to be fitted on its own (`fit_rates`). It was 200, and every held-out
# fit had fewer pencil crops (Kubiesa 127, Wicht's mixed 97), so the check was measured with
# pencil's rates pooled with pen's; the shipped fit over both sets was the first with enough
# (224, 12 misread), and its floor (6e-4: one or two crops read surely wrong decide it) left
# a pencil entry's odds of a slip at most 4 to 1 under SLIP, so that no pencil mistake could
# ever be called wrong. A floor is a tail: 224 crops cannot place it.
ALONE = 500


def fold_model(k: int | str) -> Path:
    """Fold k's cell model (held out by puzzle), or the model of a named fold
    (`api.train.holdout`: "week9", "phone-a", "uneven", "aside", ...)."""
    return FOLD_DIR / (f"fold{k}.onnx" if isinstance(k, int) else f"{k}.onnx")


def ensure_named_folds(names: list[str], by: str, retrain: bool, seed: int, seconds: bool) -> None:
    """The models of the named folds (`api.train.holdout`) made by the shipped recipe,
    each holding out its fold's photos (`--hold-out by:name`; "aside" the split kept aside)."""
    FOLD_DIR.mkdir(parents=True, exist_ok=True)
    for name in names:
        spec = "aside" if name == "aside" else f"{by}:{name}"
        common = ["--hold-out", spec, "--out", str(fold_model(name)), "--seed", str(seed)]
        if retrain or not fold_model(name).is_file():
            print(f"training {name} (held out) ...", file=sys.stderr)
            tc.main([*common, "--cell-only"])
            tc.main([*common, "--hand-only", "--variants", "2"])
        if seconds and (
            retrain or len(second_hand_models(fold_model(name))) < len(tc.SECOND_SEEDS)
        ):
            print(f"training {name}'s second-look hand models ...", file=sys.stderr)
            tc.main([*common, "--seconds", "--variants", "2"])


def ensure_folds(
    folds: int, retrain: bool, seed: int, only: list[int] | None = None, seconds: bool = True
) -> None:
    FOLD_DIR.mkdir(parents=True, exist_ok=True)
    for k in range(folds) if only is None else only:
        if retrain or not fold_model(k).is_file():
            print(f"training fold {k} of {folds} (held out) ...", file=sys.stderr)
            common = ["--fold", str(k), "--folds", str(folds), "--out", str(fold_model(k)),
                      "--seed", str(seed)]  # fmt: skip
            tc.main([*common, "--cell-only"])  # the same steps as `make train`
            tc.main([*common, "--hand-only", "--variants", "2"])
        if seconds and (retrain or len(second_hand_models(fold_model(k))) < len(tc.SECOND_SEEDS)):
            print(f"training fold {k}'s second-look hand models ...", file=sys.stderr)
            tc.main(["--fold", str(k), "--folds", str(folds), "--out", str(fold_model(k)),
                     "--seconds", "--variants", "2"])  # fmt: skip


def truth_of(photo: tc.LabelledPhoto, errata: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(digit, kind) of each cell, with the `errata` for this photo's cells applied."""
    c = photo.classes
    digit = np.where(c == tc.CANDIDATES, 10, np.where(c >= 10, c - 9, c))
    kind = np.where(c == 0, ".", np.where(c == tc.CANDIDATES, "c", np.where(c >= 10, "w", "p")))
    for cell, (labelled, shown) in (errata or {}).get(photo.path.name, {}).items():
        if digit[cell] != labelled:
            raise ValueError(f"{ERRATA.name}: {photo.path.name} {cell_name(cell)} is labelled"
                             f" {digit[cell]}, not {labelled}")  # fmt: skip
        digit[cell] = shown
    return digit, kind


def read_errata(path: Path) -> dict[str, dict[int, tuple[int, int]]]:
    """{photo name: {cell: (labelled, shown)}} from `bench/errata.csv`: labels the photo
    itself shows to be wrong. Each is checked against the label it corrects (`truth_of`),
    so a changed data set cannot be corrected by a stale line.

    >>> read_errata(ERRATA)["image1036.jpg"]
    {50: (4, 7)}
    """
    import csv

    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    errata: dict[str, dict[int, tuple[int, int]]] = {}
    for row in csv.DictReader(lines):
        cell = (int(row["cell"][1]) - 1) * 9 + int(row["cell"][3]) - 1
        errata.setdefault(row["photo"], {})[cell] = (int(row["labelled"]), int(row["shown"]))
    return errata


def unique_solution_of(givens: np.ndarray) -> np.ndarray | None:
    from solver import parse, solve

    result = solve(parse("".join(map(str, givens))))
    if result.status != "unique":
        return None
    return np.asarray(result.solutions[0]).reshape(81).astype(np.int8)


@dataclasses.dataclass
class Read:
    """One labelled photo as its fold's model read it (the image itself dropped)."""

    name: str
    photo: tc.LabelledPhoto
    reading: object
    digit: np.ndarray  # truth: 0 empty, 1-9, 10 candidates
    kind: np.ndarray  # truth: . p w c
    solution: np.ndarray | None  # of the true printed digits
    fold: str = ""  # the fold whose model read it
    model: str = ""  # that model (its hand models cut the doubted entries again)


def read_all(
    sets, folds: int, shipped: bool, cached: bool = False, errata: dict | None = None, fold_of=None
) -> list[Read]:
    """Every photo read by its fold's models (or the shipped ones). With `cached`, a
    photo's reading is kept under FOLD_DIR/reads/ keyed by the photo and its models'
    times, so that folds read while others still train are not read again: only for
    runs of the same reader code (the key does not see the code). Read as a check reads
    them (`gate=False`: a check always asks the cell model; the gate's own figures are
    `bench/gate.py`'s)."""
    import hashlib
    import pickle

    from vision.read import read_photo

    out = []
    for name, photos in sets.items():
        for photo in photos:
            k = tc.fold_of(photo.group, folds) if fold_of is None else fold_of(photo)
            model = MODEL if shipped else fold_model(k)
            MODEL_OF[photo.path] = model
            os.environ["SUDOKU_LENS_CELL_MODEL"] = str(model)
            digit, kind = truth_of(photo, errata)
            stamp = f"{photo.path}|{model.stat().st_mtime_ns}|"
            for hand in [hand_model_path(model), *second_hand_models(model)]:
                stamp += f"|{hand.stat().st_mtime_ns}"
            key = FOLD_DIR / "reads" / f"{hashlib.sha1(stamp.encode()).hexdigest()[:16]}.pkl"
            if cached and key.is_file():
                reading = pickle.loads(key.read_bytes())
            else:
                try:
                    reading = read_photo(str(photo.path), gate=False)
                except Exception as error:  # counted, never stops the run
                    print(f"  {photo.path.name}: {error}", file=sys.stderr)
                    reading = None
                if reading is not None:  # the warped grid kept: a second cut looks at it
                    reading = dataclasses.replace(reading, image=None)
                if cached:
                    key.parent.mkdir(parents=True, exist_ok=True)
                    key.write_bytes(pickle.dumps(reading))
            solution = unique_solution_of(np.where(kind == "p", digit, 0))
            out.append(Read(name, photo, reading, digit, kind, solution, str(k), str(model)))
    os.environ.pop("SUDOKU_LENS_CELL_MODEL", None)
    return out


def hand_crops(reads: list[Read]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every truly written cell's hand reading (N, 9), its true digit and its ink."""
    digits, truth, inks = [], [], []
    for r in reads:
        if r.reading is None or r.reading.kinds is None:
            continue
        kinds = np.asarray(r.reading.kinds, np.float64)
        written = (r.kind == "w") & (kinds[:, 10:19].sum(axis=1) > 0.01)
        q = kinds[written, 10:19]
        digits.append(q / q.sum(axis=1, keepdims=True))
        truth.append(r.digit[written])
        ink = ink_kinds(r.reading.cells.contrast, r.reading.givens.reshape(81))
        inks.append(ink[written])
    return np.concatenate(digits), np.concatenate(truth), np.concatenate(inks)


def fit_rates(reads: list[Read], fitted_on: str) -> HandRates:
    """Misread rates per kind of ink from these photos' real hand crops (an ink with
    fewer than `ALONE` crops is fitted with all of them: too few to say more)."""
    digits, truth, inks = hand_crops(reads)
    rates = {}
    for ink in ("pen", "pencil"):
        mine = (inks == ink) if (inks == ink).sum() >= ALONE else np.ones(len(inks), bool)
        rates[ink] = fit_ink(digits[mine], truth[mine])
    return HandRates(rates, fitted_on)


def shipped_rates() -> HandRates:
    """The shipped misread rates, for a set judged where the other set has no photos (the
    folds by week: Kubiesa's pages alone). They were fitted on held-out readings of both
    sets' crops (`--write-calibration`), these photos' among them: said so."""
    from vision.calibration import load_hand, rates_path

    shipped = load_hand(rates_path())
    return HandRates(
        shipped.inks, f"the shipped rates ({shipped.fitted_on}; these photos' crops among them)"
    )


def rates_file(rates: HandRates) -> Path:
    path = Path(tempfile.mkdtemp()) / "rates.json"
    save_hand(rates, path)
    return path


class TimedCorrect:
    """`api.photo.pipeline.correct` timed beside today's (`--base`) on the same arguments."""

    def __init__(self, base: str):
        self.today = old_correct(base)
        self.now = pipeline.correct
        self.ms: dict[str, list[float]] = {"now": [], "today": []}

    def __call__(self, *args, **kwargs):
        order = ("today", "now") if len(self.ms["now"]) % 2 else ("now", "today")
        for which in order:  # each first every other call
            t = time.perf_counter()
            fix = (self.today if which == "today" else self.now)(*args, **kwargs)
            self.ms[which].append((time.perf_counter() - t) * 1000)
            if which == "now":
                mine = fix
        return mine


def old_module(base: str, name: str):
    """The module api/`name`.py as it was at commit `base` (today's code, to compare)."""
    import subprocess

    text = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{base}:api/{name}.py"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    # its imports as the package now stands (`api` was split into rooms since)
    text = text.replace("from api.correct import", "from api.photo.correct import")
    path = Path(tempfile.mkdtemp()) / f"old_{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"old_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"old_{name}"] = module
    spec.loader.exec_module(module)
    return module


def old_correct(base: str):
    return old_module(base, "correct").correct


class Today:
    """Today's judging of the entries (`--base`): wrong where read as another digit than
    the solution's, unless unclear by its two doubt rules."""

    def __init__(self, base: str):
        self.entries = old_module(base, "entries")

    def verdicts(self, reading, result) -> tuple[set[int], set[int], np.ndarray]:
        """(called wrong, unclear) cells of today's decision on the same reading, and the
        entries as it read them."""
        if not result.solved or reading.kinds is None:
            return set(), set(), np.zeros(81, np.int8)
        values = np.array([int(c) for c in result.givens], np.int8)
        solution = np.array([int(c) for c in result.solution], np.int8)
        cells = reading.cells
        blobs, pen = cells.ink, cells.blobs & ~cells.ink
        marks = self.entries.hand_marks(reading.kinds, values, blobs, pen=pen)
        unclear = set(self.entries.unclear_entries(marks, solution))
        wrong = {m.cell for m in self.entries.find_mistakes(marks.entries, solution)}
        return wrong - unclear, unclear, marks.entries

    def call(self, digits: np.ndarray, read: int, right: int) -> str:
        """Today's verdict on one entry read as `read` where `right` belongs."""
        if read == right:
            return "unclear" if self.entries.doubted_right(digits, read) else "right"
        return "unclear" if digits[right - 1] >= 0.05 * digits[read - 1] else "wrong"


def judge(r: Read, rates: Path, reading=None):
    """The check's verdict on a read photo (or on `reading`, its reading with pasted
    cells), with the misread rates at `rates`."""
    os.environ["SUDOKU_LENS_HAND_RATES"] = str(rates)
    reading = r.reading if reading is None else reading
    return pipeline.judge_reading(reading, dict(r.reading.timings), mode="check")


def score(r: Read, result, stats: Counter, today: Today) -> None:
    """The photo's counts: solved, digit cells, entries right called wrong or unclear
    (and by today's decision, `today_...`)."""
    stats["photos"] += 1
    reading_of_cells(r, result, stats)
    if r.solution is None:
        stats["no_truth_solution"] += 1
        return
    if not result.solved:
        stats[f"status {result.status}"] += 1
        return
    if result.solution != "".join(map(str, r.solution)):
        stats["WRONG"] += 1
        print(f"  WRONG solution: {r.photo.path}", file=sys.stderr)
        return
    stats["solved_right"] += 1
    givens = np.array([int(c) for c in result.givens])
    entries = result.marks.entries if result.marks is not None else np.zeros(81, int)
    digit = np.where(givens > 0, givens, entries)
    cells = (r.digit >= 1) & (r.digit <= 9)
    stats["digit_cells"] += int(cells.sum())
    stats["digit_cells_right"] += int((digit[cells] == r.digit[cells]).sum())
    right = (r.kind == "w") & (r.digit == r.solution)
    flagged = np.zeros(81, bool)
    flagged[[m.cell for m in result.mistakes]] = True
    unclear = np.zeros(81, bool)
    unclear[[m.cell for m in result.unclear]] = True
    stats["entries"] += int(right.sum())
    stats["right_called_wrong"] += int((right & flagged).sum())
    stats["photos_with_false_wrong"] += int((right & flagged).any())
    stats["right_unclear"] += int((right & unclear).sum())
    wrong_then, unclear_then, entries_then = today.verdicts(r.reading, result)
    digit_then = np.where(givens > 0, givens, entries_then)
    stats["today_digit_cells_right"] += int((digit_then[cells] == r.digit[cells]).sum())
    was_wrong = right & np.isin(np.arange(81), list(wrong_then))
    stats["today_right_called_wrong"] += int(was_wrong.sum())
    stats["today_photos_with_false_wrong"] += int(was_wrong.any())
    stats["today_right_unclear"] += int((right & np.isin(np.arange(81), list(unclear_then))).sum())


def reading_of_cells(r: Read, result, stats: Counter) -> None:
    """The reader's rows of the bench before issue 37: every cell's digit (or candidates)
    and, in digit cells, its kind (printed or written), and photos with every cell right."""
    if result.givens is None or result.marks is None:
        return
    givens = np.array([int(c) for c in result.givens])
    kinds = np.array(list(result.marks.kinds))
    digit = np.where(kinds == "c", 10, np.where(givens > 0, givens, result.marks.entries))
    cells = (r.digit >= 1) & (r.digit <= 9)
    stats["cells"] += 81
    stats["cells_right"] += int((digit == r.digit).sum())
    stats["kind_cells"] += int(cells.sum())
    stats["kind_right"] += int((kinds[cells] == r.kind[cells]).sum())
    stats["all_right"] += int((digit == r.digit).all() and (kinds == r.kind).all())
    noted = r.kind == "c"
    stats["candidate_cells"] += int(noted.sum())
    stats["candidates_as_entries"] += int((noted & (kinds == "w")).sum())
    for cell in np.flatnonzero(noted & (kinds == "w")).tolist():
        LOOKS.append((r.photo, cell, f"candidates read {result.marks.entries[cell]}"))
        CASES.append(f"  candidates taken for an entry: {r.photo.path.name} {cell_name(cell)}"
                     f" read as {result.marks.entries[cell]}")  # fmt: skip


def simulated(r: Read, result, rates: HandRates, stats: Counter, today: Today) -> None:
    """Each right entry read as an entry, as if the solution were each other digit in
    turn: the person then wrote a wrong digit, which the check must not call right. The
    digits seen around it are the paper's, less the supposed solution's digit (a solution
    never repeats a digit in a unit)."""
    marks = result.marks
    if marks is None or marks.digits is None:
        return
    values = np.array([int(c) for c in result.givens])
    seen = seen_digits(values, marks.entries)
    right = (r.kind == "w") & (r.digit == r.solution) & (marks.entries > 0)
    cells = np.flatnonzero(right)
    if not len(cells):
        return
    inks = marks.inks if marks.inks is not None else np.full(81, "pen")
    likelihood = rates.likelihoods(marks.digits[cells], inks[cells])
    own = rates.likelihoods(marks.digits[cells], inks[cells], sharpen=False)
    again = second_cut(r.reading, cells.tolist())  # what `doubt_the_reader` would look at
    for i, cell in enumerate(cells):
        real = entry_posterior(own[i], int(r.digit[cell]), seen[cell])
        DOUBT["right"].append(1.0 - real[r.digit[cell] - 1])
        for other in range(1, 10):
            if other == r.digit[cell]:
                continue
            around = seen[cell].copy()
            around[other] = False
            post = entry_posterior(likelihood[i], other, around)
            mine = entry_posterior(own[i], other, around)
            said = call(post, other, mine)
            read = int(np.argmax(marks.digits[cell])) + 1
            if said == "wrong" and again[i].sum() > 0 and again[i][read - 1] < 0.5:
                said = "unclear"  # the second cut reads another digit (no page doubt here)
            stats["sim_wrong"] += 1
            stats[f"sim_wrong_{said}"] += 1
            if said == "right":  # the cases the target counts: printed for a look
                DOUBT["cases"].append(1.0 - mine[other - 1])
                top = ", ".join(f"{d + 1}:{marks.digits[cell, d]:.4f}" for d in
                                np.argsort(-marks.digits[cell])[:3])  # fmt: skip
                LOOKS.append((r.photo, int(cell), f"wrote {r.digit[cell]} read {top[0]}"))
                CASES.append(f"  simulated wrong called right: {r.photo.path.name} "
                             f"{cell_name(int(cell))} wrote {r.digit[cell]}, read {top} "
                             f"({inks[cell]}), solution supposed {other}, "
                             f"P(wrong) {1 - mine[other - 1]:.2e}")  # fmt: skip
            read = int(np.argmax(marks.digits[cell])) + 1
            stats[f"today_sim_wrong_{today.call(marks.digits[cell], read, other)}"] += 1


def second_cut(reading, cells: list[int]) -> np.ndarray:
    """(len(cells), 9) the digits of `cells` cut again and read by the hand models of the
    model that read the photo, as the check's doubt does (`vision.reread`)."""
    from vision.kinds import hand_model_path, second_hand_models
    from vision.reread import reread_entries

    if reading.warped is None:
        return np.zeros((len(cells), 9), np.float32)
    models = [hand_model_path(), *second_hand_models()]
    boxes = np.asarray(reading.cell_boxes).reshape(81, 4)
    return reread_entries(reading.warped, boxes, cells, models)


def donors_of(reads: list[Read]) -> list[tuple[Read, int]]:
    """Every truly written cell of every read photo: a real hand's crop to paste."""
    return [
        (r, int(c))
        for r in reads
        if r.reading is not None and r.reading.kinds is not None
        for c in np.flatnonzero(r.kind == "w")
    ]


def pasted(
    r: Read, result, donors, rates: Path, rng, stats: Counter, double: bool, today: Today
) -> None:
    """Real wrong entries: into up to 4 right entries of this photo (no two sharing a
    unit) another photo's real hand crop of a wrong digit is pasted, as its own photo read
    it (`transplant`), and the photo judged again. The pasted digit is one the cell's units
    do not show (a slip), or with `double` one they do (the person wrote a digit twice:
    said as a double). A pasted crop the reader does not take for an entry (read as print,
    as empty, as candidates) is counted apart: the check says nothing of it."""
    from api.photo.correct import PEERS

    values = np.array([int(c) for c in result.givens])
    seen = seen_digits(values, result.marks.entries)
    reading = r.reading
    chosen: list[tuple[int, int, Read, int]] = []
    taken: set[int] = set()
    for cell in rng.permutation(np.flatnonzero((r.kind == "w") & (r.digit == r.solution))):
        if cell in taken or len(chosen) == 4:
            continue
        fits = [
            (d, c)
            for d, c in donors
            if d.photo.group != r.photo.group
            and d.digit[c] != r.solution[cell]
            and seen[cell, d.digit[c]] == double
        ]
        if not fits:
            continue
        donor, dc = fits[rng.integers(len(fits))]
        reading = transplant(reading, int(cell), donor.reading, dc)
        chosen.append((int(cell), int(donor.digit[dc]), donor, int(dc)))
        taken |= {int(cell), *PEERS[cell].tolist()}
    if not chosen:
        return
    again = judge(r, rates, reading)
    key = "double" if double else "pasted"
    wrong_then, unclear_then, entries_then = today.verdicts(reading, again)
    for cell, _digit, donor, dc in chosen:
        stats[f"{key}"] += 1
        if again.solved:
            then = "wrong" if cell in wrong_then else "unclear" if cell in unclear_then else "right"
            then = "unseen" if then == "right" and entries_then[cell] == 0 else then
            stats[f"today_{key}_{then}"] += 1
        if not again.solved:
            stats[f"{key}_unsolved"] += 1
            CASES.append(f"  {key} wrong entry left the photo unsolved ({again.status}):"
                         f" {r.photo.path.name} {cell_name(cell)} pasted {_digit} (the crop"
                         f" of {donor.photo.path.name} {cell_name(dc)})")  # fmt: skip
            continue
        wrong = {m.cell: m for m in again.mistakes}
        unclear = {m.cell: m for m in again.unclear}
        if cell in wrong:
            stats[f"{key}_wrong"] += 1
            stats[f"{key}_said_double"] += int(wrong[cell].reason == "clash")
        elif cell in unclear:
            stats[f"{key}_unclear"] += 1
            m = unclear[cell]
            CASES.append(f"  {key} wrong entry unclear: {r.photo.path.name} {cell_name(cell)}"
                         f" pasted {_digit} ({again.marks.inks[cell]}, the crop of"
                         f" {donor.photo.path.name} {cell_name(dc)}), solution"
                         f" {r.solution[cell]}, odds of a slip {m.odds:.1f} to 1,"
                         f" named {'/'.join(map(str, m.alternatives))}")  # fmt: skip
        elif again.marks.kinds[cell] != "w":
            stats[f"{key}_unseen"] += 1
            CASES.append(f"  {key} wrong entry not seen (read as {again.marks.kinds[cell]}): "
                         f"{r.photo.path.name} {cell_name(cell)} pasted {_digit} (the crop of "
                         f"{donor.photo.path.name} {cell_name(dc)})")  # fmt: skip
        else:
            stats[f"{key}_right"] += 1
            LOOKS.append((donor.photo, dc, f"{key} {_digit} as {r.solution[cell]}"))
            CASES.append(f"  {key} wrong entry called right: {r.photo.path.name} "
                         f"{cell_name(cell)} pasted {_digit} (the crop of "
                         f"{donor.photo.path.name} {cell_name(dc)}), solution "
                         f"{r.solution[cell]}, read {again.marks.entries[cell]}")  # fmt: skip


def transplant(reading, cell: int, donor, dc: int):
    """`reading` with its cell `cell` read as the donor's reading read its cell `dc`: every
    per-cell figure the check looks at (the print reader's digits and probabilities, the
    cell model's kinds, whether a blob was cut in grey or in colour, and its contrast,
    scaled by the two photos' print, which says pen or pencil)."""

    def put(mine, theirs):
        out = np.array(mine, copy=True).reshape(81, -1)
        out[cell] = np.asarray(theirs).reshape(81, -1)[dc]
        return out.reshape(np.shape(mine))

    warped = reading.warped
    if warped is not None and donor.warped is not None:  # the donor's ink, for a second cut
        warped = warped.copy()
        x0, y0, x1, y1 = (int(v) for v in np.asarray(reading.cell_boxes).reshape(81, 4)[cell])
        u0, v0, u1, v1 = (int(v) for v in np.asarray(donor.cell_boxes).reshape(81, 4)[dc])
        crop = donor.warped[v0:v1, u0:u1]
        if crop.ndim != warped.ndim:
            crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR if crop.ndim == 2 else cv2.COLOR_BGR2GRAY)
        warped[y0:y1, x0:x1] = cv2.resize(crop, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    cells, theirs = reading.cells, donor.cells
    printed = reading.givens.reshape(81) > 0
    their_print = donor.givens.reshape(81) > 0
    mine = np.median(cells.contrast[printed]) if printed.any() else 1.0
    base = np.median(theirs.contrast[their_print]) if their_print.any() else 0.0
    contrast = np.array(cells.contrast, np.float32)
    contrast[cell] = theirs.contrast[dc] * (mine / base if base > 0 else 1.0)
    cells = dataclasses.replace(
        cells,
        contrast=contrast,
        ink=put(cells.ink, theirs.ink),
        marked=None if cells.marked is None else put(cells.marked, theirs.blobs),
    )
    return dataclasses.replace(
        reading,
        givens=put(reading.givens, donor.givens),
        probabilities=put(reading.probabilities, donor.probabilities),
        print_probabilities=None
        if reading.print_probabilities is None or donor.print_probabilities is None
        else put(reading.print_probabilities, donor.print_probabilities),
        kinds=put(reading.kinds, donor.kinds),
        cells=cells,
        warped=warped,
    )


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.2f}% ({a}/{b})" if b else "n/a"


def timing(paths: list[Path], model: Path, runs: int = 1) -> tuple[float, float]:
    """p50 over the photos of each one's mean ms of `runs` reads, without and with the cell
    model, photo by photo side by side (after one untimed read each, so caches are warm)."""
    from vision.read import read_photo

    without, with_model = [], []
    for path in paths:
        data = path.read_bytes()
        for chosen, bucket in (
            (str(REPO / "no-such-model.onnx"), without),
            (str(model), with_model),
        ):
            os.environ["SUDOKU_LENS_CELL_MODEL"] = chosen
            read_photo(data, gate=False)
            t = time.perf_counter()
            for _ in range(runs):
                read_photo(data, gate=False)
            bucket.append((time.perf_counter() - t) * 1000 / runs)
    os.environ.pop("SUDOKU_LENS_CELL_MODEL", None)
    return statistics.median(without), statistics.median(with_model)


def main(argv: list[str] | None = None) -> int:
    global FOLD_DIR
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--retrain", action="store_true")
    parser.add_argument(
        "--fold-dir", type=Path, default=FOLD_DIR,
        help="where the fold models (foldK.onnx, foldK.hand.onnx, foldK.hand2.onnx, ...)"
        " and cached readings are",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json-out", type=Path)
    parser.add_argument(
        "--split", type=lambda text: [int(k) for k in text.split(",")], default=None,
        help="fixed splits: score only fold K's photos (K or K,L,...; train only theirs)",
    )  # fmt: skip
    parser.add_argument(
        "--shipped", action="store_true",
        help="read every photo with the shipped model (IN-SAMPLE: it trained on them)",
    )  # fmt: skip
    parser.add_argument(
        "--kinds", type=Path, default=tc.CACHE / "kubiesa-kinds.json",
        help="Kubiesa's derived kinds (written by api.train.cells)",
    )  # fmt: skip
    parser.add_argument(
        "--cached-reads", action="store_true",
        help="keep each photo's reading under the folds' cache (same reader code only)",
    )  # fmt: skip
    parser.add_argument("--note", default="", help="said in the header (how the models were made)")
    parser.add_argument("--base", default="4b6ad2e", help="commit of today's `correct`")
    parser.add_argument(
        "--write-calibration", action="store_true",
        help="fit the misread rates on both sets' held-out crops and ship them",
    )  # fmt: skip
    parser.add_argument(
        "--reader-timing", action="store_true",
        help="also time the reader with and without the cell model (3 reads of 60 photos)",
    )  # fmt: skip
    parser.add_argument(
        "--model", type=Path, default=MODEL, help="the model timed (--reader-timing)"
    )
    parser.add_argument(
        "--crops", type=Path, default=None,
        help="write the crops of the wrong entries called right to this PNG, for a look",
    )  # fmt: skip
    parser.add_argument(
        "--no-seconds", action="store_true",
        help="do not train missing second-look hand models (a fold dir without them is read"
        " by its hand model alone, as before stop 45)",
    )  # fmt: skip
    parser.add_argument(
        "--as-labelled", action="store_true",
        help=f"take ../shared's labels as they are, without {ERRATA.name}'s corrections",
    )  # fmt: skip
    parser.add_argument(
        "--by", choices=("puzzle", *holdout.BY), default="puzzle",
        help="the folds: by puzzle (foldK models), or whole weeks, phones or lighting"
        " conditions held out (api.train.holdout; the split kept aside never scored)",
    )  # fmt: skip
    parser.add_argument(
        "--aside", action="store_true",
        help="score the split kept aside, by its own model (once, at the end of a piece of work)",
    )  # fmt: skip
    parser.add_argument(
        "--only", type=lambda text: text.split(","), default=None,
        help="with --by: score only these folds (NAME or NAME,NAME; train only theirs)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    FOLD_DIR = args.fold_dir
    if not (SHARED / "datasets").is_dir():
        print(
            "bench/handwriting.py needs ../shared (the labelled photos): not present",
            file=sys.stderr,
        )
        return 2
    limit_threads(opencv=1)
    named = args.aside or args.by != "puzzle"
    if named and not args.shipped:
        names = ["aside"] if args.aside else args.only or list(holdout.folds_of(args.by))
        ensure_named_folds(names, args.by, args.retrain, args.seed, not args.no_seconds)
    elif not args.shipped:
        ensure_folds(args.folds, args.retrain, args.seed, args.split, not args.no_seconds)
    started = time.time()
    wicht = tc.wichtounet_photos(SHARED)
    # Kubiesa's printed-vs-written truth, derived once by the training script (its
    # docstring says how), from a model that never saw a Kubiesa photo
    derived = json.loads(args.kinds.read_text())
    sets = {
        "kubiesa": tc.kubiesa_photos(tc.kubiesa_labels(SHARED), derived),
        "wichtounet/mixed": [p for p in wicht if p.source == "mixed"],
    }
    chooser = None
    if named:
        chooser, sets = named_folds(sets, args.by, args.aside, args.only)
    if args.split is not None:
        sets = {
            k: [p for p in v if tc.fold_of(p.group, args.folds) in args.split]
            for k, v in sets.items()
        }
    errata = {} if args.as_labelled else read_errata(ERRATA)
    reads = read_all(sets, args.folds, args.shipped, args.cached_reads, errata, chooser)
    by_set = {name: [r for r in reads if r.name == name] for name in SETS}
    other = dict(zip(SETS, SETS[::-1], strict=True))
    rates = {
        name: fit_rates(by_set[other[name]], f"{other[name]} ({held_out(args)})")
        if by_set[other[name]]
        else shipped_rates()  # folds by week hold Kubiesa's pages alone
        for name in SETS
    }
    files = {name: rates_file(rates[name]) for name in SETS}
    timed = TimedCorrect(args.base)
    today = Today(args.base)
    pipeline.correct = timed
    by_fold: dict[tuple[str, str], Counter] = {}
    recognise = []
    rng = np.random.default_rng(args.seed)
    donors = {name: donors_of(by_set[name]) for name in SETS}
    for r in reads:
        s = by_fold.setdefault((r.fold, r.name), Counter())
        os.environ["SUDOKU_LENS_CELL_MODEL"] = r.model  # the second cut: the fold's hands
        if r.reading is None:
            s["photos"] += 1
            s["errors"] += 1
            continue
        result = judge(r, files[r.name])
        recognise.append(r.reading.timings.get("recognise", 0.0))
        score(r, result, s, today)
        if (
            result.solved
            and r.solution is not None
            and result.solution == "".join(map(str, r.solution))
        ):
            simulated(r, result, rates[r.name], s, today)
            for double in (False, True):
                pasted(r, result, donors[r.name], files[r.name], rng, s, double, today)
    pipeline.correct = timed.now
    os.environ.pop("SUDOKU_LENS_HAND_RATES", None)
    os.environ.pop("SUDOKU_LENS_CELL_MODEL", None)
    stats = {
        name: sum((c for (_, n), c in by_fold.items() if n == name), Counter()) for name in SETS
    }
    print_table(stats, rates, timed, recognise, args, errata)
    if named or args.split is None:
        print_folds(by_fold)
    if args.write_calibration:
        both = fit_rates(reads, f"kubiesa and wichtounet/mixed ({held_out(args)})")
        save_hand(both)
        print(f"wrote the misread rates: {json.dumps(dataclasses.asdict(both))}")
    if args.reader_timing:
        small = sorted((SHARED / "datasets" / "wichtounet" / "images").glob("*.jpg"))[:40]
        large = sorted((SHARED / "datasets" / "kubiesa" / "images").glob("*.jpg"))[:20]
        for label, paths in (("640x480 (40 photos)", small), ("12-16 MP (20 photos)", large)):
            before, after = timing(paths, args.model, runs=3)
            print(f"reader p50, {label}: {before:.1f} ms without the cell model, {after:.1f} ms"
                  f" with (+{after - before:.1f} ms; target <= +20 ms)")  # fmt: skip
    print("\n".join(CASES))
    print_doubt()
    if args.crops and LOOKS:
        write_crops(args.crops, args.folds, args.shipped)
        print(f"wrote {len(LOOKS)} crops to {args.crops}")
    print(f"({time.time() - started:.0f} s)")
    if args.json_out:
        args.json_out.write_text(json.dumps({k: dict(v) for k, v in stats.items()}, indent=1))
    return 0


def named_folds(sets: dict, by: str, aside: bool, only: list[str] | None = None):
    """(chooser, sets): the photos of the folds made `by` week, phone or light (with
    `aside`, the split kept aside instead), and which fold's model reads each.

    The split kept aside is never in a fold: no choice is judged on it."""
    photos = [p for v in sets.values() for p in v]
    truth = [(p.path, np.where(p.classes >= 10, p.classes - 9, p.classes) % 10) for p in photos]
    folds = tc.photo_folds(photos, tc.read_grids(truth))  # the upright grids are cached

    def fold(photo) -> str | None:
        if aside:
            return "aside" if folds[photo.path]["aside"] else None
        if folds[photo.path]["aside"]:
            return None
        name = folds[photo.path][by]
        return name if only is None or name in only else None

    chosen = {k: [p for p in v if fold(p) is not None] for k, v in sets.items()}
    return fold, chosen


def print_folds(by_fold: dict[tuple[str, str], Counter]) -> None:
    """Each fold's figures (both sets together), the worst fold beside them: where the check
    on photos unlike its training stands."""
    folds = sorted({f for f, _ in by_fold})
    rows = {f: sum((c for (g, _), c in by_fold.items() if g == f), Counter()) for f in folds}
    columns = [
        ("photos", lambda s: str(s["photos"]), None),
        ("right called wrong", lambda s: pct(s["right_called_wrong"], s["entries"]),
         lambda s: s["right_called_wrong"] / max(s["entries"], 1)),
        ("photos w/ false wrong", lambda s: pct(s["photos_with_false_wrong"], s["solved_right"]),
         lambda s: s["photos_with_false_wrong"] / max(s["solved_right"], 1)),
        ("unclear", lambda s: pct(s["right_unclear"], s["entries"]),
         lambda s: s["right_unclear"] / max(s["entries"], 1)),
        ("solved right", lambda s: pct(s["solved_right"], s["photos"]),
         lambda s: -s["solved_right"] / max(s["photos"], 1)),
        ("WRONG", lambda s: str(s["WRONG"]), lambda s: s["WRONG"]),
        ("digit cells right", lambda s: pct(s["digit_cells_right"], s["digit_cells"]),
         lambda s: -s["digit_cells_right"] / max(s["digit_cells"], 1)),
        ("candidates as entries", lambda s: f"{s['candidates_as_entries']}/{s['candidate_cells']}",
         lambda s: s["candidates_as_entries"]),
        ("sim. wrong called right", lambda s: pct(s["sim_wrong_right"], s["sim_wrong"]),
         lambda s: s["sim_wrong_right"] / max(s["sim_wrong"], 1)),
        ("pasted wrong called wrong", lambda s: pct(s["pasted_wrong"], s["pasted"]),
         lambda s: -s["pasted_wrong"] / max(s["pasted"], 1)),
    ]  # fmt: skip
    print("\nby fold (both sets together; worst: each column's worst fold)")
    print(" | ".join(["fold", *(name for name, _, _ in columns)]))
    for f in folds:
        print(" | ".join([f, *(show(rows[f]) for _, show, _ in columns)]))
    worst = []
    for _, show, bad in columns:
        worst.append("" if bad is None else show(max(rows.values(), key=bad)))
    print(" | ".join(["worst", *worst]))
    print(" | ".join(["all", *(show(sum(rows.values(), Counter())) for _, show, _ in columns)]))


def write_crops(path: Path, folds: int, shipped: bool) -> None:
    """The cells of `LOOKS` as their photos show them (warped, with a little of their
    neighbours), captioned, five to a row: is it the digit the hand meant, or the one the
    reader read?"""
    import cv2

    from vision.read import read_photo

    tiles = []
    for photo, cell, caption in LOOKS:
        model = MODEL_OF.get(photo.path) or fold_model(tc.fold_of(photo.group, folds))
        os.environ["SUDOKU_LENS_CELL_MODEL"] = str(MODEL if shipped else model)
        warped = read_photo(str(photo.path), gate=False).warped
        side = warped.shape[0] / 9
        row, col = divmod(cell, 9)
        y0, x0 = int(max(0, (row - 0.25) * side)), int(max(0, (col - 0.25) * side))
        y1, x1 = int((row + 1.25) * side), int((col + 1.25) * side)
        tile = cv2.resize(warped[y0:y1, x0:x1], (120, 120), interpolation=cv2.INTER_AREA)
        if tile.ndim == 2:
            tile = cv2.cvtColor(tile, cv2.COLOR_GRAY2BGR)
        for i, text in enumerate((f"{photo.path.stem} {cell_name(cell)}", caption)):
            cv2.putText(tile, text, (2, 11 + 12 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.33, (0, 0, 255))
        tiles.append(tile)
    os.environ.pop("SUDOKU_LENS_CELL_MODEL", None)
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % 5)
    rows = [np.hstack(tiles[i : i + 5]) for i in range(0, len(tiles), 5)]
    cv2.imwrite(str(path), np.vstack(rows))


def print_doubt() -> None:
    """What it would cost to catch the simulated wrong entries called right by moving
    `RIGHT_MISS` alone: the right entries that would no longer be called right."""
    right = np.array(DOUBT["right"])
    cases = np.array(DOUBT["cases"])
    for p in (0.003, 0.002, 0.0015, 0.001, 0.0005):
        print(f"  RIGHT_MISS {p}: right entries not called right"
              f" {pct(int((right > p).sum()), len(right))}, simulated wrong entries called"
              f" right {int((cases <= p).sum())} of these {len(cases)}")  # fmt: skip
    for p in sorted(set(DOUBT["cases"]), reverse=True):
        caught = sum(c >= p for c in DOUBT["cases"])
        print(f"  RIGHT_MISS below {p:.2e} catches {caught} of {len(DOUBT['cases'])}: right"
              f" entries then not called right {pct(int((right >= p).sum()), len(right))}")  # fmt: skip


def held_out(args) -> str:
    if args.shipped:
        return "IN-SAMPLE: the shipped model trained on these photos"
    if args.aside:
        return "the split kept aside (api.train.holdout.aside), by a model that never saw it"
    if args.by != "puzzle":
        names = args.only or holdout.folds_of(args.by)
        return f"held out by {args.by}: {', '.join(names)}, each its own model"
    if args.split is not None:
        which = ", ".join(map(str, args.split))
        return f"held out by puzzle: fold {which} of {args.folds}, each its own model"
    return f"held out by puzzle: {args.folds} folds"


def print_table(stats, rates, timed, recognise, args, errata: dict) -> None:
    total = sum(stats.values(), Counter())
    load = os.getloadavg()[0]
    print(f"hand-filled check bench: {held_out(args)}; load average {load:.1f}")
    if args.note:
        print(f"({args.note})")
    if args.as_labelled:
        print(f"truth: ../shared's labels as they are (--as-labelled: {ERRATA.name} not applied)")
    else:
        print(f"truth: ../shared's labels, {sum(map(len, errata.values()))} hand labels corrected"
              f" by bench/{ERRATA.name} (the photo shows another digit; --as-labelled: not)")  # fmt: skip
    for name in SETS:
        fitted = ", ".join(
            f"{ink} T={r.temperature:.2f} floor={r.floor:.1e} ({r.misread}/{r.cells} misread)"
            for ink, r in rates[name].inks.items()
        )
        print(f"{name}: judged with misread rates fitted on {rates[name].fitted_on}: {fitted}")
    print(f"{'measure':58} {'target':>8}  {'measured':22}  today ({args.base})")
    rows = []
    for name, s in [*stats.items(), ("all", total)]:
        sims = s["sim_wrong"]
        rows += [
            (f"{name}: right entries called wrong", "<= 0.1%", pct(s["right_called_wrong"], s["entries"]), pct(s["today_right_called_wrong"], s["entries"])),
            (f"{name}: photos with a right entry called wrong", "<= 2%", pct(s["photos_with_false_wrong"], s["solved_right"]), pct(s["today_photos_with_false_wrong"], s["solved_right"])),
            (f"{name}: entries called unclear", "<= 1.5%", pct(s["right_unclear"], s["entries"]), pct(s["today_right_unclear"], s["entries"])),
            (f"{name}: simulated wrong entries called right", "0", pct(s["sim_wrong_right"], sims), pct(s["today_sim_wrong_right"], sims)),
            (f"{name}: simulated wrong entries called wrong", ">= 95%", pct(s["sim_wrong_wrong"], sims), pct(s["today_sim_wrong_wrong"], sims)),
            (f"{name}: real wrong entries (pasted) called right", "0", pct(s["pasted_right"], s["pasted"]), pct(s["today_pasted_right"], s["pasted"])),
            (f"{name}: real wrong entries (pasted) called wrong", ">= 95%", pct(s["pasted_wrong"], s["pasted"]), pct(s["today_pasted_wrong"], s["pasted"])),
            (f"{name}: real wrong entries (pasted) not seen as entries", "", pct(s["pasted_unseen"], s["pasted"]), pct(s["today_pasted_unseen"], s["pasted"])),
            (f"{name}: pasted doubles called right", "0", pct(s["double_right"], s["double"]), pct(s["today_double_right"], s["double"])),
            (f"{name}: pasted doubles called wrong", "", pct(s["double_wrong"], s["double"]), pct(s["today_double_wrong"], s["double"])),
            (f"{name}: pasted doubles not seen as entries", "", pct(s["double_unseen"], s["double"]), pct(s["today_double_unseen"], s["double"])),
            (f"{name}: ... of them said as doubles", "", pct(s["double_said_double"], s["double_wrong"]), "n/a (never said)"),
            (f"{name}: solved right", ">= 98%", pct(s["solved_right"], s["photos"]), ""),
            (f"{name}: WRONG solutions", "0", str(s["WRONG"]), ""),
            (f"{name}: digit cells read right (print and hand)", ">= 99.3%", pct(s["digit_cells_right"], s["digit_cells"]), pct(s["today_digit_cells_right"], s["digit_cells"])),
        ]  # fmt: skip
    k, m = stats["kubiesa"], stats["wichtounet/mixed"]
    rows += [
        ("kubiesa: cells right (digit or candidates)", ">= 99%", pct(k["cells_right"], k["cells"]), ""),
        ("kubiesa: printed vs written right (digit cells)", ">= 99%", pct(k["kind_right"], k["kind_cells"]), ""),
        ("kubiesa: candidate cells taken for entries", "0", f"{k['candidates_as_entries']} of {k['candidate_cells']}", ""),
        ("mixed: photos with every cell right (digit and kind)", ">= 95%", pct(m["all_right"], m["photos"]), ""),
    ]  # fmt: skip
    for name, target, value, then in rows:
        print(f"{name:58} {target:>8}  {value:22}  {then}")
    now, today = timed.ms["now"], timed.ms["today"]
    if now and len(recognise):
        rec = statistics.median(recognise)
        print(
            f"correct p50 {statistics.median(now):.1f} ms (today's, {args.base}: "
            f"{statistics.median(today):.1f} ms, same readings, {len(now)} calls); recognise p50 "
            f"{rec:.1f} ms; together {statistics.median(now) + rec:.1f} ms against today's "
            f"{statistics.median(today) + rec:.1f} ms (target: no more)"
        )
    for name, s in stats.items():
        statuses = ", ".join(
            f"{k[7:]} {v}" for k, v in sorted(s.items()) if k.startswith("status ")
        )
        print(
            f"{name}: {s['photos']} photos (not solved: {statuses or 'none'}); errors {s['errors']}"
        )


if __name__ == "__main__":
    sys.exit(main())
