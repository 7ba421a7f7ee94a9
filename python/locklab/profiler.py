"""`locklab profile [--lock SPEC] -- CMD ARGS`: run a program under the
interposer with the contention profiler on, then print its per-lock report
as a table (most total wait first).  `locklab profile --show FILE.json`
renders a report written earlier (LOCKLAB_PROFILE=FILE.json).

The report format (version 1) is written by src/interpose/profile_format.c; see
docs/interposer.md for every field."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from . import preload
from .errors import UsageError

SORT_KEYS = {"wait": "wait_total_ns", "contended": "contended", "acquisitions": "acquisitions",
             "hold": "hold_mean_ns"}


COMMAND = "profile"
HELP = "which locks of a program are contended, and how unfair they are"


def register(p):
    """Fills the parser that cli.build_parser made from COMMAND, HELP and the docstring."""
    p.add_argument("--lock", metavar="SPEC", help="lock spec (default: the interposer's default lock)")
    p.add_argument("--show", metavar="FILE", help="render an existing JSON report instead of running a command")
    p.add_argument("--out", metavar="FILE", help="keep the JSON report in FILE (default: a temporary file)")
    p.add_argument("--top", default="20", help="locks to list (default 20; 0 = all)")
    p.add_argument("--sort", default="wait", choices=sorted(SORT_KEYS), help="order of the table (default: wait)")
    preload.add_common_arguments(p)
    p.set_defaults(func=run)


def load(path):
    try:
        report = json.loads(Path(path).read_text())
    except OSError as e:
        raise UsageError(f"cannot read profile '{path}': {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise UsageError(f"'{path}' is not a JSON profile ({e})") from None
    if not isinstance(report, dict) or report.get("format") != "locklab-profile" or report.get("version") != 1:
        raise UsageError(f"'{path}' is not a locklab profile version 1 "
                         f"(format={report.get('format')!r}, version={report.get('version')!r})"
                         if isinstance(report, dict) else f"'{path}' is not a locklab profile (not a JSON object)")
    return report


def render_file(path, top, sort):
    """render(load(path)), with a malformed version-1 report as a one-line UsageError."""
    report = load(path)
    try:
        return render(report, top, sort)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UsageError(f"'{path}' is a malformed locklab profile ({type(e).__name__}: {e})") from None


def _ns(x):
    if x is None:
        return "-"
    for div, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if x >= div:
            return f"{x / div:.1f}{unit}"
    return f"{x:.0f}ns"


def render(report, top=20, sort="wait"):
    """The report as text lines: a header naming the program and machine, then one row per lock."""
    locks = sorted(report["locks"], key=lambda l: l.get(SORT_KEYS[sort]) or 0, reverse=True)
    if top:
        locks = locks[:top]
    lines = [f"{report['program']} (pid {report['pid']}): {report['run_time_s']:.2f} s, {report['cpus']} CPUs, "
             f"glibc {report['glibc']}; lock {report['lock']}, cond {report['cond']}"
             + (f" (morph {report['cond_morph']})" if "cond_morph" in report else "") + f", sem {report['sem']}",
             f"{report['objects']} objects ({report['passthrough_objects']} passed through to glibc), "
             f"{report['acquisitions']} acquisitions, {report['contended']} contended; "
             f"{len(locks)} shown, by {sort}"]
    header = ("#", "kind", "type", "acquired", "cont%", "changes", "wait", "wait_avg", "wait_p99", "wait_p999",
              "wait_max", "hold_avg", "thr", "max/min", "lwss", "mttr", "first use")
    rows = []
    for i, l in enumerate(locks, 1):
        mm = (f"{l['max_thread_share'] / l['min_thread_share']:.1f}" if l.get("min_thread_share") else "-")
        rows.append((str(i), l["kind"], "passthru" if l["passthrough"] else l["type"], str(l["acquisitions"]),
                     f"{l['contended_pct']:.2f}", str(l["owner_changes"]), _ns(l["wait_total_ns"]),
                     _ns(l["wait_mean_ns"]), _ns(l["wait_p99_ns"]),
                     _ns(l["wait_p999_ns"]) if "wait_p999_ns" in l else "-", _ns(l["wait_max_ns"]),
                     _ns(l["hold_mean_ns"]), str(l["threads"]), mm,
                     "-" if l["lwss"] is None else f"{l['lwss']:.1f}", "-" if l["mttr"] is None else str(l["mttr"]),
                     l["first_use"]))
    widths = [max(len(r[c]) for r in rows + [header]) for c in range(len(header))]
    for r in [header] + rows:
        lines.append("  ".join(v.rjust(w) if c not in (1, 2, 16) else v.ljust(w)
                               for c, (v, w) in enumerate(zip(r, widths))).rstrip())
    return lines


def check_out(out):
    """--out names a file the interposer can create (it checks too, but only once the command runs)."""
    if out.is_dir():
        raise UsageError(f"--out '{out}' is a directory (valid: a file path for the JSON report)")
    parent = out.resolve().parent
    if not parent.is_dir():
        raise UsageError(f"cannot write --out '{out}': no directory '{parent}' (valid: a file in an existing directory)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write --out '{out}': directory '{parent}' is not writable")


def parse_top(text):
    if not text.isdigit() or int(text) > 1000000:
        raise UsageError(f"bad value '{text}' for --top (valid: 0 (all) or a count in 1..1000000)")
    return int(text)


def run(args):
    top = parse_top(args.top)
    if args.show:
        if args.command:
            raise UsageError("give either --show FILE or a command, not both")
        print("\n".join(render_file(args.show, top, args.sort)))
        return 0
    cmd = preload.command_of(args)
    lib = preload.locate(args.preload)
    preload.require_dynamic(cmd[0])
    if args.out:
        check_out(Path(args.out))
    with tempfile.TemporaryDirectory(prefix="locklab-profile-") as tmp:
        # "%p": every process of the command (a wrapper, its children) writes its own report
        target = str(Path(args.out).resolve()) if args.out else str(Path(tmp) / "profile.%p.json")
        env = preload.environment(lib, args.lock, args.cond, args.sem, target, args.topology)
        env["LOCKLAB_PROFILE_TOP"] = "0"
        pattern = Path(target).name.replace("%p", "*")
        # a report already there (an earlier run's --out) is not this run's: the file
        # --out names is replaced; with %p, earlier ones count only if rewritten
        if "%p" not in target:
            Path(target).unlink(missing_ok=True)
        before = {f: f.stat().st_mtime_ns for f in Path(target).parent.glob(pattern)}
        try:
            status = subprocess.run(cmd, env=env).returncode
        except OSError as e:
            raise UsageError(f"cannot run '{cmd[0]}': {e.strerror}") from None
        if status < 0:
            status = 128 - status  # killed by a signal: the shell's convention
        reports = sorted((f for f in Path(target).parent.glob(pattern) if before.get(f) != f.stat().st_mtime_ns),
                         key=lambda f: f.stat().st_mtime)
        if not reports:
            if status == 2:
                return 2  # the interposer rejected the environment; it said why
            print(f"locklab profile: '{cmd[0]}' exited {status} without a profile (did it call _exit or exec?)",
                  file=sys.stderr)
            return 1
        for i, f in enumerate(reports):
            if i:
                print()
            print("\n".join(render_file(f, top, args.sort)))
            if args.out:
                print(f"profile: {f}")
    return status
