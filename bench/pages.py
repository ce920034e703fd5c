"""Benchmark of whole pages: every sudoku on a photographed page found, read and solved.

    .venv/bin/python bench/pages.py [--quick] [--pages N] [--timing N] [--seed S] [--save DIR]

Why: a newspaper or puzzle-book page carries several puzzles and a small printed solution
grid, and a printed `sudoku-lens new --sheet` page up to six puzzles; the photo of such a page
must give back each puzzle solved, and never a solution grid, a crossword or a wrong solution.
The pages are synthetic (`samples.pages`), so the truth of every grid is exact:

- shared pages (--pages, default 40): newspaper-like pages built from the REAL photos of
  ../shared (wichtounet's printed puzzles, cut out by their labelled corners), 2 to 6
  puzzles at different sizes, text columns, sometimes a crossword, a small solution grid on
  most, photographed at 1200x1600 up to 12 MP. Skipped, said so, without ../shared.
- own sheets: `api.sheet` pages of 1, 2, 4 and 6 fresh puzzles, good and poor light,
  rendered directly (what the PNG holds) and through the PDF (`pdftoppm`; skipped, said so,
  when it is not installed), at 1200x1600 and 12 MP; plus the timing set (12 MP sheets of
  six grids and of one grid), whose grids count here too.

Each page goes through `api.photo.pipeline.solve_photo(image, render=False)` once; its
`result.grids` are matched to the truth grids by corners: a found grid matches a truth grid
when each of its four corners lies within 1/18 of the truth grid's side of the truth's corner
(corners TL, TR, BR, BL of the upright grid; a grid found turned is matched, and counted as
misread). Found grids matching no truth grid are false grids.

Figures (targets in brackets), per source and all:
1. puzzle grids found with every given right [>= 97%], solved right [>= 95%], solved WRONG
   [0]; false grids [0]; solution grids taken for puzzles [0]; solution grids said complete.
2. own-sheet round trip: sheets with every puzzle solved to the generator's solution.
3. time: p50 of `timings["total"]` for 12 MP sheets of six grids and 12 MP sheets of one
   grid, and their ratio [<= 2.5x].
Then the misses: the page, the grid's number in the page's reading order, what went wrong.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# run as `python bench/pages.py`, bench/ comes first on the path and its solver.py would
# shadow the solver package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != REPO / "bench"]
sys.path.insert(0, str(REPO))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from samples.pages import (  # noqa: E402
    SIZES,
    PageGrid,
    PagePhoto,
    shared_available,
    shared_page,
    sheet_photo,
)

TWELVE_MP = (3000, 4000)
SMALL = (1200, 1600)
TOLERANCE = 1 / 18  # of the truth grid's side, for every corner


@dataclass
class Spec:
    """A page to build when its turn comes (a 12 MP page is 36 MB: never all at once)."""

    source: str  # "shared" or "sheet"
    make: Callable[[], PagePhoto]
    timing: str | None = None  # "six" or "one": a photo of the 12 MP timing set


@dataclass
class Tally:
    """The figures of one source."""

    puzzles: int = 0
    found: int = 0
    givens_right: int = 0
    solved_right: int = 0
    wrong: int = 0
    false_grids: int = 0
    solution_grids: int = 0
    solution_as_puzzle: int = 0
    solution_complete: int = 0
    pages: int = 0
    pages_all_right: int = 0

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class PageOutcome:
    tally: Tally
    misses: list[str] = field(default_factory=list)
    total_ms: float = 0.0


def page_specs(args, pdf: bool) -> list[Spec]:
    """Every page of the run, in order: the shared pages, the own sheets, the timing set."""
    specs = []
    if shared_available():
        for i in range(args.pages):
            seed = args.seed * 1000 + i
            size = SIZES[i % len(SIZES)]
            with_solution = i % 7 != 3  # most pages print yesterday's solution
            specs.append(
                Spec(
                    "shared",
                    lambda s=seed, z=size, w=with_solution: shared_page(
                        s, size=z, with_solution_grid=w
                    ),
                )
            )
    renders = (False, True) if pdf and not args.quick else (False,)
    k = 0
    for via_pdf in renders:
        for count in (1, 2, 4, 6):
            for poor in (False, True):
                size = TWELVE_MP if k % 2 else SMALL
                seed = args.seed * 1000 + 500 + k
                specs.append(
                    Spec(
                        "sheet",
                        lambda c=count, s=seed, z=size, p=poor, v=via_pdf: sheet_photo(
                            c, seed=s, size=z, poor_light=p, via_pdf=v
                        ),
                    )
                )
                k += 1
    for i in range(args.timing):
        for count, group in ((6, "six"), (1, "one")):
            seed = args.seed * 1000 + 800 + 2 * i + (count == 1)
            specs.append(
                Spec(
                    "sheet",
                    lambda c=count, s=seed: sheet_photo(c, seed=s, size=TWELVE_MP),
                    timing=group,
                )
            )
    return specs


def side_of(corners: np.ndarray) -> float:
    return float(np.mean([np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)]))


def corner_fit(found: np.ndarray, truth: np.ndarray) -> tuple[float, int]:
    """(largest corner distance / truth side, quarter turns) over the four ways the found
    corners may be numbered: 0 turns when its TL is the truth's TL."""
    side = side_of(truth)
    best = (np.inf, 0)
    for turns in range(4):
        error = float(np.linalg.norm(np.roll(found, -turns, axis=0) - truth, axis=1).max()) / side
        best = min(best, (error, turns))
    return best


def match(found, truth: list[PageGrid]) -> tuple[dict[int, tuple[int, int]], list[int]]:
    """{truth index: (found index, quarter turns)} and the found indices matching nothing;
    closest pairs first, each grid matched at most once."""
    pairs = []
    for f, grid in enumerate(found):
        if grid.corners is None:
            continue
        corners = np.asarray(grid.corners, np.float64).reshape(4, 2)
        for t, want in enumerate(truth):
            error, turns = corner_fit(corners, want.corners.astype(np.float64))
            if error <= TOLERANCE:
                pairs.append((error, t, f, turns))
    matched: dict[int, tuple[int, int]] = {}
    used = set()
    for _, t, f, turns in sorted(pairs):
        if t not in matched and f not in used:
            matched[t] = (f, turns)
            used.add(f)
    return matched, [f for f in range(len(found)) if f not in used]


def misread(read: str | None, want: str) -> str:
    """Which printed cells were read wrong, e.g. 'r3c5 8 for 3' (read for printed)."""
    if not read:
        return "nothing read"
    wrong = [
        f"r{i // 9 + 1}c{i % 9 + 1} {r if r != '0' else 'empty'} for {w if w != '0' else 'empty'}"
        for i, (r, w) in enumerate(zip(read, want, strict=True))
        if r != w
    ]
    return ", ".join(wrong[:6]) + (f" (+{len(wrong) - 6})" if len(wrong) > 6 else "")


def judge_page(page: PagePhoto, result) -> PageOutcome:
    """The page's tally and its misses, one line each."""
    tally = Tally(pages=1)
    misses = []
    found = tuple(getattr(result, "grids", ()) or ())
    matched, false = match(found, page.grids)
    all_right = True
    for t, want in enumerate(page.grids):
        where = f"grid {t + 1} ({want.kind})"
        hit = matched.get(t)
        grid = found[hit[0]] if hit else None
        if want.kind == "solution":
            tally.solution_grids += 1
            if grid is None:
                misses.append(f"{where}: not found")
            elif grid.kind == "puzzle" or grid.status == "solved":
                tally.solution_as_puzzle += 1
                misses.append(f"{where}: taken for a puzzle (status {grid.status})")
            elif grid.kind == "solution" or grid.status == "complete":
                tally.solution_complete += 1
            continue
        tally.puzzles += 1
        if grid is None:
            misses.append(f"{where}: not found")
            all_right = False
            continue
        tally.found += 1
        turns = hit[1]
        givens = grid.givens or grid.read
        right_givens = turns == 0 and givens == want.givens
        tally.givens_right += right_givens
        solved = grid.status == "solved" and grid.solution is not None
        if solved and grid.solution == want.solution and turns == 0:
            tally.solved_right += 1
        else:
            all_right = False
        if solved and (grid.solution != want.solution or turns):
            tally.wrong += 1
        if turns:
            misses.append(f"{where}: found turned by {90 * turns} degrees, status {grid.status}")
        elif not right_givens or not solved or grid.solution != want.solution:
            what = [f"status {grid.status}"]
            if not right_givens:
                what.append(f"givens {misread(givens, want.givens)}")
            if solved and grid.solution != want.solution:
                what.insert(0, "WRONG solution")
            misses.append(f"{where}: {'; '.join(what)}")
    for f in false:
        grid = found[f]
        tally.false_grids += 1
        at = (
            np.asarray(grid.corners).reshape(4, 2).mean(axis=0)
            if grid.corners is not None
            else None
        )
        place = f" at ({at[0]:.0f}, {at[1]:.0f})" if at is not None else ""
        misses.append(
            f"false grid (found number {getattr(grid, 'number', f + 1)}){place}: "
            f"kind {getattr(grid, 'kind', '?')}, status {grid.status}"
        )
    tally.pages_all_right = int(all_right)
    return PageOutcome(tally, misses, float(result.timings.get("total", 0.0)))


def save(folder: Path, index: int, page: PagePhoto, result) -> None:
    """The photo, the solved overlay (when there is one) and a look at the matching: truth
    grids in green (their top-left corner dotted), found grids in red."""
    stem = f"{index:03d}"
    (folder / f"{stem}-photo.jpg").write_bytes(page.jpeg)
    overlay = getattr(result, "overlay_bytes", None)
    if overlay:
        (folder / f"{stem}-solved.jpg").write_bytes(overlay)
    look = page.image.copy()
    width = max(2, look.shape[1] // 500)
    for grid in page.grids:
        c = np.round(grid.corners).astype(np.int32)
        cv2.polylines(look, [c], True, (0, 200, 0), width)
        cv2.circle(look, tuple(int(v) for v in c[0]), 3 * width, (0, 200, 0), -1)
    for grid in getattr(result, "grids", ()) or ():
        if grid.corners is not None:
            c = np.round(np.asarray(grid.corners).reshape(4, 2)).astype(np.int32)
            cv2.polylines(look, [c], True, (0, 0, 230), max(1, width // 2))
    scale = 1600 / max(look.shape[:2])
    if scale < 1:
        look = cv2.resize(look, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(folder / f"{stem}-truth.jpg"), look, [cv2.IMWRITE_JPEG_QUALITY, 85])
    (folder / f"{stem}.txt").write_text(page.description + "\n")


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.1%})" if whole else "-"


def table(tallies: dict[str, Tally]) -> list[str]:
    names = list(tallies)
    lines = [
        "| figure | " + " | ".join(names) + " | target | |",
        "| --- | " + " | ".join("---" for _ in names) + " | --- | --- |",
    ]
    everything = tallies[names[-1]]

    def add(label, values, target="", ok=None):
        mark = "" if ok is None else ("ok" if ok else "MISSED")
        lines.append(f"| {label} | " + " | ".join(values) + f" | {target} | {mark} |")

    def rate(part, whole):
        return part / whole if whole else 1.0

    add("pages", [str(t.pages) for t in tallies.values()])
    add("puzzle grids found", [share(t.found, t.puzzles) for t in tallies.values()])
    add(
        "puzzle grids with every given right",
        [share(t.givens_right, t.puzzles) for t in tallies.values()],
        ">= 97%",
        rate(everything.givens_right, everything.puzzles) >= 0.97,
    )
    add(
        "puzzle grids solved right",
        [share(t.solved_right, t.puzzles) for t in tallies.values()],
        ">= 95%",
        rate(everything.solved_right, everything.puzzles) >= 0.95,
    )
    add("WRONG solutions", [str(t.wrong) for t in tallies.values()], "0", everything.wrong == 0)
    add(
        "false grids",
        [str(t.false_grids) for t in tallies.values()],
        "0",
        everything.false_grids == 0,
    )
    add(
        "solution grids taken for puzzles",
        [f"{t.solution_as_puzzle}/{t.solution_grids}" for t in tallies.values()],
        "0",
        everything.solution_as_puzzle == 0,
    )
    add(
        "solution grids said complete",
        [share(t.solution_complete, t.solution_grids) for t in tallies.values()],
    )
    add(
        "pages with every puzzle solved right",
        [share(t.pages_all_right, t.pages) for t in tallies.values()],
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=None, help="shared pages (default 40)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--quick", action="store_true", help="few pages: 6 shared, PNG sheets only, 2 timing pairs"
    )
    parser.add_argument("--timing", type=int, default=None, help="12 MP timing pairs (default 6)")
    parser.add_argument("--save", metavar="DIR", help="write photos, solved overlays, truth looks")
    args = parser.parse_args(argv)
    args.pages = args.pages if args.pages is not None else (6 if args.quick else 40)
    args.timing = args.timing if args.timing is not None else (2 if args.quick else 6)

    from api.photo.pipeline import solve_photo, warm_up

    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    if not shared_available():
        print("shared pages: skipped, ../shared not present (its real photos build them)")
    pdf = shutil.which("pdftoppm") is not None
    if not pdf:
        print("PDF-rendered sheets: skipped, pdftoppm (poppler-utils) is not installed")
    folder = Path(args.save) if args.save else None
    if folder:
        folder.mkdir(parents=True, exist_ok=True)
        print(f"saving photos, overlays and truth looks to {folder} (timings include drawing)")
    started = time.perf_counter()
    warm_up()
    print(f"warm-up (not counted): {time.perf_counter() - started:.1f} s", flush=True)

    specs = page_specs(args, pdf)
    tallies = {"shared pages": Tally(), "own sheets": Tally()}
    sources = {"shared": "shared pages", "sheet": "own sheets"}
    timing: dict[str, list[float]] = {"six": [], "one": []}
    misses: list[str] = []
    missed = 0
    statuses: Counter = Counter()
    build_s = solve_s = 0.0
    for index, spec in enumerate(specs, start=1):
        t = time.perf_counter()
        page = spec.make()
        build_s += time.perf_counter() - t
        t = time.perf_counter()
        if folder:
            result = solve_photo(page.image, render=True, encode="jpeg")
        else:
            result = solve_photo(page.image, render=False)
        solve_s += time.perf_counter() - t
        outcome = judge_page(page, result)
        tallies[sources[spec.source]].add(outcome.tally)
        if outcome.misses:
            misses.append(f"page {index}: {page.description}")
            misses += [f"    {line}" for line in outcome.misses]
            missed += len(outcome.misses)
        statuses.update(g.status for g in getattr(result, "grids", ()) or ())
        if spec.timing:
            timing[spec.timing].append(outcome.total_ms)
        if folder:
            save(folder, index, page, result)
        if index % 10 == 0 or index == len(specs):
            print(f"  {index}/{len(specs)} pages", flush=True)
        del page, result
    everything = Tally()
    for t in tallies.values():
        everything.add(t)
    tallies["all"] = everything

    print()
    lines = table(tallies)
    sheets = tallies["own sheets"]
    lines.append(
        f"| own-sheet round trip: sheets with every puzzle solved to the generator's solution "
        f"| | {share(sheets.pages_all_right, sheets.pages)} | | every sheet | "
        f"{'ok' if sheets.pages_all_right == sheets.pages else 'MISSED'} |"
    )
    if timing["six"] and timing["one"]:
        six, one = statistics.median(timing["six"]), statistics.median(timing["one"])
        ratio = six / one if one else float("inf")
        lines.append(
            f"| time p50, 12 MP page of six grids / 12 MP photo of one grid "
            f"({len(timing['six'])} + {len(timing['one'])} photos) | | "
            f"{six:.0f} ms / {one:.0f} ms | | | |"
        )
        lines.append(
            f"| time ratio six grids / one grid | | {ratio:.2f}x | | <= 2.5x | "
            f"{'ok' if ratio <= 2.5 else 'MISSED'} |"
        )
    print("\n".join(lines))
    print(
        f"\n{len(specs)} pages: building {build_s:.0f} s, solving {solve_s:.0f} s; grid "
        f"statuses: {', '.join(f'{k} {v}' for k, v in statuses.most_common()) or 'none'}"
    )
    print(
        "found: every corner within 1/18 of the truth grid's side; every given right: the "
        "grid's givens (after corrections) equal the printed ones, in the upright turn"
    )
    print(f"\nmisses ({missed}):" if misses else "\nmisses: none")
    for line in misses:
        print(f"  {line}")
    load = os.getloadavg()
    print(f"\nload average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
