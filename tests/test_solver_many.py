"""solver.solve_many: many text lines at once, one outcome per line, the same as one by one."""

from __future__ import annotations

import pytest

from solver import many as many_module
from solver import parse, solve, solve_many

PUZZLE = (
    "1-53---9-" "---6-----" "------271" "82-------" "---487---" "------53-"
    "23-------" "--7-59---" "--6---8-4"
)  # fmt: skip


def test_each_line_gets_the_outcome_solve_gives_it():
    sixteen = "-" * 256
    four = "12343412214343.."
    lines = [PUZZLE, "11" + "." * 79, "x" * 81, "." * 81, four, sixteen, "-" + PUZZLE[1:]]

    outcomes = solve_many(lines)

    assert [o.status for o in outcomes] == [
        "unique", "invalid", "unreadable", "multiple", "unique", "multiple", "multiple",
    ]  # fmt: skip
    assert outcomes[0].solution == "".join(map(str, solve(parse(PUZZLE)).solutions[0]))
    assert outcomes[4].solution == "1234341221434321"
    assert "r1c1" in outcomes[1].reason and outcomes[2].reason
    assert all(o.solution is None for o in outcomes[1:4])


def test_first_mode_takes_a_solution_of_an_open_board_and_threads_agree():
    lines = [PUZZLE, "." * 81, "." * 256] * 50
    one = solve_many(lines, unique=False, workers=1)
    threads = solve_many(lines, unique=False, workers=2)
    assert [o.status for o in one] == ["solved"] * 150
    assert [o.solution for o in one] == [o.solution for o in threads]
    board = one[2].solved_board()
    assert board.size == 16 and board.n_givens == 256


def test_a_line_without_solution_says_why():
    # the givens are consistent but leave r1c9 no digit
    line = "12345678........9." + "." * 63
    (outcome,) = solve_many([line])
    assert outcome.status == "none" and outcome.reason


@pytest.mark.parametrize("method", ["fast", "dlx"])
def test_both_methods_agree(method):
    outcomes = solve_many([PUZZLE, "." * 16, "11" + "." * 14], method=method)
    assert [o.status for o in outcomes] == ["unique", "multiple", "invalid"]


def test_plain_values_takes_every_blank_mark_and_nothing_else():
    lines = ["0.?-_" + "1" * 76, "1" * 80 + "a", "1" * 80]
    picked, values = many_module.plain_values(lines)
    assert picked.tolist() == [0]
    assert values[0, :6].tolist() == [0, 0, 0, 0, 0, 1]


def test_a_slow_warm_up_says_it_is_compiling(monkeypatch):
    import importlib
    import time

    module = importlib.import_module("solver.solve")  # `solver.solve` is also the function
    told = []
    original = module.solve

    def slow(*args, **kwargs):  # as a compile would be
        time.sleep(0.3)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, "solve", slow)
    monkeypatch.setattr(many_module, "COMPILE_NOTICE_AFTER", 0.05)
    many_module.warm_up(on_compile=lambda: told.append(True))
    assert told == [True]


def test_a_quick_warm_up_says_nothing():
    many_module.warm_up()  # compiled (or loaded) once
    told = []
    many_module.warm_up(on_compile=lambda: told.append(True))
    assert told == []
