#!/usr/bin/env bash
# What locklab needs from the system, checked and installed in one place: called
# by the Makefile before `make build` / `make venv` / `make test` (and so by
# `make demo`) and by .ci/run.
#   tools/setup-deps.sh build|venv|test
#     build   gcc, g++, make, cmake, ninja, libck-dev (the ck-* peer locks)
#     venv    python3 with venv/ensurepip (Debian's python3-venv)
#     test    build + venv + what `make test` runs: strace, sysbench, setarch
#             (util-linux), the sanitizer runtimes (libtsan2, libasan8),
#             pkg-config (the install test), man (the manual-page test),
#             relacy-dev (the Relacy model checker: locklab-check, docs/verification.md),
#             libboost-fiber-dev (optional: the Boost.Fiber/Context peer of the thread
#             runtime, locklab-peer-boost, docs/threads.md; found at the next configure)
#             libpython3.11-testsuite (CPython's own test package, for Debian's python3.11)
#             and stress-ng: the interposer's conformance test (tests/interpose/conformance.sh)
# Nothing missing: silent, exit 0.  Something missing: one line naming the
# Debian packages; as root they are installed with apt-get, non-interactively;
# otherwise the apt-get command to run is printed and the exit status is 1
# (0 when only optional packages are missing: libck-dev, whose locks CMake
# registers when its header appears, and libboost-fiber-dev, whose peer it
# builds when the package appears, both at the next configure).
set -euo pipefail
what=${1:-}
case $what in
    build | venv | test) ;;
    *) echo "setup-deps: unknown set '$what' (valid: build, venv, test)" >&2; exit 2 ;;
esac

need=() optional=()
want_cmd() { # command package
    command -v "$1" >/dev/null 2>&1 || need+=("$2")
}
installed() { # Debian package (true where there is no dpkg: nothing to check)
    ! command -v dpkg-query >/dev/null 2>&1 ||
        [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}
want_pkg() { installed "$1" || need+=("$1"); }
want_optional_pkg() { installed "$1" || optional+=("$1"); }
build_set() {
    want_cmd gcc gcc; want_cmd g++ g++; want_cmd make make; want_cmd cmake cmake; want_cmd ninja ninja-build
    want_optional_pkg libck-dev
}
venv_set() {
    python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need+=(python3-venv)
}
case $what in
    build) build_set ;;
    venv) venv_set ;;
    test)
        build_set; venv_set
        want_cmd strace strace; want_cmd sysbench sysbench; want_cmd setarch util-linux
        want_cmd pkg-config pkg-config; want_cmd man man-db
        want_pkg libtsan2; want_pkg libasan8; want_pkg relacy-dev
        want_pkg libpython3.11-testsuite; want_cmd stress-ng stress-ng
        want_optional_pkg libboost-fiber-dev
        ;;
esac
[ ${#need[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0

all=$(printf '%s\n' "${need[@]}" "${optional[@]}" | sort -u | xargs)
status=$((${#need[@]} > 0)) # 1 when a required package is missing
if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup-deps: missing $all (Debian package names); install them with your package manager" >&2
    exit $status
fi
if [ "$(id -u)" != 0 ]; then
    echo "setup-deps: missing $all; as root, run: apt-get update && apt-get install -y --no-install-recommends $all" >&2
    exit $status
fi
echo "setup-deps: installing $all (apt-get, for make $what)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # $all: one word per package
apt-get install -y -qq --no-install-recommends $all >/dev/null
