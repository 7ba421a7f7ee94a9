"""`locklab advise -- CMD ARGS`: which lock should this program use?  Runs the
command under a set of candidate locks (and under plain glibc) several
times each, interleaved so that machine noise hits every candidate alike,
ranks them by wall time -- or by a number parsed from the program's output
with --metric REGEX -- and prints a table with medians, spread, the ratio to
glibc and a recommendation that is only made when the spreads do not overlap."""

import re
import subprocess
import sys
import time

from . import preload
from .sweep import split_locks
from .errors import UsageError
from .tabulate import Spread, interleave

DEFAULT_CANDIDATES = "glibc,mcs-stp,twa-stp,mcscr-stp,lifocr-stp,loiter,cna-stp"


COMMAND = "advise"
HELP = "rank candidate locks for a program by its wall time or a metric"


def register(p):
    """Fills the parser that cli.build_parser made from COMMAND, HELP and the docstring."""
    p.add_argument("--locks", default=DEFAULT_CANDIDATES,
                   help=f"comma-separated candidates; 'glibc' = no interposer (default: {DEFAULT_CANDIDATES})")
    p.add_argument("--runs", default="3", help="runs per candidate (default 3)")
    p.add_argument("--metric", metavar="REGEX", help="rank by the number REGEX's first group matches in the "
                   "program's stdout+stderr (last match) instead of wall time")
    p.add_argument("--higher-is-better", action="store_true", help="with --metric: bigger numbers win "
                   "(e.g. ops/s); default: smaller wins (e.g. seconds)")
    p.add_argument("--timeout", default="600", help="seconds before a run is killed and counted as failed")
    preload.add_common_arguments(p)
    p.set_defaults(func=run)


def _positive(option, text, kind, hi):
    try:
        x = kind(text)
    except ValueError:
        x = None
    if x is None or not 0 < x <= hi:
        lo = "1" if kind is int else "more than 0"
        raise UsageError(f"bad value '{text}' for {option} (valid: a {'whole ' if kind is int else ''}number "
                         f"from {lo} to {hi})")
    return x


def measure(cmd, env, metric, timeout):
    """One run: (value, None) or (None, reason)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:g} s"
    except OSError as e:
        raise UsageError(f"cannot run '{cmd[0]}': {e.strerror}") from None
    wall = time.monotonic() - t0
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["no message"])[-1]
        return None, f"exit {p.returncode}: {last}"
    if metric is None:
        return wall, None
    found = metric.findall(p.stdout + "\n" + p.stderr)
    if not found:
        return None, f"--metric '{metric.pattern}' matched nothing in the output"
    text = found[-1] if isinstance(found[-1], str) else found[-1][0]
    try:
        return float(text), None
    except ValueError:
        return None, f"--metric matched '{text}', not a number"


def rank(samples, higher_is_better):
    """[(lock, Spread)] best median first; samples maps lock -> list of values."""
    rows = [(lock, Spread(v)) for lock, v in samples.items() if v]
    return sorted(rows, key=lambda r: -r[1].median if higher_is_better else r[1].median)


def recommendation(rows, higher_is_better, failures=None):
    """A sentence: the winner if its spread clears the runner-up's, else a statement of the tie.
    A candidate under which the program failed any run (failures: lock -> reasons) is never
    recommended, however good its other runs were; the sentence names it."""
    if not rows:
        return "no candidate completed a run"
    failed = [r[0] for r in rows if failures and failures.get(r[0])]
    excluded = f" ({', '.join(failed)} excluded: the program failed under it in some runs)" if failed else ""
    rows = [r for r in rows if r[0] not in failed]
    if not rows:
        return "every candidate had failed runs: no recommendation" + excluded
    best = rows[0]
    if len(rows) == 1:
        return f"only {best[0]} completed all its runs{excluded}"
    second = rows[1]
    b, s = best[1], second[1]
    clear = b.min > s.max if higher_is_better else b.max < s.min
    glibc = next((r for r in rows if r[0] == preload.NATIVE), None)
    vs = ""
    if glibc and glibc is not best and glibc[1].median:
        ratio = b.median / glibc[1].median if higher_is_better else glibc[1].median / b.median
        vs = f" ({ratio:.2f}x better than glibc by median)"
    if clear:
        return f"use {best[0]}{vs}: its worst run beats the best run of the runner-up, {second[0]}{excluded}"
    return (f"{best[0]} has the best median{vs}, but its spread overlaps {second[0]}'s: no clear winner; "
            f"use more --runs or a longer workload{excluded}")


def run(args):
    cmd = preload.command_of(args)
    runs = _positive("--runs", args.runs, int, 100)
    timeout = _positive("--timeout", args.timeout, float, 86400)
    candidates = split_locks(args.locks)
    if any(not c for c in candidates) or len(set(candidates)) != len(candidates):
        raise UsageError(f"bad --locks '{args.locks}' (valid: a comma-separated list of distinct lock specs)")
    try:
        metric = re.compile(args.metric) if args.metric else None
    except re.error as e:
        raise UsageError(f"bad --metric '{args.metric}' ({e})") from None
    if args.higher_is_better and not metric:
        raise UsageError("--higher-is-better needs --metric (wall time is always lower-is-better)")
    lib = preload.locate(args.preload) if any(c != preload.NATIVE for c in candidates) else None
    if lib:
        preload.require_dynamic(cmd[0])
    envs = {c: preload.environment(lib, c, args.cond, args.sem, None, args.topology) for c in candidates}
    for env in envs.values():
        preload.check(env)
    samples = {c: [] for c in candidates}
    failures = {c: [] for c in candidates}
    unit = "value" if metric else "wall s"
    for r, c in interleave(runs, candidates):
        value, why = measure(cmd, envs[c], metric, timeout)
        (samples[c] if why is None else failures[c]).append(value if why is None else why)
        print(f"run {r}/{runs} {c}: " + (f"{value:.4g} {unit}" if why is None else f"FAILED ({why})"),
              file=sys.stderr)
    higher = bool(metric) and args.higher_is_better
    rows = rank(samples, higher)
    glibc = Spread(samples.get(preload.NATIVE, []))
    base = glibc.median if glibc else None
    print(f"{'rank':>4}  {'lock':<28} {'median':>10} {'spread':>23} {'vs glibc':>9} {'failed':>6}")
    for i, (lock, s) in enumerate(rows, 1):
        ratio = "-" if not base else f"{(s.median / base if higher else base / s.median):.2f}x"
        spread = "[" + s.range("{:.4g}") + "]"
        print(f"{i:>4}  {lock:<28} {s.median:>10.4g} {spread:>23} {ratio:>9} {len(failures[lock]):>6}")
    for lock in candidates:
        if not samples[lock]:
            print(f"   -  {lock:<28} all {runs} runs failed: {failures[lock][0]}")
    print(f"({unit}; {'higher' if higher else 'lower'} is better; vs glibc > 1 means better than glibc)")
    print("recommendation: " + recommendation(rows, higher, failures))
    return 0 if rows else 1
