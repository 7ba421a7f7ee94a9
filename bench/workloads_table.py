#!/usr/bin/env python3
"""Run locklab-bench workloads for a few locks and thread counts and print one
Markdown table per (workload, threads): medians over interleaved runs, with
min..max for throughput, and the workload's extras (docs/workloads.md).

usage: bench/workloads_table.py [--bench build/bin/locklab-bench]
           [--workloads randarray,kvmap] [--locks mcs-stp,mcscr-stp,pthread]
           [--threads 2,16] [--runs 3] [--duration 0.2] [--param KEY=VALUE ...]
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from locklab.tabulate import Spread, markdown_table  # noqa: E402  (standard library only; after the path)

# Contract keys of every JSON line; anything else numeric is a workload extra.
CONTRACT = {"workload", "lock", "threads", "duration_s", "ops", "throughput_ops_s", "per_thread_ops",
            "thread_sockets", "lwss", "mttr", "gini", "rstddev", "fairness_factor", "max_min_ratio",
            "socket_switches", "topology", "vcsw", "ivcsw", "cpu_util", "admissions_logged", "exclusion_ok",
            "ns_per_pair", "spin_ns"}


def fmt(x):
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if abs(x) >= scale:
            return f"{x / scale:.3g}{suffix}"
    return f"{x:.3g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="build/bin/locklab-bench")
    ap.add_argument("--workloads", default="randarray,ringwalker,stress-latency,keymap,lrucache,kvmap,"
                                           "invalidation,handover")
    ap.add_argument("--locks", default="mcs-stp,mcscr-stp,pthread")
    ap.add_argument("--threads", default="2,16")
    ap.add_argument("--runs", default="3")
    ap.add_argument("--duration", default="0.2")
    ap.add_argument("--param", action="append", default=[], help="passed to locklab-bench (all workloads)")
    a = ap.parse_args()
    try:
        threads = [int(t) for t in a.threads.split(",")]
    except ValueError:
        sys.exit(f"workloads_table.py: bad --threads '{a.threads}' (valid: comma-separated integers)")
    locks = a.locks.split(",")
    for w in a.workloads.split(","):
        for t in threads:
            cmd = [a.bench, w, "--threads", str(t), "--duration", a.duration, "--runs", a.runs, "--json"]
            for lock in locks:
                cmd += ["--lock", lock]
            for p in a.param:
                cmd += ["--param", p]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(proc.stderr.strip() or f"workloads_table.py: {' '.join(cmd)} exited {proc.returncode}")
            out = proc.stdout
            rows = {}
            for line in out.splitlines():
                d = json.loads(line)
                if not d["exclusion_ok"]:
                    sys.exit(f"workloads_table.py: exclusion violated: {line}")
                rows.setdefault(d["lock"], []).append(d)
            extras = [k for k, v in rows[locks[0]][0].items() if k not in CONTRACT and isinstance(v, (int, float))]
            body, base = [], None
            for lock in locks:
                rs = rows[lock]
                thr = Spread(r["throughput_ops_s"] for r in rs)
                base = base or thr.median
                lwss = Spread(r["lwss"] for r in rs)  # null: no admissions (e.g. invalidation)
                body.append([lock, thr.text(fmt), f"{thr.median / base:.2f}x", f"{lwss.median:.2f}" if lwss else "-",
                             f"{Spread(r['vcsw'] / max(r['ops'], 1) for r in rs).median:.3g}",
                             f"{Spread(r['cpu_util'] for r in rs).median:.2f}"]
                            + [fmt(Spread(r.get(k) for r in rs).median) for k in extras])
            print(f"\n**{w}, {t} thread{'s' if t > 1 else ''}** (`locklab-bench {' '.join(cmd[1:])}`)\n")
            print(markdown_table(["lock", "ops/s median [min..max]", "ratio", "LWSS", "vcsw/op", "cpu_util"] + extras,
                                 body))


if __name__ == "__main__":
    main()
