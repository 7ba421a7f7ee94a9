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
import statistics
import subprocess
import sys

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
            print(f"\n**{w}, {t} thread{'s' if t > 1 else ''}** (`locklab-bench {' '.join(cmd[1:])}`)\n")
            print("| " + " | ".join(["lock", "ops/s median [min..max]", "ratio", "LWSS", "vcsw/op", "cpu_util"]
                                    + extras) + " |")
            print("|---" * (6 + len(extras)) + "|")
            base = None
            for lock in locks:
                rs = rows[lock]
                thr = [r["throughput_ops_s"] for r in rs]
                med = statistics.median(thr)
                base = base or med
                cells = [lock, f"{fmt(med)} [{fmt(min(thr))}..{fmt(max(thr))}]", f"{med / base:.2f}x",
                         f"{statistics.median(r['lwss'] for r in rs):.2f}",
                         f"{statistics.median(r['vcsw'] / max(r['ops'], 1) for r in rs):.3g}",
                         f"{statistics.median(r['cpu_util'] for r in rs):.2f}"]
                cells += [fmt(statistics.median(r.get(k, float('nan')) for r in rs)) for k in extras]
                print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
