#!/usr/bin/env bash
# The profiler's report: contents (JSON), the table, snapshots, fork, bad environment values,
# and how the report file is written (a new file renamed into place: atomic, no symlink followed, 0600).
set -u
prog=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/lib.sh" # ok, bad, expect_error, finish

out=$(LOCKLAB_PROFILE=$dir/p.json LOCKLAB_PROFILE_SIGNAL=USR1 LOCKLAB_PROFILE_TOP=0 "$prog") || bad "run failed: $out"
read -r _ child idle <<<"$out"
python3 - "$dir/p.json" <<'PY' && ok "JSON report contents" || bad "JSON report contents"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["format"] == "locklab-profile" and r["version"] == 1, r
assert r["lock"] == "test-lock" and r["cond"] == "fifo" and r["cond_morph"] == "none" and r["sem"] == "lifo-cr"
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
assert sem["wait_p99_ns"] == 1000, sem   # a histogram for waits too (its bucket's upper bound, at most the maximum)
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

[ -e "$dir/p.json.$idle" ] && bad "a fork()ed child that took no lock wrote $dir/p.json.$idle" \
  || ok "a fork()ed child that took no lock writes no report"

# Killed while writing its report (SIGXFSZ: a 1 KiB file size limit): the previous report survives intact.
cp "$dir/p.json" "$dir/previous.json"
(ulimit -f 1; LOCKLAB_PROFILE=$dir/p.json LOCKLAB_PROFILE_TOP=0 "$prog" >/dev/null 2>&1)
status=$?
[ $status -ne 0 ] && cmp -s "$dir/p.json" "$dir/previous.json" && ok "killed while writing: previous report intact" \
  || bad "killed while writing (exit $status): previous report damaged ($(wc -c <"$dir/p.json") bytes)"

# A symlink at the report path is replaced, not followed; the new report is 0600 (umask 022).
echo precious >"$dir/victim"
ln -s "$dir/victim" "$dir/link.json"
(umask 022; LOCKLAB_PROFILE=$dir/link.json "$prog" >/dev/null) || bad "run with a symlinked report path failed"
[ "$(cat "$dir/victim")" = precious ] && [ ! -L "$dir/link.json" ] && [ "$(stat -c %a "$dir/link.json")" = 600 ] &&
  python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$dir/link.json" && ok "symlink at the report path not followed; mode 0600" \
  || bad "symlink at the report path: victim '$(head -c 40 "$dir/victim")', report mode $(stat -c %a "$dir/link.json")"

# Durable: the new file is fsync'ed before the rename that publishes it, and the directory after.
if command -v strace >/dev/null; then
    LOCKLAB_PROFILE=$dir/durable.json strace -f -qq -e trace=fsync,rename,renameat,renameat2 -o "$dir/trace" \
        "$prog" >/dev/null 2>&1 || bad "run under strace failed"
    calls=$(grep -oE '(fsync|rename(at2?)?)\(' "$dir/trace" | sed 's/renameat2\?/rename/; s/($//' | tr '\n' ' ')
    [[ $calls == *"fsync rename fsync"* ]] && ok "report fsync'ed before its rename, directory after" \
      || bad "report not synced around its rename (calls: $calls)"
else
    bad "strace is needed (apt-get install strace)"
fi

# An existing path that is no regular file (a FIFO here; /dev/null) is written in place,
# not renamed over: it stays what it was, and the report goes through it.
mkfifo "$dir/fifo"
timeout 60 cat "$dir/fifo" >"$dir/fifo.out" &
reader=$!
LOCKLAB_PROFILE=$dir/fifo LOCKLAB_PROFILE_FORMAT=json timeout 60 "$prog" >/dev/null 2>&1 || bad "run with a FIFO report path failed"
[ -p "$dir/fifo" ] || { bad "the FIFO at the report path was replaced: $(stat -c %F "$dir/fifo")"; kill "$reader" 2>/dev/null; }
wait "$reader"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$dir/fifo.out" 2>/dev/null &&
  ok "a FIFO at the report path is written in place" || bad "no report through the FIFO ($(wc -c <"$dir/fifo.out") bytes)"

table=$(LOCKLAB_PROFILE=- "$prog" 2>&1 >/dev/null)
[[ $table == "locklab profile v1:"* && $table == *"first use"* && $table == *"test-lock"* ]] \
  && ok "table on stderr" || bad "table: $table"

# bad environment values: exit 2, one line on stderr
expect_error "bad format" "bad LOCKLAB_PROFILE_FORMAT 'xml' (valid: json, table)" -- env LOCKLAB_PROFILE=- LOCKLAB_PROFILE_FORMAT=xml "$prog"
expect_error "bad top" "bad LOCKLAB_PROFILE_TOP 'many'" -- env LOCKLAB_PROFILE=- LOCKLAB_PROFILE_TOP=many "$prog"
expect_error "bad signal" "bad LOCKLAB_PROFILE_SIGNAL 'KILL' (valid: USR1, USR2, HUP)" -- env LOCKLAB_PROFILE=- LOCKLAB_PROFILE_SIGNAL=KILL "$prog"
# a report path that cannot be written: found at start-up (main never runs), not at exit
expect_error "missing directory" "bad LOCKLAB_PROFILE '$dir/none/p.json': cannot write a report there (No such file or directory" -- env LOCKLAB_PROFILE=$dir/none/p.json "$prog"
expect_error "path is a directory" "bad LOCKLAB_PROFILE '$dir': cannot write a report there (Is a directory" -- env LOCKLAB_PROFILE=$dir "$prog"
# empty = unset, as for every LOCKLAB_* variable (test_profile then says it needs LOCKLAB_PROFILE and exits 1)
err=$(LOCKLAB_PROFILE= LOCKLAB_PROFILE_FORMAT= LOCKLAB_PROFILE_TOP= LOCKLAB_PROFILE_SIGNAL= "$prog" 2>&1 >/dev/null)
[ $? -eq 1 ] && [[ $err == *"set LOCKLAB_PROFILE"* ]] && ok "empty LOCKLAB_PROFILE means off" || bad "empty LOCKLAB_PROFILE: $err"
err=$(LOCKLAB_PROFILE=$dir/e.json LOCKLAB_PROFILE_FORMAT= LOCKLAB_PROFILE_TOP= LOCKLAB_PROFILE_SIGNAL= "$prog" 2>&1 >/dev/null)
[ $? -eq 0 ] && [ -s "$dir/e.json" ] && ok "empty LOCKLAB_PROFILE_FORMAT, _TOP, _SIGNAL mean unset" || bad "empty _FORMAT/_TOP/_SIGNAL: $err"

finish
