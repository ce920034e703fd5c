"""How strong and how fast is the logic engine? HoDoKu's library, then hard puzzle sets.

1. HoDoKu's regression library (../shared/datasets/hodoku/reglib-1.3.txt): cases passed per
   technique code and in total, with the run time (HoDoKu runs its 1,112 cases in 18 s on
   the 2-core development machine). The code -> technique mapping is the one in
   tests/test_logic_reglib.py; "not implemented" rows are codes with no technique yet. A
   continuous loop passes also when it makes the listed eliminations and more, all sound
   (the test's MORE_THAN_LISTED); the benchmark says how many did.
2. For top1465 and hardest1106: the share of puzzles finished without forcing chains,
   nets, templates or guesses (techniques are tried easiest first and those come last, so
   a puzzle whose explanation uses none of them is exactly one that the set without them
   finishes), and `explain` time per puzzle, mean and p90, on one core (this process).

Usage: python bench/logic.py [--sample N | --first N] [--sets a,b] [--seed S] [--no-reglib]
A set larger than N is subsampled at random (fixed seed), or cut to its first N puzzles
(HoDoKu's published share is of top1465's first 300), and the output says so. The
load average is printed beside the timings: the machine is shared, timings are noisy.
Set SUDOKU_LENS_SHARED when ../shared is elsewhere (a git worktree).
"""

from __future__ import annotations

import argparse
import os
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

import numpy as np  # noqa: E402

from solver.grid import parse  # noqa: E402
from solver.logic import explain  # noqa: E402
from tests import test_logic_reglib as reglib  # noqa: E402

SHARED = Path(os.environ.get("SUDOKU_LENS_SHARED", HERE.parent.parent / "shared"))
SETS = ("top1465", "hardest1106")
LAST_RESORT = ("forcing chain", "forcing net", "template", "guess")


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def reglib_table() -> None:
    print(f"\n## HoDoKu reglib-1.3 ({load()})")
    start = time.perf_counter()
    by_code = reglib.results()
    seconds = time.perf_counter() - start
    names = {code: name for code, (name, _) in reglib.CODES.items()}
    names.update({code: name for code, (name, _) in reglib.UNSUPPORTED.items()})
    print(f"{'code':<6} {'technique':<38} {'passed':>9}")
    passed = total = full = 0
    more = []
    for code in sorted(by_code):
        ok, n = sum(bool(p) for _, p in by_code[code]), len(by_code[code])
        passed, total, full = passed + ok, total + n, full + (ok == n)
        more += [number for number, p in by_code[code] if p == "more"]
        note = "" if code in reglib.CODES else "  (not implemented)"
        print(f"{code:<6} {names.get(code, '?'):<38} {ok:>4}/{n:<4}{note}")
    print(
        f"total: {passed}/{total} cases ({100 * passed / total:.1f}%), {full} of "
        f"{len(by_code)} technique codes fully passed, in {seconds:.1f} s"
    )
    if more:
        print(
            f"exactly the listed changes: {passed - len(more)}/{total}; the other {len(more)} "
            f"(lines {', '.join(map(str, more))}) are continuous loops that make the listed "
            "eliminations and more, all sound (HoDoKu leaves out the loop's own cells, and on "
            "one line an ALS's locked digit)"
        )


def puzzle_set(name: str, total: int, lines: list[str], first: bool = False) -> None:
    sampled = ""
    if len(lines) < total:
        sampled = f" ({'the first' if first else 'random sample of'} {len(lines)} of {total})"
    times, cpu, finished, used, kraken, no_guess = [], [], 0, Counter(), 0, 0
    for line in lines:
        puzzle = parse(line)
        start, start_cpu = time.perf_counter(), time.process_time()
        e = explain(puzzle)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        kinds = {s.technique for s in e.steps}
        done = not any(k.startswith(LAST_RESORT) for k in kinds)
        finished += done
        kraken += done and "kraken fish" in kinds
        no_guess += "guess" not in kinds
        used.update(kinds)
    n = len(lines)
    ms, cpu_ms = 1000 * np.array(times), 1000 * np.array(cpu)
    print(f"\n## {name}: {n} puzzles{sampled} ({load()})")
    print(
        f"finished without forcing chains, nets, templates or guesses: {finished}/{n} "
        f"({100 * finished / n:.1f}%); {kraken} of them with kraken fish (HoDoKu files them "
        f"as a last resort and its default solver leaves them off), {finished - kraken} "
        f"without ({100 * (finished - kraken) / n:.1f}%)"
    )
    print(f"finished without a guess (forcing chains, nets and templates allowed): {no_guess}/{n}")
    print(
        f"explain time per puzzle: mean {ms.mean():.1f} ms, p90 {np.percentile(ms, 90):.1f} ms "
        f"(CPU time of this process: mean {cpu_ms.mean():.1f} ms, p90 "
        f"{np.percentile(cpu_ms, 90):.1f} ms; the wall time counts other work on the machine)"
    )
    print("puzzles using each technique: " + ", ".join(f"{t} {c}" for t, c in used.most_common()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=100_000, help="subsample sets above N")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--first", type=int, default=None, help="only each set's first N")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--no-reglib", action="store_true")
    args = parser.parse_args()
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED} not found: set SUDOKU_LENS_SHARED or put shared/ beside")
    print("# bench/logic.py: the human-style logic engine (one core)")
    explain(parse("." * 80 + "1"))  # warm up: the solver's compiled code loads on first use
    if not args.no_reglib:
        reglib_table()
    for name in args.sets.split(","):
        lines = (SHARED / "puzzles" / f"{name}.txt").read_text().split()
        chosen = lines
        if args.first is not None:
            chosen = lines[: args.first]
        elif len(lines) > args.sample:
            chosen = random.Random(args.seed).sample(lines, args.sample)
        puzzle_set(name, len(lines), chosen, first=args.first is not None)


if __name__ == "__main__":
    main()
