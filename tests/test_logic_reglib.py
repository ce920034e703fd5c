"""HoDoKu's regression library: every case must be found by the technique of its name.

Each line of ``../shared/datasets/hodoku/reglib-1.3.txt`` is a pencil-mark state, a
technique code and the eliminations or placements that technique must make there (read
by `solver.logic.pencilmarks.read_library_line`). A case passes when one step of the
mapped technique makes exactly the listed changes; a variant ``x`` case passes when the
technique finds nothing on the case's digits. Codes the project does not cover yet are
skipped with the reason, so the skip list is the to-do list of issue 18.

The mapping from HoDoKu's codes (its SolutionType) to the project's technique names lives
here, and `bench/logic.py` imports it to print the per-technique table.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from solver.logic.explain import TECHNIQUE_NAMES, all_steps
from solver.logic.pencilmarks import LibraryCase, read_library_line

# ../shared next to the repository; SUDOKU_LENS_SHARED points elsewhere (a git worktree)
SHARED = Path(os.environ.get("SUDOKU_LENS_SHARED", Path(__file__).resolve().parents[2] / "shared"))
REGLIB = SHARED / "datasets" / "hodoku" / "reglib-1.3.txt"

# HoDoKu code -> (HoDoKu's name, the project's technique names that must find it)
CODES: dict[str, tuple[str, tuple[str, ...]]] = {
    "0000": ("Full House", ("full house",)),
    "0002": ("Hidden Single", ("hidden single",)),
    "0003": ("Naked Single", ("naked single",)),
    "0100": ("Locked Candidates Type 1 (Pointing)", ("locked candidates",)),
    "0101": ("Locked Candidates Type 2 (Claiming)", ("locked candidates",)),
    "0110": ("Locked Pair", ("naked pair",)),
    "0111": ("Locked Triple", ("naked triple",)),
    "0200": ("Naked Pair", ("naked pair",)),
    "0201": ("Naked Triple", ("naked triple",)),
    "0202": ("Naked Quadruple", ("naked quad",)),
    "0210": ("Hidden Pair", ("hidden pair",)),
    "0211": ("Hidden Triple", ("hidden triple",)),
    "0212": ("Hidden Quadruple", ("hidden quad",)),
    "0300": ("X-Wing", ("X-wing",)),
    "0301": ("Swordfish", ("swordfish",)),
    "0302": ("Jellyfish", ("jellyfish",)),
    "0310": ("Finned X-Wing", ("finned X-wing",)),
    "0311": ("Finned Swordfish", ("finned swordfish",)),
    "0312": ("Finned Jellyfish", ("finned jellyfish",)),
    "0320": ("Sashimi X-Wing", ("finned X-wing",)),
    "0321": ("Sashimi Swordfish", ("finned swordfish",)),
    "0322": ("Sashimi Jellyfish", ("finned jellyfish",)),
    "0400": ("Skyscraper", ("skyscraper",)),
    "0401": ("2-String Kite", ("two-string kite",)),
    "0402": ("Empty Rectangle", ("empty rectangle",)),
    "0403": ("Turbot Fish", ("turbot fish",)),
    "0500": ("Simple Colors Trap", ("simple colouring",)),
    "0501": ("Simple Colors Wrap", ("simple colouring",)),
    "0600": ("Uniqueness Test 1", ("unique rectangle",)),
    "0601": ("Uniqueness Test 2", ("unique rectangle",)),
    "0602": ("Uniqueness Test 3", ("unique rectangle",)),
    "0603": ("Uniqueness Test 4", ("unique rectangle",)),
    "0604": ("Uniqueness Test 5", ("unique rectangle",)),
    "0605": ("Uniqueness Test 6", ("unique rectangle",)),
    "0606": ("Hidden Rectangle", ("hidden rectangle",)),
    "0610": ("Bivalue Universal Grave + 1", ("BUG+1",)),
    "0701": ("X-Chain", ("X-chain",)),
    "0702": ("XY-Chain", ("XY-chain",)),
    "0706": ("Continuous Nice Loop", ("continuous nice loop",)),
    "0707": ("Discontinuous Nice Loop", ("nice loop", "AIC")),
    "0708": ("AIC", ("AIC",)),
    "0709": ("Grouped Continuous Nice Loop", ("grouped continuous nice loop",)),
    "0710": ("Grouped Discontinuous Nice Loop", ("grouped nice loop", "grouped AIC")),
    "0711": ("Grouped AIC", ("grouped AIC",)),
    "0800": ("XY-Wing", ("XY-wing",)),
    "0801": ("XYZ-Wing", ("XYZ-wing",)),
    "0803": ("W-Wing", ("W-wing",)),
    "0901": ("ALS-XZ", ("ALS-XZ",)),
    "0902": ("ALS-XY-Wing", ("ALS-XY-wing",)),
    "0903": ("ALS Chain", ("ALS chain",)),
    "0904": ("Death Blossom", ("death blossom",)),
    "1101": ("Sue de Coq", ("Sue de Coq",)),
    "0502": ("Multi Colors 1", ("multi-colours",)),
    "0503": ("Multi Colors 2", ("multi-colours",)),
    "0703": ("Remote Pair", ("remote pair",)),
    "0404": ("Dual 2-String Kite", ("dual two-string kite",)),
    "0405": ("Dual Empty Rectangle", ("dual empty rectangle",)),
    "0607": ("Avoidable Rectangle Type 1", ("avoidable rectangle",)),
    "0608": ("Avoidable Rectangle Type 2", ("avoidable rectangle",)),
    "0331": ("Franken Swordfish", ("Franken fish",)),
    "0332": ("Franken Jellyfish", ("Franken fish",)),
    "0340": ("Finned Franken X-Wing", ("Franken fish",)),
    "0341": ("Finned Franken Swordfish", ("Franken fish",)),
    "0342": ("Finned Franken Jellyfish", ("Franken fish",)),
    "1201": ("Template Set", ("template set",)),
    "1202": ("Template Delete", ("template delete",)),
    "0362": ("Finned Mutant Jellyfish", ("mutant fish",)),
    # the library's own headings: 0363 squirmbag, 0364 whale (its leviathan heading is
    # also 0364, with no case)
    "0363": ("Finned Mutant Squirmbag", ("large mutant fish",)),
    "0364": ("Finned Mutant Whale", ("large mutant fish",)),
}

# Codes with no technique in the project yet: the reason is the plan (issue 18). None now:
# the last two, mutant squirmbag and whale, are `large mutant fish` (searched when named).
UNSUPPORTED: dict[str, tuple[str, str]] = {}

# Single cases a mapped technique does not find (yet), with the reason:
# library line number -> reason.
KNOWN_MISSES: dict[int, str] = {}

# Continuous nice loops (closed loops, plain and grouped) whose cases list fewer
# eliminations than the loop makes. In a closed loop every weak link has exactly one true
# end, so a digit leaves every cell seeing both ends, the loop's own cells too; HoDoKu
# keeps the loop's own cells out (lines 1152, 1157, 1159; on 1253 r1c1<>3, a cell of an
# ALS of the loop), and on line 1247 leaves out an ALS's locked digit (r8c3<>2: the loop
# leaves the ALS r1c3 r7c3 (236) one of 3 and 6, so its 2 is there). Such a case passes
# when a step of the technique makes every listed elimination and each of its others is
# sound: checked against the puzzle's solution.
MORE_THAN_LISTED = {"0706", "0709"}


# the searches that cost 20-400 s over all library states each (Franken fish the most)
DEAR = (
    "Franken fish",
    "mutant fish",
    "large mutant fish",
    "forcing net",
    "kraken fish",
    "ALS chain",
    "death blossom",
    "ALS-XY-wing",
    "ALS-XZ",
    "grouped AIC",
)


def library_cases(path: Path = REGLIB) -> list[tuple[int, LibraryCase]]:
    """(line number, case) for every case line of the library."""
    cases = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.startswith(":"):
            cases.append((number, read_library_line(line)))
    return cases


def code_of(case: LibraryCase) -> str:
    """Siamese fish carry a fifth digit ("03111"): the fish's code is the first four."""
    return case.code[:4]


def passes(case: LibraryCase, techniques: tuple[str, ...]) -> str:
    """Does one step of `techniques` make exactly the case's changes (or, for an x case,
    does no step touch the case's digits)? "exact" if so; "more" if, for a continuous
    loop (`MORE_THAN_LISTED`), a step makes them and more, all sound; "" if not."""
    steps = all_steps(case.grid.copy(), techniques, unique=True)
    if case.variant == "x":
        digits = set(case.digits) or None
        touched = any(
            digits is None or {d for _, d in s.eliminations + s.placements} & digits for s in steps
        )
        return "" if touched else "exact"
    for step in steps:
        if case.eliminations and set(step.eliminations) == case.eliminations:
            return "exact"
        if case.placements and set(step.placements) == case.placements:
            return "exact"
    solution = solution_of(case) if code_of(case) in MORE_THAN_LISTED else None
    if solution is not None and case.eliminations:
        for step in steps:
            more = set(step.eliminations) - case.eliminations
            if case.eliminations <= set(step.eliminations) and all(
                solution[c] != d for c, d in more
            ):
                return "more"
    return ""


def solution_of(case: LibraryCase) -> np.ndarray | None:
    """The solution of the case's puzzle (its givens and placed digits), None unless it
    has just one."""
    from solver.grid import Puzzle
    from solver.logic.explain import solutions

    grid = case.grid
    found = solutions(Puzzle(grid.geometry, grid.values, grid.alphabet), limit=2)
    return found[0] if len(found) == 1 else None


def results() -> dict[str, list[tuple[int, str]]]:
    """code -> [(line number, `passes`'s verdict)] for every mapped code (the benchmark's
    table)."""
    by_code: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for number, case in library_cases():
        code = code_of(case)
        if code in CODES:
            by_code[code].append((number, passes(case, CODES[code][1])))
        else:
            by_code[code].append((number, ""))
    return by_code


needs_library = pytest.mark.skipif(
    not REGLIB.is_file(), reason="../shared not present (HoDoKu's reglib-1.3.txt)"
)


def test_every_mapped_name_is_a_technique():
    for _, names in CODES.values():
        assert set(names) <= set(TECHNIQUE_NAMES), names
    assert not set(CODES) & set(UNSUPPORTED)


@needs_library
def test_every_library_code_is_mapped_or_listed():
    codes = {code_of(case) for _, case in library_cases()}
    assert codes <= set(CODES) | set(UNSUPPORTED), codes - set(CODES) - set(UNSUPPORTED)


@needs_library
@pytest.mark.parametrize("code", sorted(set(CODES) | set(UNSUPPORTED)))
def test_reglib_code(code):
    if code in UNSUPPORTED:
        pytest.skip(f"{UNSUPPORTED[code][0]}: {UNSUPPORTED[code][1]}")
    name, techniques = CODES[code]
    failed = [
        number
        for number, case in library_cases()
        if code_of(case) == code and number not in KNOWN_MISSES and not passes(case, techniques)
    ]
    assert not failed, f"{name} ({code}) missed the cases on lines {failed}"


@needs_library
def test_every_step_on_the_library_states_is_sound():
    """Every step every technique (but forcing chains) finds on the library states agrees
    with the puzzle's solution: no placement or elimination is ever wrong. To keep the suite
    quick the techniques run on every fourth state (about 200 s on all of them) and the
    dearest searches (`DEAR`: Franken fish, the ALS family, grouped AIC: 650 s on all) on
    every fortieth; tests/test_logic_soundness.py and bench/soundness.py check them on real
    puzzles, and test_reglib_code runs each technique on its own library states."""
    cheap = [n for n in TECHNIQUE_NAMES if n not in ("forcing chain", *DEAR)]
    wrong = []
    for k, (number, case) in enumerate(library_cases()):
        if k % 4:
            continue
        names = cheap + list(DEAR) if k % 40 == 0 else cheap
        solution = solution_of(case)
        if solution is None:
            continue
        for step in all_steps(case.grid.copy(), names, unique=True):
            bad = [(c, d) for c, d in step.placements if solution[c] != d]
            bad += [(c, d) for c, d in step.eliminations if solution[c] == d]
            if bad:
                wrong.append((number, step.technique, bad))
    assert not wrong, wrong[:5]


@needs_library
def test_remembered_franken_searches_give_what_a_fresh_search_gives():
    """complex_fish remembers each digit's search by the digit's places: asked again, and
    asked after the places of one digit changed, it answers as a search from scratch."""
    from solver.logic import complex_fish

    cases = [c for _, c in library_cases() if code_of(c) in ("0331", "0341", "0342")][:6]
    assert cases

    def texts(grid):
        return [s.text for s in all_steps(grid, ["Franken fish"], unique=True)]

    for case in cases:
        complex_fish._FOUND.clear()
        fresh = texts(case.grid.copy())
        assert fresh, "every case of these codes has a Franken fish"
        assert texts(case.grid.copy()) == fresh  # now from memory
        changed = case.grid.copy()
        digit = next(iter(case.eliminations))[1] if case.eliminations else 1
        spot = int(np.flatnonzero(changed.marks[:, digit - 1])[0])
        changed.marks[spot, digit - 1] = False
        remembered = texts(changed.copy())
        complex_fish._FOUND.clear()
        assert remembered == texts(changed.copy())


@needs_library
def test_a_library_finned_mutant_jellyfish_is_found_by_the_search_when_asked():
    """0362 is a jellyfish (four base units): the mutant search of size 4 finds the case's
    eliminations in one step, size 3 finds nothing on it (what the skip reason says)."""
    from solver.logic.complex_fish import complex_fish

    number, case = next((n, c) for n, c in library_cases() if c.code == "0362")
    found = [set(s.eliminations) for s in complex_fish(case.grid.copy(), 4, "mutant")]
    assert case.eliminations in found, number
    assert not list(complex_fish(case.grid.copy(), 3, "mutant"))


@needs_library
def test_mutant_fish_are_on_the_way_to_a_solution_only_when_asked_for():
    """As in HoDoKu's solver, `hint` and `explain` leave mutant fish out unless named: on a
    library state where nothing easier applies, every technique named gives the finned
    mutant jellyfish, the default set goes on to a kraken fish or a forcing chain."""
    from solver.logic.explain import TECHNIQUE_NAMES, hint

    for number, case in library_cases():
        if code_of(case) != "0362":
            continue
        asked = hint(case.grid.copy(), techniques=TECHNIQUE_NAMES)
        if "mutant" in asked.technique:
            unasked = hint(case.grid.copy())
            assert "mutant" not in unasked.technique, number
            assert unasked.technique.startswith(("kraken fish", "forcing chain")), number
            return
    pytest.fail("no library finned mutant jellyfish is the easiest step of its state")


@needs_library
def test_squirmbags_and_whales_are_listed_only_when_asked_for():
    """Mutant fish of five and six base units cost a quarter of a second a state: every
    other technique's `all_steps` leaves them out unless named, and named they find the
    library's finned mutant squirmbag and whale."""
    for number, case in library_cases():
        if code_of(case) not in ("0363", "0364"):
            continue
        asked = all_steps(case.grid.copy(), ["large mutant fish"], unique=True)
        kind = "squirmbag" if code_of(case) == "0363" else "whale"
        assert any(
            s.technique == f"finned mutant {kind}" and set(s.eliminations) == case.eliminations
            for s in asked
        ), number
        assert not any(
            "squirmbag" in s.technique or "whale" in s.technique
            for s in all_steps(case.grid.copy(), unique=True)
        ), number
