"""`locklab sweep`: a campaign of locklab-bench runs over workloads x lock
specs x thread counts x repetitions, one CSV row per run (schema.py).

Order (interleaved so that machine noise -- other jobs, frequency changes --
hits every lock alike instead of one lock's whole block):

    for run in 1..R:               outermost: every configuration once, then again
      for workload in WORKLOADS:
        for threads in THREADS:
          for spec in LOCKS:       innermost: locks side by side at the same moment
            one `locklab-bench WORKLOAD --lock SPEC --threads N --duration S --json`

Resumable: rows are appended and flushed one per run; rerunning the same
command with the same --out skips the runs already in DIR/results.csv (key:
workload, spec, threads, run, params).  DIR/meta.json records the machine and
the configuration (with $LOCKLAB_TOPOLOGY); a different configuration in an existing DIR is refused.
A bench failure stops the sweep with the bench's message; the CSV stays resumable.

`--sim MACHINE`: every run is done by the simulator locklab-sim instead, with
`--machine MACHINE --seed RUN` (runs differ, and rerunning reproduces them);
meta.json says "simulated": true and records the machine (its name and the
simulator's parsed model), so report and compare label the results.  A
simulated sweep and a measured one never share a directory (the configuration
differs in "sim").  A simulated sweep runs one simulation per CPU at a time: a
simulated result depends on its seed only, not on the host's load (except the
host_* timings it reports); rows are still written in the order above.
"""

import contextlib
import json
import os
import re
import sys
import subprocess
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from tqdm import tqdm

from . import bench, meta, schema
from .errors import UsageError
from .tabulate import interleave

MAX_THREADS = 4096  # locklab-bench's own limit
DEFAULT_THREADS = "1,2,4,8,16,32"


COMMAND = "sweep"
HELP = "run a campaign of measurements into DIR/results.csv"


def register(p):
    """Fills the parser that cli.build_parser made from COMMAND, HELP and the docstring."""
    p.add_argument("--workloads", default="mutexbench", help="comma-separated workloads (default: mutexbench)")
    p.add_argument("--locks", required=True, help="comma-separated lock specs, e.g. mcs,mcscr-stp,pthread "
                   "(a spec's own KEY=VALUE list may use commas: backoff:min=8,max=1024,mcs)")
    p.add_argument("--threads", default=DEFAULT_THREADS, help=f"comma-separated thread counts (default: {DEFAULT_THREADS})")
    p.add_argument("--runs", default="5", help="repetitions of every configuration (default: 5)")
    p.add_argument("--duration", default="2", help="seconds per run (default: 2)")
    p.add_argument("--param", action="append", default=[], metavar="[WORKLOAD.]KEY=VALUE",
                   help="workload parameter; without WORKLOAD. it applies to every workload of the sweep")
    p.add_argument("--out", required=True, metavar="DIR", help="result directory (created; reused to resume)")
    p.add_argument("--bench", metavar="PATH", help="locklab-bench to run (default: the repository's build/bin, "
                   "else the one on PATH)")
    add_sim_arguments(p)
    p.set_defaults(func=run)


def add_sim_arguments(p):
    p.add_argument("--sim", metavar="MACHINE", help="simulate every run with locklab-sim on MACHINE: a preset "
                   "(`locklab sim --list-presets`) or [PRESET,]KEY=VALUE,... (sockets=S,cores=C per socket,...); "
                   "--duration is then simulated seconds")
    p.add_argument("--sim-bin", metavar="PATH", help="locklab-sim to run (default: $LOCKLAB_SIM, the repository's "
                   "build/bin, else the one on PATH)")


# A machine is [PRESET,]KEY=VALUE,... or a preset name (the simulator checks the names and values).
_KV = r"[A-Za-z_][A-Za-z0-9_]*=[^,=\s]+"
MACHINE_SYNTAX = re.compile(rf"([A-Za-z0-9_.+-]+|{_KV})(,{_KV})*")


def parse_machine(option, text):
    """The syntax of a machine description; its meaning is the simulator's to check."""
    if text is None or not MACHINE_SYNTAX.fullmatch(text):
        raise UsageError(f"malformed {option} '{text}' (valid: a preset name, see `locklab sim --list-presets`, "
                         "or [PRESET,]KEY=VALUE,... e.g. sockets=2,cores=18,smt=2)")
    return text


def split_locks(text):
    """'mcs,backoff:min=8,max=1024,pthread' -> ['mcs', 'backoff:min=8,max=1024', 'pthread']:
    a piece with '=' but no ':' continues the previous spec's KEY=VALUE list."""
    specs = []
    for piece in text.split(","):
        if specs and "=" in piece and ":" not in piece and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def _unique_list(option, items):
    if any(not i for i in items):
        raise UsageError(f"empty item in {option} '{','.join(items)}' (valid: a comma-separated list)")
    dup = sorted({i for i in items if items.count(i) > 1})
    if dup:
        raise UsageError(f"{option} lists {dup[0]} twice")
    return items


def parse_threads(text):
    out = []
    for t in text.split(","):
        if not t.strip().isascii() or not t.strip().isdigit() or not 1 <= int(t) <= MAX_THREADS:
            raise UsageError(f"bad thread count '{t}' in --threads '{text}' (valid: integers in 1..{MAX_THREADS})")
        out.append(int(t))
    dup = sorted({t for t in out if out.count(t) > 1})
    if dup:
        raise UsageError(f"--threads lists {dup[0]} twice")
    return out


def parse_number(option, text, kind, lo, hi):
    try:
        x = kind(text)
    except ValueError:
        x = None
    if x is None or not lo <= x <= hi:
        raise UsageError(f"bad value '{text}' for {option} (valid: {'an integer' if kind is int else 'a number'} "
                         f"in {lo}..{hi})")
    return x


def parse_params(given, selected, declared):
    """--param [WORKLOAD.]KEY=VALUE -> {workload: {key: value}} for the selected workloads.
    declared: {workload: [keys]}, or None when unknown (the simulator then checks the keys)."""
    params = {w: {} for w in selected}
    for item in given:
        lhs, eq, value = item.partition("=")
        if not eq or not lhs or not value:
            raise UsageError(f"malformed --param '{item}' (valid: [WORKLOAD.]KEY=VALUE)")
        scope, dot, key = lhs.rpartition(".")
        targets = [scope] if dot else selected
        if dot and scope not in selected:
            raise UsageError(f"--param '{item}' names workload '{scope}', not in this sweep "
                             f"(valid: {', '.join(selected)})")
        for w in targets:
            if declared is not None and key not in declared[w]:
                valid = ", ".join(declared[w]) or "none"
                raise UsageError(f"{w} has no parameter '{key}' (valid: {valid}); "
                                 f"use WORKLOAD.KEY=VALUE for one workload only")
            if key in params[w]:
                raise UsageError(f"--param gives {w}'s {key} twice ({key}={params[w][key]}, then '{item}')")
            params[w][key] = value
    return params


def validate(args):
    """Check every argument up front; returns (bench or simulator path, configuration dict)."""
    runs = parse_number("--runs", args.runs, int, 1, 1000)
    duration = parse_number("--duration", args.duration, float, 0.001, 3600)
    threads = parse_threads(args.threads)
    wls = _unique_list("--workloads", args.workloads.split(","))
    specs = _unique_list("--locks", split_locks(args.locks))
    if args.sim is not None:
        return validate_sim(args, runs, duration, threads, wls, specs)
    if args.sim_bin:
        raise UsageError("--sim-bin is for simulated sweeps (valid: with --sim MACHINE)")
    exe = bench.locate(args.bench)
    declared = bench.workloads(exe)
    for w in wls:
        if w not in declared:
            raise UsageError(f"unknown workload '{w}' (valid: {', '.join(declared)})")
    names = bench.lock_names(exe)
    for s in specs:
        if s.split(":")[0] not in names:
            raise UsageError(f"unknown lock '{s.split(':')[0]}' (valid: {', '.join(names)})")
    params = parse_params(args.param, wls, declared)
    for w in wls:
        bench.check(exe, w, specs, params[w], threads)
    # LOCKLAB_TOPOLOGY (the bench reads it) is part of what is measured: a resume under another one is refused
    config = {"workloads": wls, "locks": specs, "threads": threads, "runs": runs, "duration": duration,
              "params": params, "topology": os.environ.get("LOCKLAB_TOPOLOGY"), "sim": None}
    return exe, config


def validate_sim(args, runs, duration, threads, wls, specs):
    """validate() for --sim: the simulator checks workloads, locks, parameters and
    the machine itself (short simulated runs; its one-line message is passed on)."""
    machine = parse_machine("--sim", args.sim)
    if args.bench:
        raise UsageError("--bench is for measured sweeps; a simulated sweep runs locklab-sim (valid: --sim-bin PATH)")
    exe = bench.locate_sim(args.sim_bin)
    try:
        declared = bench.workloads(exe)  # optional in the simulator's interface
    except UsageError:
        declared = None
    if declared is not None:
        for w in wls:
            if w not in declared:
                raise UsageError(f"unknown workload '{w}' for locklab-sim (valid: {', '.join(declared)})")
    params = parse_params(args.param, wls, declared)
    model = None
    for w in wls:
        model = bench.check_sim(exe, w, specs, params[w], threads, machine) or model
    config = {"workloads": wls, "locks": specs, "threads": threads, "runs": runs, "duration": duration,
              "params": params, "topology": None, "sim": machine}
    return exe, dict(config, machine_model=model)


class Run(NamedTuple):
    """One bench invocation of the sweep."""
    run: int
    workload: str
    threads: int
    spec: str
    params: str  # schema.format_params of the workload's parameters

    @property
    def key(self):
        """The same tuple as schema.run_key of its CSV row."""
        return tuple(getattr(self, c) for c in schema.KEY_COLUMNS)


def plan(config):
    """Every run of the sweep, in execution order."""
    return [Run(r, w, t, s, schema.format_params(config["params"][w]))
            for r, w, t, s in interleave(config["runs"], config["workloads"], config["threads"], config["locks"])]


def _differences(old, new):
    return [f"{k}: {json.dumps(old.get(k))} there, {json.dumps(new[k])} here" for k in new if old.get(k) != new[k]]


def open_out_dir(out, exe, config, machine_model=None):
    """Create DIR (recording meta.json) or check that it holds this same sweep;
    returns the keys of the runs already done.  machine_model: the simulator's
    parsed machine, for a simulated sweep."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot create --out '{out}': {e.strerror}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write into --out '{out}': the directory is not writable (valid: a directory you may "
                         "write, created if missing)")
    meta_path, csv_path = out / "meta.json", out / "results.csv"
    if meta_path.exists():
        try:
            recorded = json.loads(meta_path.read_text())
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
            raise UsageError(f"{meta_path} is unreadable ({e}); use another --out") from None
        if not isinstance(recorded, dict):
            raise UsageError(f"{meta_path} is not a JSON object (not a sweep's meta.json); use another --out")
        diff = _differences(recorded.get("config", {}), config)
        if diff:
            raise UsageError(f"{out} holds a different sweep ({'; '.join(diff)}); use another --out")
        recorded.setdefault("resumed", []).append({"date": meta.now_utc(), "git_revision": meta.git_revision(exe)})
        meta_path.write_text(json.dumps(recorded, indent=2) + "\n")
    elif csv_path.exists():
        raise UsageError(f"{csv_path} exists without meta.json; use another --out")
    else:
        meta_path.write_text(json.dumps(meta.collect(exe, config, machine_model), indent=2) + "\n")
    if not csv_path.exists():
        return set()
    try:
        rows = schema.read_results(csv_path)
    except schema.SchemaError as e:
        raise UsageError(str(e)) from None
    planned = {item.key for item in plan(config)}
    done = {schema.run_key(row) for row in rows}
    stray = done - planned
    if stray:
        raise UsageError(f"{csv_path} holds runs outside this sweep (e.g. {sorted(stray)[0]}); use another --out")
    return done


def run(args):
    if not args.out.strip():
        raise UsageError("empty --out (valid: a directory path; '.' for the current directory)")
    exe, config = validate(args)
    return execute(exe, config, Path(args.out))


def seed_of(run_index):
    """The simulator's seed for run R of a simulated sweep: R (runs differ, a rerun reproduces them)."""
    return run_index


def _argv(exe, config, item):
    r, w, t, s, _ = item
    extra = ["--machine", config["sim"], "--seed", str(seed_of(r))] if config.get("sim") else []
    return bench.command(exe, w, s, t, config["duration"], config["params"][w], extra)


def _row(exe, config, item, obj):
    """The typed CSV row of one run's JSON object (raises BenchFailed or SchemaError)."""
    r, _, _, s, ptext = item
    if config.get("sim"):
        if obj.get("simulated") is not True:
            raise bench.BenchFailed(f"'{exe}' did not report \"simulated\": true (is it locklab-sim?)")
        obj.pop("machine", None)  # the same for every run: meta.json holds it
    return schema.row_from_bench(obj, r, s, ptext)


def measure(exe, config, item):
    """One run of the sweep: its typed CSV row (raises BenchFailed or SchemaError)."""
    return _row(exe, config, item, bench.run_once(_argv(exe, config, item)))


def _results(exe, config, todo):
    """(item, row or the BenchFailed/SchemaError it raised) for every item of todo, in order."""
    jobs = min(len(os.sched_getaffinity(0)), len(todo)) if config.get("sim") else 1
    if jobs <= 1:
        for item in todo:
            try:
                yield item, measure(exe, config, item)
            except (bench.BenchFailed, schema.SchemaError) as e:
                yield item, e
        return
    yield from _simulate_in_parallel(exe, config, todo, jobs)


def _simulate_in_parallel(exe, config, todo, jobs):
    """_results for a simulated sweep: up to `jobs` simulations at once (each is a function
    of its seed, whatever the host's load), results handed on in plan order as soon as
    every earlier one is in.  After a failure no new run starts; when the caller stops
    (a failure reached in order, an interrupt), the simulations still running are killed."""
    running, finished = {}, {}  # index -> (process, stdout file, stderr file); index -> row or error
    started = handed = 0
    failed = False
    try:
        while handed < len(todo):
            while not failed and started < len(todo) and len(running) < jobs:
                out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
                proc = subprocess.Popen(_argv(exe, config, todo[started]), stdout=out, stderr=err, text=True)
                running[started] = (proc, out, err)
                started += 1
            for i, (proc, out, err) in list(running.items()):
                if proc.poll() is None:
                    continue
                del running[i]
                out.seek(0), err.seek(0)
                try:
                    finished[i] = _row(exe, config, todo[i], bench.parse_output(proc.returncode, out.read(), err.read()))
                except (bench.BenchFailed, schema.SchemaError) as e:
                    finished[i], failed = e, True
                out.close(), err.close()
            while handed in finished:
                yield todo[handed], finished.pop(handed)
                handed += 1
            if handed < len(todo) and handed not in finished:
                time.sleep(0.02)
    finally:
        for proc, out, err in running.values():
            proc.kill()
            proc.wait()
            out.close(), err.close()


def execute(exe, config, out, quiet=False):
    """Run the sweep `config` into `out` (resuming); returns the exit status.
    config["machine_model"], when present, goes to meta.json only."""
    config = dict(config)
    machine_model = config.pop("machine_model", None)
    tool = "locklab-sim" if config.get("sim") else "locklab-bench"
    try:
        done = open_out_dir(out, exe, config, machine_model)
        writer = schema.ResultsWriter(out / "results.csv")
    except OSError as e:
        raise UsageError(f"cannot write into --out '{out}': {e.filename}: {e.strerror}") from None
    runs = plan(config)
    todo = [item for item in runs if item.key not in done]
    total = len(runs)
    if done:
        print(f"resuming {out}: {len(done)} of {total} runs already done", file=sys.stderr)
    finished = 0
    try:
        with tqdm(total=len(todo), unit="run", file=sys.stderr, dynamic_ncols=True, disable=None,
                  bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}] {postfix}") as bar, \
                contextlib.closing(_results(exe, config, todo)) as results:  # closing: stops what still runs
            for item, row in results:
                r, w, t, s, _ = item
                bar.set_postfix_str(f"{w} {s} {t}T run {r}")
                if isinstance(row, Exception):
                    e = row
                    raise bench.BenchFailed(f"{tool} failed on {w} --lock {s} --threads {t} (run {r}): {e}; "
                                            f"{len(done) + finished} of {total} runs are in {out / 'results.csv'}, "
                                            "rerun the same command to resume") from None
                writer.append(row)
                finished += 1
                bar.update(1)
    except KeyboardInterrupt:
        print(f"locklab sweep: interrupted; {len(done) + finished} of {total} runs are in "
              f"{out / 'results.csv'}, rerun the same command to resume", file=sys.stderr)
        return 130
    finally:
        writer.close()
    if not quiet:
        print(f"{out / 'results.csv'}: {total} runs ({finished} new); next: locklab report {out}")
    return 0
