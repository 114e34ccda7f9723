#!/bin/sh
# SPDX-License-Identifier: MIT
# softpmu in QEMU's system emulator: what counting costs, against the same
# guest on Debian's unpatched QEMU (qemu-system-x86_64 of the package
# qemu-system-x86, 1:7.2+dfsg: the same source without the patches; the
# same CPU model, 2 vCPUs, 512 MB, kernel and initramfs), in one run
# (integrations/qemu/guest; builds what is missing, installs the package
# if absent).
#
# Workload (patched: with Linux's NMI watchdog, whose cycles counter keeps
# the counting code in every block, and without it, nmi_watchdog=0, when
# no counter is enabled outside perf stat): /bigloop (6 x 10^8 user instructions,
# integrations/qemu/tests/bigloop.S) under perf stat -e
# instructions:u,branches:u, three times in one guest, perf's own
# "seconds time elapsed": on the patched QEMU the counters count (the
# inline batch); on the unpatched one perf says <not supported> and only
# times it. Then /bigloop run plainly (no counter enabled: blocks are
# translated without instrumentation), timed with the guest's uptime.
# Boot: the guest's uptime at the first command, and the host's wall
# time of the whole run (boot, command, power-off), patched with and
# without Linux's NMI watchdog, unpatched (no PMU: no watchdog).
# Prints each figure, and the medians' ratios patched / unpatched. TCG's guest time
# is the host's: on a loaded machine the figures are noisy.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
guest=$here/integrations/qemu/guest
work='
t() { s=$(cut -d" " -f1 /proc/uptime); "$@" >/dev/null 2>&1; e=$(cut -d" " -f1 /proc/uptime); echo "$s $e" | awk "{print \$2 - \$1}"; }
for i in 1 2 3; do
  perf stat -e instructions:u,branches:u -o /tmp/s /bigloop
  echo "counted $(sed -n "s/^ *\([0-9.]*\) seconds time elapsed.*/\1/p" /tmp/s)"
done
for i in 1 2 3; do echo "plain $(t /bigloop)"; done'
boot='echo "boot $(cut -d" " -f1 /proc/uptime)"'

# run NAME GUEST-OPTIONS... -- COMMAND: the guest's output lines, each
# prefixed with NAME; the host's wall time of the run as "NAME wall S".
run() {
  name=$1
  shift
  s=$(date +%s.%N)
  "$guest" "$@" 2>/dev/null | sed "s/^/$name /"
  e=$(date +%s.%N)
  echo "$name wall $(echo "$s $e" | awk '{printf "%.2f", $2 - $1}')"
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
{
  run patched -- "$work"
  run patched-nowd --append nmi_watchdog=0 -- "$work"
  run stock --stock -- "$work"
  for i in 1 2; do
    run patched-wd1 --append nmi_watchdog=1 -- "$boot"
    run patched-wd0 --append nmi_watchdog=0 -- "$boot"
    run stock-boot --stock -- "$boot"
  done
} >"$out"
cat "$out"
# mean NAME FIELD: the median of the figures of lines "NAME FIELD x" (the
# machine's other load makes single runs slow; the median keeps the
# typical one)
mean() {
  awk -v n="$1" -v f="$2" '$1 == n && $2 == f { print $3 }' "$out" | sort -g |
    awk '{ v[NR] = $1 } END { printf "%.3f", NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : 0 }'
}
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $2 ? $1 / $2 : 0 }'; }
pc=$(mean patched counted) sc=$(mean stock counted)
pp=$(mean patched plain) sp=$(mean stock plain)
echo "workload under perf stat: patched (counting) $pc s, unpatched $sc s: ratio $(ratio "$pc" "$sc")"
pn=$(mean patched-nowd plain) pnc=$(mean patched-nowd counted)
echo "workload plain, NMI watchdog counting: patched $pp s, unpatched $sp s: ratio $(ratio "$pp" "$sp")"
echo "workload plain, no counter enabled (nmi_watchdog=0): patched $pn s, unpatched $sp s: ratio $(ratio "$pn" "$sp")"
echo "workload under perf stat, nmi_watchdog=0: patched $pnc s, unpatched $sc s: ratio $(ratio "$pnc" "$sc")"
for f in boot wall; do
  w1=$(mean patched-wd1 $f) w0=$(mean patched-wd0 $f) st=$(mean stock-boot $f)
  echo "boot ($f): patched watchdog on $w1 s, off $w0 s, unpatched $st s: ratios $(ratio "$w1" "$st"), $(ratio "$w0" "$st")"
done
