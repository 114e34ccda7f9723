#!/bin/sh
# SPDX-License-Identifier: MIT
# The modelled micro-architecture's speed (softpmu stat with its model,
# frontends/qemu/model.c feeding uarch/) against valgrind's cachegrind
# simulating caches and branches, measured side by side in one run (these
# machines are noisy: compare the ratios, not the times). Programs: the
# two workloads of bench_stat.sh (bench/workloads: a branchy hash-table
# loop and a call-heavy recursion) and real Debian programs (gzip and xz
# compressing a generated file, python3 summing a range). Each is timed,
# best of $REPS runs, in CPU seconds (user + system of the whole process
# tree, so that other load on the machine moves the figures less), as:
#   native; qemu-x86_64 alone; softpmu stat with its default events (the
#   modelled ones on part:skylake, its default model); the same with
#   --model cachegrind and cachegrind's geometry below; --no-model (the
#   exact counts alone); valgrind --tool=cachegrind --cache-sim=yes
#   --branch-sim=yes with that geometry, and --cache-sim=no
#   --branch-sim=no.
# Prints each time and its ratio to native, to qemu alone and to
# cachegrind with its simulations.
#   bench/bench_model.sh [SOFTPMU]   (default build/cli/softpmu)
#   WORKLOADS="hash calls gzip xz python3" REPS=3
set -eu
here=$(cd "$(dirname "$0")" && pwd)
softpmu=${1:-$here/../build/cli/softpmu}
reps=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in qemu-x86_64 valgrind cc gzip xz; do
  command -v "$t" >/dev/null 2>&1 || { echo "bench_model: $t not found" >&2; exit 1; }
done
[ -x "$softpmu" ] || { echo "bench_model: no $softpmu (build first)" >&2; exit 1; }
# A program, not a wrapper script (pyenv's python3 is one).
python3=/usr/bin/python3
[ -x "$python3" ] || python3=$(command -v python3 || echo /nonexistent)

I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64
cgspec=$(printf 'cachegrind:I1=%s:D1=%s:LL=%s' $I1 $D1 $LL)

# The least CPU seconds (children's user + system, as the shell's `times`
# reports them) of $reps runs of a command, its output discarded.
cpu_best() {
  b=""
  i=0
  while [ "$i" -lt "$reps" ]; do
    t=$( ("$@" >/dev/null 2>&1 || true; times) | awk 'NR == 2 {
      n = 0
      for (f = 1; f <= 2; f++) {
        split($f, p, "m"); sub("s", "", p[2]); n += p[1] * 60 + p[2]
      }
      printf "%.3f", n }')
    if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then
      b=$t
    fi
    i=$((i + 1))
  done
  echo "$b"
}

row() { # LABEL SECONDS NATIVE QEMU CACHEGRIND
  awk -v l="$1" -v t="$2" -v n="$3" -v q="$4" -v c="$5" 'BEGIN {
    printf "  %-46s %7.3f s  %7.2fx native  %6.2fx qemu  %5.2fx cachegrind\n",
      l, t, t / (n > 0 ? n : 0.001), t / (q > 0 ? q : 0.001), t / (c > 0 ? c : 0.001) }'
}

# A compressible file: numbered lines of words, the same on every run.
awk 'BEGIN { s = 12345; for (i = 0; i < 120000; i++) {
  s = (s * 1103515245 + 12345) % 2147483648
  printf "%d the quick brown fox %x jumps over %d lazy dogs\n", i, s, s % 977 } }' \
  >"$tmp/text"
head -c 1500000 "$tmp/text" >"$tmp/text.small"

for w in ${WORKLOADS:-hash calls gzip xz python3}; do
  case $w in
  hash | calls)
    # Sized to run about 0.1 s natively (bench_stat.sh runs them longer).
    cc -O2 -o "$tmp/$w" "$here/workloads/$w.c"
    if [ "$w" = hash ]; then n=300; else n=38; fi
    set -- "$tmp/$w" "$n"
    what="$here/workloads/$w.c $n, cc -O2" ;;
  gzip) set -- "$(command -v gzip)" -c "$tmp/text"; what="gzip -c, 6 MB of text" ;;
  xz) set -- "$(command -v xz)" -c "$tmp/text.small"; what="xz -c, 1.5 MB of text" ;;
  python3)
    [ -x "$python3" ] || { echo "python3: not found, skipped"; continue; }
    set -- "$python3" -c 'sum(range(10**6))'; what="python3 -c 'sum(range(10**6))'" ;;
  *) echo "bench_model: unknown workload $w" >&2; exit 2 ;;
  esac
  echo "$w ($what), best of $reps, CPU seconds:"
  native=$(cpu_best "$@")
  qemu=$(cpu_best qemu-x86_64 -cpu Skylake-Client "$@")
  dflt=$(cpu_best "$softpmu" stat -o /dev/null -- "$@")
  cgm=$(cpu_best "$softpmu" stat --model "$cgspec" -o /dev/null -- "$@")
  exact=$(cpu_best "$softpmu" stat --no-model -o /dev/null -- "$@")
  cg=$(cpu_best valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes \
    --I1=$I1 --D1=$D1 --LL=$LL --cachegrind-out-file=/dev/null "$@")
  cgn=$(cpu_best valgrind --tool=cachegrind --cache-sim=no --branch-sim=no \
    --cachegrind-out-file=/dev/null "$@")
  row "native" "$native" "$native" "$qemu" "$cg"
  row "qemu-x86_64 alone" "$qemu" "$native" "$qemu" "$cg"
  row "softpmu stat (default: part:skylake model)" "$dflt" "$native" "$qemu" "$cg"
  row "softpmu stat --model cachegrind (same geometry)" "$cgm" "$native" "$qemu" "$cg"
  row "softpmu stat --no-model (exact counts only)" "$exact" "$native" "$qemu" "$cg"
  row "cachegrind --cache-sim=yes --branch-sim=yes" "$cg" "$native" "$qemu" "$cg"
  row "cachegrind --cache-sim=no --branch-sim=no" "$cgn" "$native" "$qemu" "$cg"
done
