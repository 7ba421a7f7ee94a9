#!/usr/bin/env bash
# Tests of the LD_PRELOAD interposer (src/interpose, docs/interposer.md).
#   run_tests.sh PRELOAD BINDIR CASE [SPEC...]
# PRELOAD: build/lib/liblocklab-preload.so; BINDIR: where the test programs are.
# CASE: mutex SPEC... | sync SPEC... | fork | preconstructor | cxx | bindings | badenv
set -u
preload=$1 bindir=$2 case=$3
shift 3
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
run() { # run LOCK PROGRAM...: the program under the interposer with LOCKLAB_LOCK=LOCK
    local lock=$1
    shift
    LOCKLAB_LOCK=$lock LD_PRELOAD=$preload timeout 120 "$@" || bad "LOCKLAB_LOCK=$lock $* (exit $?)"
}

case $case in
mutex)
    for spec in "$@"; do run "$spec" "$bindir/test_mutex"; done
    ;;
sync)
    for spec in "$@"; do
        for discipline in fifo lifo-cr lifo-cr:append_one_in=2; do
            LOCKLAB_COND=$discipline LOCKLAB_SEM=$discipline run "$spec" "$bindir/test_condsem"
        done
    done
    ;;
fork)
    for spec in loiter mcs-stp mcscr-stp; do run "$spec" "$bindir/test_fork"; done
    ;;
preconstructor)
    ctor=$bindir/libctor_lib.so
    # The dynamic loader runs the constructors of LD_PRELOAD entries in reverse
    # order: with the interposer listed first, ctor_lib's constructor locks
    # mutexes before the interposer's constructor ran.  Check that this really happens.
    order=$(LD_DEBUG=files LD_PRELOAD="$preload $ctor" "$bindir/test_preconstructor" 2>&1 >/dev/null |
            grep -o 'calling init: .*\(libctor_lib\|liblocklab-preload\)\.so' | sed 's/.*\///' | tr '\n' ' ')
    [ "$order" = "libctor_lib.so liblocklab-preload.so " ] || bad "expected ctor_lib's constructor first, got: $order"
    for spec in loiter mcs-stp; do
        LOCKLAB_LOCK=$spec LD_PRELOAD="$preload $ctor" "$bindir/test_preconstructor" || bad "$spec, interposer first"
        LOCKLAB_LOCK=$spec LD_PRELOAD="$ctor $preload" "$bindir/test_preconstructor" || bad "$spec, interposer second"
    done
    ;;
cxx)
    for spec in loiter mcs-stp mcscr-stp; do run "$spec" "$bindir/test_cxx"; done
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
    check_bad LOCKLAB_SEM 'fifo:x=1'
    check_bad LOCKLAB_SEM 'lifo-cr:append_one_in=128'
    check_bad LOCKLAB_LOCK nosuchlock "$preload $bindir/libctor_lib.so"
    # Valid values are accepted (the same program exits 0).
    LOCKLAB_LOCK=mcs-stp:spin_ns=5000 LOCKLAB_VERBOSE=1 LOCKLAB_TOPOLOGY=sockets=2 LOCKLAB_COND=lifo-cr \
        LOCKLAB_SEM=lifo-cr:append_one_in=129 LD_PRELOAD="$preload $bindir/libctor_lib.so" \
        "$bindir/test_preconstructor" >/dev/null 2>&1
    [ $? -eq 0 ] || bad "valid configuration rejected"
    ;;
*)
    echo "unknown case '$case' (valid: mutex sync fork preconstructor cxx bindings badenv)" >&2
    exit 2
    ;;
esac
exit $fail
