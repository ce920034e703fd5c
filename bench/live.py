"""Benchmark of the live camera mode (WebSocket /v1/live) against `serve --workers 2`.

    .venv/bin/python bench/live.py [--frames 5000] [--max-seconds 240]

Loopback only, bounded in frames and in time (each part stops at its share of
--max-seconds). Synthetic moving videos (samples/synthetic.py make_video: the phone pans,
tilts, rotates, the grid goes partly out of the frame, a hand crosses it; 640x480 JPEG) are
streamed the way the page streams them: the next frame is sent when the answer to the last
has come. The server's frame limit is raised (SUDOKU_LENS_LIVE_MAX_FPS=1000) so that the
figures show what the server can answer, not the 30 a second a phone is allowed by default.

Figures, each printed beside its target (issue 13):

1. server time of a frame of a known grid (tracked, not read again), p50 and p95;
2. a new grid read and solved after entering the view: from the first frame sent (at a
   camera's 25 frames a second) to its `grid` message, over several puzzles;
3. one client: answered frames per second;
4. four clients at once: answered frames per second of each, 5xx answers, errors on the
   sockets, and the RSS of the server (event loop and solver processes) before and after
   --frames frames;
5. the drawn digits stay on their cells: in frames where the whole grid is in view, the
   share in which the centre of every solution digit (projected through the homography of
   the answered corners, as the page does) lies within 15% of a cell side of the true
   centre; frames where no digit would be drawn count as misses.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from api.service.local import LocalServer  # noqa: E402
from samples.live_client import answer  # noqa: E402
from samples.synthetic import make_video  # noqa: E402

FPS = 25.0
SIZE = (640, 480)


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def cell_centres(corners) -> np.ndarray:
    """(9, 9, 2) cell centres of the grid with these outer corners (TL, TR, BR, BL), through
    the homography of the unit square: what the page computes to draw the digits."""
    import cv2

    square = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    homography = cv2.getPerspectiveTransform(square, np.float32(corners))
    steps = np.arange(9) + 0.5
    xs, ys = np.meshgrid(steps, steps)
    points = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(points, homography).reshape(9, 9, 2)


def on_cells(message: dict, frame, empty: np.ndarray, known: int | None) -> bool:
    """Every solution digit's centre within 15% of a cell side of its true cell centre."""
    if known is None or message.get("grid") != known or message.get("corners") is None:
        return False
    error = np.linalg.norm(cell_centres(message["corners"]) - frame.centres, axis=2)
    return bool((error[empty] <= 0.15 * frame.cell[empty]).all())


def stream(
    url: str,
    video,
    count: int,
    deadline: float,
    pace: float | None = None,
    done: dict | None = None,
) -> dict:
    """Stream `count` frames of `video` (looped) over one connection; what came back (in
    `done`, updated as frames are answered, when given)."""
    from websockets.sync.client import connect

    out = done if done is not None else {}
    out.update(frames=0, errors=[], grid_ms=None, known_ms=[], on=0, in_view=0, grids=[])
    empty = video.givens == 0
    known = None
    started = time.perf_counter()
    with connect(url, max_size=2**20, open_timeout=30) as live:
        ready = json.loads(live.recv(timeout=30))
        if ready["type"] != "ready":
            out["errors"].append(ready)
            return out
        next_at = started
        for i in range(count):
            if time.perf_counter() > deadline:
                break
            if pace:
                time.sleep(max(0.0, next_at - time.perf_counter()))
                next_at += 1 / pace
            frame = video.frames[i % len(video.frames)]
            messages = answer(live, frame.jpeg)
            out["frames"] += 1
            for message in messages:
                if message["type"] == "grid":
                    known = message["id"]
                    out["grids"].append(message)
                    if out["grid_ms"] is None:
                        out["grid_ms"] = (time.perf_counter() - started) * 1000
                elif message["type"] == "error":
                    out["errors"].append(message)
            last = messages[-1]
            if last["type"] == "frame":
                if last["grid"] is not None and last["tracked"] and not last["read"]:
                    out["known_ms"].append(last["ms"]["total"])
                if frame.in_view and i < len(video.frames):  # the first pass of the video
                    out["in_view"] += 1
                    out["on"] += on_cells(last, frame, empty, known)
    out["seconds"] = time.perf_counter() - started
    return out


def rss_trace(samples: list[tuple[int, float]], points: int = 8) -> str:
    """A few of the samples, evenly spread."""
    picks = sorted({round(i * (len(samples) - 1) / (points - 1)) for i in range(points)})
    return ", ".join(f"{samples[i][0]}: {samples[i][1]:.0f}" for i in picks)


def line(name: str, value: str, target: str, ok: bool) -> None:
    print(f"{name:<62} {value:>14}   target {target:<14} {'met' if ok else 'NOT MET'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=5000, help="frames of the 4-client run")
    parser.add_argument("--video-frames", type=int, default=250, help="length of each video")
    parser.add_argument("--puzzles", type=int, default=5, help="videos (puzzles) to enter")
    parser.add_argument("--max-seconds", type=float, default=240.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    print(f"bench/live.py: {load()} at start ({os.cpu_count()} cores, shared)")
    videos = [
        make_video(40 + k, n_frames=args.video_frames, size=SIZE) for k in range(args.puzzles)
    ]
    in_view = sum(f.in_view for f in videos[0].frames)
    print(
        f"{len(videos)} synthetic videos of {args.video_frames} frames at {SIZE[0]}x{SIZE[1]}"
        f" ({in_view} frames of the first with the whole grid in view, "
        f"{sum(f.hand for f in videos[0].frames)} with a hand over it), "
        f"made in {time.perf_counter() - started:.0f} s"
    )
    env = {"SUDOKU_LENS_LIVE_MAX_FPS": "1000"}
    with LocalServer(workers=args.workers, env=env) as server:
        url = server.url.replace("http://", "ws://") + "/v1/live"
        budget = args.max_seconds
        deadline = time.perf_counter() + budget

        # 2 and 5: each video at a camera's pace, from its first frame
        paced = []
        for video in videos:
            part = time.perf_counter() + budget * 0.3 / len(videos)
            paced.append(stream(url, video, len(video.frames), min(part, deadline), FPS))
        grid_ms = [p["grid_ms"] for p in paced]
        on = sum(p["on"] for p in paced)
        seen = sum(p["in_view"] for p in paced)

        # 1 and 3: one client as fast as the answers come
        alone = stream(url, videos[0], 4 * args.video_frames, time.perf_counter() + budget * 0.2)
        known_ms = alone["known_ms"] + [m for p in paced for m in p["known_ms"]]

        # 4: four clients at once, --frames in all; the server's memory sampled meanwhile
        results: list[dict] = [{"frames": 0} for _ in range(4)]
        end = time.perf_counter() + budget * 0.45

        def client(k: int) -> None:
            results[k] = stream(
                url, videos[k % len(videos)], args.frames // 4, end, done=results[k]
            )

        threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
        for thread in threads:
            thread.start()
        samples = []  # (frames answered so far, RSS in MB)
        while any(thread.is_alive() for thread in threads):
            samples.append((sum(r["frames"] for r in results), server.rss_mb()))
            time.sleep(1.0)
        for thread in threads:
            thread.join()
        samples.append((sum(r["frames"] for r in results), server.rss_mb()))
        log = server.log_text()

    fives = sum(1 for row in log.splitlines() if '"status":5' in row)
    errors = sum(len(r["errors"]) for r in results) + sum(len(p["errors"]) for p in paced)
    rates = [r["frames"] / r["seconds"] for r in results]
    total = sum(r["frames"] for r in results)
    print(f"server: sudoku-lens serve --workers {args.workers}; {load()} after the runs")
    print()
    p50, p95 = percentile(known_ms, 50), percentile(known_ms, 95)
    line(
        f"known grid, server time p50 ({len(known_ms)} frames)",
        f"{p50:.1f} ms",
        "<= 15 ms",
        p50 <= 15,
    )
    line("known grid, server time p95", f"{p95:.1f} ms", "<= 30 ms", p95 <= 30)
    worst = max((g for g in grid_ms if g is not None), default=float("nan"))
    missed = sum(g is None for g in grid_ms)
    shown = ", ".join("none" if g is None else f"{g:.0f}" for g in grid_ms)
    line(
        f"new grid read and solved in view ({shown} ms)",
        f"{worst:.0f} ms worst",
        "<= 1000 ms",
        worst <= 1000 and not missed,
    )
    rate = alone["frames"] / alone["seconds"]
    line(
        f"one client, answered frames/s ({alone['frames']} frames)",
        f"{rate:.1f}/s",
        ">= 25/s",
        rate >= 25,
    )
    each = ", ".join(f"{r:.1f}" for r in rates)
    line(
        f"four clients, frames/s each ({each})",
        f"{min(rates):.1f}/s min",
        ">= 10/s",
        min(rates) >= 10,
    )
    line("four clients, 5xx answers in the server log", str(fives), "0", fives == 0)
    line("errors on the sockets (all runs)", str(errors), "0", errors == 0)
    # from the first sample past a fifth of the frames (the allocators warm) to the end
    warm = next((rss for n, rss in samples if n >= total / 5), samples[-1][1])
    growth = samples[-1][1] - warm
    line(
        f"server RSS, {total} frames ({warm:.0f} -> {samples[-1][1]:.0f} MB)",
        f"{growth:+.1f} MB",
        "flat (< 20 MB)",
        growth < 20 and total >= args.frames * 0.95,
    )
    print(f"  RSS samples (frames: MB): {rss_trace(samples)}")
    share = on / max(seen, 1)
    line(
        f"digits on their cells, frames in view ({on}/{seen})",
        f"{100 * share:.1f}%",
        ">= 95%",
        share >= 0.95,
    )
    print(f"\nwhole run {time.perf_counter() - started:.0f} s; {load()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
