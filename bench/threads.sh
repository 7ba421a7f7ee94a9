#!/usr/bin/env bash
# Issue 11's measurements side by side, in one run (docs/threads.md, "The
# measurement script"): every row below runs RUNS times, interleaved (run 1 of
# every row, then run 2, ...) so that machine noise hits all rows alike; then
# bench/threads_report.py prints medians with [min..max] and the issue's target
# ratios, each PASS or FAIL computed from the numbers, and writes a markdown
# fragment for docs/threads.md.
#
#   bench/threads.sh [--quick] [--out DIR]
#
#   null-thread    the five alternatives and pthread at P = 1, 2 and OVER
#                  (oversubscribed), Boost.Fiber at 1, goroutines at 1, 2, OVER
#   thread-switch  the five alternatives at P = 1, Boost.Fiber (and Boost.Context's
#                  raw switch), goroutines (runtime.Gosched)
#   thread-work    local-readyq and single-lock at P = 1, 2 (speedup), at two grains:
#                  FINE_ITERS (a grain a few times a thread's own cost, where one
#                  lock limits the throughput: the runtime's targets (docs/threads.md)) and WORK_ITERS
#   thread-counter section 4 on the runtime's threads at P = 2: tas, ttas, backoff,
#                  anderson x cs_iters 0, 100, 1000, and barrier rounds
#   thread-idle    the five alternatives at P = 2: CPU share after the spin budget
#
# Environment: BUILD (build), RUNS (5), DURATION (seconds per run, 1), OVER (8),
# LOCK (the runtime's locks, backoff: the paper's), FINE_ITERS and WORK_ITERS
# (thread-work's grains, 100 and 1000).  --quick: 2 runs of 0.02 s, small rounds: a smoke test that every
# row runs and is printed (tests/test_threads_script.sh; nothing is asserted on
# the numbers).  Writes DIR/runs.tsv (ROW<TAB>JSON per run) and DIR/threads.md
# (default DIR: results/threads).  Peers not built (no Boost, no Go) are skipped
# with a line saying so; their targets say SKIP.  A row that fails ends the
# script (exit 1) with the failing command and its output.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
out=results/threads
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --out)
      [ $# -ge 2 ] || { echo "threads.sh: --out needs a directory" >&2; exit 2; }
      out=$2; shift ;;
    *) echo "threads.sh: unknown argument '$1' (valid: --quick, --out DIR)" >&2; exit 2 ;;
  esac
  shift
done
build=${BUILD:-build}
lock=${LOCK:-backoff}
over=${OVER:-8}
work_iters=${WORK_ITERS:-1000}
fine_iters=${FINE_ITERS:-100}
if [ $quick = 1 ]; then
  runs=${RUNS:-2} duration=${DURATION:-0.02} round=2000 pthread_round=500
else
  runs=${RUNS:-5} duration=${DURATION:-1} round=100000 pthread_round=20000
fi
for v in runs:$runs over:$over work_iters:$work_iters fine_iters:$fine_iters; do
  [[ ${v#*:} =~ ^[0-9]+$ ]] && [ "${v#*:}" -ge 1 ] ||
    { echo "threads.sh: bad ${v%%:*} '${v#*:}' (valid: a positive integer)" >&2; exit 2; }
done
bench=$build/bin/locklab-bench boost=$build/bin/locklab-peer-boost go=$build/bin/locklab-peer-go
[ -x "$bench" ] || { echo "threads.sh: no $bench (run make build, or set BUILD)" >&2; exit 2; }
alternatives="single-lock multi-lock local-freelist idle-queue local-readyq"

labels=() commands=()
row() { # LABEL COMMAND...: one row, run RUNS times
  labels+=("$1"); shift
  commands+=("$(printf '%q ' "$@")")
}
lb() { # LABEL WORKLOAD ARGS...: a locklab-bench row (the runtime's locks: $lock)
  local label=$1 wl=$2; shift 2
  row "$label" "$bench" "$wl" --lock "$lock" --duration "$duration" --json "$@"
}

for p in 1 2 "$over"; do
  for alt in $alternatives; do
    lb "null-thread $alt P=$p" null-thread --threads "$p" --param "alternative=$alt" --param "round=$round"
  done
  lb "null-thread pthread P=$p" null-thread --threads "$p" --param alternative=pthread --param "round=$pthread_round"
done
if [ -x "$boost" ]; then
  row "null-thread boost-fiber P=1" "$boost" null-thread --duration "$duration" --round "$round"
else
  echo "threads.sh: Boost.Fiber peer not built ($boost; Debian: libboost-fiber-dev, then make): skipped"
fi
if [ -x "$go" ]; then
  for p in 1 2 "$over"; do
    row "null-thread goroutine P=$p" "$go" null-thread --threads "$p" --duration "$duration" --round "$round"
  done
else
  echo "threads.sh: Go peer not built ($go; needs a Go toolchain at configure time): skipped"
fi

for alt in $alternatives; do
  lb "thread-switch $alt P=1" thread-switch --threads 1 --param "alternative=$alt"
done
[ -x "$boost" ] && row "thread-switch boost-fiber P=1" "$boost" thread-switch --duration "$duration"
[ -x "$go" ] && row "thread-switch goroutine P=1" "$go" thread-switch --threads 1 --duration "$duration"

for alt in local-readyq single-lock; do
  for p in 1 2; do
    lb "thread-work-fine $alt P=$p" thread-work --threads "$p" --param "alternative=$alt" --param "round=$round" \
      --param "work_iters=$fine_iters"
    lb "thread-work $alt P=$p" thread-work --threads "$p" --param "alternative=$alt" --param "round=$round" \
      --param "work_iters=$work_iters"
  done
done

for cs in 0 100 1000; do
  for l in tas ttas backoff anderson; do
    row "thread-counter $l cs_iters=$cs P=2" "$bench" thread-counter --lock "$l" --threads 2 --duration "$duration" \
      --json --param "cs_iters=$cs"
  done
done
for l in tas ttas backoff anderson; do
  row "thread-counter $l barrier P=2" "$bench" thread-counter --lock "$l" --threads 2 --duration "$duration" --json \
    --param barrier=1
done

for alt in $alternatives; do
  lb "thread-idle $alt P=2" thread-idle --threads 2 --param "alternative=$alt"
done

mkdir -p "$out"
tsv=$out/runs.tsv
: > "$tsv"
echo "threads.sh: ${#labels[@]} rows x $runs runs of ${duration} s, interleaved; runtime locks: $lock"
for ((r = 1; r <= runs; r++)); do
  for i in "${!labels[@]}"; do
    if ! json=$(eval "${commands[$i]}" 2>"$out/stderr") || [[ $json != '{'* ]] || [[ $json == *$'\n'* ]]; then
      echo "threads.sh: row '${labels[$i]}' failed: ${commands[$i]}" >&2
      printf '%s\n' "$json" >&2
      cat "$out/stderr" >&2
      exit 1
    fi
    printf '%s\t%s\n' "${labels[$i]}" "$json" >> "$tsv"
  done
  echo "threads.sh: run $r of $runs done"
done
rm -f "$out/stderr"
python3 bench/threads_report.py "$tsv" "$out/threads.md" "$runs" "$duration" "$lock" "$over" "$work_iters" \
  "$fine_iters"
