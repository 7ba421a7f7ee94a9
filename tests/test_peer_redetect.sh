#!/usr/bin/env bash
# An optional peer missing at one configure is found at the next one once it is
# installed, without rm -rf build (issue 15): a cached "not found" for
# <ck_spinlock.h> (LOCKLAB_HAVE_CK_HEADER=0, as a configure without libck-dev
# leaves it) must not survive a reconfigure on a machine that has the header.
#   test_peer_redetect.sh SOURCE_DIR
# Skipped (exit 77) where libck-dev is not installed: nothing to find.
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
peers() { grep -o 'Concurrency Kit spinlocks (ck-\*): [A-Z]*' "$tmp/log" | awk '{print $NF}'; }
cmake -S "$src" -B "$tmp/b" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
if [ "$(peers)" != ON ]; then
    echo "SKIP: <ck_spinlock.h> not found here (apt-get install libck-dev), so there is nothing to re-detect"
    exit 77
fi
# The cache as a configure before libck-dev was installed left it.
cmake -S "$src" -B "$tmp/b" -DLOCKLAB_HAVE_CK_HEADER=0 -DLOCKLAB_HAVE_CK=0 >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
if [ "$(peers)" = ON ]; then
    echo "ok: ck peers found again after a cached 'not found'"
else
    echo "FAIL: a cached 'not found' for <ck_spinlock.h> hid the installed header (peers: $(peers))"; exit 1
fi
