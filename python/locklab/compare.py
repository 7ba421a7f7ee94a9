"""`locklab compare A B`: the ratio A/B of a metric (default throughput) per
workload and thread count, with its spread, so that "X is 1.3x Y at 16
threads" is one command.

  locklab compare SPEC_A SPEC_B --dir DIR     two locks of one sweep
  locklab compare DIR_A DIR_B [--lock SPEC]   two sweeps, lock by lock (the locks both hold)

ratio = median(A) / median(B) over the runs; per-run ratios pair A's run i with
B's run i (runs were interleaved, so run i of every lock saw the same moment of
the machine) and their min..max is the spread.  For two directories, run i of
one sweep is paired with run i of the other.

Simulated results (`sweep --sim MACHINE`) are labelled "simulated on MACHINE"
in every heading and sentence.  Comparing a simulated directory with a measured
one is refused unless --mixed says it is meant; the labels then say which is which.
"""

import math

from . import meta as metamod
from . import results
from .formatting import fmt_rate
from .tabulate import Spread
from .errors import UsageError


COMMAND = "compare"
HELP = "ratio of two locks (or two result sets), with spread"


def register(p):
    """Fills the parser that cli.build_parser made from COMMAND, HELP and the docstring."""
    p.add_argument("a", metavar="A", help="lock spec (with --dir) or result directory")
    p.add_argument("b", metavar="B", help="lock spec (with --dir) or result directory")
    p.add_argument("--dir", metavar="DIR", help="result directory holding both lock specs A and B")
    p.add_argument("--at-threads", type=int, metavar="N", help="only this thread count")
    p.add_argument("--workload", metavar="W", help="only this workload")
    p.add_argument("--lock", metavar="SPEC", help="two-directory mode: only this lock spec")
    p.add_argument("--metric", default="throughput_ops_s", choices=sorted(results.METRICS),
                   help="what to compare (default: throughput_ops_s)")
    p.add_argument("--mixed", action="store_true", help="two-directory mode: allow comparing simulated results "
                   "with measured ones (each side is labelled)")
    p.set_defaults(func=run)


class Ratio:
    """A/B for one (workload, threads): ratio of medians, per-run ratios (paired by run index)."""

    def __init__(self, a_runs, b_runs, metric):
        value = results.METRICS[metric]
        a = {i: value(r) for i, r in a_runs.items()}
        b = {i: value(r) for i, r in b_runs.items()}
        self.a = Spread(a.values())
        self.b = Spread(b.values())
        self.ratio = _div(self.a.median, self.b.median)
        per_run = [_div(a[i], b[i]) for i in sorted(a.keys() & b.keys())]
        per_run = [x for x in per_run if not math.isnan(x)]
        self.paired = len(per_run)
        self.lo = min(per_run) if per_run else math.nan
        self.hi = max(per_run) if per_run else math.nan


def _div(x, y):
    if x is None or y is None or math.isnan(x) or math.isnan(y):
        return math.nan
    if y == 0:
        return math.inf if x > 0 else math.nan
    return x / y


def _labelled(label, d):
    """label, with "(simulated on MACHINE)" for simulated results."""
    sim = metamod.simulated_machine(d.meta)
    return f"{label} (simulated on {sim})" if sim else label


def pairs(args):
    """[(label A, label B, ResultDir A, spec A, ResultDir B, spec B)] from the arguments."""
    if args.mixed and args.dir:
        raise UsageError("--mixed is for comparing two result directories; with --dir, A and B share one")
    if args.dir:
        if args.lock:
            raise UsageError("--lock is for comparing two result directories; with --dir, A and B are the locks")
        d = results.ResultDir(args.dir)
        for spec in (args.a, args.b):
            if spec not in d.specs():
                raise UsageError(f"lock '{spec}' is not in {args.dir} (valid: {', '.join(d.specs())})")
        return [(_labelled(args.a, d), _labelled(args.b, d), d, args.a, d, args.b)]
    try:
        da, db = results.ResultDir(args.a), results.ResultDir(args.b)
    except UsageError as e:
        raise UsageError(f"{e}; to compare two locks of one sweep, pass --dir DIR") from None
    sa, sb = metamod.source_label(da.meta), metamod.source_label(db.meta)
    mixed = (sa == "measured") != (sb == "measured")
    if mixed and not args.mixed:
        raise UsageError(f"{args.a} is {sa} and {args.b} is {sb}; pass --mixed to compare simulated with measured "
                         "results")
    common = [s for s in da.specs() if s in db.specs()]
    if args.lock:
        if args.lock not in common:
            raise UsageError(f"lock '{args.lock}' is not in both directories (valid: {', '.join(common) or 'none'})")
        common = [args.lock]
    if not common:
        raise UsageError(f"{args.a} and {args.b} share no lock spec")
    if mixed:  # say which is which, even on the measured side
        return [(f"{args.a}:{s} ({sa})", f"{args.b}:{s} ({sb})", da, s, db, s) for s in common]
    return [(_labelled(f"{args.a}:{s}", da), _labelled(f"{args.b}:{s}", db), da, s, db, s) for s in common]


def compute(args):
    """[(label A, label B, workload, threads, Ratio)] for every comparable configuration."""
    out = []
    for label_a, label_b, da, sa, db, sb in pairs(args):
        workloads = [w for w in da.workloads() if w in db.workloads()]
        if args.workload:
            if args.workload not in workloads:
                raise UsageError(f"workload '{args.workload}' not measured for both (valid: {', '.join(workloads)})")
            workloads = [args.workload]
        for w in workloads:
            threads = [t for t in da.threads(w) if t in db.threads(w)]
            if args.at_threads is not None:
                if args.at_threads not in threads:
                    raise UsageError(f"--at-threads {args.at_threads} was not measured for {w} "
                                     f"(valid: {', '.join(map(str, threads))})")
                threads = [args.at_threads]
            for t in threads:
                a, b = da.runs(w, sa, t), db.runs(w, sb, t)
                if a and b:
                    out.append((label_a, label_b, w, t, Ratio(a, b, args.metric)))
    if not out:
        raise UsageError("nothing to compare: no workload and thread count measured for both")
    return out


def run(args):
    rows = compute(args)
    current = None
    for label_a, label_b, w, t, r in rows:
        if (label_a, label_b, w) != current:
            current = (label_a, label_b, w)
            print(f"\n{w}: {label_a} / {label_b}, {args.metric}; ratio of medians, "
                  f"[min..max] of per-run ratios (runs paired by index)")
            print(f"{'threads':>7} {'median A':>10} {'median B':>10} {'ratio':>8} {'per-run spread':>18} {'pairs':>5}")
        print(f"{t:>7} {fmt_rate(r.a.median):>10} {fmt_rate(r.b.median):>10} {r.ratio:>7.3f}x "
              f"{'[' + f'{r.lo:.3f}..{r.hi:.3f}' + ']':>18} {r.paired:>5}")
    if len(rows) == 1:
        label_a, label_b, w, t, r = rows[0]
        print(f"\n{label_a} is {r.ratio:.2f}x {label_b} at {t} thread{'s' if t > 1 else ''} on {w} "
              f"({args.metric}; per-run ratios {r.lo:.2f}..{r.hi:.2f} over {r.paired} paired runs)")
    return 0
