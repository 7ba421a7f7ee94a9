#!/usr/bin/env bash
# `make uninstall`: remove exactly the files the last `make install` installed.
#   tools/uninstall.sh INSTALLED_FILES
# INSTALLED_FILES is cmake --install's install_manifest.txt with DESTDIR
# prepended, as tools/install.sh writes it (build.installed_files.txt, beside build/).  Each file
# (or symlink) is removed, then the directories named locklab that held them
# (include/locklab, lib/locklab, lib/cmake/locklab) if that left them empty.
set -euo pipefail
list=${1:?usage: tools/uninstall.sh INSTALLED_FILES}
if [ ! -f "$list" ]; then
    echo "uninstall: '$list' not found: nothing was installed from this build (run \`make install\` first)" >&2
    exit 1
fi
removed=0
while IFS= read -r f; do
    [ -n "$f" ] || continue
    if [ -e "$f" ] || [ -L "$f" ]; then
        rm -f -- "$f"
        removed=$((removed + 1))
    fi
done <"$list"
sed 's|/[^/]*$||' "$list" | sort -ru | grep '/locklab$' | while IFS= read -r d; do
    [ -d "$d" ] && rmdir --ignore-fail-on-non-empty -- "$d"
done
echo "uninstall: removed $removed of the $(grep -c . "$list") files listed in $list"
rm -f -- "$list"
