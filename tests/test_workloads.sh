#!/usr/bin/env bash
# Every locklab-bench workload end to end, under a queue lock and glibc's mutex:
# exclusion holds, operations complete, the workload's extras are reported and
# consistent, and bad parameters give exit 2 with one line.  No timing asserts.
#   test_workloads.sh BENCH [SPEC...]: also runs every workload under each SPEC
#   (exclusion holds, operations complete).
set -u
bench=$1
shift
DURATION=0.2 # long enough for both threads to be scheduled on a loaded 2-CPU machine
. "$(dirname "$0")/lib.sh" # ok, bad, expect_error, finish

# json_num LINE KEY: the numeric value of "KEY": in LINE (empty if absent)
json_num() { [[ $1 =~ \"$2\":(-?[0-9.]+(e[-+][0-9]+)?) ]] && echo "${BASH_REMATCH[1]}"; }

# check_run NAME EXTRAS -- bench args...: both JSON lines must have exclusion_ok
# true, ops > 0, two per-thread counts and every extra in EXTRAS.
check_run() {
  local name=$1 extras=$2; shift 3
  local out rc lines=0 problems=""
  out=$("$bench" "$@" --lock mcs --lock pthread --threads 2 --duration "$DURATION" --json 2>&1); rc=$?
  while read -r line; do
    lines=$((lines + 1))
    [[ $line == *'"exclusion_ok":true'* ]] || problems="$problems exclusion"
    [[ $(json_num "$line" ops) -gt 0 ]] 2>/dev/null || problems="$problems ops"
    [[ $line =~ \"per_thread_ops\":\[[0-9]+,[0-9]+\] ]] || problems="$problems per_thread_ops"
    for key in $extras; do
      [[ $line == *"\"$key\":"* ]] || problems="$problems no-$key"
    done
  done <<< "$out"
  if [ $rc -eq 0 ] && [ $lines -eq 2 ] && [ -z "$problems" ]; then
    ok "$name"
    LAST_OUTPUT=$out
  else
    bad "$name (rc=$rc lines=$lines:$problems): $out"
    LAST_OUTPUT=""
  fi
}

# Each workload: its extras, then one first-parameter name to give a bad value.
WORKLOADS=$(cat <<'TABLE'
randarray l2_kib,l2_from_sysfs,private_kib,shared_kib private_ints
ringwalker page_bytes ring_elems
stress-latency - cs_iters
keymap map_kib key_range
lrucache hit_rate capacity
kvmap tree_size key_range
invalidation writer_ops_s,reader_loads_s same_line
handover handovers,handover_samples cs_steps
null-thread ns_per_thread,chains round
thread-work ns_per_thread,chains,create_to_start_ns round
thread-counter ns_per_increment cs_iters
thread-switch ns_per_switch,raw_switch_ns per_processor
thread-idle idle_cpu_fraction,idle_cpu_s,idle_spin_ns spin_ns
TABLE
)
while read -r wl extras first_param; do
  extras=${extras//,/ }
  [ "$extras" = - ] && extras=""
  check_run "$wl runs" "$extras" -- "$wl"
  expect_error "$wl unknown param" "$wl has no parameter 'nosuch'" -- "$bench" "$wl" --lock mcs --param nosuch=1
  expect_error "$wl bad value" "bad value '-5' for --param $first_param" -- \
    "$bench" "$wl" --lock mcs --param "$first_param=-5"
done <<< "$WORKLOADS"

# The specs given after BENCH: every workload (and mutexbench) runs under each.
for spec in "$@"; do
  while read -r wl _; do
    out=$("$bench" "$wl" --lock "$spec" --threads 2 --duration "$DURATION" --json 2>&1); rc=$?
    if [ $rc -eq 0 ] && [[ $out == *'"exclusion_ok":true'* ]] && [[ $(json_num "$out" ops) -gt 0 ]] 2>/dev/null; then
      ok "$wl runs under $spec"
    else
      bad "$wl under $spec (rc=$rc): $out"
    fi
  done <<< "mutexbench
$WORKLOADS"
done

# rwbench: its --lock specs are rwlock specs (locklab-bench --list-rwlocks).
out=$("$bench" rwbench --lock rwgate-stp --lock readpref-stp --lock pthread --lock bravo --threads 3 --duration "$DURATION" --json 2>&1); rc=$?
n=0; probs=""
while read -r line; do
  n=$((n + 1))
  [[ $line == *'"exclusion_ok":true'* ]] || probs="$probs exclusion"
  ops=$(json_num "$line" ops); r=$(json_num "$line" reads); w=$(json_num "$line" writes)
  awk "BEGIN { exit !($ops > 0 && $r + $w == $ops && $w > 0) }" || probs="$probs counts($ops=$r+$w)"
  for key in write_wait_max_ns write_wait_p99_ns read_wait_max_ns read_max_min write_max_min; do
    [[ $line == *"\"$key\":"* ]] || probs="$probs no-$key"
  done
done <<< "$out"
[ $rc -eq 0 ] && [ $n -eq 4 ] && [ -z "$probs" ] && ok "rwbench runs (rwgate-stp, readpref-stp, pthread, bravo)" || bad "rwbench (rc=$rc n=$n:$probs): $out"
line=$("$bench" rwbench --lock pft --param read_pct=100 --threads 2 --duration "$DURATION" --json 2>&1)
[[ $(json_num "$line" writes) == 0 && $(json_num "$line" reads) -gt 0 ]] 2>/dev/null && ok "rwbench: read_pct=100 writes nothing" ||
  bad "rwbench read_pct=100: $line"
expect_error "rwbench: a mutex spec is not an rwlock" "unknown rwlock 'mcs'" -- "$bench" rwbench --lock mcs
expect_error "rwbench bad value" "bad value '101' for --param read_pct" -- "$bench" rwbench --lock pft --param read_pct=101

# Consistency of the extras (counts and sizes, never timings).
# expect NAME CONDITION: an awk expression over numbers read with json_num.
expect() { if awk "BEGIN { exit !($2) }" 2>/dev/null; then ok "$1"; else bad "$1 ($2)"; fi; }
first_line() { printf '%s\n' "$LAST_OUTPUT" | head -1; }

check_run "randarray auto sizes" "" -- randarray
line=$(first_line)
l2=$(json_num "$line" l2_kib); priv=$(json_num "$line" private_kib); shared=$(json_num "$line" shared_kib)
expect "randarray: auto arrays are L2/4 ($l2 KiB L2, $priv KiB)" "$l2 > 0 && $priv * 4 == $l2 && $shared == $priv"
check_run "randarray given sizes" "" -- randarray --param private_ints=1024 --param shared_ints=2048 --param cs_stores=1
line=$(first_line)
expect "randarray: given sizes reported" "$(json_num "$line" private_kib) == 4 && $(json_num "$line" shared_kib) == 8"

# Every key of the key sets fits in the cache and no key is replaced: all hits.
check_run "lrucache all hits" "hit_rate" -- lrucache --param key_range=100 --param capacity=100 --param replace_pct=0
line=$(first_line)
expect "lrucache: hit_rate 1 when the cache holds every key ($(json_num "$line" hit_rate))" "$(json_num "$line" hit_rate) == 1"
# A one-entry cache against 2 x 1000 keys from a million: almost all misses.
check_run "lrucache one entry" "hit_rate" -- lrucache --param capacity=1
line=$(first_line)
rate=$(json_num "$line" hit_rate)
expect "lrucache: hit_rate near 0 with one entry ($rate)" "$rate < 0.1"

# Lookups only: the tree keeps its prefill of key_range/2 keys.
check_run "kvmap lookups only" "tree_size" -- kvmap --param lookup_pct=100
expect "kvmap: lookups keep 512 keys ($(json_num "$(first_line)" tree_size))" "$(json_num "$(first_line)" tree_size) == 512"
check_run "kvmap small range" "tree_size" -- kvmap --param key_range=16 --param lookup_pct=0
size=$(json_num "$(first_line)" tree_size)
expect "kvmap: tree_size within the key range ($size)" "$size >= 0 && $size <= 16"

check_run "invalidation other line" "writer_ops_s" -- invalidation --param same_line=0
expect "invalidation: the writer ran" "$(json_num "$(first_line)" writer_ops_s) > 0"
# No admissions: the history metrics are null (no data), not 0 (which would read as a real LWSS/MTTR).
line=$(first_line)
if [[ $line == *'"lwss":null'* && $line == *'"mttr":null'* && $line == *'"socket_switches":null'* ]]; then
  ok "invalidation: lwss, mttr, socket_switches are null"
else bad "invalidation: history metrics should be null: $line"; fi

check_run "handover one sample per thread" "handover_samples" -- handover --param max_samples=1
while read -r line; do
  n=$(json_num "$line" handover_samples); h=$(json_num "$line" handovers)
  if [ "${n:-x}" != x ] && (( n <= 2 && h >= n )); then
    if (( n == 0 )) || [[ $line == *'"handover_p50_ns":'* && $line == *'"handover_p99_ns":'* ]]; then
      ok "handover: kept $n of $h samples, percentiles present when kept"
    else bad "handover: percentiles missing: $line"; fi
  else bad "handover: samples $n handovers $h: $line"; fi
done <<< "$LAST_OUTPUT"
check_run "handover percentiles ordered" "handover_samples" -- handover
while read -r line; do
  p50=$(json_num "$line" handover_p50_ns); p99=$(json_num "$line" handover_p99_ns)
  if [ -z "$p50" ]; then ok "handover: no sample kept, no percentiles"
  else expect "handover: p50 <= p99 ($p50, $p99)" "$p50 <= $p99"; fi
done <<< "$LAST_OUTPUT"
# Absurd footprints (data touched before the interval) are refused up front, not an OOM or a hang.
while read -r wl args; do
  expect_error "$wl footprint over memory" "$wl needs" -- timeout 30 "$bench" "$wl" --lock mcs --duration 0.01 $args
done <<'TABLE'
randarray --param private_ints=268435456 --threads 4096
ringwalker --param ring_elems=1048576 --threads 4096
keymap --param keyset=16777216 --threads 4096
lrucache --param keyset=16777216 --threads 4096
handover --param max_samples=16777216 --threads 4096
TABLE
expect_error "handover needs 2 threads" "handover needs at least 2" -- "$bench" handover --lock mcs --threads 1 --duration 0.01

# The lightweight-thread runtime's workloads: an unknown alternative, and more processors than it runs.
expect_error "null-thread unknown alternative" \
  "bad value 'fastest' for --param alternative (valid: single-lock, multi-lock, local-freelist, idle-queue, local-readyq, pthread)" \
  -- "$bench" null-thread --lock mcs --param alternative=fastest
# pthread is a peer of null-thread, thread-work and thread-counter only.
for wl in thread-switch thread-idle; do
  expect_error "$wl: no pthread alternative" \
    "unknown thread alternative 'pthread' (valid: single-lock, multi-lock, local-freelist, idle-queue, local-readyq)" \
    -- "$bench" $wl --lock mcs --param alternative=pthread
done
expect_error "null-thread too many processors" "bad number of processors 300 (valid: 1..256)" \
  -- "$bench" null-thread --lock mcs --threads 300 --duration 0.01
for alt in single-lock multi-lock local-freelist idle-queue local-readyq; do
  check_run "null-thread $alt detached" "ns_per_thread" -- null-thread --param alternative=$alt --param join=0 --param round=5000
done
# The peer: the same chains on pthreads (joined and detached), and section 4 on pthreads; the
# JSON names the alternative.
for join in 1 0; do
  check_run "null-thread pthread join=$join" "ns_per_thread" -- null-thread --param alternative=pthread --param join=$join \
    --param round=500
  if [[ $(first_line) == *'"alternative":"pthread"'* ]]; then ok "null-thread pthread: the JSON names the alternative"
  else bad "null-thread pthread: no \"alternative\":\"pthread\" in $(first_line)"; fi
done
check_run "thread-work pthread, 5 chains" "ns_per_thread create_to_start_ns" -- thread-work --param alternative=pthread \
  --param chains=5 --param round=500
check_run "thread-counter pthread barrier" "barriers" -- thread-counter --param alternative=pthread --param barrier=1
check_run "thread-switch 3 per processor" "ns_per_switch" -- thread-switch --param per_processor=3
check_run "thread-idle, idle-queue" "idle_cpu_fraction" -- thread-idle --param alternative=idle-queue --param spin_ns=0
while read -r line; do
  expect "thread-idle: 4 null threads per processor ran" "$(json_num "$line" ops) == 8"
done <<< "$LAST_OUTPUT"
check_run "thread-counter barrier" "barriers ns_per_barrier_per_thread" -- thread-counter --param barrier=1 --param cs_iters=10
while read -r line; do
  expect "thread-counter: barrier rounds x 2 threads = increments" \
    "$(json_num "$line" barriers) * 2 == $(json_num "$line" ops) && $(json_num "$line" barriers) > 0"
done <<< "$LAST_OUTPUT"

finish
