#!/usr/bin/env python3
"""The default lock against glibc's and the registry's best on the papers' simulated machines
(docs/performance.md, "Many cores").

    python3 bench/manycore_sim.py [--out results/manycore] [--runs 3] [--duration 0.2]
                                  [--peer-runs 1] [--peer-ra-duration 0.05]
                                  [--backoff-duration 0.02] [--skip-backoff] [--main-only] [--presets P,...]
                                  [--table-only]

For every preset (slides-48, cna-2s, cna-4s, malthusian-t5) at threads = CPUs/4, CPUs/2, CPUs
and 2 x CPUs, `locklab sweep --sim PRESET` runs MutexBench and RandArray:
  main   the default lock and pthread (glibc's mutex model), --runs seeds (1, 2, 3) of --duration
         simulated seconds each;
  peers  the registry's candidates for "best lock" (the FIFO, Fissile/ShflLock, CNA, CR and
         parking locks), --peer-runs seeds; RandArray peers for --peer-ra-duration simulated
         seconds (a RandArray run costs ~45 s of host time per simulated second at 72 threads);
  backoff  the backoff lock, --peer-runs seeds of --backoff-duration simulated seconds (its spin
         loops cost ~700 host s per simulated s); not on cna-4s, where its runs take hours.
Each sweep writes OUT/PRESET-main, OUT/PRESET-peers, ... (results.csv, then `locklab report`'s
report.md and plots).  Then prints one Markdown table per workload: medians over the seeds,
the default's ratio to pthread and to the best other lock of the run, the per-thread max/min
and the worst and p99.9 acquisition waits (simulated ns, free of measurement cost).
--presets: run only these (the table still covers every preset found in OUT).
--main-only: run only the default and pthread; the peers' and backoff's results already in OUT
stay (they do not depend on the default: after a change of the default lock).
--table-only: no runs, the table of OUT as it is.  Simulated results depend on the seed only,
not on the host's load.  Needs `make` (build/bin/locklab-sim and the .venv's locklab).
"""
import argparse
import csv
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from locklab.tabulate import Spread, markdown_table  # noqa: E402  (standard library only; after the path)
LOCKLAB = os.path.join(ROOT, ".venv", "bin", "locklab")
PRESETS = [("slides-48", 48), ("cna-2s", 72), ("cna-4s", 144), ("malthusian-t5", 128)]
NO_BACKOFF = {"cna-4s"}  # its backoff runs take hours of host time
PEERS = "fissile,shfl,fissile-stp,shfl-stp,mcs,clh,mcscr-stp,lifocr-stp,cna-stp,parkinglot"
PEERS_RA = "fissile,shfl,fissile-stp,shfl-stp,mcs,mcscr-stp,cna-stp,parkinglot"


def default_lock():
    """The interposer's default, as its verbose line names it."""
    pre = os.path.join(ROOT, "build", "lib", "liblocklab-preload.so")
    env = dict(os.environ, LOCKLAB_VERBOSE="1", LD_PRELOAD=pre)
    env.pop("LOCKLAB_LOCK", None)
    line = subprocess.run(["/bin/true"], env=env, stderr=subprocess.PIPE, text=True).stderr
    for word in line.split():
        if word.startswith("lock="):
            return word[5:]
    sys.exit("manycore_sim.py: the interposer did not name its default lock (run make first)")


def sweep(out, preset, threads, workloads, locks, runs, duration):
    cmd = [LOCKLAB, "sweep", "--sim", preset, "--workloads", workloads, "--locks", locks, "--threads",
           ",".join(map(str, threads)), "--runs", str(runs), "--duration", str(duration), "--out", out]
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True)
    subprocess.run([LOCKLAB, "report", out], check=True, stdout=subprocess.DEVNULL)


def rows(out):
    """(preset, workload, threads, lock) -> [(ops/s, max/min, extras)] from every results.csv under out."""
    data = {}
    for name in sorted(os.listdir(out)) if os.path.isdir(out) else []:
        path = os.path.join(out, name, "results.csv")
        if not os.path.isfile(path):
            continue
        preset = name.rsplit("-", 1)[0]
        with open(path) as f:
            for r in csv.DictReader(f):
                extras = dict(kv.split("=", 1) for kv in (r.get("extras") or "").split() if "=" in kv)
                mm = float(r["max_min_ratio"]) if r["max_min_ratio"] not in ("", "None") else float("inf")
                key = (preset, r["workload"], int(r["threads"]), r["lock"])
                data.setdefault(key, []).append((float(r["throughput_ops_s"]), mm, extras))
    return data


def table(data, default):
    med = lambda values: Spread(values).median  # noqa: E731
    for wl in ("mutexbench", "randarray"):
        body = []
        for preset, _ in PRESETS:
            for t in sorted({k[2] for k in data if k[0] == preset and k[1] == wl}):
                runs = {k[3]: v for k, v in data.items() if k[:3] == (preset, wl, t)}
                if default not in runs or "pthread" not in runs:
                    continue
                ops = {lock: med([x[0] for x in v]) for lock, v in runs.items()}
                best = max((lock for lock in ops if lock != default), key=ops.get)
                d, p = runs[default], runs["pthread"]

                def wait(v, key):
                    w = Spread(float(x[2][key]) / 1e6 for x in v if key in x[2])
                    return f"{w.median:.2f}" if w else "-"
                body.append([preset, str(t), f"{ops['pthread'] / 1e6:.2f}", f"{ops[default] / 1e6:.2f}",
                             f"**{ops[default] / ops['pthread']:.2f}**", f"{ops[best] / 1e6:.2f} ({best})",
                             f"{ops[default] / ops[best]:.2f}",
                             f"{med(x[1] for x in d):.2f} ({med(x[1] for x in p):.2f})",
                             f"{wait(d, 'wait_p999_ns')} / {wait(d, 'wait_max_ns')}",
                             f"{wait(p, 'wait_p999_ns')} / {wait(p, 'wait_max_ns')}"])
        print(f"\n**{wl}** (M ops/s, medians over the seeds; waits in ms)\n")
        print(markdown_table(["machine", "threads", "pthread", default, "/ pthread", "best other", "/ best",
                              f"max/min {default} (pthread)", f"{default} wait p99.9 / max",
                              "pthread wait p99.9 / max"], body))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "manycore"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=float, default=0.2)
    ap.add_argument("--peer-runs", type=int, default=1)
    ap.add_argument("--peer-ra-duration", type=float, default=0.05)
    ap.add_argument("--backoff-duration", type=float, default=0.02)
    ap.add_argument("--skip-backoff", action="store_true")
    ap.add_argument("--main-only", action="store_true")
    ap.add_argument("--presets", default=",".join(p for p, _ in PRESETS))
    ap.add_argument("--table-only", action="store_true")
    a = ap.parse_args()
    known = [p for p, _ in PRESETS]
    for p in a.presets.split(","):
        if p not in known:
            sys.exit(f"manycore_sim.py: unknown preset '{p}' (valid: {', '.join(known)})")
    for name, value in (("--runs", a.runs), ("--peer-runs", a.peer_runs)):
        if value < 1:
            sys.exit(f"manycore_sim.py: {name} {value} is not a count >= 1")
    for name, value in (("--duration", a.duration), ("--peer-ra-duration", a.peer_ra_duration),
                        ("--backoff-duration", a.backoff_duration)):
        if not 0 < value <= 10:
            sys.exit(f"manycore_sim.py: {name} {value} is not a simulated duration in (0, 10] s")
    default = default_lock()
    if not a.table_only:
        for preset, cpus in PRESETS:
            if preset not in a.presets.split(","):
                continue
            threads = [cpus // 4, cpus // 2, cpus, 2 * cpus]
            sweep(os.path.join(a.out, f"{preset}-main"), preset, threads, "mutexbench,randarray",
                  f"{default},pthread", a.runs, a.duration)
            if a.main_only:
                continue
            sweep(os.path.join(a.out, f"{preset}-peers"), preset, threads, "mutexbench", PEERS, a.peer_runs,
                  a.duration)
            sweep(os.path.join(a.out, f"{preset}-peersra"), preset, threads, "randarray", PEERS_RA, a.peer_runs,
                  a.peer_ra_duration)
            if not a.skip_backoff and preset not in NO_BACKOFF:
                sweep(os.path.join(a.out, f"{preset}-backoff"), preset, threads, "mutexbench,randarray", "backoff",
                      a.peer_runs, a.backoff_duration)
    table(rows(a.out), default)


if __name__ == "__main__":
    main()
