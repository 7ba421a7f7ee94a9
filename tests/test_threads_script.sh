#!/usr/bin/env bash
# bench/threads.sh --quick (the runtime's measurement script) as a smoke test: it
# runs every row, prints every table and every target with a verdict, and writes
# the markdown fragment; the peers that were built have their rows.  Nothing is
# asserted on the numbers (the machine is shared; the lead measures on a quiet one).
# Also the peers' bad input: one line, exit 2.
#   test_threads_script.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$(env -u RUNS -u DURATION -u OVER -u LOCK -u WORK_ITERS -u FINE_ITERS BUILD="$build" bash "$src/bench/threads.sh" --quick \
  --out "$tmp" 2>&1); rc=$?
if [ $rc -eq 0 ]; then ok "threads.sh --quick exits 0"; else bad "threads.sh --quick (rc=$rc): $out"; fi
for section in "Null thread" "Context switch" "thread-work" "Spin-waiting" "Idle runtime" "Issue 11's targets"; do
  if [[ $out == *"### $section"* ]]; then ok "prints: $section"; else bad "no section '$section'"; fi
done
verdicts=$(printf '%s\n' "$out" | grep -cE '\| (PASS|FAIL|SKIP)')
if [ "$verdicts" -eq 9 ]; then ok "9 targets, each with a verdict"; else bad "$verdicts targets with a verdict, not 9"; fi
rows=()
for alt in single-lock multi-lock local-freelist idle-queue local-readyq; do
  rows+=("null-thread $alt P=1" "null-thread $alt P=8" "thread-switch $alt P=1" "thread-idle $alt P=2")
done
rows+=("null-thread pthread P=2" "thread-work single-lock P=2" "thread-work-fine local-readyq P=2" "thread-counter anderson cs_iters=1000 P=2"
       "thread-counter tas barrier P=2")
[ -x "$build/bin/locklab-peer-boost" ] && rows+=("null-thread boost-fiber P=1" "thread-switch boost-fiber P=1")
[ -x "$build/bin/locklab-peer-go" ] && rows+=("null-thread goroutine P=8" "thread-switch goroutine P=1")
for r in "${rows[@]}"; do
  n=$(grep -c "^$r	" "$tmp/runs.tsv" 2>/dev/null)
  if [ "$n" = 2 ]; then ok "row '$r': 2 runs"; else bad "row '$r': ${n:-no} runs"; fi
done
if [ -x "$build/bin/locklab-peer-boost" ]; then
  if printf '%s\n' "$out" | grep "Boost.Fiber's" | grep -q SKIP; then bad "Boost.Fiber built but its target skipped"
  else ok "Boost.Fiber target computed"; fi
  expect_error "boost peer: bad workload" "unknown workload 'nothing' (valid: null-thread, thread-switch)" -- \
    "$build/bin/locklab-peer-boost" nothing
  expect_error "boost peer: one thread only" "bad value '2' for --threads" -- "$build/bin/locklab-peer-boost" null-thread --threads 2
fi
if [ -x "$build/bin/locklab-peer-go" ]; then
  expect_error "go peer: bad workload" "unknown workload 'nothing' (valid: null-thread, thread-switch)" -- \
    "$build/bin/locklab-peer-go" nothing
  expect_error "go peer: bad duration" "bad value '0' for --duration" -- "$build/bin/locklab-peer-go" null-thread --duration 0
fi
if [ -s "$tmp/threads.md" ] && grep -q "Issue 11's targets" "$tmp/threads.md"; then ok "markdown fragment written"
else bad "no markdown fragment in $tmp/threads.md"; fi
expect_error "threads.sh: bad argument" "unknown argument '--slow' (valid: --quick, --out DIR)" -- bash "$src/bench/threads.sh" --slow
finish
