"""Shared fixtures: run the `locklab` command as a user would, and a fake bench."""
import os
import shutil
import signal
import subprocess
import tempfile
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DATA = HERE / "data"

# A shell's background job starts with SIGINT ignored, and the commands the tests run would
# inherit that: the Ctrl-C tests of sweeps need it delivered.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def locklab(*argv, env=None, cwd=None):
    """Run `python -m locklab ARGV...`; returns the CompletedProcess (text, captured)."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "locklab", *map(str, argv)], capture_output=True, text=True,
                          env=full_env, cwd=cwd)


def assert_usage_error(p, *words):
    """Bad input: exit 2 and one line on stderr that names every one of words."""
    assert p.returncode == 2, p.stdout
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert all(w in p.stderr for w in words), p.stderr


@pytest.fixture
def fake_bench(tmp_path):
    """(path of an executable fake locklab-bench, env for it, its call log)."""
    exe = tmp_path / "fake-bench"
    exe.write_text(f"#!/bin/sh\nexec '{sys.executable}' '{HERE / 'fake_bench.py'}' \"$@\"\n")
    exe.chmod(0o755)
    log = tmp_path / "calls.log"
    return exe, {"FAKE_BENCH_LOG": str(log)}, log


@pytest.fixture
def small_dir(tmp_path):
    """A writable copy of the fixed result set tests/python/data/small."""
    dst = tmp_path / "small"
    shutil.copytree(DATA / "small", dst)
    return dst


@pytest.fixture
def read_only_dir():
    """(make, run): make(name) gives a new directory that an unprivileged user can
    enter but not write, outside pytest's private tmp_path; run(*argv) runs the
    `locklab` command as that user.  We are root here and in CI, and root writes
    anywhere: the command then runs as nobody (setpriv); as any other user, as is."""
    root = os.geteuid() == 0
    if root and not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: cannot run the command as a user a read-only directory stops")
    base = Path(tempfile.mkdtemp(prefix="locklab-ro-"))
    base.chmod(0o755)
    made = []

    def make(name, copy_from=None):
        d = base / name
        if copy_from:
            shutil.copytree(copy_from, d, ignore=shutil.ignore_patterns("__pycache__", ".*"))
        else:
            d.mkdir()
        for f in [d, *d.rglob("*")]:
            f.chmod(0o555 if f.is_dir() else 0o444)
        made.append(d)
        return d

    def run(*argv, env=None):
        full_env = dict(os.environ, MPLCONFIGDIR=str(base / "mpl"), **(env or {}))
        cmd = [sys.executable, "-m", "locklab", *map(str, argv)]
        if root:
            (base / "mpl").mkdir(exist_ok=True)
            (base / "mpl").chmod(0o777)
            cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, env=full_env, cwd=base)

    yield make, run
    for d in made:
        d.chmod(0o755)
    shutil.rmtree(base, ignore_errors=True)


def _wrapper(path, script, *first):
    # -S: the fakes use only the standard library, and skipping site's start-up halves each
    # call's cost (a validation runs the fake hundreds of times)
    head = " ".join(f"'{a}'" for a in first)
    path.write_text(f"#!/bin/sh\nexec '{sys.executable}' -S '{HERE / script}' {head} \"$@\"\n")
    path.chmod(0o755)
    return path


def _fake_sim_in(d):
    exe = _wrapper(d / "fake-sim", "fake_sim.py")
    as_bench = _wrapper(d / "fake-sim-bench", "fake_sim.py", "--as-bench")
    log = d / "sim-calls.log"
    return exe, {"FAKE_SIM_LOG": str(log), "LOCKLAB_SIM": str(exe)}, log, as_bench


@pytest.fixture
def fake_sim(tmp_path):
    """(path of an executable fake locklab-sim, env for it (its log, and $LOCKLAB_SIM
    pointing to it), its call log, a fake locklab-bench that knows pthread and kvmap)."""
    return _fake_sim_in(tmp_path)


@pytest.fixture(scope="module")
def fake_sim_module(tmp_path_factory):
    """fake_sim, shared by a module's tests (for a result several tests only read)."""
    return _fake_sim_in(tmp_path_factory.mktemp("fake-sim"))
