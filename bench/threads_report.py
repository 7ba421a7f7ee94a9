#!/usr/bin/env python3
"""Tabulate bench/threads.sh's runs: medians with [min..max] and the runtime's targets (docs/threads.md).

usage: bench/threads_report.py RUNS.TSV OUT.md RUNS DURATION LOCK OVER WORK_ITERS FINE_ITERS

RUNS.TSV has one line per run: ROW<TAB>JSON (locklab-bench's JSON contract, or a
peer's: workload, alternative, threads and the workload's extras).  Prints the
tables and the targets (each PASS or FAIL computed from the medians, or SKIP when
a row it needs did not run) and writes them as a markdown fragment to OUT.md.
Exit 1 if a row misses its metric, has fewer runs than RUNS, or reports
exclusion_ok false.
"""
import datetime
import json
import os
import platform
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from locklab.tabulate import Spread, markdown_table  # noqa: E402  (standard library only; after the path)

ALTERNATIVES = ["single-lock", "multi-lock", "local-freelist", "idle-queue", "local-readyq"]
METRIC = {"null-thread": "ns_per_thread", "thread-switch": "ns_per_switch", "thread-work": "throughput_ops_s",
          "thread-counter": "ns_per_increment", "thread-idle": "idle_cpu_fraction"}


def load(path, runs):
    rows, problems = {}, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            label, _, text = line.rstrip("\n").partition("\t")
            try:
                d = json.loads(text)
            except ValueError:
                problems.append(f"line {n} ({label}): not JSON: {text[:80]}")
                continue
            if METRIC.get(d.get("workload")) not in d:
                problems.append(f"{label}: no {METRIC.get(d.get('workload'), 'metric')} in {text[:80]}")
            if d.get("exclusion_ok") is False:
                problems.append(f"{label}: exclusion_ok false (a thread lost or run twice)")
            rows.setdefault(label, []).append(d)
    problems += [f"{label}: {len(r)} runs, not {runs}" for label, r in rows.items() if len(r) != runs]
    return rows, problems


class Cell(Spread):
    """The median [min..max] of one key over a row's runs (None: the row did not run)."""

    def __init__(self, runs, key, scale=1.0):
        super().__init__(r[key] * scale for r in runs or [] if isinstance(r.get(key), (int, float)))

    def text(self, fmt="{:.1f}"):
        return super().text(fmt)


def ratio_text(a, b, fmt="{:.2f}x"):
    return fmt.format(a.median / b.median) if a and b and b.median else "-"


def main():
    if len(sys.argv) != 9:
        sys.exit(__doc__.strip().splitlines()[2])
    path, md_path, runs, duration, lock, over, work_iters, fine_iters = sys.argv[1:]
    rows, problems = load(path, int(runs))
    get = rows.get
    out = []
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
               platform.machine()) if os.path.exists("/proc/cpuinfo") else platform.machine()
    out.append(f"Measured by `bench/threads.sh` on {cpu} ({os.cpu_count()} CPUs), "
               f"{datetime.date.today().isoformat()}: {runs} interleaved runs of {duration} s per row, "
               f"the runtime's locks `{lock}`; median [min..max] over the runs.")

    # Null thread: the paper's Table 3.2 / Figure 3.1 and the peers.
    ps = ["1", "2", over]
    body = []
    for alt in ALTERNATIVES + ["pthread", "boost-fiber", "goroutine"]:
        cells = [Cell(get(f"null-thread {alt} P={p}"), "ns_per_thread") for p in ps]
        if not any(cells):
            continue
        body.append([f"`{alt}`"] + [c.text() for c in cells] + [ratio_text(cells[0], cells[1])])
    out.append("### Null thread: create, run, exit, join (ns per thread)\n\n" +
               markdown_table(["alternative", "P = 1", "P = 2", f"P = {over}", "speedup P = 2"], body))

    body = []
    for alt in ALTERNATIVES + ["boost-fiber", "goroutine"]:
        runs_ = get(f"thread-switch {alt} P=1")
        if runs_:
            body.append([f"`{alt}`", Cell(runs_, "ns_per_switch").text(), Cell(runs_, "raw_switch_ns").text("{:.2f}")])
    out.append("### Context switch, one processor (ns)\n\n" +
               "Thread to thread (a yield: the runtime's scheduler in between; Go: `runtime.Gosched`), and the "
               "architecture's switch alone (`llt_ctx_switch`; Boost: Boost.Context's `fiber::resume`).\n\n" +
               markdown_table(["alternative", "ns per switch", "raw switch ns"], body))

    body = []
    for row, iters in (("thread-work-fine", fine_iters), ("thread-work", work_iters)):
        cells = {}
        for alt in ["local-readyq", "single-lock"]:
            c1, c2 = cells[alt] = [Cell(get(f"{row} {alt} P={p}"), "throughput_ops_s", 1e-3) for p in (1, 2)]
            body.append([iters, f"`{alt}`", c1.text("{:.0f}"), c2.text("{:.0f}"), ratio_text(c2, c1),
                         ratio_text(cells["local-readyq"][1], c2) if alt == "single-lock" else ""])
    out.append("### thread-work: throughput (thousand threads/s) by grain (work_iters)\n\n" +
               markdown_table(["work_iters", "alternative", "P = 1", "P = 2", "P = 2 / P = 1",
                               "`local-readyq` / `single-lock`, P = 2"], body))

    body = []
    for l in ["tas", "ttas", "backoff", "anderson"]:
        body.append([f"`{l}`"] + [Cell(get(f"thread-counter {l} cs_iters={cs} P=2"), "ns_per_increment").text()
                                  for cs in (0, 100, 1000)] +
                    [Cell(get(f"thread-counter {l} barrier P=2"), "ns_per_barrier_per_thread").text()])
    out.append("### Spin-waiting on the runtime's threads (section 4), P = 2\n\n"
               "ns per increment by cs_iters (PRNG steps inside the critical section); barrier: ns per barrier "
               "per thread.\n\n" +
               markdown_table(["lock", "cs_iters = 0", "cs_iters = 100", "cs_iters = 1000", "barrier"], body))

    idle = {alt: Cell(get(f"thread-idle {alt} P=2"), "idle_cpu_fraction", 100.0) for alt in ALTERNATIVES}
    out.append("### Idle runtime, P = 2: CPU after the spin budget (% of its processors, getrusage)\n\n" +
               markdown_table(["alternative", "idle CPU %"],
                              [[f"`{a}`", c.text("{:.3f}")] for a, c in idle.items()]))

    # Issue 11's targets.
    targets = []

    def target(name, cell, limit, ok_if_below=True, value_fmt="{:.1f}", missing="a row did not run"):
        if not cell:
            targets.append([name, "-", f"SKIP ({missing})"])
            return
        ok = cell.median <= limit if ok_if_below else cell.median >= limit
        targets.append([name, value_fmt.format(cell.median), "PASS" if ok else "FAIL"])

    def ratio_of(a, b):  # a Spread of the ratio of two medians (none when either is missing)
        return Spread([a.median / b.median] if a and b and b.median > 0 else [])

    boost = Cell(get("null-thread boost-fiber P=1"), "ns_per_thread")
    for alt in ["local-freelist", "local-readyq"]:
        ours = Cell(get(f"null-thread {alt} P=1"), "ns_per_thread")
        target(f"null thread, `{alt}`, P = 1: <= 150 ns", ours, 150)
        target(f"null thread, `{alt}`, P = 1: <= 0.5x Boost.Fiber's", ratio_of(ours, boost), 0.5, value_fmt="{:.2f}x",
               missing="Boost.Fiber peer not built" if not boost else "a row did not run")
    rq = get("thread-switch local-readyq P=1")
    target("context switch, thread to thread (`local-readyq`, P = 1): <= 15 ns", Cell(rq, "ns_per_switch"), 15)
    target("context switch, the architecture's alone (`llt_ctx_switch`): <= 15 ns", Cell(rq, "raw_switch_ns"), 15,
           value_fmt="{:.2f}")
    # At the fine grain: where a central lock limits the throughput (the paper's claim for local ready queues).
    w1, w2 = (Cell(get(f"thread-work-fine local-readyq P={p}"), "throughput_ops_s") for p in (1, 2))
    s2 = Cell(get("thread-work-fine single-lock P=2"), "throughput_ops_s")
    target(f"thread-work (work_iters = {fine_iters}), `local-readyq`: P = 2 >= 1.6x P = 1", ratio_of(w2, w1), 1.6,
           False, "{:.2f}x")
    target(f"thread-work (work_iters = {fine_iters}), P = 2: `local-readyq` >= 1.3x `single-lock`", ratio_of(w2, s2),
           1.3, False, "{:.2f}x")
    worst = max((c for c in idle.values() if c), key=lambda c: c.median, default=Spread([]))
    target("idle runtime: 0% CPU (every alternative's median under 1% of its processors)", worst, 1.0,
           value_fmt="{:.3f}%")
    out.append("### Issue 11's targets\n\n" + markdown_table(["target", "measured (median)", "verdict"], targets))

    text = "\n\n".join(out) + "\n"
    print(text)
    with open(md_path, "w") as f:
        f.write(text)
    print(f"threads_report: markdown fragment in {md_path}")
    for p in problems:
        print(f"threads_report: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
