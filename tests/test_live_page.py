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
def playwright():
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (make test installs it)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        yield playwright


def camera_chromium(playwright, video: Path):
    """Chromium whose camera plays `video` (a .y4m file) in a loop."""
    args = ARGS + [
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-video-capture={video}",
    ]
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)


@pytest.fixture(scope="module")
def camera_browser(playwright, scene):
    browser = camera_chromium(playwright, scene[1])
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


# Recorded in the page: every frame message, after live.js drew it, with the overlay's digit
# pixels counted around the middle of each cell the message says is hidden (a quarter cell
# each way; the cells' middles from the corners, bilinear: near enough at this tilt), and
# every text the status line showed.
RECORDER = """(() => {
  const Native = window.WebSocket;
  const seen = (window.__live = { frames: [], statuses: [] });
  function digitPixels(message) {
    const canvas = document.getElementById('live-canvas');
    const ctx = canvas.getContext('2d');
    const s = canvas.width / message.size[0];
    const [tl, tr, br, bl] = message.corners.map(([x, y]) => [x * s, y * s]);
    const at = (u, v) => [0, 1].map((k) =>
      (1 - u) * (1 - v) * tl[k] + u * (1 - v) * tr[k] + u * v * br[k] + (1 - u) * v * bl[k]);
    const side = Math.hypot(tr[0] - tl[0], tr[1] - tl[1]) / 9;
    let n = 0;
    for (let i = 0; i < 81; i++) {
      if (message.hidden[i] !== '1') continue;
      const [x, y] = at((i % 9 + 0.5) / 9, (Math.floor(i / 9) + 0.5) / 9);
      const h = Math.max(1, Math.round(side / 4));
      const data = ctx.getImageData(Math.round(x - h), Math.round(y - h), 2 * h, 2 * h).data;
      for (let j = 0; j < data.length; j += 4) {
        if (data[j + 3] > 128 && data[j + 2] > 140 && data[j] < 90 && data[j + 1] < 150) n++;
      }
    }
    return n;
  }
  function record(event) {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message.type !== 'frame') return;
    const hidden = (message.hidden || '').split('1').length - 1;
    const pixels = hidden && message.corners ? digitPixels(message) : 0;
    seen.frames.push({ state: message.state, grid: message.grid, size: message.size,
                       hidden, pixels, at: performance.now() });
  }
  window.WebSocket = function (url, protocols) {
    const socket = new Native(url, protocols);
    const add = socket.addEventListener.bind(socket);
    socket.addEventListener = (type, listener, options) => {
      add(type, listener, options);
      if (type === 'message') add('message', record);  // after the page's own listener
    };
    return socket;
  };
  Object.assign(window.WebSocket, { OPEN: 1, CLOSED: 3, CONNECTING: 0, CLOSING: 2 });
  window.WebSocket.prototype = Native.prototype;
  addEventListener('DOMContentLoaded', () => {
    const status = document.getElementById('live-status');
    new MutationObserver(() => {
      const text = status.textContent;
      if (seen.statuses[seen.statuses.length - 1] !== text) seen.statuses.push(text);
    }).observe(status, { subtree: true, childList: true, characterData: true });
  });
})();"""


@pytest.fixture(scope="module")
def hand_scene(tmp_path_factory):
    """A phone held upright (a 720x1280 camera at 15 frames a second) over a printed puzzle,
    moving a little, while a hand (a dark bar two cells wide) crosses the grid."""
    from samples.hand_video import hand_video

    page = make_video(21, n_frames=1, size=(480, 640), hand=False).frames[0]
    video = hand_video(
        page.image,
        page.corners,
        size=(720, 1280),
        n_frames=30,
        fps=15,
        hand=(0.25, 0.85),
        motion=0.3,
    )
    path = tmp_path_factory.mktemp("camera") / "hand.y4m"
    with open(path, "wb") as out:
        out.write(b"YUV4MPEG2 W720 H1280 F15:1 Ip A1:1 C420jpeg\n")
        for frame in video.frames:
            out.write(b"FRAME\n" + cv2.cvtColor(frame.image, cv2.COLOR_BGR2YUV_I420).tobytes())
    return video, path


def test_live_mode_keeps_the_solution_under_a_passing_hand(playwright, hand_scene):
    video, path = hand_scene
    server = shared_server()
    browser = camera_chromium(playwright, path)
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.grant_permissions(["camera"], origin=server.url)
    page = context.new_page()
    page.add_init_script(RECORDER)
    page.goto(server.url + "/")
    page.click("#live-start")
    page.wait_for_function("() => document.body.dataset.liveState === 'known'", timeout=60_000)
    start = page.evaluate("() => window.__live.frames.length")
    page.wait_for_timeout(5_000)  # two and a half turns of the video: the hand crosses
    seen = page.evaluate("() => window.__live")
    shape = page.eval_on_selector("#live-video", "v => [v.videoWidth, v.videoHeight]")
    browser.close()

    assert shape == [720, 1280], f"the upright camera's 720x1280 came as {shape}"
    frames = seen["frames"][start:]
    assert all(f["size"] == [360, 640] for f in frames)
    # only new pictures are sent: not more answers than the camera's 15 frames a second
    rate = (len(frames) - 1) / ((frames[-1]["at"] - frames[0]["at"]) / 1000)
    assert 5 <= rate <= 16.5, f"{rate:.1f} answers a second from a 15 fps camera"
    covered = [f for f in frames if f["grid"] is not None and f["hidden"] >= 4]
    assert len(covered) >= 5, "the hand never hid any cells of the grid shown"
    assert all(f["pixels"] == 0 for f in covered), "a digit was drawn on a hidden cell"
    shown = sum(f["grid"] is not None for f in frames) / len(frames)
    assert shown >= 0.9, f"the solution was shown in only {shown:.0%} of frames"
    statuses = seen["statuses"]
    solved = next((i for i, s in enumerate(statuses) if s.startswith("Solved")), None)
    assert solved is not None, statuses
    # once solved, only what the user can act on: never a reading (error) of a covered frame
    assert not [s for s in statuses[solved:] if "Reading" in s or "read" in s], statuses


def test_the_favicon_is_served():
    import httpx

    server = shared_server()
    answer = httpx.get(server.url + "/favicon.ico", timeout=10)
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/x-icon"
    assert answer.content[:4] == b"\x00\x00\x01\x00"  # an icon file
    page = httpx.get(server.url + "/", timeout=10).text
    assert 'rel="icon"' in page and httpx.get(server.url + "/static/favicon.svg").status_code == 200
