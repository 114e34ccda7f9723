#!/bin/sh
# SPDX-License-Identifier: MIT
# The modelled micro-architecture's speed (the QEMU plugin with model=SPEC,
# frontends/qemu/model.c) against valgrind's cachegrind simulating caches
# and branches, measured side by side in one run (these machines are
# noisy: compare the ratios, not the times). The two workloads of
# bench_stat.sh (bench/workloads: a branchy hash-table loop and a
# call-heavy recursion), each timed best of $REPS runs as:
#   native; qemu-x86_64 alone; the plugin counting instructions, cycles,
#   LLC references and misses, L1D replacements and branch mispredicts
#   with model=part:skylake and with model=cachegrind (cachegrind's
#   geometry below); valgrind --tool=cachegrind --cache-sim=yes
#   --branch-sim=yes with that geometry.
# Prints each time and its ratio to native, to qemu alone and to
# cachegrind.
#   bench/bench_model.sh [PLUGIN]   (default build/frontends/qemu/libsoftpmu-qemu.so)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
plugin=${1:-$here/../build/frontends/qemu/libsoftpmu-qemu.so}
reps=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in qemu-x86_64 valgrind cc; do
  command -v "$t" >/dev/null 2>&1 || { echo "bench_model: $t not found" >&2; exit 1; }
done
[ -f "$plugin" ] || { echo "bench_model: no $plugin (build first)" >&2; exit 1; }

I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64
# INST_RETIRED.ANY_P, CPU_CLK_UNHALTED, LONGEST_LAT_CACHE.REFERENCE and
# .MISS, L1D.REPLACEMENT, BR_MISP_RETIRED.ALL_BRANCHES (lines.h).
events=event=4300c0,event=43003c,event=434f2e,event=43412e,event=430151,event=4300c5
cgspec=$(printf 'cachegrind:I1=%s:D1=%s:LL=%s' $I1 $D1 $LL | sed 's/,/,,/g')

. "$here/lib.sh"

row() { # LABEL SECONDS NATIVE QEMU CACHEGRIND
  awk -v l="$1" -v t="$2" -v n="$3" -v q="$4" -v c="$5" 'BEGIN {
    printf "  %-44s %7.3f s  %6.2fx native  %6.2fx qemu  %5.2fx cachegrind\n",
      l, t, t / n, t / q, t / c }'
}

for w in ${WORKLOADS:-hash calls}; do
  cc -O2 -o "$tmp/$w" "$here/workloads/$w.c"
  echo "$w ($here/workloads/$w.c, cc -O2), best of $reps:"
  native=$(best "$tmp/$w")
  qemu=$(best qemu-x86_64 -cpu Skylake-Client "$tmp/$w")
  part=$(best qemu-x86_64 -cpu Skylake-Client \
    -plugin "$plugin,out=/dev/null,$events,model=part:skylake" "$tmp/$w")
  cgm=$(best qemu-x86_64 -cpu Skylake-Client \
    -plugin "$plugin,out=/dev/null,$events,model=$cgspec" "$tmp/$w")
  cg=$(best valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes \
    --I1=$I1 --D1=$D1 --LL=$LL --cachegrind-out-file=/dev/null "$tmp/$w")
  row "native" "$native" "$native" "$qemu" "$cg"
  row "qemu-x86_64 alone" "$qemu" "$native" "$qemu" "$cg"
  row "plugin, model=part:skylake" "$part" "$native" "$qemu" "$cg"
  row "plugin, model=cachegrind (same geometry)" "$cgm" "$native" "$qemu" "$cg"
  row "valgrind cachegrind --cache-sim --branch-sim" "$cg" "$native" "$qemu" "$cg"
done
