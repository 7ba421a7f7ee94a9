#!/usr/bin/env bash
# An idle lightweight-thread runtime parks its workers (the runtime's target: "0% CPU after
# its spin budget, measured with getrusage"): for every alternative at P = 2,
# locklab-bench thread-idle sleeps 1 s after the runtime's 20-us spin budget and
# reports the process's CPU time over it as a share of the 2 processors.  Parked
# workers use nothing; workers that spun instead would use all of the CPU the
# scheduler gives them, up to the whole interval each.  The bound (2%) is
# generous for parked workers and fails for spinning ones unless two heavier
# processes starve them of both CPUs (a nice-19 spinner against nice-0 ones).
#   test_threads_idle.sh BENCH
set -u
bench=$1
. "$(dirname "$0")/lib.sh"
json_num() { [[ $1 =~ \"$2\":(-?[0-9.]+(e[-+][0-9]+)?) ]] && echo "${BASH_REMATCH[1]}"; }
for alt in single-lock multi-lock local-freelist idle-queue local-readyq; do
  line=$("$bench" thread-idle --param alternative=$alt --threads 2 --lock backoff --duration 1 --json 2>&1); rc=$?
  f=$(json_num "$line" idle_cpu_fraction)
  if [ $rc -eq 0 ] && [ -n "$f" ] && awk "BEGIN { exit !($f < 0.02) }"; then
    ok "$alt: idle runtime used $f of its 2 processors"
  else
    bad "$alt: idle runtime used ${f:-?} of its 2 processors (workers did not park; rc=$rc): $line"
  fi
done
finish
