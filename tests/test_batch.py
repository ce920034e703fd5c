"""api.scale.batch: the plan of a batch, the report, the crash-tolerant pool."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from api.scale import batch
from api.scale.batch import PlanError, Settings, Task, make_plan
from api.scale.threads import cores


def touch(path: Path, data: bytes = b"x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def targets(plan, root: Path) -> dict[str, str]:
    return {
        Path(t.photo).relative_to(root).as_posix(): Path(t.target).relative_to(root).as_posix()
        for t in plan.tasks()
    }


def test_a_folder_of_links_is_mirrored_as_the_links_are_laid_out(tmp_path):
    real = tmp_path / "real"
    touch(real / "deep" / "p.jpg")
    touch(real / "other" / "q.png")
    links = tmp_path / "links"
    (links / "a").mkdir(parents=True)
    (links / "b").mkdir()
    os.symlink(real / "deep" / "p.jpg", links / "a" / "x.jpg")
    os.symlink(real / "other" / "q.png", links / "b" / "y.png")
    os.symlink(real / "deep" / "p.jpg", links / "b" / "again.jpg")  # the same photo twice

    plan = make_plan([links], out=tmp_path / "out", recursive=True)

    assert targets(plan, tmp_path) == {
        "links/a/x.jpg": "out/a/x.solved.jpg",
        "links/b/again.jpg": "out/b/again.solved.jpg",
        "links/b/y.png": "out/b/y.solved.jpg",
    }


def test_names_stay_unique_outputs_are_skipped_and_files_named_twice_come_once(tmp_path):
    root = tmp_path / "in"
    for name in ("a.jpg", "a.png", "b.JPG", "notes.txt", ".hidden.jpg", "a.solved.jpg"):
        touch(root / name)
    touch(root / "sub" / "a.jpg")
    out = root / "out"
    touch(out / "old.jpg")  # a previous run's output folder inside the input

    plan = make_plan([root, root / "a.jpg"], out=out, recursive=True)

    assert targets(plan, root) == {
        "a.jpg": "out/a.solved.jpg",
        "a.png": "out/a-2.solved.jpg",
        "b.JPG": "out/b.solved.jpg",
        "sub/a.jpg": "out/sub/a.solved.jpg",
    }
    assert plan.count() == 4 and not plan.single


def test_one_photo_goes_next_to_itself_and_is_never_overwritten(tmp_path):
    photo = touch(tmp_path / "shot.jpg")
    plan = make_plan([photo])
    assert plan.single and [t.target for t in plan.tasks()] == [str(tmp_path / "shot.solved.jpg")]
    with pytest.raises(PlanError, match="never overwritten"):
        make_plan([photo], output=photo)
    with pytest.raises(PlanError, match="--out"):
        make_plan([tmp_path])
    with pytest.raises(PlanError, match=".jsonl or .csv"):
        make_plan([tmp_path], out=tmp_path / "o", report=tmp_path / "r.txt")


def test_workers_follow_the_machine_unless_told(tmp_path):
    assert make_plan([tmp_path], out=tmp_path / "o").workers == cores()
    assert make_plan([tmp_path], out=tmp_path / "o", workers=3).workers == 3


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_report_resumes_without_repeating_and_drops_a_torn_line(tmp_path, suffix):
    path = tmp_path / f"r{suffix}"
    with batch.Report(path) as report:
        report.add(batch.failure("a.jpg", "no_grid", "no grid"))
        report.add(batch.failure("b.jpg", "error", "boom"))
    if suffix == ".jsonl":
        with open(path, "a") as handle:
            handle.write('{"file": "c.jpg", "stat')  # killed mid-write
    assert batch.reported_files(path) == {"a.jpg", "b.jpg"}

    with batch.Report(path, resume=True) as report:
        report.add(batch.failure("c.jpg", "no_grid", "no grid"))

    assert batch.reported_files(path) == {"a.jpg", "b.jpg", "c.jpg"}
    text = path.read_text()
    assert text.count("c.jpg") == 1 and text.endswith("\n")
    if suffix == ".csv":
        assert text.count("file,output,status") == 1  # one header


def test_run_skips_what_the_report_holds(tmp_path):
    for name in ("a.txt.jpg", "b.jpg", "c.jpg"):
        touch(tmp_path / "in" / name, b"not an image")
    report = tmp_path / "r.jsonl"
    plan = make_plan([tmp_path / "in"], out=tmp_path / "out", report=report, workers=1)
    with batch.Report(report) as first:
        first.add(batch.failure(str(tmp_path / "in" / "b.jpg"), "not_an_image", "x"))

    counts = batch.run(plan, batch.serial(), resume=True)

    assert counts == {"not_an_image": 2}
    files = [json.loads(line)["file"] for line in report.read_text().splitlines()]
    assert sorted(Path(f).name for f in files) == ["a.txt.jpg", "b.jpg", "c.jpg"]


def _killer_solve(source, **kwargs):
    """Stands in for the pipeline in forked pool workers: `killer` photos kill their worker."""
    if "killer" in str(source):
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)  # still in flight when the killer strikes, at its first death and retry
    raise __import__("vision").NoGridFound("no sudoku grid found")


def test_a_photo_that_kills_its_worker_is_an_error_and_the_rest_is_done(tmp_path, monkeypatch):
    import api.photo.pipeline

    monkeypatch.setattr(api.photo.pipeline, "solve_photo", _killer_solve)
    tasks = [Task(str(tmp_path / f"p{i}.jpg"), None) for i in range(6)]
    tasks.insert(3, Task(str(tmp_path / "killer.jpg"), None))

    records = list(batch.process_pool(2)(iter(tasks), Settings()))

    by_file = {Path(r.file).name: r for r in records}
    assert len(records) == len(by_file) == 7
    assert by_file["killer.jpg"].status == "error" and "died" in by_file["killer.jpg"].message
    assert {r.status for n, r in by_file.items() if n != "killer.jpg"} == {"no_grid"}
