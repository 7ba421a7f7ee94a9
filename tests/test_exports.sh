#!/usr/bin/env bash
# The shared library exports the public API and nothing else.
#   test_exports.sh LIBLOCKLAB.so LIBLOCKLAB.a INCLUDE_DIR GENERATED_INCLUDE_DIR
# Public names: every ll_/llt_ (the thread runtime)/locklab_ identifier the public
# headers (include/locklab/*.h) contain once preprocessed (so that names the
# LL_LOCK_VERBS macros paste together count).  Fails when the dynamic symbol
# table (nm -D --defined-only) holds a name outside that set, and when a public
# name the static library defines is missing from it (a declaration outside
# LL_API_BEGIN/LL_API_END).
set -euo pipefail
so=$1 ar=$2 inc=$3 geninc=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for h in "$inc"/locklab/*.h "$geninc"/locklab/*.h; do echo "#include <locklab/$(basename "$h")>"; done |
    ${CC:-cc} -E -I"$inc" -I"$geninc" -x c - | grep -v '^#' | grep -oE '\b(ll|llt|locklab)_[A-Za-z0-9_]*' | sort -u >"$tmp/public"
nm -D --defined-only "$so" | awk 'NF == 3 { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/exported"
nm -g --defined-only "$ar" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/defined"

fail=0
if [ ! -s "$tmp/exported" ] || ! grep -qx ll_lock_create "$tmp/exported"; then
    echo "FAIL: $so does not export ll_lock_create"; fail=1
fi
leaked=$(comm -23 "$tmp/exported" "$tmp/public")
if [ -n "$leaked" ]; then
    echo "FAIL: $so exports $(echo "$leaked" | wc -l) names no public header declares:"; echo "$leaked" | sed 's/^/  /'; fail=1
fi
missing=$(comm -12 "$tmp/defined" "$tmp/public" | comm -23 - "$tmp/exported")
if [ -n "$missing" ]; then
    echo "FAIL: public names defined in $ar but not exported by $so:"; echo "$missing" | sed 's/^/  /'; fail=1
fi
[ $fail -eq 0 ] && echo "ok: $(wc -l <"$tmp/exported") exported names, all declared by include/locklab/*.h"
exit $fail
