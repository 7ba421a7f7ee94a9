"""The installed command end to end: a tiny sweep on the real build/bin/locklab-bench
(`make test` builds it first), its report and a comparison; argument errors."""
import re
import subprocess

import pytest

from conftest import REPO, locklab
from locklab import schema

BENCH = REPO / "build" / "bin" / "locklab-bench"


def test_smoke_against_the_real_bench(tmp_path):
    assert BENCH.is_file(), "build/bin/locklab-bench is missing: run `make` first"
    out = tmp_path / "out"
    p = locklab("sweep", "--workloads", "mutexbench", "--locks", "tas,pthread", "--threads", "1,2", "--runs", "2",
                "--duration", "0.02", "--out", out, "--bench", BENCH)
    assert p.returncode == 0, p.stderr
    rows = schema.read_results(out / "results.csv")
    assert len(rows) == 8
    assert all(r["exclusion_ok"] and r["ops"] > 0 and len(r["per_thread_ops"]) == r["threads"] for r in rows)
    assert {r["lock"] for r in rows} == {"tas", "pthread"}
    p = locklab("report", out)
    assert p.returncode == 0, p.stderr
    assert (out / "report.html").exists() and (out / "mutexbench.png").exists()
    p = locklab("compare", "tas", "pthread", "--dir", out, "--at-threads", "2")
    assert p.returncode == 0 and "tas is " in p.stdout and "x pthread at 2 threads" in p.stdout


def test_default_bench_is_found_in_the_repository(tmp_path):
    # without --bench, the sweep validates against REPO/build/bin/locklab-bench
    p = locklab("sweep", "--locks", "nosuchlock", "--out", tmp_path / "o")
    assert p.returncode == 2 and "unknown lock 'nosuchlock'" in p.stderr and "mcs" in p.stderr


@pytest.mark.parametrize("argv", [
    [],
    ["frobnicate"],
    ["sweep"],
    ["sweep", "--locks", "mcs", "--out", "x", "--bogus"],
    ["report"],
    ["compare", "a"],
    ["compare", "a", "b", "--at-threads", "many"],
])
def test_argument_errors_are_one_line_exit_2(argv):
    p = locklab(*argv)
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("locklab"), p.stderr
    assert p.stdout == ""


def test_version_is_the_bench_s():
    # one version (CMakeLists.txt's project(VERSION)) for the package and the bench, same line
    assert BENCH.is_file(), "build/bin/locklab-bench is missing: run `make` first"
    p = locklab("--version")
    assert p.returncode == 0, p.stderr
    bench = subprocess.run([BENCH, "--version"], capture_output=True, text=True, check=True)
    assert p.stdout == bench.stdout, (p.stdout, bench.stdout)
    assert re.fullmatch(r"locklab \d+\.\d+\.\d+\n", p.stdout), p.stdout
