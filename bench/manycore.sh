#!/usr/bin/env bash
# bench/manycore.sh: the default lock against glibc's mutex on this machine, beside the
# simulator's prediction for a machine described from lscpu (docs/performance.md, "Many cores").
#
#   bench/manycore.sh [--runs R] [--duration S] [--out FILE]
#
# Measures MutexBench and RandArray at 1, 2, 4, ... threads up to the CPUs, the CPUs, and twice
# the CPUs, two ways, R rounds (default 5) with every configuration once per round (so the
# pairs are side by side in time):
#   bench       locklab-bench WORKLOAD --lock DEFAULT --lock pthread (the library's verbs)
#   interposer  build/bin/locklab-plain WORKLOAD (a plain pthread program) under glibc, and
#               under the interposer with LOCKLAB_LOCK unset (the default lock)
# then, after the measurements (they would disturb them), locklab-sim's prediction of the same
# ratios on sockets=S,cores=C,smt=K from lscpu (seed 1, 0.02 simulated s).  Prints one table:
# median ratio [min..max] of each way, the per-thread max/min of both locks under the
# interposer, the predicted ratio and the prediction's error (predicted / measured - 1).
# Needs a built tree (make) and nothing else: bash, coreutils, lscpu, python3 (standard library).
# Takes at most about 8 minutes: --duration shrinks to fit when the CPUs are many.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/bin
pre=$root/build/lib/liblocklab-preload.so
runs=5 duration= out=
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=${2:-}; shift 2 ;;
    --duration) duration=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    *) echo "manycore.sh: unknown argument '$1' (valid: --runs R, --duration S, --out FILE)" >&2; exit 2 ;;
    esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "manycore.sh: --runs '$runs' is not a whole number >= 1" >&2; exit 2; }
for f in "$bin/locklab-bench" "$bin/locklab-plain" "$bin/locklab-sim" "$pre"; do
    [ -x "$f" ] || [ -f "$f" ] || { echo "manycore.sh: $f missing (run make first)" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "manycore.sh: python3 missing" >&2; exit 2; }

cpus=$(nproc)
field() { LC_ALL=C lscpu | sed -n "s/^$1:[[:space:]]*//p" | head -1; }
sockets=$(field 'Socket(s)') cores=$(field 'Core(s) per socket') smt=$(field 'Thread(s) per core')
model=$(field 'Model name')
[[ $sockets =~ ^[0-9]+$ && $cores =~ ^[0-9]+$ && $smt =~ ^[0-9]+$ ]] || sockets=1 cores=$cpus smt=1
if [ $((sockets * cores * smt)) -ne "$cpus" ]; then # affinity or a cgroup: model the CPUs we may use
    note="lscpu says ${sockets}x${cores}x${smt}, this process may use $cpus CPUs: modelled as 1 socket"
    sockets=1 cores=$cpus smt=1
fi
machine="sockets=$sockets,cores=$cores,smt=$smt"
default=$(LOCKLAB_VERBOSE=1 LD_PRELOAD=$pre /bin/true 2>&1 | sed -n 's/.*lock=\([^ ]*\) (default).*/\1/p' | head -1)
[ -n "$default" ] || { echo "manycore.sh: the interposer did not name its default lock" >&2; exit 2; }

threads=()
for ((t = 1; t < cpus; t *= 2)); do threads+=("$t"); done
threads+=("$cpus" "$((2 * cpus))")
workloads=(mutexbench randarray)
# Per round: every thread count x workload x (2 locks in the bench + 2 plain runs).
slots=$(( ${#threads[@]} * ${#workloads[@]} * 4 * runs ))
if [ -z "$duration" ]; then # fit about 6 minutes of measurement, 0.2..1 s a run
    duration=$(python3 -c "print(max(0.2, min(1.0, round(360 / $slots, 2))))")
fi
python3 -c "import sys; d=float(sys.argv[1]); sys.exit(0 if 0 < d <= 60 else 1)" "$duration" 2>/dev/null ||
    { echo "manycore.sh: --duration '$duration' is not a number of seconds in (0, 60]" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "manycore.sh: $model, $cpus CPUs ($machine${note:+; $note}); default lock $default;" \
    "threads ${threads[*]}; $runs rounds of ${duration} s runs (about $(python3 -c "print(round($slots * $duration / 60 + 0.5))") min)" >&2
for ((r = 1; r <= runs; r++)); do
    for t in "${threads[@]}"; do
        for w in "${workloads[@]}"; do
            "$bin/locklab-bench" "$w" --lock "$default" --lock pthread --threads "$t" --duration "$duration" --json \
                2>/dev/null | sed "s/^/bench $w $t /" >>"$tmp/rows"
            echo "plain $w $t glibc $("$bin/locklab-plain" "$w" "$t" "$duration" 2>/dev/null)" >>"$tmp/rows"
            echo "plain $w $t default $(env -u LOCKLAB_LOCK LD_PRELOAD="$pre" "$bin/locklab-plain" "$w" "$t" "$duration" 2>/dev/null)" >>"$tmp/rows"
        done
    done
    echo "manycore.sh: round $r of $runs done" >&2
done
# The prediction, once the measurements are over: one simulation per CPU at a time.
for t in "${threads[@]}"; do for w in "${workloads[@]}"; do for l in "$default" pthread; do
    echo "$w $t $l"
done; done; done | xargs -P "$cpus" -L 1 sh -c \
    'echo "sim $2 $3 $4 $("$0" "$2" --lock "$4" --threads "$3" --machine "$1" --duration 0.02 --seed 1 --json 2>/dev/null | tail -1)"' \
    "$bin/locklab-sim" "$machine" >>"$tmp/rows" 2>/dev/null

# The table: medians and spreads by the lab's python/locklab/tabulate.py (standard library only).
PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" \
python3 - "$tmp/rows" "$default" "$model" "$cpus" "$machine" "$runs" "$duration" "${threads[*]}" >"$tmp/table" <<'PY'
import json, sys
from locklab.tabulate import Spread, markdown_table, ratios
rows, default, model, cpus, machine, runs, duration, threads = sys.argv[1:]
threads = [int(t) for t in threads.split()]
bench, plain, mm, sim = {}, {}, {}, {}
for line in open(rows):
    kind, w, t, rest = line.rstrip("\n").split(" ", 3)
    t = int(t)
    if kind == "bench":
        try:
            d = json.loads(rest)
        except ValueError:
            continue
        bench.setdefault((w, t, "default" if d["lock"] != "pthread" else "pthread"), []).append(d["throughput_ops_s"])
    elif kind == "plain":
        who, _, out = rest.partition(" ")
        f = dict(kv.split("=", 1) for kv in out.split() if "=" in kv)
        if "ops_per_s" in f:
            plain.setdefault((w, t, who), []).append(float(f["ops_per_s"]))
            mm.setdefault((w, t, who), []).append(float(f["max_min"]) if f["max_min"] != "inf" else float("inf"))
    else:
        lock, _, out = rest.partition(" ")
        try:
            sim[(w, t, "pthread" if lock == "pthread" else "default")] = json.loads(out)["throughput_ops_s"]
        except (ValueError, KeyError):
            pass

def ratio(data, w, t, a, b):
    """The per-round ratios a/b (rounds paired in order)."""
    return Spread(ratios(data.get((w, t, a), []), data.get((w, t, b), [])))

print(f"# {default} vs glibc: {model}, {cpus} CPUs; medians of {runs} interleaved {duration}-s runs;"
      f" prediction: locklab-sim --machine {machine} --duration 0.02 --seed 1")
print()
body = []
for w in ("mutexbench", "randarray"):
    for t in threads:
        b = ratio(bench, w, t, "default", "pthread")
        p = ratio(plain, w, t, "default", "glibc")
        s = sim.get((w, t, "default")), sim.get((w, t, "pthread"))
        pred = s[0] / s[1] if s[0] and s[1] else None
        err = f"{pred / p.median - 1:+.0%}" if pred and p else "-"
        md = [Spread(mm.get((w, t, who), [])) for who in ("default", "glibc")]
        mms = ", ".join("-" if not v else ("inf" if v.median == float("inf") else f"{v.median:.1f}") for v in md)
        body.append([w, str(t), b.text("{:.2f}"), p.text("{:.2f}"), mms, "-" if pred is None else f"{pred:.2f}", err])
print(markdown_table(["workload", "threads", "bench: default/pthread", "interposer: default/glibc",
                      "max/min default, glibc", "predicted", "error"], body))
PY
cat "$tmp/table"
[ -z "$out" ] || cp "$tmp/table" "$out"
