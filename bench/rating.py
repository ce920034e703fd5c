"""How close is `Grade.rating` to Sudoku Explainer's ER, and is it monotone in what a puzzle needs?

1. SE-rated set (../shared/datasets/se/ratings-dev.tsv: 402 puzzles with SukakuExplainer's
   ER): split by the parity of sha256(puzzle) into a tuning half (0), the only half the
   fitted entries of solver.logic.rating were read from, and a held-out half (1). For each
   half: Spearman rank correlation of the rating with SE's ER (ties ranked by their mean),
   the share within 0.5 of SE and equal to it; beside them, in the same run, Spearman of
   the HoDoKu-style `Grade.score` (the issue's reference, 0.90 on SE's hard puzzles). The
   held-out half's worst misses are listed.
2. Published ER figures found on the players' forum, and puzzles rated by hand with the
   published table (the reasoning is beside each).
3. Monotone in the techniques a puzzle needs, on a sample of every set of ../shared/puzzles:
   a puzzle rated R must be solvable by the techniques whose lowest rating is at most R
   (else it needs a harder technique than its rating says: a floor violation), and there
   should be no path rated R - 0.5 or lower (else its rating is above what it needs: the
   explain path went a harder way than SE's simplest one, which above 7.0 the rating does
   not look for).

Usage: python bench/rating.py [--sample N] [--workers W] [--sets a,b] [--no-se] [--no-sets]
The load average is printed beside the timings: the machine is shared, timings are noisy.
Set SUDOKU_LENS_SHARED when ../shared is elsewhere (a git worktree).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

# Run as a script, this folder comes first on sys.path, and bench/solver.py would shadow
# the `solver` package: look for packages in the repository instead.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402

from solver.grid import parse  # noqa: E402
from solver.logic import explain  # noqa: E402
from solver.logic.explain import TECHNIQUE_NAMES  # noqa: E402
from solver.logic.rating import SE_TIERS, finder_floor, rate_puzzle  # noqa: E402

SHARED = Path(os.environ.get("SUDOKU_LENS_SHARED", HERE.parent.parent / "shared"))
SETS = ("kaggle_style10000", "17clue", "top1465", "hardest1106", "hardest11plus1000")
TN1 = "175328496942671385368594271829135647653487912714962538231846759487259163596713824"

# (puzzle, published ER, where)
PUBLISHED = (
    (
        "........97..1.24...16....3.1....5.8...5.4.6...7.3....4.2...874...36.1..88........",
        7.2,
        "SAM#4, forum.enjoysudoku.com/suggest-a-move-sam-4-t30887.html (DonM, 2013)",
    ),
    (
        "..3......4...8..36..8...1...4..6..73...9..........2..5..4.7..686........7..6..5..",
        11.0,
        "The hardest sudokus (new thread), forum.enjoysudoku.com t6539 p.225 (ER/EP/ED "
        "11.0/11.0/2.6)",
    ),
    (
        "..3......4...8..36..8...1...4..6..73...9..........2..5..4.7..686....4...7.....5..",
        11.0,
        "the same post, the puzzle beside it (11.0/11.0/2.6)",
    ),
)


def _blank(solution: str, cells) -> str:
    return "".join("." if i in cells else ch for i, ch in enumerate(solution))


# (puzzle, ER by hand, the reasoning)
BY_HAND = (
    (
        _blank(TN1, {40}),
        1.0,
        "one empty cell: a hidden single alone in its unit, SE 1.0",
    ),
    (
        _blank(TN1, set(range(9))),
        1.0,
        "row 1 empty: each cell is the last empty cell of its column, SE 1.0",
    ),
    (
        _blank(TN1, {r * 9 + c for r in range(3, 6) for c in range(3, 6)}),
        1.2,
        "box 5 empty: each digit's other rows and columns through the box hold it outside "
        "the box, so it has one place in the box (hidden single in a box, SE 1.2); no cell "
        "is the last of its row or column",
    ),
    (
        _blank(
            TN1,
            {
                r * 9 + c
                for r in range(9)
                for c in range(9)
                if (r // 3, c // 3) in {(0, 0), (1, 1), (2, 2)}
            },
        ),
        1.2,
        "boxes 1, 5 and 9 empty: no unit has one empty cell, but each of those boxes' digits "
        "is barred from two of its rows and two of its columns by boxes 2-4 and 6-8, which "
        "are full: one place in the box, SE 1.2",
    ),
)


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def ranks(values) -> np.ndarray:
    """Ranks 0..n-1, ties given the mean of their ranks (Spearman's convention)."""
    values = np.asarray(values, dtype=float)
    order = values.argsort(kind="stable")
    r = np.empty(len(values))
    r[order] = np.arange(len(values))
    for v in np.unique(values):
        same = values == v
        r[same] = r[same].mean()
    return r


def spearman(a, b) -> float:
    """Spearman's rank correlation (Pearson's on ranks), ties averaged.

    >>> round(spearman([1, 2, 3, 4], [1.5, 1.5, 3, 9]), 3)
    0.949
    """
    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def half(puzzle: str) -> int:
    """0 for the tuning half, 1 for the held-out half (fixed: sha256 of the puzzle)."""
    return int(hashlib.sha256(puzzle.encode()).hexdigest()[:8], 16) % 2


def graded(puzzle: str) -> tuple[float, int, float, float]:
    """(rating, score, explain seconds (rating included), seconds of the rating alone:
    `rate_puzzle` run again on explain's path)."""
    start = time.process_time()
    e = explain(parse(puzzle))
    seconds = time.process_time() - start
    start = time.process_time()
    rate_puzzle(e.grid, e.steps, e.unique)
    alone = time.process_time() - start
    return e.grade.rating, e.grade.score, seconds, alone


def se_set(pool) -> None:
    rows = [
        line.split("\t")
        for line in (SHARED / "datasets/se/ratings-dev.tsv").read_text().splitlines()[1:]
    ]
    results = pool.map(graded, [r[0] for r in rows], chunksize=4)
    print(f"\n## SE-rated set: ratings-dev.tsv, {len(rows)} puzzles ({load()})")
    print("split by sha256(puzzle) parity; the fitted table entries were read from half 0 only")
    print(f"{'half':<22} {'n':>4} {'Spearman':>9} {'(score)':>8} {'within 0.5':>11} {'equal':>6}")
    for h, label in ((0, "0 tuning (in-sample)"), (1, "1 held-out")):
        chosen = [(r, g) for r, g in zip(rows, results, strict=True) if half(r[0]) == h]
        _line(label, chosen)
        if h == 1:
            for name in sorted({r[1] for r, _ in chosen}):
                _line(f"  {name}", [(r, g) for r, g in chosen if r[1] == name])
    held = [(r, g) for r, g in zip(rows, results, strict=True) if half(r[0]) == 1]
    misses = sorted(held, key=lambda rg: -abs(rg[1][0] - float(rg[0][2])))[:6]
    print("held-out, farthest from SE (SE ER, SE's hardest step, rating):")
    for r, g in misses:
        print(f"  {r[0]}  SE {r[2]:>4} {r[5]:<40} rating {g[0]}")
    hard_part(rows, results)
    seconds = np.array([g[2] for g in results])
    alone = np.array([g[3] for g in results])
    print(
        f"CPU per puzzle, all {len(rows)}: explain (rating included) mean "
        f"{1000 * seconds.mean():.0f} ms, p90 {1000 * np.percentile(seconds, 90):.0f} ms; "
        f"the rating alone mean {1000 * alone.mean():.0f} ms, "
        f"p90 {1000 * np.percentile(alone, 90):.0f} ms"
    )
    for label, pick in (
        ("rated below 7.0", lambda g: g[0] < 7),
        ("rated 7.0+", lambda g: g[0] >= 7),
    ):
        part = np.array([g[3] for g in results if pick(g)])
        if part.size:
            print(
                f"  the rating alone, {label} ({part.size}): mean {1000 * part.mean():.0f} ms, "
                f"p90 {1000 * np.percentile(part, 90):.0f} ms"
            )


def hard_part(rows, results) -> None:
    """The issue's measure: hard SE-rated puzzles (top1465's, ER mostly 7-9.x; and the
    ones SE rates 10 or more), held-out half first."""
    print("\n### THE HARD PART (the issue's target: Spearman >= 0.95, most within 0.5)")
    print(f"{'subset':<34} {'n':>4} {'Spearman':>9} {'(score)':>8} {'within 0.5':>11} {'equal':>6}")
    both = list(zip(rows, results, strict=True))
    for h, label in ((1, "held-out"), (0, "tuning (in-sample)")):
        chosen = [(r, g) for r, g in both if half(r[0]) == h and r[1] == "top1465"]
        _line(f"top1465, {label}", chosen, 34)
    _line("SE ER >= 10, both halves", [(r, g) for r, g in both if float(r[2]) >= 10], 34)
    for r, g in both:
        if float(r[2]) >= 10:
            print(f"  {r[0]}  half {half(r[0])}  SE {r[2]:>4}  rating {g[0]}")


def _line(label: str, chosen, width: int = 22) -> None:
    se = [float(r[2]) for r, _ in chosen]
    mine = [g[0] for _, g in chosen]
    score = [g[1] for _, g in chosen]
    near = np.mean([abs(a - b) <= 0.5 + 1e-9 for a, b in zip(se, mine, strict=True)])
    equal = np.mean([abs(a - b) < 0.05 for a, b in zip(se, mine, strict=True)])
    rho = spearman(se, mine) if len(se) > 2 and len(set(se)) > 1 else float("nan")
    rho_score = spearman(se, score) if len(se) > 2 and len(set(se)) > 1 else float("nan")
    print(
        f"{label:<{width}} {len(chosen):>4} {rho:>9.3f} {rho_score:>8.3f} {near:>11.1%} {equal:>6.1%}"
    )


def known_figures() -> None:
    print(f"\n## Published ER figures ({load()})")
    for puzzle, er, where in PUBLISHED:
        rating = explain(parse(puzzle)).grade.rating
        print(f"  {puzzle}  published {er:>4}  rating {rating:>4}  ({where})")
    print("\n## Rated by hand with the published table")
    for puzzle, er, why in BY_HAND:
        rating = explain(parse(puzzle)).grade.rating
        print(f"  {puzzle}  by hand {er:>4}  rating {rating:>4}  ({why})")


def finders_up_to(rating: float, direct: bool) -> list[str]:
    """The engine's finders whose lowest rating is at most `rating` (with SE's box singles
    and direct hints lowering their finder's floor when `direct`)."""
    floors = {name: finder_floor(name) for name in TECHNIQUE_NAMES}
    if direct:
        for r, finder, _, _ in SE_TIERS:
            floors[finder] = min(floors[finder], r)
    return [name for name, floor in floors.items() if floor <= rating + 1e-9]


def needs(puzzle: str) -> tuple[float, bool, bool]:
    """(rating, solvable by the techniques its rating allows, solvable by a path rated at
    least 0.5 lower: by the techniques whose floor is that low, their chains short enough)."""
    rating = explain(parse(puzzle)).grade.rating
    allowed = finders_up_to(rating, direct=True)
    within = explain(parse(puzzle), techniques=allowed).solved_by_logic
    lower = explain(parse(puzzle), techniques=finders_up_to(rating - 0.5, direct=False))
    easier = lower.solved_by_logic and lower.grade.rating <= rating - 0.5 + 1e-9
    return rating, within or rating >= 10, rating < 10 and easier


def monotone(pool, sets, sample: int, seed: int) -> None:
    print(f"\n## Monotone in the techniques needed: {sample} puzzles a set (seed {seed})")
    print(
        f"{'set':<20} {'n':>3} {'ratings':>11} {'needs more than its rating':>27} "
        f"{'solvable 0.5 below':>19} {'seconds':>8}"
    )
    for name in sets:
        lines = (SHARED / "puzzles" / f"{name}.txt").read_text().split()
        chosen = random.Random(seed).sample(lines, min(sample, len(lines)))
        start = time.perf_counter()
        found = pool.map(needs, chosen, chunksize=1)
        took = time.perf_counter() - start
        ratings = [r for r, _, _ in found]
        over = sum(not ok for _, ok, _ in found)
        easier = sum(e for _, _, e in found)
        span = f"{min(ratings):.1f}-{max(ratings):.1f}"
        print(f"{name:<20} {len(found):>3} {span:>11} {over:>27} {easier:>19} {took:>8.0f}")
        for puzzle, (r, ok, e) in zip(chosen, found, strict=True):
            if not ok or e:
                print(f"    {puzzle} rating {r}: {'needs more' if not ok else 'easier way'}")
    print(f"({load()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=20, help="puzzles a set for part 3")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-se", action="store_true", help="skip part 1")
    parser.add_argument("--no-sets", action="store_true", help="skip part 3")
    args = parser.parse_args()
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED} not found: set SUDOKU_LENS_SHARED or put shared/ beside")
    print(f"# bench/rating.py: Grade.rating against Sudoku Explainer's ER ({args.workers} workers)")
    with Pool(args.workers) as pool:
        if not args.no_se:
            se_set(pool)
        known_figures()
        if not args.no_sets:
            monotone(pool, args.sets.split(","), args.sample, args.seed)


if __name__ == "__main__":
    main()
