"""`locklab sim validate [--out DIR] [--quick]`: how far the simulator is from
reality -- the simulator's validation matrix (docs/simulator.md, "Validation").

(a) This machine: the same sweep measured with locklab-bench and simulated with
    locklab-sim on the preset `this` (MutexBench and RandArray; tas, ticket,
    mcs, twa, cna, mcscr-stp, pthread; 1 and 2 threads and oversubscribed,
    OVERSUBSCRIPTION x the CPUs).  Per workload, thread count and lock: the
    throughput ratio lock / baseline (mcs) measured and simulated, and the error
    simulated / measured - 1 (the target is within +-20%).
(b) The papers: simulated sweeps on the papers' machines, reduced to the shapes
    and ratios the papers publish (ticket collapse vs cores, TWA vs MCS and
    ticket, CNA / MCS on 2 and 4 sockets, MCSCR-STP vs MCS-STP oversubscribed).
    Per claim: the published number (or the published shape), ours, the error.

The matrix, the published numbers and their references (paper text line,
section, figure) are data: python/locklab/data/sim_validation.json.  Each
sweep is an ordinary result directory under DIR (this/measured,
this/simulated, this/simulated-oversubscribed, papers/EXPERIMENT: `locklab report` works on them, and a
rerun resumes them); DIR/validation.md and DIR/validation.json hold the tables,
DIR/ratios.png plots simulated against measured ratios, and each sweep
directory gets its WORKLOAD.png (plots.py).  A lock or workload the simulator
does not accept is reported as "not simulated" with its message; a missing
preset is replaced by the description built from the paper's numbers, and the
table says so.  --measured DIR: (a) compares with a stored measured sweep (a
result directory of locklab-bench runs, e.g. an earlier this/measured, or its
results.csv) instead of measuring: nothing is measured, only simulated; its
oversubscribed thread count is OVERSUBSCRIPTION x the CPUs its meta.json
records.  --quick: one run of 0.05 s measured and 0.001 s simulated per
configuration (tests; the numbers mean nothing).
"""

import json
import math
import os
import sys
from pathlib import Path

from . import bench, results, sweep
from .errors import UsageError
from .tabulate import markdown_table

DATA = Path(__file__).resolve().parent / "data" / "sim_validation.json"
OPTIONS = ["--out", "--quick", "--bench", "--bench-duration", "--sim-duration", "--part", "--measured"]
DESTS = ["out", "quick", "bench", "bench_duration", "sim_duration", "part", "measured"]
PARTS = ["all", "this", "papers"]
DEFAULT_OUT = "results/sim-validation"
DEFAULTS = {"runs": 3, "bench_duration": 1.0, "sim_duration": 0.1}
QUICK = {"runs": 1, "bench_duration": 0.05, "sim_duration": 0.001}


def add_arguments(p):
    """The options of `locklab sim validate` (on the `locklab sim` parser)."""
    p.add_argument("--out", metavar="DIR", help=f"validate: result directory (default: {DEFAULT_OUT}; reused to resume)")
    p.add_argument("--quick", action="store_true", help="validate: one short run per configuration (tests)")
    p.add_argument("--bench", metavar="PATH", help="validate: locklab-bench for the measurements")
    p.add_argument("--bench-duration", metavar="S", help=f"validate: measured seconds per run "
                   f"(default: {DEFAULTS['bench_duration']})")
    p.add_argument("--sim-duration", metavar="S", help=f"validate: simulated seconds per run (default: "
                   f"{DEFAULTS['sim_duration']}; this machine oversubscribed: the measured duration)")
    p.add_argument("--part", choices=PARTS, help="validate: this machine, the papers, or all (default)")
    p.add_argument("--measured", metavar="DIR", help="validate: compare this machine's part with this stored "
                   "measured sweep (a result directory or its results.csv) instead of measuring")


def load_matrix(path=DATA):
    with open(path) as f:
        return json.load(f)


def settings(args):
    """(runs, measured seconds, simulated seconds for the papers) from --quick, --runs and the durations."""
    base = QUICK if args.quick else DEFAULTS
    runs = sweep.parse_number("--runs", args.runs, int, 1, 1000) if args.runs else base["runs"]
    measured = sweep.parse_number("--bench-duration", args.bench_duration, float, 0.001, 3600) \
        if args.bench_duration else base["bench_duration"]
    simulated = sweep.parse_number("--sim-duration", args.sim_duration, float, 0.001, 3600) \
        if args.sim_duration else base["sim_duration"]
    return runs, measured, simulated


def resolve_machine(machine, presets):
    """(--machine value, note): the preset when the simulator has it, else the description."""
    if machine["preset"] in presets:
        return machine["preset"], ""
    return machine["description"], f"no preset '{machine['preset']}': {machine['description']}"


def median(result, workload, spec, threads):
    runs = list(result.runs(workload, spec, threads).values())
    return results.summarize(runs, "throughput_ops_s").median if runs else math.nan


def spread(result, workload, spec, threads):
    """Largest / smallest throughput of the runs (nan without two usable runs)."""
    s = results.summarize(list(result.runs(workload, spec, threads).values()), "throughput_ops_s")
    return s.max / s.min if s.n >= 2 and s.min > 0 else math.nan


def agreeing(measured_spread, tolerance):
    """Do the measured runs agree with one another within the tolerance (all within +-tol of one
    value: largest / smallest <= (1 + tol) / (1 - tol))?  A ratio to runs that do not can be
    within the tolerance only by chance."""
    return not math.isnan(measured_spread) and measured_spread <= (1 + tolerance) / (1 - tolerance)


def _ratio(x, y):
    if math.isnan(x) or math.isnan(y) or y <= 0:
        return math.nan
    return x / y


def simulated_locks(sim, workload, locks, params, threads, machine, notes):
    """The locks the simulator accepts (each checked alone); the others go to notes."""
    kept = []
    for spec in locks:
        try:
            bench.check_sim(sim, workload, [spec], params, [min(threads)], machine)
            kept.append(spec)
        except UsageError as e:
            notes.append(f"{spec} not simulated on {machine} ({workload}): {e}")
    return kept


def sweep_config(workloads, locks, threads, runs, duration, params, machine=None, model=None):
    """A sweep configuration as sweep.validate makes it."""
    config = {"workloads": workloads, "locks": locks, "threads": threads, "runs": runs, "duration": duration,
              "params": {w: dict(params.get(w, {})) for w in workloads},
              "topology": None if machine else os.environ.get("LOCKLAB_TOPOLOGY"), "sim": machine}
    return dict(config, machine_model=model) if machine else config


def _execute(exe, config, out):
    status = sweep.execute(exe, config, out, quiet=True)
    if status != 0:
        raise KeyboardInterrupt  # the sweep printed how to resume
    return results.ResultDir(out)


# ---- (a) this machine ----

def load_measured(path):
    """The stored measured sweep of --measured (a result directory, or its results.csv): a ResultDir."""
    path = Path(path)
    if path.name == "results.csv" and path.is_file():
        path = path.parent
    measured = results.ResultDir(path)
    if measured.meta.get("simulated") or (measured.meta.get("config") or {}).get("sim"):
        raise UsageError(f"--measured '{path}' holds simulated results (valid: a sweep measured with locklab-bench)")
    return measured


def this_machine(m, bench_exe, sim, presets, out, runs, bench_s, sim_s, notes, measured=None, over_s=None):
    """Rows {workload, threads, lock, measured, simulated, error, ok} and the result directories.
    Simulated seconds: sim_s up to one thread per CPU (this/simulated), over_s (default sim_s)
    oversubscribed (this/simulated-oversubscribed): an oversubscribed FIFO lock's throughput is
    mostly its start-up burst until the first preemption, so it depends on the interval, which
    must then be the measured one.
    measured: a stored measured sweep (ResultDir) to compare with instead of measuring; the
    directories returned are those made here (a stored sweep is left as it is)."""
    cpus = (measured.meta.get("cpus") if measured else None) or os.cpu_count() or 1
    threads = []
    for t in m["threads"]:
        t = t if isinstance(t, int) else m["oversubscription"] * cpus
        if t not in threads:
            threads.append(t)
    if measured:
        missing = [f"{w} {spec} {t}T" for w in m["workloads"] for spec in m["locks"] for t in threads
                   if not measured.runs(w, spec, t)]
        if missing:
            raise UsageError(f"--measured '{measured.path}' lacks {len(missing)} configuration(s) of the matrix, "
                             f"e.g. {missing[0]} (valid: a sweep of {', '.join(m['workloads'])} x "
                             f"{', '.join(m['locks'])} at {', '.join(map(str, threads))} threads)")
        notes.append(f"this machine: measured side from the stored sweep {measured.path} "
                     f"({measured.meta.get('date', 'undated')}), not re-measured")
    machine, note = resolve_machine({"preset": m["preset"], "description": f"sockets=1,cores={cpus}"}, presets)
    if note:
        notes.append(f"this machine: {note}")
    workloads, params, locks = list(m["workloads"]), m["workloads"], m["locks"]
    for w in workloads if measured is None else []:  # every check first (seconds), then the sweeps
        bench.check(bench_exe, w, locks, params[w], threads)
    kept = locks
    model = None
    for w in workloads:
        kept = simulated_locks(sim, w, kept, params[w], threads, machine, notes)
    if m["baseline"] not in kept:
        raise UsageError(f"locklab-sim does not simulate the baseline lock {m['baseline']} on {machine}: "
                         f"{notes[-1] if notes else ''}")
    for w in workloads:
        model = bench.check_sim(sim, w, kept, params[w], threads, machine) or model
    made = []
    if measured is None:
        measured = _execute(bench_exe, sweep_config(workloads, locks, threads, runs, bench_s, params),
                            out / "this" / "measured")
        made.append(measured)
    within, over = [t for t in threads if t <= cpus], [t for t in threads if t > cpus]
    sims = {}
    for part, seconds, name in ((within, sim_s, "simulated"), (over, over_s or sim_s, "simulated-oversubscribed")):
        if part:
            made.append(_execute(sim, sweep_config(workloads, kept, part, runs, seconds, params, machine, model),
                                 out / "this" / name))
            sims.update((t, made[-1]) for t in part)
    rows = []
    for w in workloads:
        for t in threads:
            for spec in locks:
                if spec == m["baseline"]:
                    continue
                meas = _ratio(median(measured, w, spec, t), median(measured, w, m["baseline"], t))
                simr = _ratio(median(sims[t], w, spec, t), median(sims[t], w, m["baseline"], t)) \
                    if spec in kept else math.nan
                err = _ratio(simr, meas) - 1
                sp = max(spread(measured, w, spec, t), spread(measured, w, m["baseline"], t),
                         key=lambda x: math.inf if math.isnan(x) else x)  # nan (a single run) wins
                rows.append({"workload": w, "threads": t, "lock": spec, "baseline": m["baseline"],
                             "measured": meas, "measured_spread": sp, "simulated": simr, "error": err,
                             "ok": None if math.isnan(err) else abs(err) <= m["tolerance"]})
    return rows, made, machine


# ---- (b) the papers ----

def run_experiment(name, e, sim, presets, out, runs, sim_s, notes):
    """Simulate one experiment of the matrix: (ResultDir, workload, machine) or (None, reason, machine)."""
    machine, note = resolve_machine(e["machine"], presets)
    if note:
        notes.append(f"{name}: {note}")
    workload, reasons = None, []
    for w in e["workloads"]:
        try:
            bench.check_sim(sim, w, e["locks"][:1], e["params"].get(w, {}), [min(e["threads"])], machine)
            workload = w
            break
        except UsageError as err:
            reasons.append(f"{w}: {err}")
    if workload is None:
        return None, "; ".join(reasons), machine
    if reasons:
        notes.append(f"{name}: ran {workload} instead ({'; '.join(reasons)})")
    params = e["params"].get(workload, {})
    locks = simulated_locks(sim, workload, e["locks"], params, e["threads"], machine, notes)
    if not locks:
        return None, "no lock of the experiment is simulated", machine
    try:
        model = bench.check_sim(sim, workload, locks, params, e["threads"], machine)
    except UsageError as err:
        return None, str(err), machine
    result = _execute(sim, sweep_config([workload], locks, e["threads"], runs, sim_s, {workload: params},
                                        machine, model), out / "papers" / name)
    return result, workload, machine


def evaluate(claim, result, workload):
    """The simulated value of one claim (NaN: not available), from its experiment's results."""
    threads = result.threads(workload)
    series = {s: [(t, median(result, workload, s, t)) for t in threads] for s in result.specs(workload)}
    kind = claim["kind"]
    if kind == "ratio":
        if claim["a"] not in series or claim["b"] not in series:
            return math.nan
        return _ratio(median(result, workload, claim["a"], claim["at"]),
                      median(result, workload, claim["b"], claim.get("b_at", claim["at"])))
    points = [(t, v) for t, v in series.get(claim.get("lock", claim.get("a")), []) if not math.isnan(v)]
    if not points:
        return math.nan
    if kind == "collapse":  # the thread count of the peak, when the largest count fell below 90% of it
        peak_t, peak = max(points, key=lambda p: p[1])
        return float(peak_t) if points[-1][1] < 0.9 * peak else math.inf
    if kind == "peak_fraction":
        return _ratio(dict(points).get(claim["at"], math.nan), max(v for _, v in points))
    if kind == "crossover":  # smallest thread count above 1 where a >= b
        b = dict((t, v) for t, v in series.get(claim["b"], []))
        for t, v in points:
            if t > 1 and t in b and v >= b[t]:
                return float(t)
        return math.inf
    raise ValueError(f"unknown claim kind {kind!r} in {DATA}")


def verdict(claim, value):
    """(published text, error text): the relative error, or whether the published shape holds."""
    if "published" in claim:
        pub = claim["published"]
        text = f"{pub:g} {claim['unit']}"
        return text, fmt_error(value / pub - 1)
    lo, hi = claim["expect"]
    if math.isnan(value):
        return claim["published_text"], "-"
    holds = (lo is None or value >= lo) and (hi is None or value <= hi)
    return claim["published_text"], "holds" if holds else "fails"


def fmt_value(claim, value):
    if math.isnan(value):
        return "-"
    if math.isinf(value):
        return {"collapse": "no collapse", "crossover": "never"}.get(claim["kind"], "inf")
    return f"{value:g}" if claim["kind"] in ("collapse", "crossover") else f"{value:.3g}"


def papers(matrix, sim, presets, out, runs, sim_s, notes, interval_given=False):
    """Rows {id, claim, machine, published, simulated, error, source}, the result
    directories, and one line per experiment (its machine and workload, and where they come from).
    An experiment's own "sim_seconds" (one that needs several of its machine's time slices)
    lengthens its runs unless the interval was given (--sim-duration, --quick)."""
    used = []
    for c in matrix["claims"]:
        if c["experiment"] not in used:
            used.append(c["experiment"])
    done, dirs, lines = {}, [], []
    for name in used:
        e = matrix["experiments"][name]
        seconds = sim_s if interval_given else max(sim_s, e.get("sim_seconds", 0))
        done[name] = run_experiment(name, e, sim, presets, out, runs, seconds, notes)
        if done[name][0] is not None:
            dirs.append(done[name][0])
        why = e.get("sim_seconds_source", "the experiment's own interval")
        span = f", {seconds:g} simulated s a run ({why})" if seconds != sim_s else ""
        lines.append(f"{name} (papers/{name}): {done[name][1] if done[name][0] is not None else 'not run'} on "
                     f"{done[name][2]}, locks {', '.join(e['locks'])}, threads {', '.join(map(str, e['threads']))}"
                     f"{span}. "
                     f"Machine: {e['machine_source']}." + (f" Parameters: {e['params_source']}." if
                                                            e.get("params_source") else "")
                     + (f" Locks: {e['locks_source']}." if e.get("locks_source") else ""))
    rows = []
    for c in matrix["claims"]:
        result, workload, machine = done[c["experiment"]]
        value = evaluate(c, result, workload) if result is not None else math.nan
        published, error = verdict(c, value)
        rows.append({"id": c["id"], "claim": c["claim"], "machine": machine,
                     "workload": workload if result is not None else "-",
                     "published": published, "simulated": fmt_value(c, value) if result is not None
                     else f"not simulated ({workload})", "value": value, "error": error, "source": c["source"]})
    return rows, dirs, lines


# ---- output ----

def _fmt_ratio(x):
    return "-" if math.isnan(x) else f"{x:.3f}"


def fmt_error(e):
    """A relative error as a signed percentage ("-0%" reads as a sign of something: 0%)."""
    if math.isnan(e) or math.isinf(e):
        return "-"
    return "0%" if round(e * 100) == 0 else f"{e:+.0%}"


def this_table(rows, machine, tolerance):
    header = ["workload", "threads", "lock / baseline", "measured", "measured spread", f"simulated ({machine})",
              "error", "within"]
    body = [[r["workload"], str(r["threads"]), f"{r['lock']} / {r['baseline']}", _fmt_ratio(r["measured"]),
             "-" if math.isnan(r["measured_spread"]) else f"x{r['measured_spread']:.2f}",
             _fmt_ratio(r["simulated"]), fmt_error(r["error"]),
             "-" if r["ok"] is None else ("yes" if r["ok"] else "no")] for r in rows]
    return header, body, f"+-{tolerance:.0%}"


def this_summary(rows, tolerance):
    """One line: how many ratios are within the tolerance, in all and where the measured runs agree."""
    judged = [r for r in rows if r["ok"] is not None]
    steady = [r for r in judged if agreeing(r["measured_spread"], tolerance)]
    count = lambda rs: f"{sum(r['ok'] for r in rs)} of {len(rs)}"  # noqa: E731
    return (f"Within +-{tolerance:.0%}: {count(judged)}; of those whose measured runs agree with one another "
            f"(largest / smallest run <= {(1 + tolerance) / (1 - tolerance):.2f} for the lock and the baseline): "
            f"{count(steady)}.")


def papers_table(rows):
    header = ["claim", "machine (simulated)", "workload", "published", "simulated", "error"]
    return header, [[r["id"], r["machine"], r["workload"], r["published"], r["simulated"], r["error"]] for r in rows]


def _text_table(header, body):
    widths = [max(len(h), *(len(row[i]) for row in body)) if body else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in body]
    return "\n".join(lines)


def write_outputs(out, this_rows, this_machine_name, tolerance, paper_rows, experiments, notes, settings_line,
                  images):
    doc = ["# locklab sim validate", "", settings_line, ""]
    if this_rows is not None:
        header, body, tol = this_table(this_rows, this_machine_name, tolerance)
        doc += ["## This machine: measured vs simulated throughput ratios", "",
                f"Ratio = median throughput of the lock / that of the baseline, at the same thread count; "
                f"error = simulated / measured - 1 (target: within {tol}); measured spread = largest / smallest "
                f"run of the lock or the baseline, whichever is wider. Sweeps: this/measured, this/simulated, "
                f"this/simulated-oversubscribed.",
                "", markdown_table(header, body), "", this_summary(this_rows, tolerance), ""]
    if paper_rows is not None:
        header, body = papers_table(paper_rows)
        doc += ["## The papers: published vs simulated", "",
                "Error = simulated / published - 1 for a published number; holds/fails for a published shape. "
                "Sweeps: papers/EXPERIMENT.", "", markdown_table(header, body), "", "Sources:", ""]
        doc += [f"- {r['id']}: {r['claim']}. {r['source']}" for r in paper_rows]
        doc += ["", "Experiments:", ""] + [f"- {line}" for line in experiments] + [""]
    if notes:
        doc += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    doc += [f"![{i}]({i})" for i in images] + [""]
    (out / "validation.md").write_text("\n".join(doc))
    clean = lambda v: None if isinstance(v, float) and (math.isnan(v) or math.isinf(v)) else v  # noqa: E731
    data = {"this_machine": [{k: clean(v) for k, v in r.items()} for r in this_rows or []],
            "papers": [{k: clean(v) for k, v in r.items()} for r in paper_rows or []], "notes": notes}
    (out / "validation.json").write_text(json.dumps(data, indent=2) + "\n")


def run(args):
    from . import plots  # matplotlib loads only when something is drawn

    runs, bench_s, sim_s = settings(args)
    part = args.part or "all"
    out = Path(args.out or DEFAULT_OUT)
    matrix = load_matrix()
    sim = bench.locate_sim(args.sim_bin)
    presets = bench.presets(sim)
    stored = None
    if args.measured:
        if part == "papers":
            raise UsageError("--measured is for the part `this` (valid: --part this or all)")
        if args.bench or args.bench_duration:
            raise UsageError(f"--{'bench' if args.bench else 'bench-duration'} measures; --measured compares with "
                             "stored measurements instead (valid: one or the other)")
        stored = load_measured(args.measured)
    bench_exe = bench.locate(args.bench) if part in ("all", "this") and stored is None else None
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot create --out '{out}': {e.strerror}") from None
    # This machine, oversubscribed: the simulated interval is the measured one (this_machine says why).
    over_s = sim_s if args.sim_duration or args.quick else \
        float((stored.meta.get("config") or {}).get("duration") or bench_s) if stored else bench_s
    notes, dirs, images = [], [], []
    this_rows = paper_rows = None
    experiments = []
    this_name = None
    try:
        if part in ("all", "this"):
            this_rows, made, this_name = this_machine(matrix["this_machine"], bench_exe, sim, presets, out, runs,
                                                      bench_s, sim_s, notes, stored, over_s)
            dirs += made
        if part in ("all", "papers"):
            paper_rows, made, experiments = papers(matrix, sim, presets, out, runs, sim_s, notes,
                                                   bool(args.sim_duration or args.quick))
            dirs += made
    except KeyboardInterrupt:
        print(f"locklab sim validate: interrupted; rerun the same command to resume ({out})", file=sys.stderr)
        return 130
    for d in dirs:
        for w in d.workloads():
            plots.workload_figure(d, w, d.path / f"{w}.png")
            images.append(str((d.path / f"{w}.png").relative_to(out)))
    if this_rows:
        points = [(f"{r['workload']} {r['lock']} {r['threads']}T", r["measured"], r["simulated"]) for r in this_rows]
        plots.validation_figure(points, matrix["this_machine"]["tolerance"], this_name, out / "ratios.png")
        images.insert(0, "ratios.png")
    how = f"measured: the stored sweep {stored.path}" if stored else f"{bench_s:g} s measured"
    line = (f"{runs} run(s) per configuration, {how}; {sim_s:g} simulated seconds per run ({over_s:g} for this "
            f"machine oversubscribed: the measured interval)"
            f"{' (--quick: the numbers mean nothing)' if args.quick else ''}.")
    write_outputs(out, this_rows, this_name, matrix["this_machine"]["tolerance"], paper_rows, experiments, notes, line,
                  images)
    if this_rows is not None:
        header, body, tol = this_table(this_rows, this_name, matrix["this_machine"]["tolerance"])
        print(f"This machine: throughput ratio lock / baseline, measured vs simulated (target {tol})")
        print(_text_table(header, body))
        print(this_summary(this_rows, matrix["this_machine"]["tolerance"]) + "\n")
    if paper_rows is not None:
        print("The papers: published vs simulated")
        print(_text_table(*papers_table(paper_rows)) + "\n")
    for n in notes:
        print(f"note: {n}")
    print(out / "validation.md")
    return 0

