"""The batch on a real Dask LocalCluster (two worker processes): the same report as the
default pool, resume after an interruption, workers killed mid-batch; fsspec URLs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the dask extra is not installed (pip install '.[dask]')")
pytest.importorskip("fsspec", reason="the dask extra is not installed (pip install '.[dask]')")

from api.scale import batch  # noqa: E402
from api.scale.batch import Settings, Task  # noqa: E402
from samples.synthetic import make_photo  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CLI = REPO / ".venv" / "bin" / "sudoku-lens"
pytestmark = pytest.mark.slow


def run(*args, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(CLI), "solve", *map(str, args)], capture_output=True, text=True, timeout=timeout
    )


def records_of(report: Path) -> list[dict]:
    return [json.loads(line) for line in report.read_text().splitlines()]


@pytest.fixture(scope="module")
def photos():
    return [make_photo(seed, size=(480, 360)).jpeg for seed in (31, 32, 33)]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory, photos):
    """Photos in two folders, a truncated JPEG, an image without a grid, a text file."""
    root = tmp_path_factory.mktemp("mixed")
    for i in range(6):
        folder = root / ("sub" if i % 2 else ".")
        folder.mkdir(exist_ok=True)
        (folder / f"p{i}.jpg").write_bytes(photos[i % 3])
    (root / "broken.jpg").write_bytes(photos[0][:400])
    (root / "empty.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "notes.txt").write_text("not a photo")
    return root


def same_outcome(records: list[dict], root: Path) -> dict:
    return {
        Path(r["file"]).relative_to(root).as_posix(): (r["status"], r["solution"], r["givens"])
        for r in records
    }


def test_a_mixed_folder_gives_the_default_pools_report(tmp_path, mixed):
    pool = run(mixed, "-r", "--out", tmp_path / "a", "--report", tmp_path / "a.jsonl", "-j", "2")
    dask = run(
        mixed, "-r", "--out", tmp_path / "b", "--report", tmp_path / "b.jsonl",
        "--scheduler", "local:2",
    )  # fmt: skip

    assert pool.returncode == dask.returncode == 1, dask.stderr  # the broken files
    expected = same_outcome(records_of(tmp_path / "a.jsonl"), mixed)
    assert same_outcome(records_of(tmp_path / "b.jsonl"), mixed) == expected
    assert len(expected) == 8 and expected["broken.jpg"][0] == "not_an_image"
    assert sum(status == "solved" for status, _, _ in expected.values()) == 6
    assert sorted(p.relative_to(tmp_path / "b").as_posix() for p in (tmp_path / "b").rglob("*.jpg")) == [
        "p0.solved.jpg", "p2.solved.jpg", "p4.solved.jpg",
        "sub/p1.solved.jpg", "sub/p3.solved.jpg", "sub/p5.solved.jpg",
    ]  # fmt: skip
    assert "total" in dask.stderr and "2 workers" in dask.stderr


def test_an_interrupted_run_resumes_and_reports_each_photo_once(tmp_path, photos):
    folder = tmp_path / "many"
    folder.mkdir()
    # more photos than the window of chunks in flight (16 on local:2), which Ctrl-C lets finish
    for i in range(40):
        (folder / f"p{i:02}.jpg").write_bytes(photos[i % 3])
    out, report = tmp_path / "out", tmp_path / "r.jsonl"
    args = [str(CLI), "solve", str(folder), "--out", str(out), "--report", str(report)]
    proc = subprocess.Popen(
        [*args, "--scheduler", "local:2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (
        report.exists() and report.read_text().count("\n") >= 3
    ):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    first = len(records_of(report))
    assert 3 <= first < 40
    # the chunks on the workers at Ctrl-C finish and write: their records are kept too
    written = {p.name for p in out.rglob("*.solved.jpg")}
    recorded = {Path(r["output"]).name for r in records_of(report) if r["output"]}
    assert written <= recorded, written - recorded

    again = subprocess.run(
        [*args, "--scheduler", "local:2", "--resume"], capture_output=True, text=True, timeout=240
    )

    assert again.returncode == 0, again.stderr
    assert f"resuming: {first} photos already in" in again.stderr
    files = [r["file"] for r in records_of(report)]
    assert len(files) == len(set(files)) == 40
    assert {r["status"] for r in records_of(report)} == {"solved"}


class _Killer:
    """A worker plugin for the test: in every worker, photos named `killer` kill the worker
    process that solves them (as a segfault in a decoder would)."""

    name = "test-killer"

    def setup(self, worker) -> None:
        import api.photo.pipeline

        real = api.photo.pipeline.solve_photo

        def solve_photo(source, **kwargs):
            if "killer" in str(source):
                os.kill(os.getpid(), signal.SIGKILL)
            return real(source, **kwargs)

        api.photo.pipeline.solve_photo = solve_photo


def run_with_a_killer(tmp_path, photos, n, killer_at, kill_after, victim, **runner):
    """Run n photos and a killer photo (inserted at `killer_at`) on a local:2 cluster whose
    workers die on the killer; after `kill_after` records, SIGKILL worker `victim` from
    outside, by no photo's fault. The records, in the order they came."""
    import cloudpickle
    from distributed.diagnostics.plugin import WorkerPlugin

    from api.scale.cluster import connect, dask_runner

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    plugin = type("Killer", (_Killer, WorkerPlugin), {})()
    tasks = []
    for i in range(n):
        (tmp_path / f"p{i:02}.jpg").write_bytes(photos[i % 3])
        tasks.append(Task(str(tmp_path / f"p{i:02}.jpg"), str(tmp_path / "out" / f"p{i:02}.jpg")))
    tasks.insert(killer_at, Task(str(tmp_path / "killer.jpg"), None))
    (tmp_path / "killer.jpg").write_bytes(photos[0])

    with connect("local:2") as client:
        client.register_plugin(plugin)
        pids = list(client.run(os.getpid).values())
        records = []
        for record in dask_runner(client, **runner)(iter(tasks), Settings()):
            records.append(record)
            if len(records) == kill_after:
                os.kill(pids[victim], signal.SIGKILL)
    return records


def test_killed_workers_lose_nothing_and_a_photo_that_kills_them_is_an_error(tmp_path, photos):
    records = run_with_a_killer(tmp_path, photos, 16, 9, kill_after=3, victim=0, window=4)

    files = [r.file for r in records]
    assert len(files) == len(set(files)) == 17
    by_name = {Path(r.file).name: r for r in records}
    assert by_name["killer.jpg"].status == "error" and "died" in by_name["killer.jpg"].message
    assert {r.status for n, r in by_name.items() if n != "killer.jpg"} == {"solved"}


def test_chunks_give_the_pools_records_each_photo_once(tmp_path, mixed):
    from api.scale.cluster import connect, dask_runner

    plan = batch.make_plan([mixed], out=tmp_path / "out", recursive=True, workers=1)
    alone = {
        r.file: (r.status, r.solution, r.givens) for r in batch.serial()(plan.tasks(), Settings())
    }
    with connect("local:2") as client:
        # two photos a task, four in flight: chunks of two, then single photos at the end
        records = list(dask_runner(client, window=4, chunk=2)(plan.tasks(), Settings()))

    assert sorted(r.file for r in records) == sorted(alone)
    assert {r.file: (r.status, r.solution, r.givens) for r in records} == alone


def test_a_worker_killed_mid_chunk_blames_no_chunk_mate(tmp_path, photos):
    """Four photos to a task; the killer sits in the middle of a chunk and an outside kill
    takes another chunk's worker: every photo is reported once, and only the killer (on two
    dying workers, the last time alone) is an `error`."""
    records = run_with_a_killer(
        tmp_path, photos, 23, 13, kill_after=4, victim=1, window=8, chunk=4
    )  # the killer is the third of chunk [12, 16)

    files = [r.file for r in records]
    assert len(files) == len(set(files)) == 24
    by_name = {Path(r.file).name: r for r in records}
    assert by_name["killer.jpg"].status == "error", by_name["killer.jpg"]
    assert "died (2x)" in by_name["killer.jpg"].message
    assert {r.status for n, r in by_name.items() if n != "killer.jpg"} == {"solved"}


def test_urls_in_and_out_through_fsspec(tmp_path, photos):
    import fsspec

    memory = fsspec.filesystem("memory")
    memory.pipe_file("/batch-in/a/p0.jpg", photos[0])
    memory.pipe_file("/batch-in/b/p1.jpg", photos[1])
    memory.pipe_file("/batch-in/bad.jpg", b"\xff\xd8 nope")
    plan = batch.make_plan(
        ["memory://batch-in"], out="memory://batch-out", recursive=True, workers=1
    )

    counts = batch.run(plan)  # memory:// is per process: run here

    assert counts == {"solved": 2, "not_an_image": 1}
    assert sorted(memory.find("/batch-out")) == [
        "/batch-out/a/p0.solved.jpg",
        "/batch-out/b/p1.solved.jpg",
    ]
    assert memory.cat_file("/batch-out/a/p0.solved.jpg")[:2] == b"\xff\xd8"

    # file:// URLs on the cluster
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "p2.jpg").write_bytes(photos[2])
    done = run(f"file://{tmp_path}/in", "--out", f"file://{tmp_path}/out", "--scheduler", "local:2")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "p2.solved.jpg").stat().st_size > 1000


def test_a_bad_scheduler_is_a_usage_error(tmp_path, photos):
    (tmp_path / "p.jpg").write_bytes(photos[0])
    bad = run(tmp_path, "--out", tmp_path / "o", "--scheduler", "local:zero")
    assert bad.returncode == 2 and "how many workers" in bad.stderr
    nowhere = run(tmp_path, "--out", tmp_path / "o", "--resume")
    assert nowhere.returncode == 2 and "--report" in nowhere.stderr


def stub_tasks(folder: Path, n: int) -> list[Task]:
    """n tiny files that are not photos: tasks that cost the workers nothing."""
    tasks = []
    for i in range(n):
        (folder / f"s{i:02}.jpg").write_bytes(b"not a photo")
        tasks.append(Task(str(folder / f"s{i:02}.jpg"), None))
    return tasks


def test_a_long_batch_keeps_no_memo_of_its_keys(tmp_path, monkeypatch):
    """Every task has its own key, and Dask memoises each key's prefix on the scheduler and
    the workers; the batch empties that memo as it goes, so it does not grow with the batch."""
    from dask.utils import key_split

    from api.scale import cluster
    from api.scale.cluster import connect, dask_runner

    monkeypatch.setattr(cluster, "FORGET_KEYS_EVERY", 5)
    tasks = stub_tasks(tmp_path, 40)

    def memo_sizes(client) -> list[int]:
        on_workers = client.run(lambda: key_split.cache_info().currsize).values()
        return [client.run_on_scheduler(lambda: key_split.cache_info().currsize), *on_workers]

    with connect("local:2") as client:
        client.run_on_scheduler(key_split.cache_clear)
        records = list(dask_runner(client, window=4, chunk=1)(iter(tasks), Settings()))
        sizes = memo_sizes(client)

    assert len(records) == 40 and {r.status for r in records} == {"not_an_image"}
    assert max(sizes) < 20, sizes  # 40 keys without the clearing


def test_a_long_batch_leaves_its_span_and_the_monitor_short(tmp_path, monkeypatch):
    """Dask's scheduler notes each `Client.submit` in the span of the batch, which a rolling
    window keeps open for the whole run, and samples the system twice a second for an
    hour: the batch trims the first as it goes and `local:N` keeps a minute of the second."""
    from api.scale import cluster
    from api.scale.cluster import connect, dask_runner

    monkeypatch.setattr(cluster, "FORGET_KEYS_EVERY", 5)

    def span_collections(dask_scheduler=None) -> int:
        spans = dask_scheduler.extensions["spans"].spans.values()
        return sum(len((span.metadata or {}).get("collections", [])) for span in spans)

    def monitor_length(dask_scheduler=None) -> int:
        return max(q.maxlen for q in dask_scheduler.monitor.quantities.values())

    with connect("local:2") as client:
        runner = dask_runner(client, window=4, chunk=1)
        records = list(runner(iter(stub_tasks(tmp_path, 40)), Settings()))
        collections = client.run_on_scheduler(span_collections)
        samples = client.run_on_scheduler(monitor_length)

    assert len(records) == 40 and {r.status for r in records} == {"not_an_image"}
    assert collections < 10, collections  # one per task, 40, without the trimming
    assert samples <= 120, samples  # 7,200 by Dask's default
