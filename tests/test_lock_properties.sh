#!/usr/bin/env bash
# Behavioural properties measured through locklab-bench (counts, not timings):
#   starve SPEC...   16 threads (STARVE_THREADS) for 3 s (STARVE_SECONDS) on 2 CPUs: every thread completes acquisitions
#                    (also with 2 virtual sockets: threads on both sockets progress).
#                    A starved run is repeated (up to 3 runs) before it counts as a failure: with
#                    pure spinning at 8x oversubscription a thread may get only a handful
#                    of acquisitions in 3 s, and one unlucky window should not fail CI.
#   lwss MAX SPEC... 16 threads: average LWSS <= MAX (concurrency restriction works), up to 3 runs
# usage: test_lock_properties.sh BENCH starve|lwss [MAX] SPEC...
set -u
bench=$1 mode=$2; shift 2
max=""
threads=${STARVE_THREADS:-16}
seconds=${STARVE_SECONDS:-3}
[ "$mode" = lwss ] && { max=$1; shift; }
. "$(dirname "$0")/lib.sh" # ok, bad, finish
# run_until CHECK-EXPR -- bench args: prints the JSON of the first of up to 3 runs whose CHECK-EXPR holds (or the last)
run_until() {
  local expr=$1; shift 2
  local j
  for attempt in 1 2 3; do
    j=$("$@") || return 1
    [ "$(field "$j" "$expr")" = True ] && break
  done
  printf '%s' "$j"
}
field() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]); v=eval(sys.argv[2]); print(v)' "$1" "$2"; }
check() { if [ "$1" = True ]; then ok "$2"; else bad "$2"; fi; } # check True|False NAME

for spec in "$@"; do
  case $mode in
    starve)
      j=$(run_until 'min(d["per_thread_ops"]) > 0' -- "$bench" mutexbench --lock "$spec" --threads "$threads" --duration "$seconds" --json) \
        || { check False "$spec ran"; continue; }
      check "$(field "$j" 'min(d["per_thread_ops"]) > 0')" "$spec: no thread starved in $seconds s at $threads threads (min ops $(field "$j" 'min(d["per_thread_ops"])'))"
      both='len(set(d["thread_sockets"])) == 2 and all(min(o for o, s in zip(d["per_thread_ops"], d["thread_sockets"]) if s == k) > 0 for k in (0, 1))'
      j=$(LOCKLAB_TOPOLOGY=sockets=2 run_until "$both" -- "$bench" mutexbench --lock "$spec" --threads "$threads" --duration "$seconds" --json) \
        || { check False "$spec ran (sockets=2)"; continue; }
      check "$(field "$j" "$both")" \
            "$spec: threads on both virtual sockets progress (min ops $(field "$j" 'min(d["per_thread_ops"])'))"
      ;;
    lwss)
      j=$(run_until "d['lwss'] <= $max" -- "$bench" mutexbench --lock "$spec" --threads 16 --duration 2 --json) \
        || { check False "$spec ran"; continue; }
      check "$(field "$j" "d['lwss'] <= $max")" "$spec: average LWSS $(field "$j" 'd["lwss"]') <= $max at 16 threads"
      ;;
    *) echo "test_lock_properties.sh: unknown mode '$mode' (valid: starve, lwss)" >&2; exit 2 ;;
  esac
done
finish
