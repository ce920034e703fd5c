"""Issue 49: photos of every board the project solves and prints (6x6, 16x16 in its four
printed conventions, diagonal), and the kinds it does not solve refused by name.

The photos are rendered by `samples.boards` and `samples.pages.sheet_photo` (another route
than the reader's training boards: the sheet's drawing, photographed by `samples.pages`),
so every answer is checked against the generator's own solution.
"""

from __future__ import annotations

import json

import httpx
import numpy as np
import pytest
from test_handfilled_photos import run
from test_page import PHONE, browser, server  # noqa: F401 (fixtures)

from api.photo.boards import correct_board, geometry_of, line_values, solver_alphabet
from api.photo.pipeline import solve_photo
from samples.boards import CONVENTIONS, board_photo, printed_symbol
from samples.pages import sheet_photo
from solver import generate, parse
from vision.board import board_kind
from vision.lattice import best_lattice, evidence_by_size
from vision.symbols import CONVENTIONS as READ_CONVENTIONS
from vision.symbols import GLYPHS, convention_of, symbol_odds


def values(line: str, size: int, convention: str | None) -> np.ndarray:
    if size == 9:
        return np.array([0 if ch in "0." else int(ch) for ch in line], np.int8)
    return line_values(line, solver_alphabet(size, convention))


def solved_right(grid, photo) -> bool:
    return grid.status == "solved" and np.array_equal(
        values(grid.solution, grid.size, grid.convention), photo.solution.ravel()
    )


# ---------------------------------------------------------------- each kind, from a photo


@pytest.mark.parametrize(
    "kind, options",
    [
        ("6x6", {}),
        ("diagonal", {"diagonal_mark": "shaded"}),
        ("diagonal", {"diagonal_mark": "lines"}),
        *[("16x16", {"convention": c}) for c in CONVENTIONS],
    ],
)
def test_each_board_is_told_read_and_solved(kind, options):
    photo = board_photo(kind, seed=3, **options)
    grid = solve_photo(photo.jpeg, render=False).grids[0]
    assert (grid.size, grid.variant) == (photo.size, photo.variant), grid.message
    if kind == "16x16":
        assert grid.convention == photo.convention
    assert np.array_equal(values(grid.read, grid.size, grid.convention), photo.givens.ravel())
    assert solved_right(grid, photo), grid.message


def test_a_plain_9x9_stays_a_plain_9x9():
    photo = board_photo("9x9", seed=4, shaded_boxes=True)
    result = solve_photo(photo.jpeg, render=False)
    assert (result.size, result.variant, result.convention) == (9, "standard", None)
    assert result.solution == "".join(map(str, photo.solution.ravel()))
    assert len(result.givens) == 81 and "." not in result.givens  # the 9x9's own format


@pytest.mark.parametrize("kind", ["killer", "jigsaw", "samurai"])
def test_a_kind_not_solved_is_refused_by_name(kind):
    photo = board_photo(kind, seed=2)
    result = solve_photo(photo.jpeg, render=False)
    assert result.status == "unsupported" and result.variant == kind
    assert f"looks like a {kind} sudoku: not supported" in result.message
    assert not any(g.status == "solved" for g in result.grids)


def test_a_killer_page_is_refused_in_the_cli_with_a_failing_status(tmp_path):
    photo = tmp_path / "killer.jpg"
    photo.write_bytes(board_photo("killer", seed=5).jpeg)
    done = run("solve", str(photo), "--json")
    assert done.returncode == 1
    record = json.loads(done.stdout)
    assert record["status"] == "unsupported" and record["variant"] == "killer"
    assert record["solution"] is None


# ---------------------------------------------------------------- the round trip of `new --sheet`


@pytest.mark.parametrize(
    "board, variant, count",
    [(6, "standard", 1), (6, "standard", 6), (16, "standard", 1), (16, "standard", 2),
     (9, "diagonal", 4), (9, "standard", 6)],
)  # fmt: skip
def test_every_sheet_new_prints_comes_back_solved(board, variant, count):
    photo = sheet_photo(count, seed=11, board=board, variant=variant)
    result = solve_photo(photo.jpeg, render=False)
    truth = sorted(g.solution.replace(".", "0") for g in photo.grids)
    solved = sorted(
        (g.solution.replace(".", "0") for g in result.grids if g.status == "solved"),
    )
    assert solved == truth, [g.message for g in result.grids]
    assert all((g.size, g.variant) == (board, variant) for g in result.grids)


# ---------------------------------------------------------------- the report


def test_the_report_says_the_board_and_its_lines_parse_as_that_board():
    photo = board_photo("16x16", seed=6, convention="0-F")
    model = solve_photo(photo.jpeg, render=False).to_model(file="super.jpg")
    body = json.loads(model.model_dump_json())
    grid = body["grids"][0]
    assert (grid["size"], grid["variant"], grid["convention"]) == (16, "standard", "0-F")
    assert (body["size"], body["convention"]) == (16, "0-F")
    givens, solution = parse(grid["givens"]), parse(grid["solution"])
    assert givens.geometry.size == 16 and solution.geometry.size == 16
    assert np.array_equal(np.asarray(solution.values).reshape(16, 16), photo.solution)
    assert np.array_equal(np.asarray(givens.values).reshape(16, 16), photo.givens)


def test_the_cli_prints_a_16x16(tmp_path):
    photo = board_photo("16x16", seed=7, convention="1-16")
    path = tmp_path / "super.jpg"
    path.write_bytes(photo.jpeg)
    done = run("solve", str(path), "-o", str(tmp_path / "solved.jpg"))
    assert done.returncode == 0, done.stderr
    assert "board: 16x16, printed 1-16" in done.stdout
    assert (tmp_path / "solved.jpg").stat().st_size > 10_000


# ---------------------------------------------------------------- HTTP and the phone page


@pytest.mark.browser
@pytest.mark.slow
def test_a_photographed_16x16_sheet_over_http_and_on_the_phone_page(server, browser):  # noqa: F811
    photo = sheet_photo(1, seed=12, board=16)
    answer = httpx.post(
        server.url + "/v1/solve",
        files={"image": ("super.jpg", photo.jpeg, "image/jpeg")},
        timeout=120,
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["status"], body["size"], body["variant"]) == ("solved", 16, "standard")
    assert body["solution"] == photo.grids[0].solution
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    page.goto(server.url + "/")
    with page.expect_response("**/v1/solve"):
        page.set_input_files(
            "#library",
            files=[{"name": "super.jpg", "mimeType": "image/jpeg", "buffer": photo.jpeg}],
        )
    page.wait_for_selector("#message.ok")
    shown = page.eval_on_selector_all("#other-board span", "cells => cells.map(c => c.textContent)")
    assert "".join(shown) == body["solution"]
    assert page.is_hidden("#board") and page.is_visible("#other-board")
    assert "16x16" in page.inner_text("#message")
    page.close()


# ---------------------------------------------------------------- the parts


def test_the_lattice_tells_the_sizes_apart():
    side, margin = 288, 16
    for n in (6, 9, 16):
        profile = np.zeros(side + 2 * margin)
        profile[margin + np.rint(np.arange(n + 1) * side / n).astype(int)] = 0.9
        assert best_lattice(profile, profile, side, margin) == n
        evidence = evidence_by_size(profile, profile, side, margin)
        assert max(evidence, key=evidence.get) == n


def test_a_6x6_turned_a_quarter_shows_its_boxes_turned():
    square = np.full((240, 240), 230, np.uint8)
    for k in range(7):
        across = 4 if k % 2 == 0 else 1  # boxes two rows high...
        down = 4 if k % 3 == 0 else 1  # ...and three columns wide
        at = min(40 * k, 239)
        square[max(0, at - across) : at + across, :] = 30
        square[:, max(0, at - down) : at + down] = 30
    assert board_kind(square, 6).box_shape == (2, 3)
    assert board_kind(np.rot90(square).copy(), 6).box_shape == (3, 2)


def test_the_convention_is_the_one_that_explains_every_glyph():
    def glyph(ch: str) -> np.ndarray:
        p = np.full(len(GLYPHS) + 1, 0.01)
        p[1 + GLYPHS.index(ch)] = 0.9
        return p / p.sum()

    def cells(texts):
        return [np.array([glyph(ch) for ch in text]).reshape(-1, len(GLYPHS) + 1) for text in texts]

    assert convention_of(cells(["1", "12", "16", "9", ""]), 16) == "1-16"
    assert convention_of(cells(["0", "A", "F", "9"]), 16) == "0-F"
    assert convention_of(cells(["G", "A", "1", "9"]), 16) == "1-9A-G"
    assert convention_of(cells(["H", "P", "A", "K"]), 16) == "A-P"
    odds = symbol_odds(cells(["12", ""]), READ_CONVENTIONS["1-16"])
    assert odds[0].argmax() == 12 and odds[1].argmax() == 0


def test_the_rules_correct_a_misread_symbol_on_a_16x16():
    made = generate(None, size=16, seed=4)[0]
    truth = np.asarray(made.puzzle.values, np.int8)
    read = truth.copy()
    cell = int(np.flatnonzero(truth)[5])
    read[cell] = truth[cell] % 16 + 1  # misread as the next symbol, and unsure of it
    probs = np.full((256, 17), 1e-4, np.float32)
    probs[np.arange(256), read] = 0.99
    probs[cell, read[cell]], probs[cell, truth[cell]] = 0.55, 0.4
    fix = correct_board(read, probs, geometry_of(16, "standard"))
    assert fix.status == "solved"
    assert [(c.cell, c.now) for c in fix.changes] in ([(cell, int(truth[cell]))], [(cell, 0)])
    assert np.array_equal(fix.solution, np.asarray(made.solution.values, np.int8))


def test_printed_symbols_match_the_conventions_read():
    for name in CONVENTIONS:
        assert tuple(printed_symbol(v, 16, name) for v in range(1, 17)) == READ_CONVENTIONS[name]


def test_hint_and_check_modes_on_a_board():
    photo = board_photo("6x6", seed=8)
    hint = solve_photo(photo.jpeg, mode="hint", encode="jpeg")
    assert hint.status == "solved" and hint.hint is not None
    body = hint.to_model().model_dump()
    assert body["solution"] is None and body["hint"]["placements"]
    cell = hint.hint.placements[0][0]
    assert hint.hint.placements[0][1] == int(photo.solution.ravel()[cell])
    assert hint.overlay_bytes[:2] == b"\xff\xd8"
    check = solve_photo(board_photo("16x16", seed=8).jpeg, mode="check", render=False)
    assert check.status == "solved" and check.to_model().solution is None
    assert "none were checked on this board" in check.message
