"""`sudoku-lens grid --explain/--hint/--steps-json/--candidates` and the grade in `grid`
and `file --grade`, through the real console script in a subprocess."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from solver.grid import parse
from solver.logic import explain

REPO = Path(__file__).resolve().parent.parent
CLI = Path(sys.executable).with_name("sudoku-lens")
PUZZLE = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, cwd=REPO, timeout=300)


def test_hint_prints_only_the_next_step():
    done = run("grid", PUZZLE, "--hint")
    assert done.returncode == 0, done.stderr
    first = explain(parse(PUZZLE)).steps[0]
    assert done.stdout.strip() == f"{first.technique}: {first.text}"


def test_explain_numbers_every_step_and_ends_with_the_solution():
    expected = explain(parse(PUZZLE))
    done = run("grid", PUZZLE, "--explain")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    g = expected.grade
    assert lines[0].startswith(f"grade: {g.level} (ER {g.rating}; score {g.score}")
    numbers = [int(m) for m in re.findall(r"^\s+(\d+)\. ", done.stdout, re.M)]
    assert numbers == list(range(1, len(expected.steps) + 1))
    solution = "".join(str(v) for v in expected.solution)
    assert lines[-1] == solution


def test_explain_with_candidates_shows_pencil_marks():
    done = run("grid", PUZZLE, "--explain", "--candidates")
    assert done.returncode == 0, done.stderr
    # the first pencil-mark row of the starting grid: r1c1 holds the given 4
    assert re.search(r"^\s+4\s+12569\s", done.stdout, re.M)
    alone = run("grid", PUZZLE, "--candidates")
    rows = [r for r in alone.stdout.splitlines() if r.strip()]
    assert len(rows) == 9 and rows[0].split()[:2] == ["4", "12569"]


def test_steps_json_is_the_explanation():
    done = run("grid", PUZZLE, "--steps-json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc == json.loads(json.dumps(explain(parse(PUZZLE)).to_json()))


def test_grid_shows_a_grade_and_file_a_grade_column(tmp_path):
    grade = explain(parse(PUZZLE)).grade
    done = run("grid", PUZZLE)
    assert done.returncode == 0
    assert f"grade: {grade.level} (ER {grade.rating}; score {grade.score}" in done.stderr
    doc = json.loads(run("grid", PUZZLE, "-f", "json").stdout)
    assert doc["grade"] == grade.to_dict()
    listing = tmp_path / "two.txt"
    easy = "1-53---9----6-----------27182----------487---------53-23---------7-59-----6---8-4"
    listing.write_text(PUZZLE + "\n" + easy.replace("-", ".") + "\n")
    out = run("file", str(listing), "--grade")
    assert out.returncode == 0, out.stderr
    columns = [line.split() for line in out.stdout.splitlines()]
    assert columns[0][1:] == [grade.level, str(grade.score)]
    assert columns[1][1] == explain(parse(easy)).grade.level


def test_hint_on_an_invalid_puzzle_is_an_error_not_a_traceback():
    done = run("grid", "11" + "." * 79, "--hint")
    assert done.returncode == 1
    assert "r1c1 and r1c2 both hold 1" in done.stderr
    assert "Traceback" not in done.stderr
