"""The reader's gate (`vision.gate`), held out: which pages it reads as print alone.

    python bench/gate.py [--fold-dir DIR] [--split 1,2,3]

Every labelled photo of ../shared (Wicht's printed photos, their hand-filled twins,
Kubiesa's pen and pencil) is read by its fold's models (DIR/foldK.onnx with its hand model
and its gate, foldK.gate.onnx, trained without that fold: `python -m api.train.gate --fold
K`), once with the gate and once without it, and judged as a solve is.
Printed per set: the pages the gate passed as print alone (a hand-filled page must never
pass), those of them read again with the cell model because they did not solve as read
(`api.photo.pipeline.judged`), the photos whose solution or givens changed against the
reading without the gate,
and on the printed photos the cells read right (against the .dat labels) and the photos
solved right, each both ways.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != REPO / "bench"]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

import api.train.cells as tc  # noqa: E402

SHARED = REPO.parent / "shared"


def read_both(photo, model: Path):
    """(passed the gate, read again, result with the gate, result without it) for one
    photo: read and judged as `solve_photo` reads and judges a solve, with the gate
    allowed and not (`read_photo(gate=...)`, `api.photo.pipeline.judged`)."""
    from api.photo.pipeline import judged
    from vision import NoGridFound
    from vision.read import read_photo

    os.environ["SUDOKU_LENS_CELL_MODEL"] = str(model)
    data = photo.path.read_bytes()
    results = []
    for gate in (True, False):
        try:
            first = read_photo(data, gate=gate)
        except NoGridFound:  # as `solve_photo` says "no_grid": nothing read either way
            results.append((False, False, None))
            continue
        final, result = judged(first, dict(first.timings))
        results.append((first.print_alone, final is not first, result))
    (passed, again, gated), (_, _, plain) = results
    return passed, again, gated, plain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fold-dir", type=Path, default=tc.CACHE / "folds")
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--split", default=None, help="only these folds, e.g. 1,2,3")
    args = parser.parse_args()
    if not (SHARED / "datasets" / "wichtounet").is_dir():
        print("../shared/datasets not present: nothing to measure")
        return
    import cv2

    cv2.setNumThreads(1)
    split = None if args.split is None else {int(k) for k in args.split.split(",")}
    wicht = tc.wichtounet_photos(SHARED)
    letters = tc.json.loads((tc.CACHE / "kubiesa-kinds.json").read_text())
    sets = {
        "wichtounet/images (print)": [p for p in wicht if p.source == "wichtounet"],
        "wichtounet/mixed (hand)": [p for p in wicht if p.source == "mixed"],
        "kubiesa (hand)": tc.kubiesa_photos(tc.kubiesa_labels(SHARED), letters),
    }
    print(f"held-out fold models in {args.fold_dir}; folds {args.split or 'all'}")
    print("| set | photos | passed as print alone | of those read again | solution or givens"
          " changed | cells right, gate / no gate | solved right, gate / no gate |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, photos in sets.items():
        counts = dict(photos=0, passed=0, again=0, changed=0, cells=[0, 0], solved=[0, 0], of=0)
        changed = []
        for photo in photos:
            k = tc.fold_of(photo.group, args.folds)
            if split is not None and k not in split:
                continue
            alone, again, gated, plain = read_both(photo, args.fold_dir / f"fold{k}.onnx")
            counts["photos"] += 1
            counts["passed"] += alone
            counts["again"] += again
            if _answer(gated) != _answer(plain):
                counts["changed"] += 1
                changed.append(photo.path.name)
            if photo.source == "wichtounet":
                truth = "".join(map(str, photo.classes))
                answer = tc.unique_solution(photo.classes) and _solution(photo.classes)
                for i, result in enumerate((gated, plain)):
                    read = (result and result.read) or "0" * 81
                    counts["cells"][i] += sum(a == b for a, b in zip(read, truth, strict=True))
                    counts["solved"][i] += _answer(result)[0] == answer
                counts["of"] += 81
        cells = solved = ""
        if counts["of"]:
            cells = " / ".join(f"{c}/{counts['of']}" for c in counts["cells"])
            solved = " / ".join(f"{s}/{counts['photos']}" for s in counts["solved"])
        print(f"| {name} | {counts['photos']} | {counts['passed']} | {counts['again']} |"
              f" {counts['changed']} |"
              f" {cells} | {solved} |")  # fmt: skip
        if changed:
            print(f"  changed: {', '.join(changed)}", file=sys.stderr)
    os.environ.pop("SUDOKU_LENS_CELL_MODEL", None)


def _answer(result) -> tuple[str | None, str | None]:
    """(solution, givens) of a judged photo; (None, None) where no grid was found."""
    return (None, None) if result is None else (result.solution, result.givens)


def _solution(givens: np.ndarray) -> str:
    import solver

    result = solver.solve(solver.parse("".join(map(str, givens))))
    return "".join(map(str, result.solutions[0]))


if __name__ == "__main__":
    main()
