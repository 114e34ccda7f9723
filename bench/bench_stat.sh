#!/bin/sh
# SPDX-License-Identifier: MIT
# softpmu stat's and record's speed against what people use today,
# measured side by side in one run (these machines are noisy: compare the
# ratios, not the times). Two CPU-bound programs of bench/workloads (a
# branchy hash-table loop and a call-heavy recursion, about 0.5 s native
# each) and three Debian programs (gzip -1 and xz -1 compressing 3 MB,
# python3 -c 'sum(range(10**6))': many short blocks, much translation),
# each timed best of $REPS runs as:
#   native; qemu-x86_64 alone (the engine's floor); softpmu stat with
#   instructions, branches, loads and stores (counted by QEMU's inline
#   adds); softpmu stat with NEAR_TAKEN (a callback per block); softpmu
#   record at a period of 10,007 instructions; softpmu stat's default
#   events (modelled) and record's default (the modelled cycles) at a
#   period of 10,007 (the modelled record against the modelled stat:
#   the ratio of those two rows); valgrind cachegrind (--cache-sim=no)
#   and callgrind.
# Prints each time and its ratio to native and to qemu alone.
# With SOFTPMU_QEMU set (another qemu-x86_64, QEMU 10 say), those rows run
# PATH's qemu-x86_64, and each program has three more, against that QEMU
# alone: it alone, softpmu stat's exact events, record -c 10007 and the
# modelled stat and record under it (--qemu).
#   bench/bench_stat.sh [SOFTPMU]   (default build/cli/softpmu)
# or: cmake --build build --target bench-stat
# WORKLOADS chooses among hash calls gzip xz python3 (default: all).
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
other=${SOFTPMU_QEMU:-}
unset SOFTPMU_QEMU

row() { # LABEL SECONDS NATIVE QEMU
  awk -v l="$1" -v t="$2" -v n="$3" -v q="$4" 'BEGIN {
    printf "  %-52s %7.3f s  %6.2fx native  %6.2fx qemu\n", l, t, t / n, t / q }'
}

# bench TITLE PROGRAM [ARG...]: every configuration on one program.
bench() {
  title=$1
  shift
  echo "$title, best of $reps:"
  native=$(best "$@")
  qemu=$(best qemu-x86_64 -cpu Skylake-Client "$@")
  stat=$(best "$softpmu" stat --cpu skylake -e instructions,branches,r81d0,r82d0 -- "$@")
  taken=$(best "$softpmu" stat --cpu skylake -e instructions,branches,br_inst_retired.near_taken -- "$@")
  rec=$(best "$softpmu" record -c 10007 -e instructions -o "$tmp/perf.data" -- "$@")
  statm=$(best "$softpmu" stat --cpu skylake -- "$@")
  recm=$(best "$softpmu" record --cpu skylake -c 10007 -o "$tmp/perf.data" -- "$@")
  cg=$(best valgrind --tool=cachegrind --cache-sim=no \
    --cachegrind-out-file=/dev/null "$@")
  callg=$(best valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@")
  row "native" "$native" "$native" "$qemu"
  row "qemu-x86_64 alone" "$qemu" "$native" "$qemu"
  row "softpmu stat (instructions,branches,loads,stores)" "$stat" "$native" "$qemu"
  row "softpmu stat (instructions,branches,near_taken)" "$taken" "$native" "$qemu"
  row "softpmu record -c 10007 -e instructions" "$rec" "$native" "$qemu"
  row "softpmu stat (default: modelled)" "$statm" "$native" "$qemu"
  row "softpmu record -c 10007 (default: modelled cycles)" "$recm" "$native" "$qemu"
  row "valgrind cachegrind --cache-sim=no" "$cg" "$native" "$qemu"
  row "valgrind callgrind" "$callg" "$native" "$qemu"
  [ -n "$other" ] || return 0
  q2=$(best "$other" -cpu Skylake-Client "$@")
  stat2=$(best "$softpmu" stat --qemu "$other" --cpu skylake \
    -e instructions,branches,r81d0,r82d0 -- "$@")
  rec2=$(best "$softpmu" record --qemu "$other" -c 10007 -e instructions \
    -o "$tmp/perf.data" -- "$@")
  statm2=$(best "$softpmu" stat --qemu "$other" --cpu skylake -- "$@")
  recm2=$(best "$softpmu" record --qemu "$other" --cpu skylake -c 10007 \
    -o "$tmp/perf.data" -- "$@")
  echo "  under $other (ratios to it alone):"
  row "$(basename "$other") alone" "$q2" "$native" "$q2"
  row "softpmu stat --qemu (instructions,branches,loads,stores)" "$stat2" "$native" "$q2"
  row "softpmu record --qemu -c 10007 -e instructions" "$rec2" "$native" "$q2"
  row "softpmu stat --qemu (default: modelled)" "$statm2" "$native" "$q2"
  row "softpmu record --qemu -c 10007 (modelled cycles)" "$recm2" "$native" "$q2"
}

# The Debian programs' input: 3 MB of a binary every run has (qemu's own),
# the same bytes in every configuration.
head -c 3000000 "$(command -v qemu-x86_64)" >"$tmp/input"
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3 || true)

for w in ${WORKLOADS:-hash calls gzip xz python3}; do
  case $w in
  hash | calls)
    cc -O2 -o "$tmp/$w" "$here/workloads/$w.c"
    bench "$w ($here/workloads/$w.c, cc -O2)" "$tmp/$w"
    ;;
  gzip | xz)
    p=$(command -v "$w") || { echo "bench_stat: $w not found, skipped" >&2; continue; }
    bench "$w -1 -c, 3 MB ($p)" "$p" -1 -c "$tmp/input"
    ;;
  python3)
    [ -n "$python" ] || { echo "bench_stat: python3 not found, skipped" >&2; continue; }
    bench "python3 -c 'sum(range(10**6))' ($python)" \
      "$python" -c 'sum(range(10**6))'
    ;;
  *)
    echo "bench_stat: unknown workload $w" >&2
    exit 2
    ;;
  esac
done
