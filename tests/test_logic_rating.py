"""Grade.rating: Sudoku Explainer's scale (ER) from the hardest step of the simplest path."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from solver.grid import parse
from solver.logic import explain, grade_steps
from solver.logic.explain import TECHNIQUE_NAMES
from solver.logic.grade import TECHNIQUES
from solver.logic.rating import (
    CHAINS,
    RATINGS,
    chain_length,
    finder_floor,
    length_increment,
    step_rating,
)
from solver.logic.step import Step

SHARED = Path(os.environ.get("SUDOKU_LENS_SHARED", Path(__file__).parents[2] / "shared"))
TN1 = "175328496942671385368594271829135647653487912714962538231846759487259163596713824"
SAM4 = "........97..1.24...16....3.1....5.8...5.4.6...7.3....4.2...874...36.1..88........"


def blank(cells) -> str:
    return "".join("." if i in cells else ch for i, ch in enumerate(TN1))


def test_the_table_rates_every_technique_the_engine_names():
    assert set(RATINGS) == set(TECHNIQUES)  # every name a step can carry, and no other
    assert CHAINS.issubset(RATINGS)
    assert all(1.0 <= r <= 11.9 for r in RATINGS.values())
    floors = {name: finder_floor(name) for name in TECHNIQUE_NAMES}  # every finder has one
    assert floors["hidden single"] < floors["naked single"] < floors["locked candidates"]
    assert floors["unique rectangle"] == 4.5 and floors["Franken fish"] == RATINGS["Franken X-wing"]


def test_se_published_ratings_and_its_length_increment():
    assert [RATINGS[t] for t in ("naked single", "X-wing", "hidden pair", "XY-wing")] == [
        2.3,
        3.2,
        3.4,
        4.2,
    ]
    # SE adds 0.1 each time a chain's length passes 4, 6, 8, 12, 16, 24, ...
    lengths = [4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24, 25]
    assert [length_increment(n) for n in lengths] == [
        0.0, 0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.4, 0.4, 0.5, 0.5, 0.6
    ]  # fmt: skip


def test_a_chain_is_rated_by_its_length():
    short = "AIC: r1c6(4) = r1c8(4) - r1c8(1) = r1c4(1) (= one of the two is true, - not both)"
    trail = "suppose r3c5 is 4: singles then give r3c5=4 → r3c7=9 → r1c8=4 … (36 more), and …"
    assert chain_length(short) == 3 and chain_length(trail) == 39
    long = short.replace(" (=", " - r2c4(1) = r2c5(1) - r2c5(7) = r9c5(7) (=")
    assert step_rating(Step("AIC", short)) == 7.0 < step_rating(Step("AIC", long)) == 7.2
    assert step_rating(Step("forcing chain (contradiction)", trail)) == 9.2  # 8.5 and 0.7


@pytest.mark.parametrize(
    ("puzzle", "by_hand"),
    [
        (blank({40}), 1.0),  # one empty cell: alone in its units
        (blank(set(range(9))), 1.0),  # row 1 empty: each cell the last of its column
        # box 5 empty: each digit has one place in the box (no unit has one empty cell)
        (blank({r * 9 + c for r in range(3, 6) for c in range(3, 6)}), 1.2),
    ],
)
def test_puzzles_rated_by_hand(puzzle, by_hand):
    grade = explain(parse(puzzle)).grade
    assert grade.rating == by_hand
    assert grade.level == "easy"  # HoDoKu's level stays where it was


def test_a_published_rating():
    # SAM#4 on the players' forum (forum.enjoysudoku.com, t30887): "ER=7.2"
    grade = explain(parse(SAM4)).grade
    assert abs(grade.rating - 7.2) <= 0.5 and grade.level == "unfair"


def test_a_path_rated_from_names_alone_and_in_the_json():
    grade = grade_steps(["hidden single", "naked pair", "XY-wing", "naked single"])
    assert grade.rating == 4.2 and grade.hardest == "XY-wing"
    assert grade.to_dict()["rating"] == 4.2
    assert grade_steps([]).rating == 1.0


def test_other_boards_are_rated_on_the_same_scale():
    grade = explain(parse("1...\n..1.\n.2..\n...3")).grade
    assert 1.0 <= grade.rating <= 2.3  # a 4x4 needs singles at most


@pytest.mark.shared
def test_known_puzzles_get_their_se_band():
    """SE-rated puzzles of the held-out half (sha256 parity 1, see bench/rating.py) that
    explain quickly: the singles-to-subsets ones of 17clue and kaggle_style10000."""
    table = SHARED / "datasets" / "se" / "ratings-dev.tsv"
    if not table.is_file():
        pytest.skip(f"{table} not present (../shared)")
    import hashlib

    rows = [line.split("\t") for line in table.read_text().splitlines()[1:]]
    held = [
        r
        for r in rows
        if r[1] != "top1465" and int(hashlib.sha256(r[0].encode()).hexdigest()[:8], 16) % 2
    ][::3]
    se = np.array([float(r[2]) for r in held])
    mine = np.array([explain(parse(r[0])).grade.rating for r in held])
    assert len(held) >= 30
    assert np.mean(np.abs(se - mine) <= 0.5 + 1e-9) >= 0.9
    assert np.mean(np.abs(se - mine) < 0.05) >= 0.6  # most exactly SE's


def test_se_chains_come_in_se_order():
    """SAM#4's start: a static forcing chain (7.0 and its length) exists, and the
    dynamic kinds, when asked, rate at least their own base."""
    from solver.logic.candidates import Candidates
    from solver.logic.se_chains import DYNAMIC, PLUS, STATIC, easiest_chain

    p = parse(SAM4)
    grid = Candidates.from_values(p.geometry, p.values)
    ratings = [easiest_chain(grid, mode).rating for mode in (STATIC, DYNAMIC, PLUS)]
    assert 7.0 <= ratings[0] < 8.0 and ratings[1] >= 8.5 and ratings[2] >= 9.0
    hint = easiest_chain(grid, STATIC)
    assert hint.placements or hint.eliminations


def test_a_puzzle_beyond_the_engines_logic_is_rated_on_se_nested_scale():
    # published ER 11.0 (forum.enjoysudoku.com t6539 p.225); the logic cannot finish it
    puzzle = "..3......4...8..36..8...1...4..6..73...9..........2..5..4.7..686........7..6..5.."
    grade = explain(parse(puzzle)).grade
    assert grade.level == "guess" and abs(grade.rating - 11.0) <= 0.5


@pytest.mark.shared
def test_hard_se_rated_puzzles_get_their_se_band():
    """Held-out top1465 puzzles (ER mostly 7 to 9.x), every sixth: SE's chain hierarchy."""
    table = SHARED / "datasets" / "se" / "ratings-dev.tsv"
    if not table.is_file():
        pytest.skip(f"{table} not present (../shared)")
    import hashlib

    rows = [line.split("\t") for line in table.read_text().splitlines()[1:]]
    held = [
        r
        for r in rows
        if r[1] == "top1465" and int(hashlib.sha256(r[0].encode()).hexdigest()[:8], 16) % 2
    ][::6]
    se = np.array([float(r[2]) for r in held])
    mine = np.array([explain(parse(r[0])).grade.rating for r in held])
    assert len(held) >= 10
    assert np.mean(np.abs(se - mine) <= 0.5 + 1e-9) >= 0.8
