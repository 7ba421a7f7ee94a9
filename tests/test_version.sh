#!/usr/bin/env bash
# One version everywhere: CMakeLists.txt's project(VERSION) is the
# one definition; the bench, the soname, python/pyproject.toml and, once
# generated, locklab.pc and locklabConfigVersion.cmake must carry it.
#   test_version.sh VERSION LOCKLAB_BENCH LIBLOCKLAB_SO PYPROJECT [GENERATED_FILE...]
set -euo pipefail
version=$1 bench=$2 so=$3 pyproject=$4
shift 4
fail=0
check() { # what, found[, expected (default: the version)]
    local want=${3:-$version}
    if [ "$2" = "$want" ]; then echo "ok: $1 = $2"; else echo "FAIL: $1 = '$2', expected $want (CMakeLists.txt: $version)"; fail=1; fi
}
check "locklab-bench --version" "$("$bench" --version | sed -n 's/^locklab //p')"
check "soname of $so" "$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" "liblocklab.so.${version%%.*}"
check "version in $pyproject" "$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$pyproject")"
for f in "$@"; do
    case $f in
        *.pc) check "Version: in $f" "$(sed -n 's/^Version: *//p' "$f")" ;;
        *ConfigVersion.cmake) check "PACKAGE_VERSION in $f" "$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")/\1/p' "$f")" ;;
        *) echo "FAIL: test_version.sh does not know how to read $f"; fail=1 ;;
    esac
done
exit $fail
