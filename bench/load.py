"""Load benchmark of the HTTP service: concurrent phone uploads against `serve --workers 2`.

    .venv/bin/python bench/load.py [--requests 2000] [--clients 4] [--workers 2]

Loopback only, bounded in requests and in time (it stops by itself after --max-seconds).
In one run:

1. The reference: `sudoku-lens solve --workers 2` over the same photos (the CLI batch),
   photos/second of the real command, process start-up included.
2. `sudoku-lens serve --workers 2` on a free loopback port; `--clients` concurrent clients
   upload the shared photos (wichtounet's 160 real phone photos, cycled) as multipart
   `image`, asking for the JSON result. A warm-up of --warmup requests first, then
   --requests measured ones: requests/second, p50/p95/p99 latency, statuses, errors
   (5xx or transport failures), and the RSS of the server (its event-loop process plus its
   solver processes) before and after.

Targets (issue 5): zero 5xx; HTTP throughput >= 80% of the CLI batch's photos/second;
RSS growth < 50 MB after warm-up. The machine is shared: run it with `nice`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
PHOTOS = SHARED / "datasets" / "wichtounet" / "images"
CLI = Path(sys.executable).with_name("sudoku-lens")

sys.path.insert(0, str(REPO))
from api.service.local import LocalServer  # noqa: E402


def cli_batch_rate(photos: list[Path], workers: int) -> tuple[float, float, int]:
    """(photos/second, seconds, exit code) of the real `sudoku-lens solve` over `photos`."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [str(CLI), "solve", *map(str, photos), "--out", tmp, "--workers", str(workers)]
        command += ["--report", str(Path(tmp) / "report.jsonl")]
        started = time.perf_counter()
        code = subprocess.run(command, capture_output=True).returncode
        seconds = time.perf_counter() - started
    return len(photos) / seconds, seconds, code


async def hammer(url: str, photos: list[bytes], requests: int, clients: int, deadline: float):
    """`clients` concurrent uploaders sharing `requests` uploads; stops early at `deadline`."""
    import httpx

    latencies: list[float] = []
    statuses: Counter = Counter()
    failures: Counter = Counter()
    next_index = iter(range(requests))

    async def client_loop(client: httpx.AsyncClient) -> None:
        for i in next_index:
            if time.monotonic() > deadline:
                return
            data = photos[i % len(photos)]
            started = time.perf_counter()
            try:
                response = await client.post(
                    "/v1/solve",
                    files={"image": (f"{i}.jpg", data, "image/jpeg")},
                    headers={"Accept": "application/json"},
                )
                statuses[response.status_code] += 1
            except httpx.HTTPError as error:
                failures[type(error).__name__] += 1
                continue
            latencies.append((time.perf_counter() - started) * 1000)

    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120) as client:
        started = time.perf_counter()
        await asyncio.gather(*(client_loop(client) for _ in range(clients)))
        seconds = time.perf_counter() - started
    return latencies, statuses, failures, seconds


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=Path, default=PHOTOS)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=64)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=900, help="stop measuring after")
    args = parser.parse_args()

    photos = sorted(
        p for p in args.photos.glob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png")
    )
    if not photos:
        print(f"no photos in {args.photos} (../shared not present?); nothing to measure")
        return 0
    data = [p.read_bytes() for p in photos]
    print(
        f"photos: {len(photos)} from {args.photos}, {sum(map(len, data)) / len(data) / 1024:.0f} KB mean"
    )

    rate, seconds, code = cli_batch_rate(photos, args.workers)
    print(
        f"CLI batch  `sudoku-lens solve --workers {args.workers}`: {len(photos)} photos in "
        f"{seconds:.1f} s = {rate:.1f} photos/s (exit {code})"
    )

    with (
        tempfile.TemporaryDirectory() as tmp,
        LocalServer(workers=args.workers, log_path=Path(tmp) / "serve.log") as server,
    ):
        print(
            f"server     `sudoku-lens serve --workers {args.workers}` on {server.url}: "
            f"RSS {server.rss_mb():.0f} MB when ready"
        )
        deadline = time.monotonic() + args.max_seconds
        asyncio.run(hammer(server.url, data, args.warmup, args.clients, deadline))
        rss_before = server.rss_mb()
        latencies, statuses, failures, elapsed = asyncio.run(
            hammer(server.url, data, args.requests, args.clients, deadline)
        )
        rss_after = server.rss_mb()
        alive = server.alive()

    done = sum(statuses.values())
    server_errors = sum(n for status, n in statuses.items() if status >= 500)
    errors = server_errors + sum(failures.values())
    throughput = done / elapsed if elapsed else 0
    print(
        f"load       {args.clients} clients, {done} requests (after {args.warmup} warm-up) in "
        f"{elapsed:.1f} s{' (stopped at --max-seconds)' if done < args.requests else ''}"
    )
    print(
        f"           statuses: {dict(sorted(statuses.items()))}"
        f"{'  transport failures: ' + str(dict(failures)) if failures else ''}"
    )
    print(
        f"           throughput {throughput:.1f} requests/s = {throughput / rate:.0%} of the CLI batch "
        f"[target >= 80%]"
    )
    print(
        f"           latency ms: p50 {percentile(latencies, 50):.0f}  p95 "
        f"{percentile(latencies, 95):.0f}  p99 {percentile(latencies, 99):.0f}  "
        f"max {max(latencies, default=0):.0f}"
    )
    print(f"           errors (5xx or transport): {errors} [target 0]")
    print(
        f"           server RSS: {rss_before:.0f} MB before, {rss_after:.0f} MB after "
        f"= {rss_after - rss_before:+.0f} MB [target < 50 MB]; server alive at the end: {alive}"
    )
    return 0 if errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
