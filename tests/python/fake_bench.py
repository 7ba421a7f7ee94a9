"""A stand-in for build/bin/locklab-bench for the sweep tests: answers --list
and --workloads like the real one and prints one deterministic JSON object per
measurement, instantly.  Controlled by environment variables:

  FAKE_BENCH_LOG      file that gets one line per measurement: "WORKLOAD SPEC THREADS"
  FAKE_BENCH_FAIL_AT  N: the N-th measurement (counted in FAKE_BENCH_LOG) fails
                      with exit 1 and a one-line message, as a crashing bench would
  FAKE_BENCH_INTERRUPT_AT  N: the N-th measurement sends SIGINT to the sweep that
                      started it (as Ctrl-C would) and then completes normally

The sweep's up-front validation runs (--duration 0.001) are neither logged nor counted.
Every --lock, --runs times (run r adds r to the ops), interleaved as the real bench does.
Thread counts are checked like the real bench's: handover needs at least 2,
uncontended exactly 1 (exit 2 and one line otherwise).
"""
import json
import os
import signal
import sys

LOCKS = ["tas", "mcs", "mcs-stp", "pthread"]
WORKLOADS = {"mutexbench": ["cs_steps", "ncs_max"], "uncontended": [], "handover": []}
THREAD_RULES = {"uncontended": (lambda t: t == 1, "uncontended runs 1 thread"),
                "handover": (lambda t: t >= 2, "handover needs at least 2")}


def main(argv):
    if "--list" in argv:
        print("\n".join(LOCKS))
        return 0
    if "--workloads" in argv:
        for w, keys in WORKLOADS.items():
            print(f"{w:<16} a fake workload")
            for k in keys:
                print(f"  --param {k}=1  (0..10, integer) a fake parameter")
        return 0
    workload, locks, threads, duration, params, runs = argv[0], [], 1, 1.0, [], 1
    i = 1
    while i < len(argv):
        opt, val = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        if opt == "--json":
            i += 1
            continue
        if opt == "--lock":
            locks.append(val)
        elif opt == "--threads":
            threads = int(val)
        elif opt == "--duration":
            duration = float(val)
        elif opt == "--param":
            params.append(val)
        elif opt == "--runs":
            runs = int(val)
        i += 2
    for spec in locks:
        if spec.split(":")[0] not in LOCKS:
            print(f"locklab-bench: unknown lock '{spec}' (valid: {', '.join(LOCKS)})", file=sys.stderr)
            return 2
    for p in params:
        key, _, value = p.partition("=")
        if not value.isdigit() or int(value) > 10:
            print(f"locklab-bench: bad value '{value}' for --param {key} (valid: an integer in 0..10)", file=sys.stderr)
            return 2
    rule = THREAD_RULES.get(workload)
    if rule and not rule[0](threads):
        print(f"locklab-bench: bad value '{threads}' for --threads (valid: {rule[1]})", file=sys.stderr)
        return 2
    if duration == 0.001:
        return 0
    log = os.environ["FAKE_BENCH_LOG"]
    with open(log, "a") as f:
        f.write(f"{workload} {locks[0]} {threads}\n")
    with open(log) as f:
        calls = sum(1 for _ in f)
    if os.environ.get("FAKE_BENCH_FAIL_AT") == str(calls):
        print("locklab-bench: simulated crash", file=sys.stderr)
        return 1
    if os.environ.get("FAKE_BENCH_INTERRUPT_AT") == str(calls):
        os.kill(os.getppid(), signal.SIGINT)  # the wrapper exec()s us, so the parent is the sweep
    for run, spec in ((r, s) for r in range(runs) for s in locks):  # --runs R: interleaved, as the real one
        ops = 1000 * (LOCKS.index(spec) + 1) * threads + calls + run
        per = [ops // threads] * threads
        per[0] += ops - sum(per)
        print(json.dumps({
            "workload": workload, "lock": spec, "threads": threads, "duration_s": duration, "ops": ops,
            "throughput_ops_s": ops / duration, "per_thread_ops": per, "thread_sockets": [0] * threads,
            "lwss": 1.0, "mttr": 0.0, "gini": 0.0, "rstddev": 0.0, "fairness_factor": 0.5, "max_min_ratio": 1.0,
            "socket_switches": 0.0, "topology": "real:1", "vcsw": calls, "ivcsw": 0, "cpu_util": 1.0,
            "admissions_logged": ops, "exclusion_ok": True, "fake_extra": 0.25}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
