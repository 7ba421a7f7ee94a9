"""`locklab model MODEL [--param KEY=VALUE ...] [--cores/--threads RANGE] [--json] [--plot F]`:
analytic models of lock throughput (docs/models.md): the ticket-lock Markov
model and its queue-lock counterpart, Anderson et al.'s E(r,q) and their
spin-waiting model, FIFO handover under oversubscription; `model calibrate`
measures their parameters here, `model validate` plots them against
measurements.

Parameters a calibration file provides (`model calibrate`, default
~/.cache/locklab/calibration.json) are taken from it unless given with
--param; the others have the defaults of PARAMS below.  The output names the
source of every value."""

import json
import math
import os
import sys
from dataclasses import dataclass

from . import model_machine as mmach
from . import model_math as mm
from .errors import UsageError
from .formatting import fmt_rate

COMMAND = "model"
HELP = "analytic lock models: ticket, queue, erq, spinwait, handover, machine, spinwait-machine; calibrate, validate"
MAX_RANGE = 4096


@dataclass(frozen=True)
class Param:
    default: float
    lo: float
    hi: float
    unit: str
    help: str
    calib: str = None      # the calibration file's key, when calibration measures it
    integer: bool = False


def default_cpus():
    return len(os.sched_getaffinity(0))


def default_slice_ns(cpus=None):
    """Linux's EEVDF base slice (kernel >= 6.6): 0.75 ms x (1 + log2(min(cpus, 8)))."""
    cpus = cpus or default_cpus()
    return 750000.0 * (1 + math.floor(math.log2(min(cpus, 8))))


S = Param(50, 0, 1e9, "ns", "critical section length (serial section)", "cs_ns")
Z = Param(500, 0, 1e10, "ns", "mean time outside the critical section (exponential)", "ncs_ns")
Z_UNIFORM = Param(500, 0, 1e10, "ns", "mean time outside the critical section (uniform on [0, 2z], as MutexBench)",
                  "ncs_ns")
C = Param(100, 0.1, 1e7, "ns", "time to answer one request for a cache line (transfer)", "c_ns")
H = Param(200, 0, 1e8, "ns", "handover to a running spinner (line transfers)", "h_ns")
W_IDLE = Param(20000, 0, 1e9, "ns", "futex wake-up latency of a thread on an idle CPU", "wake_idle_ns")
W_SWITCH = Param(3000, 0, 1e9, "ns", "wake-up latency when the wakee preempts a running thread", "wake_switch_ns")
Q = Param(None, 1000, 1e10, "ns", "scheduler time slice (default: the kernel's EEVDF base slice)", "slice_ns")
B = Param(None, 0, 1e10, "ns", "spin budget before parking (default: w_idle, as stp)", "wake_idle_ns")
P = Param(None, 1, 4096, "CPUs", "CPUs the threads run on (default: sched_getaffinity)", "cpus", True)
M = Param(2, 0, 1e6, "transactions", "bus transactions of the holder per critical section")
PREWAKE = Param(1, 0, 1, "0/1", "a handover also wakes the successor's successor (mcs-stp)", None, True)
DATA = Param(2, 0, 1000, "lines", "protected cache lines the critical section writes (MutexBench: 2)", None, True)
# glibc's parks when oversubscribed.  Defaults derived from the stored quiet measurement of 2026-11-24
# (results/sim-validate-this, pthread MutexBench at 8 threads on 2 CPUs, median of 3 x 1 s: 3.38 M ops/s,
# 0.0286 parks per acquisition) as `locklab model calibrate` derives them (docs/models.md, "Calibration").
PARK_RATE = Param(0.0381, 0, 1, "parks/op", "glibc waiters' park rate per acquisition, saturated (x (n-p)/n)",
                  "park_rate")
PARK_CPU = Param(7700, 0, 1e9, "ns", "CPU time of one park and its wake-up (futex calls, switches, IPI)",
                 "park_cpu_ns")

MODELS = {
    "ticket": {"s": S, "c": C, "z": Z},
    "queue": {"s": S, "c": C, "z": Z},
    "erq": {"q": Param(18, 1, 512, "queues", "processors, one ready queue each (Figure 3.5: 18)", None, True)},
    "spinwait": {"s": S, "z": Z, "c": C, "m": M},
    "handover": {"p": P, "s": S, "z": Z, "h": H, "w_idle": W_IDLE, "w_switch": W_SWITCH, "q": Q, "b": B,
                 "prewake": PREWAKE},
    "machine": {"p": P, "s": S, "z": Z_UNIFORM, "h": H, "d": DATA, "w_idle": W_IDLE, "w_switch": W_SWITCH, "q": Q,
                "b": B, "prewake": PREWAKE, "park_rate": PARK_RATE, "park_cpu": PARK_CPU,
                "duration": Param(1, 0.001, 1e6, "s", "length of the measured run (its first slice runs alone)")},
    "spinwait-machine": {"s": S,
                         "z": Param(500, 0, 1e10, "ns", "mean time outside the critical section (xchg, read: "
                                    "exponential, the paper's model; queue, backoff: uniform on [0, 2z])", "ncs_ns"),
                         "c": C, "h": H,
                         "d": Param(1, 0, 1000, "lines", "protected cache lines the critical section writes "
                                    "(thread-counter: 1)", None, True),
                         "backoff": Param(10000, 0, 1e10, "ns", "mean time a backed-off waiter stays away"),
                         "m": M},
}
AXIS = {"ticket": "cores", "queue": "cores", "spinwait": "cores", "erq": "threads", "handover": "threads",
        "machine": "threads", "spinwait-machine": "cores"}
DEFAULT_AXIS = {"ticket": "1-64", "queue": "1-64", "spinwait": "1-32", "erq": "1-36",
                "handover": "1,2,3,4,8,16,32,64", "machine": "1,2,3,4,8,16,32,64", "spinwait-machine": "1-32"}


def register(p):
    """Fills the parser that cli.build_parser made from COMMAND, HELP and the docstring."""
    from . import model_calib, model_validate
    sub = p.add_subparsers(dest="model", metavar="MODEL", parser_class=type(p))
    sub.required = True
    for name, params in MODELS.items():
        listing = ", ".join(f"{k} ({v.unit}): {v.help}" for k, v in params.items())
        m = sub.add_parser(name, help=f"the {name} model (docs/models.md)",
                           description=f"The {name} model.  Parameters: {listing}.")
        m.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                       help=f"set parameters, comma-separated or repeated (valid: {', '.join(params)})")
        m.add_argument(f"--{AXIS[name]}", dest="axis", default=DEFAULT_AXIS[name], metavar="RANGE",
                       help=f"{AXIS[name]}: A-B and/or a comma-separated list (default {DEFAULT_AXIS[name]})")
        m.add_argument("--calibration", metavar="FILE",
                       help=f"calibration file (default {model_calib.default_path()}, if present)")
        m.add_argument("--json", action="store_true", help="one JSON object on stdout")
        m.add_argument("--plot", metavar="FILE", help="also write the curve(s) to FILE (PNG)")
        m.set_defaults(func=run)
    model_calib.register(sub.add_parser("calibrate", help=model_calib.HELP, description=model_calib.__doc__))
    model_validate.register(sub.add_parser("validate", help=model_validate.HELP,
                                           description=model_validate.__doc__.split("\n\n")[0]))


# ---------------------------------------------------------------- input

def parse_range(option, text):
    """'1-64', '1,2,4', '1-8,16' -> sorted unique ints in 1..MAX_RANGE."""
    out = set()
    for piece in text.split(","):
        a, dash, b = piece.strip().partition("-")
        try:
            lo = int(a)
            hi = int(b) if dash else lo
        except ValueError:
            lo = hi = None
        if lo is None or not 1 <= lo <= hi <= MAX_RANGE:
            raise UsageError(f"bad range '{piece}' in {option} '{text}' (valid: A-B or N with 1 <= A <= B <= "
                             f"{MAX_RANGE}, comma-separated)")
        out.update(range(lo, hi + 1))
    return sorted(out)


def parse_params(model, given):
    """--param KEY=VALUE[,KEY=VALUE] items -> {key: float}, each checked against PARAMS."""
    declared = MODELS[model]
    out = {}
    for item in (piece for g in given for piece in g.split(",")):
        key, eq, text = item.partition("=")
        if not eq or not key or not text:
            raise UsageError(f"malformed --param '{item}' (valid: KEY=VALUE with KEY one of {', '.join(declared)})")
        if key not in declared:
            raise UsageError(f"model {model} has no parameter '{key}' (valid: {', '.join(declared)})")
        if key in out:
            raise UsageError(f"--param gives {key} twice ({key}={out[key]:g}, then '{item}')")
        spec = declared[key]
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        ok = math.isfinite(value) and spec.lo <= value <= spec.hi and (not spec.integer or value.is_integer())
        if not ok:
            kind = "an integer" if spec.integer else "a number"
            raise UsageError(f"bad value '{text}' for {model} parameter {key} (valid: {kind} in "
                             f"{spec.lo:g}..{spec.hi:g} {spec.unit})")
        out[key] = value
    return out


def resolve(model, given, calibration):
    """(values, sources): given > calibration > default, for every parameter."""
    values, sources = {}, {}
    for key, spec in MODELS[model].items():
        if key in given:
            values[key], sources[key] = given[key], "given"
        elif spec.calib and calibration and spec.calib in calibration["params"]:
            values[key], sources[key] = float(calibration["params"][spec.calib]), "calibration"
        elif spec.default is not None:
            values[key], sources[key] = float(spec.default), "default"
        else:
            values[key], sources[key] = None, "default"
    if model in ("handover", "machine"):
        if values["p"] is None:
            values["p"] = float(default_cpus())
        if values["q"] is None:
            values["q"] = default_slice_ns(int(values["p"]))
        if values["b"] is None:
            values["b"] = values["w_idle"]
    return values, sources


# ---------------------------------------------------------------- evaluation

def evaluate(model, v, axis):
    """Rows (one per axis value) and a summary for `model` with parameter values v."""
    if model in ("ticket", "queue"):
        rows = mm.lock_curve(model, v["s"], v["c"], v["z"], axis)
        peak = mm.collapse_point(model, v["s"], v["c"], v["z"], max_cores=max(axis))
        return rows, {"collapse_point": peak,
                      "service_ns_formula": "s + c*k/2" if model == "ticket" else "s + c"}
    if model == "erq":
        q = int(v["q"])
        rows = [{"threads": t, "queues_examined": mm.erq_runnable(t, q)} for t in axis]
        return rows, {"E(1,q)": mm.erq(1, q)}
    if model == "spinwait":
        rows = []
        for n in axis:
            row = {"cores": n}
            for proto in mm.SPIN_PROTOCOLS:
                r = mm.spinwait(proto, n, v["s"], v["z"], v["c"], v["m"])
                row[f"{proto}_ops_s"] = r["throughput_ops_s"]
                row[f"{proto}_spinning"] = r["spinning"]
            rows.append(row)
        return rows, {}
    if model == "spinwait-machine":
        def rate(proto, n):
            return mmach.spinwait_machine(proto, n, v["s"], v["z"], v["c"], v["h"], v["d"], v["backoff"],
                                          v["m"])["throughput_ops_s"]
        rows = [{"cores": n, **{f"{proto}_ops_s": rate(proto, n) for proto in mm.SPIN_PROTOCOLS}} for n in axis]
        return rows, {"handover_ns": mmach.contended_handover_ns(v["h"], v["d"])}
    if model == "machine":
        return machine_rows(v, axis), {"transfer_ns": mmach.transfer_ns(v["h"]),
                                       "handover_ns": mmach.contended_handover_ns(v["h"], v["d"])}
    rows = []
    p = int(v["p"])
    for n in axis:
        res = mm.handover(p, n, v["s"], v["z"], v["h"], v["w_idle"], v["w_switch"], v["q"], v["b"],
                          bool(v["prewake"]))
        row = {"threads": n, "threads_per_cpu": n / p}
        for pol, r in res.items():
            row[f"{pol}_handover_ns"] = r["handover_ns"]
            row[f"{pol}_p_not_running"] = r["p_not_running"]
            row[f"{pol}_ops_s"] = r["throughput_ops_s"]
        row["park-fifo_cpu_bound"] = res["park-fifo"]["cpu_bound"]
        row["park-fifo_vs_barging"] = res["park-fifo"]["throughput_ops_s"] / res["barging"]["throughput_ops_s"]
        row["spin-fifo_vs_barging"] = res["spin-fifo"]["throughput_ops_s"] / res["barging"]["throughput_ops_s"]
        rows.append(row)
    return rows, {}


def machine_rows(v, axis):
    rows = []
    p = int(v["p"])
    for n in axis:
        res = mmach.machine(p, n, v["s"], v["z"], v["h"], v["d"], v["w_idle"], v["w_switch"], v["q"], v["b"],
                            bool(v["prewake"]), v["duration"], v["park_rate"], v["park_cpu"])
        fifo = res["fifo"]
        rows.append({"threads": n, "threads_per_cpu": n / p,
                     "fifo_p_not_running": fifo["p_not_running"], "fifo_handover_ns": fifo["handover_ns"],
                     "fifo_steady_ops_s": fifo["steady_ops_s"],
                     **{f"{pol}_ops_s": r["throughput_ops_s"] for pol, r in res.items()}})
    return rows


# ---------------------------------------------------------------- output

def _cell(x):
    if x is None:
        return "-"
    if isinstance(x, int):
        return str(x)
    if abs(x) >= 1000:
        return fmt_rate(x)
    return f"{x:.3g}"


# The text table of the handover model: (heading, row key); --json has every key.
HANDOVER_TEXT = [("threads", "threads"), ("per_cpu", "threads_per_cpu"),
                 ("spinfifo_P_nr", "spin-fifo_p_not_running"), ("spinfifo_H_ns", "spin-fifo_handover_ns"),
                 ("spinfifo_ops_s", "spin-fifo_ops_s"), ("parkfifo_P_nr", "park-fifo_p_not_running"),
                 ("parkfifo_H_ns", "park-fifo_handover_ns"), ("parkfifo_ops_s", "park-fifo_ops_s"),
                 ("barging_ops_s", "barging_ops_s"), ("spinbarging_ops_s", "spin-barging_ops_s"),
                 ("parkfifo/barging", "park-fifo_vs_barging")]
MACHINE_TEXT = [("threads", "threads"), ("fifo_P_nr", "fifo_p_not_running"), ("fifo_H_ns", "fifo_handover_ns"),
                ("fifo_steady_ops_s", "fifo_steady_ops_s"), ("fifo_run_ops_s", "fifo_ops_s"),
                ("parkfifo_ops_s", "park-fifo_ops_s"), ("barging_ops_s", "barging_ops_s"),
                ("spinbarging_ops_s", "spin-barging_ops_s")]
TEXT = {"handover": HANDOVER_TEXT, "machine": MACHINE_TEXT}


def print_table(rows, columns=None, out=sys.stdout):
    """rows as aligned columns; columns = [(heading, key)] (default: every key)."""
    columns = columns or [(k, k) for k in rows[0]]
    keys = [k for _, k in columns]
    cells = [[_cell(r[k]) for k in keys] for r in rows]
    widths = [max(len(head), *(len(c[i]) for c in cells)) for i, (head, _) in enumerate(columns)]
    print("  ".join(head.rjust(w) for (head, _), w in zip(columns, widths)), file=out)
    for c in cells:
        print("  ".join(x.rjust(w) for x, w in zip(c, widths)), file=out)


def plot(model, rows, values, path):
    from . import model_plot
    model_plot.model_figure(model, rows, values, path)


def run(args):
    from . import model_calib
    axis = parse_range(f"--{AXIS[args.model]}", args.axis)
    given = parse_params(args.model, args.param)
    calibration, calib_path = model_calib.load(args.calibration)
    values, sources = resolve(args.model, given, calibration)
    rows, summary = evaluate(args.model, values, axis)
    if args.plot:
        plot(args.model, rows, values, args.plot)
    if args.json:
        print(json.dumps({"model": args.model, "params": values, "sources": sources,
                          "calibration": str(calib_path) if calibration else None,
                          "summary": summary, "rows": rows}))
        return 0
    where = f"calibration {calib_path}" if calibration else "no calibration file: defaults"
    print(f"model {args.model} ({where})")
    for k in MODELS[args.model]:
        spec = MODELS[args.model][k]
        print(f"  {k} = {values[k]:g} {spec.unit}  [{sources[k]}]  {spec.help}")
    for k, x in summary.items():
        print(f"  {k}: {x}")
    print_table(rows, TEXT.get(args.model))
    if args.plot:
        print(f"plot: {args.plot}")
    return 0
