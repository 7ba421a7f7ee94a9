#!/usr/bin/env python3
"""glibc's pthread_rwlock_t against the interposer's rwlocks, side by side (docs/rwlock.md).

Runs build/bin/locklab-plain-rwlock (a plain pthread program) under plain glibc and under
liblocklab-preload.so with each LOCKLAB_RWLOCK candidate, interleaved (runs outermost, then
read shares, thread counts, candidates), and prints a Markdown table: per (read share,
threads): glibc's median ops/s [min..max]; per candidate the median of the per-run ops/s
ratios to glibc's run of the same round [min..max]; and each one's worst writer wait (max
over the runs).

    bench/rwlock_default.py [--build build] [--runs 3] [--seconds 0.3] [--threads 2,8,32,256]
                            [--reads 50,90,99,100] [--candidates pft-stp,bravo-stp,...]
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from locklab.tabulate import Spread, interleave, markdown_table, ratios  # noqa: E402  (standard library only)


def int_list(name, text):
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        sys.exit(f"rwlock_default.py: bad --{name} '{text}' (valid: comma-separated integers)")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seconds", type=float, default=0.3)
    p.add_argument("--threads", default="2,8,32,256")
    p.add_argument("--reads", default="50,90,99,100")
    p.add_argument("--candidates", default="pft-stp,pft-park,bravo-stp,numarw-stp,pthread")
    a = p.parse_args()
    prog = os.path.join(a.build, "bin", "locklab-plain-rwlock")
    preload = os.path.abspath(os.path.join(a.build, "lib", "liblocklab-preload.so"))
    cands = ["glibc"] + a.candidates.split(",")
    threads, reads = int_list("threads", a.threads), int_list("reads", a.reads)
    ops, wait = {}, {}  # (reads, threads, candidate) -> {round: ops/s}, [worst writer wait ns]
    for run, r, t, c in interleave(a.runs, reads, threads, cands):
        env = dict(os.environ)
        if c != "glibc":
            env["LD_PRELOAD"] = preload
            env["LOCKLAB_RWLOCK"] = c
        out = subprocess.run([prog, str(t), str(r), str(a.seconds)], env=env, capture_output=True, text=True,
                             timeout=120)
        if out.returncode != 0:
            sys.exit(f"{c} {t} threads {r}% reads: exit {out.returncode} {out.stderr.strip()}")
        kv = dict(x.split("=") for x in out.stdout.split())
        ops.setdefault((r, t, c), {})[run] = float(kv["ops_s"])
        wait.setdefault((r, t, c), []).append(int(kv["write_wait_max_ns"]))
    body = []
    for r in reads:
        for t in threads:
            row = [f"{r}%", t]
            for c in cands:
                if c == "glibc":
                    figure = Spread(ops[(r, t, c)].values()).text("{:.3g}") + " ops/s"
                else:
                    figure = Spread(ratios(ops[(r, t, c)], ops[(r, t, "glibc")])).text("{:.2f}x", "{:.2f}")
                row.append(f"{figure}, {max(wait[(r, t, c)]) / 1e6:.2f} ms")
            body.append(row)
    print(markdown_table(["reads", "threads"] + cands, body, numeric=True))
    print(f"\ncell: glibc's median ops/s [min..max], each candidate's median [min..max] of the per-round ratios "
          f"to glibc ({a.runs} interleaved runs of {a.seconds:g} s); then the worst writer wait over the runs")


if __name__ == "__main__":
    main()
