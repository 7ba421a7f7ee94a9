"""locklab run / profile / advise / apps against the real interposer (build/lib)."""
import json
import os
import shutil

import pytest

from conftest import REPO, locklab
from locklab import apps

PRELOAD = REPO / "build" / "lib" / "liblocklab-preload.so"
BENCH = REPO / "build" / "bin" / "locklab-bench"
pytestmark = pytest.mark.skipif(not PRELOAD.exists() or not BENCH.exists(), reason="run `make` first")


def one_line_error(p, needle):
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], p.stderr


def test_run_passes_environment_and_exit_status():
    p = locklab("run", "--lock", "mcs-stp", "--cond", "lifo-cr", "--", "sh", "-c",
                'echo "$LOCKLAB_LOCK $LOCKLAB_COND"; exit 3')
    assert p.returncode == 3 and p.stdout.strip() == "mcs-stp lifo-cr", (p.stdout, p.stderr)


def test_run_glibc_means_no_interposer():
    p = locklab("run", "--lock", "glibc", "--", "sh", "-c", 'echo "[${LD_PRELOAD:-}]"')
    assert p.returncode == 0 and "liblocklab-preload" not in p.stdout


def test_run_bad_lock_is_the_interposers_one_line_error():
    one_line_error(locklab("run", "--lock", "nosuch", "--", "true"), "unknown lock 'nosuch'")


def test_run_without_command():
    one_line_error(locklab("run", "--lock", "mcs"), "no command given")


def test_profile_finds_the_contended_mutex(tmp_path):
    out = tmp_path / "p.json"
    p = locklab("profile", "--lock", "mcs-stp", "--out", out, "--top", "3", "--", BENCH, "mutexbench", "--lock",
                "pthread", "--threads", "4", "--duration", "0.2")
    assert p.returncode == 0, p.stderr
    report = json.loads(out.read_text())
    top = report["locks"][0]
    assert report["lock"].startswith("mcs-stp") and top["kind"] == "mutex"
    assert top["acquisitions"] > 1000 and top["contended"] > 0 and top["threads"] >= 2, top
    assert "locklab-bench" in p.stdout and "first use" in p.stdout


def test_profile_show_rejects_non_profiles(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"format": "other"}')
    one_line_error(locklab("profile", "--show", bad), "not a locklab profile")


def test_advise_ranks_by_a_metric():
    p = locklab("advise", "--locks", "glibc,mcs-stp", "--runs", "2", "--metric", r"value=(\d+)",
                "--higher-is-better", "--", "sh", "-c", 'echo value=$(( ${#LOCKLAB_LOCK} + 40 ))')
    assert p.returncode == 0, p.stderr
    rows = [l.split() for l in p.stdout.splitlines() if l.strip()[:1].isdigit()]
    assert [r[1] for r in rows] == ["mcs-stp", "glibc"], p.stdout       # 47 beats 40
    assert rows[0][2] == "47" and rows[1][2] == "40"
    assert "recommendation: use mcs-stp" in p.stdout


def test_advise_bad_arguments():
    one_line_error(locklab("advise", "--runs", "0", "--", "true"), "bad value '0' for --runs")
    one_line_error(locklab("advise", "--higher-is-better", "--", "true"), "needs --metric")
    one_line_error(locklab("advise", "--locks", "glibc,nosuch", "--", "true"), "unknown lock 'nosuch'")


def test_apps_parsers_on_recorded_output():
    db = "readwhilewriting :      17.116 micros/op 208429 ops/sec 2.279 seconds 474996 operations;"
    assert apps.APPS["db_bench"]["ok"](db) and apps.APPS["db_bench"]["value"](db, 4, 1, 2.0) == 208429
    sb = "General statistics:\n    total time:                          2.0000s\n    total number of events:   1000\n"
    assert apps.APPS["sysbench-mutex"]["value"](sb, 4, 1, 2.0) == 0.5
    assert apps.APPS["sysbench-threads"]["value"](sb, 4, 1, 2.0) == 500
    assert apps.APPS["kccachetest"]["ok"]("time: 0.2\nok\n") and not apps.APPS["kccachetest"]["ok"]("error\n")


def test_apps_bad_arguments():
    one_line_error(locklab("apps", "--apps", "nosuch"), "unknown app 'nosuch'")
    one_line_error(locklab("apps", "--threads", "0"), "bad value '0' for --threads")


@pytest.mark.skipif(shutil.which("sysbench") is None and not os.environ.get("LOCKLAB_REQUIRE_APPS"),
                    reason="sysbench not installed")
def test_apps_smoke_sysbench_two_locks(tmp_path):
    p = locklab("apps", "--apps", "sysbench-mutex", "--locks", "glibc,mcs-stp,loiter", "--threads", "2",
                "--runs", "1", "--scale", "0.02", "--out", tmp_path)
    assert p.returncode == 0, p.stderr
    rows = (tmp_path / "apps.csv").read_text().splitlines()
    assert len(rows) == 4 and all(",True," in r for r in rows[1:]), rows
    assert (tmp_path / "apps.md").exists() and (tmp_path / "apps-sysbench-mutex.png").exists()
