#!/usr/bin/env bash
# The uncontended lock+unlock pair through the interposer against glibc's own, per lock
# (docs/interposer.md, "Cost of the uncontended pair").
#
#   bench/uncontended.sh [--procs N] [LOCK...]      (run from the project root after make)
#
# Each process of build/tests/interpose/bench_uncontended times both pairs in interleaved
# rounds and prints the median ratio.  The ratio also depends on where the pair's code and
# data land in memory, which neither the program nor the library chooses: between processes
# of one binary it moved by up to 0.3x of glibc's pair, and between two copies of one
# preload file, byte for byte the same, by up to 0.8x (hemlock-stp 1.2x and 2.0x, in every
# process; the same path length).  So every lock runs in N processes (default 9), each with
# a fresh copy of the preload (the locks interleaved), and each row is the median of those
# processes' ratios with [min..max].  No LOCK: every algorithm of the registry
# (`locklab-bench --list`; the peers too when built), under its -stp policy where it has
# one, so a new lock is in the table as soon as it is registered.  BUILD: the build
# directory (default build).  Timing only: nothing is asserted.
set -euo pipefail
export LC_ALL=C
procs=9
if [ "${1:-}" = --procs ]; then
  procs=${2:-}
  shift 2 || shift
fi
[[ "$procs" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "uncontended.sh: bad --procs '$procs' (valid: 1..999)" >&2; exit 2; }
build=${BUILD:-build}
case "$build" in /*) ;; *) build=$PWD/$build ;; esac
pre=$build/lib/liblocklab-preload.so bin=$build/tests/interpose/bench_uncontended
[ -f "$pre" ] && [ -x "$bin" ] || { echo "uncontended.sh: $pre or $bin missing (run make first)" >&2; exit 2; }
locks=("$@")
if [ ${#locks[@]} -eq 0 ]; then
  list=$("$build/bin/locklab-bench" --list) || { echo "uncontended.sh: locklab-bench --list failed" >&2; exit 2; }
  declare -A listed=()
  while read -r spec; do listed[$spec]=1; done <<<"$list"
  while read -r spec; do
    case "$spec" in *-yield | *-park | *-astp | *-stp | '') continue ;; esac
    if [ -n "${listed[$spec-stp]:-}" ]; then locks+=("$spec-stp"); else locks+=("$spec"); fi
  done <<<"$list"
  [ ${#locks[@]} -gt 0 ] || { echo "uncontended.sh: locklab-bench --list named no lock" >&2; exit 2; }
fi
# The copies live beside the build (a /tmp mounted noexec would make the loader ignore them).
copies=$(mktemp -d "$build/uncontended.XXXXXX")
trap 'rm -rf "$copies"' EXIT
# One run: "...: interposed X ns [..], glibc Y ns [..], ratio Zx [..]" on stdout; anything on
# stderr (a bad spec, or a preload the loader ignored, which would time glibc twice) ends it.
run() { # run PRELOAD LOCK ROUNDS PAIRS
  local out err
  err=$(mktemp "$copies/err.XXXXXX")
  out=$(LOCKLAB_LOCK=$2 LD_PRELOAD=$1 "$bin" "$3" "$4" 2>"$err") && [ ! -s "$err" ] || {
    echo "uncontended.sh: LOCKLAB_LOCK=$2 LD_PRELOAD=$1 failed: $(head -c 300 "$err")" >&2
    exit 2
  }
  rm -f "$err"
  printf '%s\n' "$out"
}
for l in "${locks[@]}"; do run "$pre" "$l" 1 1 >/dev/null; done # bad specs: before any timing
declare -A ratios=() ns=() glibc_ns=()
for ((p = 0; p < procs; p++)); do
  copy=$copies/$p/liblocklab-preload.so # one path length for every copy
  mkdir "$copies/$p" && cp "$pre" "$copy"
  for l in "${locks[@]}"; do
    out=$(run "$copy" "$l" 5 1000000)
    read -r x y z < <(sed -E 's/.*interposed ([0-9.]+) ns.*glibc ([0-9.]+) ns.*ratio ([0-9.]+)x.*/\1 \2 \3/' <<<"$out")
    ns[$l]+=" $x" glibc_ns[$l]+=" $y" ratios[$l]+=" $z"
  done
done
printf 'uncontended pair, %d processes (each its own copy of the preload) of 5 interleaved rounds of 10^6 pairs; CPU: %s\n' \
  "$procs" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
printf '| LOCKLAB_LOCK | interposed ns | glibc ns | ratio [min..max] |\n|---|---:|---:|---:|\n'
med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
for l in "${locks[@]}"; do
  r=$(tr ' ' '\n' <<<"${ratios[$l]}" | grep -v '^$' | sort -g)
  printf '| %s | %.2f | %.2f | %.2fx [%.2f..%.2f] |\n' "$l" "$(med "${ns[$l]}")" "$(med "${glibc_ns[$l]}")" \
    "$(med "${ratios[$l]}")" "$(head -1 <<<"$r")" "$(tail -1 <<<"$r")"
done
