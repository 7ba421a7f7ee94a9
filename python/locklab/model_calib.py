"""`locklab model calibrate [--out FILE] [--quick] [--bench PATH]`: measure the
models' parameters on this machine with locklab-bench and store them as JSON
(default ~/.cache/locklab/calibration.json, or $XDG_CACHE_HOME/locklab/...).
The models read that file when present (docs/models.md, "Calibration").

Measured: the CPUs available, one PRNG step of MutexBench (cs_steps sweep at
one thread), the uncontended acquire+release pair, the critical section and
the mean non-critical section they make, a cache-line transfer (the
`invalidation` workload), a handover to a spinning successor (`handover`,
mcs), the futex wake-up latency onto an idle CPU (the bench's measured park
cost, ll_park_cost_ns) and onto a busy one (the same measurement confined to
one CPU: a direct switch), and the scheduler time slice (two busy processes
sharing one CPU).  --quick: short runs, for tests; the numbers are rough."""

import json
import math
import os
import platform
import statistics
import time
from pathlib import Path

from . import bench as benchmod
from . import meta as metamod
from .errors import UsageError

HELP = "measure the models' parameters on this machine (JSON)"
VERSION = 1
# Every key a calibration file holds under "params" (the models' calib keys; tests check them all).
KEYS = ("cpus", "step_ns", "pair_ns", "cs_ns", "ncs_ns", "c_ns", "h_ns", "wake_idle_ns", "wake_switch_ns",
        "slice_ns", "park_rate", "park_cpu_ns")
MUTEXBENCH_CS_STEPS = 4      # the workload's defaults (bench/wl_mutexbench.c)
MUTEXBENCH_NCS_MEAN = 99.5   # uniform [0, 200): mean 99.5 steps


def default_path():
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "locklab" / "calibration.json"


def register(p):
    p.add_argument("--out", metavar="FILE", help=f"where to write it (default {default_path()})")
    p.add_argument("--quick", action="store_true", help="short runs (seconds in all): for tests, rough numbers")
    p.add_argument("--bench", metavar="PATH", help="locklab-bench to use (default: the repository's build)")
    p.set_defaults(func=run)


def load(path=None):
    """(calibration dict or None, its path).  An explicit path must exist and
    be a calibration file; the default one is used only if present."""
    explicit = path is not None
    path = Path(path) if explicit else default_path()
    if not path.exists():
        if explicit:
            raise UsageError(f"calibration file '{path}' does not exist (run `locklab model calibrate --out {path}`)")
        return None, path
    try:
        data = json.loads(path.read_text())
        params = data["params"]
        if not isinstance(params, dict) or not all(isinstance(params[k], (int, float)) for k in params):
            raise ValueError
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError(f"'{path}' is not a calibration file (valid: JSON written by `locklab model calibrate`)") \
            from None
    return data, path


# ---------------------------------------------------------------- measurements

class Runner:
    """Runs the bench `runs` times per measurement and takes the median."""

    def __init__(self, exe, duration, runs):
        self.exe, self.duration, self.runs = exe, duration, runs

    def medians(self, workload, spec, threads, params, fields, cpu=None):
        """{field: median over the runs that reported it} of several fields of the same runs; None
        for a field no run reported (e.g. no handover happened: on a loaded machine two threads may
        never run at the same time in a short run).  cpu: confine the runs to that CPU."""
        values = {f: [] for f in fields}
        for _ in range(self.runs):
            out = run_pinned(benchmod.command(self.exe, workload, spec, threads, self.duration, params), cpu)
            for f in fields:
                if out.get(f) is not None:
                    values[f].append(float(out[f]))
        return {f: statistics.median(v) if v else None for f, v in values.items()}

    def median(self, workload, spec, threads, params, field, cpu=None):
        """Median of `field` over the runs that reported it; None if none did."""
        return self.medians(workload, spec, threads, params, (field,), cpu)[field]


def run_pinned(argv, cpu=None):
    """One bench run, confined to CPU `cpu` when given (the child's affinity)."""
    if cpu is None:
        return benchmod.run_once(argv)
    old = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})  # the child inherits it; restored at once
    try:
        return benchmod.run_once(argv)
    finally:
        os.sched_setaffinity(0, old)


def measure_slice_ns(seconds):
    """Median run length of two busy processes sharing one CPU: each records the
    time between the gaps (> 50 us) in its own clock reads, which is how long
    the scheduler let it run.  Returns None if no gap was seen."""
    cpu = max(os.sched_getaffinity(0))
    children = []
    for _ in range(2):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: spin, then write the run lengths; never returns into the caller
            try:
                os.close(r)
                os.sched_setaffinity(0, {cpu})
                runs, start = [], time.perf_counter_ns()
                last, begun, end = start, start, start + int(seconds * 1e9)
                while last < end:
                    now = time.perf_counter_ns()
                    if now - last > 50000:
                        runs.append(last - begun)
                        begun = now
                    last = now
                os.write(w, json.dumps(runs[1:]).encode())  # the first run started mid-slice
            finally:
                os._exit(0)
        os.close(w)
        children.append((pid, r))
    runs = []
    for pid, r in children:
        with os.fdopen(r) as f:
            text = f.read()
        os.waitpid(pid, 0)
        runs += json.loads(text or "[]")
    return float(statistics.median(runs)) if runs else None


def _usable(x):
    return x is not None and math.isfinite(x) and x > 0


def calibrate(exe, quick):
    """{params, sources}: every key of KEYS with how it was obtained.  A
    measurement that gives nothing usable (no operation, no handover: a busy
    machine) leaves the model's default, and the source says so."""
    from .model import MODELS, default_slice_ns
    duration, runs = (0.05, 1) if quick else (0.5, 3)
    r = Runner(exe, duration, runs)
    params, sources = {}, {}

    def settle(key, value, how, default, most=math.inf):
        """Keep a measured value unless it is missing or beyond `most` (what a busy
        machine gives: e.g. a "handover" that is really a preemption)."""
        if _usable(value) and value <= most:
            params[key], sources[key] = value, how
        else:
            why = "nothing measured" if not _usable(value) else f"{value:.4g} > {most:g} is not plausible"
            params[key], sources[key] = default, f"default: {why} ({how}; a busy machine?)"

    defaults = {spec.calib: spec.default for spec in MODELS["handover"].values() if spec.default is not None}
    cpus = len(os.sched_getaffinity(0))
    params["cpus"], sources["cpus"] = cpus, "sched_getaffinity"

    k = 200 if quick else 2000
    rate0 = r.median("mutexbench", "tas", 1, {"cs_steps": 0, "ncs_max": 1}, "throughput_ops_s")
    ratek = r.median("mutexbench", "tas", 1, {"cs_steps": k, "ncs_max": 1}, "throughput_ops_s")
    step = (1e9 / ratek - 1e9 / rate0) / k if _usable(rate0) and _usable(ratek) else None
    settle("step_ns", step, f"mutexbench tas 1 thread: (ns/op at cs_steps={k} - at 0) / {k}", 1.0, 1000)
    settle("pair_ns", r.median("uncontended", "tas", 1, {}, "ns_per_pair"), "uncontended tas: ns_per_pair", 10.0,
           10000)
    measured = not sources["step_ns"].startswith("default")
    settle("cs_ns", MUTEXBENCH_CS_STEPS * params["step_ns"] + params["pair_ns"] / 2 if measured else None,
           "MutexBench's critical section: 4 steps + half a pair (the release)", defaults["cs_ns"])
    settle("ncs_ns", MUTEXBENCH_NCS_MEAN * params["step_ns"] + params["pair_ns"] / 2 if measured else None,
           "MutexBench's non-critical section: 99.5 steps (uniform [0,200)) + half a pair", defaults["ncs_ns"])

    c = h = None
    if cpus >= 2:
        same = r.median("invalidation", "tas", 2, {"same_line": 1}, "writer_ops_s")
        other = r.median("invalidation", "tas", 2, {"same_line": 0}, "writer_ops_s")
        c = max(1.0, 1e9 / same - 1e9 / other) if _usable(same) and _usable(other) else None
        h = r.median("handover", "mcs", 2, {}, "handover_p50_ns")
    settle("c_ns", c, "invalidation 2 threads: writer ns/add with a reader on its line - without",
           MODELS["ticket"]["c"].default, 10000)
    settle("h_ns", h, "handover mcs 2 threads: handover_p50_ns", defaults["h_ns"], 50000)

    one = max(os.sched_getaffinity(0))
    settle("wake_idle_ns", r.median("mutexbench", "mcs-stp", 1, {}, "spin_ns"),
           "ll_park_cost_ns (the bench's spin_ns for mcs-stp): futex ping-pong on 2 CPUs", defaults["wake_idle_ns"])
    settle("wake_switch_ns", r.median("mutexbench", "mcs-stp", 1, {}, "spin_ns", one),
           f"the same ping-pong confined to CPU {one}: a direct switch (parkcost.c clamps it to >= 1 us)",
           defaults["wake_switch_ns"])
    settle("slice_ns", measure_slice_ns(0.2 if quick else 2.0),
           "median run length of two busy processes sharing one CPU", default_slice_ns(cpus))
    settle_parks(r, params, sources, settle, cpus)
    return params, sources


def settle_parks(r, params, sources, settle, cpus):
    """glibc's parks oversubscribed (the `machine` barging model): pthread MutexBench at 4 threads per CPU.
    park rate r = voluntary switches / acquisitions there, saturated: r x n/(n - p) (the model scales it by
    the share of threads off a CPU, (n - p)/n); the CPU time of a park and its wake-up: the p CPUs spend
    p/X_p per acquisition in the barging loop (the model at n = p) and p/X_n in all, the rest is the parks':
    park_cpu = p (1/X_n - 1/X_p) / r."""
    from .model import MODELS
    from . import model_machine as mmach
    defaults = MODELS["machine"]
    n = 4 * cpus
    how = f"pthread mutexbench {n} threads (4 per CPU)"
    rate = cpu = None
    if cpus >= 2:
        m = r.medians("mutexbench", "pthread", n, {}, ("throughput_ops_s", "ops", "vcsw"))
        if _usable(m["throughput_ops_s"]) and _usable(m["ops"]) and _usable(m["vcsw"]):
            r_n = m["vcsw"] / m["ops"]
            rate = r_n * n / (n - cpus)
            x_p = mmach.barging_runs(cpus, params["cs_ns"], params["ncs_ns"], params["h_ns"],
                                     defaults["d"].default)["throughput_ops_s"]  # MutexBench's 2 lines
            cpu = cpus * (1e9 / m["throughput_ops_s"] - 1e9 / x_p) / r_n
    settle("park_rate", rate, f"{how}: voluntary switches per acquisition x n/(n - p)", defaults["park_rate"].default,
           1)
    settle("park_cpu_ns", cpu, f"{how}: p (1/X_n - 1/X_p) / parks per acquisition, X_p the barging model at p",
           defaults["park_cpu"].default, 1e7)


def run(args):
    exe = benchmod.locate(args.bench)
    out = Path(args.out) if args.out else default_path()
    if out.is_dir():
        raise UsageError(f"--out '{out}' is a directory (valid: a file path)")
    params, sources = calibrate(exe, args.quick)
    data = {"version": VERSION, "date": metamod.now_utc(), "quick": args.quick, "bench": str(exe),
            "machine": {"cpu_model": metamod._cpu_model(), "cpus": os.cpu_count(), "kernel": platform.release()},
            "params": params, "sources": sources}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(out)  # never a half-written calibration
    for k in KEYS:
        print(f"  {k:15} {params[k]:12.4g}   {sources[k]}")
    print(f"calibration: {out}{' (quick: rough numbers)' if args.quick else ''}")
    return 0
