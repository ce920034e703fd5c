"""The compiled Franken/mutant fish search (`solver.logic.fish_kernel`) against the Python
search it replaces (still used for digits with more places than the kernel takes): the
same fish, said in the same order, for every size and family, on many states."""

from __future__ import annotations

import pytest

from solver.grid import parse
from solver.logic import complex_fish as cf
from solver.logic import fish_kernel
from solver.logic.explain import explain
from tests.test_logic_reglib import code_of, library_cases, needs_library

# an "unfair" puzzle whose explanation passes through many states with open fish digits
PUZZLE = "1-53---9----6-----------27182----------487---------53-23---------7-59-----6---8-4"


def _fish(grid) -> list[str]:
    """Every Franken and mutant fish of sizes 2 to 4, searched afresh."""
    cf._FOUND.clear()
    return [
        step.text
        for k in (2, 3, 4)
        for family in ("Franken", "mutant")
        for step in cf.complex_fish(grid.copy(), k, family)
    ]


def _compare(states, monkeypatch) -> int:
    found = 0
    for grid in states:
        compiled = _fish(grid)
        with monkeypatch.context() as m:
            m.setattr(fish_kernel, "MAX_CELLS", 0)  # every digit to the Python search
            python = _fish(grid)
        assert compiled == python
        found += len(python)
    return found


def test_the_compiled_search_says_what_the_python_search_says_on_an_explanation(monkeypatch):
    states = explain(parse(PUZZLE), keep_snapshots=True).snapshots
    assert _compare(states[::6], monkeypatch)  # some fish, else the test says little


@needs_library
@pytest.mark.parametrize("code", ["0331", "0340", "0342", "0362"])
def test_the_compiled_search_says_what_the_python_search_says_on_library_fish(code, monkeypatch):
    cases = [c for _, c in library_cases() if code_of(c) == code][:2]
    assert cases
    assert _compare([c.grid for c in cases], monkeypatch)
