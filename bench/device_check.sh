#!/usr/bin/env bash
# bench/device_check.sh: one run, about 6 minutes on 16 CPUs, of what this 2-CPU
# machine cannot answer, for a machine with more CPUs (a lent one: no network, no
# apt; a built tree copied there). From the repository root, after `make`:
#
#   OUT=DIR bash bench/device_check.sh        (DIR defaults to /tmp/out)
#
# Writes under DIR: machine.txt (lscpu, glibc); manycore.md (bench/manycore.sh,
# 5 rounds of 0.5 s, with the simulator's prediction); scan.txt (MutexBench and
# RandArray through the interposer at 8, N and 2N threads for glibc and 14
# locks, 3 rounds of 0.4 s); over.txt (MutexBench at N, 64 and 256 threads,
# glibc / default / mcscr-stp, 5 rounds of 1 s); uncont.txt (the uncontended
# pair per lock); fair5.txt (5-s runs: per-thread max/min); prof-*.json (the
# profiler's worst and p99.9 waits at 256 threads); rw.txt (rwlocks: glibc, the
# default, bravo-park, readpref-park at N and 2N threads, 90% and 50% reads).
# Every line is locklab-plain's own ("ops_per_s=... max_min=..."), prefixed by
# the case; each command has a timeout, so a hang costs its case only.
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
B=build/bin; P=$PWD/build/lib/liblocklab-preload.so
{ date; uname -a; nproc; lscpu; ldd --version | head -1; cat /proc/loadavg; } >"$O/machine.txt" 2>&1
N=$(nproc); echo "nproc=$N"; grep -E 'Model name|Socket|Core|Thread|NUMA node' "$O/machine.txt"
T0=$SECONDS
# 1. bench/manycore.sh (the script), 5 rounds of 0.5 s
timeout 200 bash bench/manycore.sh --runs 5 --duration 0.5 --out "$O/manycore.md" >"$O/manycore.log" 2>&1
cat "$O/manycore.md"; echo "[t=$((SECONDS-T0))]"
# 2. lock scan through the interposer, MB and RA at 8, N, 2N threads, 3 rounds of 0.4 s
LOCKS="default pthread mcscr-stp mcs-stp cna-stp fissile shfl ticket ttas mcs acr twa-stp hemlock-stp mcscrn-stp"
for r in 1 2 3; do for t in 8 $N $((2*N)); do for w in mutexbench randarray; do
  echo "scan $w $t glibc $(timeout 20 $B/locklab-plain $w $t 0.4 2>&1)"
  for l in $LOCKS; do
    if [ $l = default ]; then o=$(env -u LOCKLAB_LOCK LD_PRELOAD=$P timeout 20 $B/locklab-plain $w $t 0.4 2>&1)
    else o=$(LOCKLAB_LOCK=$l LD_PRELOAD=$P timeout 20 $B/locklab-plain $w $t 0.4 2>&1); fi
    echo "scan $w $t $l $o"
  done
done; done; done >>"$O/scan.txt"
echo "[scan done t=$((SECONDS-T0))]"
# 3. oversubscription: MB at N, 64, 256 threads, glibc / default / mcscr-stp, 5 rounds of 1 s
for r in 1 2 3 4 5; do for t in $N 64 256; do
  echo "over mutexbench $t glibc $(timeout 20 $B/locklab-plain mutexbench $t 1 2>&1)"
  echo "over mutexbench $t default $(env -u LOCKLAB_LOCK LD_PRELOAD=$P timeout 20 $B/locklab-plain mutexbench $t 1 2>&1)"
  echo "over mutexbench $t mcscr-stp $(LOCKLAB_LOCK=mcscr-stp LD_PRELOAD=$P timeout 20 $B/locklab-plain mutexbench $t 1 2>&1)"
done; done >>"$O/over.txt"
echo "[over done t=$((SECONDS-T0))]"
# 4. uncontended pair through the interposer, per lock
for l in default ticket mcs-stp mcscr-stp cna-stp twa-stp hemlock-stp fissile shfl tas clh-stp; do
  if [ $l = default ]; then o=$(env -u LOCKLAB_LOCK LD_PRELOAD=$P timeout 30 build/tests/interpose/bench_uncontended 2>&1 | tail -1)
  else o=$(LOCKLAB_LOCK=$l LD_PRELOAD=$P timeout 30 build/tests/interpose/bench_uncontended 2>&1 | tail -1); fi
  echo "uncont $l $o"
done >>"$O/uncont.txt"; cat "$O/uncont.txt"
echo "[uncont done t=$((SECONDS-T0))]"
# 5. 5-s fairness, MB, 1 round: glibc and default at N, 64, 256
for t in $N 64 256; do
  echo "fair5 $t glibc $(timeout 30 $B/locklab-plain mutexbench $t 5 2>&1)"
  echo "fair5 $t default $(env -u LOCKLAB_LOCK LD_PRELOAD=$P timeout 30 $B/locklab-plain mutexbench $t 5 2>&1)"
done >>"$O/fair5.txt"; cat "$O/fair5.txt"
echo "[fair5 done t=$((SECONDS-T0))]"
# 6. worst wait at 256 under the profiler, 3 s each
for l in pthread default; do
  if [ $l = default ]; then env -u LOCKLAB_LOCK LOCKLAB_PROFILE=$O/prof-$l.json LOCKLAB_PROFILE_FORMAT=json LD_PRELOAD=$P timeout 30 $B/locklab-plain mutexbench 256 3 >"$O/prof-$l.out" 2>&1
  else LOCKLAB_LOCK=$l LOCKLAB_PROFILE=$O/prof-$l.json LOCKLAB_PROFILE_FORMAT=json LD_PRELOAD=$P timeout 30 $B/locklab-plain mutexbench 256 3 >"$O/prof-$l.out" 2>&1; fi
done
echo "[prof done t=$((SECONDS-T0))]"
# 7. rwlock: readpref-stp (default) vs glibc at N and 2N threads, 90% and 50% reads, 3 rounds 0.5 s
for r in 1 2 3; do for t in $N $((2*N)); do for p in 90 50; do
  echo "rw $t $p glibc $(timeout 20 $B/locklab-plain-rwlock $t $p 0.5 2>&1)"
  echo "rw $t $p default $(env -u LOCKLAB_RWLOCK LD_PRELOAD=$P timeout 20 $B/locklab-plain-rwlock $t $p 0.5 2>&1)"
  for rw in bravo-park readpref-park; do echo "rw $t $p $rw $(LOCKLAB_RWLOCK=$rw LD_PRELOAD=$P timeout 20 $B/locklab-plain-rwlock $t $p 0.5 2>&1)"; done
done; done; done >>"$O/rw.txt"
echo "[all done t=$((SECONDS-T0))]"
