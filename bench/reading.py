"""Reading real photos: the issue's targets next to what we measure, on one thread.

    python bench/reading.py              # everything (about 2-4 minutes on one core)
    python bench/reading.py --quick      # fewer photos for the latency figures

Accuracy: wichtounet images/ (160 photos, located %, cell accuracy, photos fully correct) and
kubiesa (80 photos at 12-16 MP, located %), through `read_photo` exactly as users call it.
Latency: from the file's bytes (already in memory) to a `Reading`, p50 per photo, for the
640×480 wichtounet photos and the 12 MP (4032×3024) kubiesa photos, with the default engine
and with tesseract. Wall time is printed with the CPU time beside it (this process and the
tesseract process it starts): on a shared, loaded machine the CPU time is the fairer
one-thread figure.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
SHARED = REPO.parent / "shared" / "datasets"

from api.photo.evaluation import evaluate, find_samples, summarise  # noqa: E402
from api.scale.memory import keep_freed_memory  # noqa: E402
from api.scale.threads import limit_threads  # noqa: E402


def accuracy(folder: Path, engine: str) -> dict:
    import vision

    samples = find_samples(folder)
    outcomes = evaluate(samples, lambda path: vision.read_photo(path, engine=engine))
    return summarise(outcomes)


def latency(paths: list[Path], engine: str) -> tuple[float, float, int]:
    """p50 wall and CPU milliseconds from bytes to Reading, and how many photos failed."""
    import vision

    wall, cpu, failed = [], [], 0
    for path in paths:
        data = path.read_bytes()
        w0, c0 = time.perf_counter(), cpu_seconds()
        try:
            vision.read_photo(data, engine=engine)
        except vision.VisionError:
            failed += 1
        wall.append((time.perf_counter() - w0) * 1000)
        cpu.append((cpu_seconds() - c0) * 1000)
    return float(np.median(wall)), float(np.median(cpu)), failed


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the tesseract process)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def pct(ratio: dict) -> str:
    return f"{ratio['percent']:.2f}% ({ratio['count']}/{ratio['of']})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer photos for latency")
    args = parser.parse_args()
    if not (SHARED / "wichtounet").is_dir():
        print("../shared/datasets not present: nothing to measure")
        return
    limit_threads(opencv=1)
    keep_freed_memory()  # as a batch or service worker (api.scale.memory)
    from vision.recognise import DEFAULT_ENGINE

    wicht = SHARED / "wichtounet" / "images"
    kubiesa = SHARED / "kubiesa"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"reading bench: engine {DEFAULT_ENGINE} (default), one thread, "
        f"{os.cpu_count()} cpus, load average {load:.1f} at start"
    )

    w = accuracy(wicht, DEFAULT_ENGINE)
    k = accuracy(kubiesa, DEFAULT_ENGINE)
    rows = [
        ("wichtounet images/: grid located", ">= 99%", pct(w["located"])),
        ("wichtounet images/: cell accuracy", ">= 99.8%", pct(w["cell_accuracy"])),
        ("wichtounet images/: photos fully correct", ">= 95%", pct(w["fully_correct"])),
        ("kubiesa: grid located", ">= 98%", pct(k["located"])),
    ]

    small = [s.path for s in find_samples(wicht) if is_size(s.path, 640, 480)]
    twelve = [s.path for s in find_samples(kubiesa) if is_size(s.path, 4032, 3024)]
    n_small, n_twelve, n_tess = (20, 10, 6) if args.quick else (len(small), len(twelve), 20)
    for label, paths, target, engine in (
        (f"latency p50, 640x480 ({n_small} photos)", small[:n_small], "<= 60 ms", DEFAULT_ENGINE),
        (f"latency p50, 12 MP ({n_twelve} photos)", twelve[:n_twelve], "<= 350 ms", DEFAULT_ENGINE),
        (f"latency p50, 640x480, tesseract ({n_tess})", small[:n_tess], "<= 1200 ms", "tesseract"),
        (f"latency p50, 12 MP, tesseract ({n_tess})", twelve[:n_tess], "<= 1200 ms", "tesseract"),
    ):
        wall, cpu, failed = latency(paths, engine)
        note = f" ({failed} failed)" if failed else ""
        rows.append((label, target, f"{wall:.0f} ms wall, {cpu:.0f} ms cpu{note}"))

    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'target':<10}  measured")
    for name, target, value in rows:
        print(f"{name:<{width}}  {target:<10}  {value}")
    print("wichtounet latency by stage (ms, p50/p95): " + stages(w))
    print("kubiesa latency by stage (ms, p50/p95):    " + stages(k))
    missed = [p["name"] for p in w["per_photo"] + k["per_photo"] if p["located"] is False]
    print("not located: " + (" ".join(missed) if missed else "none"))


def stages(summary: dict) -> str:
    return ", ".join(
        f"{name} {v['p50']:.1f}/{v['p95']:.1f}" for name, v in summary["latency_ms"].items()
    )


def is_size(path: Path, width: int, height: int) -> bool:
    """Stored size, either way round (read from the header only)."""
    from PIL import Image

    with Image.open(path) as image:
        return sorted(image.size) == sorted((width, height))


if __name__ == "__main__":
    main()
