#!/usr/bin/env bash
# The default experiment (`make demo`): a `locklab sweep` of MutexBench
# (TWA paper §4.1) and RandArray (Malthusian Locks §6.1) over a representative
# set of locks -- FIFO spin (mcs), FIFO spin-then-park (mcs-stp), concurrency
# restriction (mcscr-stp, acr), barging (backoff, parkinglot, and standby, the interposer's default),
# glibc (pthread) and a concurrencykit peer (ck-mcs) -- at 1..32 threads on this
# machine, then `locklab report`; then glibc against the interposer's default on a
# plain pthread program (bench/performance.py, docs/performance.md).  Ends with the
# tables and the report's path.
# Takes about 3 minutes on the 2-CPU development machine (2.5 min measured
# without the ck peer, while other jobs shared the machine).
#
# usage: bench/demo.sh [path/to/locklab-bench]     (environment: DEMO_OUT=DIR, LOCKLAB=path/to/locklab)
# Workloads and locks the bench does not offer (not built, or a peer library
# not installed) are skipped with one line each, so the list can run ahead of the build.
set -euo pipefail

WORKLOADS=(mutexbench randarray)
LOCKS=(mcs mcs-stp mcscr-stp acr parkinglot standby backoff pthread ck-mcs)
THREADS=1,2,4,8,16,32
RUNS=3
DURATION=0.5

bench=${1:-build/bin/locklab-bench}
locklab=${LOCKLAB:-.venv/bin/locklab}
out=${DEMO_OUT:-results/demo-$(date -u +%Y%m%d-%H%M%S)}

known_locks=$("$bench" --list)
known_workloads=$("$bench" --workloads | awk '/^[^[:space:]]/ {print $1}')
workloads=()
for w in "${WORKLOADS[@]}"; do
  if grep -qxF "$w" <<<"$known_workloads"; then workloads+=("$w"); else echo "skipping $w: not built/installed"; fi
done
locks=()
for l in "${LOCKS[@]}"; do
  if grep -qxF "${l%%:*}" <<<"$known_locks"; then locks+=("$l"); else echo "skipping $l: not built/installed"; fi
done
join() { local IFS=,; echo "$*"; }

echo "locklab demo: ${workloads[*]} x {${locks[*]}} x threads $THREADS, $RUNS interleaved runs of ${DURATION}s -> $out"
"$locklab" sweep --workloads "$(join "${workloads[@]}")" --locks "$(join "${locks[@]}")" --threads "$THREADS" \
  --runs "$RUNS" --duration "$DURATION" --out "$out" --bench "$bench"
echo
"$locklab" report "$out"
echo
echo "glibc against the interposer's default lock (standby) on a plain pthread MutexBench, through LD_PRELOAD:"
python3 "$(dirname "$0")/performance.py" --runs 3 --seconds 0.5 --rows mutexbench-2,mutexbench-16,mutexbench-64 \
  --locks default --no-uncontended --out "$out/interposer" | sed -n '/^| row/,$p'
"$locklab" report "$out/interposer" > /dev/null
echo
echo "report: $out/report.md (same content: $out/report.html); interposer: $out/interposer/report.md" \
  "(plot: $out/interposer/performance.png)"
