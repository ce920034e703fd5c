"""`sudoku-lens solve` on a failing disk (issue 36): a report that cannot be written is one
line of error and exit 1, never a traceback nor half a line; outputs that cannot be written
are solved again on `--resume`, which ends with every photo once and every overlay present.

A full disk is a small tmpfs this test mounts (root only; skipped otherwise) or /dev/full;
a read-only output folder is that tmpfs remounted read-only (root ignores file modes).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from api.scale import batch
from samples.synthetic import make_photo

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def solve(*args) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "from api.cli import main; main()", "solve"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [*command, *map(str, args)], capture_output=True, text=True, timeout=240, env=env
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("photos")
    for i in range(4):
        (root / f"p{i}.jpg").write_bytes(make_photo(40 + i, size=(480, 360)).jpeg)
    (root / "broken.jpg").write_bytes(b"\xff\xd8 not a photo")
    return root


@contextlib.contextmanager
def tmpfs(where: Path, size: str):
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)])
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)])


def records_of(report: Path) -> list[dict]:
    return [json.loads(line) for line in report.read_text().splitlines()]


def one_line_error(result: subprocess.CompletedProcess) -> str:
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    return errors[0]


def each_once_and_drawn(report: Path, folder: Path) -> None:
    records = records_of(report)
    files = sorted(Path(r["file"]).name for r in records)
    assert files == sorted(p.name for p in folder.iterdir()), files
    solved = [r for r in records if r["status"] == "solved"]
    assert len(solved) == 4 and all(Path(r["output"]).is_file() for r in solved)


def test_a_report_on_dev_full_is_one_line_and_exit_1(tmp_path, folder):
    report = tmp_path / "r.jsonl"
    report.symlink_to("/dev/full")
    result = solve(folder, "--out", tmp_path / "out", "--report", report, "-j", "1")
    assert result.returncode == 1
    line = one_line_error(result)
    assert str(report) in line and "No space left on device" in line and "--resume" in line


def test_a_report_whose_disk_fills_resumes_to_every_photo_once(tmp_path, folder):
    with tmpfs(tmp_path / "disk", "256k") as disk:
        filler = disk / "filler"
        with contextlib.suppress(OSError):
            filler.write_bytes(bytes(256 * 1024))  # the disk as full as it gets
        os.truncate(filler, filler.stat().st_size - 6 * 1024)  # room for a record or two
        report = disk / "r.jsonl"
        args = [folder, "--out", tmp_path / "out", "--report", report, "-j", "1"]

        full = solve(*args)
        assert full.returncode == 1
        assert "No space left on device" in one_line_error(full)
        assert report.read_text().endswith("\n") or report.read_text() == ""
        before = len(records_of(report))
        assert before < 5

        filler.unlink()
        again = solve(*args, "--resume")
        assert again.returncode in (0, 1) and "error:" not in again.stderr, again.stderr
        each_once_and_drawn(report, folder)


def test_outputs_on_a_read_only_folder_are_redone_on_resume(tmp_path, folder):
    with tmpfs(tmp_path / "disk", "16m") as disk:
        (disk / "out").mkdir()
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        report = tmp_path / "r.jsonl"
        args = [folder, "--out", disk / "out", "--report", report, "-j", "1"]

        refused = solve(*args)
        assert refused.returncode == 1
        records = records_of(report)
        unwritten = [r for r in records if "could not be written" in r["message"]]
        assert len(unwritten) == 4 and all(r["output"] is None for r in unwritten)

        subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True)
        again = solve(*args, "--resume")
        assert "resuming: 1 photo already in" in again.stderr  # only broken.jpg stands
        each_once_and_drawn(report, folder)


def test_resume_redoes_a_record_whose_overlay_is_gone(tmp_path):
    overlay = tmp_path / "a.solved.jpg"
    overlay.write_bytes(b"x")
    report = tmp_path / "r.jsonl"
    solved = {"status": "solved", "solution": "1" * 81, "output": str(overlay)}
    lines = [
        {"file": "a.jpg", **solved},
        {"file": "b.jpg", **solved, "output": str(tmp_path / "gone.jpg")},
        {"file": "c.jpg", "status": "no_grid", "solution": None, "output": None},
        {"file": "c.jpg", "status": "no_grid", "solution": None, "output": None},
    ]
    report.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"file": "d')

    assert batch.settle(report) == {"a.jpg", "c.jpg"}
    assert [r["file"] for r in records_of(report)] == ["a.jpg", "c.jpg"]
