"""New puzzles made to order: `solver.generate`, `sudoku-lens new`, GET /v1/new and the sheet.

Every check re-derives what a puzzle promises with another part of the project than the one
that made it: uniqueness with DLX (the generator counts with the fast engine), the level and
rating with a fresh `explain`, symmetry and minimality from the board itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import numpy as np
import pytest
from service_support import shared_server

from solver import count_solutions, generate, parse
from solver.generate import SYMMETRIES, GenerateError, GenerateTimeout
from solver.logic import explain

EXE = Path(sys.executable).parent / "sudoku-lens"

# the images of (r, c) on an n x n board, m = n - 1, written out again here on purpose
IMAGES = {
    "none": [],
    "central": [lambda r, c, m: (m - r, m - c)],
    "rotational": [lambda r, c, m: (c, m - r)],
    "vertical": [lambda r, c, m: (r, m - c)],
    "horizontal": [lambda r, c, m: (m - r, c)],
    "diagonal": [lambda r, c, m: (c, r)],
    "antidiagonal": [lambda r, c, m: (m - c, m - r)],
    "dihedral": [lambda r, c, m: (c, m - r), lambda r, c, m: (r, m - c)],
}


def given(line: str) -> np.ndarray:
    n = int(len(line) ** 0.5)
    return np.array([ch != "." for ch in line]).reshape(n, n)


def symmetric(line: str, symmetry: str) -> bool:
    board = given(line)
    m = len(board) - 1
    return all(
        board[r, c] == board[f(r, c, m)]
        for f in IMAGES[symmetry]
        for r in range(m + 1)
        for c in range(m + 1)
    )


def unique(line: str, variant: str | None = None) -> bool:
    return count_solutions(parse(line, variant=variant), limit=2, method="dlx") == 1


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(EXE), *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "unfair", "extreme"])
def test_level_is_the_grade_of_a_fresh_explain_and_the_solution_unique(level):
    made = generate(level, count=2 if level != "extreme" else 1, seed=11)
    for m in made:
        assert unique(m.line)
        assert explain(m.line).grade.level == level == m.grade.level
        assert m.line.count(".") == 81 - m.puzzle.n_givens


@pytest.mark.parametrize("symmetry", SYMMETRIES)
def test_symmetry_holds_for_the_givens(symmetry):
    (m,) = generate(symmetry=symmetry, seed=5)
    assert symmetric(m.line, symmetry) and unique(m.line)


def test_a_pattern_without_symmetry_is_not_symmetric_by_accident():
    lines = [m.line for m in generate(count=3, seed=2)]
    assert not all(symmetric(line, "central") for line in lines)


@pytest.mark.parametrize("symmetry", ["none", "central"])
def test_minimal_means_no_given_can_go(symmetry):
    (m,) = generate("hard", minimal=True, symmetry=symmetry, seed=3)
    line = m.line
    assert unique(line) and symmetric(line, symmetry) and explain(line).grade.level == "hard"
    for k, ch in enumerate(line):
        if ch != ".":
            fewer = line[:k] + "." + line[k + 1 :]
            assert count_solutions(fewer, limit=2, method="dlx") == 2, f"r{k // 9 + 1}c{k % 9 + 1}"


def test_rating_range_is_met_by_the_grade():
    for m in generate(rating="6.6..7.2", count=2, seed=4):
        rating = explain(m.line).grade.rating
        assert 6.6 <= rating <= 7.2 and unique(m.line)


def test_same_seed_same_puzzles_other_seed_others():
    first = [m.line for m in generate("medium", count=2, seed=9)]
    assert first == [m.line for m in generate("medium", count=2, seed=9)]
    assert first != [m.line for m in generate("medium", count=2, seed=10)]


@pytest.mark.parametrize(
    ("options", "variant", "cells"),
    [
        ({"size": 4}, None, 16),
        ({"size": 6, "level": "medium"}, None, 36),
        ({"size": 16, "symmetry": "central"}, None, 256),
        ({"variant": "diagonal", "level": "hard"}, "diagonal", 81),
    ],
)
def test_other_boards_are_unique(options, variant, cells):
    (m,) = generate(seed=6, **options)
    assert len(m.line) == cells and unique(m.line, variant)
    if variant == "diagonal":
        solution = m.solution.values.reshape(9, 9)
        assert sorted(np.diag(solution)) == sorted(np.diag(solution[:, ::-1])) == list(range(1, 10))
        assert explain(parse(m.line, variant="diagonal")).grade.level == "hard"


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"level": "fiendish"}, "unknown level 'fiendish'"),
        ({"rating": "2.1..2.2"}, "no step of the project's logic is rated between 2.1 and 2.2"),
        ({"rating": "12..13"}, "scale runs from 1 to 11.9"),
        ({"rating": "7.2..6.6"}, "the low end 7.2 is above the high end 6.6"),
        ({"rating": "hard"}, "is not a range like 6.6..7.2"),
        ({"rating": (9.5, 3.0)}, "the low end 9.5 is above the high end 3"),
        ({"rating": "nan..7"}, "is not a range like 6.6..7.2"),
        ({"level": "hard", "rating": "4.2"}, "a level or a rating, not both"),
        ({"size": 7}, "size 7 is not made"),
        ({"size": 6, "variant": "diagonal"}, "diagonal needs square boxes"),
        ({"variant": "clover"}, "unknown variant 'clover'"),
        ({"symmetry": "spiral"}, "unknown symmetry 'spiral'"),
        ({"count": 0}, "count must be at least 1"),
    ],
)
def test_bad_orders_name_what_is_wrong(options, named):
    with pytest.raises(GenerateError, match=named.replace("(", r"\(").replace(".", r"\.")):
        generate(**options)


def test_time_limit_says_what_was_found():
    with pytest.raises(GenerateTimeout, match=r"9x9, extreme\) within the time limit of 0.01 s"):
        generate("extreme", seed=1, time_limit=0.01)


def test_the_grade_alarm_waits_for_numbas_compiler():
    """An alarm ringing inside numba's compiler broke the kernel it compiled (seen as "no
    compiled object yet" in a later grade): it must ring only once the compiler is done."""
    import time

    from numba.core.compiler_lock import global_compiler_lock

    from solver.generate import _alarm, _OutOfTime

    done = []
    with pytest.raises(_OutOfTime), _alarm(0.001):
        with global_compiler_lock:  # as a kernel's first call holds it
            end = time.monotonic() + 0.05
            while time.monotonic() < end:
                pass
            done.append("compiled")
        time.sleep(1)
    assert done == ["compiled"]


def test_cli_prints_one_puzzle_a_line_and_writes_a_sheet(tmp_path):
    sheet = tmp_path / "sheet.png"
    done = run("new", "--level", "hard", "-n", "2", "--symmetry", "central", "--seed", "1",
               "--sheet", str(sheet))  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    assert len(lines) == 2 and all(len(x) == 81 and unique(x) for x in lines)
    assert all(symmetric(x, "central") for x in lines)
    assert "made 2 (9x9, hard, central symmetry)" in done.stderr and sheet.stat().st_size > 0
    doc = json.loads(run("new", "--json", "--size", "4", "--seed", "2").stdout)
    assert len(doc["puzzle"]) == 16 and unique(doc["puzzle"]) and doc["givens"] >= 4


@pytest.mark.parametrize(
    ("args", "status", "named"),
    [
        (["--level", "fiendish"], 2, "'fiendish' is not one of"),
        (["--rating", "2.1..2.2"], 2, "rating '2.1..2.2' is impossible"),
        (["--size", "6", "--variant", "diagonal"], 2, "diagonal needs square boxes"),
        (["--sheet", "out.txt"], 2, "write a .pdf or a .png"),
        (["--seed", "-1"], 2, "seed must be 0 or more"),
        (["--level", "extreme", "--time-limit", "0.1", "--seed", "1"], 1, "time limit of 0.1 s"),
    ],
)
def test_cli_bad_options_exit_with_a_message(args, status, named):
    done = run("new", *args)
    assert done.returncode == status and named in done.stderr, done.stderr


def test_http_new_on_a_real_server():
    server = shared_server()
    answer = httpx.get(f"{server.url}/v1/new", params={"level": "hard", "count": 2, "seed": 1},
                       timeout=60)  # fmt: skip
    assert answer.status_code == 200, answer.text
    doc = answer.json()
    assert doc["order"] == "9x9, hard" and len(doc["puzzles"]) == 2
    for p in doc["puzzles"]:
        assert unique(p["puzzle"]) and p["level"] == "hard" and explain(p["puzzle"]).grade.level
    for params, status, named in [
        ({"level": "fiendish"}, 422, "unknown level 'fiendish'"),
        ({"rating": "2.1..2.2"}, 422, "rating '2.1..2.2' is impossible"),
        ({"size": 6, "variant": "diagonal"}, 422, "diagonal needs square boxes"),
        ({"count": 500}, 422, "count must be 1 to 20"),
        ({"seed": -1}, 422, "seed must be 0 or more"),
        ({"level": "extreme", "time_limit": 0.05}, 422, "within the time limit"),
    ]:
        refused = httpx.get(f"{server.url}/v1/new", params=params, timeout=60)
        error = refused.json()["error"]
        assert refused.status_code == status and named in error["message"], refused.text


def test_sheet_pages_and_files(tmp_path):
    from api.sheet import render_sheet, save_sheet

    made = generate("easy", count=7, seed=8)
    pages = render_sheet(made, dpi=50)
    assert len(pages) == 2
    pdf = save_sheet(pages, tmp_path / "s.pdf", dpi=50)
    assert pdf == [tmp_path / "s.pdf"] and pdf[0].read_bytes().count(b"/Type /Page\n") == 2
    pngs = save_sheet(pages, tmp_path / "s.png", dpi=50)
    assert [p.name for p in pngs] == ["s.png", "s-2.png"] and all(p.exists() for p in pngs)
    with pytest.raises(ValueError, match="write a .pdf or a .png"):
        save_sheet(pages, tmp_path / "s.jpg")


def test_sheet_photographed_reads_back_every_given():
    """The issue's round trip: print, photograph at an angle, read with the photo reader."""
    from api.photo.pipeline import solve_photo
    from api.sheet import layout, render_sheet
    from samples.synthetic import photograph_sheet

    made = generate("hard", count=4, symmetry="central", seed=12)
    pages = render_sheet(made, dpi=300)
    for k, (m, at) in enumerate(zip(made, layout(len(made), 9, 300), strict=True)):
        photo = photograph_sheet(np.asarray(pages[at.page]), at.origin, at.side, seed=k)
        result = solve_photo(photo.jpeg, render=False)
        assert result.read == m.line.replace(".", "0"), f"puzzle {k + 1}"
