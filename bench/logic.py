"""How far does logic get? Solved-by-logic rates, grades and speed on ../shared/puzzles.

For each set: the share of puzzles finished without a guess by
  - the full technique set (singles ... chains, unique rectangle, bounded forcing chains),
  - the chain-free set (singles, locked candidates, subsets, fish, wings, unique
    rectangle: roughly HoDoKu's techniques below chains, without finned fish, skyscrapers,
    kites and ALS, which we do not implement),
  - singles alone,
the distribution of grades (full set), and steps per second (explain() time, which includes
the solver's answer used for guesses; steps counted over all steps, guesses included).

Usage: python bench/logic.py [--sample N] [--sets a,b] [--seed S]
A set larger than N is subsampled at random (fixed seed) and the output says so.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

# Run as a script, this folder comes first on sys.path, and bench/solver.py would shadow
# the `solver` package: look for packages in the repository instead.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from solver.grid import parse  # noqa: E402
from solver.logic import explain  # noqa: E402
from solver.logic.explain import CHAIN_FREE  # noqa: E402
from solver.logic.grade import LEVELS  # noqa: E402

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "puzzles"
SETS = ("kaggle_style10000", "top1465", "hardest1106")
SINGLES = ("full house", "naked single", "hidden single")


def run(lines: list[str], techniques) -> tuple[list, float]:
    start = time.perf_counter()
    results = [explain(parse(line), techniques=techniques) for line in lines]
    return results, time.perf_counter() - start


def report(name: str, total: int, lines: list[str]) -> None:
    sampled = f" (random sample of {len(lines)} of {total})" if len(lines) < total else ""
    print(f"\n## {name}: {len(lines)} puzzles{sampled}")
    full, seconds = run(lines, None)
    steps = sum(len(e.steps) for e in full)
    n = len(lines)
    print(f"{'technique set':<34} {'solved by logic':>16}")
    rows = [("full (with chains, forcing chains)", full)]
    for label, names in (("chain-free (HoDoKu-like)", CHAIN_FREE), ("singles only", SINGLES)):
        rows.append((label, run(lines, names)[0]))
    for label, results in rows:
        solved = sum(e.solved_by_logic for e in results)
        print(f"{label:<34} {solved:>6}/{n} {100 * solved / n:6.1f}%")
    grades = Counter(e.grade.level for e in full)
    print("grades (full set): " + ", ".join(f"{lv} {grades[lv]}" for lv in LEVELS if grades[lv]))
    scores = sorted(e.grade.score for e in full)
    print(f"score: median {scores[n // 2]}, max {scores[-1]}")
    used = Counter(s.technique for e in full for s in e.steps)
    print("steps by technique: " + ", ".join(f"{t} {c}" for t, c in used.most_common()))
    print(
        f"speed (full set): {steps} steps in {seconds:.1f} s = {steps / seconds:,.0f} steps/s, "
        f"{1000 * seconds / n:.1f} ms/puzzle"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=1000, help="subsample sets above N")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--seed", type=int, default=6)
    args = parser.parse_args()
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED} not found: the puzzle sets live in ../shared/puzzles")
    print("# bench/logic.py: step-by-step logic on ../shared/puzzles")
    explain(parse("." * 80 + "1"))  # warm up: the solver's compiled code loads on first use
    for name in args.sets.split(","):
        lines = (SHARED / f"{name}.txt").read_text().split()
        chosen = lines
        if len(lines) > args.sample:
            chosen = random.Random(args.seed).sample(lines, args.sample)
        report(name, len(lines), chosen)


if __name__ == "__main__":
    main()
