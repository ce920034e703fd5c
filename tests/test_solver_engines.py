"""Known-answer tests of both engines and the solve API (solver.dlx, solver.fast, solver.solve)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from solver import count_solutions, is_unique, parse, solve
from solver.dlx import ExactCover
from solver.fast import count_solutions_81, solve_batch, solve_parallel
from solver.geometry import Geometry

TN1 = "1.53...9....6...........27182..........487.........53.23.........7.59.....6...8.4"
TN1_SOLUTION = "175328496942671385368594271829135647653487912714962538231846759487259163596713824"
# tn1 with r3c4 = 9: no clash among the givens, yet no solution (found only by search).
TN1_UNSOLVABLE = "1.53...9....6........9..27182..........487.........53.23.........7.59.....6...8.4"
# tn1 without its r1c1 given: several solutions.
TN1_MULTIPLE = "..53...9....6...........27182..........487.........53.23.........7.59.....6...8.4"
# Arto Inkala's 2010 "hardest sudoku" (published in the press); unique.
INKALA = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."
METHODS = ("fast", "dlx")


def is_solution(puzzle, values: np.ndarray) -> bool:
    """Every unit holds every symbol once and every given is kept."""
    g = puzzle.geometry
    full = set(range(1, g.size + 1))
    units_ok = all({int(values[c]) for c in unit} == full for unit in g.units)
    givens = puzzle.values
    return units_ok and bool(((givens == 0) | (givens == values)).all())


@pytest.mark.parametrize("method", METHODS)
def test_known_answer_tn1(method):
    result = solve(parse(TN1), method=method)
    assert result.status == "unique" and result.count == 1
    assert "".join(map(str, result.solution)) == TN1_SOLUTION


@pytest.mark.parametrize("method", METHODS)
def test_invalid_givens_name_the_cells(method):
    result = solve(parse("5" + TN1[1:20] + "5" + TN1[21:]), method=method)
    assert result.status == "invalid"
    assert "r1c1 and r3c3 both hold 5" in result.reason


@pytest.mark.parametrize("method", METHODS)
def test_unsolvable_puzzle(method):
    puzzle = parse(TN1_UNSOLVABLE)
    result = solve(puzzle, method=method)
    assert result.status == "none" and result.solutions == [] and result.reason
    assert count_solutions(puzzle, method=method) == 0


@pytest.mark.parametrize("method", METHODS)
def test_multiple_solutions_show_two_that_differ(method):
    puzzle = parse(TN1_MULTIPLE)
    result = solve(puzzle, method=method)
    assert result.status == "multiple" and result.count == 2
    a, b = result.solutions
    assert not np.array_equal(a, b)
    assert is_solution(puzzle, a) and is_solution(puzzle, b)
    assert not is_unique(puzzle, method=method)


def test_reason_names_the_constraint_that_empties_first():
    # Row 1 holds 1-8 and r2c9 holds 9: r1c9 has no candidate left.
    puzzle = parse("12345678." + "........9" + "." * 63)
    for method in METHODS:
        result = solve(puzzle, method=method)
        assert result.status == "none" and "r1c9" in result.reason


def test_count_and_enumerate_small_boards():
    empty4 = parse("." * 16)
    # 288 is the number of 4x4 sudoku grids.
    assert count_solutions(empty4, method="fast") == 288
    assert count_solutions(empty4, method="dlx") == 288
    listed = solve(empty4, method="dlx", limit=300).solutions
    assert len({tuple(s) for s in listed}) == 288
    assert all(is_solution(empty4, s) for s in listed)


@pytest.mark.parametrize("text", [INKALA, "." * 36, "." * 256, "." * 625])
def test_every_size_solves_with_both_engines(text):
    puzzle = parse(text)
    for method in METHODS:
        result = solve(puzzle, method=method, limit=1)
        assert result.status in ("unique", "multiple")
        assert is_solution(puzzle, result.solution)


def test_diagonal_solutions_fill_both_diagonals():
    puzzle = parse("." * 81, variant="diagonal")
    for method in METHODS:
        values = solve(puzzle, method=method).solution.reshape(9, 9)
        assert sorted(np.diag(values)) == list(range(1, 10))
        assert sorted(np.diag(values[:, ::-1])) == list(range(1, 10))


def test_seed_examples_are_unique_with_both_engines(shared_dir):
    text = (shared_dir / "puzzles" / "seed_examples.md").read_text()
    blocks = re.findall(r"```\n(.*?)```", text, re.S)
    stated = re.search(r"row by row: ([\d ]+)", text).group(1).replace(" ", "")
    for block in blocks:
        puzzle = parse(block)
        answers = [solve(puzzle, method=m) for m in METHODS]
        assert [a.status for a in answers] == ["unique", "unique"]
        assert np.array_equal(answers[0].solution, answers[1].solution)
        assert is_solution(puzzle, answers[0].solution)
    assert "".join(map(str, solve(parse(blocks[0])).solution)) == stated


def test_batch_parallel_and_photo_entry_agree(shared_dir):
    lines = (shared_dir / "puzzles" / "top1465.txt").read_text().split()[:200]
    values = np.array([[0 if ch == "." else int(ch) for ch in line] for line in lines], np.int8)
    counts, solutions = solve_batch(values, limit=2)
    pcounts, psolutions = solve_parallel(values, limit=2, workers=2)
    assert (counts == 1).all() and (pcounts == 1).all()
    assert np.array_equal(solutions, psolutions)
    for i in (0, 57, 199):
        count, first = count_solutions_81(values[i], 2)
        assert count == 1 and np.array_equal(first, solutions[i])
        assert is_solution(parse(lines[i]), first)


def test_dlx_agrees_with_fast_on_hard_puzzles(shared_dir):
    from solver import dlx
    from solver.geometry import for_size

    lines = (shared_dir / "puzzles" / "hardest11plus1000.txt").read_text().split()[:60]
    values = np.array([[0 if ch == "." else int(ch) for ch in line] for line in lines], np.int8)
    dcounts, dsolutions = dlx.solve_batch(values, for_size(9), limit=2)
    fcounts, fsolutions = solve_batch(values, limit=2)
    assert np.array_equal(dcounts, fcounts) and (fcounts == 1).all()
    assert np.array_equal(dsolutions, fsolutions)


@pytest.mark.parametrize("name", ["top1465.txt", "hardest11plus1000.txt"])
def test_bitboard_kernel_agrees_with_the_generic_kernel_on_whole_sets(shared_dir, name):
    lines = (shared_dir / "puzzles" / name).read_text().split()
    values = np.array([[0 if ch == "." else int(ch) for ch in line] for line in lines], np.int8)
    counts, solutions = solve_batch(values, limit=2)
    generic, generic_solutions = solve_batch(values, limit=2, generic=True)
    assert (counts == 1).all() and np.array_equal(counts, generic)
    assert np.array_equal(solutions, generic_solutions)


def test_only_the_plain_nine_by_nine_board_goes_to_the_bitboard_kernel():
    from solver.fast import is_standard_9

    assert is_standard_9(parse("." * 81).geometry)
    assert not is_standard_9(parse("." * 81, variant="diagonal").geometry)
    assert not is_standard_9(parse("." * 36).geometry)
    # the diagonal variant still gets its own units: a solution obeys both diagonals
    diagonal = parse("." * 81, variant="diagonal")
    counts, solutions = solve_batch(diagonal.values[None, :], diagonal.geometry)
    assert counts[0] == 1 and is_solution(diagonal, solutions[0])


# ----------------------------------------------------------------------------- exact cover


def test_exact_cover_knuth_example():
    # Knuth's example from "Dancing Links": the unique cover is rows 0, 3, 4.
    rows = [[2, 4, 5], [0, 3, 6], [1, 2, 5], [0, 3], [1, 6], [3, 4, 6]]
    problem = ExactCover(7, rows)
    assert list(problem.solutions()) == [[0, 3, 4]]
    assert problem.count() == 1


def test_exact_cover_secondary_columns_n_queens():
    # Eight queens: ranks and files primary, diagonals secondary. 92 solutions.
    n = 8
    rows = [
        [r, n + c, 2 * n + r + c, 2 * n + (2 * n - 1) + r - c + n - 1]
        for r in range(n)
        for c in range(n)
    ]
    problem = ExactCover(2 * n + 2 * (2 * n - 1), rows, n_primary=2 * n)
    assert problem.count() == 92


PENTOMINOES = {
    "F": [(0, 1), (0, 2), (1, 0), (1, 1), (2, 1)],
    "I": [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)],
    "L": [(0, 0), (1, 0), (2, 0), (3, 0), (3, 1)],
    "N": [(0, 1), (1, 1), (2, 0), (2, 1), (3, 0)],
    "P": [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)],
    "T": [(0, 0), (0, 1), (0, 2), (1, 1), (2, 1)],
    "U": [(0, 0), (0, 2), (1, 0), (1, 1), (1, 2)],
    "V": [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)],
    "W": [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2)],
    "X": [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)],
    "Y": [(0, 1), (1, 0), (1, 1), (2, 1), (3, 1)],
    "Z": [(0, 0), (0, 1), (1, 1), (2, 1), (2, 2)],
}


def orientations(cells):
    shapes = set()
    for flip in (False, True):
        pts = [(r, -c) if flip else (r, c) for r, c in cells]
        for _ in range(4):
            pts = [(c, -r) for r, c in pts]
            r0 = min(r for r, _ in pts)
            c0 = min(c for _, c in pts)
            shapes.add(tuple(sorted((r - r0, c - c0) for r, c in pts)))
    return shapes


def test_exact_cover_pentomino_packing_3x20():
    # The 3x20 rectangle has exactly 2 packings up to symmetry, 8 counting its 4 symmetries.
    height, width = 3, 20
    rows = []
    for p, name in enumerate(PENTOMINOES):
        for shape in orientations(PENTOMINOES[name]):
            h = 1 + max(r for r, _ in shape)
            w = 1 + max(c for _, c in shape)
            for r0 in range(height - h + 1):
                for c0 in range(width - w + 1):
                    rows.append([p] + [12 + (r0 + r) * width + c0 + c for r, c in shape])
    problem = ExactCover(12 + height * width, rows)
    covers = list(problem.solutions(limit=100))
    assert len(covers) == 8
    for cover in covers:
        squares = sorted(col for r in cover for col in rows[r] if col >= 12)
        assert squares == list(range(12, 72))


def test_exact_cover_rejects_bad_rows():
    with pytest.raises(ValueError, match="outside"):
        ExactCover(3, [[0, 3]])
    with pytest.raises(ValueError, match="no column"):
        ExactCover(3, [[]])


def test_clover_geometry_is_exact_cover_of_five_grids():
    from solver.geometry import clover

    g: Geometry = clover()
    result = solve(parse("." * 441, variant="clover"), method="dlx", limit=1)
    assert g.n_cells == 369 and is_solution(parse("." * 441), result.solution)


def test_plain_search_stops_at_its_budget():
    from solver import plain

    with pytest.raises(plain.BudgetExceeded):
        plain.search(parse("." * 81), limit=10**6, budget=50)
    count, solutions = plain.search(parse(INKALA), budget=3000)
    assert count == 1 and is_solution(parse(INKALA), solutions[0])


@pytest.mark.parametrize(
    ("budget", "compiled"), [(3000, False), (1, True)], ids=["plain-answers", "falls-through"]
)
def test_fresh_process_uses_the_plain_tier_until_its_budget_runs_out(budget, compiled):
    """A one-off solve skips numba's start-up unless the puzzle outgrows the plain search."""
    import subprocess
    import sys

    code = (
        "import sys, solver\n"
        f"sys.modules['solver.solve'].PLAIN_BUDGET = {budget}\n"
        f"r = solver.solve({INKALA!r})\n"
        "print(r.status, ''.join(map(str, r.solution)), 'solver.fast' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    status, solution, loaded = out.stdout.split()
    assert status == "unique" and is_solution(parse(INKALA), np.array(list(solution), np.int8))
    assert loaded == str(compiled)
