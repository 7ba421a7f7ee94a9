#!/usr/bin/env bash
# `make install`: cmake --install a configured build into DESTDIR, and record
# the files written (DESTDIR included) for tools/uninstall.sh.
#   tools/install.sh BUILD [DESTDIR] [INSTALLED_FILES (default: BUILD.installed_files.txt, beside BUILD:
#   `make clean` removes BUILD and must leave the record for `make uninstall`)]
# The prefix is the build's CMAKE_INSTALL_PREFIX (the Makefile's PREFIX).
set -euo pipefail
build=${1:?usage: tools/install.sh BUILD [DESTDIR] [INSTALLED_FILES]}
destdir=${2:-}
list=${3:-${build%/}.installed_files.txt}
if [ -n "$destdir" ]; then
    mkdir -p "$destdir"
    destdir=$(cd "$destdir" && pwd)
fi
DESTDIR=$destdir cmake --install "$build"
# install_manifest.txt: one absolute path per line, without DESTDIR, no final newline.
sed "s|^|$destdir|" "$build/install_manifest.txt" >"$list"
echo >>"$list"
