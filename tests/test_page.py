"""The phone page in a real browser: Debian's Chromium driven by Playwright, a real server.

Upload a generated photo the way a phone user picks one, wait for the solved photo, check
the board, break a digit and fix it again (each edit re-solves through /v1/grid), ask for a
hint, and keep a screenshot of a phone-sized viewport under the test's temp dir.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from service_support import PLAIN, shared_server

from samples.synthetic import make_photo

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server():
    return shared_server()


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (make test installs it)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


def cell_values(page) -> str:
    return page.eval_on_selector_all(
        "#board input", "cells => cells.map(c => c.value || '.').join('')"
    )


def test_photo_to_solved_board_and_fix_a_cell(server, browser, tmp_path):
    photo = make_photo(31, size=(800, 600), **PLAIN)
    solution = "".join(str(v) for v in photo.solution.ravel())
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    outside = []
    page.on("request", lambda r: None if r.url.startswith(server.url) else outside.append(r.url))
    page.goto(server.url + "/")
    assert page.title() == "sudoku-lens"

    with page.expect_response("**/v1/solve") as solved:
        page.set_input_files(
            "#library",
            files=[{"name": "photo.jpg", "mimeType": "image/jpeg", "buffer": photo.jpeg}],
        )
    assert solved.value.status == 200
    page.wait_for_function(
        "() => { const img = document.getElementById('solved');"
        " return !document.getElementById('photo').hidden && img.complete && img.naturalWidth > 0; }",
        timeout=60_000,
    )
    assert page.eval_on_selector("#solved", "img => img.naturalWidth") == photo.image.shape[1]
    assert cell_values(page) == solution
    assert "ok" in page.get_attribute("#message", "class")
    givens = page.eval_on_selector_all("#board input.given", "cells => cells.length")
    assert givens == int((photo.givens > 0).sum())

    # break a given: put a digit its row already holds -> the re-solve reports the conflict
    grid = photo.givens
    row = next(r for r in range(9) if (grid[r] > 0).sum() >= 2)
    a, b = [int(c) for c in (grid[row] > 0).nonzero()[0][:2]]
    first, twin = row * 9 + a, str(grid[row, b])
    cell = page.locator("#board input").nth(first)
    with page.expect_response("**/v1/grid") as regrid:
        cell.fill(twin)
    assert json.loads(regrid.value.body())["status"] == "invalid"
    page.wait_for_selector("#board input.conflict")
    assert "error" in page.get_attribute("#message", "class")
    assert "edited" in cell.get_attribute("class")

    # fix it back -> solved again, the edited cell still marked as the user's
    with page.expect_response("**/v1/grid") as regrid:
        cell.fill(solution[first])
    assert json.loads(regrid.value.body())["status"] == "unique"
    page.wait_for_function("() => document.getElementById('message').className === 'ok'")
    assert cell_values(page) == solution
    assert page.locator("#board input.conflict").count() == 0

    # a hint names a step of the logic
    with page.expect_response("**/v1/grid"):
        page.click("#hint")
    page.wait_for_selector("#hint-text:not([hidden])")
    assert page.inner_text("#hint-text").strip()
    assert "(ER " in page.inner_text("#hint-text")  # the grade on Sudoku Explainer's scale

    page.screenshot(path=str(tmp_path / "page-phone.png"), full_page=True)
    assert (tmp_path / "page-phone.png").stat().st_size > 10_000
    assert outside == [], f"the page fetched from outside its server: {outside}"
    context.close()


def test_error_statuses_are_explained(server, browser):
    page = browser.new_page(viewport=PHONE)
    page.goto(server.url + "/")
    with page.expect_response("**/v1/solve") as answer:
        page.set_input_files(
            "#library", files=[{"name": "notes.jpg", "mimeType": "image/jpeg", "buffer": b"hello"}]
        )
    assert answer.value.status == 415
    page.wait_for_function("() => document.getElementById('message').className === 'error'")
    assert "not a photo" in page.inner_text("#message")
    page.close()


def test_check_mode_shows_no_answer_on_the_board(server, browser):
    photo = make_photo(33, size=(800, 600), **PLAIN)
    givens = "".join(str(v) if v else "." for v in photo.givens.ravel())
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    page.goto(server.url + "/")
    page.click(".modes [data-mode=check]")
    assert page.get_attribute(".modes [data-mode=check]", "aria-checked") == "true"
    with page.expect_response("**/v1/solve?mode=check") as checked:
        page.set_input_files(
            "#library",
            files=[{"name": "photo.jpg", "mimeType": "image/jpeg", "buffer": photo.jpeg}],
        )
    body = json.loads(checked.value.body())
    assert checked.value.status == 200 and body["mode"] == "check" and body["solution"] is None
    page.wait_for_selector("#message.ok")
    assert cell_values(page) == givens  # the printed digits and nothing more
    page.close()
