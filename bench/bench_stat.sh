#!/bin/sh
# SPDX-License-Identifier: MIT
# softpmu stat's speed against what people use today, measured side by side
# in one run (these machines are noisy: compare the ratios, not the times).
# Two CPU-bound programs (bench/workloads: a branchy hash-table loop and a
# call-heavy recursion, about 0.5 s native each), each timed best of
# $REPS runs as:
#   native; qemu-x86_64 alone (the engine's floor); softpmu stat with
#   instructions, branches, loads and stores (counted by QEMU's inline
#   adds); softpmu stat with NEAR_TAKEN (a callback per block); softpmu
#   record at a period of 10,007 instructions; valgrind cachegrind
#   (--cache-sim=no) and callgrind.
# Prints each time and its ratio to native and to qemu alone.
#   bench/bench_stat.sh [SOFTPMU]   (default build/cli/softpmu)
# or: cmake --build build --target bench-stat
set -eu
here=$(cd "$(dirname "$0")" && pwd)
softpmu=${1:-$here/../build/cli/softpmu}
reps=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in qemu-x86_64 valgrind cc; do
  command -v "$t" >/dev/null 2>&1 || { echo "bench_stat: $t not found" >&2; exit 1; }
done
[ -x "$softpmu" ] || { echo "bench_stat: no $softpmu (build first)" >&2; exit 1; }

. "$here/lib.sh"

row() { # LABEL SECONDS NATIVE QEMU
  awk -v l="$1" -v t="$2" -v n="$3" -v q="$4" 'BEGIN {
    printf "  %-52s %7.3f s  %6.2fx native  %6.2fx qemu\n", l, t, t / n, t / q }'
}

for w in ${WORKLOADS:-hash calls}; do
  cc -O2 -o "$tmp/$w" "$here/workloads/$w.c"
  echo "$w ($here/workloads/$w.c, cc -O2), best of $reps:"
  native=$(best "$tmp/$w")
  qemu=$(best qemu-x86_64 -cpu Skylake-Client "$tmp/$w")
  stat=$(best "$softpmu" stat --cpu skylake -e instructions,branches,r81d0,r82d0 -- "$tmp/$w")
  taken=$(best "$softpmu" stat --cpu skylake -e instructions,branches,br_inst_retired.near_taken -- "$tmp/$w")
  rec=$(best "$softpmu" record -c 10007 -e instructions -o "$tmp/perf.data" -- "$tmp/$w")
  cg=$(best valgrind --tool=cachegrind --cache-sim=no \
    --cachegrind-out-file=/dev/null "$tmp/$w")
  callg=$(best valgrind --tool=callgrind --callgrind-out-file=/dev/null "$tmp/$w")
  row "native" "$native" "$native" "$qemu"
  row "qemu-x86_64 alone" "$qemu" "$native" "$qemu"
  row "softpmu stat (instructions,branches,loads,stores)" "$stat" "$native" "$qemu"
  row "softpmu stat (instructions,branches,near_taken)" "$taken" "$native" "$qemu"
  row "softpmu record -c 10007 -e instructions" "$rec" "$native" "$qemu"
  row "valgrind cachegrind --cache-sim=no" "$cg" "$native" "$qemu"
  row "valgrind callgrind" "$callg" "$native" "$qemu"
done
