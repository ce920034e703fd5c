"""Hand-filled photos: print, pen and pencil told apart, entries checked, on held-out photos.

    python bench/handwriting.py            # trains the fold models first if they are missing
    python bench/handwriting.py --folds 4 --retrain

Every figure is measured with a model that did not train on the photo: the labelled photos
are split into folds by puzzle (`api.train_cells.fold_of`), fold k's model is trained on
the other folds (`python -m api.train_cells --fold k`), and each photo is read by its own
fold's model. The shipped model (trained on every fold) is only timed, never scored.

What it prints, per set:
- kubiesa (real pen and pencil): cells right (digit or candidates; printed and written
  alike), printed vs written right in digit cells, photos solved with the right solution;
- wichtounet/mixed (every blank filled by hand): photos with every cell right (digit and
  kind), solved right with `givens` equal to the printed digits;
- wichtounet/images (print only): photos fully right, solved right (must not get worse:
  the same photos read by the print-only reader, in the same run, are the target);
- on every set: WRONG solutions (must be 0), wrong entries reported right (must be 0), right
  entries reported as mistakes (under 0.5%) or unclear; and, since the labelled photos hold
  no wrong entries, wrong ones simulated from the real right ones (`simulate_wrong_entries`);
- the reader's time with and without the cell model, side by side (p50, one thread).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from api import train_cells as tc  # noqa: E402
from api.entries import doubted_right  # noqa: E402
from api.pipeline import solve_photo  # noqa: E402
from api.threads import limit_threads  # noqa: E402
from vision.kinds import MODEL  # noqa: E402

SHARED = REPO.parent / "shared"
FOLD_DIR = tc.CACHE / "folds"


def fold_model(k: int) -> Path:
    return FOLD_DIR / f"fold{k}.onnx"


def ensure_folds(folds: int, retrain: bool, seed: int, only: int | None = None) -> None:
    FOLD_DIR.mkdir(parents=True, exist_ok=True)
    for k in range(folds) if only is None else [only]:
        if retrain or not fold_model(k).is_file():
            print(f"training fold {k} of {folds} (held out) ...", file=sys.stderr)
            common = ["--fold", str(k), "--folds", str(folds), "--out", str(fold_model(k)),
                      "--seed", str(seed)]  # fmt: skip
            tc.main([*common, "--cell-only"])  # the same two steps as `make train`
            tc.main([*common, "--hand-only", "--variants", "2"])


def read_cells(result) -> tuple[np.ndarray, np.ndarray]:
    """What the product says each cell holds: (digit or 10 for candidates, kind letter)."""
    givens = np.array([int(c) for c in result.givens or "0" * 81])
    # the print-only reader reads no kinds: what it reads is print, the rest empty
    kinds = np.array(list(result.marks.kinds) if result.marks else np.where(givens > 0, "p", "."))
    entries = result.marks.entries if result.marks is not None else np.zeros(81, int)
    digit = np.where(givens > 0, givens, entries)
    digit = np.where(kinds == "c", 10, digit)
    return digit, kinds


def truth_of(photo: tc.LabelledPhoto) -> tuple[np.ndarray, np.ndarray]:
    c = photo.classes
    digit = np.where(c == tc.CANDIDATES, 10, np.where(c >= 10, c - 9, c))
    kind = np.where(c == 0, ".", np.where(c == tc.CANDIDATES, "c", np.where(c >= 10, "w", "p")))
    return digit, kind


def unique_solution_of(givens: np.ndarray) -> str | None:
    from solver import parse, solve

    result = solve(parse("".join(map(str, givens))))
    if result.status != "unique":
        return None
    return "".join(str(int(v)) for v in np.asarray(result.solutions[0]).reshape(81))


def score(sets: dict[str, list[tc.LabelledPhoto]], folds: int, plain: bool = False) -> dict:
    """The counts per set, each photo read by its own fold's model (plain: by the print-only
    reader, without any cell model: the reference the print-only figures must hold)."""
    out = {}
    for name, photos in sets.items():
        stats = Counter()
        for photo in photos:
            k = tc.fold_of(photo.group, folds)
            os.environ["SUDOKU_LENS_CELL_MODEL"] = str(
                REPO / "no-such-model.onnx" if plain else fold_model(k)
            )
            try:
                result = solve_photo(str(photo.path), render=False)
            except Exception as error:  # counted, never stops the run
                stats["errors"] += 1
                print(f"  {photo.path.name}: {error}", file=sys.stderr)
                continue
            digit, kind = read_cells(result)
            t_digit, t_kind = truth_of(photo)
            printed = np.where(t_kind == "p", t_digit, 0)
            solution = unique_solution_of(printed)
            stats["photos"] += 1
            stats["cells"] += 81
            stats["cells_right"] += int((digit == t_digit).sum())
            digit_cells = (t_digit >= 1) & (t_digit <= 9)
            stats["digit_cells"] += int(digit_cells.sum())
            stats["kind_right"] += int((kind[digit_cells] == t_kind[digit_cells]).sum())
            stats["all_right"] += int((digit == t_digit).all() and (kind == t_kind).all())
            stats[f"status {result.status}"] += 1
            if result.solved and solution is not None:
                if result.solution == solution:
                    stats["solved_right"] += 1
                    stats["solved_right_givens"] += int(result.givens == "".join(map(str, printed)))
                else:
                    stats["WRONG"] += 1
                    print(f"  WRONG solution: {photo.path}", file=sys.stderr)
            if solution is None:
                stats["no_truth_solution"] += 1
                continue
            sol = np.array([int(c) for c in solution])
            written = t_kind == "w"
            truly_wrong = written & (t_digit != sol)
            truly_right = written & (t_digit == sol)
            flagged = np.zeros(81, bool)
            flagged[[m.cell for m in result.mistakes]] = True
            unclear = np.zeros(81, bool)
            unclear[[m.cell for m in result.unclear]] = True
            if result.solved:
                stats["entries_right"] += int(truly_right.sum())
                stats["entries_wrong"] += int(truly_wrong.sum())
                stats["right_flagged"] += int((truly_right & flagged).sum())
                stats["right_unclear"] += int((truly_right & unclear).sum())
                stats["wrong_missed"] += int((truly_wrong & ~flagged & ~unclear).sum())
                simulate_wrong_entries(stats, result, truly_right, t_digit)
        out[name] = stats
    os.environ.pop("SUDOKU_LENS_CELL_MODEL", None)
    return out


def simulate_wrong_entries(stats: Counter, result, entries: np.ndarray, truth: np.ndarray) -> None:
    """Each real right entry read as an entry, as if the solution were each other digit in
    turn: the photos hold no wrong entries, so this is how often one would be called right
    (read as exactly that other digit, and no other digit doubted: `doubted_right`), or
    unclear (`unclear_entries`' two rules), from real hand-writing."""
    marks = result.marks
    if marks is None or marks.digits is None:
        return
    for cell in np.flatnonzero(entries & (marks.entries > 0)):
        read = int(marks.entries[cell])
        for other in range(1, 10):
            if other == truth[cell]:
                continue
            stats["sim_wrong"] += 1
            if read == other:
                if doubted_right(marks.digits[cell], read):
                    stats["sim_wrong_unclear"] += 1
                else:
                    stats["sim_wrong_right"] += 1
            elif marks.digits[cell, other - 1] >= 0.05 * marks.digits[cell, read - 1]:
                stats["sim_wrong_unclear"] += 1


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
            read_photo(data)
            t = time.perf_counter()
            for _ in range(runs):
                read_photo(data)
            bucket.append((time.perf_counter() - t) * 1000 / runs)
    os.environ.pop("SUDOKU_LENS_CELL_MODEL", None)
    return statistics.median(without), statistics.median(with_model)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--retrain", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json-out", type=Path)
    parser.add_argument(
        "--split",
        type=int,
        default=None,
        help="a fixed split: score only fold K's photos (train only fold K's model)",
    )
    parser.add_argument(
        "--model", type=Path, default=MODEL, help="the model timed beside the plain reader"
    )
    args = parser.parse_args(argv)
    if not (SHARED / "datasets").is_dir():
        print(
            "bench/handwriting.py needs ../shared (the labelled photos): not present",
            file=sys.stderr,
        )
        return 2
    limit_threads(opencv=1)
    ensure_folds(args.folds, args.retrain, args.seed, args.split)
    wicht = tc.wichtounet_photos(SHARED)
    # Kubiesa's printed-vs-written truth, derived once by the training script (its
    # docstring says how), from a model that never saw a Kubiesa photo
    derived = json.loads((tc.CACHE / "kubiesa-kinds.json").read_text())
    kub = tc.kubiesa_photos(tc.kubiesa_labels(SHARED), derived)
    sets = {
        "kubiesa": kub,
        "wichtounet/mixed": [p for p in wicht if p.source == "mixed"],
        "wichtounet/images": [p for p in wicht if p.source == "wichtounet"],
    }
    if args.split is not None:
        sets = {
            k: [p for p in v if tc.fold_of(p.group, args.folds) == args.split]
            for k, v in sets.items()
        }
    started = time.time()
    stats = score(sets, args.folds)
    plain = score({"images": sets["wichtounet/images"]}, args.folds, plain=True)["images"]
    load = os.getloadavg()[0]
    held = (
        f"fold {args.split} of {args.folds} only"
        if args.split is not None
        else f"{args.folds} folds"
    )
    print(f"hand-filled bench: held out by puzzle ({held}); load average {load:.1f}")
    print(f"{'measure':58} {'target':>10}  measured")
    k, m, w = stats["kubiesa"], stats["wichtounet/mixed"], stats["wichtounet/images"]
    rows = [
        ("kubiesa: cells right (digit or candidates)", ">= 99%", pct(k["cells_right"], k["cells"])),
        (
            "kubiesa: printed vs written right (digit cells)",
            ">= 99%",
            pct(k["kind_right"], k["digit_cells"]),
        ),
        ("kubiesa: solved with the right solution", ">= 90%", pct(k["solved_right"], k["photos"])),
        (
            "mixed: photos with every cell right (digit and kind)",
            ">= 95%",
            pct(m["all_right"], m["photos"]),
        ),
        (
            "mixed: solved right, givens = the printed digits",
            ">= 97%",
            pct(m["solved_right_givens"], m["photos"]),
        ),
        (
            "images: photos with every cell right",
            f"{plain['all_right']} held",
            pct(w["all_right"], w["photos"]),
        ),
        (
            "images: solved with the right solution",
            f"{plain['solved_right']} held",
            pct(w["solved_right"], w["photos"]),
        ),
    ]
    for name, s in stats.items():
        rows.append((f"{name}: WRONG solutions", "0", str(s["WRONG"])))
        rows.append(
            (
                f"{name}: wrong entries reported right",
                "0",
                f"{s['wrong_missed']} of {s['entries_wrong']}",
            )
        )
        rows.append(
            (
                f"{name}: right entries reported as mistakes",
                "< 0.5%",
                pct(s["right_flagged"], s["entries_right"]),
            )
        )
        rows.append(
            (f"{name}: right entries unclear", "", pct(s["right_unclear"], s["entries_right"]))
        )
        rows.append(
            (
                f"{name}: simulated wrong entries reported right",
                "0",
                pct(s["sim_wrong_right"], s["sim_wrong"]),
            )
        )
        rows.append(
            (
                f"{name}: simulated wrong entries unclear",
                "",
                pct(s["sim_wrong_unclear"], s["sim_wrong"]),
            )
        )
    for name, target, value in rows:
        print(f"{name:58} {target:>10}  {value}")
    for name, s in stats.items():
        statuses = ", ".join(
            f"{key[7:]} {v}" for key, v in sorted(s.items()) if key.startswith("status ")
        )
        print(f"{name}: {s['photos']} photos ({statuses}); errors {s['errors']}")
    small = sorted((SHARED / "datasets" / "wichtounet" / "images").glob("*.jpg"))[:40]
    # 20 large photos and 3 runs each, not 10 and 1: the single runs' p50 moved by 7 ms
    # between three runs of the bench on a shared machine, against a 20 ms target
    large = sorted((SHARED / "datasets" / "kubiesa" / "images").glob("*.jpg"))[:20]
    for label, paths in (("640x480 (40 photos)", small), ("12-16 MP (20 photos)", large)):
        before, after = timing(paths, args.model, runs=3)
        print(f"reader p50, {label}: {before:.1f} ms without the cell model, {after:.1f} ms with"
              f" (+{after - before:.1f} ms; target <= +20 ms)")  # fmt: skip
    print(f"({time.time() - started:.0f} s)")
    if args.json_out:
        args.json_out.write_text(json.dumps({k: dict(v) for k, v in stats.items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
