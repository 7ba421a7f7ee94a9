"""A stand-in for build/bin/locklab-sim (the simulator's interface, docs/simulator.md),
so that the `locklab sim` / `sweep --sim` tests do not depend on the simulator:

  fake_sim.py WORKLOAD --lock SPEC --threads N --machine DESC|PRESET --duration S [--seed N] [--json]
              [--param K=V]... [--runs R]
  fake_sim.py --list-presets          NAME<TAB>DESCRIPTION per line
  fake_sim.py --as-bench ...          behave as locklab-bench instead (--list, --workloads, measurements)

Bad input (an unknown preset, a malformed machine, lock, workload, parameter or
thread count): one line on stderr naming the bad value and the valid choices,
exit 2, as the real one.  The simulator knows no `pthread` and no `kvmap` (so
the validation's "not simulated" paths are exercised); the presets are this,
cna-2s and malthusian-t5 (no cna-4s nor slides-48: their descriptions are used).
Machines: PRESET, or [PRESET,]KEY=VALUE,... with cores per socket, as the real one.
Throughput is a deterministic function of lock, threads, machine and seed.
FAKE_SIM_LOG: a file that gets "WORKLOAD SPEC THREADS MACHINE SEED DURATION" per run.
"""
import json
import os
import sys
import time

PRESETS = {"this": "1 socket, 2 cores (this machine)", "cna-2s": "2 x Xeon E5-2699 v3 (CNA paper)",
           "malthusian-t5": "SPARC T5, one socket (Malthusian paper)"}
PRESET_MODEL = {"this": {"sockets": 1, "cores": 2, "smt": 1}, "cna-2s": {"sockets": 2, "cores": 18, "smt": 2},
                "malthusian-t5": {"sockets": 1, "cores": 16, "smt": 8}}
MACHINE_KEYS = ["sockets", "cores", "smt", "llc", "hit", "local", "remote", "rmw", "slice", "wake", "switch"]
SIM_LOCKS = ["tas", "ticket", "mcs", "twa", "cna", "mcscr", "mcscr-stp", "mcs-stp"]
BENCH_LOCKS = SIM_LOCKS + ["pthread"]
WORKLOADS = {"mutexbench": ["cs_steps", "ncs_max", "harness_lines"],
             "randarray": ["private_ints", "shared_ints", "ncs_loads", "cs_loads", "cs_stores"]}
BENCH_WORKLOADS = dict(WORKLOADS, kvmap=["key_range", "lookup_pct", "external_work"])
SPEED = {"tas": 3, "ticket": 5, "mcs": 4, "twa": 6, "cna": 7, "mcscr": 7, "mcscr-stp": 8, "mcs-stp": 2, "pthread": 9}


def fail(message):
    print(f"locklab-sim: {message}", file=sys.stderr)
    sys.exit(2)


def parse_machine(text):
    model = {}
    for n, item in enumerate(text.split(",")):
        key, eq, value = item.partition("=")
        if not eq and n == 0 and item in PRESET_MODEL:
            model = dict(PRESET_MODEL[item])
            continue
        if not eq:
            fail(f"unknown preset '{text}' (valid: {', '.join(PRESETS)}, or sockets=S,cores=C[,KEY=VALUE...])")
        if key not in MACHINE_KEYS:
            fail(f"unknown machine key '{key}' in '{text}' (valid: {', '.join(MACHINE_KEYS)})")
        try:
            model[key] = float(value) if "." in value else int(value)
        except ValueError:
            fail(f"bad value '{value}' for machine key {key} (valid: a positive number)")
    if "sockets" not in model or "cores" not in model:
        fail(f"machine '{text}' lacks sockets= or cores= (valid: sockets=S,cores=C[,KEY=VALUE...])")
    return model


def main(argv):
    as_bench = argv[:1] == ["--as-bench"]
    argv = argv[1:] if as_bench else argv
    locks, workloads = (BENCH_LOCKS, BENCH_WORKLOADS) if as_bench else (SIM_LOCKS, WORKLOADS)
    if argv == ["--list-presets"] and not as_bench:
        for name, desc in PRESETS.items():
            print(f"{name}\t{desc}")
        return 0
    if argv == ["--list"] and as_bench:
        print("\n".join(locks))
        return 0
    if argv == ["--workloads"] and as_bench:
        for w, keys in workloads.items():
            print(f"{w:<16} a fake workload")
            for k in keys:
                print(f"  --param {k}=1  (0..10000000, integer) a fake parameter")
        return 0
    if not argv or argv[0].startswith("-"):
        fail(f"unknown option '{argv[0] if argv else ''}' (valid: WORKLOAD ..., --list-presets)")
    workload, opts, params = argv[0], {}, []
    i = 1
    while i < len(argv):
        if argv[i] == "--json":
            opts["json"] = True
            i += 1
            continue
        if argv[i] == "--param":
            params.append(argv[i + 1])
        else:
            opts[argv[i]] = argv[i + 1]
        i += 2
    if workload not in workloads:
        fail(f"unknown workload '{workload}' (valid: {', '.join(workloads)})")
    spec = opts.get("--lock", "")
    if spec.split(":")[0] not in locks:
        fail(f"unknown lock '{spec}' (valid: {', '.join(locks)})")
    for p in params:
        key, _, value = p.partition("=")
        if key not in workloads[workload] or not value.isdigit():
            fail(f"bad --param '{p}' for {workload} (valid keys: {', '.join(workloads[workload])})")
    threads = opts.get("--threads", "")
    if not threads.isdigit() or not 1 <= int(threads) <= 4096:
        fail(f"bad value '{threads}' for --threads (valid: 1..4096)")
    threads, duration = int(threads), float(opts.get("--duration", "1"))
    if as_bench:
        model, seed = None, 0
    else:
        if "--machine" not in opts:
            fail("missing --machine (valid: sockets=S,cores=C[,...] or a preset)")
        model, seed = parse_machine(opts["--machine"]), int(opts.get("--seed", "1"))
    log = os.environ.get("FAKE_SIM_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"{workload} {spec} {threads} {opts.get('--machine', '-')} {seed} {duration}\n")
    # Tests of the sweep's parallel runs: FAKE_SIM_SLOW / FAKE_SIM_FAIL = "SPEC THREADS SEED" (not the
    # 1-ms validation runs) makes that run sleep FAKE_SIM_SLOW_S seconds / fail.
    this_run = f"{spec} {threads} {seed}"
    if duration != 0.001 and os.environ.get("FAKE_SIM_SLOW") in (this_run, "all"):
        time.sleep(float(os.environ.get("FAKE_SIM_SLOW_S", "1")))
    if duration != 0.001 and os.environ.get("FAKE_SIM_FAIL") == this_run:
        print("locklab-sim: the run failed as the test asked", file=sys.stderr)
        return 1
    cores = model["sockets"] * model["cores"] * model.get("smt", 1) if model else 2
    rate = SPEED[spec.split(":")[0]] * 1e6 * min(threads, cores) / (1 + 0.05 * threads) * (1 + seed / 1000)
    ops = max(1, int(rate * duration))
    per = [ops // threads] * threads
    per[0] += ops - sum(per)
    obj = {"workload": workload, "lock": spec, "threads": threads, "duration_s": duration, "ops": ops,
           "throughput_ops_s": ops / duration, "per_thread_ops": per, "thread_sockets": [0] * threads,
           "lwss": 1.0, "mttr": 0.0, "gini": 0.0, "rstddev": 0.0, "fairness_factor": 0.5, "max_min_ratio": 1.0,
           "socket_switches": 0.0, "topology": "sim", "vcsw": 0, "ivcsw": 0, "cpu_util": 1.0,
           "admissions_logged": ops, "exclusion_ok": True}
    if not as_bench:
        obj.update({"simulated": True, "machine": model, "seed": seed, "sim_events": 10 * ops, "host_seconds": 0.01})
    if opts.get("json"):
        print(json.dumps(obj))
    else:
        print(f"{workload} {spec} {threads} threads: {obj['throughput_ops_s']:.0f} ops/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
