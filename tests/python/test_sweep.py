"""`locklab sweep` against a fake bench: order, rows, resumption, refusals."""
import json
import sys
from pathlib import Path

from conftest import HERE, locklab
from locklab import schema

SWEEP = ["sweep", "--workloads", "mutexbench", "--locks", "mcs,pthread,tas", "--threads", "1,2,4",
         "--runs", "2", "--duration", "0.5"]


def expected_keys():
    return {("mutexbench", s, t, r, "") for r in (1, 2) for t in (1, 2, 4) for s in ("mcs", "pthread", "tas")}


def test_sweep_writes_one_row_per_run_in_interleaved_order(fake_bench, tmp_path):
    exe, env, log = fake_bench
    out = tmp_path / "out"
    p = locklab(*SWEEP, "--out", out, "--bench", exe, env=env)
    assert p.returncode == 0, p.stderr
    rows = schema.read_results(out / "results.csv")
    assert {schema.run_key(r) for r in rows} == expected_keys()
    assert len(rows) == 18
    # runs outermost, then threads, then locks
    calls = log.read_text().split("\n")[:-1]
    assert calls == [f"mutexbench {s} {t}" for _ in (1, 2) for t in (1, 2, 4) for s in ("mcs", "pthread", "tas")]
    assert [r["run"] for r in rows] == [1] * 9 + [2] * 9
    assert rows[0]["extras"] == {"fake_extra": 0.25}
    meta = json.loads((out / "meta.json").read_text())
    for key in ["cpu_model", "cpus", "kernel", "glibc", "compiler", "git_revision", "date", "command"]:
        assert meta[key], key
    assert meta["config"]["threads"] == [1, 2, 4]
    assert "--locks mcs,pthread,tas" in meta["command"]


def stopped_sweep(fake_bench, tmp_path, stop_env, returncode, what):
    """Runs SWEEP into tmp_path/out with the fake bench told to stop (stop_env): it exits
    with returncode and one stderr line saying what and how to resume.  Returns out."""
    exe, env, _ = fake_bench
    out = tmp_path / "out"
    p = locklab(*SWEEP, "--out", out, "--bench", exe, env=dict(env, **stop_env))
    assert p.returncode == returncode
    assert p.stderr.count("\n") == 1 and what in p.stderr and "resume" in p.stderr
    return out


def resumed_sweep(fake_bench, out):
    """The same command again, without the stop: it succeeds."""
    exe, env, _ = fake_bench
    p = locklab(*SWEEP, "--out", out, "--bench", exe, env=env)
    assert p.returncode == 0, p.stderr


def test_interrupted_sweep_resumes_without_duplicates_or_gaps(fake_bench, tmp_path):
    exe, env, log = fake_bench
    out = stopped_sweep(fake_bench, tmp_path, {"FAKE_BENCH_FAIL_AT": "7"}, 1, "simulated crash")
    first = schema.read_results(out / "results.csv")
    assert len(first) == 6
    resumed_sweep(fake_bench, out)
    rows = schema.read_results(out / "results.csv")
    keys = [schema.run_key(r) for r in rows]
    assert len(keys) == len(set(keys)) == 18
    assert set(keys) == expected_keys()
    assert rows[:6] == first  # completed runs are kept, not redone
    assert len(log.read_text().splitlines()) == 7 + 12  # 6 done + the failed one, then the 12 missing
    # a third identical command has nothing left to do
    p = locklab(*SWEEP, "--out", out, "--bench", exe, env=env)
    assert p.returncode == 0 and len(log.read_text().splitlines()) == 19
    assert len(schema.read_results(out / "results.csv")) == 18


def test_different_configuration_in_existing_dir_is_refused(fake_bench, tmp_path):
    exe, env, _ = fake_bench
    out = tmp_path / "out"
    assert locklab(*SWEEP, "--out", out, "--bench", exe, env=env).returncode == 0
    before = (out / "results.csv").read_text()
    other = [a if a != "1,2,4" else "1,2,8" for a in SWEEP]
    p = locklab(*other, "--out", out, "--bench", exe, env=env)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "different sweep" in p.stderr and "threads" in p.stderr
    assert (out / "results.csv").read_text() == before


def test_resume_under_another_topology_is_refused(fake_bench, tmp_path, monkeypatch):
    # LOCKLAB_TOPOLOGY changes what the bench measures: resuming without it would mix topologies in one DIR
    monkeypatch.delenv("LOCKLAB_TOPOLOGY", raising=False)
    exe, env, log = fake_bench
    out = tmp_path / "out"
    p = locklab(*SWEEP, "--out", out, "--bench", exe, env=dict(env, LOCKLAB_TOPOLOGY="sockets=2",
                                                                FAKE_BENCH_FAIL_AT="3"))
    assert p.returncode == 1
    p = locklab(*SWEEP, "--out", out, "--bench", exe, env=env)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "different sweep" in p.stderr and "topology" in p.stderr, p.stderr
    assert len(log.read_text().splitlines()) == 3  # nothing more was measured
    p = locklab(*SWEEP, "--out", out, "--bench", exe, env=dict(env, LOCKLAB_TOPOLOGY="sockets=2"))
    assert p.returncode == 0, p.stderr
    assert json.loads((out / "meta.json").read_text())["config"]["topology"] == "sockets=2"


def test_params_are_recorded_and_scoped(fake_bench, tmp_path):
    exe, env, _ = fake_bench
    out = tmp_path / "out"
    p = locklab("sweep", "--workloads", "mutexbench,uncontended", "--locks", "mcs", "--threads", "1", "--runs", "1",
                "--duration", "0.5", "--param", "mutexbench.ncs_max=7", "--param", "mutexbench.cs_steps=3",
                "--out", out, "--bench", exe, env=env)
    assert p.returncode == 0, p.stderr
    rows = schema.read_results(out / "results.csv")
    assert [(r["workload"], r["params"]) for r in rows] == [("mutexbench", "cs_steps=3 ncs_max=7"),
                                                            ("uncontended", "")]


def test_bad_sweep_arguments_exit_2_with_one_line(fake_bench, tmp_path):
    exe, env, log = fake_bench
    base = ["sweep", "--out", tmp_path / "out", "--bench", exe, "--duration", "0.5"]
    cases = [
        (["--locks", "mcs,nosuchlock"], "nosuchlock"),
        (["--locks", "mcs", "--workloads", "nosuchwl"], "nosuchwl"),
        (["--locks", "mcs", "--threads", "1,0"], "'0'"),
        (["--locks", "mcs", "--threads", "1,x"], "'x'"),
        (["--locks", "mcs", "--threads", "\u00b2"], "'\u00b2'"),  # a digit to str.isdigit, not to int()
        (["--locks", "mcs", "--param", "cs_steps=3", "--param", "cs_steps=4"], "cs_steps twice"),
        (["--locks", "mcs", "--threads", "2,2"], "2 twice"),
        (["--locks", "mcs,mcs"], "mcs twice"),
        (["--locks", "mcs", "--runs", "0"], "'0'"),
        (["--locks", "mcs", "--param", "nokey=1"], "nokey"),
        (["--locks", "mcs", "--param", "cs_steps=99"], "'99'"),
        (["--locks", "mcs", "--param", "cs_steps"], "cs_steps"),
        (["--locks", "mcs", "--bench", tmp_path / "missing"], "missing"),
    ]
    for extra, needle in cases:
        p = locklab(*base, *extra, env=env)
        assert p.returncode == 2, (extra, p.stderr)
        assert p.stderr.count("\n") == 1 and needle in p.stderr, (extra, p.stderr)
    assert not log.exists()  # nothing was measured
    assert not (tmp_path / "out" / "results.csv").exists()


def test_thread_counts_are_validated_per_workload_up_front(fake_bench, tmp_path):
    exe, env, log = fake_bench
    # handover needs 2 threads or more: a sweep at 2 and 4 threads is valid
    p = locklab("sweep", "--workloads", "handover", "--locks", "mcs", "--threads", "2,4", "--runs", "1",
                "--duration", "0.5", "--out", tmp_path / "ok", "--bench", exe, env=env)
    assert p.returncode == 0, p.stderr
    assert [r["threads"] for r in schema.read_results(tmp_path / "ok" / "results.csv")] == [2, 4]
    log.unlink()
    # uncontended runs 1 thread: a sweep that asks for 2 is refused before anything is measured
    p = locklab("sweep", "--workloads", "uncontended", "--locks", "mcs", "--threads", "1,2", "--runs", "1",
                "--duration", "0.5", "--out", tmp_path / "bad", "--bench", exe, env=env)
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and "bad value '2' for --threads" in p.stderr, p.stderr
    assert not log.exists()


def test_empty_out_is_refused_not_the_current_directory(fake_bench, tmp_path):
    exe, env, log = fake_bench
    p = locklab("sweep", "--locks", "mcs", "--threads", "1", "--runs", "1", "--duration", "0.5", "--out", "",
                "--bench", exe, env=env, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--out" in p.stderr, p.stderr
    assert not log.exists() and not (tmp_path / "results.csv").exists()


def test_lock_specs_with_their_own_commas():
    from locklab.sweep import split_locks
    assert split_locks("mcs,backoff:min=8,max=1024,pthread") == ["mcs", "backoff:min=8,max=1024", "pthread"]
    assert split_locks("mcs-stp:spin_ns=2000,twa") == ["mcs-stp:spin_ns=2000", "twa"]
    assert split_locks("mcs,x=1") == ["mcs", "x=1"]  # no spec to continue: left for validation to reject


def test_ctrl_c_leaves_a_resumable_csv(fake_bench, tmp_path):
    out = stopped_sweep(fake_bench, tmp_path, {"FAKE_BENCH_INTERRUPT_AT": "5"}, 130, "interrupted")
    done = len(schema.read_results(out / "results.csv"))
    assert 4 <= done <= 5  # the interrupted run itself may or may not have been saved
    resumed_sweep(fake_bench, out)
    keys = [schema.run_key(r) for r in schema.read_results(out / "results.csv")]
    assert len(keys) == len(set(keys)) and set(keys) == expected_keys()


def test_sweep_into_a_read_only_directory_is_one_line(read_only_dir):
    make, run = read_only_dir
    bench_dir = make("bench", HERE)  # fake_bench.py, readable by the user who runs the sweep
    exe = bench_dir.parent / "fake-bench"
    # the system's python3: .venv's may live under root's private home, which that user cannot enter
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
    exe.write_text(f"#!/bin/sh\nexec '{python}' '{bench_dir / 'fake_bench.py'}' \"$@\"\n")
    exe.chmod(0o755)
    out = make("out")
    p = run(*SWEEP, "--out", out, "--bench", exe)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "cannot write" in p.stderr and str(out) in p.stderr, p.stderr
