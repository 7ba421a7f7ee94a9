"""Talking to build/bin/locklab-bench: finding it, asking it what it accepts
(--list, --workloads), and running one measurement with --json.

The bench is found relative to the repository this package lives in
(REPO/build/bin/locklab-bench), or wherever --bench / $LOCKLAB_BENCH points.
"""

import json
import os
import subprocess
from pathlib import Path

from .errors import UsageError

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BENCH = REPO / "build" / "bin" / "locklab-bench"


class BenchFailed(RuntimeError):
    """locklab-bench exited non-zero during a measurement; the message is its own."""


def locate(path=None):
    """The bench executable: `path` (from --bench), else $LOCKLAB_BENCH, else the repo's build."""
    given = path or os.environ.get("LOCKLAB_BENCH")
    bench = Path(given) if given else DEFAULT_BENCH
    if not bench.is_file() or not os.access(bench, os.X_OK):
        hint = "" if given else " (run `make` first, or pass --bench PATH)"
        raise UsageError(f"locklab-bench not found or not executable at '{bench}'{hint}")
    return bench


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


def check(bench, workload, specs, params):
    """Let the bench itself validate lock specs (including their KEY=VALUE
    parameters) and workload parameter values, with a 1 ms one-thread run;
    raises UsageError with the bench's one-line message."""
    argv = [str(bench), workload, "--threads", "1", "--duration", "0.001", "--json"]
    for s in specs:
        argv += ["--lock", s]
    for k in sorted(params):
        argv += ["--param", f"{k}={params[k]}"]
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        raise UsageError(lines[-1] if lines else f"'{' '.join(argv)}' failed with exit {p.returncode}")
