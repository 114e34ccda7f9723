#!/bin/sh
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
bad.pmu:5:8: no expect form starts 'pebs'; the forms: expect MSR == VALUE, expect MSR.FIELD == VALUE, expect rdpmc ECX == VALUE, expect pmis == N, expect fault, expect ok
bad.pmu:6:21: IA32_PMC0 is 48 bits wide; 0x1000000000000 does not fit
bad.pmu:7:24: IA32_PERFEVTSEL0 has no field 'enable' in profile skylake; its fields: EVENT UMASK USR OS E PC INT ANY EN INV CMASK IN_TX
bad.pmu:8:4: lp 2: profile skylake has 2 logical processors (from 0); threads=N in the cpu profile sets more
bad.pmu:9:13: cpl=4: cpl is 0 to 3
bad.pmu:10:1: cpu must be the first statement of the script
bad.pmu:11:43: CTR_Frz is 1 bit wide; 2 does not fit
bad.pmu:12:3: unknown statement 'frob'; statements: cpu, lp, wrmsr, host-wrmsr, rdmsr, rdpmc, deliver, signal, reset-pmis, expect
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
usage: softpmu run [-c PROFILE] [--json] [--svg FILE] SCRIPT"
run run --svg
expect "run: --svg without FILE" 2 "" "\
softpmu: run: option '--svg' needs a value
usage: softpmu run [-c PROFILE] [--json] [--svg FILE] SCRIPT"
run decode --json IA32_PMC0 0
expect "--json is for run only" 2 "" "\
softpmu: decode: unknown option '--json'
usage: softpmu decode [-c PROFILE] [--strict] MSR VALUE"

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
same "$tmp/lines" '{"line":21,"lp":0,"op":"pmi","clock":100,"status":"0xc00000000000001","fields":["Ovf_PMC0","LBR_Frz","CTR_Frz"]}
{"line":21,"lp":0,"op":"freeze","clock":100,"register":"IA32_PERF_GLOBAL_STATUS.CTR_Frz","old":"0x0","new":"0x1"}
{"line":21,"lp":0,"op":"freeze","clock":100,"register":"IA32_PERF_GLOBAL_STATUS.LBR_Frz","old":"0x0","new":"0x1"}' ||
  fail "run --json: PMI and freeze objects differ (above)"
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

# Freeze spans: pmi_freeze_v4 freezes three times; the file is written even
# when an expectation fails; script errors write nothing.
run run --svg freeze.svg "$examples/pmi_freeze_v4.pmu"
checks=$((checks + 1))
n=$(grep -c 'class="freeze"' freeze.svg)
[ "$n" = 3 ] || fail "run --svg: $n freeze spans, expected 3"
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

finish
