"""Talking to locklab-bench (and to the simulator locklab-sim, which speaks the
same JSON contract): finding them, asking what they accept (--list,
--workloads), and running one measurement with --json.

The bench is wherever --bench / $LOCKLAB_BENCH points, else the build of the
repository this package lives in (REPO/build/bin/locklab-bench, when it runs
from a checkout: `make`'s editable .venv), else the one installed on PATH
(`make install`, bin/locklab-bench).  locklab-sim is found the same way
(--sim-bin / $LOCKLAB_SIM, REPO/build/bin, PATH), and also next to an installed
locklab-bench (PREFIX/bin).
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

from .errors import UsageError

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BENCH = REPO / "build" / "bin" / "locklab-bench"
DEFAULT_SIM = REPO / "build" / "bin" / "locklab-sim"


class BenchFailed(RuntimeError):
    """locklab-bench exited non-zero during a measurement; the message is its own."""


def _executable(path):
    return path.is_file() and os.access(path, os.X_OK)


def installed_prefix():
    """The install prefix of the locklab-bench on PATH (PREFIX of PREFIX/bin/locklab-bench), or None."""
    found = shutil.which("locklab-bench")
    return Path(found).resolve().parent.parent if found else None


def _find(name, given, env_var, default, option):
    """The executable `name`: `given` (a command-line option), else $env_var, else
    `default` (the repository's build), else on PATH, else next to an installed
    locklab-bench (PREFIX/bin)."""
    given = given or os.environ.get(env_var)
    if given:
        if not _executable(Path(given)):
            raise UsageError(f"{name} not found or not executable at '{given}'")
        return Path(os.path.abspath(given))  # str(Path("./x")) is "x": a command name, looked up on PATH
    if _executable(default):
        return default
    found = shutil.which(name)
    if found:
        return Path(found).resolve()
    prefix = installed_prefix()
    if prefix is not None and _executable(prefix / "bin" / name):
        return prefix / "bin" / name
    raise UsageError(f"{name} not found at '{default}' nor on PATH "
                     f"(run `make` or `make install` first, or pass {option} PATH)")


def locate(path=None):
    """The bench executable: `path` (from --bench), else $LOCKLAB_BENCH, else the
    repository's build, else the one on PATH."""
    return _find("locklab-bench", path, "LOCKLAB_BENCH", DEFAULT_BENCH, "--bench")


def locate_sim(path=None):
    """The simulator: `path` (from --sim-bin), else $LOCKLAB_SIM, else the
    repository's build, else the one on PATH or next to an installed locklab-bench."""
    return _find("locklab-sim", path, "LOCKLAB_SIM", DEFAULT_SIM, "--sim-bin")


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


def command(bench, workload, spec, threads, duration, params, extra=()):
    """The argv of one measurement; params is {key: value text}; extra: more
    options (the simulator's --machine M --seed N)."""
    argv = [str(bench), workload, "--lock", spec, "--threads", str(threads), "--duration", str(duration), "--json",
            *extra]
    for k in sorted(params):
        argv += ["--param", f"{k}={params[k]}"]
    return argv


def run_once(argv):
    """Run one measurement; returns the parsed JSON object.  A non-zero exit (or
    output that is not one JSON object) raises BenchFailed with the bench's message."""
    p = subprocess.run(argv, capture_output=True, text=True)
    return parse_output(p.returncode, p.stdout, p.stderr)


def parse_output(returncode, stdout, stderr):
    """The JSON object of one finished measurement (run_once's checks)."""
    if returncode != 0:
        lines = stderr.strip().splitlines()
        raise BenchFailed(f"exit {returncode}: {lines[-1] if lines else 'no message'}")
    objects = [line for line in stdout.splitlines() if line.startswith("{")]
    if len(objects) != 1:
        raise BenchFailed(f"expected one JSON object, got {len(objects)}")
    try:
        return json.loads(objects[0])
    except json.JSONDecodeError as e:
        raise BenchFailed(f"unparsable JSON ({e})") from None


def _validation_run(argv):
    """Run one validation; its stdout, or UsageError with its one-line message."""
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        raise UsageError(lines[-1] if lines else f"'{' '.join(argv)}' failed with exit {p.returncode}")
    return p.stdout


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
        _validation_run(argv)


CHECK_SIM_SECONDS = 0.001  # simulated seconds of each validation run of the simulator


def check_sim(sim, workload, specs, params, threads, machine):
    """check() for the simulator, which takes one --lock per run: every spec at the
    smallest thread count, then every thread count with the first spec, each
    CHECK_SIM_SECONDS of simulated time on `machine`.  Raises UsageError with the
    simulator's one-line message (a bad machine, unknown preset, lock, workload or
    parameter); returns the simulator's parsed machine ("machine" of its JSON)."""
    lo = min(threads)
    cases = [(s, lo) for s in specs] + [(specs[0], t) for t in sorted(set(threads)) if t != lo]
    model = None
    for spec, t in cases:
        argv = command(sim, workload, spec, t, CHECK_SIM_SECONDS, params, ["--machine", machine, "--seed", "1"])
        obj = _json_of(_validation_run(argv))
        if obj.get("simulated") is not True:
            raise UsageError(f"'{sim}' is not locklab-sim: its JSON lacks \"simulated\": true")
        if model is None and isinstance(obj.get("machine"), dict):
            model = obj["machine"]
    return model


def _json_of(stdout):
    """The first JSON object line of a --json run's output, {} when there is none."""
    for line in stdout.splitlines():
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                return {}
            return obj if isinstance(obj, dict) else {}
    return {}


def presets(sim):
    """{name: description} from `locklab-sim --list-presets` (NAME<TAB>DESCRIPTION lines)."""
    out = {}
    for line in _query(sim, "--list-presets").splitlines():
        if line.strip():
            name, _, desc = line.partition("\t")
            out[name.strip()] = desc.strip()
    return out
