#!/usr/bin/env bash
# The soak: every lock x policy under the validator's clients, and the interposer
# tests under random specs, for a given time; counts acquisitions validated and
# violations.  Used by `make soak HOURS=N`.
#   soak.sh BUILD_DIR HOURS [LOG]
# Each round takes every spec of `locklab-bench --list` in a random order and runs
# the validator's five clients (counter, nested, trylock, mixed, timed) on it with a random
# thread count (2, 3, 8 or 16) for SOAK_CASE_SECONDS (default 1) each; every 10th
# spec, if it parks, also runs one interposer test case (mutex, sync, threads, mix, posix or memory) under it.
# Each round starts with the validator's deliberately broken lock, which must be caught.
# Prints a summary line per round and at the end:
#   soak: H h, R rounds, C cases, A acquisitions validated, V violations, F interposer failures
# Exit 0 iff nothing failed.  A violation or hang is printed with its case as it happens.
set -u
build=${1:?usage: soak.sh BUILD_DIR HOURS [LOG]}
hours=${2:?usage: soak.sh BUILD_DIR HOURS [LOG]}
log=${3:-/dev/null}
case_seconds=${SOAK_CASE_SECONDS:-1}
if ! [[ $hours =~ ^[0-9]*\.?[0-9]+$ ]]; then
    echo "soak: HOURS must be a positive number, got '$hours'" >&2
    exit 2
fi
if ! [[ $case_seconds =~ ^[0-9]*\.?[0-9]+$ ]]; then
    echo "soak: SOAK_CASE_SECONDS must be a positive number, got '$case_seconds'" >&2
    exit 2
fi
validator=$build/bin/validator bench=$build/bin/locklab-bench
for f in "$validator" "$bench" "$build/lib/liblocklab-preload.so"; do
    [ -e "$f" ] || { echo "soak: $f is missing (run make build first)" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t specs < <("$bench" --list)
# The specs whose algorithm parks by itself (caps parks-itself: registry.h, LL_CAP_PARKS_ITSELF)
declare -A parks_itself
while read -r spec; do parks_itself[$spec]=1; done < <("$bench" --list --verbose | awk '$0 ~ / caps=([^ ]*,)?parks-itself[, ]/ { print $1 }')
[ ${#parks_itself[@]} -gt 0 ] || { echo "soak: locklab-bench --list --verbose shows no lock that parks itself" >&2; exit 2; }
start=$(date +%s)
deadline=$(awk -v s="$start" -v h="$hours" 'BEGIN { printf "%d", s + h * 3600 }')
rounds=0 cases=0 acquired=0 violations=0 interpose_failed=0 interpose_runs=0
threads_choices=(2 3 8 16)
interpose_cases=(mutex sync threads mix posix memory)
: >"$log"
while [ "$(date +%s)" -lt "$deadline" ]; do
    # Each round first proves that the checker still catches a broken lock.
    if ! "$validator" --broken >>"$log" 2>&1; then
        echo "soak: the validator did not catch its deliberately broken lock" >&2
        violations=$((violations + 1))
    fi
    n=0
    for spec in $(printf '%s\n' "${specs[@]}" | shuf); do
        [ "$(date +%s)" -lt "$deadline" ] || break
        t=${threads_choices[RANDOM % 4]}
        out=$("$validator" --lock "$spec" --client all --threads "$t" --duration "$case_seconds" 2>&1)
        rc=$?
        printf '%s\n' "$out" >>"$log"
        while read -r verdict _ _ _ acq _; do # (the timed client appends timeouts=N)
            case $verdict in
            ok) acquired=$((acquired + ${acq#acquisitions=})); cases=$((cases + 1)) ;;
            FAIL) violations=$((violations + 1)); cases=$((cases + 1)) ;;
            esac
        done < <(printf '%s\n' "$out" | grep -E '^(ok|FAIL) .*acquisitions=')
        if [ $rc -ne 0 ]; then
            printf '%s\n' "$out" | grep -E 'FAIL|watchdog' | sed "s/^/soak: $spec threads=$t: /" >&2
            printf '%s\n' "$out" | grep -q 'watchdog' && violations=$((violations + 1))
        fi
        n=$((n + 1))
        # Interposer cases run many threads on 2 CPUs: only under locks whose waiters
        # park (a -park/-stp/-astp policy, or a lock that parks by itself); a pure
        # spinner there measures the scheduler for minutes (docs/interposer.md, warnings).
        if [ $((n % 10)) -eq 0 ] && [[ $spec =~ -(park|stp|astp)$ || -n ${parks_itself[$spec]:-} ]]; then
            c=${interpose_cases[RANDOM % ${#interpose_cases[@]}]}
            interpose_runs=$((interpose_runs + 1))
            if ! "$here/interpose/run_tests.sh" "$build/lib/liblocklab-preload.so" "$build/tests/interpose" "$c" "$spec" >>"$log" 2>&1; then
                interpose_failed=$((interpose_failed + 1))
                echo "soak: interposer case '$c' failed under $spec" >&2
            fi
        fi
    done
    rounds=$((rounds + 1))
    echo "soak: round $rounds: $cases cases, $acquired acquisitions validated, $violations violations, $interpose_failed/$interpose_runs interposer runs failed"
done
elapsed=$(( $(date +%s) - start ))
echo "soak: $(awk -v e=$elapsed 'BEGIN { printf "%.2f", e / 3600 }') h, $rounds rounds, $cases cases, $acquired acquisitions validated, $violations violations, $interpose_failed interposer failures (of $interpose_runs runs)"
[ $violations -eq 0 ] && [ $interpose_failed -eq 0 ]
