#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of `softpmu run`: script errors (FILE:LINE:COL, exit 2, nothing
# run), failed expectations (exit 1 naming the line), the text and JSON
# traces, PMIs at the clocks they happen, and the SVG timeline. Each test
# writes a small script and checks the exit status, standard output and
# standard error exactly. Counter arithmetic is worked out in the comments
# (SDM 18.2.1, 18.2.2, 18.2.4).
#
# usage: test_run.sh PATH/TO/softpmu
set -u

SOFTPMU=${1:?usage: test_run.sh PATH/TO/softpmu}
. "$(dirname "$0")/test_lib.sh"
examples=$(cd "$(dirname "$0")/../examples/scripts" && pwd) || exit 2
cd "$tmp" || exit 2

# script NAME LINES...: write the script NAME, one argument per line.
script() {
  name=$1
  shift
  printf '%s\n' "$@" >"$name"
}

# ---- the text trace -------------------------------------------------------

# PMC0 from -2 counts one instruction a clock: -1 at clock 1, wraps to 0
# at clock 2, 1 at clock 3; no INT, so no PMI. Core 2 counters are 40 bits.
script first.pmu \
  '# Count instructions in PMC0 from 2 below the overflow.' \
  'cpu core2' \
  'wrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 en=1' \
  'wrmsr IA32_PMC0 -2' \
  'deliver instructions:1 x 3' \
  'expect IA32_PMC0 == 1' \
  'expect IA32_PERF_GLOBAL_STATUS.Ovf_PMC0 == 1'
run run first.pmu
expect "run: text trace" 0 "\
cpu core2 (script): perfmon v2, 2 GP counters of 40 bits, fixed counters 0-2 of 40 bits, 1 logical processor
3: wrmsr IA32_PERFEVTSEL0 0x4100c0: 0x0 -> 0x4100c0 (EVENT=0xc0, USR, EN)
4: wrmsr IA32_PMC0 0xfffffffffe: 0x0 -> 0xfffffffffe
5: clock 2: IA32_PMC0 overflowed
5: clocks 1-3 at CPL 3: IA32_PMC0 0xfffffffffe -> 0x1 (+3)
end: 2 expects passed, 3 clocks, 0 PMIs" ""

# A clock can add more than 2^width (SDM 18.2.2.2): a 32-bit PMC0 at 5
# gets three lines of 2^32 - 1 instructions a clock, 3 * 2^32 - 3 more,
# so it passes its width three times in each clock and overflows at both;
# the count is exact: 2 * (3 * 2^32 - 3) = 25769803770, and the value
# 5 + 25769803770 mod 2^32 = 0xffffffff.
script wraps.pmu \
  'cpu base=skylake,gp_width=32' \
  'wrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 os=1 en=1' \
  'wrmsr IA32_PERF_GLOBAL_CTRL EN_PMC0=1' \
  'host-wrmsr IA32_PMC0 5' \
  'deliver instructions:4294967295 instructions:4294967295 instructions:4294967295 x 2'
run run wraps.pmu
expect "run: several wraps in one clock" 0 "\
cpu custom (script): perfmon v4, 4 GP counters of 32 bits, fixed counters 0-2 of 48 bits, 2 logical processors
2: wrmsr IA32_PERFEVTSEL0 0x4300c0: 0x0 -> 0x4300c0 (EVENT=0xc0, USR, OS, EN)
3: wrmsr IA32_PERF_GLOBAL_CTRL 0x1: 0xf -> 0x1 (EN_PMC0)
4: host-wrmsr IA32_PMC0 0x5: 0x0 -> 0x5
5: clock 1: IA32_PMC0 overflowed
5: clock 2: IA32_PMC0 overflowed
5: clocks 1-2 at CPL 3: IA32_PMC0 0x5 -> 0xffffffff (+25769803770)
end: 0 expects passed, 2 clocks, 0 PMIs" ""

# --cpu replaces the script's cpu statement: Skylake's counters are 48
# bits wide, so -2 is 0xfffffffffffe there.
run run --cpu skylake first.pmu
checks=$((checks + 1))
sed -n '1p;3p' "$tmp/out" >"$tmp/lines"
same "$tmp/lines" "\
cpu skylake (--cpu): perfmon v4, 4 GP counters of 48 bits, fixed counters 0-2 of 48 bits, 2 logical processors
4: wrmsr IA32_PMC0 0xfffffffffffe: 0x0 -> 0xfffffffffffe" ||
  fail "run --cpu: the trace differs (above)"

# Faults: GLOBAL_STATUS is read-only (#GP), STATUS_SET does not exist
# before perfmon v4 (#GP), the host path refuses a reserved bit; RDPMC at
# CPL 3 without CR4.PCE faults, with it reads PMC1.
script faults.pmu \
  'cpu haswell' \
  'wrmsr IA32_PERF_GLOBAL_STATUS 1' \
  'expect fault' \
  'wrmsr IA32_PERF_GLOBAL_STATUS_SET 1' \
  'expect fault' \
  'host-wrmsr IA32_PERF_GLOBAL_CTRL 0x10' \
  'expect fault' \
  'host-wrmsr IA32_PERF_GLOBAL_STATUS 0x2' \
  'expect ok' \
  'rdmsr 0x38e' \
  'rdpmc 1 cpl=3' \
  'expect fault' \
  'rdpmc 1 cpl=3 pce=1' \
  'expect ok' \
  'wrmsr IA32_PERF_GLOBAL_STATUS_RESET 0x2' \
  'expect IA32_PERF_GLOBAL_STATUS == 0'
run run faults.pmu
expect "run: faults" 0 "\
cpu haswell (script): perfmon v3, 4 GP counters of 48 bits, fixed counters 0-2 of 48 bits, 2 logical processors
2: wrmsr IA32_PERF_GLOBAL_STATUS 0x1: #GP
4: wrmsr IA32_PERF_GLOBAL_STATUS_SET 0x1: #GP (not present in haswell)
6: host-wrmsr IA32_PERF_GLOBAL_CTRL 0x10: refused: reserved bits set (SPMU_ERESERVED)
8: host-wrmsr IA32_PERF_GLOBAL_STATUS 0x2: 0x0 -> 0x2 (Ovf_PMC1)
10: rdmsr IA32_PERF_GLOBAL_STATUS: 0x2 (Ovf_PMC1)
11: rdpmc 0x1 at CPL 3, CR4.PCE=0: #GP
13: rdpmc 0x1 at CPL 3, CR4.PCE=1: 0x0
15: wrmsr IA32_PERF_GLOBAL_OVF_CTRL 0x2: IA32_PERF_GLOBAL_STATUS 0x2 -> 0x0
end: 7 expects passed, 0 clocks, 0 PMIs" ""

# Two PMIs in one deliver, each at its clock: PMC0 from -10 wraps at clock
# 10, PMC1 from -25 at clock 25, both with INT. PMC2 counts with CMASK=1
# and E: one deasserted-to-asserted edge, at clock 1 only.
script pmis.pmu \
  'cpu skylake' \
  'wrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 int=1 en=1' \
  'wrmsr IA32_PERFEVTSEL1 event=0xc0 usr=1 int=1 en=1' \
  'wrmsr IA32_PERFEVTSEL2 event=0xc0 cmask=1 e=1 usr=1 en=1' \
  'wrmsr IA32_PMC0 -10' \
  'wrmsr IA32_PMC1 -25' \
  'deliver instructions:1 x 30' \
  'expect pmis == 2' \
  'expect IA32_PMC2 == 1' \
  'expect IA32_PERF_GLOBAL_STATUS == 0x3'
run run pmis.pmu
checks=$((checks + 1))
grep '^7:' "$tmp/out" >"$tmp/lines"
same "$tmp/lines" "\
7: clock 10: IA32_PMC0 overflowed
7: clock 10: PMI, IA32_PERF_GLOBAL_STATUS 0x1 (Ovf_PMC0)
7: clock 25: IA32_PMC1 overflowed
7: clock 25: PMI, IA32_PERF_GLOBAL_STATUS 0x3 (Ovf_PMC0, Ovf_PMC1)
7: clocks 1-30 at CPL 3: IA32_PMC0 0xfffffffffff6 -> 0x14 (+30), IA32_PMC1 0xffffffffffe7 -> 0x5 (+30), IA32_PMC2 0x0 -> 0x1 (+1)" ||
  fail "run: PMIs at their clocks (above)"
[ "$rc" = 0 ] || fail "run: PMIs at their clocks: exit status $rc"

# AnyThread (SDM 18.2.3): lp 1's PMC0 counts lp 0's instructions; the
# overflow and the PMI are lp 1's. The trace names logical processors once
# the script uses lp.
script any.pmu \
  'cpu base=skylake,threads=2' \
  'lp 1' \
  'wrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 any=1 int=1 en=1' \
  'wrmsr IA32_PMC0 -4' \
  'lp 0' \
  'deliver instructions:1 x 6' \
  'expect pmis == 0' \
  'lp 1' \
  'expect pmis == 1' \
  'expect IA32_PMC0 == 2'
run run any.pmu
expect "run: AnyThread across lps" 0 "\
cpu custom (script): perfmon v4, 4 GP counters of 48 bits, fixed counters 0-2 of 48 bits, 2 logical processors
3: lp 1: wrmsr IA32_PERFEVTSEL0 0x7100c0: 0x0 -> 0x7100c0 (EVENT=0xc0, USR, INT, ANY, EN)
4: lp 1: wrmsr IA32_PMC0 0xfffffffffffc: 0x0 -> 0xfffffffffffc
6: lp 1: clock 4: IA32_PMC0 overflowed
6: lp 1: clock 4: PMI, IA32_PERF_GLOBAL_STATUS 0x1 (Ovf_PMC0)
6: lp 0: clocks 1-6 at CPL 3: lp 1 IA32_PMC0 0xfffffffffffc -> 0x2 (+6)
end: 3 expects passed, 6 clocks, 1 PMI" ""

# A script on standard input, named <stdin> in messages.
printf 'cpu core2\nwrmsr IA32_PMC0 5\nexpect IA32_PMC0 == 6\n' |
  "$SOFTPMU" run - >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "run -: standard input" 1 "\
cpu core2 (script): perfmon v2, 2 GP counters of 40 bits, fixed counters 0-2 of 40 bits, 1 logical processor
2: wrmsr IA32_PMC0 0x5: 0x0 -> 0x5" "\
<stdin>:3: expect failed: IA32_PMC0 is 5, expected 6"

# ---- failed expectations: exit 1, the line named, the run stopped -----------

# PMC0 from -2 plus 3 is 1; the expectation says -5 and is printed back as
# written (signed, with the 40-bit pattern). Line 7 never runs.
script fail.pmu \
  'cpu core2' \
  'wrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 en=1' \
  'wrmsr IA32_PMC0 -2' \
  'deliver instructions:1 x 3' \
  'expect IA32_PMC0 == 1' \
  'expect IA32_PMC0 == -5' \
  'wrmsr IA32_PMC0 0'
run run fail.pmu
expect "run: failed expect" 1 "\
cpu core2 (script): perfmon v2, 2 GP counters of 40 bits, fixed counters 0-2 of 40 bits, 1 logical processor
2: wrmsr IA32_PERFEVTSEL0 0x4100c0: 0x0 -> 0x4100c0 (EVENT=0xc0, USR, EN)
3: wrmsr IA32_PMC0 0xfffffffffe: 0x0 -> 0xfffffffffe
4: clock 2: IA32_PMC0 overflowed
4: clocks 1-3 at CPL 3: IA32_PMC0 0xfffffffffe -> 0x1 (+3)" "\
fail.pmu:6: expect failed: IA32_PMC0 is 1 (0x1), expected -5 (0xfffffffffb)"

# Each form of expect, failing.
script fail2.pmu 'cpu skylake' 'expect IA32_PERF_GLOBAL_STATUS.CTR_Frz == 1'
run run fail2.pmu
expect "run: failed field expect" 1 "\
cpu skylake (script): perfmon v4, 4 GP counters of 48 bits, fixed counters 0-2 of 48 bits, 2 logical processors" "\
fail2.pmu:2: expect failed: IA32_PERF_GLOBAL_STATUS.CTR_Frz is 0, expected 1"
script fail3.pmu 'cpu skylake' 'wrmsr IA32_FIXED_CTR_CTRL en1=3' \
  'wrmsr IA32_PERF_GLOBAL_CTRL EN_FIXED_CTR1=1' 'deliver cycles:7' \
  'expect rdpmc 0x40000001 == 8'
run run fail3.pmu
checks=$((checks + 1))
same "$tmp/err" "fail3.pmu:5: expect failed: rdpmc 0x40000001 is 7, expected 8" &&
  [ "$rc" = 1 ] || fail "run: failed rdpmc expect"
script fail4.pmu 'cpu skylake' 'expect rdpmc 4 == 0'
run run fail4.pmu
checks=$((checks + 1))
same "$tmp/err" "fail4.pmu:2: expect failed: rdpmc 0x4 raised #GP, expected 0" &&
  [ "$rc" = 1 ] || fail "run: rdpmc expect on an absent counter"
script fail5.pmu 'cpu skylake' 'reset-pmis' 'expect pmis == 1'
run run fail5.pmu
checks=$((checks + 1))
same "$tmp/err" "fail5.pmu:3: expect failed: 0 PMIs on lp 0 since reset-pmis on line 2, expected 1" &&
  [ "$rc" = 1 ] || fail "run: pmis expect"
script fail6.pmu 'cpu skylake' 'wrmsr IA32_PERF_GLOBAL_CTRL 0' 'expect fault'
run run fail6.pmu
checks=$((checks + 1))
same "$tmp/err" "fail6.pmu:3: expect failed: the wrmsr on line 2 completed, expected #GP" &&
  [ "$rc" = 1 ] || fail "run: fault expect"
script fail7.pmu 'cpu skylake' 'rdmsr IA32_PMC4' 'expect ok'
run run fail7.pmu
checks=$((checks + 1))
same "$tmp/err" "fail7.pmu:3: expect failed: the rdmsr on line 2 raised #GP, expected it to complete" &&
  [ "$rc" = 1 ] || fail "run: ok expect"

# ---- script errors: FILE:LINE:COL, exit 2, nothing printed, nothing run -----

# One error per line, all reported; nothing runs. (Line 16 is fine: on
# Skylake the v2-v3 name IA32_PERF_GLOBAL_OVF_CTRL is address 390H,
# IA32_PERF_GLOBAL_STATUS_RESET.)
script bad.pmu \
  'cpu skylake' \
  'wrmsr IA32_PERFEVTSEL0 event=0xc0 cmask=0x100' \
  'wrmsr IA32_PERF_GLOBL_CTRL 1' \
  'deliver instrctions:3 x 0' \
  'expect pebs records == 2' \
  'expect IA32_PMC0 == 0x1000000000000' \
  'wrmsr IA32_PERFEVTSEL0 enable=1' \
  'lp 2' \
  'rdpmc 5 cpl=4' \
  'cpu haswell' \
  'expect IA32_PERF_GLOBAL_STATUS.CTR_frz == 2' \
  '  frob 1    # a comment' \
  'wrmsr IA32_PMC0' \
  'wrmsr IA32_PERFEVTSEL0 += en=1' \
  'expect IA32_PMC4 == 0' \
  'expect IA32_PERF_GLOBAL_OVF_CTRL == 0'
run run bad.pmu
expect "run: script errors" 2 "" "\
bad.pmu:2:41: CMASK is 8 bits wide; 0x100 does not fit
bad.pmu:3:7: unknown MSR 'IA32_PERF_GLOBL_CTRL'; did you mean IA32_PERF_GLOBAL_CTRL?
bad.pmu:4:9: unknown event 'instrctions'; did you mean instructions? (or EVENT/UMASK, e.g. 0xc0/0x00:3)
bad.pmu:4:25: x 0: a deliver is at least one clock
bad.pmu:5:8: no expect form starts 'pebs'; the forms: expect MSR == VALUE, expect MSR.FIELD == VALUE, expect rdpmc ECX == VALUE, expect pmis == N, expect pebs-records == N, expect bts-records == N, expect lost == N, expect mem ADDR == VALUE [size=N], expect fault, expect ok
bad.pmu:6:21: IA32_PMC0 is 48 bits wide; 0x1000000000000 does not fit
bad.pmu:7:24: IA32_PERFEVTSEL0 has no field 'enable' in profile skylake; its fields: EVENT UMASK USR OS E PC INT ANY EN INV CMASK IN_TX
bad.pmu:8:4: lp 2: profile skylake has 2 logical processors (from 0); threads=N in the cpu profile sets more
bad.pmu:9:13: cpl=4: cpl is 0 to 3
bad.pmu:10:1: cpu must be the first statement of the script
bad.pmu:11:43: CTR_Frz is 1 bit wide; 2 does not fit
bad.pmu:12:3: unknown statement 'frob'; statements: cpu, lp, wrmsr, host-wrmsr, rdmsr, rdpmc, deliver, signal, reset-pmis, memory, poke, state, expect
bad.pmu:13:16: missing argument; usage: wrmsr MSR VALUE | wrmsr MSR FIELD=VALUE...
bad.pmu:14:24: '+=': FIELD=VALUE lists start from 0; there is no '+=' (write the whole value, or every field)
bad.pmu:15:8: IA32_PMC4 is not present in profile skylake; presets that have it: icelake, sapphirerapids; to check that an access faults, write the access, then \`expect fault\`"

# An impossible profile stops the parse: nothing after it can be resolved.
script badcpu.pmu 'cpu base=skylake,gp=9' 'wrmsr IA32_NOPE 1'
run run badcpu.pmu
expect "run: bad cpu profile" 2 "" "\
badcpu.pmu:1:5: gp=9: the architectural MSR ranges hold at most 8 GP counters (IA32_PMC0-7)"

# expect fault needs an access before it; a signal needs its status bit.
script badfault.pmu 'cpu core2' 'expect fault' 'signal topa'
run run badfault.pmu
expect "run: expect fault first, signal without the bit" 2 "" "\
badfault.pmu:2:8: expect fault: no wrmsr, host-wrmsr, rdmsr or rdpmc before it to check
badfault.pmu:3:8: signal topa: profile core2 has no IA32_PERF_GLOBAL_STATUS.Trace_ToPA_PMI bit"

# Usage errors.
run run missing.pmu
expect "run: unreadable script" 2 "" "\
softpmu: cannot read missing.pmu: No such file or directory"
run run
expect "run: no script" 2 "" "\
softpmu: run: missing argument
usage: softpmu run [--cpu PROFILE] [--json] [--svg FILE] SCRIPT"
run run --svg
expect "run: --svg without FILE" 2 "" "\
softpmu: run: option '--svg' needs a value
usage: softpmu run [--cpu PROFILE] [--json] [--svg FILE] SCRIPT"
run decode --json IA32_PMC0 0
expect "--json is for run only" 2 "" "\
softpmu: decode: unknown option '--json'
usage: softpmu decode [--cpu PROFILE] [--strict] MSR VALUE"

# ---- guest memory, PEBS and BTS ----------------------------------------------

# The PEBS example: the overflow at clock 3 arms PEBS; the event at clock
# 4 takes the assist (SDM 18.4.4), at the first clock of its deliver: the
# runner sees that it counted 1 before PMC0 was reloaded from the DS
# reset slot (-1000 in 48 bits); the index reaches the threshold: OvfBuf
# and the PMI, after the record (SDM 18.6.2.4: the assist comes first).
run run "$examples/pebs_format3.pmu"
checks=$((checks + 1))
grep '^\(46\|54\):' "$tmp/out" >"$tmp/lines"
same "$tmp/lines" "\
46: clock 3: IA32_PMC0 overflowed
46: clocks 2-3 at CPL 3, load at 0x7fff2040 (latency 48, source 0x4): IA32_PMC0 0xfffffffffffe -> 0x0 (+2)
54: clock 4: PEBS assist: record at 0x11000 (200 bytes), IA32_PMC0 reloaded to 0xfffffffffc18
54: clock 4: PMI, IA32_PERF_GLOBAL_STATUS 0x4000000000000000 (OvfBuf)
54: clock 4 at CPL 3, load at 0x7fff2048 (latency 52, source 0x4): IA32_PMC0 0x0 -> 0xfffffffffc18 (+1)" &&
  [ "$rc" = 0 ] || fail "run: the PEBS assist of pebs_format3.pmu (above)"

# The three ways a PEBS record is lost (SDM 18.4.4, decisions.md #28: the
# assist is skipped, nothing changes, the counter is no longer armed).
# PMC0 from -1 wraps at the first clock, which arms PEBS; the next event
# takes the assist. (1) IA32_DS_AREA points outside the script's memory:
# reading the PEBS management fields (DS + 20H, 32 bytes) fails; PMC0 is
# not reloaded and keeps Ovf_PMC0. (2) The index is at the absolute
# maximum: no room for a 200-byte record (SDM 17.4.9). (3) The buffer is
# outside the memory: writing the record fails.
script lost.pmu \
  'cpu skylake' \
  'memory 0x10000 0x1000' \
  'wrmsr IA32_DS_AREA 0x50000' \
  'wrmsr IA32_PMC0 -1' \
  'wrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 en=1' \
  'wrmsr IA32_PEBS_ENABLE PEBS_EN_PMC0=1' \
  'wrmsr IA32_PERF_GLOBAL_CTRL EN_PMC0=1' \
  'deliver instructions x 3' \
  'expect lost == 1' \
  'expect pebs-records == 0' \
  'expect IA32_PMC0 == 2' \
  'expect IA32_PERF_GLOBAL_STATUS == 0x1' \
  'wrmsr IA32_DS_AREA 0x10000' \
  'poke 0x10020 0x10800' \
  'poke 0x10028 0x10900' \
  'poke 0x10030 0x10900' \
  'poke 0x10038 0x10900' \
  'wrmsr IA32_PMC0 -1' \
  'deliver instructions x 2' \
  'expect lost == 2' \
  'poke 0x10020 0x30000' \
  'poke 0x10028 0x30000' \
  'poke 0x10030 0x30c80' \
  'wrmsr IA32_PMC0 -1' \
  'deliver instructions x 2' \
  'expect lost == 3' \
  'expect mem 0x10028 == 0x30000'
run run lost.pmu
expect "run: PEBS records lost" 0 "\
cpu skylake (script): perfmon v4, 4 GP counters of 48 bits, fixed counters 0-2 of 48 bits, 2 logical processors
2: memory 0x10000-0x10fff: 4096 bytes, zero-filled
3: wrmsr IA32_DS_AREA 0x50000: 0x0 -> 0x50000
4: wrmsr IA32_PMC0 0xffffffffffff: 0x0 -> 0xffffffffffff
5: wrmsr IA32_PERFEVTSEL0 0x4100c0: 0x0 -> 0x4100c0 (EVENT=0xc0, USR, EN)
6: wrmsr IA32_PEBS_ENABLE 0x1: 0x0 -> 0x1 (PEBS_EN_PMC0)
7: wrmsr IA32_PERF_GLOBAL_CTRL 0x1: 0xf -> 0x1 (EN_PMC0)
8: clock 1: IA32_PMC0 overflowed
8: clock 2: PEBS record lost: the guest memory read of 32 bytes at 0x50020 failed: no memory window holds it
8: clocks 1-3 at CPL 3: IA32_PMC0 0xffffffffffff -> 0x2 (+3)
13: wrmsr IA32_DS_AREA 0x10000: 0x50000 -> 0x10000
14: poke 0x10020 0x10800 (8 bytes): 0x0 -> 0x10800
15: poke 0x10028 0x10900 (8 bytes): 0x0 -> 0x10900
16: poke 0x10030 0x10900 (8 bytes): 0x0 -> 0x10900
17: poke 0x10038 0x10900 (8 bytes): 0x0 -> 0x10900
18: wrmsr IA32_PMC0 0xffffffffffff: 0x2 -> 0xffffffffffff
19: clock 4: IA32_PMC0 overflowed
19: clock 5: PEBS record lost: no room for it below the absolute maximum (index 0x10900, absolute maximum 0x10900)
19: clocks 4-5 at CPL 3: IA32_PMC0 0xffffffffffff -> 0x1 (+2)
21: poke 0x10020 0x30000 (8 bytes): 0x10800 -> 0x30000
22: poke 0x10028 0x30000 (8 bytes): 0x10900 -> 0x30000
23: poke 0x10030 0x30c80 (8 bytes): 0x10900 -> 0x30c80
24: wrmsr IA32_PMC0 0xffffffffffff: 0x1 -> 0xffffffffffff
25: clock 6: IA32_PMC0 overflowed
25: clock 7: PEBS record lost: the guest memory write of 200 bytes at 0x30000 failed: no memory window holds it
25: clocks 6-7 at CPL 3: IA32_PMC0 0xffffffffffff -> 0x1 (+2)
end: 7 expects passed, 7 clocks, 0 PMIs" ""

# BTS with BTINT on Core 2 (SDM 17.4.9.3): a record reaching the
# interrupt threshold (0x8058, one record in) sets OvfBuf and requests a
# PMI, and so does the next; once the index is at the absolute maximum
# nothing is stored, the buffer does not wrap. A record the memory cannot
# take is not stored either.
script btint.pmu \
  'cpu core2' \
  'memory 0x8000 0x100' \
  'poke 0x8000 0x8040' \
  'poke 0x8008 0x8040' \
  'poke 0x8010 0x8070' \
  'poke 0x8018 0x8058' \
  'wrmsr IA32_DS_AREA 0x8000' \
  'wrmsr IA32_DEBUGCTL TR=1 BTS=1 BTINT=1' \
  'deliver branch=0x1000->0x2000 x 3' \
  'expect bts-records == 2' \
  'expect pmis == 2' \
  'expect IA32_PERF_GLOBAL_STATUS.OvfBuf == 1' \
  'poke 0x8008 0x9000' \
  'poke 0x8010 0x9100' \
  'wrmsr IA32_DEBUGCTL TR=1 BTS=1' \
  'deliver branch=0x1000->0x2000 predicted' \
  'expect bts-records == 2'
run run btint.pmu
checks=$((checks + 1))
grep '^\(9\|16\):' "$tmp/out" >"$tmp/lines"
same "$tmp/lines" "\
9: clock 1: BTS record at 0x8040: 0x1000 -> 0x2000
9: clock 1: PMI, IA32_PERF_GLOBAL_STATUS 0x4000000000000000 (OvfBuf)
9: clock 2: BTS record at 0x8058: 0x1000 -> 0x2000
9: clock 2: PMI, IA32_PERF_GLOBAL_STATUS 0x4000000000000000 (OvfBuf)
9: clock 3: BTS record not stored: the buffer is full (index 0x8070, absolute maximum 0x8070) and BTINT is set, so it does not wrap
9: clocks 1-3 at CPL 3, branch 0x1000 -> 0x2000: no counter changed
16: clock 4: BTS record not stored: the guest memory write of 24 bytes at 0x9000 failed: no memory window holds it
16: clock 4 at CPL 3, branch 0x1000 -> 0x2000 (predicted): no counter changed" &&
  [ "$rc" = 0 ] || fail "run: BTS with BTINT, and a failed write (above)"

# The 32-bit DS layout (SDM 17.4.9): Core Duo has no DTES64, so the BTS
# fields are 4 bytes at 00H-0CH and a record is 12 bytes (from, to, flags
# with bit 4 predicted). In IA-32e mode (deliver ... ia32e) the 64-bit
# layout applies even without DTES64.
script narrow.pmu \
  'cpu core-duo' \
  'memory 0x8000 0x100' \
  'poke 0x8000 0x8040 size=4' \
  'poke 0x8004 0x8040 size=4' \
  'poke 0x8008 0x8058 size=4' \
  'poke 0x800c 0x8100 size=4' \
  'wrmsr IA32_DS_AREA 0x8000' \
  'wrmsr IA32_DEBUGCTL TR=1 BTS=1' \
  'deliver branch=0x1000->0x2000 predicted' \
  'expect mem 0x8040 == 0x1000 size=4' \
  'expect mem 0x8044 == 0x2000 size=4' \
  'expect mem 0x8048 == 0x10 size=4' \
  'expect mem 0x8004 == 0x804c size=4' \
  'wrmsr IA32_DS_AREA 0x8080' \
  'poke 0x8080 0x80c0' \
  'poke 0x8088 0x80c0' \
  'poke 0x8090 0x8100' \
  'poke 0x8098 0x8100' \
  'deliver branch=0x3000->0x4000 ia32e' \
  'expect mem 0x80c0 == 0x3000' \
  'expect mem 0x80c8 == 0x4000' \
  'expect mem 0x8088 == 0x80d8' \
  'expect bts-records == 2'
run run narrow.pmu
checks=$((checks + 1))
grep '^\(9\|19\):' "$tmp/out" >"$tmp/lines"
same "$tmp/lines" "\
9: clock 1: BTS record at 0x8040: 0x1000 -> 0x2000, predicted
9: clock 1 at CPL 3, branch 0x1000 -> 0x2000 (predicted): no counter changed
19: clock 2: BTS record at 0x80c0: 0x3000 -> 0x4000
19: clock 2 at CPL 3, ia32e, branch 0x3000 -> 0x4000: no counter changed" &&
  [ "$rc" = 0 ] || fail "run: the 32-bit DS layout, and ia32e (above)"

# Failed expectations name what was counted or read.
script pebsfail.pmu 'cpu skylake' 'memory 0x1000 0x100' 'expect pebs-records == 1'
run run pebsfail.pmu
checks=$((checks + 1))
same "$tmp/err" "pebsfail.pmu:3: expect failed: 0 PEBS records on lp 0 since the start, expected 1" &&
  [ "$rc" = 1 ] || fail "run: pebs-records expect"
script memfail.pmu 'cpu skylake' 'memory 0x1000 0x100' 'poke 0x1004 0xff size=1' \
  'expect mem 0x1004 == 255 size=4' 'expect mem 0x1004 == 0x1ff size=2'
run run memfail.pmu
checks=$((checks + 1))
same "$tmp/err" "memfail.pmu:5: expect failed: mem 0x1004 (2 bytes) is 0xff, expected 0x1ff" &&
  [ "$rc" = 1 ] || fail "run: mem expect"
script lostfail.pmu 'cpu skylake' 'expect lost == 0' 'expect bts-records == 2'
run run lostfail.pmu
checks=$((checks + 1))
same "$tmp/err" "lostfail.pmu:3: expect failed: 0 BTS records on lp 0 since the start, expected 2" &&
  [ "$rc" = 1 ] || fail "run: bts-records expect"

# Script errors of memory, poke, state, the clock's access and expect mem.
script badmem.pmu \
  'cpu skylake' \
  'poke 0x1000 1' \
  'memory 0x1000 0x100' \
  'memory 0x10ff 0x10' \
  'memory 0x2000 0' \
  'memory 0x3000 0x2000000' \
  'memory 0xffffffffffffff00 0x200' \
  'poke 0x1000 0x1ff size=1' \
  'poke 0x1000 1 size=3' \
  'poke 0x10fc 1' \
  'expect mem 0x1100 == 0' \
  'state rip=1 rxa=2' \
  'state rip=1 rip=2 zz' \
  'deliver instructions lat=3' \
  'deliver instructions branch=0x10' \
  'deliver instructions store predicted src=1' \
  'expect mem 0x1000 = 0' \
  'deliver branch=0x1->y' \
  'poke 0x1000 -1 size=2'
run run badmem.pmu
expect "run: memory script errors" 2 "" "\
badmem.pmu:2:6: poke 0x1000: no memory window declared above holds its 8 bytes (memory BASE SIZE declares one)
badmem.pmu:4:8: memory 0x10ff-0x110e overlaps the window of line 3 (0x1000-0x10ff)
badmem.pmu:5:15: memory SIZE 0: a window is 1 byte to 16 MiB (0x1000000)
badmem.pmu:6:15: memory SIZE 0x2000000: a window is 1 byte to 16 MiB (0x1000000)
badmem.pmu:7:27: memory 0xffffffffffffff00 + 0x200 runs past the top of the address space
badmem.pmu:8:13: size=1 is 8 bits wide; 0x1ff does not fit
badmem.pmu:9:20: size=3: the size is 1, 2, 4 or 8 bytes
badmem.pmu:10:6: poke 0x10fc: no memory window declared above holds its 8 bytes (memory BASE SIZE declares one)
badmem.pmu:11:12: expect mem 0x1100: no memory window declared above holds its 8 bytes (memory BASE SIZE declares one)
badmem.pmu:12:13: state has no register 'rxa'; did you mean rip, rax or rbx?
badmem.pmu:13:13: rip= given twice
badmem.pmu:13:19: 'zz' is not REGISTER=VALUE
badmem.pmu:14:22: lat= needs mem=ADDR, the clock's memory access
badmem.pmu:15:29: branch=0x10: a branch is FROM->TO, two linear addresses (branch=0x401000->0x402000)
badmem.pmu:16:22: store needs mem=ADDR, the clock's memory access
badmem.pmu:16:28: predicted needs branch=FROM->TO
badmem.pmu:16:38: src= needs mem=ADDR, the clock's memory access
badmem.pmu:17:8: usage: expect mem ADDR == VALUE [size=1|2|4|8]
badmem.pmu:18:21: branch=: 'y' is not an address (0x-hex or decimal)"

# ---- --json ------------------------------------------------------------------

run run --json first.pmu
expect "run --json" 0 '{"line":2,"op":"cpu","profile":"core2","from":"script","version":2,"gp":2,"gp_width":40,"fixed":"0x7","fixed_width":40,"threads":1}
{"line":3,"lp":0,"op":"wrmsr","msr":"IA32_PERFEVTSEL0","addr":"0x186","value":"0x4100c0","result":"ok","target":"IA32_PERFEVTSEL0","old":"0x0","new":"0x4100c0","fields":["EVENT=0xc0","USR","EN"]}
{"line":4,"lp":0,"op":"wrmsr","msr":"IA32_PMC0","addr":"0xc1","value":"0xfffffffffe","result":"ok","target":"IA32_PMC0","old":"0x0","new":"0xfffffffffe","fields":[]}
{"line":5,"lp":0,"op":"overflow","clock":2,"counter":"IA32_PMC0"}
{"line":5,"lp":0,"op":"deliver","first":1,"last":3,"cpl":3,"flags":[],"changed":[{"lp":0,"counter":"IA32_PMC0","old":"0xfffffffffe","new":"0x1","counted":3}]}
{"op":"end","expects":2,"clocks":3,"pmis":0}' ""

# PMIs and freezes as JSON, and a failure record before exit 1.
run run --json "$examples/pmi_freeze_v4.pmu"
checks=$((checks + 1))
grep '"op":"\(pmi\|freeze\)"' "$tmp/out" | head -n 3 >"$tmp/lines"
same "$tmp/lines" '{"line":22,"lp":0,"op":"pmi","clock":100,"status":"0xc00000000000001","fields":["Ovf_PMC0","LBR_Frz","CTR_Frz"]}
{"line":22,"lp":0,"op":"freeze","clock":100,"register":"IA32_PERF_GLOBAL_STATUS.CTR_Frz","old":"0x0","new":"0x1"}
{"line":22,"lp":0,"op":"freeze","clock":100,"register":"IA32_PERF_GLOBAL_STATUS.LBR_Frz","old":"0x0","new":"0x1"}' ||
  fail "run --json: PMI and freeze objects differ (above)"
# A PEBS assist, the memory it needs, and the state it records, as JSON.
run run --json "$examples/pebs_format3.pmu"
checks=$((checks + 1))
grep '"op":"\(memory\|pebs\|state\)"' "$tmp/out" | head -n 3 >"$tmp/lines"
same "$tmp/lines" '{"line":18,"lp":0,"op":"memory","base":"0x10000","size":8192}
{"line":38,"lp":0,"op":"state","rip":"0x401000","next":"0x401004","rflags":"0x246","tsc":"0x2540be400","rax":"0xa0","rbx":"0xb0","rcx":"0xc0","rdx":"0xd0","rsi":"0x51","rdi":"0xd1","rbp":"0xb9","rsp":"0x7ffe0000","r8":"0x8","r9":"0x0","r10":"0x0","r11":"0x0","r12":"0x0","r13":"0x0","r14":"0x0","r15":"0xf"}
{"line":54,"lp":0,"op":"pebs","clock":4,"addr":"0x11000","size":200,"reloaded":[{"counter":"IA32_PMC0","value":"0xfffffffffc18"}]}' ||
  fail "run --json: memory, state and pebs objects differ (above)"
run run --json lost.pmu
checks=$((checks + 1))
grep '"op":"pebs-lost"' "$tmp/out" | head -n 1 >"$tmp/lines"
same "$tmp/lines" '{"line":8,"lp":0,"op":"pebs-lost","clock":2,"why":"the guest memory read of 32 bytes at 0x50020 failed: no memory window holds it"}' ||
  fail "run --json: the pebs-lost object differs (above)"
run run --json fail.pmu
checks=$((checks + 1))
tail -n 1 "$tmp/out" >"$tmp/lines"
same "$tmp/lines" '{"line":6,"lp":0,"op":"expect","result":"fail","message":"IA32_PMC0 is 1 (0x1), expected -5 (0xfffffffffb)"}' &&
  [ "$rc" = 1 ] || fail "run --json: the failure object differs (above)"
# Every line of every example's trace is one object.
for f in "$examples"/*.pmu; do
  run run --json "$f"
  checks=$((checks + 1))
  if [ "$rc" != 0 ] || grep -qv '^{.*}$' "$tmp/out"; then
    fail "run --json $(basename "$f"): status $rc or a line that is not an object"
  fi
done

# Script errors of the branch's LBR qualifiers (docs/scripts.md).
script badbranch.pmu \
  'cpu skylake' \
  'deliver branches type=jcc cycles=3 abort' \
  'deliver branches branch=0x1->0x2 type=call' \
  'deliver branches branch=0x1->0x2 type=jcc type=far'
run run badbranch.pmu
expect "run: branch qualifier script errors" 2 "" "\
badbranch.pmu:2:18: type= needs branch=FROM->TO
badbranch.pmu:2:27: cycles= needs branch=FROM->TO
badbranch.pmu:2:36: abort needs branch=FROM->TO
badbranch.pmu:3:39: type=call: a branch type is jcc, near_rel_call, near_ind_call, near_ret, near_ind_jmp, near_rel_jmp or far
badbranch.pmu:4:43: type= given twice"

# ---- --svg -------------------------------------------------------------------

# sampling.pmu requests two PMIs: one marker each, and a lane for PMC0 and
# fixed counter 0, the two counters it enables.
run run --svg run.svg "$examples/sampling.pmu"
checks=$((checks + 1))
[ "$rc" = 0 ] || fail "run --svg: exit status $rc"
[ "$(head -c 4 run.svg)" = "<svg" ] || fail "run --svg: does not start with <svg"
[ "$(tail -n 1 run.svg)" = "</svg>" ] || fail "run --svg: does not end with </svg>"
n=$(grep -c 'class="pmi"' run.svg)
[ "$n" = 2 ] || fail "run --svg: $n PMI markers, expected 2"
n=$(grep -c 'class="counter"' run.svg)
[ "$n" = 2 ] || fail "run --svg: $n counter lanes, expected 2"
n=$(grep -c 'class="overflow"' run.svg)
[ "$n" = 2 ] || fail "run --svg: $n overflow markers, expected 2"
# Tags balance: every element opened is closed.
opens=$(grep -o '<[a-z][a-z]*' run.svg | wc -l)
closes=$(grep -o '</[a-z][a-z]*>\|/>' run.svg | wc -l)
[ "$opens" = "$closes" ] || fail "run --svg: $opens tags opened, $closes closed"
if command -v xmllint >/dev/null 2>&1; then
  xmllint --noout run.svg 2>"$tmp/xml" || fail "run --svg: not XML: $(cat "$tmp/xml")"
fi

# A PEBS reload is a step down after the climb to the overflow.
run run --svg pebs.svg "$examples/pebs_format3.pmu"
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(grep -c 'class="pmi"' pebs.svg)" = 2 ] ||
  fail "run --svg: the PEBS example (status $rc)"
if command -v xmllint >/dev/null 2>&1; then
  xmllint --noout pebs.svg 2>"$tmp/xml" || fail "run --svg pebs: not XML: $(cat "$tmp/xml")"
fi

# Freeze spans: pmi_freeze_v4 freezes three times; the file is written even
# when an expectation fails; script errors write nothing.
run run --svg freeze.svg "$examples/pmi_freeze_v4.pmu"
checks=$((checks + 1))
n=$(grep -c 'class="freeze"' freeze.svg)
[ "$n" = 3 ] || fail "run --svg: $n freeze spans, expected 3"
# Spans follow the model's freeze events (SDM 18.2.4.1): on v4, CTR_Frz
# set through STATUS_SET freezes until STATUS_RESET clears it, clocks
# 10-20; on v3 a PMI (an uncore overflow's) with GLOBAL_CTRL already 0
# still starts the legacy freeze, which lasts until software writes
# GLOBAL_CTRL, clocks 0-10.
script swfreeze.pmu \
  'cpu skylake' \
  'wrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 os=1 en=1' \
  'wrmsr IA32_PERF_GLOBAL_CTRL EN_PMC0=1' \
  'deliver instructions:1 x 10' \
  'wrmsr IA32_PERF_GLOBAL_STATUS_SET SetCTR_Frz=1' \
  'deliver instructions:1 x 10' \
  'wrmsr IA32_PERF_GLOBAL_STATUS_RESET ClrCTR_Frz=1' \
  'deliver instructions:1 x 10'
run run --svg swfreeze.svg swfreeze.pmu
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(grep -c 'frozen from clock 10 to 20' swfreeze.svg)" = 1 ] ||
  fail "run --svg: no span for a freeze software started (status $rc)"
script ctrl0.pmu \
  'cpu nehalem' \
  'wrmsr IA32_PERF_GLOBAL_CTRL 0' \
  'wrmsr IA32_DEBUGCTL FREEZE_PERFMON_ON_PMI=1 ENABLE_UNCORE_PMI=1' \
  'signal uncore' \
  'deliver instructions:1 x 10' \
  'wrmsr IA32_PERF_GLOBAL_CTRL 1' \
  'deliver instructions:1 x 10'
run run --svg ctrl0.svg ctrl0.pmu
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(grep -c 'frozen from clock 0 to 10' ctrl0.svg)" = 1 ] ||
  fail "run --svg: no span for a legacy freeze of a cleared GLOBAL_CTRL (status $rc)"
run run --svg failed.svg fail.pmu
checks=$((checks + 1))
[ "$rc" = 1 ] && [ "$(tail -n 1 failed.svg)" = "</svg>" ] ||
  fail "run --svg: no drawing after a failed expect"
run run --svg none.svg bad.pmu
checks=$((checks + 1))
[ "$rc" = 2 ] && [ ! -e none.svg ] || fail "run --svg: a drawing after a script error"
run run --svg /nonexistent/dir/x.svg first.pmu
checks=$((checks + 1))
[ "$rc" = 2 ] && grep -q '^softpmu: cannot write /nonexistent/dir/x.svg' "$tmp/err" ||
  fail "run --svg: unwritable FILE not reported"

# A run's work is bounded: a counter that wraps every clock makes every
# clock a delivery step; past 1,000,000 steps the run stops with exit 2
# (fuzz/regressions/script/run-wraps-every-clock).
script forever.pmu \
  'cpu skylake' \
  'wrmsr IA32_PERFEVTSEL0 event=0xc0 usr=1 en=1' \
  'deliver instructions:4294967295 instructions:4294967295 instructions:4294967295 instructions:4294967295 x 18446744073709551615'
run run forever.pmu
checks=$((checks + 1))
[ "$rc" = 2 ] && grep -q '^softpmu: forever.pmu:3: deliver: more than 1000000 delivery steps' "$tmp/err" ||
  fail "run: unbounded work not stopped"

finish
