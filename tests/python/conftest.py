"""Shared fixtures: run the `locklab` command as a user would, and a fake bench."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DATA = HERE / "data"


def locklab(*argv, env=None, cwd=None):
    """Run `python -m locklab ARGV...`; returns the CompletedProcess (text, captured)."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "locklab", *map(str, argv)], capture_output=True, text=True,
                          env=full_env, cwd=cwd)


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
