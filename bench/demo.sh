#!/usr/bin/env bash
# The default experiment: MutexBench on a representative set of locks (barging,
# FIFO spin, FIFO spin-then-park, concurrency restriction, NUMA-aware, glibc),
# at 2 threads (one per core) and 16 threads (8x oversubscribed), runs interleaved.
set -euo pipefail
bench=${1:-build/bin/locklab-bench}
locks=(pthread tas backoff ticket twa mcs mcs-stp twa-stp mcscr-stp lifocr-stp loiter cna-stp)
args=()
for l in "${locks[@]}"; do args+=(--lock "$l"); done
echo "locklab demo: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"
for t in 2 16; do
  echo
  "$bench" mutexbench "${args[@]}" --threads "$t" --duration 0.5 --runs 3
done
echo
echo "uncontended acquire+release (ns per pair, lower is better):"
"$bench" uncontended --lock pthread --lock tas --lock ticket --lock mcs --lock twa --duration 0.3 --runs 3
