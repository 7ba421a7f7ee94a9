#!/usr/bin/env bash
# The profiler's report: contents (JSON), the table, snapshots, fork, bad environment values.
set -u
prog=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/lib.sh" # ok, bad, expect_error, finish

out=$(LOCKLAB_PROFILE=$dir/p.json LOCKLAB_PROFILE_SIGNAL=USR1 LOCKLAB_PROFILE_TOP=0 "$prog") || bad "run failed: $out"
child=${out#* }
python3 - "$dir/p.json" <<'PY' && ok "JSON report contents" || bad "JSON report contents"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["format"] == "locklab-profile" and r["version"] == 1, r
assert r["lock"] == "test-lock" and r["cond"] == "fifo" and r["sem"] == "lifo-cr"
assert r["objects"] == 4 and r["passthrough_objects"] == 1 and r["listed"] == 4
locks = r["locks"]
waits = [l["wait_total_ns"] for l in locks]
assert waits == sorted(waits, reverse=True), waits   # sorted by total wait
by = {(l["kind"], l["type"]): l for l in locks}
hot, sem, cold, robust = by["mutex", "normal"], by["sem", "normal"], by["mutex", "recursive"], by["mutex", "robust"]
assert hot["kind"] == "mutex" and hot["acquisitions"] == 80000, hot
assert 4 <= hot["contended"] < 80000 and hot["wait_total_ns"] > 0 and hot["wait_max_ns"] >= hot["wait_mean_ns"], hot
# fairness counts start at the first contended acquisition: at least two threads met there
assert hot["threads"] == 4 and hot["max_thread_share"] <= 20000 and hot["mttr"] is not None, hot
assert hot["lwss"] is None or 1.0 <= hot["lwss"] <= 4.0, hot
assert hot["owner_changes"] > 0 and hot["hold_samples"] == hot["acquisitions"] // 64
assert sem["kind"] == "sem" and sem["acquisitions"] == 11 and sem["contended"] == 10 and sem["wait_total_ns"] == 10000
assert sem["wait_max_ns"] == 1000
assert cold["type"] == "recursive" and cold["acquisitions"] == 101 and cold["contended"] == 0
assert cold["trylock_failed"] == 7 and cold["owner_changes"] == 0 and cold["lwss"] is None
assert robust["passthrough"] is True and robust["acquisitions"] == 0
assert "main" in cold["first_use"] or "test_profile" in cold["first_use"], cold["first_use"]
PY
[ -s "$dir/p.json.snap1" ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$dir/p.json.snap1" \
  && ok "signal snapshot" || bad "signal snapshot missing"
python3 - "$dir/p.json.$child" <<'PY' && ok "fork()ed child reports next to the parent" || bad "child report"
import json, sys
r = json.load(open(sys.argv[1]))
cold = [l for l in r["locks"] if l["type"] == "recursive"][0]
assert cold["acquisitions"] == 101 + 5, cold
PY

table=$(LOCKLAB_PROFILE=- "$prog" 2>&1 >/dev/null)
[[ $table == "locklab profile v1:"* && $table == *"first use"* && $table == *"test-lock"* ]] \
  && ok "table on stderr" || bad "table: $table"

# bad environment values: exit 2, one line on stderr
expect_error "bad format" "bad LOCKLAB_PROFILE_FORMAT 'xml' (valid: json, table)" -- env LOCKLAB_PROFILE=- LOCKLAB_PROFILE_FORMAT=xml "$prog"
expect_error "bad top" "bad LOCKLAB_PROFILE_TOP 'many'" -- env LOCKLAB_PROFILE=- LOCKLAB_PROFILE_TOP=many "$prog"
expect_error "bad signal" "bad LOCKLAB_PROFILE_SIGNAL 'KILL' (valid: USR1, USR2, HUP)" -- env LOCKLAB_PROFILE=- LOCKLAB_PROFILE_SIGNAL=KILL "$prog"
expect_error "empty path" "bad LOCKLAB_PROFILE ''" -- env LOCKLAB_PROFILE= "$prog"

finish
