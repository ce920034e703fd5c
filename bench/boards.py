"""Benchmark of boards other than the plain 9x9: 6x6, 16x16 and diagonal sudoku read from
photos and solved; killer, jigsaw and samurai refused by name.

    .venv/bin/python bench/boards.py [--photos N] [--refused N] [--seed S] [--engine E]
    .venv/bin/python bench/boards.py --aside      # the kept-apart photos, reported once

Why: puzzle books print 6x6 for children, magazines 16x16 ("super sudoku", as 1-16, 0-F,
1-9 then A-G, or A-P) and X-sudoku beside the classic ones, and a reader that takes them
for a 9x9 answers nonsense. No labelled photos of them exist, so they are rendered here
(`samples.boards`: faces, line widths, shaded boxes, each 16x16 convention, tinted or
lined diagonals; photographed with tilt, light, shadow and blur, one in eight in poor light),
and their truth is the generator's. The photos are drawn from `--seed` (development,
default 1); `--aside` draws them from seeds no choice here was judged on (ASIDE) at another
photo size, to be run once at the end.

Each photo goes once through `api.photo.pipeline.solve_photo(jpeg, render=False)`. Its first
grid (`result.grids[0]`, the photo's main grid) is judged:

- found right: the size and variant of the truth;
- every given right: as read, before the rules (`read`), and as solved from (`givens`);
- solved right: the solution equals the generator's; WRONG: solved to anything else;
- as a plain 9x9: a 6x6, 16x16 or diagonal board answered as a standard 9x9 [0].
Refused kinds: refused by name (status unsupported, `variant` the kind) [all]; answered [0].

Targets: found right >= 97%, every given right >= 95%, solved right >= 93%, 0 WRONG, none as
a plain 9x9; every refused photo refused by name.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != REPO / "bench"]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from api.photo.boards import line_values, solver_alphabet  # noqa: E402
from api.photo.pipeline import solve_photo  # noqa: E402
from samples.boards import BoardPhoto, board_photos, refused_photos  # noqa: E402

ASIDE = 90_000  # seeds of the kept-apart photos
ASIDE_SIZE = (1080, 1440)


def values_of(line: str | None, size: int, convention: str | None) -> np.ndarray | None:
    """A result's line as values: '0'-blank digits on a plain 9x9, the board's alphabet else."""
    if line is None:
        return None
    if size == 9:
        return np.array([0 if ch in "0." else int(ch) for ch in line], np.int8)
    return line_values(line, solver_alphabet(size, convention))


def judge(photo: BoardPhoto, grid) -> dict:
    """What became of one board photo's main grid."""
    kind_right = grid.size == photo.size and grid.variant == photo.variant
    out = {"found": kind_right, "read": False, "givens": False, "solved": False, "wrong": False}
    out["as 9x9"] = (
        photo.kind != "9x9"
        and grid.size == 9
        and grid.variant == "standard"
        and (grid.status == "solved")
    )
    if not kind_right:
        out["wrong"] = grid.status == "solved"
        return out
    truth = photo.givens.ravel()
    read = values_of(grid.read, grid.size, grid.convention)
    givens = values_of(grid.givens, grid.size, grid.convention)
    out["read"] = read is not None and np.array_equal(read, truth)
    out["givens"] = givens is not None and np.array_equal(givens, truth)
    if grid.status == "solved":
        solution = values_of(grid.solution, grid.size, grid.convention)
        out["solved"] = np.array_equal(solution, photo.solution.ravel())
        out["wrong"] = not out["solved"]
    return out


def run(photos, label: str) -> tuple[dict, list]:
    by_kind: dict[str, Counter] = defaultdict(Counter)
    misses = []
    for photo in photos:
        t = time.perf_counter()
        result = solve_photo(photo.jpeg, render=False)
        ms = (time.perf_counter() - t) * 1000
        grid = result.grids[0] if result.grids else result
        seen = judge(photo, grid)
        name = photo.kind + (f" {photo.convention}" if photo.convention else "")
        for key in (photo.kind, "all"):
            by_kind[key]["photos"] += 1
            by_kind[key]["ms"] += ms
            for k, v in seen.items():
                by_kind[key][k] += bool(v)
        if not (seen["solved"] and seen["read"]):
            misses.append(
                f"{label} seed {photo.seed} {name}: {grid.status} as {grid.size}x{grid.size}"
                f" {grid.variant}; {grid.message[:110]}  [{photo.description[:90]}]"
            )
    return by_kind, misses


def pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}% ({n}/{d})" if d else "-"


def print_table(by_kind: dict) -> None:
    print(
        "| board | photos | found right | every given read right | every given right"
        " (after rules) | solved right | WRONG | as a plain 9x9 | ms / photo |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kind in (*sorted(k for k in by_kind if k != "all"), "all"):
        c = by_kind[kind]
        n = c["photos"]
        print(
            f"| {kind} | {n} | {pct(c['found'], n)} | {pct(c['read'], n)} | {pct(c['givens'], n)}"
            f" | {pct(c['solved'], n)} | {c['wrong']} | {c['as 9x9']} | {c['ms'] / n:.0f} |"
        )


def refusals(photos) -> None:
    counts: dict[str, Counter] = defaultdict(Counter)
    for photo in photos:
        result = solve_photo(photo.jpeg, render=False)
        grids = result.grids or (result,)
        named = any(g.status == "unsupported" and g.variant == photo.kind for g in grids)
        refused = any(g.status == "unsupported" for g in grids)
        answered = any(g.status == "solved" for g in grids)
        c = counts[photo.kind]
        c["photos"] += 1
        c["named"] += named
        c["refused"] += refused
        c["answered"] += answered
        if not named:
            said = "; ".join(f"{g.status} {g.variant}" for g in grids)
            print(f"  seed {photo.seed} {photo.kind}: {said}: {grids[0].message[:100]}")
    print("| refused kind | photos | refused by name | refused (any name) | answered |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for kind, c in counts.items():
        n = c["photos"]
        print(f"| {kind} | {n} | {pct(c['named'], n)} | {pct(c['refused'], n)} | {c['answered']} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--photos", type=int, default=96, help="supported boards (default 96)")
    parser.add_argument("--refused", type=int, default=24, help="killer/jigsaw/samurai photos")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--aside", action="store_true", help="the kept-apart photos, once")
    parser.add_argument("--size", default="1200x1600", help="photo width x height")
    args = parser.parse_args(argv)
    size = tuple(int(v) for v in args.size.lower().split("x"))
    seed, size = (ASIDE, ASIDE_SIZE) if args.aside else (args.seed, size)
    label = "aside" if args.aside else "dev"
    print(
        f"board bench ({label}): {args.photos} boards, {args.refused} refused kinds, seed {seed}, {size[0]}x{size[1]}"
    )
    solve_photo(next(board_photos(1, seed=seed, size=size)).jpeg, render=False)  # warm up
    by_kind, misses = run(board_photos(args.photos, seed=seed, size=size), label)
    print_table(by_kind)
    if args.refused:
        refusals(refused_photos(args.refused, seed=seed, size=size))
    if misses:
        print(f"misses (not solved right, or a given misread before the rules): {len(misses)}")
        for miss in misses:
            print("  " + miss)


if __name__ == "__main__":
    main()
