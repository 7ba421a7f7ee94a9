#!/usr/bin/env bash
# Peers (docs/peers.md): when locklab was built with Concurrency Kit, --list
# shows every ck-* lock, each one runs, and bad ck specs get a one-line error.
# Built without ck: --list shows no ck-* lock, and the test reports SKIP (77).
# usage: test_peers.sh BENCH HAVE_CK(1|0)
set -u
bench=$1 have_ck=$2
names="ck-fas ck-fas-eb ck-cas ck-cas-eb ck-dec ck-dec-eb ck-ticket ck-ticket-pb ck-anderson ck-mcs ck-clh"
. "$(dirname "$0")/lib.sh" # ok, bad, expect_error, finish

list=$("$bench" --list) || { echo "FAIL --list exited non-zero"; exit 1; }
if [ "$have_ck" != 1 ]; then
  if grep -q '^ck-' <<<"$list"; then echo "FAIL built without ck, but --list shows ck-* locks"; exit 1; fi
  echo "built without Concurrency Kit: no ck-* locks listed; skipping"
  exit 77
fi

for n in $names; do
  if grep -qx -- "$n" <<<"$list"; then ok "listed $n"; else bad "$n missing from --list"; fi
done
if [ "$(grep -c '^ck-' <<<"$list")" -eq "$(wc -w <<<"$names")" ]; then ok "no other ck-* names"; else bad "unexpected ck-* names in --list"; fi

# Each peer takes the lock: short interleaved runs; every lock must complete
# acquisitions in at least one of three runs (on a loaded machine a single
# short run can end before its threads were scheduled at all).
args=()
for n in $names; do args+=(--lock "$n"); done
out=$("$bench" mutexbench "${args[@]}" --threads 2 --duration 0.05 --runs 3 --json) || bad "mutexbench over the peers failed"
for n in $names; do
  if grep -q "\"lock\":\"$n\",\"threads\":2,[^}]*\"ops\":[1-9]" <<<"$out"; then ok "$n runs"; else bad "$n: no acquisitions"; fi
done

expect_error "peers spin only"         "does not support waiting policy 'park'" -- "$bench" mutexbench --lock ck-mcs-park --duration 0.01
expect_error "anderson slots not 2^k"  "slots=3 is not a power of two"        -- "$bench" mutexbench --lock ck-anderson:slots=3 --duration 0.01
expect_error "anderson slots too many" "bad value '131072'"                  -- "$bench" mutexbench --lock ck-anderson:slots=131072 --duration 0.01
expect_error "ticket-pb shift range"   "bad value '21'"                      -- "$bench" mutexbench --lock ck-ticket-pb:shift=21 --duration 0.01

finish
