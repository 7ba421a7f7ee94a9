"""`locklab model validate [--out DIR] [--quick] [--calibration FILE] [--bench PATH] [--measured FILE]`:
every model against the measurement where both exist, with the error per point
and the median absolute error per comparison.  With --measured FILE (a
validation.json written before) it runs no benchmark: it re-evaluates the
current models against the measurements stored there, with the calibration
stored there (or --calibration).  Otherwise it runs locklab-bench: MutexBench
with ticket, mcs, tas, mcs-stp, cna-stp and pthread at 1..64 threads, and the
thread runtime's thread-counter (Anderson et al.'s section 4) with tas, ttas,
backoff and anderson on 1..CPUs processors.  Writes DIR/validation.json,
DIR/validation.md and DIR/validation.png (default DIR: results/model-validation).

E(r,q) is not validated: with the 2 ready queues of a 2-CPU machine it
predicts 1.25 to 1.5 queues examined, a difference no measurement here
resolves (docs/models.md).  --quick: 1, 2 and 4 threads, 50-ms runs: checks
that the code works, the numbers mean little."""

import json
import statistics
from pathlib import Path

from . import bench as benchmod
from . import model_calib
from . import model_machine as mmach
from . import model_math as mm
from .errors import UsageError
from .model import MODELS, resolve
from .tabulate import markdown_table

HELP = "plot every model against measurements, with errors"
FULL_THREADS = (1, 2, 4, 8, 16, 32, 64)
QUICK_THREADS = (1, 2, 4)

# (comparison, lock spec, model, which threads: "all" or "cpus").  Models: the slides' "ticket" and
# "queue" (the papers' models, kept for reference: docs/models.md says why they miss at 2 threads)
# and the machine models' policies (model_machine.py).
MUTEXBENCH = [
    ("ticket (slides)", "ticket", "ticket", "cpus"),
    ("queue (slides)", "mcs", "queue", "cpus"),
    ("machine fifo", "mcs", "fifo", "all"),
    ("machine fifo", "ticket", "fifo", "all"),
    ("machine park-fifo", "mcs-stp", "park-fifo", "all"),
    ("machine park-fifo", "cna-stp", "park-fifo", "all"),
    ("machine barging", "pthread", "barging", "all"),
    ("machine spin-barging", "tas", "spin-barging", "all"),
]
# thread-counter's lock -> the spin-waiting protocol it implements (Anderson et al. section 4)
COUNTER = [("tas", "xchg"), ("ttas", "read"), ("backoff", "backoff"), ("anderson", "queue")]
# MutexBench's critical section writes two protected lines: the harness's admission counter and log
MUTEXBENCH_DATA_LINES = 2
# thread-counter's critical section writes one: the counter
COUNTER_DATA_LINES = 1
RUN_SECONDS = 1.0           # each validation run (the machine fifo model's run-start slice depends on it)
QUICK_SECONDS = 0.05        # each --quick run
WORKLOAD_OF_UNIT = {"ops/s": "mutexbench", "ns/increment": "thread-counter"}


def register(p):
    p.add_argument("--out", metavar="DIR", default="results/model-validation",
                   help="directory for validation.json, .md and .png (default results/model-validation)")
    p.add_argument("--quick", action="store_true", help="1, 2, 4 threads, 50-ms runs: for tests")
    p.add_argument("--calibration", metavar="FILE",
                   help="calibration file (default: the stored one, if any; with --measured: the one in FILE)")
    p.add_argument("--bench", metavar="PATH", help="locklab-bench to use (default: the repository's build)")
    p.add_argument("--measured", metavar="FILE",
                   help="re-evaluate the models against the measurements stored in FILE (a validation.json): "
                        "runs no benchmark")
    p.set_defaults(func=run)


def measure(exe, workload, spec, threads, params, duration, runs, field):
    values = []
    for _ in range(runs):
        out = benchmod.run_once(benchmod.command(exe, workload, spec, threads, duration, params))
        values.append(float(out[field]))
    return statistics.median(values)


def mutexbench_model(kind, calib, n, duration_s):
    """The model's MutexBench throughput (ops/s) at n threads with calibration calib."""
    if kind in ("ticket", "queue"):
        v, _ = resolve(kind, {}, calib)
        return mm.lock_curve(kind, v["s"], v["c"], v["z"], [n])[0]["throughput_ops_s"]
    v, _ = resolve("machine", {}, calib)
    res = mmach.machine(int(v["p"]), n, v["s"], v["z"], v["h"], MUTEXBENCH_DATA_LINES, v["w_idle"], v["w_switch"],
                        v["q"], v["b"], True, duration_s, v["park_rate"], v["park_cpu"])
    return res[kind]["throughput_ops_s"]


def counter_models(calib, proto, n):
    """[(comparison, ns per increment)]: Anderson et al.'s model and the machine one."""
    pr = calib["params"]
    s = pr["pair_ns"] / 2 + pr["step_ns"]  # the release and the increment
    z = pr["pair_ns"] / 2                   # the loop back to the acquire
    m = MODELS["spinwait"]["m"].default
    v, _ = resolve("spinwait-machine", {}, calib)
    return [(f"spinwait {proto}", mm.spinwait(proto, n, s, z, pr["c_ns"], m)["ns_per_op"]),
            (f"machine spinwait {proto}",
             mmach.spinwait_machine(proto, n, s, z, pr["c_ns"], v["h"], COUNTER_DATA_LINES, v["backoff"], m)
             ["ns_per_op"])]


def points_for(calib, measured, threads, duration_s):
    """Every comparison's points: measured(workload, spec, n) gives the measurement (None: skip the
    point); the models are evaluated here."""
    points = []
    cpus = int(resolve("machine", {}, calib)[0]["p"])
    for comparison, spec, kind, which in MUTEXBENCH:
        for n in threads:
            if which == "cpus" and n > cpus:
                continue
            value = measured("mutexbench", spec, n)
            if value is not None:
                points.append({"comparison": comparison, "lock": spec, "threads": n, "unit": "ops/s",
                               "workload": "mutexbench", "model": mutexbench_model(kind, calib, n, duration_s),
                               "measured": value})
    for spec, proto in COUNTER:
        for n in range(1, cpus + 1):
            value = measured("thread-counter", spec, n)
            if value is None:
                continue
            for comparison, model in counter_models(calib, proto, n):
                points.append({"comparison": comparison, "lock": spec, "threads": n, "unit": "ns/increment",
                               "workload": "thread-counter", "model": model, "measured": value})
    return points


def bench_measurer(exe, duration, runs):
    """measured(workload, spec, n) that runs the bench (once per key)."""
    cache = {}
    field = {"mutexbench": "throughput_ops_s", "thread-counter": "ns_per_increment"}

    def measured(workload, spec, n):
        if (workload, spec, n) not in cache:
            cache[workload, spec, n] = measure(exe, workload, spec, n, {}, duration, runs, field[workload])
        return cache[workload, spec, n]
    return measured


def load_measured(path):
    """(calibration, quick, measured(workload, spec, n), thread counts) from a stored
    validation.json: the measurements by workload, lock and threads (older files name the
    workload by the unit)."""
    try:
        data = json.loads(Path(path).read_text())
        table = {}
        for p in data["points"]:
            workload = p.get("workload") or WORKLOAD_OF_UNIT[p["unit"]]
            table[workload, p["lock"], int(p["threads"])] = float(p["measured"])
        calib = data["calibration"]
        if not isinstance(calib["params"], dict):
            raise TypeError
    except OSError as e:
        raise UsageError(f"--measured '{path}': {e.strerror} (valid: a validation.json written by "
                         f"`locklab model validate`)") from None
    except (ValueError, KeyError, TypeError):
        raise UsageError(f"--measured '{path}' is not a validation.json (valid: JSON written by "
                         f"`locklab model validate`, with points and calibration)") from None
    threads = sorted({n for _, _, n in table})
    return calib, bool(data.get("quick")), lambda workload, spec, n: table.get((workload, spec, n)), threads


def summarise(points):
    for p in points:
        p["error"] = (p["model"] - p["measured"]) / p["measured"] if p["measured"] else None
    groups = {}
    for p in points:
        if p["error"] is not None:
            groups.setdefault((p["comparison"], p["lock"]), []).append(abs(p["error"]))
    summary = [{"comparison": c, "lock": lock, "points": len(e), "median_abs_error": statistics.median(e)}
               for (c, lock), e in groups.items()]
    everything = [abs(p["error"]) for p in points if p["error"] is not None]
    return summary, (statistics.median(everything) if everything else None)


def error_cell(error):
    return "no operation measured" if error is None else f"{100 * error:+.0f}%"


def markdown(points, summary, overall, calib_note, quick):
    lines = ["# Model vs measurement", "",
             f"Calibration: {calib_note}.  {'QUICK run (50 ms per point): numbers mean little.' if quick else ''}",
             "error = (model - measured) / measured.", "",
             markdown_table(["comparison", "lock", "points", "median abs error"],
                            [[s["comparison"], s["lock"], s["points"], f"{100 * s['median_abs_error']:.0f}%"]
                             for s in summary]),
             "", f"Overall median abs error: {100 * overall:.0f}%" if overall is not None else "", "",
             markdown_table(["comparison", "lock", "threads", "unit", "model", "measured", "error"],
                            [[p["comparison"], p["lock"], p["threads"], p["unit"], f"{p['model']:.4g}",
                              f"{p['measured']:.4g}", error_cell(p["error"])] for p in points])]
    return "\n".join(lines) + "\n"


def run(args):
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out '{out}' is not a directory (valid: a directory path)")
    if args.measured:
        stored, quick, measured, threads = load_measured(args.measured)
        calib, note = (model_calib.load(args.calibration)[0], args.calibration) if args.calibration else \
            (stored, f"the calibration stored in {args.measured}")
        note = f"{note}; measurements re-evaluated from {args.measured} (no benchmark run)"
        duration = QUICK_SECONDS if quick else RUN_SECONDS
    else:
        exe = benchmod.locate(args.bench)
        calib, calib_path = model_calib.load(args.calibration)
        if calib is None:  # the models need this machine's numbers to be compared with it
            print(f"no calibration at {calib_path}: calibrating first{' (quick)' if args.quick else ''}")
            params, sources = model_calib.calibrate(exe, args.quick)
            calib, note = {"params": params, "sources": sources}, "measured now (not stored)"
        else:
            note = str(calib_path)
        quick = args.quick
        threads = QUICK_THREADS if quick else FULL_THREADS
        duration, runs = (QUICK_SECONDS, 1) if quick else (RUN_SECONDS, 3)
        measured = bench_measurer(exe, duration, runs)
    points = points_for(calib, measured, threads, duration)
    if not points:
        raise UsageError(f"--measured '{args.measured}' holds no MutexBench or thread-counter point of a lock "
                         f"the models compare (valid: a validation.json written by `locklab model validate`)")
    summary, overall = summarise(points)
    out.mkdir(parents=True, exist_ok=True)
    (out / "validation.json").write_text(json.dumps({"calibration": calib, "quick": quick, "points": points,
                                                     "summary": summary, "median_abs_error": overall}, indent=1))
    (out / "validation.md").write_text(markdown(points, summary, overall, note, quick))
    from . import model_plot
    model_plot.validation_figure(points, out / "validation.png")
    for s in summary:
        print(f"  {s['comparison']:26} {s['lock']:9} {s['points']:2} points  median |error| "
              f"{100 * s['median_abs_error']:5.0f}%")
    if overall is not None:
        print(f"overall median |error| {100 * overall:.0f}%")
    print(f"wrote {out / 'validation.md'}, validation.json, validation.png")
    return 0
