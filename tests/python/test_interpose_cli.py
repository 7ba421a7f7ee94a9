"""locklab run / profile / advise / apps against the real interposer (build/lib)."""
import json
import os
import shutil
import subprocess

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
    one_line_error(locklab("apps", "--out", ""), "empty --out")


@pytest.mark.skipif(shutil.which("sysbench") is None and not os.environ.get("LOCKLAB_REQUIRE_APPS"),
                    reason="sysbench not installed")
def test_apps_smoke_sysbench_two_locks(tmp_path):
    p = locklab("apps", "--apps", "sysbench-mutex", "--locks", "glibc,mcs-stp,loiter", "--threads", "2",
                "--runs", "1", "--scale", "0.02", "--out", tmp_path)
    assert p.returncode == 0, p.stderr
    rows = (tmp_path / "apps.csv").read_text().splitlines()
    assert len(rows) == 4 and all(",True," in r for r in rows[1:]), rows
    assert (tmp_path / "apps.md").exists() and (tmp_path / "apps-sysbench-mutex.png").exists()


def test_advise_never_recommends_a_lock_the_program_failed_under(tmp_path):
    # mcs-stp has the best value, but the program fails its first run under it
    flag = tmp_path / "failed-once"
    script = ('if [ "${LOCKLAB_LOCK:-}" = mcs-stp ] && [ ! -e "$FLAG" ]; then touch "$FLAG"; exit 1; fi; '
              'echo value=$(( ${#LOCKLAB_LOCK} + 40 ))')
    p = locklab("advise", "--locks", "glibc,mcs-stp", "--runs", "2", "--metric", r"value=(\d+)",
                "--higher-is-better", "--", "sh", "-c", script, env={"FLAG": str(flag)})
    assert p.returncode == 0, p.stderr
    assert flag.exists()
    recommendation = p.stdout.splitlines()[-1]
    assert "use mcs-stp" not in recommendation and "mcs-stp" in recommendation, p.stdout
    assert "failed" in recommendation, p.stdout


def test_profile_does_not_show_a_stale_report(tmp_path):
    out = tmp_path / "p.json"
    p = locklab("profile", "--lock", "mcs-stp", "--out", out, "--", "true")
    assert p.returncode == 0 and out.exists(), p.stderr
    # a program killed before the profiler could write: the earlier report in --out is not its profile
    p = locklab("profile", "--lock", "mcs-stp", "--out", out, "--", "sh", "-c", "kill -9 $$")
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert "without a profile" in p.stderr and "true" not in p.stdout, p.stdout


@pytest.mark.parametrize("text", ['[]', '{"format": "locklab-profile", "version": 1}',
                                  '{"format": "locklab-profile", "version": 1, "locks": [{"kind": "mutex"}]}'])
def test_profile_show_malformed_reports_are_one_line(tmp_path, text):
    bad = tmp_path / "x.json"
    bad.write_text(text)
    one_line_error(locklab("profile", "--show", bad), str(bad))


def test_profile_out_a_directory_is_one_line(tmp_path):
    p = locklab("profile", "--out", tmp_path, "--", "true")
    one_line_error(p, f"--out '{tmp_path}' is a directory")


def test_profile_out_in_a_missing_directory_is_one_line(tmp_path):
    one_line_error(locklab("profile", "--out", tmp_path / "none" / "p.json", "--", "true"), "cannot write")


@pytest.fixture(scope="module")
def static_program(tmp_path_factory):
    """A statically linked program (the interposer cannot be loaded into it), and a static-pie one."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build a statically linked program")
    d = tmp_path_factory.mktemp("static")
    src = d / "hello.c"
    src.write_text("#include <pthread.h>\nint main(void){static pthread_mutex_t m;"
                   "pthread_mutex_lock(&m);return pthread_mutex_unlock(&m);}\n")
    built = []
    for name, flags in (("static", ["-static"]), ("static-pie", ["-static-pie", "-fPIE"])):
        exe = d / name
        if subprocess.run([cc, *flags, "-o", exe, src], capture_output=True).returncode == 0:
            built.append(exe)
    if not built:
        pytest.skip("the C compiler cannot link statically (no libc.a)")
    return built


@pytest.mark.parametrize("command", ["run", "advise"])
def test_run_and_advise_refuse_a_statically_linked_program(static_program, command):
    for exe in static_program:
        args = ["--lock", "mcs-stp"] if command == "run" else ["--locks", "glibc,mcs-stp", "--runs", "1"]
        p = locklab(command, *args, "--", exe)
        one_line_error(p, "statically linked")
        assert str(exe) in p.stderr


def test_run_of_a_dynamically_linked_program_or_a_script_is_not_refused(tmp_path):
    script = tmp_path / "s.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    for cmd in (["true"], [script], [BENCH, "--list"]):
        p = locklab("run", "--lock", "mcs-stp", "--", *cmd)
        assert p.returncode == 0, (cmd, p.stderr)
