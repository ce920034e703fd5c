"""Videos made from real photos of sudokus: a phone panning and tilting over the photo while
a hand (a dark bar two cells wide, with a soft shadow beside it) crosses the grid.

The live camera mode's test footage for what a person solving with a pen in hand does to
it. Each frame is the photo seen through a moving homography (pan, tilt, turn, nearer and
farther), blurred and noised like a phone video and JPEG-encoded; the truth of each frame is
the photo's grid outline through that homography (cell centres from the outline's own
homography: a flat grid), and how much of each cell the bar covers.

>>> photo = np.full((480, 640, 3), 235, np.uint8)
>>> outline = np.float32([[170, 90], [470, 90], [470, 390], [170, 390]])
>>> video = hand_video(photo, outline, n_frames=4, hand=(0.25, 0.75))
>>> len(video.frames), video.frames[0].covered.shape, bool(video.frames[2].covered.any())
(4, (9, 9), True)
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
COVERED = 0.1  # share of a cell under the bar: the cell counts as covered
SKIN = np.float32([62, 80, 112])  # BGR of the bar: a hand in a room's light, darker than paper
TABLE = (70, 80, 92)  # BGR of what lies around the photo: a dark table


@dataclass(frozen=True)
class HandFrame:
    """One frame and its truth: `corners` (4, 2) TL, TR, BR, BL of the grid outline as the
    photo's outline lists them; `cell` the mean cell side in pixels; `coverage` (9, 9) the
    share of each cell (in the outline's order) under the bar; `hand`: the bar touches the
    grid; `in_view`: the whole grid is inside the frame."""

    jpeg: bytes
    corners: np.ndarray
    cell: float
    coverage: np.ndarray
    hand: bool
    in_view: bool

    @property
    def covered(self) -> np.ndarray:
        return self.coverage >= COVERED

    @property
    def image(self) -> np.ndarray:
        return cv2.imdecode(np.frombuffer(self.jpeg, np.uint8), cv2.IMREAD_COLOR)


@dataclass(frozen=True)
class HandVideo:
    name: str
    frames: list[HandFrame]
    fps: float
    size: tuple[int, int]
    hand: tuple[float, float] | None  # the share of the video the bar crosses during


def camera(t: float, size: tuple[int, int], outline: np.ndarray, motion: float) -> np.ndarray:
    """The homography photo -> frame at time t in [0, 1): the grid about 0.6 of the frame's
    short side, panning a fifth of the frame each way, tilting up to 14 degrees both ways,
    turning from -8 to 8 degrees, coming nearer and going farther by a sixth."""
    width, height = size
    centre = outline.mean(axis=0)
    side = float(np.mean([np.linalg.norm(outline[i] - outline[(i + 1) % 4]) for i in range(4)]))
    zoom = 0.6 * min(size) / side * (1 + motion * 0.16 * math.sin(2 * math.pi * t))
    angle = math.radians(motion * 8 * math.sin(2 * math.pi * t * 1.5))
    tilt_x = motion * math.radians(14) * math.sin(2 * math.pi * t)
    tilt_y = motion * math.radians(10) * math.sin(2 * math.pi * t * 2 + 1)
    pan = motion * np.array(
        [0.12 * width * math.sin(2 * math.pi * t + 0.5), 0.08 * height * math.sin(4 * math.pi * t)]
    )
    to_centre = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]], np.float64)
    scale = np.diag([zoom, zoom, 1.0])
    c, s = math.cos(angle), math.sin(angle)
    turn = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)
    reach = 0.6 * min(size)  # a tilt as seen by a lens of this focal length (pixels)
    tilt = np.array([[1, 0, 0], [0, 1, 0], [math.sin(tilt_x) / reach, math.sin(tilt_y) / reach, 1]])
    to_frame = np.array([[1, 0, width / 2 + pan[0]], [0, 1, height / 2 + pan[1]], [0, 0, 1]])
    return to_frame @ tilt @ turn @ scale @ to_centre


def bar_mask(size: tuple[int, int], corners: np.ndarray, u: float, angle: float) -> np.ndarray:
    """(H, W) float32 0..1: a bar two cells wide at `angle` to the grid's rows, a position u
    in [0, 1] of its sweep across the grid (0 and 1 just off it), soft-edged."""
    width, height = size
    square = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    to_frame = cv2.getPerspectiveTransform(square, np.float32(corners))
    direction = np.array([math.cos(angle), math.sin(angle)])
    normal = np.array([-direction[1], direction[0]])
    # in the grid's own cells: the bar's middle line sweeps from one corner region to the other
    reach = 4.5 * (abs(normal[0]) + abs(normal[1])) + 1.2
    middle = np.array([4.5, 4.5]) + normal * (-reach + 2 * reach * u)
    ends = [middle - 30 * direction, middle + 30 * direction]
    band = [ends[0] + normal, ends[1] + normal, ends[1] - normal, ends[0] - normal]  # 2 cells
    polygon = cv2.perspectiveTransform(np.float32(band).reshape(-1, 1, 2), to_frame)
    mask = np.zeros((height, width), np.float32)
    cv2.fillPoly(mask, [np.round(polygon * 16).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
    return cv2.GaussianBlur(mask, (0, 0), 1.2)


def cell_coverage(mask: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """(9, 9) share of each cell (in the corners' order) under the mask."""
    cell = 12
    square = np.float32([[0, 0], [9 * cell, 0], [9 * cell, 9 * cell], [0, 9 * cell]])
    to_square = cv2.getPerspectiveTransform(np.float32(corners), square)
    warped = cv2.warpPerspective(mask, to_square, (9 * cell, 9 * cell), flags=cv2.INTER_LINEAR)
    return (warped > 0.5).reshape(9, cell, 9, cell).mean(axis=(1, 3))


def hand_video(
    photo: np.ndarray,
    outline: np.ndarray,
    *,
    name: str = "photo",
    n_frames: int = 90,
    size: tuple[int, int] = (640, 480),
    fps: float = 30.0,
    hand: tuple[float, float] | None = (0.3, 0.75),
    angle: float = 65.0,
    motion: float = 1.0,
    seed: int = 0,
    quality: int = 80,
) -> HandVideo:
    """The photo filmed along `camera` for `n_frames`; with `hand`, the bar crosses the
    grid between those shares of the video (entering and leaving it just then)."""
    rng = np.random.default_rng(seed)
    outline = np.float32(outline)
    width, height = size
    frames = []
    for i in range(n_frames):
        t = i / n_frames
        homography = camera(t, size, outline, motion)
        image = cv2.warpPerspective(
            photo, homography, size, flags=cv2.INTER_AREA, borderValue=TABLE
        )
        corners = cv2.perspectiveTransform(outline.reshape(-1, 1, 2), homography).reshape(4, 2)
        cell = float(np.mean([np.linalg.norm(corners[k] - corners[(k + 1) % 4]) for k in range(4)]))
        cell /= 9
        coverage = np.zeros((9, 9))
        if hand is not None and hand[0] <= t <= hand[1]:
            u = (t - hand[0]) / (hand[1] - hand[0])
            mask = bar_mask(size, corners, u, math.radians(angle))
            coverage = cell_coverage(mask, corners)
            shadow = cv2.GaussianBlur(
                np.roll(mask, (int(cell * 0.6), int(cell * 0.4)), (0, 1)), (0, 0), cell * 0.5
            )
            image = image.astype(np.float32) * (1 - 0.25 * shadow[..., None])
            light = 0.8 + 0.3 * np.linspace(0, 1, width, dtype=np.float32)[None, :, None]
            image = image * (1 - mask[..., None]) + (SKIN * light) * mask[..., None]
        image = cv2.GaussianBlur(np.asarray(image, np.float32), (0, 0), 0.6)
        image += rng.normal(0, 3.0, image.shape).astype(np.float32)
        image = np.clip(image, 0, 255).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        in_view = bool(((corners >= 0) & (corners < [width, height])).all())
        frames.append(
            HandFrame(buf.tobytes(), corners, cell, coverage, bool(coverage.any()), in_view)
        )
    return HandVideo(name, frames, fps, size, hand)


def shared_photos() -> list[tuple[str, Path, list[float], tuple[int, int] | None]]:
    """(name, path, outline x, y of TL, TR, BR, BL, (width, height) the outline is given for
    or None) of every ../shared photo with its grid's outline listed: Wicht's newspaper photos, then Kubiesa's 12 MP ones (scaled to
    1600 pixels on the long side), each in file-name order. Empty without ../shared."""
    found = []
    wicht = SHARED / "datasets" / "wichtounet"
    if (wicht / "outlines.csv").is_file():
        with open(wicht / "outlines.csv") as rows:
            for row in sorted(csv.DictReader(rows), key=lambda r: r["file"]):
                points = [float(row[f"p{k}_{a}"]) for k in range(1, 5) for a in "xy"]
                found.append(("wicht/" + row["file"], wicht / "images" / row["file"], points, None))
    kubiesa = SHARED / "datasets" / "kubiesa"
    if (kubiesa / "metadata.csv").is_file():
        with open(kubiesa / "metadata.csv") as rows:
            for row in sorted(csv.DictReader(rows), key=lambda r: r["Name"]):
                points = [
                    float(row[f"{a}_{corner}_absolute"])
                    for corner in ("topleft", "topright", "bottomright", "bottomleft")
                    for a in "xy"
                ]
                size = (int(row["Width"]), int(row["Height"]))
                found.append(
                    ("kubiesa/" + row["Name"], kubiesa / "images" / row["Name"], points, size)
                )
    return found


def load_photo(path: Path, points: list[float], size=None, long_side: int = 1600):
    """The photo (scaled down to `long_side` at most) and its outline in its pixels; None
    when it cannot be read or is not of the `size` its outline is given for."""
    photo = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if photo is None or (size is not None and photo.shape[1::-1] != tuple(size)):
        return None
    scale = min(1.0, long_side / max(photo.shape[:2]))
    if scale < 1:
        photo = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return photo, np.float32(points).reshape(4, 2) * scale
