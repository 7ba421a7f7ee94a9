#!/usr/bin/env bash
# The manual pages (docs/man, installed by `make install`) render without a
# warning and stay complete:
#   test_manpages.sh SOURCE_DIR LOCKLAB_BENCH
# - `man -l` (and groff -ww) print nothing on stderr for each page;
# - locklab-preload.8 names every LOCKLAB_* variable the sources read ("LOCKLAB_X" literals);
# - locklab.7 names every algorithm `locklab-bench --list` prints (the spec without its policy).
set -euo pipefail
src=$1 bench=$2
man=$src/docs/man
fail=0
for page in "$man"/*.[0-9]; do
    if command -v man >/dev/null 2>&1; then
        w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null) || w="man -l failed: $w"
    else
        w=$(groff -man -ww -z -Tutf8 "$page" 2>&1) || w="groff failed: $w"
    fi
    if [ -n "$w" ]; then echo "FAIL: $page renders with warnings:"; echo "$w" | sed 's/^/  /'; fail=1; fi
done

for var in $(grep -rhoE '"LOCKLAB_[A-Z_]+"' "$src/src" | tr -d '"' | sort -u); do
    grep -q "^\.[A-Z]*.*\b$var\b" "$man/locklab-preload.8" || { echo "FAIL: locklab-preload.8 does not describe $var"; fail=1; }
done

policies='-(spin|yield|park|stp|astp)$'
for algo in $("$bench" --list | sed -E "s/$policies//" | sort -u); do
    name=$(echo "$algo" | sed 's/-/\\\\-/g') # as roff writes it: tas, ticket\-pb
    grep -qE "^\.(B|BR) (.*[ \"])?$name([ \",]|$)" "$man/locklab.7" ||
        { echo "FAIL: locklab.7 does not describe lock '$algo'"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok: $(ls "$man" | wc -l) pages render cleanly and are complete"
exit $fail
