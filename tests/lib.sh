# Helpers shared by the shell tests (sourced, never run):
#   . "$(dirname "$0")/lib.sh"
#
#   ok NAME / bad NAME       count a passed / failed check and print one line for it
#   expect_error NAME NEEDLE -- command...
#                            the command must exit 2 with exactly one line on stderr
#                            containing NEEDLE (the project's contract for bad input)
#   finish                   print "N passed, N failed"; its status is the test's verdict
#                            (use it as the script's last command)
pass=0 fail=0
ok()  { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

expect_error() {
  local name=$1 needle=$2; shift 3
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ $err == *"$needle"* ]]; then
    ok "$name"
  else
    bad "$name (rc=$rc): $err"
  fi
}

finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
