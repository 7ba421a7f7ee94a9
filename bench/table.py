#!/usr/bin/env python3
"""Run mutexbench for every lock spec at several thread counts and print a
Markdown table of medians with spread (runs interleaved across locks).

usage: bench/table.py [--bench build/bin/locklab-bench] [--threads 1,2,4,16]
                      [--runs 5] [--duration 0.5] [--locks a,b,...] > docs/table.md
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from locklab.tabulate import Spread, markdown_table  # noqa: E402  (standard library only; after the path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="build/bin/locklab-bench")
    ap.add_argument("--threads", default="1,2,4,16")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--duration", default="0.5")
    ap.add_argument("--locks", default="", help="comma-free specs separated by ';' (default: all of --list)")
    a = ap.parse_args()
    locks = a.locks.split(";") if a.locks else subprocess.run(
        [a.bench, "--list"], check=True, capture_output=True, text=True).stdout.split()
    try:
        threads = [int(t) for t in a.threads.split(",")]
    except ValueError:
        sys.exit(f"table.py: bad --threads '{a.threads}' (valid: comma-separated integers)")
    print(f"MutexBench, {a.runs} interleaved runs of {a.duration}s per cell; "
          "median ops/s [min..max]; fairness columns are medians.\n")
    for t in threads:
        cmd = [a.bench, "mutexbench", "--threads", str(t), "--duration", a.duration, "--runs", str(a.runs), "--json"]
        for lock in locks:
            cmd += ["--lock", lock]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        rows = {}
        for line in out.splitlines():
            d = json.loads(line)
            rows.setdefault(d["lock"], []).append(d)
        body = []
        for lock in locks:
            runs = rows.get(lock)
            if not runs:
                continue
            tp = Spread(r["throughput_ops_s"] for r in runs)
            med = lambda k: Spread(float("inf") if r[k] is None else r[k] for r in runs).median  # noqa: E731
            vcsw = Spread(r["vcsw"] / max(r["ops"], 1) for r in runs).median
            body.append([runs[0]["lock"], f"{tp.median:.3g}", tp.range("{:.3g}"), f"{med('max_min_ratio'):.3g}",
                         f"{med('lwss'):.1f}", f"{med('mttr'):.0f}", f"{med('gini'):.3f}",
                         f"{med('fairness_factor'):.3f}", f"{vcsw:.3f}"])
        print(f"\n### {t} thread{'s' if t > 1 else ''}\n")
        print(markdown_table(["lock", "ops/s (median)", "spread", "max/min ops", "LWSS", "MTTR", "Gini",
                              "fairness factor", "vcsw/op"], body, numeric=True), flush=True)


if __name__ == "__main__":
    main()
