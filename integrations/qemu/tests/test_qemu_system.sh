#!/bin/sh
# The test command's check of softpmu in QEMU's system emulator: when the
# patched QEMU is built and up to date (integrations/qemu/build --path),
# boot the test guest and run its checks (guest_checks.sh: Linux's Intel PMU
# driver on the model, exact perf stat counts, RDPMC, sampling, PEBS, the
# NMI watchdog). Exit 77 (skipped) when that build is absent: building QEMU
# takes minutes, so the test command never starts it
# (integrations/qemu/README.md says how).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
if ! "$here/build" --path >/dev/null 2>&1; then
  echo "skipped: the patched QEMU is not built (run integrations/qemu/build)"
  exit 77
fi
"$here/guest" --cpu skylake
