#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# softpmu record -I under QEMU 10: each PEBS record holds the guest's
# registers after its eventing instruction (SDM Vol. 3B 18.4.4.2,
# 18.6.2.4.2; the adaptive GPR group, 18.9.2.2.2), and each sample of
# perf.data carries them as PERF_SAMPLE_REGS_INTR (perf script -F
# ip,iregs). regs.S sets every general-purpose register to a value of its
# own, then loops N times changing RAX, RBX, R8 and RCX by known steps, so
# the registers after each instruction of the loop are known by
# construction. With instructions:pp and period P, the assist comes at the
# counter's next event (SDM 18.4.4): record k's eventing instruction is
# the k(P + 1)-th retired, at an exact address; every one is checked, on
# a legacy record format (skylake: 3), an adaptive one (icelake) and
# format 0 (core2, whose record's IP is the next instruction's). With
# cycles:pp (modelled) the samples' addresses come from the model: each
# sample's registers must be those after the instruction at its address,
# in the iteration its RAX says. FLAGS is the guest's AC (set by regs.S)
# and IF, the reserved bit 1 and bit 3 (Linux's exact-IP mark); the
# arithmetic flags read 0 (QEMU keeps them apart, in its lazy condition
# codes).
#   test_regs.sh CC SOFTPMU PLUGIN SRCDIR
# QEMU 10's qemu-x86_64 is $SOFTPMU_QEMU10; skipped (77, said why) when it
# is unset, a failure when SOFTPMU_REQUIRE_QEMU10=1; perf is needed (77
# without, unless SOFTPMU_REQUIRE_PERF=1).
CC=$1 SOFTPMU=$2 PLUGIN=$3 SRC=$4
. "$(dirname "$0")/../../../cli/test_lib.sh"
if [ -z "${SOFTPMU_QEMU10:-}" ] || [ ! -x "$SOFTPMU_QEMU10" ]; then
  echo "SOFTPMU_QEMU10 (QEMU 10's qemu-x86_64 with plugins) not set or not executable: skipped"
  [ "${SOFTPMU_REQUIRE_QEMU10:-0}" = 1 ] && exit 1
  exit 77
fi
if ! command -v perf >/dev/null 2>&1 || ! perf version >/dev/null 2>&1; then
  echo "no perf (apt-get install linux-perf): skipped"
  [ "${SOFTPMU_REQUIRE_PERF:-0}" = 1 ] && exit 1
  exit 77
fi
unset SOFTPMU_QEMU
export SOFTPMU_QEMU_PLUGIN="$PLUGIN"

N=1000
P=20
build regs -DN=$N
LOOP=$(nm "$tmp/regs" | awk '$3 == "loop" { print $1 }')
[ -n "$LOOP" ] || fail "regs: no symbol loop"
LOOP=$((0x$LOOP))
SETUP=19 # instructions before the loop (regs.S)
OFF="0 3 7 10 12 14" # each loop instruction's offset; then the one after

# off POS: the offset of the loop's instruction POS (5: the one after).
off() { set -- $((${1} + 1)) $OFF; shift "$1"; echo "$1"; }

# regs IP I POS: perf script's line (blanks made one) for a sample at IP
# whose registers are those after instruction POS of iteration I.
regs() {
  i=$2 pos=$3
  ax=$((0x1100 + i + 1))
  bx=$((0x2200 + 2 * i + (pos >= 1 ? 2 : 0)))
  r8=$((0x8800 + i + (pos >= 2 ? 1 : 0)))
  cx=$((N - i - (pos >= 3 ? 1 : 0)))
  printf '%x ABI:2 AX:0x111111111111%04x BX:0x222222222222%04x CX:0x%x DX:0x3333333333333300 SI:0x4444444444444400 DI:0x5555555555555500 BP:0x6666666666666600 SP:0x7777777777777700 IP:0x%x FLAGS:0x4020a CS:0x33 SS:0x2b R8:0x888888888888%04x R9:0x9999999999999900 R10:0xaaaaaaaaaaaaaa00 R11:0xbbbbbbbbbbbbbb00 R12:0xcccccccccccccc00 R13:0xdddddddddddddd00 R14:0xeeeeeeeeeeeeee00 R15:0xffffffffffffff00\n' \
    "$1" "$ax" "$bx" "$cx" "$1" "$r8"
}

# expected NEXT: every sample of instructions:pp -c P, the k(P + 1)-th
# instruction each; NEXT=1: its IP is the next instruction's (format 0).
expected() {
  k=1
  while :; do
    m=$((k * (P + 1) - SETUP))
    [ $m -le $((5 * N)) ] || break
    i=$(((m - 1) / 5)) pos=$(((m - 1) % 5))
    if [ "$1" = 1 ]; then
      ip=$((LOOP + $(off $((pos + 1)))))
      [ $pos = 4 ] && [ $i -lt $((N - 1)) ] && ip=$LOOP
    else
      ip=$((LOOP + $(off $pos)))
    fi
    regs "$ip" "$i" "$pos"
    k=$((k + 1))
  done
}

# script FILE: perf script's ip and iregs, blanks made one.
script() { perf script -i "$1" -F ip,iregs 2>/dev/null | awk '{ $1 = $1; print }'; }

# record NAME ARGS...: softpmu record -I of regs under QEMU 10 into NAME.
record() {
  name=$1
  shift
  run record --qemu "$SOFTPMU_QEMU10" -o "$tmp/$name.data" "$@" -- "$tmp/regs"
  checks=$((checks + 1))
  [ "$rc" = 0 ] || fail "$name: exit status $rc: $(cat "$tmp/err")"
}

expected 0 >"$tmp/want"
expected 1 >"$tmp/want_next"
[ "$(wc -l <"$tmp/want")" -gt 200 ] || fail "too few samples expected"
for cpu in skylake icelake core2; do
  record "$cpu" --cpu "$cpu" -e instructions:pp -c $P -I
  want=$tmp/want
  [ "$cpu" = core2 ] && want=$tmp/want_next
  script "$tmp/$cpu.data" >"$tmp/got"
  checks=$((checks + 1))
  cmp -s "$want" "$tmp/got" ||
    fail "$cpu: registers differ: $(diff "$want" "$tmp/got" | head -5)"
done

# branches:pp: record k's eventing instruction is the k(P + 1)-th branch,
# the JNZ of iteration k(P + 1) - 1, the last of its block (read at the
# next block's callback: no instruction callbacks in the loop's block).
k=1
: >"$tmp/want_br"
while [ $((k * (P + 1))) -le $N ]; do
  regs $((LOOP + 12)) $((k * (P + 1) - 1)) 4 >>"$tmp/want_br"
  k=$((k + 1))
done
record branches -e branches:pp -c $P -I
script "$tmp/branches.data" >"$tmp/got"
checks=$((checks + 1))
cmp -s "$tmp/want_br" "$tmp/got" ||
  fail "branches: registers differ: $(diff "$tmp/want_br" "$tmp/got" | head -3)"

# A subset (perf's names, any case): those registers alone, in perf's
# order (AX, then R15).
record subset --cpu skylake -e instructions:pp -c $P --intr-regs=r15,ax
script "$tmp/subset.data" >"$tmp/got"
awk '{ print $1, $2, $3, $NF }' "$tmp/want" >"$tmp/want_subset"
checks=$((checks + 1))
cmp -s "$tmp/want_subset" "$tmp/got" ||
  fail "subset: differs: $(diff "$tmp/want_subset" "$tmp/got" | head -5)"

# cycles:pp (the modelled micro-architecture): each sample in the loop
# has the registers after the instruction at its address, in the
# iteration its RAX gives.
record cycles -e cycles:pp -c 31 -I
script "$tmp/cycles.data" >"$tmp/got"
: >"$tmp/want_cycles"
while read -r sip sabi sax rest; do
  a=$((0x$sip - LOOP)) at=
  for p in 0 1 2 3 4; do [ "$(off $p)" = "$a" ] && at=$p; done
  [ -n "$at" ] || continue
  regs "$((0x$sip))" $((0x${sax#AX:0x111111111111} - 0x1100 - 1)) "$at" \
    >>"$tmp/want_cycles"
  echo "$sip $sabi $sax $rest" >>"$tmp/got_cycles"
done <"$tmp/got"
checks=$((checks + 1))
[ "$(wc -l <"$tmp/want_cycles")" -gt 20 ] ||
  fail "cycles: $(wc -l <"$tmp/want_cycles") samples in the loop"
cmp -s "$tmp/want_cycles" "$tmp/got_cycles" ||
  fail "cycles: registers differ: $(diff "$tmp/want_cycles" "$tmp/got_cycles" | grep "^>" | head -2)"

# Without a precise event there is no PEBS record to take them from.
run record --qemu "$SOFTPMU_QEMU10" -o "$tmp/x.data" -e instructions -c $P -I -- "$tmp/regs"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "-I without :p: exit status $rc"
grep -q "^softpmu: record: -I (--intr-regs): the registers come from the PEBS records (SDM Vol. 3B 18.4.4): sample a precise event" "$tmp/err" ||
  fail "-I without :p: $(head -1 "$tmp/err")"
# An unknown register name.
run record --qemu "$SOFTPMU_QEMU10" -o "$tmp/x.data" -e instructions:p --intr-regs=ax,xmm0 -- "$tmp/regs"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "--intr-regs=ax,xmm0: exit status $rc"
grep -q "^softpmu: record: --intr-regs: unknown register 'xmm0'" "$tmp/err" ||
  fail "--intr-regs=ax,xmm0: $(head -1 "$tmp/err")"
# QEMU 7.2 (plugin API 1) gives a plugin no registers: refused.
Q7=$(command -v qemu-x86_64 || true)
if [ -n "$Q7" ] && "$Q7" --version | grep -q "version 7\."; then
  run record --qemu "$Q7" -o "$tmp/x.data" -e instructions:p -I -- "$tmp/regs"
  checks=$((checks + 1))
  [ "$rc" = 2 ] || fail "-I under QEMU 7.2: exit status $rc"
  grep -q "^softpmu: record: -I (--intr-regs): QEMU 7 gives a plugin no registers; QEMU 9.1 or later does" "$tmp/err" ||
    fail "-I under QEMU 7.2: $(head -1 "$tmp/err")"
fi
finish
