"""The page's Check on a photo with a wrong entry, in a real browser (issue 37): the cell
the server called wrong is marked, and its title says why, in the check's own words."""

from __future__ import annotations

import json

import pytest
from test_handfilled_photos import PEN, needs_model, wrong_cells
from test_page import PHONE, browser, server  # noqa: F401 (fixtures)

from samples.synthetic import make_photo

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def checked_on_the_page(server, browser, name: str, jpeg: bytes):  # noqa: F811
    """(page, the server's answer, the cells the board marks as mistakes): the photo
    checked on the phone page, as a person taps Check and picks it from the library."""
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    page.goto(server.url + "/")
    page.click(".modes [data-mode=check]")
    with page.expect_response("**/v1/solve?mode=check") as checked:
        page.set_input_files(
            "#library", files=[{"name": name, "mimeType": "image/jpeg", "buffer": jpeg}]
        )
    body = json.loads(checked.value.body())
    page.wait_for_selector("#message.ok")
    marked = page.eval_on_selector_all(
        "#board input",
        "cells => cells.flatMap((c, i) => c.classList.contains('mistake') ? [i] : [])",
    )
    return page, body, marked


@needs_model
def test_check_marks_the_wrong_entry_and_says_why(server, browser):  # noqa: F811
    photo = make_photo(5, size=(1200, 900), kind="sheet", **PEN)
    wrong = wrong_cells(photo)
    page, body, marked = checked_on_the_page(server, browser, "pen.jpg", photo.jpeg)
    assert [m["index"] for m in body["mistakes"]] == wrong
    assert marked == wrong
    title = page.get_attribute(f"#board input >> nth={wrong[0]}", "title")
    assert title == body["mistakes"][0]["said"]
    assert "wrong" in page.inner_text("#message")
    page.close()
