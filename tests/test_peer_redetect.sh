#!/usr/bin/env bash
# An optional peer missing at one configure is found at the next one once it is
# installed, without rm -rf build: a cached "not found" for
# <ck_spinlock.h> (LOCKLAB_HAVE_CK_HEADER=0, as a configure without libck-dev
# leaves it) must not survive a reconfigure on a machine that has the header.
# The same for the thread runtime's peers (docs/threads.md): Boost.Fiber
# (Boost_DIR-NOTFOUND, as a configure without libboost-fiber-dev leaves it) and
# Go (LOCKLAB_GO-NOTFOUND), each checked where it is installed.
#   test_peer_redetect.sh SOURCE_DIR
# Skipped (exit 77) where none of them is installed: nothing to find.
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
peers() { grep -o 'Concurrency Kit spinlocks (ck-\*): [A-Z]*' "$tmp/log" | awk '{print $NF}'; }
thread_peer() { grep -o "$1 (locklab-peer-[a-z]*): [A-Z]*" "$tmp/log" | awk '{print $NF}'; } # NAME: ON/OFF
cmake -S "$src" -B "$tmp/b" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
ck_here=$(peers) boost_here=$(thread_peer Boost.Fiber/Context) go_here=$(thread_peer Go)
checked=0
# recheck NAME "CACHE-SETTINGS" PEER-STATUS-COMMAND...: a configure leaves "not found"
# in the cache (the settings: as one before the peer was installed would), then the
# next configure must find the installed peer again.
recheck() {
    local name=$1 setting=$2; shift 2
    # shellcheck disable=SC2086 # one word per setting
    cmake -S "$src" -B "$tmp/b" $setting >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
    cmake -S "$src" -B "$tmp/b" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
    if [ "$("$@")" = ON ]; then echo "ok: $name found again after a cached 'not found' ($setting)"
    else echo "FAIL: a cached 'not found' ($setting) hid the installed $name"; exit 1; fi
    checked=$((checked + 1))
}
# The cache as a configure before libck-dev was installed left it (both checks at once).
[ "$ck_here" = ON ] && recheck "ck peers" "-DLOCKLAB_HAVE_CK_HEADER=0 -DLOCKLAB_HAVE_CK=0" peers
[ "$boost_here" = ON ] && recheck "Boost.Fiber peer" -DBoost_DIR=Boost_DIR-NOTFOUND thread_peer Boost.Fiber/Context
[ "$go_here" = ON ] && recheck "Go peer" -DLOCKLAB_GO=LOCKLAB_GO-NOTFOUND thread_peer Go
if [ $checked -eq 0 ]; then
    echo "SKIP: neither <ck_spinlock.h> (libck-dev), Boost.Fiber (libboost-fiber-dev) nor Go found here, so there is nothing to re-detect"
    exit 77
fi
