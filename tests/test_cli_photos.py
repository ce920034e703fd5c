"""`sudoku-lens solve` through its console script, in a subprocess, on generated photos."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from samples.synthetic import make_photo

REPO = Path(__file__).resolve().parent.parent
CLI = REPO / ".venv" / "bin" / "sudoku-lens"
PYTHON = REPO / ".venv" / "bin" / "python"


def run(*args, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(CLI), "solve", *map(str, args)], capture_output=True, text=True, timeout=timeout
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def photos():
    """Two generated photos and their solutions."""
    made = [make_photo(seed, size=(640, 480)) for seed in (21, 22)]
    return [(p.jpeg, "".join(str(int(v)) for v in p.solution.reshape(81))) for p in made]


@pytest.fixture(scope="module")
def folder(tmp_path_factory, photos):
    """A folder with a photo, a same-named photo in a sub-folder, a corrupt .jpg, a text file
    and a JSON file."""
    root = tmp_path_factory.mktemp("in")
    (root / "sub").mkdir()
    (root / "puzzle.jpg").write_bytes(photos[0][0])
    (root / "sub" / "puzzle.jpg").write_bytes(photos[1][0])
    (root / "broken.jpg").write_bytes(photos[0][0][:300])  # a truncated JPEG
    (root / "notes.txt").write_text("not a photo\n")
    (root / "meta.json").write_text("{}\n")
    return root


def test_the_cli_imports_cheaply():
    heavy = "{'cv2', 'numba', 'vision', 'api.photo.pipeline', 'PIL'}"
    code = f"import api.cli, sys; print(sorted({heavy} & set(sys.modules)))"
    out = subprocess.run([str(PYTHON), "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.strip() == "[]", out.stderr


def test_one_photo_writes_its_solved_photo_and_prints_the_solution(tmp_path, photos):
    jpeg, solution = photos[0]
    photo = tmp_path / "shot.jpg"
    photo.write_bytes(jpeg)

    done = run(photo)

    assert done.returncode == 0, done.stderr
    written = tmp_path / "shot.solved.jpg"
    image = cv2.imread(str(written))
    assert image is not None and image.shape == (480, 640, 3)
    first_row = " | ".join(" ".join(solution[i : i + 3]) for i in (0, 3, 6))
    assert first_row in done.stdout and "solved" in done.stdout
    assert photo.read_bytes() == jpeg


def test_one_photo_as_json_to_a_chosen_png(tmp_path, photos):
    jpeg, solution = photos[1]
    photo = tmp_path / "shot.jpg"
    photo.write_bytes(jpeg)
    target = tmp_path / "answer.png"

    done = run(photo, "-o", target, "--json")

    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "solved" and record["solution"] == solution
    assert record["output"] == str(target) and target.read_bytes()[:4] == b"\x89PNG"
    assert len(record["givens"]) == 81 and len(record["confidence"]) == 81
    assert len(record["corners"]) == 4 and record["timings"]["total"] > 0


def test_a_folder_with_bad_files_goes_on_and_reports_them(tmp_path, folder, photos):
    before = {p: digest(p) for p in folder.rglob("*") if p.is_file()}
    out, report = tmp_path / "out", tmp_path / "results.jsonl"

    done = run(folder, "--out", out, "--recursive", "--workers", "2", "--report", report)

    assert done.returncode == 1, done.stderr  # the broken photo failed
    records = {
        Path(r["file"]).relative_to(folder).as_posix(): r
        for r in map(json.loads, report.read_text().splitlines())
    }
    assert set(records) == {"puzzle.jpg", "sub/puzzle.jpg", "broken.jpg"}
    assert records["broken.jpg"]["status"] == "not_an_image"
    assert records["broken.jpg"]["message"]
    assert records["puzzle.jpg"]["solution"] == photos[0][1]
    assert records["sub/puzzle.jpg"]["solution"] == photos[1][1]
    outputs = {records[k]["output"] for k in ("puzzle.jpg", "sub/puzzle.jpg")}
    assert outputs == {str(out / "puzzle.solved.jpg"), str(out / "sub" / "puzzle.solved.jpg")}
    assert all(cv2.imread(o) is not None for o in outputs)
    assert {p: digest(p) for p in folder.rglob("*") if p.is_file()} == before
    assert "broken.jpg" in done.stdout and "not_an_image" in done.stdout
    assert "solved" in done.stderr and "total" in done.stderr  # the summary table


def test_a_csv_report_has_one_row_per_photo(tmp_path, folder):
    report = tmp_path / "results.csv"
    done = run(folder, "--out", tmp_path / "out", "--report", report, "--workers", "1")
    assert done.returncode == 1, done.stderr
    rows = list(csv.DictReader(report.open()))
    assert sorted(Path(r["file"]).name for r in rows) == ["broken.jpg", "puzzle.jpg"]
    by_name = {Path(r["file"]).name: r for r in rows}
    assert by_name["puzzle.jpg"]["status"] == "solved"
    assert len(by_name["puzzle.jpg"]["solution"]) == 81
    assert by_name["broken.jpg"]["status"] == "not_an_image"


def test_all_solved_exits_zero_and_same_names_stay_apart(tmp_path, photos):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "x.jpg").write_bytes(photos[0][0])
    out = tmp_path / "out"
    done = run(tmp_path / "a", tmp_path / "b", "--out", out, "--json")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(r["output"] for r in records) == [
        str(out / "a" / "x.solved.jpg"),
        str(out / "b" / "x.solved.jpg"),
    ]


@pytest.mark.parametrize(
    "args, words",
    [
        (["no/such/photo.jpg"], "no such file"),
        (["{tmp}", "--out", "{tmp}/o", "--report", "{tmp}/r.txt"], ".jsonl or .csv"),
        (["{tmp}"], "--out"),
        (["{tmp}/a.jpg", "-o", "{tmp}/a.jpg"], "never overwritten"),
        (["{tmp}/a.jpg", "--engine", "crystal-ball"], "unknown"),
    ],
)
def test_usage_errors_exit_2_with_a_clear_message(tmp_path, photos, args, words):
    (tmp_path / "a.jpg").write_bytes(photos[0][0])
    done = run(*(a.format(tmp=tmp_path) for a in args))
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr


def test_an_unsolvable_single_photo_exits_1(tmp_path):
    photo = tmp_path / "blank.png"
    cv2.imwrite(str(photo), np.full((300, 400, 3), 230, np.uint8))
    done = run(photo)
    assert done.returncode == 1
    assert "no_grid" in done.stdout + done.stderr
    assert not (tmp_path / "blank.solved.jpg").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_cleanly_and_keeps_the_partial_report(tmp_path, photos):
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(40):
        (folder / f"p{i:02}.jpg").write_bytes(photos[i % 2][0])
    out, report = tmp_path / "out", tmp_path / "r.jsonl"
    proc = subprocess.Popen(
        [
            str(CLI),
            "solve",
            str(folder),
            "--out",
            str(out),
            "--report",
            str(report),
            "--workers",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # as from a terminal: a suite started in the background (`make test &`, nohup)
        # ignores SIGINT, and a child that inherits that never hears the Ctrl-C
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        report.exists() and report.read_text().count("\n") >= 2
    ):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
    stdout, stderr = proc.communicate(timeout=60)

    assert proc.returncode == 130, stderr
    lines = report.read_text().splitlines()
    assert 2 <= len(lines) < 40
    records = [json.loads(line) for line in lines]  # every line complete
    for r in records:
        if r["status"] == "solved":
            assert cv2.imread(r["output"]) is not None
    assert not list(out.glob(".*.part"))  # no half-written photo
    assert "interrupted" in stderr
