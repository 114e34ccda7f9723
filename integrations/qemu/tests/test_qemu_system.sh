#!/bin/sh
# SPDX-License-Identifier: MIT
# The test command's check of softpmu in QEMU's system emulator: when the
# patched QEMU is built and up to date (integrations/qemu/build --path),
# check that QEMU refuses a bad profile, then boot the test guest and run
# its checks (guest_checks.sh: Linux's Intel PMU driver on the model, exact
# perf stat counts, loads and stores, CMASK, RDPMC, sampling, PEBS, BTS
# records, LBR stacks, the NMI watchdog, perf test, a #GP). Exit 77
# (skipped) when that build is absent: building QEMU takes minutes, so the
# test command never starts it (integrations/qemu/README.md says how).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
if ! qemu=$("$here/build" --path 2>/dev/null); then
  echo "skipped: the patched QEMU is not built (run integrations/qemu/build)"
  exit 77
fi
failed=0
# refuses CPU MESSAGE: QEMU stops at start with MESSAGE.
refuses() {
  if out=$(timeout 60 "$qemu" -L /usr/share/seabios -L /usr/share/qemu -accel tcg \
    -cpu "$1" -display none -nic none -monitor none -serial none -S 2>&1 </dev/null); then
    echo "not ok - -cpu $1 started"
    failed=$((failed + 1))
  elif echo "$out" | grep -q "$2"; then
    echo "ok - -cpu $1 refused: $2"
  else
    echo "not ok - -cpu $1: expected '$2', got: $out"
    failed=$((failed + 1))
  fi
}
refuses Skylake-Client,softpmu=nosuch "unknown profile 'nosuch'; known: core-duo"
refuses Skylake-Client,softpmu=icelake "softpmu=icelake does not match the CPU model (family 6, model 0x5e)"
refuses Icelake-Server,softpmu=icelake "softpmu=icelake does not match the CPU model (family 6, model 0x86)"
status=0
"$here/guest" --cpu skylake || status=$?

# Save and restore mid-count: /saveloop (tests/saveloop.S) counts one loop,
# says softpmu-save-now and sleeps; the machine is stopped, saved through
# QEMU's migration stream, and restored in a new QEMU, where the program
# runs its second loop. The counts stay exact.
out=$("$here/guest" --save-restore -- \
  'perf stat -x, -e instructions:u,branches:u /saveloop' 2>&1) || status=1
for want in 40000014,,instructions:u 20000003,,branches:u; do
  if echo "$out" | grep -q "^$want,"; then
    echo "ok - saved and restored mid-count: $want"
  else
    echo "not ok - saved and restored mid-count: expected $want in: $out"
    failed=$((failed + 1))
  fi
done
echo "guest checks: exit status $status; host checks: $failed failed"
[ "$failed" = 0 ] && [ "$status" = 0 ]
