"""`sudoku-lens eval`: Wicht and Kubiesa folders made of generated photos, run through the
real command; bad files are reported and counted, never stop the run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-c", "from api.cli import main; main()"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, cwd=REPO)


@pytest.fixture(scope="module")
def shots():
    from samples.synthetic import make_puzzle, render_photo

    result = []
    for seed in (11, 12):
        givens, solution = make_puzzle(np.random.default_rng(seed), n_givens=28)
        result.append(render_photo(givens, solution, seed=seed, size=(640, 480)))
    return result


def digit_rows(givens: np.ndarray) -> str:
    return "".join(" ".join(str(int(v)) for v in row) + " \n" for row in givens)


@pytest.fixture(scope="module")
def wicht_folder(tmp_path_factory, shots):
    root = tmp_path_factory.mktemp("wicht")
    images = root / "images"
    images.mkdir()
    lines = ["file,p1_x,p1_y,p2_x,p2_y,p3_x,p3_y,p4_x,p4_y"]
    for i, shot in enumerate(shots, start=1):
        (images / f"image{i}.jpg").write_bytes(shot.jpeg)
        (images / f"image{i}.dat").write_text(
            "test phone\n640x480:24 JPG\n" + digit_rows(shot.givens)
        )
        lines.append(f"image{i}.jpg," + ",".join(f"{v:.1f}" for v in shot.corners.ravel()))
    (root / "outlines.csv").write_text("\n".join(lines) + "\n")  # beside images/, as in Wicht's set
    (images / "image9.jpg").write_text("this is not a photo")
    (images / "image9.dat").write_text("x\ny\n" + digit_rows(np.zeros((9, 9), int)))
    return images


def test_wicht_folder_is_measured_and_the_bad_file_reported(wicht_folder, tmp_path):
    out = tmp_path / "eval.json"
    result = run("eval", str(wicht_folder), "--json-out", str(out))
    assert result.returncode == 1, result.stderr  # one photo failed
    assert "image9.jpg" in result.stderr and "NotAnImage" in result.stderr
    assert "grid located (corners within 5%)" in result.stdout
    assert "100.00%  (2/2)" in result.stdout  # both labelled photos located
    summary = json.loads(out.read_text())
    assert summary["photos"] == 3 and summary["errors"] == 1
    assert summary["located"]["count"] == 2
    assert summary["cell_accuracy"]["of"] == 3 * 81
    assert summary["cell_accuracy"]["count"] >= 2 * 79  # the bad photo's cells count as wrong
    names = {p["name"]: p for p in summary["per_photo"]}
    assert names["image9.jpg"]["error"].startswith("NotAnImage")
    assert names["image1.jpg"]["corner_error"] < 0.05
    assert set(summary["latency_ms"]) >= {"load", "locate", "warp", "cells", "recognise", "total"}
    assert sum(map(sum, summary["confusion"]["counts"])) == 2 * 81
    assert "\x1b[" not in result.stdout  # piped: plain text


def test_kubiesa_folder_is_measured(tmp_path, shots):
    root = tmp_path / "kubiesa"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    header = "Name,Source,Puzzle,Width,Height"
    order = ("topleft", "bottomleft", "bottomright", "topright")
    header += "," + ",".join(f"{a}_{c}_absolute" for c in order for a in "xy")
    rows = [header]
    for i, shot in enumerate(shots):
        name = f"page_{i}.jpg"
        (root / "images" / name).write_bytes(shot.jpeg)
        labels = shot.givens.astype(int).copy()
        labels[labels == 0] = np.where(np.arange((labels == 0).sum()) % 7 == 0, 10, 0)  # pencil
        (root / "labels" / f"page_{i}.txt").write_text(
            "\n".join(" ".join(f"{v:2d}" for v in row) for row in labels) + "\n"
        )
        tl, tr, br, bl = shot.corners
        corners = [tl, bl, br, tr]
        rows.append(f"{name},gen,p,640,480," + ",".join(f"{v:.0f}" for c in corners for v in c))
    (root / "metadata.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "k.json"
    result = run("eval", str(root), "-j", str(out), "--engine", "classifier")
    assert result.returncode == 0, result.stderr
    summary = json.loads(out.read_text())
    assert summary["located"] == {"count": 2, "of": 2, "percent": 100.0}
    assert summary["engine"] == "classifier"
    assert summary["cell_accuracy"]["percent"] > 97


def test_usage_errors_exit_2(tmp_path):
    missing = run("eval", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "not a folder" in missing.stderr
    empty = run("eval", str(tmp_path))
    assert empty.returncode == 2 and "no images" in empty.stderr
    engine = run("eval", str(tmp_path), "--engine", "ouija")
    assert engine.returncode == 2 and "unknown engine" in engine.stderr


def test_the_eval_module_imports_no_vision_until_run():
    code = (
        "import sys, api.cli.evaluate; "
        "print(sorted(m for m in sys.modules if m == 'cv2' or m.startswith('vision')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.stdout.strip() == "[]"


def test_corner_error_matches_corners_in_any_cyclic_order():
    from api.photo.evaluation import corner_error

    square = np.float32([[0, 0], [100, 0], [100, 100], [0, 100]])
    assert corner_error(np.roll(square, 1, axis=0), square) == 0
    assert corner_error(square + 3, square) == pytest.approx(np.hypot(3, 3) / 100)
