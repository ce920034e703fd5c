"""A photographed page of several grids through a real `sudoku-lens serve` over loopback HTTP,
and through the phone page in a real Chromium.

The page is the project's own printable sheet of four fresh puzzles (`samples.pages.
sheet_photo`, `api.sheet.render_sheet` photographed at 2 MP), every grid's truth from the
generator. Every grid must come back in `grids`, numbered in reading order, solved as the
generator made it and drawn into the overlay; the HTTP status follows the page's rule: 200
when a puzzle of it was solved (or it holds only printed solutions), 422 when none was.
"""

from __future__ import annotations

import cv2
import httpx
import numpy as np
import pytest
from PIL import Image, ImageDraw
from service_support import shared_server
from test_page import PHONE, browser, cell_values  # noqa: F401  (fixture)

from api.sheet import draw_grid
from samples.pages import photograph_page, sheet_photo

pytestmark = pytest.mark.slow

SIZE = (1200, 1600)  # about 2 MP, a phone held upright
SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


@pytest.fixture(scope="module")
def server():
    return shared_server()


@pytest.fixture(scope="module")
def sheet():
    photo = sheet_photo(4, seed=2, size=SIZE)
    assert [g.kind for g in photo.grids] == ["puzzle"] * 4
    return photo


@pytest.fixture(scope="module")
def two():
    """A sheet of two puzzles, and the same photo with most printed digits of the first
    painted over (10 left: too few to be a sudoku), and of both."""
    photo = sheet_photo(2, seed=2, size=SIZE)
    first = gutted(photo.image, photo.grids[0])
    both = gutted(first, photo.grids[1])
    return photo, jpeg(first), jpeg(both)


def gutted(image: np.ndarray, grid, keep: int = 10) -> np.ndarray:
    """The photo with the grid's printed digits but the first `keep` painted over in the
    paper's colour beside each (the lines stay: the grid is still found)."""
    to_photo = cv2.getPerspectiveTransform(
        np.float32([[0, 0], [9, 0], [9, 9], [0, 9]]), np.float32(grid.corners)
    )
    out = image.copy()
    printed = [i for i, ch in enumerate(grid.givens) if ch != "0"]
    for i in printed[keep:]:
        r, c = divmod(i, 9)
        inner = np.float32([[c + 0.18, r + 0.18], [c + 0.82, r + 0.18], [c + 0.82, r + 0.82]])
        inner = np.vstack([inner, [[c + 0.18, r + 0.82]], [[c + 0.12, r + 0.5]]])
        quad = cv2.perspectiveTransform(inner.reshape(-1, 1, 2), to_photo).reshape(-1, 2)
        x, y = np.round(quad[4]).astype(int)
        cv2.fillConvexPoly(out, np.round(quad[:4]).astype(np.int32), out[y, x].tolist())
    return out


def jpeg(image: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


def post(server, data: bytes, **headers) -> httpx.Response:
    files = {"image": ("page.jpg", data, "image/jpeg")}
    return httpx.post(server.url + "/v1/solve", files=files, headers=headers, timeout=120)


def near(corners, truth, cells: float = 0.5) -> bool:
    cell = float(np.linalg.norm(truth[1] - truth[0])) / 9
    return float(np.linalg.norm(np.float32(corners) - truth, axis=1).max()) < cells * cell


def drawn_in(overlay: np.ndarray, photo: np.ndarray, corners) -> float:
    """The share of a grid's pixels the overlay changed from the photo (the digits drawn)."""
    mask = np.zeros(photo.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(np.float32(corners)).astype(np.int32), 1)
    changed = np.abs(overlay.astype(np.int16) - photo.astype(np.int16)).max(axis=2) > 60
    return float(changed[mask > 0].mean())


def test_every_grid_of_a_page_is_solved_numbered_and_drawn(server, sheet):
    response = post(server, sheet.jpeg)
    assert response.status_code == 200, response.text[:300]
    assert response.headers["x-sudoku-grids"] == "4"
    assert response.headers["x-sudoku-status"] == "solved"
    result = response.json()
    assert result["schema_version"] == 4
    grids = result["grids"]
    assert [g["number"] for g in grids] == [1, 2, 3, 4]
    for grid, truth in zip(grids, sheet.grids, strict=True):  # the truth is in reading order
        assert grid["kind"] == "puzzle" and grid["status"] == "solved", grid["message"]
        assert near(grid["corners"], truth.corners), (grid["number"], grid["corners"])
        assert grid["givens"] == truth.givens
        assert grid["solution"] == truth.solution
    # the result's own fields are its first puzzle's, as for a photo of one grid
    assert result["solution"] == grids[0]["solution"] and result["status"] == "solved"

    overlay = httpx.get(server.url + result["output"], timeout=10)
    assert overlay.status_code == 200 and overlay.headers["content-type"] == "image/jpeg"
    drawn = cv2.imdecode(np.frombuffer(overlay.content, np.uint8), cv2.IMREAD_COLOR)
    assert drawn.shape == sheet.image.shape
    for truth in sheet.grids:  # every grid's solution drawn in, in its own place
        assert drawn_in(drawn, sheet.image, truth.corners) > 0.01

    photo = post(server, sheet.jpeg, Accept="image/jpeg")
    assert photo.status_code == 200 and photo.headers["content-type"] == "image/jpeg"
    assert photo.headers["x-sudoku-grids"] == "4"
    assert photo.headers["x-sudoku-solution"] == sheet.grids[0].solution


def test_a_page_is_answered_when_one_of_its_puzzles_is_solved(server, two):
    photo, first_gutted, both_gutted = two
    response = post(server, first_gutted)
    assert response.status_code == 200, response.text[:300]
    result = response.json()
    # the first puzzle's status, in the header as in the body; the second solved
    assert response.headers["x-sudoku-status"] == result["status"] == "unreadable"
    assert response.headers["x-sudoku-grids"] == "2"
    assert [g["status"] for g in result["grids"]] == ["unreadable", "solved"]
    assert result["grids"][1]["solution"] == photo.grids[1].solution
    assert httpx.get(server.url + result["output"], timeout=10).status_code == 200

    refused = post(server, both_gutted)
    assert refused.status_code == 422, refused.text[:300]
    error = refused.json()["error"]
    assert error["code"] == "unreadable"
    assert error["result"]["schema_version"] == 4
    assert [g["status"] for g in error["result"]["grids"]] == ["unreadable", "unreadable"]
    assert "x-sudoku-grids" not in refused.headers


def test_a_photo_of_a_printed_solution_alone_is_complete(server):
    page = Image.new("L", (1000, 1400), 255)
    draw_grid(ImageDraw.Draw(page), SOLVED, (200, 300), 600, (3, 3))
    photo = photograph_page(
        np.asarray(page),
        [((200, 300), 600, SOLVED, SOLVED, "solution")],
        seed=1,
        size=(900, 1200),
        shadow=0.0,
        turn=0,
    )
    response = post(server, photo.jpeg)
    assert response.status_code == 200, response.text[:300]
    result = response.json()
    assert result["status"] == "complete" and result["output"] is None
    assert [(g["kind"], g["status"]) for g in result["grids"]] == [("solution", "complete")]
    assert response.headers["x-sudoku-status"] == "complete"


def lines(page) -> list[str]:
    return page.eval_on_selector_all("#grids li .said", "items => items.map(i => i.textContent)")


def upload(page, data: bytes) -> None:
    with page.expect_response("**/v1/solve"):
        page.set_input_files(
            "#library", files=[{"name": "page.jpg", "mimeType": "image/jpeg", "buffer": data}]
        )
    page.wait_for_function(
        "() => !document.getElementById('message').classList.contains('busy')", timeout=60_000
    )


@pytest.mark.browser
def test_the_phone_page_shows_a_line_per_grid(server, browser, sheet, two):  # noqa: F811
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    page.goto(server.url + "/")
    assert page.is_hidden("#grids")

    upload(page, sheet.jpeg)
    assert page.inner_text("#message") == (
        "4 grids on the photo: 4 of 4 puzzles solved. Tap a cell to fix a digit."
    )
    assert lines(page) == [f"Grid {n} of 4: solved." for n in (1, 2, 3, 4)]
    assert cell_values(page) == sheet.grids[0].solution  # the first puzzle is on the board
    assert page.get_attribute("#grids li[data-grid='1']", "aria-current") == "true"
    # another grid onto the board, to fix or ask a hint about
    page.click("#grids li[data-grid='3'] button")
    assert cell_values(page) == sheet.grids[2].solution
    assert page.get_attribute("#grids li[data-grid='3']", "aria-current") == "true"
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"]  # nothing wider than a phone's screen

    page.click(".modes .mode[data-mode='hint']")  # the same photo again, in hint mode
    page.wait_for_function(
        "() => document.querySelectorAll('#grids li .hint').length === 4", timeout=60_000
    )
    hints = page.eval_on_selector_all("#grids li .hint", "items => items.map(i => i.textContent)")
    assert all(": " in hint and hint.endswith(".") for hint in hints), hints

    page.click(".modes .mode[data-mode='solve']")
    page.wait_for_function(
        "() => document.querySelectorAll('#grids li .hint').length === 0", timeout=60_000
    )
    upload(page, two[1])  # the first puzzle unreadable, the second solved
    assert page.inner_text("#message") == (
        "2 grids on the photo: 1 of 2 puzzles solved. Tap a cell to fix a digit."
    )
    assert lines(page) == [
        "Grid 1 of 2: not solved: only 10 digits could be read; a sudoku needs at least 17.",
        "Grid 2 of 2: solved.",
    ]
    upload(page, two[2])  # none solved: a 422, and still a line per grid
    assert page.inner_text("#message").startswith("Could not solve the photo")
    assert len(lines(page)) == 2 and page.is_visible("#grids")
    page.context.close()
