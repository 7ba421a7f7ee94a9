#!/usr/bin/env python3
"""The rwlocks against the model of glibc's rwlock on the papers' simulated machines (docs/rwlock.md,
"On many cores (simulated)").

    bench/rwlock_sim.py [--build build] [--locks rwgate-stp,readpref-stp,...] [--duration 0.01] [--seed 1]
                        [--jobs 2]

For every preset (slides-48, cna-2s, cna-4s, malthusian-t5) at threads = CPUs/2 and CPUs and reads
50%, 90% and 99%, runs `locklab-sim rwbench` once per lock and once with `pthread` (the model of
glibc's rwlock, sim/pthread_rwlock_model.c), and prints a Markdown table: per cell the model's
M ops/s and worst writer wait (ms), then each lock's ratio to the model and its worst writer wait.
A run is a deterministic function of its seed: the host's load does not change the numbers.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manycore_sim import PRESETS  # noqa: E402  (the papers' presets and their CPUs, as the mutexes' table)
READS = [50, 90, 99]


def run(sim, lock, machine, threads, reads, duration, seed):
    cmd = [sim, "rwbench", "--lock", lock, "--threads", str(threads), "--machine", machine, "--duration",
           str(duration), "--seed", str(seed), "--param", f"read_pct={reads}", "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"rwlock_sim.py: {' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    d = json.loads(p.stdout)
    return d["throughput_ops_s"], d["write_wait_max_ns"] / 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build")
    p.add_argument("--locks", default="rwgate-stp,readpref-stp,bravo-park")
    p.add_argument("--duration", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args()
    sim = os.path.join(a.build, "bin", "locklab-sim")
    if not os.access(sim, os.X_OK):
        sys.exit(f"rwlock_sim.py: no {sim} (build first)")
    locks = [x for x in a.locks.split(",") if x]
    cells = [(m, t, r) for m, cpus in PRESETS for t in (cpus // 2, cpus) for r in READS]
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        res = {(lock,) + c: ex.submit(run, sim, lock, *c, a.duration, a.seed) for c in cells for lock in ["pthread"] + locks}
    print("| machine | threads | reads | glibc model: M ops/s (worst write wait, ms) | "
          + " | ".join(f"`{x}`" for x in locks) + " |")
    print("|---|---|---|---|" + "---|" * len(locks))
    for c in cells:
        g_ops, g_wait = res[("pthread",) + c].result()
        row = [c[0], str(c[1]), f"{c[2]}%", f"{g_ops / 1e6:.2f} ({g_wait:.1f})"]
        for lock in locks:
            ops, wait = res[(lock,) + c].result()
            row.append(f"{ops / g_ops:.2f}x ({wait:.1f})")
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
