"""Are the logic engine's steps ever wrong? 2,000 puzzles from every set, checked.

Draws PER_SET puzzles (default 400) from each of the five sets in ../shared/puzzles (a fixed
seed; hardest1106 has 375, the set after it makes up the rest), explains each and, at every STRIDE-th explain state (default 1: every state), runs
`all_steps` with every technique and checks each placement and elimination against the
unique solution (tests/test_logic_soundness.py does the same on a small sample). Prints
the counts per set and every wrong step (there should be none).

Usage: python bench/soundness.py [--per-set N] [--stride K] [--no-forcing]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from solver.logic.explain import TECHNIQUE_NAMES  # noqa: E402
from tests import test_logic_soundness as soundness  # noqa: E402


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-set", type=int, default=400)
    parser.add_argument("--stride", type=int, default=1)
    parser.add_argument("--sets", default=",".join(soundness.SETS))
    parser.add_argument("--no-forcing", action="store_true", help="leave out forcing chains")
    args = parser.parse_args()
    if not soundness.PUZZLES.is_dir():
        raise SystemExit(f"{soundness.PUZZLES} not found")
    names = [n for n in TECHNIQUE_NAMES if not (args.no_forcing and n == "forcing chain")]
    print(
        f"# bench/soundness.py: {args.per_set} puzzles per set, every {args.stride}. explain "
        f"state, {len(names)} techniques ({load()})",
        flush=True,
    )
    start = time.perf_counter()
    total = soundness.Tally()
    by_set: dict[str, soundness.Tally] = {}
    for name, line in soundness.draw(args.per_set, sets=args.sets.split(",")):
        tally = soundness.check_puzzle(line, args.stride, names)
        by_set.setdefault(name, soundness.Tally()).add(tally)
        total.add(tally)
        for wrong in tally.wrong:
            print("WRONG", *wrong, flush=True)
    print(f"{'set':<20} {'puzzles':>8} {'states':>8} {'steps':>9} {'changes':>10} {'wrong':>6}")
    for name, t in [*by_set.items(), ("total", total)]:
        print(
            f"{name:<20} {t.puzzles:>8} {t.states:>8} {t.steps:>9} {t.changes:>10} "
            f"{len(t.wrong):>6}"
        )
    print(f"({time.perf_counter() - start:.0f} s, {load()})")


if __name__ == "__main__":
    main()
