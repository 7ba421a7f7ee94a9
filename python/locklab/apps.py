"""`locklab apps`: real programs nobody here wrote, on glibc and on locklab
locks.  Each app runs at every thread count under plain glibc ("glibc") and
under each lock through the interposer, --runs times, interleaved (runs
outermost, then apps, threads, locks); a run counts only if the program
printed its own success output.  Results go to DIR/apps.csv, and DIR/apps.md
gets, per app, the median metric with spread and the ratio to glibc (higher =
better than glibc), plus a plot of that ratio against threads.

The apps (Debian packages, installed with --install if missing):
  kccachetest   kyotocabinet-utils  `kccachetest wicked -th T -it 1 RNUM`, RNUM = 2e6 x scale / T (Malthusian §6, CNA §7):
                                    records/s = T x RNUM / wall time
  kchashtest    kyotocabinet-utils  `kchashtest wicked -th T -it 1 casket.kch RNUM`, RNUM = 2e5 x scale / T: a hash
                                    database whose method and record locks are pthread rwlocks (the app of
                                    reader-writer contention: LOCKLAB_RWLOCK's lock); records/s as kccachetest
  db_bench      rocksdb-tools       `db_bench --benchmarks=readwhilewriting` (TWA paper): ops/s it reports
  sysbench-mutex   sysbench         `sysbench mutex`: its total time (lower is better; we report 1/time)
  sysbench-threads sysbench         `sysbench threads --time D`: events/s
"""

import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import preload
from .sweep import parse_number, split_locks
from .errors import UsageError
from .tabulate import Spread, interleave, markdown_table

DEFAULT_LOCKS = "glibc,mcs-stp,twa-stp,mcscr-stp,loiter"
DEFAULT_THREADS = "1,2,4,16,64"
COLUMNS = ["app", "lock", "threads", "run", "ok", "value", "unit", "wall_s", "error"]


def _kc_records(threads, scale):
    return max(1000, int(2000000 * scale / threads))


def _search(pattern, text, group=1):
    m = re.search(pattern, text, re.M)
    return float(m.group(group)) if m else None


APPS = {
    "kccachetest": {
        "package": "kyotocabinet-utils", "binary": "kccachetest", "unit": "records/s",
        "argv": lambda t, scale, tmp: ["kccachetest", "wicked", "-th", str(t), "-it", "1", str(_kc_records(t, scale))],
        "ok": lambda out: out.rstrip().endswith("\nok") or out.strip() == "ok",
        "value": lambda out, t, scale, wall: t * _kc_records(t, scale) / wall,
    },
    "kchashtest": {
        "package": "kyotocabinet-utils", "binary": "kchashtest", "unit": "records/s",
        "argv": lambda t, scale, tmp: ["kchashtest", "wicked", "-th", str(t), "-it", "1", f"{tmp}/casket.kch",
                                       str(_kc_records(t, scale / 10))],
        "ok": lambda out: out.rstrip().endswith("\nok") or out.strip() == "ok",
        "value": lambda out, t, scale, wall: t * _kc_records(t, scale / 10) / wall,
    },
    "db_bench": {
        "package": "rocksdb-tools", "binary": "db_bench", "unit": "ops/s",
        "argv": lambda t, scale, tmp: ["db_bench", "--benchmarks=readwhilewriting", f"--threads={t}",
                                       f"--duration={max(1, round(2 * scale))}", "--num=100000",
                                       f"--db={tmp}/rocksdb", "--statistics=0"],
        "ok": lambda out: re.search(r"^readwhilewriting\s*:.*ops/sec", out, re.M) is not None,
        "value": lambda out, t, scale, wall: _search(r"^readwhilewriting\s*:\s*[\d.]+ micros/op (\d+) ops/sec", out),
    },
    "sysbench-mutex": {
        "package": "sysbench", "binary": "sysbench", "unit": "1/s (inverse total time)",
        "argv": lambda t, scale, tmp: ["sysbench", "mutex", f"--threads={t}",
                                       f"--mutex-locks={max(1000, int(50000 * scale))}", "run"],
        "ok": lambda out: "General statistics" in out and "total time:" in out,
        "value": lambda out, t, scale, wall: 1.0 / _search(r"total time:\s+([\d.]+)s", out),
    },
    "sysbench-threads": {
        "package": "sysbench", "binary": "sysbench", "unit": "events/s",
        "argv": lambda t, scale, tmp: ["sysbench", "threads", f"--threads={t}", f"--time={max(1, round(2 * scale))}",
                                       "run"],
        "ok": lambda out: "total number of events:" in out,
        "value": lambda out, t, scale, wall: (_search(r"total number of events:\s+(\d+)", out)
                                              / _search(r"total time:\s+([\d.]+)s", out)),
    },
}


COMMAND = "apps"
HELP = "real programs (kccachetest, kchashtest, db_bench, sysbench) on glibc and on locklab locks"


def register(p):
    """Fills the parser that cli.build_parser made from COMMAND, HELP and the docstring."""
    p.add_argument("--apps", default=",".join(APPS), help=f"comma-separated (default: {','.join(APPS)})")
    p.add_argument("--locks", default=DEFAULT_LOCKS, help=f"comma-separated; glibc = no interposer "
                   f"(default: {DEFAULT_LOCKS})")
    p.add_argument("--threads", default=DEFAULT_THREADS, help=f"comma-separated (default: {DEFAULT_THREADS})")
    p.add_argument("--runs", default="3", help="runs per configuration (default 3)")
    p.add_argument("--scale", default="1", help="work per run relative to the default (default 1; 0.05 for a smoke)")
    p.add_argument("--out", default="results/apps", metavar="DIR", help="result directory (default results/apps)")
    p.add_argument("--install", action="store_true", help="apt-get install missing packages (needs root)")
    p.add_argument("--preload", metavar="PATH", help="the interposer (default: the repository's build/lib, "
                   "else the one installed with the locklab-bench on PATH)")
    p.set_defaults(func=run)


def _list(option, text, valid=None):
    items = split_locks(text) if option == "--locks" else text.split(",")
    if any(not i for i in items) or len(set(items)) != len(items):
        raise UsageError(f"bad {option} '{text}' (valid: a comma-separated list of distinct items)")
    for i in items:
        if valid is not None and i not in valid:
            raise UsageError(f"unknown app '{i}' in {option} (valid: {', '.join(valid)})")
    return items


def ensure_installed(apps, install):
    missing = sorted({APPS[a]["package"] for a in apps if shutil.which(APPS[a]["binary"]) is None})
    if not missing:
        return
    if not install:
        raise UsageError(f"missing {', '.join(missing)} (install with apt-get, or run with --install as root)")
    if os.geteuid() != 0:
        raise UsageError(f"--install needs root to apt-get install {', '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for argv in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *missing]):
        if subprocess.run(argv, env=env).returncode != 0:
            raise UsageError(f"'{' '.join(argv)}' failed")


def run_one(app, lock, threads, scale, lib, timeout=600):
    """One run: a result row (dict) with ok, value or error."""
    spec = APPS[app]
    row = {"app": app, "lock": lock, "threads": threads, "ok": False, "value": "", "unit": spec["unit"],
           "wall_s": "", "error": ""}
    env = preload.environment(lib, lock)
    with tempfile.TemporaryDirectory(prefix="locklab-apps-") as tmp:
        argv = spec["argv"](threads, scale, tmp)
        t0 = time.monotonic()
        try:
            p = subprocess.run(argv, env=env, cwd=tmp, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            row["error"] = f"timed out after {timeout} s"
            return row
        wall = time.monotonic() - t0
    out = p.stdout + p.stderr
    row["wall_s"] = f"{wall:.4f}"
    if p.returncode != 0 or not spec["ok"](p.stdout):
        last = (p.stderr.strip().splitlines() or p.stdout.strip().splitlines() or ["no output"])[-1]
        row["error"] = f"exit {p.returncode}, no success output: {last}"[:300]
        if p.returncode == 2 and "LOCKLAB_" in last:
            raise UsageError(last)  # the interposer rejected the lock spec
        return row
    try:
        value = spec["value"](out, threads, scale, wall)
    except (TypeError, ZeroDivisionError):
        value = None
    if value is None:
        row["error"] = "success output without the expected numbers"
        return row
    row.update(ok=True, value=f"{value:.6g}")
    return row


def summarize(rows):
    """{(app, lock, threads): (Spread of the successful runs' values, failed runs)}"""
    groups = {}
    for r in rows:
        groups.setdefault((r["app"], r["lock"], int(r["threads"])), []).append(r)
    out = {}
    for key, rs in groups.items():
        ok = [float(r["value"]) for r in rs if r["ok"] in (True, "True")]
        out[key] = (Spread(ok), len(rs) - len(ok))
    return out


def write_report(out_dir, rows, apps, locks, threads, machine):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = summarize(rows)
    nothing = (Spread([]), 0)

    def median(app, lock, t):
        s = summary.get((app, lock, t), nothing)[0]
        return s.median if s else None

    lines = ["# Real programs on locklab locks", "", f"Machine: {machine}.", "",
             "Each cell: median [min..max] of the app's metric, then the ratio of medians to glibc "
             "(> 1: better than glibc).  A run counts only with the program's own success output; "
             "failed runs are listed.", ""]
    for app in apps:
        unit = APPS[app]["unit"]
        fig, ax = plt.subplots(figsize=(6, 3.6))
        body = []
        for t in threads:
            base = median(app, preload.NATIVE, t)
            cells = []
            for lock in locks:
                s, failed = summary.get((app, lock, t), nothing)
                if not s:
                    cells.append(f"failed ({failed})" if failed else "-")
                    continue
                ratio = f" {s.median / base:.2f}x" if base else ""
                fail = f" ({failed} failed)" if failed else ""
                cells.append(s.text("{:.3g}") + ratio + fail)
            body.append([str(t)] + cells)
        for lock in locks:
            xs, ys = [], []
            for t in threads:
                med, base = median(app, lock, t), median(app, preload.NATIVE, t)
                if med is not None and base:
                    xs.append(t)
                    ys.append(med / base)
            if xs:
                ax.plot(xs, ys, marker="o", label=lock)
        lines += [f"## {app} ({unit}, higher is better)", "", markdown_table(["threads"] + locks, body)]
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads, [str(t) for t in threads])
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xlabel("threads")
        ax.set_ylabel("ratio to glibc (median)")
        ax.set_title(f"{app}: {machine}", fontsize=8)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out_dir / f"apps-{app}.png", dpi=110)
        plt.close(fig)
        lines += ["", f"![{app}](apps-{app}.png)", ""]
    failures = [r for r in rows if r["ok"] not in (True, "True")]
    if failures:
        lines += ["## Failed runs", ""] + [f"- {r['app']} {r['lock']} {r['threads']}T run {r['run']}: {r['error']}"
                                           for r in failures] + [""]
    (out_dir / "apps.md").write_text("\n".join(lines))
    return out_dir / "apps.md"


def machine_line():
    model = "unknown CPU"
    try:
        model = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} CPUs, {os.uname().release}, {os.confstr('CS_GNU_LIBC_VERSION')}"


def run(args):
    apps = _list("--apps", args.apps, APPS)
    locks = _list("--locks", args.locks)
    threads = [parse_number("--threads", t, int, 1, 4096) for t in _list("--threads", args.threads)]
    runs = parse_number("--runs", args.runs, int, 1, 100)
    scale = parse_number("--scale", args.scale, float, 0.001, 100)
    if not args.out.strip():
        raise UsageError("empty --out (valid: a directory path; '.' for the current directory)")
    lib = preload.locate(args.preload) if any(l != preload.NATIVE for l in locks) else None
    for lock in locks:
        preload.check(preload.environment(lib, lock))
    ensure_installed(apps, args.install)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    plan = interleave(runs, apps, threads, locks)
    with open(out_dir / "apps.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        for i, (r, a, t, l) in enumerate(plan, 1):
            row = run_one(a, l, t, scale, lib)
            row["run"] = r
            rows.append(row)
            writer.writerow(row)
            f.flush()
            status = f"{float(row['value']):.4g} {row['unit']}" if row["ok"] else f"FAILED: {row['error']}"
            print(f"[{i}/{len(plan)}] {a} {l} {t}T run {r}: {status}", file=sys.stderr)
    report = write_report(out_dir, rows, apps, locks, threads, machine_line())
    failed = sum(1 for r in rows if not r["ok"])
    print(f"apps: {len(rows) - failed} runs ok, {failed} failed; report: {report}")
    return 1 if failed else 0
