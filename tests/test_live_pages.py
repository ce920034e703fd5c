"""Live mode over a page of several grids: the grid nearest the middle of the frame is the one
followed, and the others in view are counted (`others_in_view`), only when the full search
runs.

The frame is a photographed page (`samples.pages.photograph_page`) of two fresh puzzles, one
above the other: the upper one larger, so that the single best grid of the full search
(`vision.locate.locate_grid`, what live mode took before) is the upper one, while the lower
one lies nearer the frame's middle. Real components throughout: the frame's job in-process,
then the same frame over a real socket, then in the page in a real Chromium whose camera
plays it.
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw
from service_support import shared_server
from test_live_page import camera_chromium, playwright, write_y4m  # noqa: F401  (fixture)
from test_page import PHONE
from websockets.sync.client import connect

from api.photo.live import LiveSession, frame
from api.sheet import draw_grid
from samples.live_client import answer
from samples.pages import photograph_page
from solver import format_line, generate
from vision.locate import locate_grid

SIZE = (480, 640)  # a phone held upright
FLAT = dict(turn=0, roll=0.0, pitch=0.0, yaw=0.0, curl=0.0, curl_skew=0.0, side_bow=0.0)


@pytest.fixture(scope="module")
def page():
    """A photo of a page holding a large puzzle above a smaller one (the nearer the middle),
    both whole in view."""
    made = generate("easy", count=2, seed=6)
    sheet = Image.new("L", (1000, 1600), 255)
    draw = ImageDraw.Draw(sheet)
    places = [((180, 40), 640), ((240, 720), 520)]
    for (origin, side), puzzle in zip(places, made, strict=True):
        draw_grid(draw, puzzle.line, origin, side, (3, 3))
    draw.rectangle((300, 1550, 700, 1560), fill=0)  # a rule under them: the page goes on
    grids = [
        (origin, side, puzzle.line.replace(".", "0"), format_line(puzzle.solution), "puzzle")
        for (origin, side), puzzle in zip(places, made, strict=True)
    ]
    photo = photograph_page(np.asarray(sheet), grids, seed=6, size=SIZE, shadow=0.0, **FLAT)
    middle = np.float32(SIZE) / 2
    upper, lower = photo.grids
    distance = [float(np.linalg.norm(g.corners.mean(axis=0) - middle)) for g in photo.grids]
    assert distance[1] < distance[0] / 2, distance  # the lower grid is the one aimed at
    return photo, upper, lower


def near(corners, truth, cells: float = 0.25) -> bool:
    cell = float(np.linalg.norm(truth[1] - truth[0])) / 9
    return float(np.linalg.norm(np.float32(corners) - truth, axis=1).max()) < cells * cell


def test_the_grid_nearest_the_middle_is_followed_and_the_other_counted(page):
    photo, upper, lower = page
    gray = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
    # the full search's single best grid is the other one: what live mode took before
    assert near(locate_grid(gray).corners, upper.corners)

    session = LiveSession()
    answers, messages = [], []
    for _ in range(4):
        found = frame(photo.jpeg, session.job())
        answers.append(found)
        messages += session.answer(found)
    grids = [m for m in messages if m["type"] == "grid"]
    frames = [m for m in messages if m["type"] == "frame"]
    assert len(grids) == 1 and grids[0]["givens"] == lower.givens
    assert grids[0]["solution"] == lower.solution
    assert [f["state"] for f in frames] == ["reading", "known", "known", "known"]
    for message in frames[1:]:
        assert near(message["corners"], lower.corners), message["corners"]
    assert [f["others_in_view"] for f in frames] == [1, 1, 1, 1]
    # counted by the full search of the first frame only: the frames that follow the grid
    # (tracked by its lines, then by its paper) do not search
    assert answers[0].others == 1
    assert [a.others for a in answers[1:]] == [None, None, None]
    assert all(a.tracked for a in answers[1:])


def test_a_frame_of_one_grid_counts_none_and_a_reset_forgets_the_count(page):
    photo, upper, lower = page
    session = LiveSession()
    session.answer(frame(photo.jpeg, session.job()))
    assert session.others == 1
    session.reset()
    assert session.others == 0
    # the lower grid alone: the page cut above it, nothing else in view
    top = int(lower.corners[:, 1].min()) - 40
    alone = np.full_like(photo.image, np.median(photo.image[top:, :5], axis=(0, 1)))
    alone[: photo.image.shape[0] - top] = photo.image[top:]
    jpeg = cv2.imencode(".jpg", alone, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
    (message,) = session.answer(frame(jpeg, session.job()))
    assert message["state"] == "reading" and message["others_in_view"] == 0


@pytest.mark.slow
def test_others_in_view_over_the_socket(page):
    photo, _, lower = page
    server = shared_server()
    with connect(server.url.replace("http", "ws", 1) + "/v1/live", open_timeout=10) as live:
        assert json.loads(live.recv(timeout=10))["type"] == "ready"
        messages = []
        for _ in range(3):
            messages += answer(live, photo.jpeg)
    frames = [m for m in messages if m["type"] == "frame"]
    grids = [m for m in messages if m["type"] == "grid"]
    assert [f["others_in_view"] for f in frames] == [1, 1, 1]
    assert grids and grids[0]["givens"] == lower.givens
    assert frames[-1]["state"] == "known"


@pytest.mark.browser
@pytest.mark.slow
def test_the_page_says_how_many_more_grids_are_in_view(page, playwright, tmp_path):  # noqa: F811
    photo, _, _ = page
    video = tmp_path / "page.y4m"
    write_y4m(video, photo.image)
    browser = camera_chromium(playwright, video)
    server = shared_server()
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.grant_permissions(["camera"], origin=server.url)
    tab = context.new_page()
    tab.goto(server.url + "/")
    assert tab.is_hidden("#live-others")
    tab.click("#live-start")
    tab.wait_for_function("() => document.body.dataset.liveState === 'known'", timeout=60_000)
    assert tab.is_visible("#live-others")
    assert (
        tab.inner_text("#live-others-said")
        == "1 more grid in view: take a photo to solve them all."
    )
    assert "Solved" in tab.inner_text("#live-status")
    # the way to solve them all: live mode stops and the camera's own photo is asked for
    with tab.expect_file_chooser() as chooser:
        tab.click("#live-photo")
    assert chooser.value.element.get_attribute("id") == "camera"
    assert tab.is_hidden("#live") and tab.is_hidden("#live-others")
    context.close()
    browser.close()
