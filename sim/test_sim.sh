#!/usr/bin/env bash
# locklab-sim (docs/simulator.md), at small sizes: every lock x policy keeps exact
# counts on 1..8 simulated cores (oversubscribed below 4) and finishes; two locks on
# the 144-CPU preset; schedule exploration passes correct locks and catches the
# broken one; bad machines are one line and exit 2; a seed gives the same result.
#   test_sim.sh LOCKLAB_SIM LOCKLAB_BENCH
set -u
sim=$1 bench=$2
. "$(dirname "$0")/../tests/lib.sh" # ok, bad, expect_error, finish

# Every spec of the registry (locklab-bench --list: the same registry, less the peers:
# ck-* is Concurrency Kit's code, not written against the atomics layer), 4 threads.
specs() { "$bench" --list | grep -v '^ck-'; }
for cores in 1 2 4 8; do
  failed=""
  n=0
  while read -r spec; do
    n=$((n + 1))
    out=$(timeout 60 "$sim" mutexbench --lock "$spec" --threads 4 --machine "sockets=1,cores=$cores" \
          --duration 0.002 --json 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || [[ $out != *'"exclusion_ok":true'* ]] || [[ $out != *'"sim_outcome":"done"'* ]] ||
       [[ $out == *'"ops":0,'* ]]; then
      failed="$failed $spec(rc=$rc)"
    fi
  done < <(specs)
  [ -z "$failed" ] && ok "$n specs, 4 threads on $cores simulated cores: exact counts, all finish" ||
    bad "on $cores cores:$failed"
done

for lock in mcs cna ticket; do
  out=$(timeout 60 "$sim" mutexbench --lock $lock --threads 144 --machine cna-4s --duration 0.0001 --json 2>&1)
  [[ $out == *'"exclusion_ok":true'* && $out == *'"sim_outcome":"done"'* && $out == *'"threads":144'* ]] &&
    ok "$lock: 144 threads on cna-4s" || bad "$lock on cna-4s: $out"
done
out=$("$sim" randarray --lock mcscr-stp --threads 8 --machine malthusian-t5 --duration 0.002 --json 2>&1)
[[ $out == *'"exclusion_ok":true'* && $out == *'"llc_miss_rate"'* ]] && ok "randarray on malthusian-t5" ||
  bad "randarray: $out"

# Schedule exploration: every spec passes the validator's five clients (one schedule
# each, 3 threads x 3 acquisitions), a few locks 40 schedules; the broken
# test-then-set is caught.
failed=""
n=0
while read -r spec; do
  n=$((n + 1))
  out=$(timeout 60 "$sim" --explore 5 --lock "$spec" --threads 3 2>&1) || failed="$failed $spec"
done < <(specs)
[ -z "$failed" ] && ok "$n specs pass 5 explored schedules" || bad "explore failed:$failed"
for lock in tas ticket mcs clh-park twa-stp mcscr-stp cna hemlock pthread; do
  out=$("$sim" --explore 40 --lock $lock --threads 3 2>&1)
  [ $? -eq 0 ] && ok "explore $lock: $(tail -1 <<<"$out")" || bad "explore $lock: $out"
done
out=$("$sim" --explore 200 --lock broken-test-then-set --threads 2 --expect-fail 2>&1)
[ $? -eq 0 ] && [[ $out == *"mutual exclusion violated"* || $out == *"lost update"* ]] &&
  ok "explore catches broken-test-then-set: $(head -1 <<<"$out")" || bad "broken lock not caught: $out"

# Bad input: one line naming the bad value and the valid choices, exit 2.
expect_error "unknown preset"   "unknown machine preset 'nosuch'" -- "$sim" mutexbench --lock mcs --machine nosuch
expect_error "unknown key"      "unknown key 'cpus'"              -- "$sim" mutexbench --lock mcs --machine sockets=1,cpus=4
expect_error "bad value"        "bad value 'zero' for sockets"    -- "$sim" mutexbench --lock mcs --machine sockets=zero,cores=2
expect_error "missing cores"    "sockets and cores are required"  -- "$sim" mutexbench --lock mcs --machine sockets=2
expect_error "too large"        "too large"                       -- "$sim" mutexbench --lock mcs --machine sockets=16,cores=256
expect_error "unknown lock"     "unknown lock 'nosuch'"           -- "$sim" mutexbench --lock nosuch --machine this
expect_error "unknown workload" "unknown workload 'nope'"         -- "$sim" nope --lock mcs
expect_error "bad param"        "has no parameter 'zz'"           -- "$sim" mutexbench --lock mcs --param zz=1
[ "$("$sim" --list)" = "$(specs)" ] && ok "--list: the registry's specs" || bad "--list differs from locklab-bench's"
n=$("$sim" --list-presets | awk -F'\t' 'NF == 2' | wc -l)
[ "$n" -ge 4 ] && ok "--list-presets: $n presets" || bad "--list-presets: $n"

# Determinism: the same seed gives the same JSON, host time apart.
strip() { sed -e 's/"host_seconds":[0-9.]*//' -e 's/"host_cpu_seconds":[0-9.]*//' -e 's/"sim_events_per_s":[0-9.]*//'; }
a=$("$sim" mutexbench --lock mcs-stp --threads 6 --machine sockets=1,cores=2 --duration 0.002 --seed 7 --json | strip)
b=$("$sim" mutexbench --lock mcs-stp --threads 6 --machine sockets=1,cores=2 --duration 0.002 --seed 7 --json | strip)
c=$("$sim" mutexbench --lock mcs-stp --threads 6 --machine sockets=1,cores=2 --duration 0.002 --seed 8 --json | strip)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "same seed, same result" || bad "same seed differs"
[ "$a" != "$c" ] && ok "another seed, another schedule" || bad "seed has no effect"
finish
