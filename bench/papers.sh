#!/usr/bin/env bash
# Reproduce three of the papers' experiments on this machine (`make papers`):
#   twa-mutexbench     TWA paper Fig. 2: MutexBench, ticket vs MCS vs TWA (all spinning)
#   malthusian-randarray  Malthusian Fig. 3/4: RandArray, FIFO vs CR vs glibc, spin and spin-then-park
#   cna-kvmap          CNA Fig. 6: AVL key-value map, MCS vs CNA vs HMCS, 2 virtual sockets
# Each is a `locklab sweep` into results/papers/NAME followed by `locklab report`.
# docs/papers.md discusses the results (and where they differ from the papers).
# RUNS and DURATION override the defaults (3 runs of 1 s); the whole set takes ~7 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
locklab=${LOCKLAB:-.venv/bin/locklab}
out=${1:-results/papers}
runs=${RUNS:-3}
duration=${DURATION:-1}
threads=1,2,4,8,16,32,64

sweep() { # NAME WORKLOAD LOCKS THREADS [extra sweep args...]
  local name=$1 workload=$2 locks=$3 t=$4
  shift 4
  "$locklab" sweep --workloads "$workload" --locks "$locks" --threads "$t" --runs "$runs" \
    --duration "$duration" --out "$out/$name" "$@"
  "$locklab" report "$out/$name"
}

sweep twa-mutexbench mutexbench ticket,mcs,twa "$threads"
sweep malthusian-randarray randarray mcs,mcs-stp,mcscr,mcscr-stp,lifocr-stp,loiter,pthread "$threads"
LOCKLAB_TOPOLOGY=sockets=2 sweep cna-kvmap kvmap mcs,cna,hmcs,mcs-stp,cna-stp,hmcs-stp,pthread 1,2,4,8,16
echo "papers: reports under $out/*/report.md"
