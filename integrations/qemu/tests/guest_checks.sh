#!/bin/sh
# SPDX-License-Identifier: MIT
# Run inside the guest (integrations/qemu/guest): Linux's own perf driver
# on the softpmu PMU. One "ok - NAME" or "not ok - NAME: why" line per
# check; exit status = the number of checks that failed.
# Programs: /loop (20,000,004 user instructions, 10,000,001 branches,
# tests/loop.S), /rdpmc (tests/rdpmc.S), /branches (known branches,
# tests/branches.S), /memops (loads and stores, tests/memops.S), /walk
# (4,096 new cache lines, examples/workloads/walk.S with N = 4096), /rep
# (frontends/qemu/tests/rep.S, N = 3, L = 100000), /randbr (random branches,
# tests/randbr.S).
failed=0
ok() { echo "ok - $1"; }
no() {
  echo "not ok - $1: $2"
  failed=$((failed + 1))
}
# check NAME EXPECTED ACTUAL
check() { if [ "$2" = "$3" ]; then ok "$1 ($3)"; else no "$1" "expected $2, got $3"; fi; }

# What the profile's PMU is: /expect, written by integrations/qemu/guest
# from the project's CLI (softpmu cpuid and msrs of the profile QEMU
# runs): SOFTPMU_PROFILE, SOFTPMU_VERSION, SOFTPMU_GP, SOFTPMU_GP_WIDTH,
# SOFTPMU_FIXED (CPUID.0AH), SOFTPMU_PEBS_FMT (IA32_PERF_CAPABILITIES
# [11:8]), SOFTPMU_ARCH_LBR (1: architectural LBRs, leaf 1CH) and
# SOFTPMU_LBR (the LBR stack's entries; with architectural LBRs the
# deepest of leaf 1CH's depths, which Linux takes), SOFTPMU_LBR_CALLSTACK
# (1: LBR call-stack mode), SOFTPMU_DTES64, SOFTPMU_BTS, SOFTPMU_PEBS (the
# DS area's 64-bit layout, BTS, PEBS: CPUID.01H, IA32_MISC_ENABLE).
if [ -r /expect ] && . /expect && [ -n "${SOFTPMU_VERSION:-}" ]; then
  ok "expectations of profile $SOFTPMU_PROFILE (/expect)"
else
  no "expectations" "/expect missing or empty (integrations/qemu/guest writes it)"
  echo "$failed failed"
  exit "$failed"
fi

# The kernel's Intel PMU driver found the profile's PMU (CPUID.0AH, SDM
# Vol. 3B 18.2): its banner, version, counters and widths.
dmesg >/tmp/dmesg
banner=$(grep 'Performance Events:' /tmp/dmesg)
# perfmon version 1 (Core Duo) is Linux's "core" PMU, 2 and later "Intel"
if [ "$SOFTPMU_VERSION" -ge 2 ]; then driver="Intel PMU driver"; else driver="core PMU driver"; fi
case $banner in
*"$driver"*) ok "kernel: $banner" ;;
*) no "kernel PMU driver" "no '$driver' in: ${banner:-no Performance Events line}" ;;
esac
field() { sed -n "s/.*\.\.\. $1: *\([0-9a-fx]*\).*/\1/p" /tmp/dmesg | head -1; }
check "perfmon version (CPUID.0AH:EAX[7:0])" "$SOFTPMU_VERSION" "$(field version)"
check "generic registers (EAX[15:8])" "$SOFTPMU_GP" "$(field 'generic registers')"
check "bit width (EAX[23:16])" "$SOFTPMU_GP_WIDTH" "$(field 'bit width')"
check "fixed-purpose events (EDX[4:0])" "$SOFTPMU_FIXED" "$(field 'fixed-purpose events')"
# The LBRs (SDM Vol. 3B 17.4.8; Skylake: 32 entries, format 5): Linux
# probes their MSRs and says how deep they are.
case $SOFTPMU_LBR:$banner in
0:*"-deep LBR"*) no "kernel LBR" "LBRs in: $banner, the profile has none" ;;
0:*) ok "kernel: no LBRs" ;;
*"$SOFTPMU_LBR-deep LBR"*) ok "kernel: $SOFTPMU_LBR-deep LBR" ;;
*) no "kernel LBR" "no '$SOFTPMU_LBR-deep LBR' in: $banner" ;;
esac
# The PEBS record format (IA32_PERF_CAPABILITIES[11:8], SDM Vol. 3B
# 18.6.2.4), which Linux prints as "PEBS fmtN".
if [ "${SOFTPMU_PEBS_FMT:-0}" -gt 0 ]; then
  case $banner in
  *"PEBS fmt$SOFTPMU_PEBS_FMT"*) ok "kernel: PEBS fmt$SOFTPMU_PEBS_FMT" ;;
  *) no "kernel PEBS format" "no 'PEBS fmt$SOFTPMU_PEBS_FMT' in: $banner" ;;
  esac
fi
# Architectural LBRs (CPUID.07H:EDX[19], sapphirerapids) are described by
# leaf 1CH, which the maximum basic leaf (leaf 00H EAX) must reach (SDM
# Vol. 2A CPUID: a leaf above it reads as the maximum leaf).
grep -qw arch_lbr /proc/cpuinfo && arch=1 || arch=0
check "architectural LBRs (CPUID.07H:EDX[19], /proc/cpuinfo arch_lbr)" "$SOFTPMU_ARCH_LBR" "$arch"
if [ "$SOFTPMU_ARCH_LBR" = 1 ]; then
  case $banner in
  *"Architectural LBR"*) ok "kernel: Architectural LBR (CPUID leaf 1CH read)" ;;
  *) no "kernel Architectural LBR" "CPUID.07H:EDX[19] set, no 'Architectural LBR' in: $banner" ;;
  esac
fi
# BTS and PEBS available (IA32_MISC_ENABLE[11] and [12] clear, SDM Vol.
# 4, Table 2-2), which Linux reads into /proc/cpuinfo's bts and pebs
# (with CPUID.01H:EDX[21] DS).
want="$([ "${SOFTPMU_BTS:-0}" = 1 ] && echo bts) $([ "${SOFTPMU_PEBS:-0}" = 1 ] && echo pebs)"
got="$(grep -qw bts /proc/cpuinfo && echo bts) $(grep -qw pebs /proc/cpuinfo && echo pebs)"
check "IA32_MISC_ENABLE[11], [12]: /proc/cpuinfo's bts, pebs" "$want" "$got"
if [ -d /sys/bus/event_source/devices/cpu ]; then ok "sysfs: event_source/devices/cpu"; else
  no "sysfs" "/sys/bus/event_source/devices/cpu missing"; fi

# The NMI watchdog runs on a cycles counter (README.md, "Cycles"); guest
# turns it off (nmi_watchdog=0) unless asked: with a model, its counter
# would run the model in every block.
if grep -qw 'nmi_watchdog=0' /proc/cmdline; then ok "NMI watchdog off (nmi_watchdog=0)"
elif grep -q 'NMI watchdog: Enabled' /tmp/dmesg; then ok "NMI watchdog enabled"; else
  no "NMI watchdog" "$(grep -i 'watchdog' /tmp/dmesg | head -2)"; fi

# Exact counts of the dec/jnz loop.
perf stat -x, -e instructions:u,branches:u -o /tmp/stat /loop
ins=$(sed -n 's/^\([0-9]*\),.*instructions:u.*/\1/p' /tmp/stat)
br=$(sed -n 's/^\([0-9]*\),.*branches:u.*/\1/p' /tmp/stat)
check "perf stat instructions:u of /loop" 20000004 "$ins"
check "perf stat branches:u of /loop" 10000001 "$br"

# A REP string instruction retires once however many times it repeats
# (SDM Vol. 2B, REP), also when its repeats outlast the inline budget:
# /rep runs 3 x (REP STOSB + REP MOVSB of 100,000 bytes), 31 instructions.
perf stat -x, -e instructions:u -o /tmp/stat /rep
ins=$(sed -n 's/^\([0-9]*\),.*instructions:u.*/\1/p' /tmp/stat)
check "perf stat instructions:u of /rep (long REP strings)" 31 "$ins"

# The modelled micro-architecture (README.md, "The modelled
# micro-architecture"): on a profile with a part (SOFTPMU_MODEL=1) the
# cycles are the timing model's, and LLC Reference / Misses and Branch
# Misses Retired are offered (CPUID.0AH:EBX bits clear, SDM Vol. 3B
# 18.2.1.2, Table 18-1) and count what the model says; without one they
# are advertised unavailable, so perf says <not supported> rather than
# reading 0, and a cycle is an instruction.
stat_of() { sed -n "s/^\([0-9]*\),.*$1.*/\1/p" "$2" | head -1; }
# range NAME LOW HIGH ACTUAL
range() {
  if [ -n "$4" ] && [ "$4" -ge "$2" ] && [ "$4" -le "$3" ]; then ok "$1 ($4)"; else
    no "$1" "expected $2 to $3, got ${4:-nothing}"; fi
}
if [ "${SOFTPMU_MODEL:-0}" = 1 ]; then
  # /walk loads 4,096 lines never referenced at their linear address (the
  # model's caches are indexed by it): each misses every level; the
  # program's code adds its own first fetches (one line here).
  perf stat -x, -e instructions:u,cache-references:u,cache-misses:u,r0151:u -o /tmp/stat9 /walk
  check "perf stat instructions:u of /walk (exact)" 16389 "$(stat_of instructions:u /tmp/stat9)"
  range "LLC misses:u of a walk over 4,096 new lines (model)" 4096 4112 "$(stat_of cache-misses:u /tmp/stat9)"
  range "LLC references:u of the walk (model)" 4096 4112 "$(stat_of cache-references:u /tmp/stat9)"
  range "L1D.REPLACEMENT:u (r0151) of the walk (model)" 4096 4112 "$(stat_of r0151:u /tmp/stat9)"
  # /randbr branches on a pseudo-random bit 100,000 times: about half
  # mispredicted (softpmu stat of the same program: 50,251).
  perf stat -x, -e branches:u,branch-misses:u -o /tmp/stat10 /randbr
  check "perf stat branches:u of /randbr (exact)" 200001 "$(stat_of branches:u /tmp/stat10)"
  range "branch-misses:u of /randbr (model)" 25000 75000 "$(stat_of branch-misses:u /tmp/stat10)"
  # The dec/jnz loop: as many instructions a cycle as the part's issue
  # width (src/profile/parts.c: 4; Ice Lake 5, Sapphire Rapids 6), a few
  # more for the loop's first fetches and its last mispredict.
  case $SOFTPMU_PROFILE in icelake) w=5 ;; sapphirerapids) w=6 ;; *) w=4 ;; esac
  lo=$(((20000004 + w - 1) / w))
  perf stat -x, -e cycles:u,instructions:u -o /tmp/stat11 /loop
  range "perf stat cycles:u of /loop (timing model, $w wide)" "$lo" $((lo + 10000)) "$(stat_of cycles:u /tmp/stat11)"
  perf stat -x, -e cycles:u,instructions:u -o /tmp/stat12 busybox md5sum /bin/busybox >/dev/null
  c=$(stat_of cycles:u /tmp/stat12) i=$(stat_of instructions:u /tmp/stat12)
  if [ -n "$c" ] && [ -n "$i" ] && [ "$c" -gt 0 ] && [ "$c" != "$i" ]; then
    ok "cycles:u of busybox md5sum ($c) differ from its instructions:u ($i)"; else
    no "cycles of busybox md5sum" "cycles:u '$c', instructions:u '$i'"; fi
else
  perf stat -x, -e cache-references,cache-misses,branch-misses,cycles:u -o /tmp/stat9 /loop
  # On Nehalem Linux takes Branch Misses Retired marked unavailable for
  # its erratum AAJ80 and counts branch-misses with BR_MISP_EXEC.ANY
  # (89H/7FH) instead ("CPU erratum AAJ80 worked around"): without a part
  # no line counts it, 0.
  for e in cache-references cache-misses branch-misses; do
    if [ "$e" = branch-misses ] && grep -q 'erratum AAJ80 worked around' /tmp/dmesg; then
      check "branch-misses as BR_MISP_EXEC.ANY (the kernel: erratum AAJ80 worked around)" 0 \
        "$(grep ",$e," /tmp/stat9 | cut -d, -f1)"
    elif grep -q "^<not supported>,[^,]*,$e," /tmp/stat9; then ok "$e: <not supported> (CPUID.0AH:EBX)"; else
      no "$e not offered" "$(grep ",$e," /tmp/stat9)"; fi
  done
  check "perf stat cycles:u of /loop (one cycle per instruction)" 20000004 \
    "$(stat_of cycles:u /tmp/stat9)"
fi

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
# /rdpmc reads fixed counter 0: without fixed counters (Core Duo) that
# RDPMC is a #GP (SDM Vol. 2B RDPMC: ECX selects no counter), SIGSEGV.
# perf stat's own status is 0 when its program dies: the program's
# status is taken by the shell.
echo 2 >/sys/bus/event_source/devices/cpu/rdpmc
perf stat -x, -e instructions:u -o /tmp/stat2 sh -c '/rdpmc; echo $? >/tmp/rdpmc.rc' 2>/dev/null
rc=$(cat /tmp/rdpmc.rc 2>/dev/null)
if [ "$SOFTPMU_FIXED" = 0 ]; then
  check "rdpmc at CPL 3 of fixed counter 0, which the profile lacks: #GP (SIGSEGV, status)" 139 "$rc"
elif [ "$rc" = 0 ]; then
  ok "rdpmc at CPL 3: 2006 instructions between two reads"
else
  no "rdpmc at CPL 3" "exit status $rc (difference - 2006, mod 256)"
fi

# Loads and stores (D0H/81H, D0H/82H) of /memops: 4000 each, exact.
# With fewer than three counters for them (Core Duo: two, no fixed
# counter) perf would multiplex the three events and scale their counts:
# the stores are then counted in a run of their own.
if [ $((SOFTPMU_GP + (SOFTPMU_FIXED > 0))) -ge 3 ]; then
  perf stat -x, -e instructions:u,r81d0:u,r82d0:u -o /tmp/stat4 /memops
else
  perf stat -x, -e instructions:u,r81d0:u -o /tmp/stat4 /memops
  perf stat -x, -e r82d0:u -o /tmp/stat4b /memops && cat /tmp/stat4b >>/tmp/stat4
fi
check "perf stat instructions:u of /memops" 10005 "$(sed -n 's/^\([0-9]*\),.*instructions:u.*/\1/p' /tmp/stat4)"
check "perf stat MEM_INST_RETIRED.ALL_LOADS (r81d0:u) of /memops" 4000 \
  "$(sed -n 's/^\([0-9]*\),.*r81d0:u.*/\1/p' /tmp/stat4)"
check "perf stat MEM_INST_RETIRED.ALL_STORES (r82d0:u) of /memops" 4000 \
  "$(sed -n 's/^\([0-9]*\),.*r82d0:u.*/\1/p' /tmp/stat4)"

# CMASK compares each cycle's count (SDM 18.2.1.1): one instruction per
# cycle (README.md, "Cycles"), so INST_RETIRED with CMASK=1 counts every
# instruction's cycle and with CMASK=2 none (counted per block, they
# would count blocks).
perf stat -x, -o /tmp/stat5 -e cpu/event=0xc0,umask=0,cmask=1/u \
  -e cpu/event=0xc0,umask=0,cmask=2/u /memops
check "perf stat INST_RETIRED CMASK=1 of /memops" 10005 \
  "$(sed -n 's/^\([0-9]*\),.*cmask=1\/u.*/\1/p' /tmp/stat5)"
check "perf stat INST_RETIRED CMASK=2 of /memops" 0 \
  "$(sed -n 's/^\([0-9]*\),.*cmask=2\/u.*/\1/p' /tmp/stat5)"

# perf's defaults, with the guest's own throttling settings: `perf record
# PROG` samples cycles:P (precise_ip 3), which Linux programs on Core 2 to
# Skylake as PEBS on INST_RETIRED with INV and CMASK=16 (every cycle
# counts, SDM Vol. 3B 18.2.1.1; records on it: decisions.md #27), on
# Ice Lake and later as PEBS on a counting cycles counter; cycles:pp too.
# The samples land in the program: its symbol is among the sampled
# symbols. It need not lead perf report: the cycles are the timing
# model's on every profile, and the kernel's page clearing (a miss per new
# line) can take more cycles than the loop, more or fewer from run to run
# as the kernel's work around the program varies.
loop_sym() { # FILE: "loop _start" if perf report has samples there
  perf report -i "$1" -q --stdio --sort comm,sym 2>/dev/null |
    awk '$2 == "loop" && $NF == "_start" { print $2, $NF; exit }'
}
# Linux turns PEBS off on some parts for their errata, by model and
# microcode revision, and says so ("PEBS disabled due to CPU errata"):
# Core 2 model 0FH (Merom, QEMU's Conroe), Sandy Bridge below the
# microcode revision that fixed them (QEMU's is 1). Then perf falls back
# from cycles:P to a counter's PMI, and Linux refuses :pp (EOPNOTSUPP).
# Linux takes the DS area in its 64-bit layout only (DTES64); without PEBS
# or DTES64 (Core Duo) it has no precise events either.
pebs_off=
[ "${SOFTPMU_PEBS:-0}" = 1 ] || pebs_off="the profile has no PEBS"
[ "${SOFTPMU_DTES64:-0}" = 1 ] || pebs_off="no DTES64, the only DS layout Linux takes"
if grep -q 'PEBS disabled due to CPU errata' /tmp/dmesg; then
  pebs_off="the kernel: PEBS disabled due to CPU errata"; fi
# precise NAME EVENT FILE: perf record of /loop with a precise EVENT
# (status 0); where Linux has no PEBS, the check that it is refused
# (status 1)
precise() {
  if [ -n "$pebs_off" ]; then
    if taskset 1 perf record -q -e "$2" -o "$3" /loop >/dev/null 2>&1; then
      no "$1" "accepted, though Linux has no PEBS ($pebs_off)"
    else ok "$1: refused ($pebs_off)"; fi
    return 1
  fi
  taskset 1 perf record -q -e "$2" -o "$3" /loop >/dev/null 2>&1
  return 0
}
taskset 1 perf record -q -o /tmp/def.data /loop >/dev/null 2>&1
check "perf record /loop (default event cycles:P): samples in _start" "loop _start" "$(loop_sym /tmp/def.data)"
if precise "perf record -e cycles:pp /loop" cycles:pp /tmp/pp.data; then
  check "perf record -e cycles:pp /loop: samples in _start" "loop _start" "$(loop_sym /tmp/pp.data)"
fi
# perf record -g of a real program (busybox's gzip of 109 KB), bounded:
# it finishes within 120 s and its samples carry call chains.
seq 1 20000 >/tmp/seq
if timeout 120 perf record -q -g -o /tmp/gz.data gzip -c /tmp/seq >/tmp/seq.gz 2>/dev/null; then
  ok "perf record -g gzip: finished within 120 s"
else no "perf record -g gzip" "not finished within 120 s (status $?)"; fi
perf report -i /tmp/gz.data --no-children -q --stdio --sort comm -g none 2>/dev/null | awk 'NF { print $2; exit }' >/tmp/gz.comm
check "perf record -g gzip: samples' command" gzip "$(cat /tmp/gz.comm)"
chains=$(perf script -i /tmp/gz.data -F ip 2>/dev/null | awk 'NF == 0 { if (n > 1) c++; n = 0; next } { n++ } END { print c + 0 }')
if [ "$chains" -gt 0 ]; then ok "perf record -g gzip: $chains samples with call chains"; else
  no "perf record -g gzip" "no sample with a call chain"; fi

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
if [ -n "$pebs_off" ]; then
  precise "perf record -e instructions:upp (PEBS)" instructions:upp /tmp/rec.data || true
else
  set -- $(samples instructions:upp)
  check "perf record -e instructions:upp (PEBS) -c 10007: samples" 1998 "$1"
  check "perf record -e instructions:upp (PEBS) -c 10007: samples outside the loop" 0 "$2"
fi

# Branch records: the known branches of /branches (tests/branches.S), in
# program order. pair N: "from to" of branch N; succ: the next one.
pair() {
  case $1 in
  0) echo 0x40100a 0x401011 ;; 1) echo 0x401018 0x40102f ;;
  2) echo 0x401036 0x401039 ;; 3) echo 0x401039 0x40101d ;;
  4) echo 0x40101d 0x40103a ;; 5) echo 0x40103a 0x40101f ;;
  6) echo 0x40101f 0x401022 ;; 7) echo 0x401024 0x401018 ;;
  esac
}
pairs=$(for i in 0 1 2 3 4 5 6 7; do echo "$i $(pair $i)"; done)
# BTS (SDM Vol. 3B 17.4.8): Linux samples branches:u with period 1
# through the branch trace store; each record's from and to are a
# sample's IP and address ("IP => ADDR"). /branches x: 699 branches,
# 1-7 repeated.
# Linux gives some parts a minimum sampling period for their errata
# (x86_pmu.limit_period: 32 on Nehalem, and on Haswell in later kernels)
# and refuses a shorter one (EINVAL), so BTS, which it uses only with a
# period of 1, is refused there: perf record of instructions:u with a
# period of 2 tells.
# Linux uses BTS only with the DS area's 64-bit layout (DTES64).
if [ "${SOFTPMU_BTS:-0}" != 1 ] || [ "${SOFTPMU_DTES64:-0}" != 1 ]; then
  if perf record -q -d -e branches:u -c 1 -o /tmp/bts.data /branches x >/dev/null 2>&1; then
    no "BTS" "perf record -e branches:u -c 1 accepted, though Linux has no BTS here"
  else ok "BTS (perf record -e branches:u -c 1): refused (no BTS or no DTES64)"; fi
elif ! perf record -q -e instructions:u -c 2 -o /tmp/p2.data true >/dev/null 2>&1; then
  if perf record -q -d -e branches:u -c 1 -o /tmp/bts.data /branches x >/dev/null 2>&1; then
    no "BTS" "perf record -e branches:u -c 1 accepted, though a period of 2 is refused"
  else ok "BTS (perf record -e branches:u -c 1): refused, as a period of 2 (Linux's minimum period)"; fi
else
  perf record -q -d -e branches:u -c 1 -o /tmp/bts.data /branches x >/dev/null 2>&1
  perf script -i /tmp/bts.data -F ip,addr 2>/dev/null |
    awk -v pairs="$pairs" 'BEGIN { n = split(pairs, p, "\n"); for (i = 1; i <= n; i++) {
        split(p[i], f, " "); want[f[1]] = f[2] " " f[3] } }
      { got = "0x" $1 " 0x" $3; k = NR % 7; if (k == 0) k = 7
        if (got != want[k]) { bad++; if (bad < 4) print "record " NR ": " got ", expected " want[k] } }
      END { print NR " records, " bad + 0 " not as expected" }' >/tmp/bts.out
  check "BTS (perf record -e branches:u -c 1) of /branches x" \
    "699 records, 0 not as expected" "$(tail -1 /tmp/bts.out)"
fi
# LBR (SDM Vol. 3B 17.4.8, 17.7.2): perf record -b on instructions:u,
# one sample every 10007 instructions: floor(900007 / 10007) = 89
# samples, each with a stack of SOFTPMU_LBR entries (Core 2: 4, 17.5;
# Nehalem to Haswell: 16; Skylake: 32) of the program's branches in
# program order (entries whose source is the kernel's, its returns to
# user mode, are set aside: LBR_SELECT records branches ending in ring
# 3; Core 2 has no LBR_SELECT and Linux filters in software).
minlbr=$((SOFTPMU_LBR - 2))
lbr_stacks() { # FILE: samples, entries, entries not as expected, short stacks
  perf script -i "$1" -F brstack 2>/dev/null |
    awk -v pairs="$pairs" -v min="$minlbr" 'BEGIN { n = split(pairs, p, "\n"); for (i = 1; i <= n; i++) {
        split(p[i], f, " "); id[f[2] " " f[3]] = f[1] } }
      NF { s++; prev = -1
        for (i = NF; i >= 1; i--) { split($i, e, "/"); t++; if (e[1] ~ /^0xffff/) continue
          key = e[1] " " e[2]
          if (!(key in id)) { bad++; continue }
          if (prev >= 0 && id[key] != (prev == 7 ? 1 : prev + 1)) bad++
          prev = id[key]; u++ }
        if (u < min) short++; u = 0 }
      END { print s + 0, t + 0, bad + 0, short + 0 }'
}
if [ "$SOFTPMU_LBR" = 0 ]; then
  # No LBRs (Core Duo; Linux's perfmon version 1 driver takes none): the
  # samples come, each with no branch entry.
  taskset 1 perf record -q -b -e instructions:u -c 10007 -o /tmp/lbr.data /branches >/dev/null 2>&1
  check "perf record -b of /branches (no LBRs): samples" 89 \
    "$(perf script -i /tmp/lbr.data -F ip 2>/dev/null | wc -l)"
  set -- $(lbr_stacks /tmp/lbr.data)
  check "perf record -b of /branches (no LBRs): branch entries" 0 "$2"
else
  taskset 1 perf record -q -b -e instructions:u -c 10007 -o /tmp/lbr.data /branches >/dev/null 2>&1
  set -- $(lbr_stacks /tmp/lbr.data)
  check "perf record -b of /branches: samples" 89 "$1"
  check "perf record -b of /branches: entries not in program order" 0 "$3"
  # SOFTPMU_LBR entries, less the returns from the kernel the stack also
  # holds and those Linux's software filter drops (intel_pmu_lbr_filter)
  check "perf record -b of /branches: samples with fewer than $minlbr user entries" 0 "$4"
fi
# LBR call-stack mode (SDM Vol. 3B 17.9, LBR_SELECT.EN_CALLSTACK, near
# calls and returns only): the stack holds the calls not yet returned
# from. A sample in f (0x40102f-0x401039) has the call into f on it, one
# in g (0x40103a) the call into g, one in the loop none. Each entry's
# from/to is compared: its flags and type are the format's (with
# architectural LBRs, LBR_INFO's mispredict bit and branch type, CPUID.1CH:
# ECX, which Linux reads: "P" and "CALL"; Linux does not read Skylake's
# LBR_INFO in call-stack mode: "-").
# Without call-stack mode (SOFTPMU_LBR_CALLSTACK=0: LBR format below 4,
# SDM Vol. 3B 17.9.1; Core 2 to Sandy Bridge) Linux refuses the event
# (EOPNOTSUPP) and perf record fails.
if [ "${SOFTPMU_LBR_CALLSTACK:-1}" = 0 ]; then
  if taskset 1 perf record -q --call-graph lbr -e instructions:u -c 10007 -o /tmp/cs.data \
    /branches >/dev/null 2>&1; then
    no "perf record --call-graph lbr" "accepted, but $SOFTPMU_PROFILE has no call-stack LBRs"
  else ok "perf record --call-graph lbr: refused (no call-stack LBRs on $SOFTPMU_PROFILE)"; fi
else
  taskset 1 perf record -q --call-graph lbr -e instructions:u -c 10007 -o /tmp/cs.data /branches \
    >/dev/null 2>&1
  perf script -i /tmp/cs.data -F ip,brstack -G 2>/dev/null |
    awk 'NF { s++; ip = ("0x" $1) + 0; got = ""
           for (i = 2; i <= NF; i++) { split($i, e, "/"); got = got e[1] "/" e[2] " " }
           want = (ip >= 0x40102f && ip <= 0x401039) ? "0x401018/0x40102f " : \
                  (ip == 0x40103a ? "0x40101d/0x40103a " : "")
           if (got != want) bad++ }
         END { print s + 0, bad + 0 }' >/tmp/cs.out 2>&1
  set -- $(cat /tmp/cs.out)
  check "perf record --call-graph lbr of /branches: samples" 89 "$1"
  check "perf record --call-graph lbr of /branches: call stacks not as expected" 0 "$2"
fi

# perf's own self-tests that use the hardware PMU: the mmap interface
# (samples, and user-space counter reading of instructions and cycles with
# RDPMC) and event times. (Others pass too, run by hand: README.md; 26,
# object code reading, samples cycles over the kernel's and perf's code
# with the model running, about 6.5 minutes: by hand.)
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
  no "WRMSR reserved bit" "msr_gp exit status $? (tests/msr_gp.S)"; fi

# An MSR the modelled processor does not have is a #GP (SDM Vol. 2B
# RDMSR, WRMSR), where TCG reads 0 and drops the write: the first and
# last address of each run the profile lacks (/expect's
# SOFTPMU_MSR_ABSENT, `softpmu msrs --absent`: another family's LBR stack,
# Core 2's at 40H-43H / 60H-63H on the others, 680H on Core 2 and
# Sapphire Rapids, counters past the profile's, the reserved rest of each
# debug and LBR block) fail with EIO read and written, through the msr
# driver (/dev/cpu/0/msr, the MSR number is the file offset); the first
# of each run of the profile's own MSRs (SOFTPMU_MSR_PRESENT) reads.
rdmsr() { dd if=/dev/cpu/0/msr bs=8 count=1 skip=$(($1)) iflag=skip_bytes 2>/dev/null | wc -c; }
wrmsr0() {
  dd if=/dev/zero of=/dev/cpu/0/msr bs=8 count=1 seek=$(($1)) \
    oflag=seek_bytes conv=notrunc 2>/dev/null
}
bad=
for a in $SOFTPMU_MSR_ABSENT; do
  [ "$(rdmsr "$a")" = 0 ] || bad="$bad RDMSR $a read;"
  ! wrmsr0 "$a" || bad="$bad WRMSR $a accepted;"
done
n=$(echo $SOFTPMU_MSR_ABSENT | wc -w)
if [ -z "$bad" ] && [ "$n" -gt 0 ]; then
  ok "RDMSR and WRMSR of the $n ends of the runs of MSRs $SOFTPMU_PROFILE lacks: #GP (EIO)"
else no "absent MSRs raise #GP" "${bad:-no addresses in /expect}"; fi
bad=
for a in $SOFTPMU_MSR_PRESENT; do
  [ "$(rdmsr "$a")" = 8 ] || bad="$bad RDMSR $a failed;"
done
n=$(echo $SOFTPMU_MSR_PRESENT | wc -w)
if [ -z "$bad" ] && [ "$n" -gt 0 ]; then
  ok "RDMSR of the first of each of the $n runs of $SOFTPMU_PROFILE's MSRs: read"
else no "the profile's MSRs read" "${bad:-no addresses in /expect}"; fi

echo "$failed failed"
exit "$failed"
