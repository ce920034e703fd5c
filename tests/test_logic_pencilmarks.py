"""A player's own pencil marks: the readers, and `grid --marks/--all-steps/--hint`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from solver.grid import parse
from solver.logic import all_steps, explain, hint
from solver.logic.candidates import Candidates
from solver.logic.pencilmarks import (
    format_library_line,
    lost_digits,
    marks_for,
    read_pencilmarks,
)

REPO = Path(__file__).resolve().parent.parent
CLI = Path(sys.executable).with_name("sudoku-lens")
PUZZLE = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, cwd=REPO, timeout=300)


def _state_after(n_steps: int) -> Candidates:
    """The pencil marks a player has after the first `n_steps` steps of the explanation."""
    puzzle = parse(PUZZLE)
    e = explain(puzzle)
    grid = Candidates.from_values(puzzle.geometry, puzzle.values, puzzle.alphabet)
    for step in e.steps[:n_steps]:
        grid.apply(step)
    return grid


def test_library_line_and_candidate_grid_read_back_the_same_state():
    state = _state_after(6)
    line = format_library_line(state)
    for text in (line, state.format()):
        again = read_pencilmarks(text)
        assert np.array_equal(again.values, state.values)
        assert np.array_equal(again.marks, state.marks)
    assert "+" in line  # placed digits are told from givens
    placed = int(np.flatnonzero(state.values != parse(PUZZLE).values)[0])
    assert read_pencilmarks(line).given[0] and not read_pencilmarks(line).given[placed]


def test_bad_marks_are_named():
    with pytest.raises(ValueError, match="81 cells"):
        read_pencilmarks("12 34 5")
    with pytest.raises(ValueError, match="triple"):
        read_pencilmarks(":0000::" + "." * 81 + ":1234::")
    other = parse("5" + PUZZLE[1:])
    with pytest.raises(ValueError, match="do not match"):
        marks_for(other, format_library_line(_state_after(3)))


def test_lost_digits_names_a_wrongly_struck_candidate():
    state = _state_after(3)
    solution = explain(parse(PUZZLE)).solution
    assert lost_digits(state, solution) == []
    cell = int(np.flatnonzero(state.values == 0)[0])
    state.eliminate(cell, int(solution[cell]))
    assert "lost the candidate" in lost_digits(state, solution)[0]


def test_hint_and_all_steps_start_from_the_players_marks(tmp_path):
    state = _state_after(8)
    marks = tmp_path / "marks.txt"
    marks.write_text(state.format())
    done = run("grid", PUZZLE, "--marks", str(marks), "--hint")
    assert done.returncode == 0, done.stderr
    step = hint(state)
    assert done.stdout.strip() == f"{step.technique}: {step.text}"
    assert step.text != hint(parse(PUZZLE)).text  # the marks changed the answer
    listed = run("grid", PUZZLE, "--marks", str(marks), "--all-steps", "-f", "json")
    assert listed.returncode == 0, listed.stderr
    texts = [s["text"] for s in json.loads(listed.stdout)["steps"]]
    assert texts == [s.text for s in all_steps(state)]


def test_all_steps_text_groups_by_technique():
    done = run("grid", PUZZLE, "--all-steps")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("hidden single (1)\n  - r9c3 must be 7")
    assert "\nlocked candidates (claiming) (6)\n" in done.stdout


def test_marks_that_lost_the_solution_are_refused(tmp_path):
    state = _state_after(3)
    solution = explain(parse(PUZZLE)).solution
    cell = int(np.flatnonzero(state.values == 0)[0])
    state.eliminate(cell, int(solution[cell]))
    marks = tmp_path / "marks.txt"
    marks.write_text(format_library_line(state))
    done = run("grid", PUZZLE, "--marks", str(marks), "--hint")
    assert done.returncode == 1
    assert "disagree with the solution" in done.stderr
    marks.write_text("1 2 3")
    assert run("grid", PUZZLE, "--marks", str(marks), "--hint").returncode == 2


def test_http_grid_returns_all_steps_from_the_players_marks():
    from fastapi.testclient import TestClient

    from api.service import Settings, create_app

    state = _state_after(8)
    app = create_app(Settings(workers=1, queue_length=2, timeout_s=60))
    with TestClient(app) as client:
        plain = client.post("/v1/grid", json={"puzzle": PUZZLE, "all_steps": True})
        assert plain.status_code == 200, plain.text
        texts = [s["text"] for s in plain.json()["all_steps"]]
        assert texts == [s.text for s in all_steps(parse(PUZZLE))]
        own = client.post("/v1/grid", json={"puzzle": PUZZLE, "marks": state.format()})
        assert own.status_code == 200, own.text
        assert [s["text"] for s in own.json()["all_steps"]] == [s.text for s in all_steps(state)]
        bad = client.post("/v1/grid", json={"puzzle": PUZZLE, "marks": "1 2 3"})
        assert bad.status_code == 422 and "81 cells" in bad.text
