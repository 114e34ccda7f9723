#!/bin/sh
# Run inside the guest (integrations/qemu/guest): Linux's own perf driver
# on the softpmu PMU. One "ok - NAME" or "not ok - NAME: why" line per
# check; exit status = the number of checks that failed.
# Programs: /loop (20,000,004 user instructions, 10,000,001 branches,
# tests/loop.S) and /rdpmc (tests/rdpmc.S).
failed=0
ok() { echo "ok - $1"; }
no() {
  echo "not ok - $1: $2"
  failed=$((failed + 1))
}
# check NAME EXPECTED ACTUAL
check() { if [ "$2" = "$3" ]; then ok "$1 ($3)"; else no "$1" "expected $2, got $3"; fi; }

# The kernel's Intel PMU driver found the profile's PMU (CPUID.0AH, SDM
# Vol. 3B 18.2): its banner, version, counters and widths.
dmesg >/tmp/dmesg
banner=$(grep 'Performance Events:' /tmp/dmesg)
case $banner in
*"Intel PMU driver"*) ok "kernel: $banner" ;;
*) no "kernel PMU driver" "${banner:-no Performance Events line}" ;;
esac
field() { sed -n "s/.*\.\.\. $1: *\([0-9a-fx]*\).*/\1/p" /tmp/dmesg | head -1; }
check "perfmon version (CPUID.0AH:EAX[7:0])" "${SOFTPMU_VERSION:-4}" "$(field version)"
check "generic registers (EAX[15:8])" "${SOFTPMU_GP:-4}" "$(field 'generic registers')"
check "bit width (EAX[23:16])" 48 "$(field 'bit width')"
check "fixed-purpose events (EDX[4:0])" "${SOFTPMU_FIXED:-3}" "$(field 'fixed-purpose events')"
if [ -d /sys/bus/event_source/devices/cpu ]; then ok "sysfs: event_source/devices/cpu"; else
  no "sysfs" "/sys/bus/event_source/devices/cpu missing"; fi

# The NMI watchdog runs on a cycles counter: one core cycle per
# instruction (README.md, "Cycles").
if grep -q 'NMI watchdog: Enabled' /tmp/dmesg; then ok "NMI watchdog enabled"; else
  no "NMI watchdog" "$(grep -i 'watchdog' /tmp/dmesg | head -2)"; fi

# Exact counts of the dec/jnz loop.
perf stat -x, -e instructions:u,branches:u -o /tmp/stat /loop
ins=$(sed -n 's/^\([0-9]*\),.*instructions:u.*/\1/p' /tmp/stat)
br=$(sed -n 's/^\([0-9]*\),.*branches:u.*/\1/p' /tmp/stat)
check "perf stat instructions:u of /loop" 20000004 "$ins"
check "perf stat branches:u of /loop" 10000001 "$br"

# A page fault in the middle of a block: what did not retire is not counted.
perf stat -x, -e instructions:u,branches:u,page-faults:u -o /tmp/stat3 /pagefault
check "perf stat instructions:u of /pagefault (faults mid-block)" 1029 \
  "$(sed -n 's/^\([0-9]*\),.*instructions:u.*/\1/p' /tmp/stat3)"
check "perf stat branches:u of /pagefault" 257 \
  "$(sed -n 's/^\([0-9]*\),.*branches:u.*/\1/p' /tmp/stat3)"
faults=$(sed -n 's/^\([0-9]*\),.*page-faults:u.*/\1/p' /tmp/stat3)
if [ "${faults:-0}" -ge 256 ]; then ok "/pagefault took $faults page faults"; else
  no "/pagefault page faults" "expected at least 256, got $faults"; fi

# RDPMC at CPL 3 (CR4.PCE set by Linux with rdpmc=2) reads the counter.
echo 2 >/sys/bus/event_source/devices/cpu/rdpmc
if perf stat -x, -e instructions:u -o /tmp/stat2 /rdpmc; then
  ok "rdpmc at CPL 3: 2006 instructions between two reads"
else
  no "rdpmc at CPL 3" "exit status $? (difference - 2006, mod 256)"
fi

# Sampling: one sample per PMI, every 10007 instructions: floor(20000004 /
# 10007) = 1998, each at the instruction after the one that overflowed
# (dec at 0x401005, jnz at 0x401007, or the mov after the loop). Under TCG
# the kernel's PMI handler runs slowly in guest time, and the kernel would
# throttle the event (perf_cpu_time_max_percent): a guest policy, turned
# off here so that every PMI gives its sample. The program stays on one
# vCPU (taskset): a task that moves while its counter has overflowed and
# waits for its PEBS assist loses that record, on hardware too.
echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
samples() { # EVENT: the number of samples, and their IPs not in the loop
  taskset 1 perf record -q -e "$1" -c 10007 -o /tmp/rec.data /loop >/dev/null 2>&1
  perf script -i /tmp/rec.data -F ip 2>/dev/null >/tmp/ips
  n=$(wc -l </tmp/ips)
  bad=$(grep -cvE '^ *40100[579]$' /tmp/ips)
  echo "$n $bad"
}
set -- $(samples instructions:u)
check "perf record -e instructions:u -c 10007: samples" 1998 "$1"
check "perf record -e instructions:u -c 10007: samples outside the loop" 0 "$2"
set -- $(samples instructions:upp)
check "perf record -e instructions:upp (PEBS) -c 10007: samples" 1998 "$1"
check "perf record -e instructions:upp (PEBS) -c 10007: samples outside the loop" 0 "$2"

# perf's own self-tests that use the hardware PMU: the mmap interface
# (samples, and user-space counter reading of instructions and cycles with
# RDPMC) and event times. (Others pass too, run by hand: README.md.)
for t in 4 50; do
  if perf test "$t" >/tmp/ptest 2>&1 && ! grep -q FAILED /tmp/ptest; then
    ok "perf test $t: $(head -1 /tmp/ptest | sed 's/^ *[0-9]*: //; s/ *:[^:]*$//')"
  else
    no "perf test $t" "$(tr -d '\033' </tmp/ptest | tr '\n' ' ')"
  fi
done

# A reserved bit written by the guest: #GP, and the emulator goes on.
insmod /msr.ko 2>/dev/null
if /msr_gp; then ok "WRMSR of a reserved PERFEVTSEL bit: #GP (EIO), valid write accepted"; else
  no "WRMSR reserved bit" "msr_gp exit status $?"; fi

echo "$failed failed"
exit "$failed"
