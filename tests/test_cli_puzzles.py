"""`sudoku-lens grid` and `sudoku-lens file`, run as the installed console script."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXE = Path(sys.executable).parent / "sudoku-lens"
TN1 = "1.53...9....6...........27182..........487.........53.23.........7.59.....6...8.4"
TN1_SOLUTION = "175328496942671385368594271829135647653487912714962538231846759487259163596713824"
CLASH = "11" + "." * 79


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(EXE), *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def valid_line(line: str, puzzle: str) -> bool:
    rows = [line[i : i + 9] for i in range(0, 81, 9)]
    cols = ["".join(r[c] for r in rows) for c in range(9)]
    boxes = [
        "".join(rows[br + dr][bc + dc] for dr in range(3) for dc in range(3))
        for br in (0, 3, 6)
        for bc in (0, 3, 6)
    ]
    units_ok = all(sorted(u) == list("123456789") for u in rows + cols + boxes)
    return units_ok and all(p in ".0" or p == s for p, s in zip(puzzle, line, strict=True))


def test_grid_formats_and_methods():
    pretty = run("grid", TN1, "--format", "pretty", "--method", "dlx", "--no-grade")
    assert pretty.returncode == 0
    lines = pretty.stdout.strip().splitlines()
    assert len(lines) == 11 and lines[0] == "1 7 5 | 3 2 8 | 4 9 6" and "+" in lines[3]
    doc = json.loads(run("grid", TN1, "--format", "json", "--no-grade").stdout)
    assert doc["status"] == "unique" and doc["solutions"] == [TN1_SOLUTION]


def test_grid_solves_from_stdin_and_exits_zero():
    board = "\n".join(TN1[i : i + 9] for i in range(0, 81, 9))
    done = run("grid", "-", "--no-grade", stdin=board + "\n")
    assert done.returncode == 0 and done.stdout.strip() == TN1_SOLUTION


def test_grid_invalid_unsolvable_and_multiple_exit_one():
    clash = run("grid", CLASH)
    assert clash.returncode == 1 and "r1c1 and r1c2 both hold 1" in clash.stderr
    none = run("grid", "12345678." + "........9" + "." * 63)
    assert none.returncode == 1 and "no solution" in none.stderr and "r1c9" in none.stderr
    several = run("grid", "." + TN1[1:])
    assert several.returncode == 1 and "not unique" in several.stderr
    shown = several.stdout.split()
    assert len(shown) == 2 and shown[0] != shown[1]
    assert all(valid_line(s, "." + TN1[1:]) for s in shown)
    assert "Traceback" not in clash.stderr + none.stderr + several.stderr


def test_grid_bad_text_is_a_usage_error_naming_the_character():
    done = run("grid", "." * 40 + "x" + "." * 40)
    assert done.returncode == 2
    assert "r5c5" in done.stderr and "'x'" in done.stderr and "Traceback" not in done.stderr


def test_grid_count_and_all():
    count = run("grid", "." * 16, "--count")
    assert count.returncode == 0 and count.stdout.strip() == "288"
    listed = run("grid", "." * 16, "--all", "--limit", "5")
    sols = listed.stdout.split()
    assert len(sols) == 5 and len(set(sols)) == 5 and "limit" in listed.stderr


def test_grid_variants_and_alphabets():
    sol = run("grid", "." * 256, "--all", "--limit", "1", "--alphabet", "0123456789ABCDEF")
    assert sorted(sol.stdout.strip()[:16]) == sorted("0123456789ABCDEF")
    diag = run("grid", "." * 81, "--variant", "diagonal", "--all", "--limit", "1")
    values = diag.stdout.strip()
    assert sorted(values[::10]) == list("123456789")  # main diagonal
    assert sorted(values[8:73:8]) == list("123456789")  # anti-diagonal


def test_file_solves_good_lines_and_reports_bad_ones(tmp_path):
    puzzles = tmp_path / "p.txt"
    puzzles.write_text(
        "# a comment line\n"
        f"{TN1}\n"
        "\n"
        "not a puzzle\n"
        f"{CLASH}  # trailing comment\n"
        f"{TN1.replace('1', '.', 1)}\n"
        f"{TN1}\n"
    )
    out = tmp_path / "solutions.txt"
    done = run("file", str(puzzles), "-o", str(out))
    assert done.returncode == 1
    assert out.read_text().split() == [TN1_SOLUTION, TN1_SOLUTION]
    assert "line 4" in done.stderr and "line 5" in done.stderr and "line 6" in done.stderr
    assert "line 2" not in done.stderr
    assert re.search(r"5 puzzles .* puzzles/s", done.stderr)
    jsonl = run("file", str(puzzles), "--format", "json")
    docs = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert [d["line"] for d in docs] == [2, 4, 5, 6, 7]
    assert [d["status"] for d in docs] == ["unique", "unreadable", "invalid", "multiple", "unique"]


def test_file_exit_zero_stdin_and_missing_file(tmp_path):
    done = run("file", "-", stdin=f"{TN1}\n{TN1}\n")
    assert done.returncode == 0 and done.stdout.split() == [TN1_SOLUTION] * 2
    missing = run("file", str(tmp_path / "nope.txt"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_file_benchmark_set_with_both_cores(shared_dir, tmp_path):
    source = (shared_dir / "puzzles" / "17clue.txt").read_text().split()[:3000]
    puzzles = tmp_path / "17.txt"
    puzzles.write_text("\n".join(source) + "\n")
    done = run("file", str(puzzles), "--jobs", "2")
    assert done.returncode == 0, done.stderr[-500:]
    lines = done.stdout.split()
    assert len(lines) == 3000
    assert all(valid_line(s, p) for s, p in zip(lines[::97], source[::97], strict=True))


def test_file_clover_and_sixteen_from_seed_examples(shared_dir, tmp_path):
    text = (shared_dir / "puzzles" / "seed_examples.md").read_text()
    blocks = re.findall(r"```\n(.*?)```", text, re.S)
    puzzles = tmp_path / "seed.txt"
    puzzles.write_text("".join(b.replace("\n", "") + "\n" for b in blocks))
    done = run("file", str(puzzles), "--method", "dlx")
    assert done.returncode == 0, done.stderr
    nine, sixteen, clover = done.stdout.split()
    assert len(nine) == 81 and len(sixteen) == 256 and len(clover) == 441
    assert "0" in sixteen and "-" not in clover
    assert clover[9:12] == "..."  # positions outside every grid stay marked


def test_a_puzzle_written_with_dash_blanks_may_start_with_a_dash():
    sixteen = "-23434-221434-21"  # 4x4, first cell blank
    for args in (["grid", sixteen, "--no-grade"], ["grid", "--no-grade", sixteen]):
        done = run(*args)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "1234341221434321"
    dashed = "-" + TN1[1:].replace(".", "-")
    done = run("grid", dashed, "--count")
    dotted = run("grid", "." + TN1[1:], "--count")
    assert done.returncode == 0 and done.stdout == dotted.stdout, done.stderr


def test_file_help_says_the_threads_follow_the_machine():
    done = run("file", "--help")
    assert "every core" in done.stdout and "both cores" not in done.stdout
