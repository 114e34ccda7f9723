#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/demo's first step on every preset, without the rest of the demo:
# the events examples/workloads/loop_events.sh chooses for the loop of
# examples/workloads/loop.S (each profile's own names, from its event
# table), and, where qemu-x86_64 and the plugin are here, that stat counts
# each exactly as the loop's construction says. The NetBurst presets get
# no events (stat does not drive them; the demo shows the driver example
# there). A preset added without a line here fails the test.
#   test_demo.sh SOFTPMU CC ROOT [PLUGIN]
# ROOT: the source tree. PLUGIN: libsoftpmu-qemu.so, "" when not built.
# The counting half is skipped, said why, without qemu-x86_64 or the
# plugin, unless SOFTPMU_REQUIRE_QEMU=1.
SOFTPMU=$1 CC=$2 ROOT=$3 PLUGIN=${4:-}
. "$(dirname "$0")/test_lib.sh"
. "$ROOT/examples/workloads/loop_events.sh"

# The choice on each preset: conditional branches from Nehalem to Skylake
# (C4H/01H; Ice Lake's C4H/01H is COND_TAKEN, its COND C4H/11H is no line
# of the plugin); loads and stores from Sandy Bridge (D0H/81H, D0H/82H:
# MEM_UOPS_RETIRED before Skylake, MEM_INST_RETIRED from it). Core Duo and
# Core 2 have the architectural events only (cli/stat_events.c).
N=1000
arch="instructions instructions 6005
branches branches 1001"
uops="loads mem_uops_retired.all_loads 1000
stores mem_uops_retired.all_stores 1000"
inst="loads mem_inst_retired.all_loads 1000
stores mem_inst_retired.all_stores 1000"
want_events() {
  case $1 in
  core-duo | core2) printf '%s\n%s\n' "$arch" "conditional - -
loads - -
stores - -" ;;
  nehalem) printf '%s\n%s\n' "$arch" "conditional br_inst_retired.conditional 1000
loads - -
stores - -" ;;
  sandybridge | haswell) printf '%s\n%s\n%s\n' "$arch" \
    "conditional br_inst_retired.conditional 1000" "$uops" ;;
  skylake) printf '%s\n%s\n%s\n' "$arch" \
    "conditional br_inst_retired.conditional 1000" "$inst" ;;
  icelake | sapphirerapids) printf '%s\n%s\n%s\n' "$arch" "conditional - -" \
    "$inst" ;;
  pentium4 | pentium4-noht) ;;
  *) echo "no expectation" ;;
  esac
}

# The presets, as every manual lists them.
presets=$("$SOFTPMU" cpuid --help | sed -n '/Presets:/,/^$/p' |
  sed 's/Presets://' | tr -d ',.' | tr -s ' \n' '\n\n' | grep .)
checks=$((checks + 1))
[ "$(echo "$presets" | wc -l)" -ge 10 ] ||
  fail "the presets from cpuid --help: $presets"

for p in $presets; do
  checks=$((checks + 1))
  got=$(loop_events "$SOFTPMU" "$p" "$N" 2>"$tmp/err")
  st=$?
  case $p in
  pentium4*)
    [ "$st" = 1 ] && [ -z "$got" ] &&
      grep -q "a NetBurst PMU" "$tmp/err" ||
      fail "$p: status $st, events '$got', $(cat "$tmp/err")"
    continue
    ;;
  esac
  [ "$st" = 0 ] && [ "$got" = "$(want_events "$p")" ] ||
    fail "$p: status $st; events:
$got
want:
$(want_events "$p")"
done

# The counts, by running the loop on each architectural preset.
if [ -z "$PLUGIN" ] || ! find_qemu; then
  echo "qemu-x86_64 or the plugin missing: the counts are not checked"
  # A build without the plugin (the sanitizer builds) skips it even with
  # SOFTPMU_REQUIRE_QEMU=1, which asks for qemu-x86_64 where it is built.
  [ -n "$PLUGIN" ] && [ "${SOFTPMU_REQUIRE_QEMU:-0}" = 1 ] &&
    fail "qemu-x86_64 is required"
  finish
  exit
fi
export SOFTPMU_QEMU_PLUGIN="$PLUGIN"
"$CC" -nostdlib -static -DN=$N -o "$tmp/loop" "$ROOT/examples/workloads/loop.S" ||
  fail "loop.S does not assemble"
for p in $presets; do
  case $p in pentium4*) continue ;; esac
  loop_events "$SOFTPMU" "$p" "$N" | awk '$2 != "-" { print $2 "," $3 }' \
    >"$tmp/want"
  list=$(cut -d, -f1 "$tmp/want" | paste -sd, -)
  checks=$((checks + 1))
  "$SOFTPMU" stat --cpu "$p" -x , -e "$list" -o "$tmp/got.csv" -- "$tmp/loop" ||
    fail "$p: stat -e $list failed"
  # (-o FILE starts with "# started on DATE" and a blank line, as perf's.)
  awk -F, '!/^#/ && NF > 1 { print $3 "," $1 }' "$tmp/got.csv" >"$tmp/got"
  same "$tmp/got" "$(cat "$tmp/want")" || fail "$p: the loop's counts (above)"
done
finish
