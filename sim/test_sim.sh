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
# rwbench: the rwlocks (readers share the lock: the harness checks readers against writers and
# the record each reader reads); pthread is the model of glibc's (sim/pthread_rwlock_model.c)
for lock in rwgate-stp readpref-stp bravo-stp pft numarw-park pthread bravo-pthread; do
  out=$("$sim" rwbench --lock $lock --threads 12 --machine cna-2s --duration 0.002 --json 2>&1)
  [[ $out == *'"exclusion_ok":true'* && $out =~ \"reads\":[1-9] && $out =~ \"writes\":[1-9] ]] &&
    ok "rwbench $lock: 12 threads on cna-2s" || bad "rwbench $lock: $out"
done
out=$("$sim" rwbench --lock mcs --threads 2 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"'mcs'"*"valid"* ]] && ok "rwbench: a mutex spec is refused, naming it" ||
  bad "rwbench --lock mcs: rc=$rc $out"

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

# The model (docs/simulator.md, "The model"): simulated quantities, deterministic for a seed
# (not host timings).  tput ARGS...: the simulated throughput of one seeded run.
tput() { "$sim" "$@" --seed 1 --json | grep -o '"throughput_ops_s":[0-9.e+]*' | cut -d: -f2; }
at_least() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { exit !(a > 0 && b > 0 && a >= f * b) }'; }
two="sockets=1,cores=2,local=70,remote=70,pause=50,rmw=4,step=1.45"
# A transfer is not an instantaneous loss of ownership and a releasing store retires into the
# store buffer: tas at 2 threads re-takes its line often (measured here: 1.79x mcs).
a=$(tput mutexbench --lock tas --threads 2 --machine $two --duration 0.005)
b=$(tput mutexbench --lock mcs --threads 2 --machine $two --duration 0.005)
at_least "$a" "$b" 1.5 && ok "barging: tas $a >= 1.5 x mcs $b at 2 threads" || bad "barging: tas $a vs mcs $b"
# Broadcast read fills: 7 ticket waiters re-reading the grant share one fill (fill=10) rather
# than queueing one transfer each (fill = the transfer, the slides' directory).
a=$(tput mutexbench --lock ticket --threads 8 --machine sockets=1,cores=8,local=50,fill=10 --duration 0.005)
b=$(tput mutexbench --lock ticket --threads 8 --machine sockets=1,cores=8,local=50,fill=50 --duration 0.005)
at_least "$a" "$b" 2 && ok "read fills: ticket $a with fill=10 >= 2 x $b with fill=50" || bad "read fills: $a vs $b"
# TWA close to MCS at 4 threads on the CNA paper's 2-socket box, in the TWA paper's MutexBench
# (no shared data in the critical section): the paper has TWA >= MCS, the model 0.97 (seeds 1-3);
# with the harness's lines 0.91.  (Asking >= 1 would pass at seed 1 only, whose mcs run is an
# outlier: 2.3 M against 3.0 M.)
a=$(tput mutexbench --lock twa --threads 4 --machine cna-2s --duration 0.005 --param harness_lines=0)
b=$(tput mutexbench --lock mcs --threads 4 --machine cna-2s --duration 0.005 --param harness_lines=0)
at_least "$a" "$b" 0.9 && ok "twa $a >= 0.9 x mcs $b at 4 threads on cna-2s" || bad "twa $a < 0.9 x mcs $b on cna-2s"
# SMT competition: two strands of a core with half a pipeline's worth each halve the NCS rate.
a=$(tput mutexbench --lock mcs --threads 2 --machine sockets=1,cores=1,smt=2 --param ncs_max=2000 --duration 0.005)
b=$(tput mutexbench --lock mcs --threads 2 --machine sockets=1,cores=1,smt=2,smt_share=0.5 --param ncs_max=2000 \
      --duration 0.005)
at_least "$a" "$b" 1.8 && ok "smt_share=0.5: $b, about half of $a" || bad "smt_share: $a vs $b"
# Preemption at the 4-ms ticks of this machine's kernel (HZ=250): 8 spinners on 2 CPUs for
# 0.1 s are preempted 2 x 25 times.
out=$("$sim" mutexbench --lock mcs --threads 8 --machine this --duration 0.1 --seed 1 --json)
[[ $out == *'"ivcsw":50,'* ]] && ok "this: preemption at 4-ms ticks (50 in 0.1 s on 2 CPUs)" ||
  bad "this: ticks: $(grep -o '"ivcsw":[0-9]*' <<<"$out")"
"$sim" --list-presets | grep -q '^slides-48	' && ok "preset slides-48" || bad "no preset slides-48"
# The harness's admission reads the counter (a load that waits for the line) and stores commit
# in order (x86-TSO): a FIFO hand-over at 2 threads moves the lock's, the counter's and the log's
# lines (measured here: mcs at 2 threads 0.43 x its 1-thread rate; 0.88 before both).
a=$(tput mutexbench --lock mcs --threads 1 --machine this --duration 0.005)
b=$(tput mutexbench --lock mcs --threads 2 --machine this --duration 0.005)
at_least "$a" "$b" 1.5 && ok "this: mcs at 1 thread $a >= 1.5 x at 2 threads $b" || bad "this: mcs 1 thread $a, 2 $b"
# harness_lines=0 (the papers' MutexBench: no shared data in the critical section): the
# admission record is kept outside simulated memory, still exact, and a FIFO hand-over moves
# only the lock's lines (measured here: mcs at 2 threads 6.6 M ops/s against 3.4 M).
out=$("$sim" mutexbench --lock mcs --threads 2 --machine this --duration 0.005 --seed 1 --param harness_lines=0 --json)
[[ $out == *'"exclusion_ok":true'* && $out != *'"admissions_logged":0,'* ]] &&
  ok "harness_lines=0 keeps the admission record" || bad "harness_lines=0: $out"
c=$(tput mutexbench --lock mcs --threads 2 --machine this --duration 0.005 --param harness_lines=0)
at_least "$c" "$b" 1.5 && ok "this: mcs at 2 threads without harness lines $c >= 1.5 x with them $b" ||
  bad "this: harness_lines=0 $c vs 1 $b"
# glibc-like barging oversubscribed keeps its throughput, as measured here (RandArray
# pthread 8 threads on 2 CPUs: 1.95 M ops/s against 2.04 M at 2 threads, 3.6 k sleeps/s): the
# kernel compares a futex word at the end of its entry, after every earlier thread's
# operations (comparing it at the call's start put a thread to sleep for a release it was
# about to see: 0.43 x), and a thread back from a switch takes its cold cache's misses
# mlp at a time (with mlp 1: 0.27 x).
a=$(tput randarray --lock pthread --threads 8 --machine this --duration 0.05)
c=$(tput randarray --lock pthread --threads 2 --machine this --duration 0.05)
at_least "$a" "$c" 0.8 && ok "this: randarray pthread at 8 threads $a >= 0.8 x at 2 threads $c" ||
  bad "this: randarray pthread 8 threads $a vs 2 threads $c"
# The wake-up latency varies: with a constant one, RandArray's fixed-length loop phase-locked
# with the wakee, which found the lock held at every wake-up and starved (632 vs 37244 ops).
out=$("$sim" randarray --lock pthread --threads 2 --machine this --duration 0.02 --seed 1 --json)
ops=$(grep -o '"per_thread_ops":\[[0-9,]*\]' <<<"$out" | grep -o '[0-9][0-9,]*' | tr ',' ' ')
awk -v o="$ops" 'BEGIN { n = split(o, v, " "); exit !(n == 2 && v[1] >= v[2] / 2 && v[2] >= v[1] / 2) }' &&
  ok "this: randarray pthread threads balanced ($ops)" || bad "this: randarray pthread starves a thread ($ops)"

# Memory-level parallelism: RandArray's loads do not depend on each other, and with mlp=8 one
# thread keeps 8 L3 hits in flight (1 thread, 1 MiB arrays against a 128 KiB L2).
ra="--param private_ints=262144 --param shared_ints=262144"
a=$(tput randarray --lock mcs --threads 1 --machine malthusian-t5 --duration 0.002 $ra)
b=$(tput randarray --lock mcs --threads 1 --machine malthusian-t5,mlp=1 --duration 0.002 $ra)
at_least "$a" "$b" 3 && ok "mlp=8: randarray $a >= 3 x $b with mlp=1" || bad "mlp: $a vs $b"
# An inclusive LLC answers a read of a line other cores hold clean: 5 threads reading the shared
# array in turn pay an L3 hit per line, not a core-to-core transfer.
a=$(tput randarray --lock mcs --threads 5 --machine malthusian-t5 --duration 0.002 $ra)
b=$(tput randarray --lock mcs --threads 5 --machine malthusian-t5,inclusive=0 --duration 0.002 $ra)
at_least "$a" "$b" 1.15 && ok "inclusive: randarray at 5 threads $a >= 1.15 x $b without" || bad "inclusive: $a vs $b"
# The Malthusian paper's RandArray at 32 threads on its T5 (Fig. 4: MCSCR-STP 16x MCS-STP): with
# loads overlapped and parking at 8.3 us, concurrency restriction must win by far (simulated
# 7.5x in 0.01 s, 8.6x in 0.1 s; 1.4x before memory-level parallelism was modelled).
ra4="$ra --param ncs_loads=400 --param cs_loads=100"
a=$(tput randarray --lock mcscr-stp:cpu_aware=0 --threads 32 --machine malthusian-t5 --duration 0.01 $ra4)
b=$(tput randarray --lock mcs-stp --threads 32 --machine malthusian-t5 --duration 0.01 $ra4)
at_least "$a" "$b" 4 && ok "malthusian-t5: MCSCR-STP $a >= 4 x MCS-STP $b at 32 threads" || bad "malthusian-t5: MCSCR-STP $a vs MCS-STP $b"
# CPUs out of phase: each CPU's first slice ends at a seeded point in (0, slice], so within half
# a 10-ms slice some of the 16 threads that start queued (32 on 16 CPUs) have run (with every
# first slice ending at 10 ms, none had).
out=$("$sim" mutexbench --lock tas --threads 32 --machine sockets=1,cores=16,slice=10000 --duration 0.005 --seed 1 --json)
ran=$(grep -o '"per_thread_ops":\[[0-9,]*\]' <<<"$out" | grep -o '[0-9][0-9,]*' | tr ',' '\n' | tail -16 | grep -vc '^0$')
[ "$ran" -ge 2 ] && [ "$ran" -le 14 ] && ok "out of phase: $ran of 16 queued threads ran in half a slice" ||
  bad "out of phase: $ran of 16 queued threads ran in half a slice"

# Determinism: the same seed gives the same JSON, host time apart.
strip() { sed -e 's/"host_seconds":[0-9.]*//' -e 's/"host_cpu_seconds":[0-9.]*//' -e 's/"sim_events_per_s":[0-9.]*//'; }
a=$("$sim" mutexbench --lock mcs-stp --threads 6 --machine sockets=1,cores=2 --duration 0.002 --seed 7 --json | strip)
b=$("$sim" mutexbench --lock mcs-stp --threads 6 --machine sockets=1,cores=2 --duration 0.002 --seed 7 --json | strip)
c=$("$sim" mutexbench --lock mcs-stp --threads 6 --machine sockets=1,cores=2 --duration 0.002 --seed 8 --json | strip)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "same seed, same result" || bad "same seed differs"
[ "$a" != "$c" ] && ok "another seed, another schedule" || bad "seed has no effect"
# ... with the caches in play too: a line's sets come from the order lines were first touched, not
# from its address (ASLR moved the arrays and the heap, and RandArray's results with them).
a=$("$sim" randarray --lock mcs-stp --threads 3 --machine sockets=1,cores=2,l2=64 --duration 0.002 --seed 7 --json | strip)
b=$("$sim" randarray --lock mcs-stp --threads 3 --machine sockets=1,cores=2,l2=64 --duration 0.002 --seed 7 --json | strip)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "randarray: same seed, same result" || bad "randarray: same seed differs"
finish
