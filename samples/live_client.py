"""Stream a video file or a folder of frames to a sudoku-lens server's live mode (/v1/live).

    python samples/live_client.py ws://127.0.0.1:8000/v1/live clip.mp4
    python samples/live_client.py ws://127.0.0.1:8000/v1/live frames/   # *.jpg, *.png in order

Each frame is scaled to 640 pixels on its long side, sent as one JPEG binary message, and the
next is sent only once the answer to the last has come (the protocol's flow control: no queue
builds up). Prints the grid when the server has read and solved it, then one line a second.
The protocol is in docs/live.md; this file is its example client (the `websockets` package).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
from websockets.sync.client import connect

LONG_SIDE = 640
FRAME_FILES = (".jpg", ".jpeg", ".png", ".webp", ".bmp")


def frames_of(source: str | Path) -> Iterator[np.ndarray]:
    """BGR frames from a video file (anything OpenCV decodes) or a folder of images."""
    path = Path(source)
    if path.is_dir():
        for file in sorted(p for p in path.iterdir() if p.suffix.lower() in FRAME_FILES):
            image = cv2.imread(str(file), cv2.IMREAD_COLOR)
            if image is not None:
                yield image
        return
    video = cv2.VideoCapture(str(path))
    if not video.isOpened():
        raise SystemExit(f"{path}: not a video file or a folder of frames")
    try:
        while True:
            ok, image = video.read()
            if not ok:
                return
            yield image
    finally:
        video.release()


def as_jpeg(image: np.ndarray, long_side: int = LONG_SIDE, quality: int = 80) -> bytes:
    """The frame scaled down to `long_side` pixels on its long side, as JPEG bytes."""
    scale = long_side / max(image.shape[:2])
    if scale < 1:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes()


def paced(frames: Iterator[bytes], fps: float) -> Iterator[bytes]:
    """The frames, no faster than `fps` a second (a camera's pace; the server limits it)."""
    next_at = time.perf_counter()
    for frame in frames:
        time.sleep(max(0.0, next_at - time.perf_counter()))
        next_at = max(next_at + 1 / fps, time.perf_counter())
        yield frame


def answer(socket, frame: bytes) -> list[dict]:
    """Send one frame; the messages that answer it (a `grid` message may come before the
    `frame` one; an `error` message answers a frame the server did not solve)."""
    socket.send(frame)
    messages = []
    while True:
        message = json.loads(socket.recv())
        messages.append(message)
        if message["type"] in ("frame", "error"):
            return messages


def stream(url: str, frames: Iterator[bytes], mode: str = "solve") -> Iterator[list[dict]]:
    """Every frame's answer, in order, over one connection."""
    with connect(url, max_size=2**20) as socket:
        ready = json.loads(socket.recv())
        if ready["type"] != "ready":
            raise RuntimeError(ready.get("message", ready))
        if mode != "solve":
            socket.send(json.dumps({"type": "mode", "mode": mode}))
            json.loads(socket.recv())
        for frame in frames:
            yield answer(socket, frame)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="ws://HOST:PORT/v1/live (wss:// over HTTPS)")
    parser.add_argument("source", help="a video file or a folder of frames")
    parser.add_argument("--mode", default="solve", choices=("solve", "check", "hint"))
    parser.add_argument(
        "--fps", type=float, default=25.0, help="send at most this many frames a second"
    )
    args = parser.parse_args(argv)
    shown = last_line = 0.0
    count = known = 0
    started = time.perf_counter()
    jpegs = paced((as_jpeg(image) for image in frames_of(args.source)), args.fps)
    for messages in stream(args.url, jpegs, args.mode):
        count += 1
        for message in messages:
            if message["type"] == "grid":
                print(f"grid {message['id']}: {message['status']}: {message['message']}")
                if message.get("solution"):
                    for row in range(9):
                        print("  " + message["solution"][9 * row : 9 * row + 9])
            elif message["type"] == "error":
                print(f"frame {message.get('seq')}: {message['code']}: {message['message']}")
            elif message["grid"] is not None:
                known += 1
        now = time.perf_counter()
        if now - last_line >= 1.0:
            last_line = now
            shown = messages[-1].get("corners")
            print(f"{count} frames, {count / (now - started):.1f}/s, corners {shown}")
    elapsed = time.perf_counter() - started
    print(f"{count} frames in {elapsed:.1f} s; the grid known in {known}")
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main())
