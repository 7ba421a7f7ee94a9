#!/usr/bin/env bash
# Model checking of every lock x policy, the park protocol and the sync wait lists
# with locklab-check (docs/verification.md).
#   verify/verify.sh CHECKER quick   the CI subset (make test; < 2 min)
#   verify/verify.sh CHECKER full    everything (make verify; <= 20 CPU-minutes, docs/verification.md)
#   SPECS="hemlock acr:spin_ns=0" verify/verify.sh CHECKER full   every tier of the full run, these specs only
# Prints each case and "N passed, N failed"; exits non-zero if any case failed.
set -uo pipefail
checker=${1:?usage: verify.sh CHECKER quick|full}
mode=${2:-full}
case "$mode" in quick|full) ;; *) echo "verify.sh: unknown mode '$mode' (valid: quick, full)" >&2; exit 2;; esac
# Bounds of the random scheduler (executions per case); the full run's are larger.
ITER=${ITER:-$([ "$mode" = quick ] && echo 300 || echo 3000)}

passed=0 failed=0 cut=0
# Caps per locklab-check invocation: CPU seconds (the bound of a search, whatever the
# machine's load) and, as a safety net, wall seconds.  A search still running then is cut,
# reported as "cut" and not counted as a failure (its cases printed so far count).
CASE_CPU_SECONDS=${CASE_CPU_SECONDS:-30}
CASE_SECONDS=${CASE_SECONDS:-$([ "$mode" = quick ] && echo 120 || echo 600)}
run() { # run ARGS...: one locklab-check invocation; its cases are added to the totals
    local out rc
    # ulimit -S -t: SIGXCPU at the CPU cap (exit 152); the shell's report of it is dropped
    out=$(exec 2>/dev/null; (ulimit -S -t "$CASE_CPU_SECONDS" && exec timeout "$CASE_SECONDS" nice -n 19 "$checker" "$@" 2>&1))
    rc=$?
    printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$'
    passed=$((passed + $(printf '%s\n' "$out" | grep -c '^ok ')))
    failed=$((failed + $(printf '%s\n' "$out" | grep -c '^FAIL ')))
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 152 ]; then
        echo "cut    locklab-check $* (still searching after $CASE_CPU_SECONDS s of CPU or $CASE_SECONDS s)"
        cut=$((cut + 1))
    elif [ "$rc" -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^FAIL '; then
        echo "FAIL   locklab-check $* (exit $rc)"
        failed=$((failed + 1))
    fi
}
standby_one_socket() { # standby_one_socket N10 N200: standby on one socket, where arrivals that park wake
    # the next standby themselves: N10 executions with --hold 10, and N200 with critical sections of
    # 200 yields (a 30-us clock step: the standby's patience and budget run out: impatience, GRANTED, TIRED)
    run --lock standby --client locks --client timed --threads 3 --acquisitions 2 --sched random --iterations "$1" \
        --clock-step 30000 --hold 10 --sockets 1
    run --lock standby --client locks --client timed --threads 3 --acquisitions 2 --sched random --iterations "$2" \
        --clock-step 30000 --hold 200 --sockets 1
}
summary() {
    echo "model checking: $cut invocation(s) cut at $CASE_CPU_SECONDS s of CPU or $CASE_SECONDS s"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# Specs whose exhaustive search (full scheduler) of the smallest client (2 threads,
# 1 acquisition each) does not end within a minute here: random scheduler only.
too_big='^(clh-park|twa-park|lifocr-park|mcscr-park|mcscr-stp|mcscr-astp|cna-park|cna-stp|cna-astp|hmcs.*|mcscrn-park|mcscrn-stp|mcscrn-astp|hemlock-park|reciprocating-park|reciprocating-stp|reciprocating-astp|acr:.*|lifocr-park:.*)$'

echo "== the deliberately broken locks must be caught"
run --broken broken-relaxed-tas --broken broken-test-then-set --broken broken-relaxed-ticket \
    --client counter --sched full --expect-fail
echo "== a release that touches the lock after its hand-over must be caught (a new lock in the memory)"
run --broken broken-late-release --client reuse --threads 3 --sched bound --expect-fail
echo "== the deliberately broken rwlock (readers test the writer flag, then enter) must be caught"
run --rwlock broken-rw-test-then-add --client rw --threads 2 --sched full --expect-fail
echo "== parkinglot without its naps (--untimed-parks) must lose a wake-up: the release that misses an announcement"
run --lock parkinglot --client counter --threads 2 --sched full --hold 10 --untimed-parks --expect-fail
echo "== standby without its naps likewise (3 threads: with 2 the waiter is the standby and never parks)"
run --lock standby --client counter --threads 3 --acquisitions 2 --sched random --iterations 20000 --clock-step 30000 \
    --hold 10 --untimed-parks --expect-fail
echo "== ... and on 4 CPUs, where its arrivals park after their spin (on 2 they first yield)"
run --lock standby --client counter --threads 3 --acquisitions 2 --sched random --iterations 20000 --clock-step 30000 \
    --hold 10 --untimed-parks --expect-fail --cpus 4

if [ "$mode" = quick ]; then
    echo "== exhaustive: counter, 2 threads x 1 acquisition (spin, park and stp waiting)"
    run --lock tas --lock ticket --lock mcs --lock mcs-park --lock clh-stp --lock twa --lock anderson-park \
        --lock hemlock --lock reciprocating --client counter --threads 2 --sched full
    echo "== random: every lock client, 3 threads x 2 acquisitions, $ITER executions"
    run --lock mcs-park --lock twa-stp --lock mcscr --lock mcscr-park --lock hemlock-park --lock reciprocating-park --client locks \
        --threads 3 --acquisitions 2 --sched random --iterations "$ITER"
    echo "== random: standby's standby, park and wake into the role, $ITER executions"
    run --lock standby --client locks --client timed --threads 3 --acquisitions 2 --sched random --iterations "$ITER" \
        --clock-step 30000 --hold 10
    echo "== random: the same with a 10-us clock step (each yield comes back within YIELD_IDLE_NS: counted as 1/128 of one, cut by the budget), $ITER executions"
    run --lock standby --client locks --client timed --threads 3 --acquisitions 2 --sched random --iterations "$ITER" \
        --clock-step 10000 --hold 10
    echo "== random: the same on 4 CPUs (arrivals park after their spin, no yields; the last acquisitions of some find the lock in wide waiting), $((ITER * 3)) executions"
    run --lock standby --client locks --client timed --threads 3 --acquisitions 2 --sched random --iterations "$((ITER * 3))" \
        --clock-step 30000 --hold 10 --cpus 4
    echo "== random: standby on one socket, $((ITER * 100)) executions, and with critical sections of 200 yields, $((ITER * 10))"
    standby_one_socket "$((ITER * 100))" "$((ITER * 10))"
    echo "== random: the timed client, 3 threads x 2 acquisitions (the abortable queues), $ITER executions"
    run --lock mcs --lock k42-park --lock hemlock-stp --lock reciprocating-park --client timed --threads 3 \
        --acquisitions 2 --sched random --iterations "$ITER"
    echo "== random: hmcs on two sockets and on one (one level), every lock client and the timed one, $ITER executions"
    for sockets in 2 1; do # threshold=1: every release ends the cohort (ACQUIRE_PARENT)
        run --lock hmcs-park --lock hmcs-stp --lock hmcs-park:threshold=1 --client locks --client timed --threads 3 \
            --acquisitions 2 --sched random --iterations "$ITER" --sockets "$sockets"
    done
    echo "== random: semaphore and condition-variable wait lists"
    run --lock tas --client sem-handoff --client cond-signal --sched random --iterations "$ITER"
    echo "== barriers: bounded exhaustive, 2 and 3 threads x 2 rounds, the last one destroyed while threads leave"
    run --lock tas --client barrier --acquisitions 2 --sched bound
    echo "== rwlocks: bounded exhaustive (2 threads x 2), random with long sections (3 threads x 2)"
    run --rwlock pft --rwlock pft-park --rwlock numarw-park --rwlock bravo-park --rwlock readpref-park \
        --rwlock readpref-park:patience_ns=0 --rwlock rwgate-park --rwlock rwgate-park:patience_ns=0 --client rws \
        --threads 2 --acquisitions 2 --sched bound
    run --rwlock pft-stp --rwlock numarw-stp --rwlock bravo-stp --rwlock readpref-stp --rwlock rwgate-stp --client rws --threads 3 --acquisitions 2 --sched random \
        --iterations "$ITER" --hold 3
    echo "== rwgate: destroy right after unlock (a new lock in the memory), bounded exhaustive"
    run --rwlock rwgate-park --rwlock rwgate-stp --client rw-reuse --threads 3 --sched bound
    echo "== destroy right after a hand-over (a new lock in the memory), the hand-over families, $((ITER * 10)) executions"
    run --lock mcs-park --lock clh-stp --lock twa-stp --lock hemlock-park --lock reciprocating-park --lock cna-stp \
        --lock standby --client reuse --threads 3 --sched random --iterations "$((ITER * 10))"
    summary
    exit
fi

bench=$(dirname "$checker")/locklab-bench
specs=$("$bench" --list | grep -v -E '^(pthread|ck-)') || { echo "verify.sh: '$bench --list' failed" >&2; exit 2; }
# Not checked: pthread* (glibc's mutex) and ck-* (Concurrency Kit's locks) are not locklab sources.
# Spec variants that reach slow paths the defaults do not reach within these bounds (as
# mutate.py's): without arrival spinning every contended arrival of acr and loiter queues
# and becomes the standby, which sleeps and (patience 0) is handed the lock directly;
# lifocr with fairness 1 pops its eldest waiter at every contended release.
variants="acr:spin_ns=0 acr:spin_ns=0,patience_ns=0 loiter:spinners=0 loiter:spinners=0,patience_ns=0
lifocr:fairness=1 lifocr-park:fairness=1 mcscr-park:hysteresis=1 mcscr-stp:hysteresis=1"
specs="$specs $variants"
# SPECS="spec ...": check only these (every tier, the timed client included).
specs=${SPECS:-$specs}

echo "== exhaustive: counter, 2 threads x 1 acquisition, every spec the full search finishes"
for s in $specs; do
    [[ $s =~ $too_big ]] || run --lock "$s" --client counter --threads 2 --sched full
done

echo "== bounded exhaustive (2 preemptions): every lock client, 2 threads x 2 and 3 threads x 1 acquisitions"
for s in $specs; do
    run --lock "$s" --client locks --threads 2 --acquisitions 2 --sched bound
    run --lock "$s" --client locks --threads 3 --acquisitions 1 --sched bound
done

echo "== random: every lock client, 3 threads x 2 acquisitions, $ITER executions"
for s in $specs; do
    run --lock "$s" --client locks --threads 3 --acquisitions 2 --sched random --iterations "$ITER"
done

echo "== destroy right after a hand-over (a new lock in the memory), every spec, $((ITER * 10)) executions"
for s in $specs; do
    run --lock "$s" --client reuse --threads 3 --sched random --iterations "$((ITER * 10))"
done

echo "== long critical sections (--hold 10: the holder yields 10 times), every lock client, 3 threads x 2 acquisitions, $ITER executions"
for s in $specs; do
    run --lock "$s" --client locks --threads 3 --acquisitions 2 --sched random --iterations "$ITER" --hold 10
done
# parkinglot's park (after 10 spin rounds) and its naps' recovery of a missed wake-up: exhaustive;
# its unfair unpark (RETRY: the lock freed for the woken waiter to compete): a 1-us clock step
if [[ " $specs " == *" parkinglot "* ]]; then
    run --lock parkinglot --client counter --threads 2 --sched full --hold 10
    run --lock parkinglot --client locks --threads 3 --acquisitions 2 --sched random --iterations "$ITER" --clock-step 1000 --hold 10
fi
# standby: its standby (exhaustive, 2 threads), its park and wake into the role (3 threads; on 2
# CPUs, where arrivals yield first, with a clock step above and below YIELD_IDLE_NS, and on 4,
# where the last acquisitions of some executions find the lock in wide waiting),
# and on one socket (standby_one_socket)
if [[ " $specs " == *" standby "* ]]; then
    run --lock standby --client counter --threads 2 --sched full --hold 10
    run --lock standby --client locks --client timed --threads 3 --acquisitions 2 --sched random --iterations "$ITER" --clock-step 30000 --hold 10
    run --lock standby --client locks --client timed --threads 3 --acquisitions 2 --sched random --iterations "$ITER" --clock-step 10000 --hold 10
    run --lock standby --client locks --client timed --threads 3 --acquisitions 2 --sched random --iterations "$((ITER * 3))" --clock-step 30000 --hold 10 --cpus 4
    standby_one_socket "$((ITER * 30))" "$((ITER * 3))"
fi

echo "== the timed client (acquire_until), 3 threads x 2 acquisitions, and abandon (a lock dropped while held, its departed timed waiters' nodes reclaimed and reused), $ITER executions"
for s in $specs; do
    run --lock "$s" --client timed --threads 3 --acquisitions 2 --sched random --iterations "$ITER"
    run --lock "$s" --client abandon --threads 3 --sched random --iterations "$ITER"
done

echo "== reader-writer locks (every rwlock x policy but glibc's): rw, rw-try, rw-timed; bounded exhaustive, random, long sections"
rwspecs=$("$(dirname "$checker")"/locklab-bench --list-rwlocks | grep -v pthread) || { echo "verify.sh: --list-rwlocks failed" >&2; exit 2; }
for s in ${RWSPECS:-$rwspecs}; do
    run --rwlock "$s" --client rws --threads 2 --acquisitions 2 --sched bound
    run --rwlock "$s" --client rws --threads 3 --acquisitions 1 --sched bound
    run --rwlock "$s" --client rws --threads 3 --acquisitions 2 --sched random --iterations "$ITER" --hold 3
done

echo "== semaphore and condition-variable wait lists (FIFO and LIFO-CR) over tas and mcs-park"
for d in fifo lifo-cr:append_one_in=2; do
    run --lock tas --lock mcs-park --client sem-mutex --client sem-handoff --client cond-signal --client cond-broadcast \
        --discipline "$d" --acquisitions 2 --sched random --iterations $((ITER * 10))
done
echo "== barriers: bounded exhaustive (2 and 3 threads x 1 and 2 rounds), random with 3 threads x 2 rounds"
run --lock tas --client barrier --acquisitions 1 --sched bound
run --lock tas --client barrier --acquisitions 2 --sched bound
run --lock tas --client barrier --threads 3 --acquisitions 2 --sched random --iterations $((ITER * 10))

summary
