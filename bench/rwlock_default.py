#!/usr/bin/env python3
"""glibc's pthread_rwlock_t against the interposer's rwlocks, side by side (docs/rwlock.md).

Runs build/bin/locklab-plain-rwlock (a plain pthread program) under plain glibc and under
liblocklab-preload.so with each LOCKLAB_RWLOCK candidate, interleaved (runs outermost, then
read shares, thread counts, candidates), and prints per (read share, threads) the median
ops/s ratio to glibc and each one's worst writer wait (max over the runs).

    bench/rwlock_default.py [--build build] [--runs 3] [--seconds 0.3] [--threads 2,8,32,256]
                            [--reads 50,90,99,100] [--candidates pft-stp,bravo-stp,...]
"""
import argparse, os, statistics, subprocess, sys

p = argparse.ArgumentParser()
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
threads = [int(t) for t in a.threads.split(",")]
reads = [int(r) for r in a.reads.split(",")]
res = {}
for run in range(a.runs):
    for r in reads:
        for t in threads:
            for c in cands:
                env = dict(os.environ)
                if c != "glibc":
                    env["LD_PRELOAD"] = preload
                    env["LOCKLAB_RWLOCK"] = c
                out = subprocess.run([prog, str(t), str(r), str(a.seconds)], env=env, capture_output=True, text=True,
                                     timeout=120)
                if out.returncode != 0:
                    sys.exit("%s %d threads %d%% reads: exit %d %s" % (c, t, r, out.returncode, out.stderr.strip()))
                kv = dict(x.split("=") for x in out.stdout.split())
                res.setdefault((r, t, c), []).append((float(kv["ops_s"]), int(kv["write_wait_max_ns"])))
print("reads threads " + " ".join("%22s" % c for c in cands))
for r in reads:
    for t in threads:
        base = statistics.median(x[0] for x in res[(r, t, "glibc")])
        cells = []
        for c in cands:
            ops = statistics.median(x[0] for x in res[(r, t, c)])
            wmax = max(x[1] for x in res[(r, t, c)]) / 1e6
            cells.append("%6.2fx %8.2fms" % (ops / base, wmax))
        print("%4d%% %7d " % (r, t) + " ".join("%22s" % s for s in cells))
print("cell: median ops/s ratio to glibc (%d runs of %.2f s, interleaved), worst writer wait over the runs" % (a.runs, a.seconds))
