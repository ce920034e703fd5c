"""Property tests (hypothesis): solutions obey every constraint and keep every given; the
engines (and the plain tier) agree on counts; text round-trips through every format."""

from __future__ import annotations

from functools import cache

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import fast, parse, plain, solve
from solver.grid import format_line, format_pretty, format_rows

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SHAPES = ("." * 16, "." * 36, "." * 81)  # 4x4, 6x6 (2x3 boxes), 9x9
VARIANTS = (None, None, None, "diagonal")


@cache
def solved_board(shape: str, variant: str | None):
    puzzle = parse(shape, variant=variant)
    return puzzle, solve(puzzle, limit=1).solution


@st.composite
def puzzles(draw, shapes=SHAPES, variants=VARIANTS):
    """A puzzle cut from a relabelled full grid (so it has at least one solution), or,
    sometimes, with a few random givens added (which may clash or leave none)."""
    shape = draw(st.sampled_from(shapes))
    variant = draw(st.sampled_from(variants)) if shape == "." * 81 else None
    empty, full = solved_board(shape, variant)
    size = empty.size
    relabel = np.array([0, *draw(st.permutations(range(1, size + 1)))], np.int8)
    grid = relabel[full]
    keep = draw(st.lists(st.booleans(), min_size=len(grid), max_size=len(grid)))
    values = np.where(keep, grid, 0).astype(np.int8)
    if size == 9 and np.count_nonzero(values) < 22:
        # Few givens on 9x9 mean huge counts; top up to keep enumeration cheap.
        extra = draw(st.lists(st.integers(0, 80), min_size=22, max_size=22))
        values[extra] = grid[extra]
    noise = draw(
        st.lists(st.tuples(st.integers(0, len(grid) - 1), st.integers(1, size)), max_size=2)
    )
    for cell, v in noise:
        values[cell] = v
    return empty.with_values(values)


def obeys_every_constraint(puzzle, values) -> bool:
    full = set(range(1, puzzle.size + 1))
    if any({int(values[c]) for c in unit} != full for unit in puzzle.geometry.units):
        return False
    return bool(((puzzle.values == 0) | (puzzle.values == values)).all())


@SETTINGS
@given(puzzles(shapes=("." * 81,), variants=(None,)))
def test_bitboard_and_generic_kernels_agree_on_nine_by_nine(puzzle):
    # solver.bands answers for solver.fast on plain 9x9 boards; the generic kernel is the
    # independent check (same counts up to the limit, every solution valid)
    assert fast.is_standard_9(puzzle.geometry)
    values = puzzle.values[None, :]
    for limit in (1, 3):
        counts, solutions = fast.solve_batch(values, limit=limit)
        generic, _ = fast.solve_batch(values, limit=limit, generic=True)
        assert counts[0] == generic[0]
        if counts[0]:
            assert obeys_every_constraint(puzzle, solutions[0])


@SETTINGS
@given(puzzles(), st.sampled_from(("fast", "dlx")))
def test_solutions_obey_every_constraint_and_keep_givens(puzzle, method):
    result = solve(puzzle, method=method, limit=3)
    assert result.status in ("unique", "multiple", "none", "invalid")
    assert len(result.solutions) == min(result.count, 3)
    for values in result.solutions:
        assert obeys_every_constraint(puzzle, values)
    assert len({v.tobytes() for v in result.solutions}) == len(result.solutions)
    if result.status in ("none", "invalid"):
        assert result.reason and not result.solutions


@SETTINGS
@given(puzzles())
def test_fast_and_dlx_agree_on_counts(puzzle):
    fast = solve(puzzle, method="fast", limit=20)
    dlx = solve(puzzle, method="dlx", limit=20)
    assert (fast.status, fast.count) == (dlx.status, dlx.count)
    if fast.status == "unique":
        assert np.array_equal(fast.solution, dlx.solution)


@SETTINGS
@given(puzzles())
def test_plain_tier_agrees_with_dlx(puzzle):
    """The plain search answers one-off puzzles in a fresh process; it must count alike."""
    dlx = solve(puzzle, method="dlx", limit=20)
    if dlx.status == "invalid":
        return
    count, solutions = plain.search(puzzle, limit=20, keep=20)
    assert count == dlx.count
    if count < 20:  # below the cap both hold every solution, whatever the search order
        assert {s.tobytes() for s in solutions} == {s.tobytes() for s in dlx.solutions}


BOARDS = st.sampled_from(
    [
        (16, None),
        (36, None),
        (81, None),
        (81, "diagonal"),
        (256, None),
        (256, "0123456789ABCDEF"),
        (441, None),
    ]
)


@settings(max_examples=60, deadline=None)
@given(BOARDS, st.data())
def test_parse_format_round_trip(board, data):
    length, extra = board
    variant = "diagonal" if extra == "diagonal" else None
    alphabet = extra if extra and extra != "diagonal" else None
    empty = parse("." * length, variant=variant, alphabet=alphabet)
    n, size = empty.geometry.n_cells, empty.size
    values = np.array(data.draw(st.lists(st.integers(0, size), min_size=n, max_size=n)), np.int8)
    puzzle = empty.with_values(values)
    assert parse(format_line(puzzle), variant=variant, alphabet=puzzle.alphabet) == puzzle
    assert parse(format_rows(puzzle), variant=variant, alphabet=puzzle.alphabet) == puzzle
    if empty.geometry.is_square_board:
        assert parse(format_pretty(puzzle), variant=variant, alphabet=puzzle.alphabet) == puzzle
    blank = data.draw(st.sampled_from("0.?-_"))
    if blank not in puzzle.alphabet and empty.geometry.is_square_board:
        assert (
            parse(format_line(puzzle, blank=blank), variant=variant, alphabet=puzzle.alphabet)
            == puzzle
        )
