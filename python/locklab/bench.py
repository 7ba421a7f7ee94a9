"""Talking to locklab-bench: finding it, asking it what it accepts
(--list, --workloads), and running one measurement with --json.

The bench is wherever --bench / $LOCKLAB_BENCH points, else the build of the
repository this package lives in (REPO/build/bin/locklab-bench, when it runs
from a checkout: `make`'s editable .venv), else the one installed on PATH
(`make install`, bin/locklab-bench).
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

from .errors import UsageError

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BENCH = REPO / "build" / "bin" / "locklab-bench"


class BenchFailed(RuntimeError):
    """locklab-bench exited non-zero during a measurement; the message is its own."""


def _executable(path):
    return path.is_file() and os.access(path, os.X_OK)


def installed_prefix():
    """The install prefix of the locklab-bench on PATH (PREFIX of PREFIX/bin/locklab-bench), or None."""
    found = shutil.which("locklab-bench")
    return Path(found).resolve().parent.parent if found else None


def locate(path=None):
    """The bench executable: `path` (from --bench), else $LOCKLAB_BENCH, else the
    repository's build, else the one on PATH."""
    given = path or os.environ.get("LOCKLAB_BENCH")
    if given:
        if not _executable(Path(given)):
            raise UsageError(f"locklab-bench not found or not executable at '{given}'")
        return Path(given)
    if _executable(DEFAULT_BENCH):
        return DEFAULT_BENCH
    prefix = installed_prefix()
    if prefix is not None:
        return prefix / "bin" / "locklab-bench"
    raise UsageError(f"locklab-bench not found at '{DEFAULT_BENCH}' nor on PATH "
                     "(run `make` or `make install` first, or pass --bench PATH)")


def _query(bench, *args):
    p = subprocess.run([str(bench), *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise UsageError(f"'{bench} {' '.join(args)}' failed: {p.stderr.strip() or 'exit ' + str(p.returncode)}")
    return p.stdout


def lock_names(bench):
    """Every lock spec name the bench accepts (`--list`), in its order."""
    return _query(bench, "--list").split()


def workloads(bench):
    """{workload: [parameter keys]} from `--workloads` (a name line, then '  --param KEY=DEFAULT ...' lines)."""
    result = {}
    current = None
    for line in _query(bench, "--workloads").splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            current = line.split()[0]
            result[current] = []
        elif current and line.split()[0] == "--param":
            result[current].append(line.split()[1].split("=")[0])
    return result


def command(bench, workload, spec, threads, duration, params):
    """The argv of one measurement; params is {key: value text}."""
    argv = [str(bench), workload, "--lock", spec, "--threads", str(threads), "--duration", str(duration), "--json"]
    for k in sorted(params):
        argv += ["--param", f"{k}={params[k]}"]
    return argv


def run_once(argv):
    """Run one measurement; returns the parsed JSON object.  A non-zero exit (or
    output that is not one JSON object) raises BenchFailed with the bench's message."""
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        raise BenchFailed(f"exit {p.returncode}: {lines[-1] if lines else 'no message'}")
    objects = [line for line in p.stdout.splitlines() if line.startswith("{")]
    if len(objects) != 1:
        raise BenchFailed(f"expected one JSON object, got {len(objects)}")
    try:
        return json.loads(objects[0])
    except json.JSONDecodeError as e:
        raise BenchFailed(f"unparsable JSON ({e})") from None


def check(bench, workload, specs, params, threads):
    """Let the bench itself validate lock specs (including their KEY=VALUE
    parameters), workload parameter values and each thread count (a workload
    may need at least 2, or exactly 1), with a 1 ms run per thread count;
    raises UsageError with the bench's one-line message."""
    for t in sorted(set(threads)):
        argv = [str(bench), workload, "--threads", str(t), "--duration", "0.001", "--json"]
        for s in specs:
            argv += ["--lock", s]
        for k in sorted(params):
            argv += ["--param", f"{k}={params[k]}"]
        p = subprocess.run(argv, capture_output=True, text=True)
        if p.returncode != 0:
            lines = p.stderr.strip().splitlines()
            raise UsageError(lines[-1] if lines else f"'{' '.join(argv)}' failed with exit {p.returncode}")
