"""The page's live mode in a real Chromium whose camera is a file of synthetic frames.

Chromium's fake capture device plays a .y4m video written here from a synthetic photo of a
sudoku at an angle; the page streams it to a real server over /v1/live. The canvas over the
video must show the solution digits at the cells' true positions (pixel checks against the
generator's truth) and none on the printed digits; freeze offers the composited picture to
save; hint and check ask the server for those modes; back returns to photo mode. A
phone-sized screenshot is kept (and written to $SUDOKU_LENS_LIVE_SCREENSHOT when set, for the
README).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from service_support import shared_server
from test_page import ARGS, CHROMIUM, PHONE

from samples.synthetic import make_video

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# in the page: per cell box, the pixels of the overlay drawn in the digits' colour
BLUE_PIXELS = """([boxes]) => {
  const canvas = document.getElementById('live-canvas');
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  return boxes.map(([x0, y0, x1, y1]) => {
    let n = 0, sx = 0, sy = 0;
    for (let y = Math.max(0, y0); y < Math.min(canvas.height, y1); y++) {
      for (let x = Math.max(0, x0); x < Math.min(canvas.width, x1); x++) {
        const i = 4 * (y * canvas.width + x);
        const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a > 128 && b > 140 && r < 90 && g < 150) { n++; sx += x; sy += y; }
      }
    }
    return [n, n ? sx / n : 0, n ? sy / n : 0];
  });
}"""


def write_y4m(path: Path, image: np.ndarray, frames: int = 10, fps: int = 10) -> None:
    """A YUV4MPEG2 (4:2:0) video of `frames` copies of a BGR image: Chromium's fake camera."""
    height, width = image.shape[:2]
    planes = cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420).tobytes()
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            out.write(b"FRAME\n" + planes)


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    video = make_video(21, n_frames=1, size=(480, 640), hand=False)  # a phone held upright
    path = tmp_path_factory.mktemp("camera") / "sudoku.y4m"
    write_y4m(path, video.frames[0].image)
    return video, path


@pytest.fixture(scope="module")
def camera_browser(scene):
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (make test installs it)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    args = ARGS + [
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-video-capture={scene[1]}",
    ]
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
        yield browser
        browser.close()


def test_live_mode_draws_the_solution_on_the_cells(scene, camera_browser, tmp_path):
    video, _ = scene
    truth = video.frames[0]
    server = shared_server()
    context = camera_browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    context.grant_permissions(["camera"], origin=server.url)
    page = context.new_page()
    blocked = []
    page.on(
        "console",
        lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.goto(server.url + "/")
    page.click("#live-start")
    page.wait_for_function("() => document.body.dataset.liveState === 'known'", timeout=60_000)
    page.wait_for_timeout(300)  # a few more answers drawn
    assert "Solved" in page.inner_text("#live-status")
    width = page.eval_on_selector("#live-canvas", "c => c.width")
    scale = width / truth.image.shape[1]

    cells = truth.centres.reshape(81, 2) * scale
    half = 0.3 * truth.cell.reshape(81) * scale
    boxes = [
        [int(x - h), int(y - h), int(x + h) + 1, int(y + h) + 1]
        for (x, y), h in zip(cells, half, strict=True)
    ]
    counts = page.evaluate(BLUE_PIXELS, [boxes])
    empty = (video.givens == 0).reshape(81)
    for i, (n, x, y) in enumerate(counts):
        if empty[i]:  # a solution digit, centred on its cell
            assert n >= 15, f"no digit drawn in cell {i}"
            off = np.hypot(x - cells[i][0], y - cells[i][1]) / (truth.cell.flat[i] * scale)
            assert off < 0.2, f"the digit of cell {i} is {off:.2f} of a cell off its centre"
        else:  # printed on the paper: nothing drawn over it
            assert n == 0, f"something drawn over the printed digit of cell {i}"

    shot = tmp_path / "live-phone.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 20_000
    if os.environ.get("SUDOKU_LENS_LIVE_SCREENSHOT"):
        shutil.copy(shot, os.environ["SUDOKU_LENS_LIVE_SCREENSHOT"])

    page.click("#live-freeze")  # the composited picture, ready to save
    page.wait_for_selector("#live-save:not([hidden])")
    assert page.get_attribute("#live-save", "href").startswith("blob:")
    assert page.eval_on_selector("#live-frozen", "img => img.naturalWidth") == width
    page.click("#live-freeze")  # resume

    page.click("#live-hint")
    page.wait_for_function(
        "() => document.getElementById('live-status').textContent.startsWith('Hint:')",
        timeout=30_000,
    )
    page.click("#live-check")
    page.wait_for_function(
        "() => document.getElementById('live-check').getAttribute('aria-pressed') === 'true'"
        " && document.getElementById('live-status').className === 'ok'",
        timeout=30_000,
    )
    page.click("#live-back")
    assert page.is_hidden("#live") and page.is_visible("#camera-label, label[for=camera]")
    assert page.evaluate("() => document.getElementById('live-video').srcObject") is None
    assert blocked == []
    context.close()
