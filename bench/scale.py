"""Scale-out benchmark: `sudoku-lens solve` on Dask against the default process pool.

Run: `.venv/bin/python bench/scale.py [--many 100000] [--skip-many] [--skip-throughput]`
(needs ../shared and the dask extra; part 1 depends on the machine's load, parts 2 and 3 do
not). Every figure comes from the real command line, run as a user runs it:

1. Throughput on the 160 shared Wicht photos: the default pool (`--workers 2`),
   `--scheduler local:2` and `--scheduler local:1`. Photos/s are counted between the first
   and the last photo reported (steady state); wall time with start-up is shown beside.
   Each set-up runs `--rounds` times in turn and its median rate counts.
   Targets: local:2 >= 90% of the pool, local:2 >= 1.8x local:1.
2. A worker process killed with SIGKILL in the middle of a run (a `dask scheduler` and a
   `dask worker --nworkers 2` started here, the CLI given `--scheduler tcp://...`): the batch
   finishes and every photo is reported once.
3. `--many` inputs (symbolic links in folders of 1,000) on the same tcp cluster, interrupted
   with Ctrl-C after a third and resumed with `--resume`: every input reported exactly once,
   and the peak resident memory of the client, the scheduler and the workers, sampled through
   the run, stays flat. The links point at a few tiny files that are not images (each
   `not_an_image` in well under a millisecond), so that the run measures the machinery
   (listing, scheduler, client, report) in minutes, not the photo reading.
4. The projected cost of 10 million photos from the measured CPU time per photo and the
   scheduler's CPU time per photo: a projection, not a measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
WICHT = SHARED / "datasets" / "wichtounet" / "images"
BIN = REPO / ".venv" / "bin"
CLI = BIN / "sudoku-lens"
PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- processes and memory


def rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * PAGE
    except OSError:
        return 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU of one process so far."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except OSError:
        return 0.0


def descendants(pid: int) -> list[int]:
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = []
        try:
            for thread in os.listdir(f"/proc/{parent}/task"):
                with open(f"/proc/{parent}/task/{thread}/children") as handle:
                    children += [int(c) for c in handle.read().split()]
        except OSError:
            pass
        found += children
        frontier += children
    return found


class Sampler:
    """Peak RSS per role, sampled every 0.2 s, and the RSS at each tenth of the run."""

    def __init__(self, roles: dict[str, callable], progress: callable):
        self.roles, self.progress = roles, progress
        self.peak = dict.fromkeys(roles, 0)
        self.at: dict[int, dict[str, int]] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self) -> None:
        while not self.stop.wait(0.2):
            now = {role: sum(rss(p) for p in pids()) for role, pids in self.roles.items()}
            for role, value in now.items():
                self.peak[role] = max(self.peak[role], value)
            self.at.setdefault(int(self.progress() * 10), now)

    def __enter__(self) -> Sampler:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()


# What docs/scale.md tells a cluster's operator to put in the scheduler's and workers' Dask
# config: the same settings `--scheduler local:N` uses (api.scale.cluster).
DASK_CONFIG = """\
distributed:
  scheduler:
    allowed-failures: 0
    worker-saturation: 1.0
  admin:
    low-level-log-length: 100
    system-monitor:
      log-length: 120
  diagnostics:
    computations:
      max-history: 10
  worker:
    profile:
      enabled: false
  nanny:
    pre-spawn-environ:
      MALLOC_TRIM_THRESHOLD_: 67108864
      MALLOC_MMAP_THRESHOLD_: 33554432
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TcpCluster:
    """`dask scheduler` and `dask worker --nworkers N` as separate processes, as on a cluster."""

    def __init__(self, workers: int = 2):
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.config = Path(tempfile.mkdtemp(prefix="dask-config-"))
        (self.config / "sudoku-lens.yaml").write_text(DASK_CONFIG)
        env = dict(os.environ, DASK_CONFIG=str(self.config))
        quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        self.scheduler = subprocess.Popen(
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(self.port),
             "--no-dashboard"],
            **quiet,
        )  # fmt: skip
        self.workers = subprocess.Popen(
            [str(BIN / "dask"), "worker", self.address, "--nworkers", str(workers),
             "--nthreads", "1", "--no-dashboard"],
            **quiet,
        )  # fmt: skip
        self.n = workers
        self.wait_for_workers()

    def wait_for_workers(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if len(self.worker_pids()) >= self.n:
                time.sleep(2)  # let them register
                return
            time.sleep(0.2)
        raise RuntimeError("the dask workers did not start")

    def worker_pids(self) -> list[int]:
        """The processes that solve: the nannies' children started by multiprocessing."""
        found = []
        for pid in descendants(self.workers.pid):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    if b"spawn_main" in handle.read():
                        found.append(pid)
            except OSError:
                continue
        return found

    def close(self) -> None:
        for proc in (self.workers, self.scheduler):
            proc.send_signal(signal.SIGINT)
        for proc in (self.workers, self.scheduler):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


# ---------------------------------------------------------------- runs


class Run:
    """One `sudoku-lens solve` run: wall time, when each photo was reported, exit status."""

    def __init__(self, args: list[str], *, interrupt_after: int | None = None, on_line=None):
        self.args = args
        self.times: list[float] = []
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        self.proc = subprocess.Popen(
            [str(CLI), "solve", *args, "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        errors: list[str] = []
        reader = threading.Thread(target=lambda: errors.append(self.proc.stderr.read()))
        reader.start()
        for _ in self.proc.stdout:
            self.times.append(time.perf_counter())
            if on_line is not None:
                on_line(len(self.times))
            if interrupt_after is not None and len(self.times) == interrupt_after:
                self.proc.send_signal(signal.SIGINT)  # Ctrl-C, to the command alone
        self.returncode = self.proc.wait()
        reader.join()
        self.stderr = errors[0] if errors else ""
        self.wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # every process of the run (the command, its workers, a local scheduler and nannies)
        # is waited for by its parent, so their CPU time adds up here
        self.cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    @property
    def steady(self) -> float:
        """Photos per second between the first and the last photo reported. Dask reports a
        chunk's photos together: those that arrive with the first (within 20 ms) were solved
        before the clock started and are not counted."""
        first = sum(1 for t in self.times if t - self.times[0] < 0.02) if self.times else 0
        if len(self.times) - first < 1:
            return 0.0
        return (len(self.times) - first) / (self.times[-1] - self.times[0])


def report_files(report: Path) -> list[str]:
    return [json.loads(line)["file"] for line in report.read_text().splitlines()]


SETUPS = (
    ("default pool, --workers 2", ["--workers", "2"]),
    ("--scheduler local:2", ["--scheduler", "local:2"]),
    ("--scheduler local:1", ["--scheduler", "local:1"]),
)


def throughput(tmp: Path, rounds: int, setups=SETUPS) -> dict:
    """Each set-up run `rounds` times, in turn (pool, local:2, local:1, pool, ...), and its
    median steady rate kept: one run is ten seconds of photos, so a moment of another
    process's work, or the first run's cold file cache, moves a single run's rate by 10%."""
    photos = sorted(WICHT.glob("*.jpg"))
    runs = {name: dict(runs=[], statuses=set(), records=[]) for name, _ in setups}
    for turn in range(rounds):
        for index, (name, extra) in enumerate(setups):
            n = turn * len(setups) + index
            report = tmp / f"{n}.jsonl"
            run = Run([str(WICHT), "--out", str(tmp / f"out{n}"), "--report", str(report),
                       *extra])  # fmt: skip
            records = [json.loads(line) for line in report.read_text().splitlines()]
            assert len(records) == len(photos), f"{name}: {len(records)} of {len(photos)}"
            statuses = {r["file"]: r["status"] for r in records}
            runs[name]["runs"].append(run)
            runs[name]["statuses"].add(tuple(sorted(statuses.items())))
            runs[name]["records"] += records
            print(
                f"  round {turn + 1}  {name:<28} {len(records)} photos, {run.steady:5.2f} "
                f"photos/s steady, {run.wall:5.1f} s wall with start-up, "
                f"{run.cpu / len(records) * 1000:4.0f} ms CPU a photo (every process), "
                f"exit {run.returncode}",
                flush=True,
            )
    for value in runs.values():
        rates = sorted(run.steady for run in value["runs"])
        value["steady"] = rates[len(rates) // 2]
        cpu = sorted(run.cpu / len(photos) for run in value["runs"])
        value["cpu"] = cpu[len(cpu) // 2]
    same = len(set.union(*(r["statuses"] for r in runs.values()))) == 1
    one = runs[setups[-1][0]]["records"]
    per_photo = sum(r["timings"]["end_to_end"] for r in one) / len(one) / 1000
    first = {name: dict(statuses=dict(next(iter(r["statuses"])))) for name, r in runs.items()}
    return dict(runs=runs, same=same, per_photo=per_photo, first=first)


def killed_worker(tmp: Path, cluster: TcpCluster, expected: dict) -> dict:
    report = tmp / "killed.jsonl"
    killed = []

    def kill(n: int) -> None:
        if n == 40 and not killed:
            victim = cluster.worker_pids()[0]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    run = Run([str(WICHT), "--out", str(tmp / "killed"), "--report", str(report),
               "--scheduler", cluster.address], on_line=kill)  # fmt: skip
    records = [json.loads(line) for line in report.read_text().splitlines()]
    files = [r["file"] for r in records]
    statuses = {r["file"]: r["status"] for r in records}
    return dict(
        run=run,
        killed=killed,
        once=len(files) == len(set(files)) == len(expected),
        same=statuses == expected,
    )


def many_inputs(tmp: Path, cluster: TcpCluster, n: int) -> dict:
    stubs = tmp / "stubs"
    stubs.mkdir()
    targets = []
    for k in range(4):
        target = stubs / f"stub{k}.bin"
        target.write_bytes(b"not a photo %d\n" % k)
        targets.append(target)
    tree = tmp / "many"
    for i in range(n):
        folder = tree / f"f{i // 1000:04}"
        if i % 1000 == 0:
            folder.mkdir(parents=True)
        os.symlink(targets[i % 4], folder / f"p{i:06}.jpg")
    report = tmp / "many.jsonl"
    done = [0]
    client_pids: list[int] = []
    roles = {
        "client": lambda: client_pids,
        "scheduler": lambda: [cluster.scheduler.pid],
        "workers": lambda: [cluster.workers.pid, *descendants(cluster.workers.pid)],
    }
    args = [str(tree), "-r", "--out", str(tmp / "many-out"), "--report", str(report),
            "--scheduler", cluster.address]  # fmt: skip
    scheduler_cpu = cpu_seconds(cluster.scheduler.pid)

    def seen(k: int) -> None:
        done[0] = k

    with Sampler(roles, lambda: min(len(report_lines(report)) / n, 0.999)) as sampler:
        first = RunWithPid(args, client_pids, interrupt_after=n // 3, on_line=seen)
        reported_first = len(report_files(report))
        second = RunWithPid([*args, "--resume"], client_pids, on_line=seen)
    scheduler_cpu = cpu_seconds(cluster.scheduler.pid) - scheduler_cpu
    files = report_files(report)
    return dict(
        first=first,
        second=second,
        reported_first=reported_first,
        total=len(files),
        unique=len(set(files)),
        sampler=sampler,
        scheduler_cpu_per_photo=scheduler_cpu / max(len(files), 1),
    )


_lines_cache = {"size": -1, "count": 0}


def report_lines(report: Path) -> list:
    """The report's line count, cheaply (re-read only when the file grew)."""
    try:
        size = report.stat().st_size
    except OSError:
        return []
    if size != _lines_cache["size"]:
        with open(report, "rb") as handle:
            _lines_cache.update(size=size, count=sum(chunk.count(b"\n") for chunk in handle))
    return range(_lines_cache["count"])


class RunWithPid(Run):
    """A Run that publishes its process id (for the memory sampler)."""

    def __init__(self, args, pids: list[int], **kwargs):
        self._pids = pids
        super().__init__(args, **kwargs)

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name == "proc":
            self._pids[:] = [value.pid]


# ---------------------------------------------------------------- the projection


def projection(per_photo: float, per_task: float, photos: int = 10_000_000) -> list[str]:
    """Hours for `photos` on N machines of 8 cores, from CPU time per photo and the scheduler's
    CPU time per photo (`per_task`: its CPU over a run / the photos; tasks carry a few photos
    each, `api.scale.cluster.CHUNK`). One scheduler process caps the rate at 1 / per_task."""
    lines = [
        f"projected, not measured: {photos:,} photos at {per_photo * 1000:.0f} ms CPU each "
        f"(one core of this machine), scheduler {per_task * 1000:.2f} ms CPU per photo",
        f"{'machines x 8 cores':>20} {'hours':>8} {'bound by':>10} {'core-hours':>11}",
    ]
    core_hours = photos * per_photo / 3600
    for machines in (1, 4, 16, 64, 256):
        cores = machines * 8
        compute = photos * per_photo / cores
        scheduler = photos * per_task
        bound = "scheduler" if scheduler > compute else "workers"
        hours = max(compute, scheduler) / 3600
        lines.append(f"{machines:>20} {hours:>8.1f} {bound:>10} {core_hours:>11,.0f}")
    return lines


def mb(value: int) -> str:
    return f"{value / 2**20:.0f} MB"


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--many", type=int, default=100_000, help="inputs for the resume run")
    parser.add_argument("--skip-many", action="store_true", help="leave out the --many run")
    parser.add_argument("--rounds", type=int, default=3, help="throughput runs of each set-up")
    parser.add_argument(
        "--skip-throughput",
        action="store_true",
        help="leave out the throughput rounds (parts 2 and 3 do not depend on the load)",
    )
    args = parser.parse_args()
    # the command, the scheduler and the workers started here run this checkout's code (the
    # scheduler imports `api.scale.cluster` for the batch's clearing), not another installed copy
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    if not WICHT.is_dir():
        sys.exit(f"needs {WICHT} (../shared)")
    load = os.getloadavg()
    print(
        f"# scale benchmark ({os.cpu_count()} cores, load average {load[0]:.2f} at start)",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="scale-") as tmp_name:
        tmp = Path(tmp_name)
        if args.skip_throughput:  # one untimed pool run: the statuses every run must give
            print("1. throughput: left out; one default-pool run for the statuses", flush=True)
            measured = throughput(tmp, 1, setups=SETUPS[:1])
        else:
            print(f"1. throughput, 160 Wicht photos, {args.rounds} rounds", flush=True)
            measured = throughput(tmp, args.rounds)
        cluster = TcpCluster(2)
        try:
            print("2. a worker killed (SIGKILL) after 40 photos, tcp scheduler", flush=True)
            expected = measured["first"]["default pool, --workers 2"]["statuses"]
            killed = killed_worker(tmp, cluster, expected)
            print(
                f"  killed worker pid {killed['killed']}, exit {killed['run'].returncode}, "
                f"{len(expected)} photos each reported once: {killed['once']}, "
                f"statuses as the pool's: {killed['same']}",
                flush=True,
            )
            many = None
            if not args.skip_many:
                print(f"3. {args.many:,} inputs, interrupted after a third, resumed", flush=True)
                many = many_inputs(tmp, cluster, args.many)
        finally:
            cluster.close()
    print()
    print(f"# results (load average {os.getloadavg()[0]:.2f} at the end)")
    print(f"{'measure':<58} {'value':>14}  target")
    rows = [] if args.skip_throughput else throughput_rows(measured)
    rows += [
        (
            "SIGKILLed worker: finished, every photo once",
            str(killed["once"] and killed["run"].returncode in (0, 1)),
            verdict(killed["once"]),
        ),
    ]
    if many is not None:
        sampler = many["sampler"]
        rows += [
            (f"{args.many:,} inputs: reported before Ctrl-C", f"{many['reported_first']:,}", ""),
            (
                f"{args.many:,} inputs: in the report after --resume (unique)",
                f"{many['total']:,} ({many['unique']:,})",
                verdict(many["total"] == many["unique"] == args.many),
            ),
            (
                "exit status: interrupted run / resumed run",
                f"{many['first'].returncode} / {many['second'].returncode}",
                "",
            ),  # fmt: skip
            (
                "scheduler CPU a photo (both runs)",
                f"{many['scheduler_cpu_per_photo'] * 1000:.2f} ms",
                "",
            ),
        ]
        for role in ("client", "scheduler", "workers"):
            rows.append((f"peak RSS, {role}", mb(sampler.peak[role]), ""))
    for name, value, target in rows:
        print(f"{name:<58} {value:>14}  {target}")
    if many is not None:
        print()
        print("RSS through the run (tenths of the report written; both runs)")
        print(f"{'done':>6} {'client':>10} {'scheduler':>10} {'workers':>10}")
        for tenth in sorted(sampler.at):
            at = sampler.at[tenth]
            print(
                f"{tenth * 10:>5}% {mb(at['client']):>10} {mb(at['scheduler']):>10} "
                f"{mb(at['workers']):>10}"
            )
    if not args.skip_throughput:
        print()
        per_task = many["scheduler_cpu_per_photo"] if many is not None else 0.002
        for line in projection(measured["per_photo"], per_task):
            print(line)


def throughput_rows(measured: dict) -> list[tuple[str, str, str]]:
    runs = measured["runs"]
    pool = runs["default pool, --workers 2"]["steady"]
    local2 = runs["--scheduler local:2"]["steady"]
    local1 = runs["--scheduler local:1"]["steady"]
    return [
        ("photos/s, default pool --workers 2 (steady, median)", f"{pool:.2f}", ""),
        ("photos/s, --scheduler local:2 (steady, median)", f"{local2:.2f}", ""),
        ("photos/s, --scheduler local:1 (steady, median)", f"{local1:.2f}", ""),
        (
            "local:2 / default pool",
            f"{local2 / pool:.2f}",
            f">= 0.90 {verdict(local2 >= 0.9 * pool)}",
        ),
        (
            "local:2 / local:1",
            f"{local2 / local1:.2f}x",
            f">= 1.8x {verdict(local2 >= 1.8 * local1)}",
        ),
        (
            "CPU a photo, every process: pool / local:2 / local:1 (ms)",
            " / ".join(f"{runs[n]['cpu'] * 1000:.0f}" for n in runs),
            "",
        ),
        ("same statuses from every throughput run", str(measured["same"]), ""),
    ]


if __name__ == "__main__":
    main()
