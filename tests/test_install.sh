#!/usr/bin/env bash
# The installed tree is usable on its own:
#   test_install.sh SOURCE_DIR BUILD_DIR
# Installs BUILD_DIR into a temporary DESTDIR (tools/install.sh, as `make
# install`), checks the layout, builds and runs examples/ against it with
# pkg-config and with CMake's find_package, runs a program under the installed
# interposer, installs the Python package (`pip install ./python`, pinned by
# python/requirements.lock) into a fresh venv whose `locklab` must find the
# installed bench and interposer on PATH, then `make uninstall`
# (tools/uninstall.sh) must leave no file.
# Skipped (exit 77) only when pkg-config is missing.
set -euo pipefail
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
command -v pkg-config >/dev/null || { echo "SKIP: pkg-config is not installed (apt-get install pkg-config)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
fail=0
check() { # what, command...
    local what=$1; shift
    if "$@" >"$tmp/out" 2>&1; then echo "ok: $what"; else echo "FAIL: $what"; sed 's/^/  /' "$tmp/out"; fail=1; fi
}

"$src/tools/install.sh" "$build" "$root" "$tmp/installed" >/dev/null
p=$root$prefix
for f in bin/locklab-bench bin/locklab-throw "$libdir/liblocklab.a" "$libdir/liblocklab.so" "$libdir/liblocklab.so.0" \
         "$libdir/locklab/liblocklab-preload.so" include/locklab/locklab.h include/locklab/mcs.h \
         include/locklab/version.h "$libdir/pkgconfig/locklab.pc" "$libdir/cmake/locklab/locklabConfig.cmake" \
         "$libdir/cmake/locklab/locklabConfigVersion.cmake" share/man/man7/locklab.7 share/man/man8/locklab-preload.8 \
         share/man/man1/locklab-bench.1 share/doc/locklab/LICENSE share/doc/locklab/README.md \
         share/doc/locklab/CHANGELOG.md; do
    [ -e "$p/$f" ] || { echo "FAIL: $prefix/$f was not installed"; fail=1; }
done
outside=$(grep -v "^$p/" "$tmp/installed" || true)
[ -z "$outside" ] || { echo "FAIL: installed outside $prefix:"; echo "$outside"; fail=1; }
check "installed locklab-bench --version" "$p/bin/locklab-bench" --version
# The installed headers carry the hardware's atomics only: the simulator's and the
# model checker's backends stay in sim/ and verify/ (atomics.h's LL_ATOMICS_BACKEND).
check "installed headers name no simulator or model-checker backend" \
    sh -c "! grep -rnE 'llsim_|ll_model|LL_BACKEND_|include \"relacy' '$p/include'"

# pkg-config: PKG_CONFIG_SYSROOT_DIR maps the .pc file's $prefix into DESTDIR.
export PKG_CONFIG_PATH=$p/$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
mkdir -p "$tmp/pc"
for ex in spec_lock mcs_static; do
    check "$ex built with pkg-config" \
        sh -c "${CC:-cc} -o '$tmp/pc/$ex' '$src/examples/$ex.c' \$(pkg-config --cflags --libs locklab)"
    check "$ex (pkg-config build) runs" env LD_LIBRARY_PATH="$p/$libdir" "$tmp/pc/$ex"
done
check "pkg-config --modversion is locklab-bench's version" \
    sh -c "[ \"locklab \$(pkg-config --modversion locklab)\" = \"\$('$p/bin/locklab-bench' --version)\" ]"
check "pkg-config --variable=preload names the installed interposer" \
    test -f "$root$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=preload locklab)"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# CMake: the package is relocatable, found under DESTDIR through CMAKE_PREFIX_PATH.
check "examples configured with find_package(locklab)" \
    cmake -S "$src/examples" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$p" -DCMAKE_BUILD_TYPE=Release
check "examples built with CMake" cmake --build "$tmp/cm"
for ex in spec_lock mcs_static; do
    check "$ex (CMake build) runs" env LD_LIBRARY_PATH="$p/$libdir" "$tmp/cm/$ex"
done
check "spec_lock takes its spec from the command line" \
    sh -c "LD_LIBRARY_PATH='$p/$libdir' '$tmp/cm/spec_lock' twa-stp | grep -q ', twa-stp.*: counter 400000'"
check "spec_lock refuses a bad spec" sh -c "! LD_LIBRARY_PATH='$p/$libdir' '$tmp/cm/spec_lock' nosuchlock"

# The installed interposer runs a program that does not link locklab.
check "a program runs under the installed interposer" sh -c \
    "LOCKLAB_VERBOSE=1 LOCKLAB_LOCK=mcs-stp LD_PRELOAD='$p/$libdir/locklab/liblocklab-preload.so' \
     '$p/bin/locklab-throw' --threads 2 --duration 0.05 2>&1 | grep -q 'liblocklab-preload: lock=mcs-stp'"

# The Python package in a fresh venv, run outside the repository: it finds the
# installed bench and interposer through PATH.
cp -r "$src/python" "$tmp/python" # pip builds in place: keep the source tree clean
check "pip install ./python into a fresh venv" sh -c "python3 -m venv '$tmp/venv' &&
    '$tmp/venv/bin/python' -m pip install --quiet --disable-pip-version-check -c '$src/python/requirements.lock' '$tmp/python'"
if [ -x "$tmp/venv/bin/locklab" ]; then
    export PATH=$p/bin:$PATH
    cd "$tmp"
    check "locklab --version is the installed bench's" \
        sh -c "[ \"\$('$tmp/venv/bin/locklab' --version)\" = \"\$(locklab-bench --version)\" ]"
    check "locklab sweep runs the installed bench" sh -c "'$tmp/venv/bin/locklab' sweep --workloads mutexbench \
        --locks tas,mcs-stp --threads 1,2 --runs 1 --duration 0.02 --out '$tmp/sweep' >/dev/null &&
        [ \$(grep -c mcs-stp '$tmp/sweep/results.csv') -eq 2 ]"
    check "locklab run uses the installed interposer" sh -c "LOCKLAB_VERBOSE=1 '$tmp/venv/bin/locklab' run \
        --lock ticket-yield -- true 2>&1 | grep -q 'liblocklab-preload: lock=ticket-yield'"
    cd - >/dev/null
fi

# make clean, then make uninstall: clean must keep the record of the install.  The Makefile
# runs in a scratch directory (its clean removes only that directory's build/, .venv, ...),
# with the record where `make install` would have left it there (make says where).
mk=$tmp/mk
mkdir -p "$mk/build"
ln -s "$src/tools" "$mk/tools"
record=$(make -s -f "$src/Makefile" -C "$mk" --no-print-directory --eval 'print-installed: ; @echo $(INSTALLED)' print-installed)
cp "$tmp/installed" "$mk/$record"
make -s -f "$src/Makefile" -C "$mk" --no-print-directory clean
[ ! -e "$mk/build" ] || { echo "FAIL: make clean left build/"; fail=1; }
check "make uninstall after make clean" make -s -f "$src/Makefile" -C "$mk" --no-print-directory uninstall
left=$(find "$root" -not -type d)
[ -z "$left" ] || { echo "FAIL: files left after uninstall:"; echo "$left"; fail=1; }
[ -z "$(find "$root" -type d -name locklab)" ] || { echo "FAIL: locklab directories left after uninstall"; fail=1; }
[ $fail -eq 0 ] && echo "ok: installed, used and uninstalled"
exit $fail
