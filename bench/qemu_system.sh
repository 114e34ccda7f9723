#!/bin/sh
# softpmu in QEMU's system emulator: what counting costs, in one guest run
# (integrations/qemu/guest; builds what is missing). The guest alternates
# /bigloop (6 x 10^8 user instructions, integrations/qemu/tests/bigloop.S)
# run plainly (no counter enabled: blocks are translated without
# instrumentation) and under perf stat -e instructions:u,branches:u
# (counters enabled: the inline batch; perf's own "seconds time elapsed",
# which leaves out perf's start-up), three times each, and prints the
# guest's elapsed times and their ratio. Then the boot time (to the first
# command) with and without Linux's NMI watchdog. TCG's guest time is the
# host's: on a loaded machine the figures are noisy.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
guest=$here/integrations/qemu/guest
"$guest" -- '
t() { s=$(cut -d" " -f1 /proc/uptime); "$@" >/dev/null 2>&1; e=$(cut -d" " -f1 /proc/uptime); echo "$s $e" | awk "{print \$2 - \$1}"; }
for i in 1 2 3; do
  p=$(t /bigloop)
  perf stat -e instructions:u,branches:u -o /tmp/s /bigloop
  c=$(sed -n "s/^ *\([0-9.]*\) seconds time elapsed.*/\1/p" /tmp/s)
  echo "$p $c" | awk "{printf \"plain %.2f s, counted %.2f s, ratio %.3f\n\", \$1, \$2, \$2 / \$1}"
done'
for wd in 1 0; do
  "$guest" --append "nmi_watchdog=$wd" -- 'echo "nmi_watchdog='$wd': first command at $(cut -d" " -f1 /proc/uptime) s of guest uptime"'
done
