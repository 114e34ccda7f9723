#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# softpmu stat's instructions against valgrind's cachegrind Ir
# (--vex-guest-chase=no: each block translated as the program runs it, as
# callgrind does), on the freestanding programs whose counts are known by
# construction. They are
# equal, but for one difference of definition: cachegrind counts every
# iteration of a REP string instruction and the final check of RCX = 0,
# L + 1 per run of L iterations, where the processor retires the
# instruction once (SDM Vol. 2B, REP; INST_RETIRED counts instructions
# retired, SDM Vol. 3B 18.2.2.1): Ir = instructions + L per run.
#   test_cachegrind.sh CC SOFTPMU PLUGIN SRCDIR
# Skipped (77) without a qemu-x86_64 that loads plugins (need_qemu) or
# valgrind, unless SOFTPMU_REQUIRE_QEMU=1.
CC=$1 SOFTPMU=$2 PLUGIN=$3 SRC=$4
. "$(dirname "$0")/../../../cli/test_lib.sh"
need_qemu
if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind not found: skipped"
  [ "${SOFTPMU_REQUIRE_QEMU:-0}" = 1 ] && exit 1
  exit 77
fi
export SOFTPMU_QEMU_PLUGIN="$PLUGIN"

# compare NAME EXTRA DEFINES...: Ir must be instructions + EXTRA.
compare() {
  name=$1 extra=$2
  shift 2
  checks=$((checks + 1))
  "$CC" -nostdlib -static "$@" -o "$tmp/$name" "$SRC/$name.S" ||
    fail "$name: does not assemble"
  ir=$(valgrind --tool=cachegrind --cache-sim=no --vex-guest-chase=no \
    --cachegrind-out-file=/dev/null "$tmp/$name" 2>&1 |
    awk '/I *refs:/ { gsub(",", "", $NF); print $NF }')
  run stat -e instructions -- "$tmp/$name"
  inst=$(awk '$2 == "instructions" { gsub(",", "", $1); print $1 }' "$tmp/err")
  [ -n "$ir" ] && [ -n "$inst" ] && [ "$ir" -eq $((inst + extra)) ] ||
    fail "$name: cachegrind Ir $ir, softpmu instructions $inst, want Ir = instructions + $extra"
}

compare branches 0 -DN=1000
compare mem 0 -DN=1000
compare record 0 -DN=1000
compare pagecross 0 -DN=1000
# 32-byte AVX loads and stores across lines (VMOVDQU ymm).
compare avx 0 -DN=1000 -DOFF=48 -DSTRIDE=64
# 2 REP instructions per iteration (STOSB, MOVSB), N iterations of L bytes.
N=100 L=1000
compare rep $((2 * N * L)) -DN=$N -DL=$L
finish
