"""Issue 47 end to end: a page filled in light grey pencil, on pink paper, a shadow across it.

The newspaper's other weeks brought what the folds never had: pencil a person reads at a
glance, grey on pinkish paper, a shadow over one side. Read as people photograph it, the
check must see the entries, call none of the right ones wrong, and say the same in the
CLI, over HTTP (a real server on loopback) and on the phone page (a real browser).
"""

from __future__ import annotations

import json

import httpx
import numpy as np
import pytest
from test_check_page import checked_on_the_page
from test_handfilled_photos import needs_model, run, wrong_cells
from test_page import browser, server  # noqa: F401 (fixtures)

from samples.synthetic import make_photo

PINK = dict(
    hand_fonts=True,
    filled=0.45,
    pencil_entries=1.0,
    candidates=0.3,
    mistakes=1,
    crossed=0,
    curl=0.0,
    second_grid=False,
    paper=(196, 188, 236),  # BGR: pink newsprint
    pencil=(115, 112, 122),  # a light grey pencil
    shadow=0.55,
    gradient=(0.35, 0.1),
)
SEED = 7


@pytest.fixture(scope="module")
def pink():
    return make_photo(SEED, size=(1200, 900), kind="sheet", **PINK)


def right_entries(page) -> set[int]:
    written = page.handwritten.reshape(81)
    return {i for i in range(81) if written[i] and i not in wrong_cells(page)}


def judged_alike(page, body: dict) -> None:
    """The check's answer on the pink page: solved, none of the right entries called wrong,
    the wrong one called wrong, nothing revealed."""
    assert body["status"] == "solved", body["message"]
    assert body["solution"] is None
    called_wrong = {m["index"] for m in body["mistakes"]}
    assert not called_wrong & right_entries(page), body["message"]
    assert called_wrong == set(wrong_cells(page)), body["message"]


@needs_model
def test_the_pink_pencil_page_in_the_cli(pink, tmp_path):
    photo = tmp_path / "pink.jpg"
    photo.write_bytes(pink.jpeg)
    done = run("solve", str(photo), "--mode", "check", "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    judged_alike(pink, record)
    seen = record["entries"]
    written = pink.handwritten.reshape(81)
    read = sum(1 for i in range(81) if written[i] and seen[i] not in ".0")
    assert read >= 0.8 * int((written > 0).sum()), f"only {read} entries seen"


@pytest.mark.browser
@pytest.mark.slow
@needs_model
def test_the_pink_pencil_page_over_http_and_on_the_phone_page(pink, server, browser):  # noqa: F811
    answer = httpx.post(
        server.url + "/v1/solve?mode=check",
        files={"image": ("pink.jpg", pink.jpeg, "image/jpeg")},
        timeout=120,
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    judged_alike(pink, body)
    page, shown, marked = checked_on_the_page(server, browser, "pink.jpg", pink.jpeg)
    assert shown["mistakes"] == body["mistakes"] and shown["unclear"] == body["unclear"]
    assert set(marked) == {m["index"] for m in body["mistakes"]}
    assert not set(marked) & right_entries(pink)
    page.close()
    assert np.asarray(pink.handwritten).any()
