#!/usr/bin/env bash
# locklab-bench: the JSON contract, and one-line errors with exit 2 for bad input.
set -u
bench=$1
. "$(dirname "$0")/lib.sh" # ok, bad, expect_error, finish

expect_error "unknown lock"        "unknown lock 'nosuch'"      -- "$bench" mutexbench --lock nosuch --duration 0.01
expect_error "unknown policy"      "unknown waiting policy 'zz'" -- "$bench" mutexbench --lock mcs-zz --duration 0.01
expect_error "harness_lines=0 is the simulator's" "harness_lines=0 is for locklab-sim only" -- "$bench" mutexbench --lock mcs --duration 0.01 --param harness_lines=0
expect_error "unsupported policy"  "does not support"            -- "$bench" mutexbench --lock tas-stp --duration 0.01
expect_error "malformed key"       "malformed parameter"         -- "$bench" mutexbench --lock mcs-stp:spin_ns --duration 0.01
expect_error "out of range"        "bad value '0'"               -- "$bench" mutexbench --lock twa:threshold=0 --duration 0.01
expect_error "unknown workload"    "unknown workload 'nope'"     -- "$bench" nope --lock mcs
expect_error "threads zero"        "bad value '0' for --threads" -- "$bench" mutexbench --lock mcs --threads 0
expect_error "threads absurd"      "bad value '100000'"          -- "$bench" mutexbench --lock mcs --threads 100000
expect_error "threads not a number" "bad value 'many'"           -- "$bench" mutexbench --lock mcs --threads many
expect_error "duration negative"   "bad value '-1' for --duration" -- "$bench" mutexbench --lock mcs --duration -1
expect_error "unknown option"      "unknown option '--frobnicate'" -- "$bench" mutexbench --lock mcs --frobnicate
expect_error "missing lock"        "no --lock given"             -- "$bench" mutexbench
expect_error "spec key given twice"  "parameter 'spin_ns' given twice" -- "$bench" mutexbench --lock mcs-stp:spin_ns=10,spin_ns=20000 --duration 0.01
expect_error "param given twice"   "--param cs_steps given twice" -- "$bench" mutexbench --lock mcs --param cs_steps=3 --param cs_steps=5 --duration 0.01
expect_error "bad topology"        "bad LOCKLAB_TOPOLOGY 'sockets=zero'" -- env LOCKLAB_TOPOLOGY=sockets=zero "$bench" mutexbench --lock mcs --duration 0.01

# --list: one spec per line, every spec accepted by the bench itself.
n=0; badspec=""
while read -r spec; do
  n=$((n + 1))
  [[ $spec =~ ^[a-z0-9-]+$ ]] || badspec="$badspec $spec"
done < <("$bench" --list)
[ "$n" -ge 30 ] && [ -z "$badspec" ] && ok "--list prints $n specs" || bad "--list ($n specs; bad:$badspec)"

# JSON contract.
json=$("$bench" mutexbench --lock mcs-stp --threads 2 --duration 0.05 --json)
missing=""
for key in workload lock threads duration_s ops throughput_ops_s per_thread_ops lwss mttr gini rstddev \
           fairness_factor vcsw ivcsw cpu_util socket_switches; do
  [[ $json == *"\"$key\":"* ]] || missing="$missing $key"
done
[ -z "$missing" ] && ok "JSON has every contract key" || bad "JSON misses:$missing"
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["threads"]==2 and len(d["per_thread_ops"])==2 and d["ops"]==sum(d["per_thread_ops"]) and d["exclusion_ok"]' "$json" \
    && ok "JSON parses and is consistent" || bad "JSON inconsistent: $json"
fi
# --waits: every acquisition timed, its worst and percentiles in the extras (ordered, nonzero)
json=$("$bench" mutexbench --lock mcs-stp --threads 2 --duration 0.05 --waits --json)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert 0 < d["wait_p99_ns"] <= d["wait_p999_ns"] <= d["wait_max_ns"], d' "$json" \
  && ok "--waits: wait_p99_ns <= wait_p999_ns <= wait_max_ns" || bad "--waits: $json"
json=$("$bench" mutexbench --lock mcs-stp --threads 2 --duration 0.05 --json)
[[ $json != *wait_max_ns* ]] && ok "no --waits: no wait extras" || bad "wait extras without --waits: $json"
json=$(LOCKLAB_TOPOLOGY=sockets=2 "$bench" mutexbench --lock mcs --threads 4 --duration 0.05 --json)
[[ $json == *'"topology":"sockets=2"'* ]] && ok "virtual topology reported" || bad "topology: $json"
json=$("$bench" uncontended --lock tas --duration 0.05 --json)
[[ $json == *'"ns_per_pair":'* ]] && ok "uncontended reports ns_per_pair" || bad "uncontended: $json"

# The measured interval ends when the threads are told to stop, not when the
# last one has finished: here each thread's first NCS (3e8 delay iterations,
# ~0.3 s) runs long after a 0.02 s interval, and must not count in duration_s
# (nor divide throughput).  The margin is wide: duration_s must stay under half
# of the process's own elapsed time.
t0=$(date +%s%N)
json=$("$bench" stress-latency --lock mcs --threads 2 --duration 0.02 --param ncs_iters=300000000 --json)
elapsed=$(( $(date +%s%N) - t0 ))
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); e=int(sys.argv[2])/1e9; assert d["duration_s"] < e/2, (d["duration_s"], e); assert abs(d["throughput_ops_s"]*d["duration_s"]-d["ops"]) < 0.01*d["ops"]+0.1' "$json" "$elapsed" \
  && ok "duration_s is the interval, not the wait for the threads to finish" || bad "duration_s includes the drain: $json (process took $elapsed ns)"

finish
