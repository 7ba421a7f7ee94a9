#!/usr/bin/env bash
# prodcons and bufpool (bench/wl_prodcons.c, bench/wl_bufpool.c): short runs of
# every variant and discipline; each must keep mutual exclusion and conserve
# its messages / buffers.  Counts only, never timings.  Bad params: exit 2, one line.
set -u
bench=$1
. "$(dirname "$0")/lib.sh" # ok, bad, expect_error, finish

# check NAME KEY -- bench args...: every JSON line has exclusion_ok, KEY == 0 and progress
check() {
  local name=$1 key=$2; shift 3
  local out
  # a waiter that nobody wakes at the end of the interval hangs: timeout turns that into a failure
  if ! out=$(timeout 60 "$bench" "$@" --duration 0.05 --json 2>&1); then
    bad "$name: exit $?: $out"; return
  fi
  local verdict
  verdict=$(printf '%s\n' "$out" | python3 -c '
import json, sys
key = sys.argv[1]
for line in sys.stdin:
    r = json.loads(line)
    if not r["exclusion_ok"]:
        print("exclusion violated"); break
    if r.get(key) != 0:
        print("%s = %s" % (key, r.get(key))); break
    if r["ops"] <= 0:
        print("no progress"); break
else:
    print("ok")' "$key")
  if [ "$verdict" = ok ]; then ok "$name"; else bad "$name: $verdict"; fi
}

for lock in mcs-stp pthread lifocr-stp; do
  for cond in 0 1; do
    check "prodcons $lock cond=$cond" lost_messages -- prodcons --lock "$lock" --threads 6 --param cond=$cond
    # one producer: at the end the consumers are usually all waiting for it
    check "prodcons $lock cond=$cond 1 producer" lost_messages -- prodcons --lock "$lock" --threads 4 --param cond=$cond --runs 3
    # a tiny queue makes producers and consumers wait on the condition variables all the time
    check "prodcons $lock cond=$cond capacity=2" lost_messages -- prodcons --lock "$lock" --threads 5 \
      --param cond=$cond --param capacity=2 --param consumers=2
    for variant in 0 1; do
      check "bufpool $lock variant=$variant cond=$cond" lost_buffers -- bufpool --lock "$lock" --threads 8 \
        --param variant=$variant --param cond=$cond --param buffers=2 --param buffer_kb=64
    done
  done
done

expect_error "prodcons threads <= consumers" "bad value '3' for --threads" -- "$bench" prodcons --lock mcs --threads 3
expect_error "prodcons bad cond" "bad value '2' for --param cond" -- "$bench" prodcons --lock mcs --threads 4 --param cond=2
expect_error "bufpool bad variant" "bad value '3' for --param variant" -- "$bench" bufpool --lock mcs --param variant=3
# 4096 private buffers of 64 MiB (256 GiB) cannot be allocated and touched: refused up front, not an OOM or a hang
expect_error "bufpool footprint over memory" "bufpool needs" -- timeout 30 "$bench" bufpool --lock mcs \
  --param buffer_kb=65536 --threads 4096 --duration 0.01
expect_error "bufpool zero buffers" "bad value '0' for --param buffers" -- "$bench" bufpool --lock mcs --param buffers=0

finish
