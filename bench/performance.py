#!/usr/bin/env python3
"""glibc against locklab's locks through the interposer, on plain programs and real ones.

    python3 bench/performance.py [--runs 5] [--seconds 1] [--locks default,mcscr-stp,mcs-stp]
                                 [--rows ROW,...] [--out results/performance]

Every row runs each candidate in turn (glibc = no interposer; default = the
interposer with LOCKLAB_LOCK unset), runs interleaved so that machine noise
hits every candidate alike.  Per row it prints the median and min..max of
the row's figure (higher is better) and, per candidate, the median of the
per-run ratios to glibc with their min..max, the median per-thread max/min
and voluntary context switches per operation where the program reports them.
Before each round of a row it times a host probe: glibc's MutexBench at 2
threads for 0.2 s, whose rate this 2-CPU host halves for seconds to minutes at
a time (docs/performance.md, "The slow mode"; one thread's rate does not move),
so that the table says how many rounds ran slower (below 0.75x the fastest
probe; a run wholly in the slow mode shows only in the rate itself: here
about 7 M ops/s fast, 4 M slow); ratios hold only between runs of one mode,
which interleaving gives each round.
Writes OUT/performance.csv (one line per run), OUT/probe.csv (the probes),
OUT/uncontended.csv (the uncontended pair), OUT/meta.json (the machine) and
OUT/performance.md (the table); `locklab report OUT` draws them (python/locklab/perfreport.py).  Needs `make` (build/) and, for the real programs, sysbench,
db_bench (rocksdb-tools) and kccachetest (kyotocabinet-utils); rows whose
program is missing are skipped with a note.  Timing only: never a test.
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from locklab import meta as metamod  # noqa: E402  (after the path)
from locklab.tabulate import Spread, fairness_note, interleave, markdown_table, ratios  # noqa: E402
PRELOAD = os.path.join(ROOT, "build/lib/liblocklab-preload.so")
PLAIN = os.path.join(ROOT, "build/bin/locklab-plain")
UNCONTENDED = os.path.join(ROOT, "build/tests/interpose/bench_uncontended")


def plain(workload, threads):
    return {"argv": lambda s: [PLAIN, workload, str(threads), str(s)], "binary": PLAIN,
            "value": lambda out: _num(r"ops_per_s=(\S+)", out), "unit": "ops/s",
            "max_min": lambda out: _num(r"max_min=(\S+)", out),
            "vcsw": lambda out: _num(r"vcsw_per_op=(\S+)", out)}


ROWS = {}
for _t in (1, 2, 16, 64, 256):
    ROWS[f"mutexbench-{_t}"] = plain("mutexbench", _t)
    ROWS[f"randarray-{_t}"] = plain("randarray", _t)
# Other section lengths (locklab-plain shape:CS:NCS[:LOCKS[:SLEEP_US]], PRNG steps of about
# 2-3 ns): short and long critical sections, long non-critical ones, striped locks, sleepers.
for _shape, _t in (("400:400", 4), ("2000:8000", 16), ("40:40:64", 8), ("80:0:1:100", 32), ("20000:0", 4),
                   ("0:0", 64), ("800:0", 16), ("200:800:4", 16), ("40:2000", 256), ("8000:8000", 8),
                   ("40:40", 2), ("400:4000:1:1000", 64)):
    ROWS[f"shape-{_shape.replace(':', '-')}-t{_t}"] = plain(f"shape:{_shape}", _t)
PLAIN_COND = os.path.join(ROOT, "build/bin/locklab-plain-cond")
for _w, _p, _how in ((16, 4, "signal"), (4, 1, "signal"), (16, 4, "broadcast")):
    ROWS[f"condpool-{_w}w{_p}p" + ("-broadcast" if _how == "broadcast" else "")] = {
        "argv": lambda s, w=_w, p=_p, how=_how: [PLAIN_COND, "pool", str(w), str(p), str(int(200000 * s)), "100", how],
        "binary": PLAIN_COND, "unit": "tasks/s", "value": lambda out: _num(r"rate=(\S+)", out)}
for _t in (4, 16):
    ROWS[f"condbarrier-{_t}"] = {
        "argv": lambda s, t=_t: [PLAIN_COND, "barrier", str(t), str(max(1, int(80000 * s / t)))],
        "binary": PLAIN_COND, "unit": "rounds/s", "value": lambda out: _num(r"rate=(\S+)", out)}
PLAIN_RWLOCK = os.path.join(ROOT, "build/bin/locklab-plain-rwlock")
PLAIN_SHARED = os.path.join(ROOT, "build/bin/locklab-plain-shared-mutex")
for _r, _t in ((50, 16), (90, 16), (99, 64)):
    ROWS[f"rwlock-{_r}r-{_t}"] = {
        "argv": lambda s, r=_r, t=_t: [PLAIN_RWLOCK, str(t), str(r), str(s)], "binary": PLAIN_RWLOCK,
        "unit": "ops/s", "value": lambda out: _num(r"ops_s=(\S+)", out)}
ROWS["shared_mutex-90r-16"] = {
    "argv": lambda s: [PLAIN_SHARED, "16", "90", str(s)], "binary": PLAIN_SHARED,
    "unit": "ops/s", "value": lambda out: _num(r"ops_per_s=(\S+)", out)}
ROWS["sysbench-threads"] = {
    "argv": lambda s: ["sysbench", "threads", "--threads=16", "--thread-locks=8", f"--time={max(1, round(s * 2))}",
                       "run"],
    "binary": "sysbench", "unit": "events/s",
    "value": lambda out: _num(r"total number of events:\s+(\d+)", out) / _num(r"total time:\s+([\d.]+)s", out)}
ROWS["sysbench-mutex"] = {
    "argv": lambda s: ["sysbench", "mutex", "--threads=16", f"--mutex-locks={int(20000 * s)}", "run"],
    "binary": "sysbench", "unit": "1/s",
    "value": lambda out: 1.0 / _num(r"total time:\s+([\d.]+)s", out)}
ROWS["db_bench-readwhilewriting"] = {
    "argv": lambda s: ["db_bench", "--benchmarks=readwhilewriting", "--threads=4", f"--duration={max(1, round(s * 2))}",
                       "--num=100000", "--db={tmp}/rocksdb", "--statistics=0"],
    "binary": "db_bench", "unit": "ops/s",
    "value": lambda out: _num(r"^readwhilewriting\s*:\s*[\d.]+ micros/op (\d+) ops/sec", out)}
ROWS["kccachetest-wicked"] = {
    "argv": lambda s: ["kccachetest", "wicked", "-th", "4", "-it", "1", str(int(100000 * s))],
    "binary": "kccachetest", "unit": "1/s", "timed": True, "value": lambda out: 1.0}
ROWS["kchashtest-wicked"] = {
    "argv": lambda s: ["kchashtest", "wicked", "-th", "4", "-it", "1", "{tmp}/casket.kch", str(int(50000 * s))],
    "binary": "kchashtest", "unit": "1/s", "timed": True, "value": lambda out: 1.0}


def _num(pattern, text):
    m = re.findall(pattern, text, re.M)
    if not m:
        return None
    return float("inf") if m[-1] == "inf" else float(m[-1])


PROBE_SECONDS = 0.2
SLOW = 0.75  # a probe below this fraction of the run's fastest probe: a round in the slow mode


def probe_note(probes):
    """The table's line on the host probes: their spread, and the rounds in the slow mode."""
    sp = Spread(probes)
    if not sp:
        return "Host probe: no probe ran."
    slow = sum(1 for v in probes if v is not None and v < SLOW * sp.max)
    return (f"Host probe before each round (glibc's MutexBench, 2 threads, {PROBE_SECONDS:g} s): "
            f"{sp.text('{:.3g}', '{:.3g}')} ops/s; {slow} of {sp.n} rounds below {SLOW:g}x the fastest "
            f"(a slow mode of the host, as docs/performance.md's: compare the rates too, a run may be all in it).")


def run_once(row, lock, seconds, tmp):
    spec = ROWS[row]
    env = dict(os.environ)
    env.pop("LOCKLAB_LOCK", None)
    if lock != "glibc":
        env["LD_PRELOAD"] = PRELOAD
        env["LOCKLAB_QUIET"] = "1"
        if lock != "default":
            env["LOCKLAB_LOCK"] = lock
    argv = [a.replace("{tmp}", tmp) for a in spec["argv"](seconds)]
    for name in os.listdir(tmp):  # each run starts in an empty directory (the databases)
        path = os.path.join(tmp, name)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    import time
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=max(120, 60 * seconds))
    except subprocess.TimeoutExpired:
        return None
    wall = time.monotonic() - t0
    out = p.stdout + p.stderr
    if p.returncode != 0:
        return None
    value = spec["value"](out)
    if value is None:
        return None
    if spec.get("timed"):
        value = 1.0 / wall
    res = {"value": value}
    for key in ("max_min", "vcsw"):
        if key in spec:
            res[key] = spec[key](out)
    return res


def uncontended(locks, runs):
    """The uncontended pair: bench_uncontended times the interposer against glibc in one process."""
    rows = []
    for lock in locks:
        if lock == "glibc":
            continue
        env = dict(os.environ, LD_PRELOAD=PRELOAD, LOCKLAB_QUIET="1")
        env.pop("LOCKLAB_LOCK", None)
        if lock != "default":
            env["LOCKLAB_LOCK"] = lock
        p = subprocess.run([UNCONTENDED, str(max(5, runs)), "5000000"], env=env, capture_output=True, text=True)
        m = re.search(r"interposed ([\d.]+) ns.*glibc ([\d.]+) ns.*ratio ([\d.]+)x \[([\d.]+)\.\.([\d.]+)\]", p.stdout)
        if m:
            rows.append((lock, float(m.group(1)), float(m.group(2)), m.group(3), m.group(4), m.group(5)))
    return rows


def usage_error(message):
    """Bad input: one line on stderr, exit 2 (as every locklab command)."""
    print(f"performance.py: {message}", file=sys.stderr)
    sys.exit(2)


def split_specs(text):
    """'default,acr:spin_ns=0,spinners=2,mcs-stp' -> ['default', 'acr:spin_ns=0,spinners=2', 'mcs-stp']:
    a KEY=VALUE item without ':' continues the previous spec (spec keys have their own commas)."""
    specs = []
    for item in (i for i in text.split(",") if i):
        if specs and "=" in item and ":" not in item:
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--locks", default="default,acr,mcscr-stp,mcs-stp")
    ap.add_argument("--rows", default=",".join(ROWS))
    ap.add_argument("--out", default=os.path.join(ROOT, "results/performance"))
    ap.add_argument("--no-uncontended", action="store_true")
    a = ap.parse_args()
    rows = [r for r in a.rows.split(",") if r]
    bad = [r for r in rows if r not in ROWS]
    if bad:
        usage_error(f"unknown row '{bad[0]}' (valid: {', '.join(ROWS)})")
    if not 1 <= a.runs <= 100 or not 0.05 <= a.seconds <= 600:
        usage_error(f"--runs {a.runs} / --seconds {a.seconds:g} out of range (valid: 1..100 / 0.05..600)")
    locks = ["glibc"] + [l for l in split_specs(a.locks) if l != "glibc"]
    for path in (PRELOAD, PLAIN, UNCONTENDED):
        if not os.path.exists(path):
            sys.exit(f"performance.py: {path} is missing (run make first)")
    os.makedirs(a.out, exist_ok=True)
    meta = metamod.collect(os.path.join(ROOT, "build/bin/locklab-bench"), {"runs": a.runs, "seconds": a.seconds})
    meta["command"] = " ".join(["python3", "bench/performance.py"] + sys.argv[1:])
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    header = f"{os.cpu_count()} CPUs ({cpu}); {a.runs} interleaved runs of {a.seconds:g} s per row and lock"
    print(header, flush=True)
    results, probes = {}, []
    with tempfile.TemporaryDirectory() as tmp, open(os.path.join(a.out, "performance.csv"), "w", newline="") as f, \
            open(os.path.join(a.out, "probe.csv"), "w", newline="") as pf:
        w, pw = csv.writer(f), csv.writer(pf)
        w.writerow(["row", "lock", "run", "value", "max_min", "vcsw_per_op"])
        pw.writerow(["row", "run", "probe_ops_s"])
        for row in rows:
            if shutil.which(ROWS[row]["binary"]) is None and not os.path.exists(ROWS[row]["binary"]):
                print(f"{row}: skipped ({ROWS[row]['binary']} not installed)", flush=True)
                continue
            for r, lock in interleave(a.runs, locks):
                if lock == locks[0]:  # a round begins: the probe is the mutexbench-2 row's glibc run
                    res = run_once("mutexbench-2", "glibc", PROBE_SECONDS, tmp)
                    probes.append(res["value"] if res else None)
                    pw.writerow([row, r, probes[-1] if probes[-1] is not None else "failed"])
                res = run_once(row, lock, a.seconds, tmp)
                results.setdefault((row, lock), []).append(res)
                w.writerow([row, lock, r] + ([res["value"], res.get("max_min", ""), res.get("vcsw", "")]
                                             if res else ["failed", "", ""]))
                f.flush()
            print(f"{row}: done", flush=True)
    body = []
    for row in rows:
        base_runs = results.get((row, "glibc"))
        if not base_runs:
            continue
        base = [x["value"] if x else None for x in base_runs]
        cells = [Spread(base).text("{:.4g}", "{:.3g}", missing="failed") + f" {ROWS[row]['unit']}"
                 + _extras(base_runs)]
        for lock in locks[1:]:
            runs = results[(row, lock)]
            rs = Spread(ratios([x["value"] if x else None for x in runs], base))
            failed = sum(1 for x in runs if not x)
            cells.append(rs.text("**{:.2f}x**", "{:.2f}", missing="failed") + _extras(runs)
                         + (f" ({failed} failed)" if failed and rs else ""))
        body.append([row] + cells)
    lines = [header, "", markdown_table(["row", "glibc"] + [f"{l} (ratio to glibc)" for l in locks[1:]], body),
             "", probe_note(probes)]
    if not a.no_uncontended:
        body = []
        with open(os.path.join(a.out, "uncontended.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["lock", "ours_ns", "glibc_ns", "ratio", "lo", "hi"])
            for lock, ours, theirs, ratio, lo, hi in uncontended(locks + ["tas", "ticket"], a.runs):
                body.append([lock, f"{ours:.2f}", f"{theirs:.2f}", f"**{ratio}x** [{lo}..{hi}]"])
                w.writerow([lock, f"{ours:.2f}", f"{theirs:.2f}", ratio, lo, hi])
        lines += ["", "Uncontended lock+unlock pair (bench_uncontended, glibc's own functions timed in the same "
                  "process, medians of interleaved rounds):", "",
                  markdown_table(["lock", "interposed ns", "glibc ns", "ratio [min..max]"], body)]
    table = "\n".join(lines) + "\n"
    open(os.path.join(a.out, "performance.md"), "w").write(table)
    print(table)


def _extras(runs):
    note = fairness_note([x.get("max_min") for x in runs if x], [x.get("vcsw") for x in runs if x])
    return ("<br>" + note) if note else ""


if __name__ == "__main__":
    main()
