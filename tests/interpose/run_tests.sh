#!/usr/bin/env bash
# Tests of the LD_PRELOAD interposer (src/interpose, docs/interposer.md).
#   run_tests.sh PRELOAD BINDIR CASE [SPEC...]
# PRELOAD: build/lib/liblocklab-preload.so; BINDIR: where the test programs are.
# CASE: rwlock RWSPEC... | mutex SPEC... | errors VAR=SPEC...|all-locks | sync SPEC... | c11 SPEC... | spinbar SPIN-SPEC... | threads SPEC... | mix SPEC... | timed SPEC... | timed-sleeps SPEC... | clockset SPEC... | posix SPEC... | robust SPEC... | memory SPEC... | fork BENCH [SPEC...] | realtime BENCH [SPEC...] | warn | preconstructor | cxx | bindings | badenv | profile | nomeasure | twice | malloc | secure
set -u
preload=$1 bindir=$2 case=$3
shift 3
. "$(dirname "$0")/../lib.sh" # ok, bad, finish
# lock_caps SPEC: the capabilities of SPEC's algorithm (registry.h, LL_CAP_*) as locklab-bench
# --list --verbose prints them ("parks-itself,fork-safe", or "-"; nothing for an unknown spec);
# LOCKLAB_BENCH: the bench, else the one beside PRELOAD's build (build/lib -> build/bin).
lock_caps() {
    "${LOCKLAB_BENCH:-$(dirname "$preload")/../bin/locklab-bench}" --list --verbose |
        awk -v s="${1%%:*}" '$1 == s { for (i = 2; i <= NF; i++) if ($i ~ /^caps=/) print substr($i, 6) }'
}
run() { # run LOCK PROGRAM...: the program (not timeout) under the interposer with LOCKLAB_LOCK=LOCK
    local lock=$1
    shift
    if timeout 120 env LOCKLAB_LOCK="$lock" LD_PRELOAD="$preload" "$@"; then
        ok "LOCKLAB_LOCK=$lock $*"
    else
        bad "LOCKLAB_LOCK=$lock $* (exit $?)"
    fi
}

case $case in
rwlock)
    # pthread_rwlock_* under each LOCKLAB_RWLOCK (test_rwlock.c), the test itself checked against glibc first
    timeout 120 "$bindir/test_rwlock" glibc >/dev/null || bad "test_rwlock under glibc (exit $?)"
    timeout 120 "$bindir/test_rwlock" glibc oom >/dev/null || bad "test_rwlock oom under glibc (exit $?)"
    timeout 60 env LD_PRELOAD="$bindir/libatfork_lib.so" "$bindir/test_rwlock" glibc atfork >/dev/null ||
        bad "test_rwlock atfork under glibc (exit $?)"
    for spec in "$@"; do
        if timeout 120 env LOCKLAB_RWLOCK="$spec" LD_PRELOAD="$preload" "$bindir/test_rwlock"; then
            ok "LOCKLAB_RWLOCK=$spec test_rwlock"
        else
            bad "LOCKLAB_RWLOCK=$spec test_rwlock (exit $?)"
        fi
        # out of memory: first uses after RLIMIT_AS is filled (the inline fallback), ENOMEM from init
        if timeout 120 env LOCKLAB_QUIET=1 LOCKLAB_RWLOCK="$spec" LD_PRELOAD="$preload" "$bindir/test_rwlock" oom; then
            ok "LOCKLAB_RWLOCK=$spec test_rwlock oom"
        else
            bad "LOCKLAB_RWLOCK=$spec test_rwlock oom (exit $?)"
        fi
        # another library's fork handlers hold an rwlock across fork (atfork_lib.c, loaded after us: its child handler runs first)
        if timeout 60 env LOCKLAB_RWLOCK="$spec" LD_PRELOAD="$preload $bindir/libatfork_lib.so" "$bindir/test_rwlock" atfork; then
            ok "LOCKLAB_RWLOCK=$spec test_rwlock atfork"
        else
            bad "LOCKLAB_RWLOCK=$spec test_rwlock atfork (exit $?)"
        fi
    done
    # the verbose line's never-parks note: for a spinning policy, not for the rwlocks that wait in
    # glibc's futexes (LL_CAP_PARKS_ITSELF) nor for a parking policy
    for case in readpref:1 bravo:1 readpref-stp:0 pthread:0 bravo-pthread:0; do
        n=$(LOCKLAB_RWLOCK=${case%:*} LOCKLAB_VERBOSE=1 LD_PRELOAD="$preload" sleep 0 2>&1 | grep -c 'rwlock=.*never parks')
        [ "$n" = "${case#*:}" ] && ok "${case%:*}: never-parks note $n" || bad "${case%:*}: never-parks note $n, want ${case#*:}"
    done
    # ... said once at once, and counted at exit
    err=$(LOCKLAB_RWLOCK=bravo LOCKLAB_VERBOSE=1 LD_PRELOAD="$preload" timeout 60 "$bindir/test_rwlock" oom 2>&1 >/dev/null)
    [ "$(grep -c 'out of memory for an rwlock object: such rwlocks run on an inline readpref-stp lock instead of bravo' <<<"$err")" = 1 ] &&
        grep -q 'exit: out of memory: [1-9][0-9]* rwlocks ran on an inline readpref-stp lock instead of bravo' <<<"$err" &&
        ok "bravo out of memory: one line, and the count at exit" || bad "bravo out of memory, lines: $err"
    # test_rwlock with the profiler on (its records send every call down the general path, not the fast one)
    json=$(mktemp /tmp/locklab-rwprofile-XXXXXX.json)
    if timeout 120 env LOCKLAB_RWLOCK="${1:-rwgate-stp}" LOCKLAB_PROFILE="$json" LD_PRELOAD="$preload" "$bindir/test_rwlock" &&
        python3 -c 'import json, sys; k = {l["kind"] for l in json.load(open(sys.argv[1]))["locks"]}; sys.exit({"rwlock-read", "rwlock-write"} - k != set())' "$json"; then
        ok "LOCKLAB_RWLOCK=${1:-rwgate-stp} test_rwlock, profiled"
    else
        bad "LOCKLAB_RWLOCK=${1:-rwgate-stp} test_rwlock, profiled (no rwlock records, or exit $?)"
    fi
    rm -f "$json"
    # std::shared_mutex: the profiler counts exactly the program's own acquisitions, per role
    for spec in "${1:-rwgate-stp}" bravo; do
        json=$(mktemp /tmp/locklab-rwprofile-XXXXXX.json)
        out=$(env LOCKLAB_RWLOCK="$spec" LOCKLAB_PROFILE="$json" LOCKLAB_PROFILE_TOP=0 LD_PRELOAD="$preload" \
              "$bindir/test_shared_mutex" 4 20000)
        python3 - "$json" "$out" <<'PY' && ok "$spec: profile counts the shared_mutex program's acquisitions ($out)" || bad "$spec: profile counts: $out"
import json, sys
d = json.load(open(sys.argv[1]))
want = dict(kv.split("=") for kv in sys.argv[2].split())
rows = lambda kind: [l for l in d["locks"] if l["kind"] == kind]
got_r = sum(l["acquisitions"] for l in rows("rwlock-read"))
got_w = sum(l["acquisitions"] for l in rows("rwlock-write"))

if got_r != int(want["reads"]) or got_w != int(want["writes"]):
    print("profile: reads %d writes %d, program: %s" % (got_r, got_w, sys.argv[2]), file=sys.stderr)
    sys.exit(1)
PY
        rm -f "$json"
    done
    # a bad LOCKLAB_RWLOCK: one line naming it and the choices, exit 2, before main
    msg=$(env LOCKLAB_RWLOCK=nonsense LD_PRELOAD="$preload" sleep 0 2>&1)
    rc=$?
    [[ $rc -eq 2 && $(printf '%s\n' "$msg" | wc -l) -eq 1 && $msg == *"LOCKLAB_RWLOCK='nonsense'"*"valid algorithms: pft, readpref, rwgate, bravo"* ]] &&
        ok "bad LOCKLAB_RWLOCK: one line, exit 2" || bad "bad LOCKLAB_RWLOCK: exit $rc: $msg"
    ;;
mutex)
    for spec in "$@"; do run "$spec" "$bindir/test_mutex"; done
    ;;
errors)
    # Every answer of test_errors.c (error numbers, values read back; one line each) is glibc's,
    # under each setting given ("VAR=SPEC [VAR=SPEC...]": LOCKLAB_LOCK, LOCKLAB_RWLOCK, LOCKLAB_SPIN,
    # LOCKLAB_COND, LOCKLAB_SEM, LOCKLAB_PROFILE...); "all-locks" stands for LOCKLAB_LOCK= every
    # spec of locklab-bench --list.
    # The runs mostly sleep (signals, timeouts): 8 at once.
    dir=$(mktemp -d)
    timeout 60 "$bindir/test_errors" glibc >"$dir/glibc" || bad "test_errors under glibc (exit $?)"
    settings=()
    for arg in "$@"; do
        if [ "$arg" = all-locks ]; then
            for spec in $("${LOCKLAB_BENCH:-$(dirname "$preload")/../bin/locklab-bench}" --list | awk '{print $1}'); do
                settings+=("LOCKLAB_LOCK=$spec")
            done
        else
            settings+=("$arg")
        fi
    done
    [ ${#settings[@]} -ge 3 ] || bad "errors: fewer than 3 settings (${settings[*]})"
    [[ " $* " != *" all-locks "* ]] || [ "$(grep -c '^LOCKLAB_LOCK=' < <(printf '%s\n' "${settings[@]}"))" -gt 10 ] ||
        bad "errors: all-locks found 10 locks or fewer (locklab-bench --list)"
    for i in "${!settings[@]}"; do
        [ "$(jobs -rp | wc -l)" -lt 8 ] || wait -n
        read -ra words <<<"${settings[i]}" # one or more VAR=VALUE words (no globbing)
        # stderr too: an interposed run must not print where glibc's is silent
        { timeout 60 env LOCKLAB_QUIET=1 "${words[@]}" LD_PRELOAD="$preload" "$bindir/test_errors" >"$dir/$i" 2>&1
          echo $? >"$dir/$i.rc"; } &
    done
    wait
    for i in "${!settings[@]}"; do
        if [ "$(cat "$dir/$i.rc")" = 0 ] && cmp -s "$dir/glibc" "$dir/$i"; then
            ok "${settings[i]}: test_errors answers as glibc ($(wc -l <"$dir/glibc") answers)"
        else
            bad "${settings[i]}: test_errors differs from glibc (exit $(cat "$dir/$i.rc"); < glibc, > interposed):"
            diff "$dir/glibc" "$dir/$i" | head -8
        fi
    done
    rm -rf "$dir"
    ;;
sync)
    for spec in "$@"; do
        # each discipline with one wait-morphing mode ("auto" is one of them, per lock)
        for case in fifo:all lifo-cr:none lifo-cr:append_one_in=2:broadcast; do
            discipline=${case%:*}
            LOCKLAB_COND=$discipline LOCKLAB_SEM=$discipline LOCKLAB_COND_MORPH=${case##*:} run "$spec" "$bindir/test_condsem"
        done
        # auto's choice (docs/interposer.md, "Wait morphing": by the lock's capabilities), as
        # LOCKLAB_VERBOSE reports it
        caps=$(lock_caps "$spec")
        [ -n "$caps" ] || bad "$spec: no capabilities from locklab-bench --list --verbose"
        case ,$caps, in
        *,wake-into-held,*) want=none ;;
        *,parks-itself,*) want=broadcast ;;
        *) want=all ;;
        esac
        line=$(env LOCKLAB_LOCK="$spec" LOCKLAB_VERBOSE=1 LD_PRELOAD="$preload" sleep 0 2>&1 | head -1)
        [[ $line == *"(morph $want)"* ]] && ok "$spec: auto morph is $want" || bad "$spec: auto morph should be $want: $line"
    done
    ;;
threads)
    for spec in "$@"; do run "$spec" "$bindir/test_threads"; done
    ;;
mix)
    for spec in "$@"; do run "$spec" "$bindir/test_mix"; done
    ;;
timed)
    for spec in "$@"; do run "$spec" "$bindir/test_timedlock"; done
    ;;
c11)
    # C11 <threads.h> (c11.c): correct under each lock, and the profile counts every
    # acquisition the program made (its own count), also under each lock, at the program's call sites.
    for spec in "$@"; do
        run "$spec" "$bindir/test_c11" >/dev/null
        json=$(mktemp /tmp/locklab-c11-XXXXXX.json)
        out=$(timeout 120 env LOCKLAB_LOCK="$spec" LOCKLAB_QUIET=1 LOCKLAB_PROFILE="$json" LOCKLAB_PROFILE_FORMAT=json \
              LD_PRELOAD="$preload" "$bindir/test_c11")
        if python3 - "$json" "${out#acquisitions }" <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
got = sum(l["acquisitions"] for l in r["locks"] if l["kind"] == "mutex")
want = int(sys.argv[2])
# the program's own call sites, not the C11 entry points inside the interposer
elsewhere = [l["first_use"] for l in r["locks"] if not l["first_use"].startswith("test_c11")]
if elsewhere:
    sys.exit(f"first uses outside the program: {elsewhere}")
sys.exit(0 if got == want and want >= 100000 else f"profile counts {got} mutex acquisitions, the program made {want}")
PY
            ok "$spec: the profile counts every C11 acquisition (${out#acquisitions })"
        else
            bad "$spec: C11 acquisitions in the profile"
        fi
        rm -f "$json"
    done
    # glibc alone passes it too (the test's expectations are glibc's)
    timeout 120 "$bindir/test_c11" >/dev/null && ok "test_c11 under glibc" || bad "test_c11 under glibc"
    ;;
spinbar)
    # pthread spinlocks over each LOCKLAB_SPIN given ("" = the default, ttas) and barriers (spin.c,
    # barrier.c); glibc alone first (the test's expectations are glibc's).
    # Also a spinlock held across fork with parent threads spinning on it, and unlocks of an unheld one.
    for arg in "" fork misuse; do
        timeout 120 "$bindir/test_spinbar" $arg >/dev/null && ok "test_spinbar $arg under glibc" ||
            bad "test_spinbar $arg under glibc"
    done
    for spec in "$@"; do
        for arg in "" fork misuse; do
            if LOCKLAB_QUIET=1 LOCKLAB_SPIN=$spec LD_PRELOAD="$preload" timeout 120 "$bindir/test_spinbar" $arg >/dev/null; then
                ok "LOCKLAB_SPIN=$spec test_spinbar $arg"
            else
                bad "LOCKLAB_SPIN=$spec test_spinbar $arg (exit $?)"
            fi
        done
    done
    # Bad values: one line naming the value and the valid choices, exit 2 before main.
    for value in mcs-stp standby nosuch tas-park; do
        err=$(LOCKLAB_SPIN=$value LD_PRELOAD="$preload" "$bindir/test_spinbar" 2>&1 >/dev/null)
        rc=$?
        if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ $err == *"LOCKLAB_SPIN='$value'"* ]]; then
            ok "LOCKLAB_SPIN=$value refused: $err"
        else
            bad "LOCKLAB_SPIN=$value: want exit 2 and one line, got $rc: $err"
        fi
    done
    # More threads than CPUs on spinlocks: one line, once; LOCKLAB_QUIET=1 silences it.
    over='spinlocks (LOCKLAB_SPIN=ttas) never park and [0-9]* threads now take them on 1 CPUs'
    n=$(LD_PRELOAD="$preload" taskset -c 0 "$bindir/test_spinbar" oversubscribe 2>&1 | grep -c "$over")
    [ "$n" -eq 1 ] && ok "spinlocks: oversubscription warned once" || bad "spinlocks: $n oversubscription lines, want 1"
    n=$(LOCKLAB_QUIET=1 LD_PRELOAD="$preload" taskset -c 0 "$bindir/test_spinbar" oversubscribe 2>&1 | grep -c 'never park')
    [ "$n" -eq 0 ] && ok "spinlocks: LOCKLAB_QUIET=1 silences the warning" || bad "spinlocks: quiet, yet $n lines"
    line=$(LOCKLAB_VERBOSE=1 LOCKLAB_QUIET=1 LD_PRELOAD="$preload" taskset -c 0 "$bindir/test_spinbar" oversubscribe 2>&1 |
           grep 'exit: spinlocks')
    [[ $line == *"exit: spinlocks (LOCKLAB_SPIN=ttas) never park: up to 4 threads took them at once on 1 CPUs; real-time waiters slept 0 times (wait.h)" ]] &&
        ok "verbose: spinlocks' most threads at once: $line" || bad "verbose: spinlocks' most threads at once: $line"
    # LOCKLAB_VERBOSE=1: the spinlock line at start, and the census at exit says what was used.
    census() { # census PROGRAM ARGS...: the verbose exit line of what was used
        LOCKLAB_VERBOSE=1 LOCKLAB_QUIET=1 LD_PRELOAD="$preload" "$@" 2>&1 >/dev/null | grep 'exit: used:'
    }
    line=$(census "$bindir/test_spinbar")
    [[ $line == *"used: spinlocks, barriers; not used: pthread mutexes, condition variables, semaphores, C11 mtx, C11 cnd, rwlocks" ]] &&
        ok "census of test_spinbar: $line" || bad "census of test_spinbar: $line"
    line=$(census "$bindir/test_c11")
    [[ $line == *"used: C11 mtx, C11 cnd; not used: pthread mutexes, condition variables, semaphores, spinlocks, barriers, rwlocks" ]] &&
        ok "census of test_c11: $line" || bad "census of test_c11: $line"
    line=$(census "$bindir/test_condsem")
    [[ $line == *"used: pthread mutexes, condition variables, semaphores; not used: C11 mtx, C11 cnd, spinlocks, barriers, rwlocks" ]] &&
        ok "census of test_condsem: $line" || bad "census of test_condsem: $line"
    line=$(census "$bindir/test_rwlock")
    [[ $line == *"used: "*"rwlocks; not used: "* ]] &&
        ok "census of test_rwlock: $line" || bad "census of test_rwlock: $line"
    line=$(LOCKLAB_VERBOSE=1 LOCKLAB_SPIN=mcs LD_PRELOAD="$preload" sleep 0 2>&1 | grep 'spinlocks:')
    [[ $line == *"spinlocks: mcs (LOCKLAB_SPIN; out-of-line), "*" bytes per spinlock"* ]] &&
        ok "verbose spinlock line: $line" || bad "verbose spinlock line: $line"
    ;;
timed-sleeps)
    # A timed waiter sleeps as an untimed one does (specs whose policy parks; test_timedlock.c).
    for spec in "$@"; do run "$spec" "$bindir/test_timedlock" sleeps; done
    ;;
clockset)
    # CLOCK_REALTIME set forward during a timed lock: a per-process clock (fakeclock_lib.c), preloaded first.
    preload="$bindir/libfakeclock_lib.so $preload"
    for spec in "$@"; do run "$spec" "$bindir/test_clockset"; done
    ;;
posix)
    # glibc first: the test's expectations are glibc's behaviour.
    timeout 120 "$bindir/test_posix" glibc >/dev/null || bad "test_posix under glibc (exit $?)"
    # The interpreter itself, not a wrapper script (pyenv's shims are shell scripts).
    python=$(python3 -c 'import sys; print(sys.executable)')
    for spec in "$@"; do
        for discipline in fifo lifo-cr; do
            LOCKLAB_COND=$discipline LOCKLAB_SEM=$discipline run "$spec" "$bindir/test_posix"
        done
        for timeout in "" 30; do # Ctrl-C in threading.Event().wait(): sem_wait, then sem_clockwait
            run "$spec" "$python" "$(dirname "$0")/ctrl_c.py" $timeout >/dev/null
        done
    done
    ;;
robust)
    # Misuse, out of memory and signals (test_robust.c; docs/interposer.md, "Misuse, out of
    # memory and signals"): glibc first (the reference), then each case under each SPEC.
    cases="signal unlock-unheld unlock-other unlock-race unlock-race-cond cancel-relock reinit-waiter copy-inited copied-used oom"
    for c in $cases; do
        timeout 60 "$bindir/test_robust" glibc $c >/dev/null || bad "test_robust glibc $c (exit $?)"
    done
    for spec in "$@"; do
        # a lock whose release needs the holder's thread ignores another thread's unlock (test_robust.c)
        caps=$(lock_caps "$spec") holder=0
        [ -n "$caps" ] || bad "$spec: no capabilities from locklab-bench --list --verbose"
        [[ ,$caps, == *,holder-releases,* ]] && holder=1
        for c in $cases; do LOCKLAB_QUIET=1 LOCKLAB_TEST_HOLDER_RELEASES=$holder run "$spec" "$bindir/test_robust" $c; done
    done
    # sem_post from a signal handler under the profiler: a handler's post of the semaphore whose
    # first post (which creates its profile record) it interrupted must not wait for that record.
    timeout 60 "$bindir/test_robust" glibc signal-first-post >/dev/null || bad "test_robust glibc signal-first-post (exit $?)"
    for spec in mcs-stp standby; do LOCKLAB_QUIET=1 LOCKLAB_PROFILE=/dev/null run "$spec" "$bindir/test_robust" signal-first-post; done
    # Out of memory under an out-of-line lock: said once at once, and counted at exit.
    err=$(LOCKLAB_LOCK=mcs-stp LOCKLAB_VERBOSE=1 LD_PRELOAD="$preload" timeout 60 "$bindir/test_robust" oom 2>&1 >/dev/null)
    [ "$(grep -c 'out of memory for a lock object: such mutexes run on an inline standby lock instead of mcs-stp' <<<"$err")" = 1 ] &&
        grep -q 'exit: out of memory: [1-9][0-9]* mutexes ran on an inline standby lock instead of mcs-stp' <<<"$err" &&
        ok "mcs-stp out of memory: one line, and the count at exit" || bad "mcs-stp out of memory, lines: $err"
    # Misuse: one line per kind, once, unless LOCKLAB_QUIET=1.
    err=$(LOCKLAB_LOCK=mcs-stp LD_PRELOAD="$preload" timeout 60 "$bindir/test_robust" unlock-unheld 2>&1 >/dev/null)
    [ "$(grep -c 'pthread_mutex_unlock(0x[0-9a-f]*) of a mutex that is not locked: ignored' <<<"$err")" = 1 ] &&
        ok "mcs-stp unlock of an unlocked mutex: one line" || bad "mcs-stp unlock of an unlocked mutex, lines: $err"
    err=$(LOCKLAB_QUIET=1 LOCKLAB_LOCK=mcs-stp LD_PRELOAD="$preload" timeout 60 "$bindir/test_robust" unlock-unheld 2>&1 >/dev/null)
    [ -z "$err" ] && ok "LOCKLAB_QUIET=1: no misuse line" || bad "LOCKLAB_QUIET=1, lines: $err"
    ;;
memory)
    for spec in "$@"; do
        run "$spec" "$bindir/test_memory"
        LOCKLAB_PROFILE=/dev/null LOCKLAB_PROFILE_FORMAT=json run "$spec" "$bindir/test_memory" profile
    done
    ;;
fork)
    # Every spec locklab-bench --list prints (every algorithm x policy), or the SPECs given:
    # a mutex held across fork with parent threads queued on it (test_fork.c).
    bench=${1:?fork needs the path of locklab-bench}
    shift
    specs=("$@")
    [ ${#specs[@]} -gt 0 ] || mapfile -t specs < <("$bench" --list)
    [ ${#specs[@]} -gt 10 ] || bad "locklab-bench --list printed only ${#specs[@]} specs"
    for spec in "${specs[@]}" acr:patience_ns=0; do run "$spec" "$bindir/test_fork"; done
    # Forks while the waiters of a lock that parks in a global table keep parking: a bucket
    # lock a parent thread held at the fork must not hang the child (test_fork.c, "parked").
    for spec in standby parkinglot acr; do run "$spec" "$bindir/test_fork" parked; done
    # Another library's fork handler, run after the interposer's, locks a mutex
    # that has no lock object yet (loiter and hmcs-stp are out-of-line).
    for spec in acr loiter hmcs-stp; do
        timeout 60 env LOCKLAB_LOCK=$spec LD_PRELOAD="$preload $bindir/libatfork_lib.so" "$bindir/test_fork" >/dev/null ||
            bad "$spec with atfork_lib (exit $?)"
    done
    # ... and waits in its prepare handler for a thread that needs the arena (its first
    # thread context, an out-of-line lock object) while it holds that mutex (test_fork.c,
    # "atfork-fresh-holder"): the interposer's prepare handler must not hold the arena.
    for spec in standby parkinglot acr mcs-stp loiter hmcs-stp; do
        timeout 120 env LOCKLAB_LOCK=$spec LD_PRELOAD="$preload $bindir/libatfork_lib.so" "$bindir/test_fork" atfork-fresh-holder >/dev/null ||
            bad "$spec with atfork_lib, a holder that needs the arena during the fork (exit $?)"
    done
    # ... and unlocks, in the child before the interposer's child handlers run, that mutex
    # while parent threads are parked on it (test_fork.c, "atfork-contended").
    for spec in standby parkinglot acr; do
        timeout 120 env LOCKLAB_LOCK=$spec LD_PRELOAD="$preload $bindir/libatfork_lib.so" "$bindir/test_fork" atfork-contended >/dev/null ||
            bad "$spec with atfork_lib, contended (exit $?)"
    done
    ;;
realtime)
    # Every spec of locklab-bench --list but the ck-* peers (whose spin loops are
    # Concurrency Kit's), or the SPECs given: SCHED_FIFO threads on one CPU (test_realtime.c).
    bench=${1:?realtime needs the path of locklab-bench}
    shift
    specs=("$@")
    [ ${#specs[@]} -gt 0 ] || mapfile -t specs < <("$bench" --list | grep -v '^ck-')
    [ ${#specs[@]} -gt 10 ] || bad "locklab-bench --list printed only ${#specs[@]} specs"
    for spec in "${specs[@]}"; do LOCKLAB_QUIET=1 run "$spec" "$bindir/test_realtime"; done
    # spinlocks never park, whatever LOCKLAB_LOCK: their real-time waiters sleep too
    for spin in ttas tas ticket mcs clh; do
        if timeout 120 env LOCKLAB_QUIET=1 LOCKLAB_SPIN=$spin LD_PRELOAD="$preload" "$bindir/test_realtime" spin; then
            ok "LOCKLAB_SPIN=$spin test_realtime spin"
        else
            bad "LOCKLAB_SPIN=$spin test_realtime spin (exit $?)"
        fi
    done
    ;;
warn)
    # A lock that never parks where it cannot work: one line each, once per process,
    # for more threads than CPUs and for real-time threads; LOCKLAB_QUIET=1 silences
    # them, a parking lock has none, LOCKLAB_VERBOSE=1 shows the lock's nature at
    # start and a summary at exit.
    expect_lines() { # expect_lines N PATTERN NAME ENV... -- PROGRAM...: N stderr lines match PATTERN
        local n=$1 pattern=$2 name=$3 err got
        shift 3
        local envs=()
        while [ "$1" != -- ]; do envs+=("$1"); shift; done
        shift
        err=$(env "${envs[@]}" LD_PRELOAD="$preload" "$@" 2>&1 >/dev/null)
        got=$(printf '%s\n' "$err" | grep -c -- "$pattern")
        if [ "$got" -eq "$n" ]; then ok "$name"; else bad "$name: want $n line(s) /$pattern/, got: $err"; fi
    }
    # test_mix: it never forks (a fork child is another process, which may warn once too).
    over='never parks and [0-9]* threads now use it on 1 CPUs'
    rt='never parks and a real-time thread'
    expect_lines 1 "$over" "tas, 3 threads on 1 CPU" LOCKLAB_LOCK=tas -- taskset -c 0 "$bindir/test_mix"
    expect_lines 0 'never parks' "tas, 3 threads on 1 CPU, quiet" LOCKLAB_QUIET=1 LOCKLAB_LOCK=tas -- taskset -c 0 "$bindir/test_mix"
    # ticket: the direct path (mutex.c), which a thread takes once its first lock has counted it
    expect_lines 1 "$over" "ticket, 3 threads on 1 CPU" LOCKLAB_LOCK=ticket -- taskset -c 0 "$bindir/test_mix"
    if LD_PRELOAD="$preload" "$bindir/test_realtime" 2>/dev/null | grep -q skipped; then
        echo "warn: real-time part skipped (SCHED_FIFO not permitted)"
    else
        for spec in tas ticket mcs mcs-yield backoff; do
            expect_lines 1 "$rt" "$spec, SCHED_FIFO threads" LOCKLAB_LOCK=$spec -- "$bindir/test_realtime"
        done
        expect_lines 0 'never parks' "mcs-stp parks, SCHED_FIFO threads" LOCKLAB_LOCK=mcs-stp -- "$bindir/test_realtime"
        # a spinlock's real-time waiter: the line names LOCKLAB_SPIN, not the mutexes' lock
        srt='spinlocks (LOCKLAB_SPIN=ttas) never park and a real-time thread'
        expect_lines 1 "$srt" "spinlock, SCHED_FIFO threads, mutexes parking" -- "$bindir/test_realtime" spin
        expect_lines 1 "$srt" "spinlock, SCHED_FIFO threads, mutexes tas" LOCKLAB_LOCK=tas -- "$bindir/test_realtime" spin
        expect_lines 0 "$rt" "spinlock, SCHED_FIFO threads: no mutex line" LOCKLAB_LOCK=tas -- "$bindir/test_realtime" spin
        expect_lines 0 'never park' "spinlock, SCHED_FIFO threads, quiet" LOCKLAB_QUIET=1 -- "$bindir/test_realtime" spin
        expect_lines 1 'exit: spinlocks (LOCKLAB_SPIN=ttas) never park: up to [0-9]* threads .* real-time waiters slept [1-9][0-9]* times' \
            "verbose exit summary, spinlocks" LOCKLAB_VERBOSE=1 LOCKLAB_QUIET=1 -- "$bindir/test_realtime" spin
        expect_lines 0 'never parks' "tas, SCHED_FIFO threads, quiet" LOCKLAB_QUIET=1 LOCKLAB_LOCK=tas -- "$bindir/test_realtime"
        expect_lines 1 'lock=tas (LOCKLAB_LOCK; never parks' "verbose start line" LOCKLAB_VERBOSE=1 LOCKLAB_QUIET=1 \
            LOCKLAB_LOCK=tas -- "$bindir/test_realtime"
        expect_lines 1 'exit: lock tas never parks: up to [0-9]* threads .* real-time waiters slept [1-9][0-9]* times' \
            "verbose exit summary" LOCKLAB_VERBOSE=1 LOCKLAB_QUIET=1 LOCKLAB_LOCK=tas -- "$bindir/test_realtime"
    fi
    ;;
preconstructor)
    ctor=$bindir/libctor_lib.so
    # The dynamic loader runs the constructors of LD_PRELOAD entries in reverse
    # order: with the interposer listed first, ctor_lib's constructor locks
    # mutexes before the interposer's constructor ran.  Check that this really happens.
    order=$(LD_DEBUG=files LD_PRELOAD="$preload $ctor" "$bindir/test_preconstructor" 2>&1 >/dev/null |
            grep -o 'calling init: .*\(libctor_lib\|liblocklab-preload\)\.so' | sed 's/.*\///' | tr '\n' ' ')
    [ "$order" = "libctor_lib.so liblocklab-preload.so " ] || bad "expected ctor_lib's constructor first, got: $order"
    for spec in acr loiter mcs-stp; do
        LOCKLAB_LOCK=$spec LD_PRELOAD="$preload $ctor" "$bindir/test_preconstructor" || bad "$spec, interposer first"
        LOCKLAB_LOCK=$spec LD_PRELOAD="$ctor $preload" "$bindir/test_preconstructor" || bad "$spec, interposer second"
    done
    ;;
cxx)
    for spec in acr loiter mcs-stp mcscr-stp; do run "$spec" "$bindir/test_cxx"; done
    ;;
bindings)
    # The calls bind to the interposer, whatever glibc symbol version they were
    # linked against: the programs' own calls, and libstdc++'s (std::condition_variable).
    check_binding() { # check_binding PROG CALLER SYMBOL...
        local prog=$1 caller=$2
        shift 2
        local out
        out=$(LD_DEBUG=bindings LD_BIND_NOW=1 LD_PRELOAD=$preload "$bindir/$prog" 2>&1 >/dev/null)
        for sym in "$@"; do
            echo "$out" | grep -q "binding file [^ ]*/$caller \[0\] to [^ ]*liblocklab-preload.so \[0\]: normal symbol \`$sym'" ||
                bad "$prog: $caller's $sym does not bind to liblocklab-preload.so"
        done
    }
    check_binding test_mutex test_mutex pthread_mutex_lock pthread_mutex_unlock pthread_mutex_trylock \
        pthread_mutex_timedlock pthread_mutex_clocklock pthread_mutex_init pthread_mutex_destroy
    check_binding test_condsem test_condsem pthread_cond_wait pthread_cond_timedwait pthread_cond_clockwait \
        pthread_cond_signal pthread_cond_broadcast pthread_cond_init sem_init sem_wait sem_timedwait sem_post \
        sem_trywait sem_getvalue sem_destroy
    check_binding test_cxx test_cxx pthread_mutex_lock pthread_mutex_unlock
    check_binding test_c11 test_c11 mtx_init mtx_lock mtx_trylock mtx_timedlock mtx_unlock mtx_destroy \
        cnd_init cnd_wait cnd_timedwait cnd_signal cnd_broadcast cnd_destroy
    check_binding test_spinbar test_spinbar pthread_spin_init pthread_spin_lock pthread_spin_trylock \
        pthread_spin_unlock pthread_spin_destroy pthread_barrier_init pthread_barrier_wait pthread_barrier_destroy
    check_binding test_cxx 'libstdc++.so.6' pthread_cond_wait pthread_cond_broadcast
    ;;
badenv)
    # Bad values: exit 2 before main runs (no stdout), one line on stderr naming
    # the variable and the value.  Also when another library's constructor
    # triggers the interposer's lazy initialisation first.
    check_bad() { # check_bad VAR VALUE [LD_PRELOAD]
        local var=$1 value=$2 pre=${3:-$preload}
        local out err status
        err=$(env "$var=$value" LD_PRELOAD="$pre" "$bindir/test_preconstructor" 2>&1 >/dev/null)
        status=$?
        out=$(env "$var=$value" LD_PRELOAD="$pre" "$bindir/test_preconstructor" 2>/dev/null)
        [ $status -eq 2 ] || bad "$var='$value': exit status $status, want 2"
        [ -z "$out" ] || bad "$var='$value': main ran (stdout: $out)"
        [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || bad "$var='$value': want one line, got: $err"
        case $err in *"$var"*"$value"*) ;; *) bad "$var='$value': message does not name variable and value: $err" ;; esac
    }
    check_bad LOCKLAB_LOCK nosuchlock
    check_bad LOCKLAB_LOCK 'mcs-stp:bogus=1'
    check_bad LOCKLAB_LOCK 'loiter:spinners=-3'
    check_bad LOCKLAB_VERBOSE yes
    check_bad LOCKLAB_TOPOLOGY sockets=0
    check_bad LOCKLAB_COND lifo
    check_bad LOCKLAB_COND 'lifo-cr:append_one_in=0'
    check_bad LOCKLAB_COND_MORPH signal
    check_bad LOCKLAB_SEM 'fifo:x=1'
    check_bad LOCKLAB_SEM 'lifo-cr:append_one_in=128'
    LOCKLAB_PROFILE=- check_bad LOCKLAB_PROFILE_FORMAT xml
    check_bad LOCKLAB_LOCK nosuchlock "$preload $bindir/libctor_lib.so"
    check_bad LOCKLAB_LOCK 'mcs-stp:spin_ns=10,spin_ns=20000' # a key given twice
    # A report path that cannot be written is found at start-up, not at exit.
    LOCKLAB_PROFILE_TOP=0 check_bad LOCKLAB_PROFILE /nonexistent-locklab-dir/p.json
    LOCKLAB_PROFILE_TOP=0 check_bad LOCKLAB_PROFILE "$bindir"
    # A 10,000-character value: one line that still gives the reason (the value's middle is elided).
    long=$(printf 'x%.0s' $(seq 10000))
    err=$(LOCKLAB_LOCK=$long LD_PRELOAD="$preload" "$bindir/test_preconstructor" 2>&1 >/dev/null)
    status=$?
    [ $status -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ ${#err} -lt 400 ] &&
        [[ $err == *LOCKLAB_LOCK=*"too long (10000 bytes, max 255)"* ]] ||
        bad "10,000-character LOCKLAB_LOCK (exit $status, ${#err} bytes): ...${err: -120}"
    # Empty means unset, for every variable (the program runs on the defaults).
    for var in LOCKLAB_LOCK LOCKLAB_COND LOCKLAB_SEM LOCKLAB_TOPOLOGY LOCKLAB_VERBOSE LOCKLAB_QUIET LOCKLAB_PROFILE \
               LOCKLAB_PROFILE_FORMAT LOCKLAB_PROFILE_TOP LOCKLAB_PROFILE_SIGNAL; do
        profile=-
        [ $var = LOCKLAB_PROFILE ] && profile=
        err=$(env LOCKLAB_PROFILE=$profile "$var=" LD_PRELOAD="$preload $bindir/libctor_lib.so" \
              "$bindir/test_preconstructor" 2>&1 >/dev/null)
        status=$?
        [ $status -eq 0 ] || bad "$var='' (empty, which means unset): exit $status: $err"
    done
    # Valid values are accepted (the same program exits 0).
    LOCKLAB_LOCK=mcs-stp:spin_ns=5000 LOCKLAB_VERBOSE=1 LOCKLAB_TOPOLOGY=sockets=2 LOCKLAB_COND=lifo-cr \
        LOCKLAB_SEM=lifo-cr:append_one_in=129 LD_PRELOAD="$preload $bindir/libctor_lib.so" \
        "$bindir/test_preconstructor" >/dev/null 2>&1
    [ $? -eq 0 ] || bad "valid configuration rejected"
    ;;
twice)
    # Loaded twice: the same file listed twice, and two copies of it (the first
    # copy serves the calls; its glibc passthroughs reach glibc through the second).
    copy_dir=$(mktemp -d)
    cp "$preload" "$copy_dir/liblocklab-preload-copy.so"
    for pre in "$preload $preload" "$preload $copy_dir/liblocklab-preload-copy.so"; do
        for prog in test_mutex test_condsem test_fork; do
            timeout 120 env LD_PRELOAD="$pre" "$bindir/$prog" >/dev/null || bad "LD_PRELOAD='$pre' $prog"
        done
    done
    rm -rf "$copy_dir"
    ;;
malloc)
    # A malloc replacement that locks a pthread mutex (as jemalloc does): the
    # interposer's configuration calls malloc (fopen), so that mutex is locked
    # while the interposer configures itself, and a thread's first acquisition
    # (its locklab thread context) may come from inside malloc; the program
    # must run normally.  Not hmcs/anderson: their lock init calls malloc
    # (docs/interposer.md, limitations).
    lib=$bindir/libmalloc_lib.so
    for pre in "$preload $lib" "$lib $preload"; do
        for env in LOCKLAB_LOCK=acr LOCKLAB_LOCK=loiter LOCKLAB_LOCK=mcs-stp LOCKLAB_LOCK=mcscr-stp LOCKLAB_LOCK=twa-stp \
                   LOCKLAB_VERBOSE=1 LOCKLAB_PROFILE=-; do
            timeout 120 env "$env" LD_PRELOAD="$pre" "$bindir/test_fork" >/dev/null 2>&1 ||
                bad "$env LD_PRELOAD='$pre' test_fork (exit $?)"
        done
    done
    # ... and one that takes a pthread spinlock (malloc_spin_lib.c), inline and out of line.
    lib=$bindir/libmalloc_spin_lib.so
    for pre in "$preload $lib" "$lib $preload"; do
        for spin in "" mcs; do
            timeout 120 env LOCKLAB_SPIN=$spin LOCKLAB_QUIET=1 LD_PRELOAD="$pre" "$bindir/test_spinbar" >/dev/null 2>&1 &&
                ok "malloc under a spinlock, LOCKLAB_SPIN=$spin LD_PRELOAD='$pre'" ||
                bad "malloc under a spinlock, LOCKLAB_SPIN=$spin LD_PRELOAD='$pre' test_spinbar (exit $?)"
        done
    done
    ;;
nomeasure)
    # The library measures the stp/astp (and loiter) default spin budget by
    # starting two threads (ll_park_cost_ns); the interposer uses a fixed budget
    # instead, so a single-threaded program that locks mutexes (ctor_lib) must
    # start no thread at all.
    command -v strace >/dev/null || { echo "strace is needed (apt-get install strace)" >&2; exit 1; }
    for spec in acr loiter mcs-stp mcscr-astp lifocr-stp; do
        clones=$(LOCKLAB_LOCK=$spec strace -f -qq -e trace=clone,clone3 -E LD_PRELOAD="$preload $bindir/libctor_lib.so" \
                 "$bindir/test_preconstructor" 2>&1 >/dev/null | grep -c '^clone')
        [ "$clones" = 0 ] || bad "$spec: $clones thread(s) started by a single-threaded program"
    done
    ;;
profile)
    # LOCKLAB_PROFILE: the interposer feeds the profiler a record per object it
    # saw, with the right kinds, types and passthrough flags and consistent counts.
    json=$(mktemp /tmp/locklab-profile-XXXXXX.json)
    LOCKLAB_PROFILE=$json LOCKLAB_PROFILE_TOP=0 LOCKLAB_COND=lifo-cr run mcs-stp "$bindir/test_condsem"
    python3 - "$json" <<'PY' || bad "profile report"
import json, sys
d = json.load(open(sys.argv[1]))
locks = d["locks"]
def having(**kw):
    return [l for l in locks if all(l[k] == v for k, v in kw.items())]
problems = []
if d["lock"] != "mcs-stp" or d["cond"] != "lifo-cr":
    problems.append("header names lock %r cond %r" % (d["lock"], d["cond"]))
# the queue mutex of the producer/consumer test: 2 runs x (20000 puts + 20000 gets + ...) acquisitions
busy = having(kind="mutex", type="normal", passthrough=False)
if not busy or max(l["acquisitions"] for l in busy) < 80000:
    problems.append("no normal mutex with >= 80000 acquisitions")
if not having(kind="mutex", type="recursive"):
    problems.append("no recursive mutex record")
for kind, typ in (("mutex", "robust"), ("mutex", "pshared"), ("cond", "pshared"), ("sem", "pshared")):
    rows = having(kind=kind, type=typ, passthrough=True)
    if not rows or sum(l["passthrough_ops"] for l in rows) == 0:
        problems.append("no passthrough %s %s with calls counted" % (typ, kind))
conds = having(kind="cond", type="lifo-cr", passthrough=False)
if not conds or sum(l["acquisitions"] for l in conds) < 100:
    problems.append("condition variable waits not recorded")
sems = having(kind="sem", type="fifo", passthrough=False)
if len(sems) < 2 or min(l["acquisitions"] for l in sems[:2]) < 60000:
    problems.append("semaphore waits not recorded (want 60000 per producer/consumer semaphore)")
for l in conds + sems:  # waits have a histogram, as mutexes do: no p99 of 0 beside a maximum
    if l["contended"] and not l["wait_max_ns"] >= l["wait_p999_ns"] >= l["wait_p99_ns"] > 0:
        problems.append("%s %s: wait p99 %d, p99.9 %d, max %d" % (l["kind"], l["address"], l["wait_p99_ns"],
                                                                   l["wait_p999_ns"], l["wait_max_ns"]))
for l in locks:  # the per-thread max/min of admissions, null when no thread is counted
    want = l["max_thread_share"] / l["min_thread_share"] if l["min_thread_share"] else None
    if (want is None) != (l["thread_max_min"] is None) or (want and abs(l["thread_max_min"] - want) > 1e-3 * want):
        problems.append("%s %s: thread_max_min %s, shares %d/%d" % (l["kind"], l["address"], l["thread_max_min"],
                                                                    l["max_thread_share"], l["min_thread_share"]))
if d["objects"] != len(locks):
    problems.append("objects %d != listed %d with LOCKLAB_PROFILE_TOP=0" % (d["objects"], len(locks)))
for p in problems:
    print("profile:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
    rm -f "$json"
    ;;
secure)
    # Secure-execution mode (AT_SECURE: a set-user-ID program run by another user),
    # the case of an interposer listed in /etc/ld.so.preload: no LOCKLAB_* variable
    # is honoured (default lock, no report, silent).  test_secure is linked against
    # the interposer (the loader ignores LD_PRELOAD paths in this mode); a root-owned
    # set-user-ID copy runs as nobody.  A nosuid mount gives no AT_SECURE: the copy
    # goes to the first directory where the program sees AT_SECURE=1.
    prog=$bindir/test_secure
    if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
        echo "SKIP secure: needs root and setpriv to run a set-user-ID root program as nobody"
        finish
        exit
    fi
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
    # Outside secure mode the variables are honoured: a bad value is refused (the check below is not vacuous).
    LOCKLAB_LOCK=nosuchlock "$prog" >/dev/null 2>&1
    [ $? -eq 2 ] || bad "LOCKLAB_LOCK=nosuchlock not refused outside secure-execution mode"
    dir=
    for base in "$bindir" /tmp /var/tmp /dev/shm; do
        d=$(mktemp -d "$base/locklab-secure-XXXXXX" 2>/dev/null) || continue
        chmod 755 "$d"
        cp "$prog" "$d/test_secure"
        chmod 4755 "$d/test_secure"
        if [ "$(as_nobody "$d/test_secure" 2>/dev/null | head -1)" = secure=1 ]; then
            dir=$d
            break
        fi
        rm -rf "$d"
    done
    if [ -z "$dir" ]; then
        echo "SKIP secure: no directory here lets a set-user-ID program run in secure-execution mode (nosuid mounts)"
        finish
        exit
    fi
    echo precious >"$dir/victim"
    ln -s "$dir/victim" "$dir/link"
    before=$(ls -A "$dir" | sort | tr '\n' ' ')
    for env in LOCKLAB_LOCK=nosuchlock LOCKLAB_LOCK=tas LOCKLAB_VERBOSE=1 LOCKLAB_VERBOSE=yes LOCKLAB_COND=bogus \
               LOCKLAB_SEM=bogus LOCKLAB_TOPOLOGY=sockets=0 LOCKLAB_PROFILE=- LOCKLAB_PROFILE=$dir/victim \
               LOCKLAB_PROFILE=$dir/link LOCKLAB_PROFILE=$dir/new.json LOCKLAB_PROFILE=/nonexistent/p.json \
               LOCKLAB_PROFILE_FORMAT=xml; do
        err=$(as_nobody env "$env" LOCKLAB_PROFILE_TOP=0 "$dir/test_secure" 2>&1 >/dev/null)
        status=$?
        [ $status -eq 0 ] || bad "secure mode, $env: exit $status ($err)"
        [ -z "$err" ] || bad "secure mode, $env: not silent: $err"
    done
    [ "$(cat "$dir/victim")" = precious ] || bad "secure mode: the report overwrote a file: $(head -c 80 "$dir/victim")"
    [ -L "$dir/link" ] || bad "secure mode: the symlink at the report path was replaced"
    after=$(ls -A "$dir" | sort | tr '\n' ' ')
    [ "$before" = "$after" ] || bad "secure mode: files created: '$before' -> '$after'"
    [ $fail -eq 0 ] && ok "secure-execution mode ($dir): LOCKLAB_* ignored, silent, nothing written"
    rm -rf "$dir"
    ;;
*)
    echo "unknown case '$case' (valid: mutex sync threads mix timed timed-sleeps clockset posix robust memory fork realtime warn preconstructor cxx bindings badenv profile nomeasure twice malloc secure)" >&2
    exit 2
    ;;
esac
finish
