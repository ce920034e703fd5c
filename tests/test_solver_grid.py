"""Parsing, formatting and validation of puzzles (solver.grid)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from solver.grid import (
    PuzzleFormatError,
    conflicts,
    detect_alphabet,
    format_line,
    format_pretty,
    format_rows,
    parse,
)

TN1_ROWS = "1-53---9-\n---6-----\n------271\n82-------\n---487---\n------53-\n23-------\n--7-59---\n--6---8-4"
TN1 = TN1_ROWS.replace("\n", "")


def seed_blocks(shared_dir):
    text = (shared_dir / "puzzles" / "seed_examples.md").read_text()
    return re.findall(r"```\n(.*?)```", text, re.S)


def test_nine_lines_and_one_line_agree():
    one = parse(TN1_ROWS.replace("\n", ""))
    rows = parse(TN1_ROWS)
    assert one == rows
    assert one.geometry.size == 9 and one.n_givens == 23
    assert int(one.values[0]) == 1 and int(one.values[1]) == 0 and int(one.values[2]) == 5


@pytest.mark.parametrize("blank", list("0.?-_"))
def test_every_blank_mark_reads_as_blank(blank):
    p = parse(TN1_ROWS.replace("\n", "").replace("-", blank))
    assert p.n_givens == 23


def test_pretty_board_with_separators_parses_back():
    p = parse(TN1_ROWS)
    pretty = format_pretty(p)
    assert "+" in pretty and "|" in pretty
    assert parse(pretty) == p


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1" * 80, ["80"]),
        ("x" + "." * 80, ["r1c1", "'x'"]),
        ("." * 40 + "%" + "." * 40, ["r5c5", "'%'", "position 41"]),
        ("123\n456", ["2 rows"]),
        ("\n".join(["." * 9] * 8 + ["." * 8]), ["row 9", "8 symbols"]),
        ("", ["empty"]),
    ],
)
def test_malformed_text_names_what_is_wrong(text, words):
    with pytest.raises(PuzzleFormatError) as err:
        parse(text)
    for word in words:
        assert word in str(err.value)


def test_conflicts_name_both_cells():
    p = parse("7" + "." * 7 + "7" + "." * 72)
    assert conflicts(p) == ["r1c1 and r1c9 both hold 7"]
    box_and_row = parse("12.......1" + "." * 71)  # r1c1=1, r2c1=1: same column and box
    assert conflicts(box_and_row) == ["r1c1 and r2c1 both hold 1"]
    assert conflicts(parse(TN1)) == []


def test_sizes_are_detected_from_the_length():
    for size, box in ((4, (2, 2)), (6, (2, 3)), (9, (3, 3)), (16, (4, 4)), (25, (5, 5))):
        p = parse("." * size * size)
        assert p.geometry.size == size and p.geometry.box_shape == box


def test_sixteen_by_sixteen_alphabets():
    assert detect_alphabet(16, "0..F") == "0123456789ABCDEF"
    assert detect_alphabet(16, "1..G") == "123456789ABCDEFG"
    assert detect_alphabet(16, "0..G") == "123456789ABCDEFG"  # 0 is then a blank
    assert detect_alphabet(25, "A..Y") == "ABCDEFGHIJKLMNOPQRSTUVWXY"
    p = parse("0" + "." * 255)
    assert p.alphabet.startswith("0") and int(p.values[0]) == 1
    forced = parse("1" + "." * 255, alphabet="0123456789abcdef")
    assert forced.alphabet == "0123456789ABCDEF" and int(forced.values[0]) == 2
    with pytest.raises(PuzzleFormatError, match="alphabet"):
        parse("." * 256, alphabet="12345")


def test_clover_layout_positions_outside_grids():
    text = "\n".join(["." * 21] * 21)
    p = parse(text)  # detected from the 21 rows
    assert p.geometry.name == "clover" and p.n_givens == 0
    bad = list(text.replace("\n", ""))
    bad[9] = "5"  # row 1, column 10: in no grid
    with pytest.raises(PuzzleFormatError, match="r1c10"):
        parse("".join(bad))


def test_diagonal_variant_adds_two_units():
    p = parse("." * 81, variant="diagonal")
    assert len(p.geometry.units) == 29
    with pytest.raises(PuzzleFormatError, match="diagonal"):
        parse("." * 36, variant="diagonal")
    with pytest.raises(PuzzleFormatError, match="unknown variant"):
        parse("." * 81, variant="hexagonal")


def test_seed_examples_parse_and_format_back(shared_dir):
    for block in seed_blocks(shared_dir):
        p = parse(block)
        assert conflicts(p) == []
        assert parse(format_rows(p), alphabet=p.alphabet) == p
        assert parse(format_line(p), alphabet=p.alphabet) == p
    sizes = [parse(b).geometry.name for b in seed_blocks(shared_dir)]
    assert sizes == ["9x9", "16x16", "clover"]


def test_with_values_keeps_board_and_checks_range():
    p = parse(TN1)
    q = p.with_values(np.ones(81, np.int8))
    assert q.geometry is p.geometry and q.alphabet == p.alphabet
    with pytest.raises(ValueError):
        p.with_values(np.full(81, 10))
    with pytest.raises(ValueError):
        p.with_values(np.zeros(80))
