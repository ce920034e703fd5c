"""Generator benchmark: seconds a new puzzle takes, by level, and that every one is what it says.

Run: `.venv/bin/python bench/generate.py [--quick] [--tdoku PATH]`. One process, one core
(the fast engine's single-thread calls, the logic engine in Python). Seeded: the same run
makes the same puzzles, so two runs differ only by the machine's load (printed).

- 9x9 by level, easy to extreme: seconds a puzzle (p50, p90, max), candidates drawn, and a
  check of each: exactly one solution (the fast engine and DLX, limit 2), the grade's level
  the asked one. Target: easy to hard p50 <= 0.2 s; unfair and extreme p50 <= 5 s or a clear
  message past the time limit (counted).
- central symmetry, minimal, a rating range (6.6..7.2 on SE's scale), 4x4, 6x6,
  diagonal 9x9: each checked for what it promises (the pattern's symmetry, that no given can
  go, the rating within the range).
- 16x16 with one solution: target <= 10 s a puzzle.
- uniqueness re-checked by tdoku (`../shared/peers/tdoku`, built with its build.sh):
  `tdoku_bench FILE count` over every 9x9 standard puzzle made; skipped, said so, without
  ../shared or a C++ compiler.
- sheet round trip: puzzles laid out by `api.sheet` (300 dpi), each grid photographed as a
  phone photo (`samples.synthetic.photograph_sheet`: angles, light, blur, noise, JPEG) and
  read by the photo reader (`api.photo.pipeline.solve_photo`): every given must read back.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from solver import count_solutions, generate  # noqa: E402
from solver.generate import GenerateTimeout, is_minimal, is_symmetric, make, make_order  # noqa: E402
from solver.grid import format_line  # noqa: E402

TDOKU = REPO / ".." / "shared" / "peers" / "tdoku"
LEVELS = ("easy", "medium", "hard", "unfair", "extreme")
TARGET_S = {"easy": 0.2, "medium": 0.2, "hard": 0.2, "unfair": 5.0, "extreme": 5.0}


def made_checked(order, n: int, seed: int, time_limit: float, check) -> dict:
    """Make `n` puzzles of `order` one at a time (a fresh time limit each); their seconds,
    candidates and how many passed `check` (uniqueness is always checked)."""
    seconds, walls, drawn, passed, timeouts, made = [], [], [], 0, 0, []
    for k in range(n):
        cpu = time.process_time()
        try:
            (m,) = make(order, count=1, seed=seed * 1000 + k, time_limit=time_limit)
        except GenerateTimeout:
            timeouts += 1
            seconds.append(time_limit)
            walls.append(time_limit)
            continue
        seconds.append(time.process_time() - cpu)
        walls.append(m.seconds)
        drawn.append(m.candidates)
        unique = all(count_solutions(m.puzzle, limit=2, method=e) == 1 for e in ("fast", "dlx"))
        passed += unique and check(m)
        made.append(m)
    return {
        "seconds": np.array(seconds),
        "wall": np.array(walls),
        "drawn": np.array(drawn or [0]),
        "passed": passed,
        "timeouts": timeouts,
        "made": made,
    }


def row(name: str, n: int, result: dict, target: float | None, every: bool = False) -> str:
    """A table row; `target` is for the p50, or for the slowest puzzle when `every`."""
    s = result["seconds"]
    p50 = float(np.median(s))
    verdict = ""
    if target is not None:
        figure, which = (float(s.max()), "max") if every else (p50, "p50")
        verdict = f"{which} <= {target:g} s: {'met' if figure <= target else 'NOT met'}"
    made = n - result["timeouts"]
    return (
        f"| {name:<24} | {n:>3} | {p50:7.3f} | {np.percentile(s, 90):7.3f} | {s.max():7.2f} | "
        f"{float(np.median(result['wall'])):7.3f} | {int(np.median(result['drawn'])):>5} | "
        f"{result['passed']:>3}/{made:<3} | {result['timeouts']:>3} | {verdict} |"
    )


HEADER = (
    "| order                    |   n | CPU p50 | CPU p90 | CPU max | wallp50 | cands | checked | t/o | target |\n"
    "|--------------------------|-----|---------|---------|---------|---------|-------|---------|-----|--------|"
)


def tdoku_binary(path: str | None) -> tuple[Path | None, str]:
    """tdoku_bench, built when needed; (None, why) when it cannot be."""
    if path:
        return Path(path), ""
    if not (TDOKU / "build.sh").exists():
        return None, "skipped: ../shared/peers/tdoku is absent"
    if shutil.which("g++") is None:
        return None, "skipped: no C++ compiler (g++) to build tdoku"
    out = Path(tempfile.gettempdir()) / "tdoku_bench"
    if not out.exists():
        built = subprocess.run(
            ["sh", str(TDOKU / "build.sh"), str(out)], capture_output=True, text=True
        )
        if built.returncode != 0:
            return None, f"skipped: tdoku did not build: {built.stderr.strip()[:200]}"
    return out, ""


def tdoku_counts(binary: Path, lines: list[str]) -> list[int]:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")  # tdoku reads "." as empty (and "0" as a digit)
    try:
        out = subprocess.run([str(binary), f.name, "count"], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    return [int(x) for x in out.stdout.split()]


def sheet_round_trip(made: list, seeds: int) -> tuple[int, int, int, int, float]:
    """(givens read right, givens printed, grids read exactly, grids, seconds a photo)."""
    from api.photo.pipeline import solve_photo
    from api.sheet import layout, render_sheet
    from samples.synthetic import photograph_sheet

    dpi = 300
    pages = render_sheet(made, dpi=dpi)
    right = total = exact = 0
    started = time.perf_counter()
    for k, (m, at) in enumerate(zip(made, layout(len(made), 9, dpi), strict=True)):
        for s in range(seeds):
            page = np.asarray(pages[at.page])
            photo = photograph_sheet(page, at.origin, at.side, seed=100 * k + s)
            read = solve_photo(photo.jpeg, render=False).read or "0" * 81
            want = m.line.replace(".", "0")
            given = [i for i, ch in enumerate(want) if ch != "0"]
            right += sum(read[i] == want[i] for i in given)
            total += len(given)
            exact += read == want
    photos = len(made) * seeds
    return right, total, exact, photos, (time.perf_counter() - started) / photos


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer puzzles a row")
    parser.add_argument("--tdoku", help="a built tdoku_bench (default: build ../shared's)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    n = 6 if args.quick else 20
    rare = 4 if args.quick else 10
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    started = time.perf_counter()
    generate("hard", seed=0)  # loads the compiled engines and the logic engine
    print(f"warm-up (engines loaded, not counted): {time.perf_counter() - started:.2f} s\n")

    print(HEADER)
    nine: list = []
    for level in LEVELS:
        order = make_order(level)
        count = n if level in ("easy", "medium", "hard") else rare
        limit = 60.0
        result = made_checked(order, count, args.seed, limit, lambda m, v=level: m.grade.level == v)
        nine += result["made"]
        print(row(f"9x9 {level}", count, result, TARGET_S[level]), flush=True)
    extras = [
        ("9x9 hard, central", make_order("hard", symmetry="central"), None),
        ("9x9 medium, minimal", make_order("medium", minimal=True), None),
        ("9x9 rated 6.6..7.2", make_order(rating="6.6..7.2"), None),
        ("9x9 no level, dihedral", make_order(symmetry="dihedral"), None),
        ("diagonal 9x9 hard", make_order("hard", variant="diagonal"), None),
        ("4x4", make_order(size=4), None),
        ("6x6 medium", make_order("medium", size=6), None),
        ("16x16", make_order(size=16), 10.0),
        ("16x16 central", make_order(size=16, symmetry="central"), 10.0),
    ]
    for name, order, target in extras:
        count = rare if order.size == 16 or order.rating else n // 2

        def check(m, order=order):
            g = m.puzzle.geometry
            ok = is_symmetric(m.puzzle.values, g, order.symmetry)
            if order.minimal:
                ok = ok and is_minimal(m.puzzle.values, g)
            if order.level:
                ok = ok and m.grade.level == order.level
            if order.rating:
                ok = ok and order.rating[0] <= m.grade.rating <= order.rating[1]
            return ok

        result = made_checked(order, count, args.seed, 60.0, check)
        if order.size == 9 and order.variant == "standard":
            nine += result["made"]
        print(row(name, count, result, target, every=order.size == 16), flush=True)
    print(
        "\nseconds a puzzle: CPU time of this process (one core; the machine is shared, so "
        "wall time is also shown); cands: full grids drawn a puzzle (median); checked: exactly "
        "one solution (fast engine and DLX, limit 2) and what the order promises (level, "
        "rating, symmetry, minimal); t/o: time limit (60 s) passed, counted as 60 s"
    )

    binary, why = tdoku_binary(args.tdoku)
    if binary is None:
        print(f"\ntdoku uniqueness re-check: {why}")
    else:
        counts = tdoku_counts(binary, [m.line for m in nine])
        unique = sum(c == 1 for c in counts)
        print(
            f"\ntdoku uniqueness re-check (tdoku_bench FILE count): {unique}/{len(nine)} 9x9 "
            f"puzzles have exactly one solution"
            + ("" if len(counts) == len(nine) else f" ({len(counts)} answers)")
        )

    sheet = generate("hard", count=6, symmetry="central", seed=args.seed)
    seeds = 1 if args.quick else 3
    right, total, exact, photos, per = sheet_round_trip(sheet, seeds)
    print(
        f"\nsheet round trip (6 puzzles at 300 dpi, {photos} synthetic phone photos, "
        f"{per:.2f} s each): {right}/{total} givens read back, {exact}/{photos} grids "
        f"exactly; target every given: {'met' if right == total else 'NOT met'}"
    )
    print("\nsome of the 9x9 puzzles made, for the record:")
    for m in nine[:: max(1, len(nine) // 6)][:6]:
        print(f"  {format_line(m.puzzle)}  {m.grade.level} ER {m.grade.rating}")
    load = os.getloadavg()
    print(f"\nload average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
