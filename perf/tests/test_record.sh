#!/bin/sh
# SPDX-License-Identifier: MIT
# softpmu record and softpmu report, on sample streams this test writes
# itself (test_record_stream, protocol/record.h) for a freestanding
# program it builds (test_record_prog.S), with the addresses nm gives:
# perf report and perf script (Debian's linux-perf) must read back from
# the perf.data file exactly the samples, periods, threads, call chains,
# event names and attrs put in; softpmu report and --folded must give
# exact numbers; bad input must be refused with a clear message.
#   test_record.sh CC SOFTPMU STREAM_GEN SRCDIR [PLUGIN]
# PLUGIN, the QEMU plugin, is for the end-to-end part (record_end_to_end).
# Without perf the perf part is not run and the test reports a skip (77),
# unless SOFTPMU_REQUIRE_PERF=1 (scripts/check), when it fails.
CC=$1 SOFTPMU=$2 GEN=$3 SRC=$4 PLUGIN=${5:-}
. "$SRC/../../cli/test_lib.sh"

have_perf=1
if ! command -v perf >/dev/null 2>&1 || ! perf version >/dev/null 2>&1; then
  echo "perf not found (apt-get install linux-perf): perf's part skipped"
  [ "${SOFTPMU_REQUIRE_PERF:-0}" = 1 ] && exit 1
  have_perf=0
fi
# The checks read perf's output as Debian 12's perf 6.1 prints it; Debian
# 13's perf 6.12 is brought to that here: its demangler takes a one-letter
# C symbol (the test programs' f, j, k...) for a C++ builtin type ("j",
# unsigned int), so no demangling (both); each branch-stack entry has one
# more field ("/-", no speculation information), dropped; evlist -v names
# the type and config in parentheses and prints type 0, both dropped; a
# call chain's addresses are virtual (rel, below).
perf() {
  case $1 in
  script | report)
    sub=$1
    shift
    command perf "$sub" --no-demangle "$@" | sed -E 's#(/[A-Z_]*)/-( |$)#\1\2#g'
    ;;
  evlist)
    shift
    command perf evlist "$@" | sed -E 's/ \((PERF_[A-Z_]+|cpu)\)//g; s/: type: 0,/:/'
    ;;
  *) command perf "$@" ;;
  esac
}

# The program and its addresses.
"$CC" -nostdlib -static -g -o "$tmp/prog" "$SRC/test_record_prog.S" ||
  { echo "test_record_prog.S does not assemble"; exit 1; }
addr() { printf '%d' "0x$(nm "$tmp/prog" | awk -v s="$1" '$3 == s { print $1 }')"; }
hex() { printf '0x%x' "$1"; }
START=$(addr _start) MAIN=$(addr main) FOO=$(addr foo) BAR=$(addr bar)
# Each call is 5 bytes: the return addresses.
R_START=$((START + 5)) R_MAIN=$((MAIN + 5)) R_FOO=$((FOO + 5))
# The executable segment, mapped as /proc/self/maps lists it: whole pages.
set -- $(readelf -lW "$tmp/prog" | awk '$1 == "LOAD" && / R E / { print $2, $3 }')
PGOFF=$(($1 & ~4095)) MSTART=$(($2 & ~4095))
# An address as perf script prints a call chain's: in the file (perf 6.1),
# or the virtual address itself when VIRTUAL=1 (perf 6.12).
rel() {
  if [ "${VIRTUAL:-0}" = 1 ]; then printf '%x' "$1"
  else printf '%x' $(($1 - MSTART + PGOFF)); fi
}
line_of() { grep -n "$1" "$SRC/test_record_prog.S" | head -n 1 | cut -d: -f1; }

# stream NAME: the description on stdin, written as $tmp/NAME.bin.
stream() { "$GEN" "$tmp/$1.bin" || fail "$1: the stream generator failed"; }

# norm FILE: its lines with runs of blanks made one space, trimmed.
norm() { awk '{ $1 = $1; print }' "$1"; }

# has NAME FILE LINE: FILE (normalized) has LINE.
has() {
  checks=$((checks + 1))
  norm "$2" | grep -qxF -- "$3" || fail "$1: no line '$3' in: $(norm "$2")"
}

# ---- one event with call chains: two threads, a forked child, lost -------
P=1000
stream one <<EOF2
process 4242 0 prog
mmap 4242 4242 $(hex $MSTART) 0x1000 $(hex $PGOFF) $tmp/prog
thread 4242 4242 0
sample 4242 4242 1000 $(hex $((BAR + 1))) $P 0 $(hex $R_FOO) $(hex $R_MAIN) $(hex $R_START)
sample 4242 4242 2000 $(hex $((BAR + 1))) $P 0 $(hex $R_FOO) $(hex $R_MAIN) $(hex $R_START)
sample 4242 4242 3000 $(hex $FOO) $P 0 $(hex $R_MAIN) $(hex $R_START)
thread 4242 4243 10
unknown 99
sample 4242 4243 1000 $(hex $R_MAIN) $P 0 $(hex $R_START)
mmap 4242 4242 $(hex $MSTART) 0x1000 $(hex $PGOFF) $tmp/prog
process 4250 4242 prog
mmap 4250 4250 $(hex $MSTART) 0x1000 $(hex $PGOFF) $tmp/prog
thread 4250 4250 0
sample 4250 4250 500 $(hex $BAR) $P 0 $(hex $R_FOO) $(hex $R_MAIN) $(hex $R_START)
exit 4250 4250 600
exit 4242 4243 1500
sample 4242 4242 4000 $(hex $((BAR + 2))) $P 0 $(hex $R_FOO) $(hex $R_MAIN) $(hex $R_START)
lost 4242 4242 3
exit 4242 4242 5000
EOF2
run record -e instructions --from "$tmp/one.bin" -g -c $P -o "$tmp/one.data"
expect "record --from: one event, call chains" 0 "" \
  "[ softpmu record: wrote 6 samples to $tmp/one.data, 3 lost ]"

# Option values attached, as perf takes them: the same file.
run record -e instructions --from="$tmp/one.bin" -g -c$P --output="$tmp/attached.data"
# upto_data FILE: its header, attrs and data section (the header features
# follow: HEADER_CMDLINE, the command line as typed, differs here).
upto_data() {
  head -c "$(od -An -t u8 -j 40 -N 16 "$1" | awk '{ print $1 + $2 }')" "$1"
}
upto_data "$tmp/one.data" >"$tmp/one.head"
upto_data "$tmp/attached.data" >"$tmp/attached.head"
checks=$((checks + 1))
cmp -s "$tmp/one.head" "$tmp/attached.head" ||
  fail "record: -cN, --from=, --output= differ from their separate forms"

# Recording again keeps the previous file as FILE.old, as perf record does.
cp "$tmp/one.data" "$tmp/first.data"
run record -e instructions --from "$tmp/one.bin" -g -c $P -o "$tmp/one.data"
checks=$((checks + 1))
cmp -s "$tmp/first.data" "$tmp/one.data.old" ||
  fail "record: the previous output is not kept as FILE.old"

# softpmu report: per symbol, by period (each P), hottest first.
run report -i "$tmp/one.data"
expect "report --sort sym" 0 "# Total Lost Samples: 3
#
# Samples: 6 of event 'instructions'
# Event count: $((6 * P))
#
# Overhead  Samples  Command  Shared Object  Symbol
# ........  .......  .......  .............  ......
#
    66.67%        4  prog     prog           [.] bar
    16.67%        1  prog     prog           [.] foo
    16.67%        1  prog     prog           [.] main
" ""
# By source line: the lines of the sampled instructions in the .S file
# (equal shares in the order of their names).
L_BAR=$(line_of '^bar:') L_FOO=$(line_of '^foo:') L_MAIN=$(line_of '^main:')
run report -i "$tmp/one.data" --sort srcline
expect "report --sort srcline" 0 "# Total Lost Samples: 3
#
# Samples: 6 of event 'instructions'
# Event count: $((6 * P))
#
# Overhead  Samples  Source:Line
# ........  .......  ...........
#
    33.33%        2  test_record_prog.S:$((L_BAR + 2))
    16.67%        1  test_record_prog.S:$((L_MAIN + 2))
    16.67%        1  test_record_prog.S:$((L_FOO + 1))
    16.67%        1  test_record_prog.S:$((L_BAR + 1))
    16.67%        1  test_record_prog.S:$((L_BAR + 3))
" ""
run report -i"$tmp/one.data" --sort=srcline
checks=$((checks + 1))
grep -q "test_record_prog.S:$((L_BAR + 2))\$" "$tmp/out" ||
  fail "report -iFILE --sort=srcline: not the srcline table"
# Folded stacks, outermost first, with their sample counts.
run report -i "$tmp/one.data" --folded
expect "report --folded" 0 "_start;main 1
_start;main;foo 1
_start;main;foo;bar 4" ""

if [ $have_perf = 1 ]; then
  # The header features perf record writes: the build id of each file a
  # sample touches (HEADER_BUILD_ID), the modelled processor's CPUID (the
  # Skylake client part, family 06H model 5EH stepping 3: perf's
  # "GenuineIntel,6,94,3"; profile.h, spmu_profile_signature) and
  # the command line, softpmu's own path first.
  BID=$(readelf -n "$tmp/prog" | awk '/Build ID:/ { print $3 }')
  [ -n "$BID" ] || fail "test_record_prog.S: the linker gave it no build id"
  perf buildid-list -i "$tmp/one.data" >"$tmp/bids" 2>/dev/null
  has "buildid-list: the program's build id" "$tmp/bids" "$BID $tmp/prog"
  perf report -i "$tmp/one.data" --header-only >"$tmp/hdr" 2>/dev/null
  has "report --header-only: the cpuid" "$tmp/hdr" \
    "# cpuid : GenuineIntel,6,94,3"
  has "report --header-only: the cmdline" "$tmp/hdr" \
    "# cmdline : $(readlink -f "$SOFTPMU") record -e instructions --from $tmp/one.bin -g -c $P -o $tmp/one.data"
  has "report --header-only: the version" "$tmp/hdr" \
    "# perf version : softpmu $("$SOFTPMU" --version | awk '{ print $NF }')"

  # perf script: every sample with its thread, time (instructions retired
  # by the thread, shown as ns), period and call chain (PERF_CONTEXT_USER,
  # the ip, the return addresses), the child's and the second thread's
  # included; the chain's addresses as perf prints them (rel).
  perf script -i "$tmp/one.data" -F comm,pid,tid,time,period,event,ip,sym \
    >"$tmp/script" 2>"$tmp/serr"
  checks=$((checks + 1))
  norm "$tmp/script" >"$tmp/got"
  chains() {
    printf '%s\n' "prog 4242/4242 0.000001: $P instructions:
$(rel $((BAR + 1))) bar
$(rel $R_FOO) foo
$(rel $R_MAIN) main
$(rel $R_START) _start

prog 4242/4242 0.000002: $P instructions:
$(rel $((BAR + 1))) bar
$(rel $R_FOO) foo
$(rel $R_MAIN) main
$(rel $R_START) _start

prog 4242/4242 0.000003: $P instructions:
$(rel $FOO) foo
$(rel $R_MAIN) main
$(rel $R_START) _start

prog 4242/4243 0.000001: $P instructions:
$(rel $R_MAIN) main
$(rel $R_START) _start

prog 4250/4250 0.000000: $P instructions:
$(rel $BAR) bar
$(rel $R_FOO) foo
$(rel $R_MAIN) main
$(rel $R_START) _start

prog 4242/4242 0.000004: $P instructions:
$(rel $((BAR + 2))) bar
$(rel $R_FOO) foo
$(rel $R_MAIN) main
$(rel $R_START) _start
"
  }
  chains >"$tmp/want.file"
  VIRTUAL=1 chains >"$tmp/want.virtual"
  if ! cmp -s "$tmp/got" "$tmp/want.file" && ! cmp -s "$tmp/got" "$tmp/want.virtual"; then
    diff -u "$tmp/want.file" "$tmp/got" | sed 's/^/    /'
    fail "perf script: the samples differ (above)"
  fi
  # perf report: the same symbols, sample counts and periods.
  perf report --stdio --no-children -n -g none --sort comm,dso,sym \
    -i "$tmp/one.data" >"$tmp/rep" 2>"$tmp/rerr"
  has "perf report: lost" "$tmp/rep" "# Total Lost Samples: 3"
  has "perf report: samples" "$tmp/rep" "# Samples: 6 of event 'instructions'"
  has "perf report: event count" "$tmp/rep" \
    "# Event count (approx.): $((6 * P))"
  has "perf report: bar" "$tmp/rep" "66.67% 4 prog prog [.] bar"
  has "perf report: foo" "$tmp/rep" "16.67% 1 prog prog [.] foo"
  has "perf report: main" "$tmp/rep" "16.67% 1 prog prog [.] main"
  # The attr: perf's hardware instructions event, the period, the sample
  # layout, user code only.
  perf evlist -v -i "$tmp/one.data" >"$tmp/ev" 2>&1
  has "perf evlist: the attr" "$tmp/ev" "instructions: size: 128, config: 0x1, { sample_period, sample_freq }: $P, sample_type: IP|TID|TIME|CALLCHAIN|PERIOD, exclude_kernel: 1, exclude_hv: 1"
fi

# ---- two events, precise: IDENTIFIER tells their samples apart -----------
stream two <<EOF2
process 77 0 prog
mmap 77 77 $(hex $MSTART) 0x1000 $(hex $PGOFF) $tmp/prog
thread 77 77 0
sample 77 77 100 $(hex $((BAR + 1))) 500 0
sample 77 77 150 $(hex $FOO) 7 1
sample 77 77 200 $(hex $((BAR + 1))) 500 0
sample 77 77 250 $(hex $FOO) 7 1
sample 77 77 260 $(hex $MAIN) 7 1
sample 77 77 300 $(hex $((BAR + 1))) 500 0
exit 77 77 400
EOF2
run record --from "$tmp/two.bin" --precise -c 500 \
  -e instructions,br_inst_retired.near_call:u -o "$tmp/two.data"
expect "record --from: two events" 0 "" \
  "[ softpmu record: wrote 6 samples to $tmp/two.data ]"
run report -i "$tmp/two.data"
expect "report: two events" 0 "# Total Lost Samples: 0
#
# Samples: 3 of event 'instructions'
# Event count: 1500
#
# Overhead  Samples  Command  Shared Object  Symbol
# ........  .......  .......  .............  ......
#
   100.00%        3  prog     prog           [.] bar

# Samples: 3 of event 'br_inst_retired.near_call:u'
# Event count: 21
#
# Overhead  Samples  Command  Shared Object  Symbol
# ........  .......  .......  .............  ......
#
    66.67%        2  prog     prog           [.] foo
    33.33%        1  prog     prog           [.] main
" ""
run report -i "$tmp/two.data" --folded --event br_inst_retired.near_call:u
expect "report --folded --event" 0 "foo 2
main 1" ""
run report -i "$tmp/two.data" --folded --event cycles
expect "report --event: not in the file" 2 "" \
  "softpmu: report: $tmp/two.data has no event 'cycles'"

if [ $have_perf = 1 ]; then
  perf script -i "$tmp/two.data" -F event,ip,sym,period >"$tmp/script" 2>/dev/null
  checks=$((checks + 1))
  norm "$tmp/script" >"$tmp/got"
  same "$tmp/got" "500 instructions: $(printf %x $((BAR + 1))) bar
7 br_inst_retired.near_call:u: $(printf %x $FOO) foo
500 instructions: $(printf %x $((BAR + 1))) bar
7 br_inst_retired.near_call:u: $(printf %x $FOO) foo
7 br_inst_retired.near_call:u: $(printf %x $MAIN) main
500 instructions: $(printf %x $((BAR + 1))) bar" ||
    fail "perf script: two events' samples differ (above)"
  # BR_INST_RETIRED.NEAR_CALL is C4H umask 02H: perf's raw config 0x2c4;
  # --precise is precise_ip 3 (PEBS, SDM Vol. 3B 18.4.4).
  perf evlist -v -i "$tmp/two.data" >"$tmp/ev" 2>&1
  has "perf evlist: raw event attr" "$tmp/ev" "br_inst_retired.near_call:u: type: 4, size: 128, config: 0x2c4, { sample_period, sample_freq }: 500, sample_type: IP|TID|TIME|PERIOD|IDENTIFIER, exclude_kernel: 1, exclude_hv: 1, precise_ip: 3"
  perf report --stdio -n -i "$tmp/two.data" >"$tmp/rep" 2>/dev/null
  has "perf report: second event" "$tmp/rep" \
    "# Samples: 3 of event 'br_inst_retired.near_call:u'"
  has "perf report: second event's count" "$tmp/rep" \
    "# Event count (approx.): 21"
  has "perf report: foo" "$tmp/rep" "66.67% 2 prog prog [.] foo"
fi

# perf's :pp on an event is --precise (PEBS, SDM Vol. 3B 18.4.4): every
# sampling counter is armed so, as perf evlist shows.
run record --from "$tmp/two.bin" -c 500 \
  -e instructions,br_inst_retired.near_call:upp -o "$tmp/twop.data"
expect "record --from: :upp" 0 "" \
  "[ softpmu record: wrote 6 samples to $tmp/twop.data ]"
if [ $have_perf = 1 ]; then
  perf evlist -v -i "$tmp/twop.data" >"$tmp/ev" 2>&1
  has "perf evlist: :upp is precise_ip 3" "$tmp/ev" "br_inst_retired.near_call:upp: type: 4, size: 128, config: 0x2c4, { sample_period, sample_freq }: 500, sample_type: IP|TID|TIME|PERIOD|IDENTIFIER, exclude_kernel: 1, exclude_hv: 1, precise_ip: 3"
fi

# ---- leader sampling: READ records, two threads ---------------------------
# {instructions,branches}:S: the plugin writes each thread's branches
# count (since the thread started) before each instructions sample; the
# file carries each event's count over the recording (the leader's, its
# periods summed; branches', every thread's growth summed), and perf
# takes a member's sample as the growth since the previous read: 30 and
# 40 in thread 77, 50 and 10 in thread 78 (its own count), none where it
# did not grow (perf delivers no sample of period 0).
stream group <<EOF2
process 77 0 prog
mmap 77 77 $(hex $MSTART) 0x1000 $(hex $PGOFF) $tmp/prog
thread 77 77 0
read 77 77 0 30
sample 77 77 100 $(hex $BAR) 100 0
thread 77 78 10
read 77 78 0 50
sample 77 78 150 $(hex $FOO) 100 0
read 77 77 0 70
sample 77 77 200 $(hex $BAR) 100 0
read 77 78 0 60
sample 77 78 250 $(hex $FOO) 100 0
read 77 77 0 70
sample 77 77 300 $(hex $MAIN) 100 0
exit 77 78 400
exit 77 77 400
EOF2
run record --from "$tmp/group.bin" -c 100 -e '{instructions,branches}:S' \
  -o "$tmp/group.data"
expect "record --from: {a,b}:S" 0 "" \
  "[ softpmu record: wrote 5 samples to $tmp/group.data ]"
run report -i "$tmp/group.data" --folded
expect "report --folded after {a,b}:S: the leader's samples" 0 "bar 2
foo 2
main 1" ""
# softpmu report takes the members' samples from the counts as perf does.
run report -i "$tmp/group.data"
has "report after {a,b}:S: the member's samples" "$tmp/out" \
  "# Samples: 4 of event 'branches'"
has "report after {a,b}:S: the member's count" "$tmp/out" "# Event count: 130"
has "report after {a,b}:S: the member's rows" "$tmp/out" "53.85% 2 prog prog [.] bar"
has "report after {a,b}:S: the member's rows" "$tmp/out" "46.15% 2 prog prog [.] foo"
if [ $have_perf = 1 ]; then
  perf script -i "$tmp/group.data" -F tid,period,event,ip,sym >"$tmp/script" 2>/dev/null
  norm "$tmp/script" >"$tmp/got"
  checks=$((checks + 1))
  B=$(printf %x $BAR) F=$(printf %x $FOO) M=$(printf %x $MAIN)
  same "$tmp/got" "77 100 instructions: $B bar
77 30 branches: $B bar
78 100 instructions: $F foo
78 50 branches: $F foo
77 100 instructions: $B bar
77 40 branches: $B bar
78 100 instructions: $F foo
78 10 branches: $F foo
77 100 instructions: $M main" ||
    fail "perf script after {a,b}:S from a stream: $(cat "$tmp/got")"
fi

# ---- -I: the registers of the PEBS records (REGS) -------------------------
# A REGS record gives the registers of its thread's next SAMPLE
# (PERF_SAMPLE_REGS_INTR, perf's default -I set): the general-purpose
# registers by register number in the stream, by perf's indices in the
# file (AX, BX, CX, DX, SI, DI, BP, SP, then R8-R15), IP the sample's,
# FLAGS with bit 3 (Linux's exact-IP mark, a precise event), CS and SS
# x86-64 Linux's user selectors. A sample without one (thread 78's: the
# REGS before it is thread 77's) has no registers (ABI none).
G="0xa0 0xa1 0xa2 0xa3 0xa4 0xa5 0xa6 0xa7 0xa8 0xa9 0xaa 0xab 0xac 0xad 0xae 0xaf"
stream regs <<EOF2
process 77 0 prog
mmap 77 77 $(hex $MSTART) 0x1000 $(hex $PGOFF) $tmp/prog
thread 77 77 0
regs 77 77 0x202 $G
sample 77 77 100 $(hex $BAR) 100 0
thread 77 78 10
regs 77 77 0x246 $G
sample 77 78 150 $(hex $FOO) 100 0
exit 77 78 400
exit 77 77 400
EOF2
run record --from "$tmp/regs.bin" -c 100 -e instructions:pp -I -o "$tmp/regs.data"
expect "record --from -I" 0 "" \
  "[ softpmu record: wrote 2 samples to $tmp/regs.data ]"
run record --from "$tmp/regs.bin" -c 100 -e instructions -I -o "$tmp/x.data"
checks=$((checks + 1))
[ "$rc" = 2 ] && grep -q "^softpmu: record: -I (--intr-regs): the registers come from the PEBS records" "$tmp/err" ||
  fail "record --from -I without a precise event: $rc $(head -1 "$tmp/err")"
if [ $have_perf = 1 ]; then
  perf script -i "$tmp/regs.data" -F tid,ip,iregs >"$tmp/script" 2>/dev/null
  norm "$tmp/script" >"$tmp/got"
  checks=$((checks + 1))
  B=$(printf %x $BAR) F=$(printf %x $FOO)
  same "$tmp/got" "77 $B ABI:2 AX:0xa0 BX:0xa3 CX:0xa1 DX:0xa2 SI:0xa6 DI:0xa7 BP:0xa5 SP:0xa4 IP:0x$B FLAGS:0x20a CS:0x33 SS:0x2b R8:0xa8 R9:0xa9 R10:0xaa R11:0xab R12:0xac R13:0xad R14:0xae R15:0xaf
78 $F" || fail "perf script -F iregs from a stream: $(cat "$tmp/got")"
fi

# ---- -F and the default event ---------------------------------------------
# -F FREQ: a period of round(10^9 / FREQ) events, a second being 10^9
# retired instructions (a sample's time). An event counting retired
# instructions gets perf's -F attr (freq, sample_freq); any other event
# the period attr, its rate not being FREQ.
run record -e instructions,branches -F 2000000 --from "$tmp/two.bin" -o "$tmp/f.data"
expect "record -F 2000000" 0 "" \
  "[ softpmu record: wrote 6 samples to $tmp/f.data ]"
if [ $have_perf = 1 ]; then
  perf evlist -v -i "$tmp/f.data" >"$tmp/ev" 2>&1
  has "perf evlist: -F on instructions" "$tmp/ev" "instructions: size: 128, config: 0x1, { sample_period, sample_freq }: 2000000, sample_type: IP|TID|TIME|PERIOD|IDENTIFIER, exclude_kernel: 1, exclude_hv: 1, freq: 1"
  has "perf evlist: -F on branches: the period" "$tmp/ev" "branches: size: 128, config: 0x4, { sample_period, sample_freq }: 500, sample_type: IP|TID|TIME|PERIOD|IDENTIFIER, exclude_kernel: 1, exclude_hv: 1"
fi
# perf record refuses -F with -c; "max" is the kernel's limit; 0.
for case in "-F 10 -c 5:cannot set frequency and period" \
  "--freq=max:-F max:" "-F 0:from 1 to 1000000000" \
  "-F 3000000000:from 1 to 1000000000"; do
  run record -e instructions ${case%%:*} --from "$tmp/one.bin" -o "$tmp/x.data"
  checks=$((checks + 1))
  [ "$rc" = 2 ] && grep -q -- "${case#*:}" "$tmp/err" ||
    fail "record ${case%%:*}: exit $rc, $(cat "$tmp/err")"
done
# No -e: perf's cycles where a model runs (skylake's part), as plain
# cycles; instructions without one (core2, --no-model).
if [ $have_perf = 1 ]; then
  for case in ":cycles" "--cpu core2:instructions" "--no-model:instructions"; do
    run record ${case%%:*} -c 1000 --from "$tmp/one.bin" -o "$tmp/dflt.data"
    perf evlist -i "$tmp/dflt.data" >"$tmp/ev" 2>&1
    checks=$((checks + 1))
    [ "$rc" = 0 ] && same "$tmp/ev" "${case#*:}" ||
      fail "record ${case%%:*}: default event: exit $rc, $(cat "$tmp/ev")"
  done
fi

# ---- bad input -----------------------------------------------------------
run record -e instructions -c 0 --from "$tmp/one.bin" -o "$tmp/x.data"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "-c 0: exit status $rc, want 2"
grep -q "^softpmu: record: -c 0: the period is from 1 to 281474976710654 on skylake, whose counters are 48 bits wide$" \
  "$tmp/err" || fail "-c 0: the message: $(cat "$tmp/err")"
# Preset to -N in 48 bits: 2^48 - 2 is the largest period.
run record -e instructions -c 281474976710655 --from "$tmp/one.bin" -o "$tmp/x.data"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "-c 2^48-1: exit status $rc, want 2"
run record -e instructions -c 281474976710654 --from "$tmp/one.bin" -o "$tmp/x.data"
checks=$((checks + 1))
[ "$rc" = 0 ] || fail "-c 2^48-2: exit status $rc, want 0"
# Core Duo's counters are 40 bits wide.
run record -e instructions --cpu core-duo -c 1099511627775 --from "$tmp/one.bin" -o "$tmp/x.data"
checks=$((checks + 1))
grep -q "the period is from 1 to 1099511627774 on core-duo, whose counters are 40 bits wide" \
  "$tmp/err" || fail "core-duo -c 2^40-1: $(cat "$tmp/err")"
run record -e instructions --cpu core-duo --precise --from "$tmp/one.bin" -o "$tmp/x.data"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "--precise without PEBS: exit status $rc, want 2"
grep -q "^softpmu: record: --precise: core-duo has no PEBS" "$tmp/err" ||
  fail "--precise without PEBS: the message: $(cat "$tmp/err")"
run record --cpu core-duo -e instructions:pp --from "$tmp/one.bin" -o "$tmp/x.data"
expect ":pp without PEBS" 2 "" "softpmu: record: instructions:pp: core-duo has no PEBS (SDM Vol. 3B 18.4.4), so no precise level: leave out :p (or write :P, the highest the profile has)"
run record -e br_inst_retired.near_cal --from "$tmp/one.bin" -o "$tmp/x.data"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "unknown event: exit status $rc, want 2"
grep -q "did you mean br_inst_retired.near_call?" "$tmp/err" ||
  fail "unknown event: the nearest name: $(cat "$tmp/err")"
run record -e stalled-cycles-frontend --from "$tmp/one.bin" -o "$tmp/x.data"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "stalled-cycles-frontend: exit status $rc, want 2"
grep -q "stalled-cycles-frontend: the engine does not produce this event" \
  "$tmp/err" || fail "stalled-cycles-frontend: the message: $(cat "$tmp/err")"
# A modelled event needs the model: --no-model leaves it out, and a
# profile without a part (core2) has none unless --model gives one; a
# specification the parser refuses is a usage error with its message.
run record -e cycles --no-model --from "$tmp/one.bin" -o "$tmp/x.data"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "cycles --no-model: exit status $rc, want 2"
grep -q "^softpmu: record: cycles: a modelled event, and --no-model leaves the model out\$" \
  "$tmp/err" || fail "cycles --no-model: the message: $(cat "$tmp/err")"
run record --cpu core2 -e cache-misses --from "$tmp/one.bin" -o "$tmp/x.data"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "core2 cache-misses: exit status $rc, want 2"
grep -q "^softpmu: record: cache-misses is an estimate of the modelled micro-architecture, and core2 has no model of its own (no cache geometry): choose one with --model part:NAME or --model cachegrind:" \
  "$tmp/err" || fail "core2 cache-misses: the message: $(cat "$tmp/err")"
run record --model part:nosuch -e cycles --from "$tmp/one.bin" -o "$tmp/x.data"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "--model part:nosuch: exit status $rc, want 2"
grep -q "^softpmu: record: --model part:nosuch: unknown part 'nosuch' (known: sandybridge\|^softpmu: record: --model part:nosuch: unknown part 'nosuch' (known: skylake" \
  "$tmp/err" || fail "--model part:nosuch: the message: $(cat "$tmp/err")"
# A sample of an event the command line did not give.
run record -e instructions --from "$tmp/two.bin" -o "$tmp/x.data"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "sample of event 1 with one event: exit status $rc"
grep -q "a sample of event 1 at offset [0-9]*, but -e gave 1 event" \
  "$tmp/err" || fail "sample of event 1: the message: $(cat "$tmp/err")"
# Malformed streams: a size not a multiple of 8, a record cut short.
printf 'badsize\n' | stream bad
run record -e instructions --from "$tmp/bad.bin" -o "$tmp/x.data"
expect "stream: a bad size" 2 "" \
  "softpmu: record: the sample stream has a record of a bad size at offset 0"
# (The PROCESS record as it was before it stated its version: 32 bytes.)
printf 'process 1 0 p -\ntruncated\n' | stream trunc
run record -e instructions --from "$tmp/trunc.bin" -o "$tmp/x.data"
expect "stream: a truncated record" 2 "" \
  "softpmu: record: the sample stream has a truncated record at offset 32"
# The stream's format version (protocol/record.h, in its PROCESS records):
# a later one is refused.
printf 'process 1 0 p 3\nthread 1 1 0\n' | stream v3
run record -e instructions --from "$tmp/v3.bin" -o "$tmp/x.data"
expect "stream: another format version" 2 "" \
  "softpmu: record: the sample stream has a PROCESS record of format version 3 (this softpmu reads versions 1 to 2) at offset 0"
# A recording without samples: an empty table, no stacks.
printf 'process 5 0 idle\nthread 5 5 0\nexit 5 5 9\n' | stream none
run record -e instructions --from "$tmp/none.bin" -o "$tmp/none.data"
expect "record: no samples" 0 "" \
  "[ softpmu record: wrote 0 samples to $tmp/none.data ]"
run report -i "$tmp/none.data" --folded
expect "report --folded: no samples" 0 "" ""
run report -i "$tmp/none.data"
expect "report: no samples" 0 "# Total Lost Samples: 0
#
# Samples: 0 of event 'instructions'
# Event count: 0
#
# Overhead  Samples  Command  Shared Object  Symbol
# ........  .......  .......  .............  ......
#
" ""
run report -i "$tmp/prog"
expect "report: not a perf.data file" 2 "" \
  "softpmu: report: $tmp/prog: not a perf.data file (no PERFILE2 header)"
run report -i "$tmp/one.data" --sort dso
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "--sort dso: exit status $rc, want 2"
# Running a program: a missing program is 127, as in a shell; a missing
# qemu-x86_64 names the package. (A stand-in qemu and plugin: neither
# runs, the program is looked up first.)
mkdir -p "$tmp/bin" && printf '#!/bin/sh\nexit 99\n' >"$tmp/bin/qemu-x86_64" &&
  chmod +x "$tmp/bin/qemu-x86_64"
PATH="$tmp/bin:$PATH" SOFTPMU_QEMU_PLUGIN="$tmp/prog" \
  "$SOFTPMU" record -e instructions -o "$tmp/x.data" -- "$tmp/no-such-program" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
checks=$((checks + 1))
[ "$rc" = 127 ] || fail "a missing program: exit status $rc, want 127"
PATH=/nonexistent XDG_CACHE_HOME=$tmp/no-cache "$SOFTPMU" record -e instructions -o "$tmp/x.data" -- /bin/true \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "no qemu-x86_64: exit status $rc, want 2"
grep -q 'apt-get install qemu-user' "$tmp/err" ||
  fail "no qemu-x86_64: the message names apt-get install qemu-user"
# An -o FILE that cannot be written is found before the program runs
# (status 2, not run); one that can is created then, an existing file
# kept as FILE.old first, as perf record does. (The stand-in qemu notes
# that it ran.)
printf '#!/bin/sh\n[ "$*" = "-plugin $SOFTPMU_QEMU_PLUGIN --version" ] && exec echo "qemu-x86_64 version 7.2.0"\necho $$ >"$RAN"\nexec sleep "${NAP:-0}"\n' >"$tmp/bin/qemu-x86_64"
rm -f "$tmp/ran"
RAN="$tmp/ran" PATH="$tmp/bin:$PATH" SOFTPMU_QEMU_PLUGIN="$tmp/prog" \
  "$SOFTPMU" record -e instructions -o "$tmp/no-dir/x.data" -- /bin/true >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "record -o not writable" 2 "" \
  "softpmu: record: -o $tmp/no-dir/x.data: No such file or directory"
checks=$((checks + 1))
[ ! -e "$tmp/ran" ] || fail "record -o not writable: the program ran"
echo old >"$tmp/keep.data"
mkdir -p "$tmp/tmpdir"
(NAP=30 RAN="$tmp/ran" PATH="$tmp/bin:$PATH" SOFTPMU_QEMU_PLUGIN="$tmp/prog" \
  TMPDIR="$tmp/tmpdir" exec "$SOFTPMU" record -e instructions -o "$tmp/keep.data" -- /bin/true \
  >"$tmp/out" 2>"$tmp/err") &
pid=$!
wait_for "$tmp/ran"
checks=$((checks + 1))
[ "$(cat "$tmp/keep.data.old" 2>/dev/null)" = old ] && [ -e "$tmp/keep.data" ] ||
  fail "record -o: FILE.old kept and FILE created before the program runs"
[ -n "$(ls -A "$tmp/tmpdir")" ] || fail "record: no temporary file in TMPDIR"
# Killed by SIGTERM: the temporary stream removed, the program stopped,
# the status the signal's (128 + 15).
kill -s TERM $pid
wait $pid
rc=$?
checks=$((checks + 1))
[ "$rc" = 143 ] || fail "record, SIGTERM: exit status $rc, want 143"
[ -z "$(ls -A "$tmp/tmpdir")" ] ||
  fail "record, SIGTERM: left in TMPDIR: $(ls -A "$tmp/tmpdir")"
! kill -0 "$(cat "$tmp/ran")" 2>/dev/null ||
  fail "record, SIGTERM: the program still runs"
# --all-user (perf's): every event :u, so an event given :k alone, refused
# without it, is sampled, its attr counting user code only.
run record -e instructions:k --from "$tmp/one.bin" -o "$tmp/k.data"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "record -e instructions:k: status $rc, want 2"
run record --all-user -e instructions:k --from "$tmp/one.bin" -o "$tmp/k.data"
checks=$((checks + 1))
[ "$rc" = 0 ] || fail "record --all-user -e instructions:k: status $rc, $(cat "$tmp/err")"

# -e '' names no event: refused.
run record -e '' --from "$tmp/one.bin" -o "$tmp/empty.data"
checks=$((checks + 1))
[ "$rc" = 2 ] && head -n 1 "$tmp/err" | grep -qxF \
  "softpmu: record: -e '': an empty event list" ||
  fail "record -e '': status $rc, $(cat "$tmp/err")"
run record
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "no program: exit status $rc, want 2"
run record --help
expect_manual "record --help"
run report --help
expect_manual "report --help"

# ---- end to end: softpmu record on a real program through the plugin -----
# record_end_to_end runs test_record_prog itself under qemu-x86_64 with
# the plugin's record mode. The program retires 14 instructions (_start:
# call, nop, mov, xor, syscall; main, foo and bar 3 each), so with -c 1
# every instruction overflows the counter once (SDM Vol. 3B 18.2.1.1,
# INT): 14 samples, one at each instruction, in the order they ran.
# It runs when the build has the plugin and qemu-x86_64 is there
# (required with SOFTPMU_REQUIRE_QEMU=1).
record_end_to_end() {
  if [ -z "$PLUGIN" ]; then
    echo "no plugin in this build: the end-to-end part is skipped"
    return
  fi
  if ! find_qemu; then
    echo "no qemu-x86_64 that loads plugins (apt-get install qemu-user, or scripts/qemu-user): the end-to-end part is skipped"
    [ "${SOFTPMU_REQUIRE_QEMU:-0}" = 1 ] && fail "qemu-x86_64 is required"
    return
  fi
  export SOFTPMU_QEMU_PLUGIN="$PLUGIN"
  run record -e instructions -c 1 -g -o "$tmp/e2e.data" -- "$tmp/prog"
  expect "end to end: record -c 1" 0 "" \
    "[ softpmu record: wrote 14 samples to $tmp/e2e.data ]"
  # The call stacks from the shadow stack, by symbol (the plugin's MMAP
  # record of the program).
  run report -i "$tmp/e2e.data" --folded
  expect "end to end: every instruction sampled once" 0 "_start 5
_start;main 3
_start;main;foo 3
_start;main;foo;bar 3" ""
  # The program's output and exit status pass through.
  run record -e instructions -o "$tmp/e2e2.data" -- sh -c 'echo out; echo err >&2; exit 3'
  checks=$((checks + 1))
  [ "$rc" = 3 ] || fail "end to end: exit status 3 passes through: got $rc"
  same "$tmp/out" "out" || fail "end to end: standard output passes through"
  grep -q '^err$' "$tmp/err" || fail "end to end: standard error passes through"
  echo in | "$SOFTPMU" record -e instructions -o "$tmp/e2e3.data" -- sh -c 'read x; echo "$x"' \
    >"$tmp/out" 2>"$tmp/err"
  checks=$((checks + 1))
  same "$tmp/out" "in" || fail "end to end: standard input passes through"
  # A program killed by a signal: reported, with the shell's status.
  "$CC" -nostdlib -static -o "$tmp/signal" "$SRC/../../frontends/qemu/tests/signal.S" ||
    fail "signal.S does not assemble"
  run record -e instructions -c 1000 -o "$tmp/e2e4.data" -- "$tmp/signal"
  checks=$((checks + 1))
  [ "$rc" = 143 ] || fail "end to end: killed by SIGTERM: exit status $rc, want 143"
  grep -q "^softpmu: record: the program was killed by signal 15" "$tmp/err" ||
    fail "end to end: killed by SIGTERM: the signal is reported"
  if [ $have_perf = 1 ]; then
    perf script -i "$tmp/e2e.data" -F ip -G >"$tmp/script" 2>/dev/null
    checks=$((checks + 1))
    norm "$tmp/script" >"$tmp/got"
    same "$tmp/got" "$(for a in $START $MAIN $FOO $BAR $((BAR + 1)) \
      $((BAR + 2)) $R_FOO $((R_FOO + 1)) $R_MAIN $((R_MAIN + 1)) $R_START \
      $((R_START + 1)) $((R_START + 6)) $((R_START + 8)); do
      printf '%x\n' "$a"; done)" ||
      fail "end to end: the samples' IPs are not the instructions in order"
    # perf buildid-list -H: the files with samples, found by processing
    # them: the program's, as HEADER_BUILD_ID has it (its EXIT comes after
    # every sample, which perf holds to sort until a round ends, so the
    # thread still has its mapping when they are delivered).
    perf buildid-list -i "$tmp/e2e.data" >"$tmp/ids" 2>&1
    perf buildid-list -H -i "$tmp/e2e.data" >"$tmp/got" 2>&1
    checks=$((checks + 1))
    grep -q " $tmp/prog\$" "$tmp/ids" && cmp -s "$tmp/ids" "$tmp/got" ||
      fail "end to end: perf buildid-list -H: $(cat "$tmp/got") / without -H: $(cat "$tmp/ids")"
    # -F 500000000: a sample every 2 instructions, at times 2, 4, ...
    # (ns: one retired instruction each), each carrying its period.
    run record -e instructions -F 500000000 -o "$tmp/e2ef.data" -- "$tmp/prog"
    expect "end to end: record -F 500000000" 0 "" \
      "[ softpmu record: wrote 7 samples to $tmp/e2ef.data ]"
    perf script -i "$tmp/e2ef.data" --ns -F time,period >"$tmp/script" 2>/dev/null
    checks=$((checks + 1))
    norm "$tmp/script" >"$tmp/got"
    same "$tmp/got" "$(for t in 2 4 6 8 10 12 14; do
      printf '0.%09d: 2\n' "$t"; done)" ||
      fail "end to end: -F: times and periods: $(cat "$tmp/got")"
    record_branches
    record_groups
  fi
}

# Branch stacks end to end (perf record -b, -j, --call-graph lbr), read by
# perf. branchkinds.S takes every kind of near branch in a known order
# (its comment): the stack at instruction t is the last 32 taken branches
# up to t that the filter records (SDM Vol. 3B 17.4.8; Skylake's 32-entry
# stack, 17.12), most recent first, each predicted (P: no branch
# predictor is modelled, MISPRED 0 in LBR_INFO), no cycle count.
record_branches() {
  QT=$SRC/../../frontends/qemu/tests
  "$CC" -nostdlib -static -DN=2000 -o "$tmp/bk" "$QT/branchkinds.S" &&
    "$CC" -nostdlib -static -DN=1000 -o "$tmp/cc" "$QT/callchain.S" ||
    fail "branchkinds.S or callchain.S does not assemble"
  # Branch stacks into a file mapping no sample's IP falls in (a page of
  # the program mapped a second time, test_record_far.S, called 1000
  # times; the 8 samples all in its loop): the plugin names that mapping
  # (MMAP) too, so perf resolves both ends of every branch.
  "$CC" -nostdlib -static -o "$tmp/far" "$SRC/test_record_far.S" ||
    fail "test_record_far.S does not assemble"
  run record -e instructions -b -c 1000 -o "$tmp/far.data" -- "$tmp/far"
  expect "record -b: calls into a second mapping" 0 "" \
    "[ softpmu record: wrote 8 samples to $tmp/far.data ]"
  checks=$((checks + 1))
  [ "$(perf script -i "$tmp/far.data" --show-mmap-events 2>/dev/null |
    grep -c "PERF_RECORD_MMAP .* $tmp/far\$")" = 2 ] ||
    fail "record -b: the second mapping has no MMAP record"
  checks=$((checks + 1))
  [ "$(perf script -i "$tmp/far.data" -F ip,sym 2>/dev/null |
    awk '{ print $2 }' | sort -u)" = loop ] ||
    fail "record -b: a sample outside the loop of test_record_far.S"
  perf script -i "$tmp/far.data" -F brstacksym >"$tmp/script" 2>/dev/null
  checks=$((checks + 1))
  grep -q 'loop+0x0/far+0x0/' "$tmp/script" && grep -q 'far+0x0/loop+0x2/' "$tmp/script" &&
    ! grep -q unknown "$tmp/script" ||
    fail "record -b: the branches into the second mapping are not resolved: $(head -c 300 "$tmp/script")"
  bsym() { printf '%d' "0x$(nm "$tmp/bk" | awk -v s="$1" '$3 == s { print $1 }')"; }
  # want_br KINDS [pairs|types]: perf script -F ip,sym,brstack at period
  # 1009 (kinds: C near relative call, R return, I indirect call, J
  # indirect jump, j relative jump, c Jcc); with pairs, the count of
  # entries by source and target symbol instead; with types, each entry
  # ends in the type perf prints for -j save_type (PERF_BR_*: CALL, RET,
  # IND_CALL, IND, UNCOND, COND, as Linux's driver maps the LBR's type).
  want_br() {
    awk -v KINDS="$1" -v PAIRS="${2:-}" -v LOOP=$(bsym loop) -v F=$(bsym f) \
      -v G=$(bsym g) -v R1=$(bsym r1) -v R2=$(bsym r2) -v J=$(bsym j) \
      -v K=$(bsym k) -v JNZ=$(bsym jnz) 'BEGIN {
      N = 2000; P = 1009; D = 32
      split("C R I R J j - c", kind, " ")
      split("CALL RET IND_CALL RET IND UNCOND - COND", tname, " ")
      TYPES = PAIRS == "types"; if (TYPES) PAIRS = ""
      split("loop f r1 g r2 j k jnz", name, " ")
      split(LOOP " " F " " R1 " " G " " R2 " " J " " K " " JNZ, at, " ")
      # the branch at position q of an iteration goes to position dest[q]
      split("2 3 4 5 6 7 0 1", dest, " ")
      n = 0
      for (t = 4; t <= 3 + 8 * N; t++) {
        q = (t - 4) % 8 + 1
        if (q != 7 && !(q == 8 && t == 3 + 8 * N) && index(KINDS, kind[q])) {
          n++; f[n] = q; o[n] = dest[q]
        }
        if (t % P) continue
        line = sprintf("%x %s", at[q], name[q])
        for (i = 0; i < D && n - i > 0; i++) {
          line = line sprintf(" 0x%x/0x%x/P/-/-/0/%s", at[f[n - i]],
            at[o[n - i]], TYPES ? tname[f[n - i]] : "")
          pair[name[f[n - i]] " " name[o[n - i]]]++
        }
        if (!PAIRS) print line
      }
      if (PAIRS) for (k in pair) print pair[k], k
    }'
  }
  for case in "-b:CRIJjc" "-j any_call,u:CI" "-j cond:c" "-j ind_jmp,ind_call:IJ"; do
    run record -e instructions ${case%%:*} -c 1009 -o "$tmp/br.data" -- "$tmp/bk"
    expect "branch stacks: record ${case%%:*}" 0 "" \
      "[ softpmu record: wrote 15 samples to $tmp/br.data ]"
    perf script -i "$tmp/br.data" -F ip,sym,brstack 2>/dev/null |
      norm /dev/stdin >"$tmp/got"
    want_br "${case#*:}" >"$tmp/want"
    checks=$((checks + 1))
    cmp -s "$tmp/got" "$tmp/want" ||
      fail "branch stacks: perf script after record ${case%%:*}: $(diff "$tmp/want" "$tmp/got" | head -3 | cut -c1-300)"
  done
  # -j save_type (PERF_SAMPLE_BRANCH_TYPE_SAVE): each entry's type, from
  # the instruction at FROM on Skylake's model-specific LBRs, from
  # IA32_LBR_x_INFO.BR_TYPE on Sapphire Rapids' architectural LBRs.
  for cpu in skylake sapphirerapids; do
    run record -e instructions --cpu $cpu -j any,u,save_type -c 1009 -o "$tmp/br.data" -- "$tmp/bk"
    expect "branch stacks: record --cpu $cpu -j any,u,save_type" 0 "" \
      "[ softpmu record: wrote 15 samples to $tmp/br.data ]"
    perf script -i "$tmp/br.data" -F ip,sym,brstack 2>/dev/null |
      norm /dev/stdin >"$tmp/got"
    want_br CRIJjc types >"$tmp/want"
    checks=$((checks + 1))
    cmp -s "$tmp/got" "$tmp/want" ||
      fail "branch stacks: perf script after -j save_type on $cpu: $(diff "$tmp/want" "$tmp/got" | head -3 | cut -c1-300)"
  done
  # perf report by branch (HEADER_BRANCH_STACK: perf's branch mode): the
  # 15 samples' 480 entries of -b by source and target symbol, counted
  # from the same arithmetic.
  run record -e instructions -b -c 1009 -o "$tmp/br.data" -- "$tmp/bk"
  want_br CRIJjc pairs | sort >"$tmp/want.pairs"
  perf report -i "$tmp/br.data" --stdio -n --sort symbol_from,symbol_to \
    2>/dev/null | awk '$1 ~ /%$/ { print $2, $4, $6 }' | sort >"$tmp/got.pairs"
  checks=$((checks + 1))
  [ -s "$tmp/want.pairs" ] && cmp -s "$tmp/got.pairs" "$tmp/want.pairs" ||
    fail "branch stacks: perf report --sort symbol_from,symbol_to: $(diff "$tmp/want.pairs" "$tmp/got.pairs" | head -5)"
  perf report -i "$tmp/br.data" --stdio --branch-history >"$tmp/rep" 2>&1
  checks=$((checks + 1))
  grep -q "^# Samples: 15 " "$tmp/rep" && grep -q "(iter:2 avg_cycles:0)" "$tmp/rep" ||
    fail "branch stacks: perf report --branch-history: $(head -20 "$tmp/rep")"
  # With the model loaded (a modelled event sampled, here cycles), each
  # entry carries the model's MISPRED and cycle count (MSR_LBR_INFO_x,
  # SDM Vol. 3B 17.12.1): alt.S's first branch, the JNZ at alt after 5
  # instructions, is a mispredict (gshare's counters start weakly not
  # taken) after ceil(5 / 4) + 250 (the cold fetch, from memory) + 16
  # (the mispredict) cycles of part:skylake's timing model (uarch/README.md,
  # "Timing"), as perf script and perf report --branch-history show it.
  "$CC" -nostdlib -static -DN=301 -DPERIOD=4 -o "$tmp/alt" "$QT/alt.S" ||
    fail "alt.S does not assemble"
  asym() { nm "$tmp/alt" | awk -v s="$1" '$3 == s { print $1 }' | sed 's/^0*//'; }
  run record -e cycles -c 50 -b -o "$tmp/alt.data" -- "$tmp/alt"
  expect "branch stacks from the model: record -e cycles -b" 0 "" \
    "[ softpmu record: wrote 15 samples to $tmp/alt.data ]"
  perf script -i "$tmp/alt.data" -F brstack 2>/dev/null | tr ' ' '\n' >"$tmp/entries"
  checks=$((checks + 1))
  grep -qx "0x$(asym alt)/0x$(asym skip)/M/-/-/268/" "$tmp/entries" &&
    grep -q "/P/-/-/[0-9]*/\$" "$tmp/entries" ||
    fail "branch stacks from the model: perf script -F brstack: $(sort -u "$tmp/entries" | head -5)"
  perf report -i "$tmp/alt.data" --stdio --branch-history >"$tmp/rep" 2>&1
  checks=$((checks + 1))
  grep -q "alt .*(cycles:268)" "$tmp/rep" && grep -q "(predicted:0.0%)" "$tmp/rep" ||
    fail "branch stacks from the model: perf report --branch-history: $(head -40 "$tmp/rep")"
  # A sample at every mispredict (-e branch-misses -c 1): 22 on alt.S,
  # as softpmu stat counts them, each at the mispredicted JNZ whose
  # retirement overflowed the counter, that branch first in its stack
  # with M; the last, back's final JNZ, is not taken and so not in the
  # LBRs (SDM Vol. 3B 17.4.8: taken branches): its first entry is the
  # taken alt JNZ before it. perf's tools take a hardware branches or
  # branch-misses event at period 1 for BTS and print no branch stack
  # for it: record writes it raw (perf_data.c), and perf script prints
  # every entry, 32 a sample.
  run record -e branch-misses -c 1 -b -o "$tmp/bm.data" -- "$tmp/alt"
  expect "branch stacks at every mispredict: record -e branch-misses -c 1 -b" 0 "" \
    "[ softpmu record: wrote 22 samples to $tmp/bm.data ]"
  A=$(asym alt) B=$(asym back) K=$(asym skip) T=$(asym top)
  perf script -i "$tmp/bm.data" -F ip,brstack 2>/dev/null |
    awk '{ split($2, e, "/"); print $1, e[1] "/" e[2] "/" e[3], NF - 1 }' >"$tmp/got"
  checks=$((checks + 1))
  same "$tmp/got" "$(for s in A B A B A B B A B A B A B B A B A B A B B; do
    [ $s = A ] && echo "$A 0x$A/0x$K/M 32" || echo "$B 0x$B/0x$T/M 32"; done
    echo "$B 0x$A/0x$K/P 32")" ||
    fail "branch stacks at every mispredict: perf script -F ip,brstack: $(diff "$tmp/want" "$tmp/got" | head -5)"
  perf script -i "$tmp/bm.data" -F brstack 2>/dev/null | head -n 1 | norm /dev/stdin >"$tmp/got"
  checks=$((checks + 1))
  same "$tmp/got" "0x$A/0x$K/M/-/-/268/$(i=1; while [ $i -le 31 ]; do
    printf ' 0x0/0x0/P/-/-/0/'; i=$((i + 1)); done)" ||
    fail "branch stacks at every mispredict: the first sample's stack: $(cat "$tmp/got")"
  # The same on branches at period 1: every one of alt.S's 603 branches
  # (softpmu stat's count) sampled, each sample's stack printed.
  run record -e branches -c 1 -b -o "$tmp/bb.data" -- "$tmp/alt"
  expect "branch stacks at every branch: record -e branches -c 1 -b" 0 "" \
    "[ softpmu record: wrote 603 samples to $tmp/bb.data ]"
  checks=$((checks + 1))
  [ "$(perf script -i "$tmp/bb.data" -F brstack 2>/dev/null | awk 'NF == 32' | wc -l)" = 603 ] ||
    fail "branch stacks at every branch: perf script -F brstack prints not every stack"
  # --call-graph lbr (LBR call-stack mode, SDM Vol. 3B 17.9; IA32_LBR_CTL.
  # CALL_STACK on Sapphire Rapids): perf stitches the chain from the
  # branch stack; it must be the shadow stack's (-g) on callchain.S,
  # whose 103 samples at period 97 fall inside c, never on a CALL or RET
  # (there the two differ by definition: a retired CALL is in the LBR,
  # the shadow stack counts it from the next instruction).
  for cpu in skylake sapphirerapids; do
    run record -e instructions --cpu $cpu -c 97 -g -o "$tmp/cg.data" -- "$tmp/cc"
    run record -e instructions --cpu $cpu -c 97 --call-graph lbr -o "$tmp/cl.data" -- "$tmp/cc"
    for f in cg cl; do
      perf report -i "$tmp/$f.data" --stdio --no-children 2>/dev/null |
        awk 'NF && !/^#/' | norm /dev/stdin >"$tmp/$f.rep"
    done
    checks=$((checks + 1))
    same "$tmp/cl.rep" "100.00% cc cc [.] c
|
---c
b
a
_start" && cmp -s "$tmp/cg.rep" "$tmp/cl.rep" ||
      fail "--call-graph lbr on $cpu: perf report: $(cat "$tmp/cl.rep") / -g: $(cat "$tmp/cg.rep")"
    # softpmu report stitches the LBR call stack as perf report does.
    run report -i "$tmp/cl.data" --folded
    expect "--call-graph lbr on $cpu: softpmu report --folded" 0 \
      "_start;a;b;c 103" ""
  done
  # What record refuses: -b on a part without LBRs, type filters without
  # MSR_LBR_SELECT (Core 2), call-stack mode before Haswell, kernel
  # branches, lbr with -b.
  for case in "--cpu core-duo -b:core-duo has no last branch records" \
    "--cpu core2 -j cond:only -j any" \
    "--cpu sandybridge --call-graph lbr:no LBR call-stack mode" \
    "-j any,k:runs user code only" "-j u:no branch type" \
    "-b --call-graph=lbr:not both"; do
    run record -e instructions ${case%%:*} -o "$tmp/no.data" -- "$tmp/bk"
    checks=$((checks + 1))
    [ "$rc" = 2 ] && grep -q "${case#*:}" "$tmp/err" ||
      fail "record ${case%%:*}: exit $rc, $(cat "$tmp/err")"
  done
}
# perf's event groups in record, read back by perf as it reads perf
# record's files: the group in HEADER_GROUP_DESC (perf evlist -g, perf
# report --group), the samples of each event; with :S (leader sampling)
# only the leader samples and perf takes each member's samples from the
# counts PERF_SAMPLE_READ carries. branchkinds.S at N=2000 retires 16006
# instructions, 3 then 8 per iteration of which 7 are branches (its
# comment): at period 1000, 16 samples of instructions, 14 of branches
# (14001 with the SYSCALL, a far branch: SDM Vol. 3B Table 19-3,
# BR_INST_RETIRED.ALL_BRANCHES).
record_groups() {
  run record -e '{instructions,branches}' -c 1000 -o "$tmp/g.data" -- "$tmp/bk"
  expect "record -e {instructions,branches}" 0 "" \
    "[ softpmu record: wrote 30 samples to $tmp/g.data ]"
  perf evlist -g -i "$tmp/g.data" >"$tmp/got" 2>&1
  checks=$((checks + 1))
  same "$tmp/got" "{instructions,branches}" ||
    fail "record -e {a,b}: perf evlist -g: $(cat "$tmp/got")"
  perf report -i "$tmp/g.data" --header-only 2>/dev/null | grep '^# group:' >"$tmp/got"
  checks=$((checks + 1))
  same "$tmp/got" "# group: {instructions,branches}" ||
    fail "record -e {a,b}: HEADER_GROUP_DESC: $(cat "$tmp/got")"
  perf script -i "$tmp/g.data" -F event 2>/dev/null | sort | uniq -c | norm /dev/stdin >"$tmp/got"
  checks=$((checks + 1))
  same "$tmp/got" "14 branches:
16 instructions:" || fail "record -e {a,b}: perf script: $(cat "$tmp/got")"
  # perf report --group: one row per symbol, a column per event (every
  # instructions sample at r2, the 14 branches samples spread over the
  # loop's 7 branches, 2 each).
  perf report -i "$tmp/g.data" --group --stdio 2>/dev/null | awk 'NF && !/^#/' |
    norm /dev/stdin | sort >"$tmp/got"
  checks=$((checks + 1))
  same "$tmp/got" "0.00% 14.29% bk bk [.] f
0.00% 14.29% bk bk [.] g
0.00% 14.29% bk bk [.] j
0.00% 14.29% bk bk [.] jnz
0.00% 14.29% bk bk [.] loop
0.00% 14.29% bk bk [.] r1
100.00% 14.29% bk bk [.] r2" || fail "record -e {a,b}: perf report --group: $(cat "$tmp/got")"
  # The group's modifiers go to each member, as perf names them.
  run record -e '{instructions,branches}:u' -c 1000 -o "$tmp/g.data" -- "$tmp/bk"
  perf evlist -g -i "$tmp/g.data" >"$tmp/got" 2>&1
  checks=$((checks + 1))
  same "$tmp/got" "{instructions:u,branches:u}" ||
    fail "record -e {a,b}:u: perf evlist -g: $(cat "$tmp/got")"
  # Leader sampling: 16 samples of instructions, each carrying the
  # branches counted since the one before: 873 in the first 1000
  # instructions (3 before the loop, then 124 iterations and 5 branches
  # of the next), then 875 in each 1000 (125 whole iterations).
  run record -e '{instructions,branches}:S' -c 1000 -o "$tmp/s.data" -- "$tmp/bk"
  expect "record -e {instructions,branches}:S" 0 "" \
    "[ softpmu record: wrote 16 samples to $tmp/s.data ]"
  perf evlist -g -i "$tmp/s.data" >"$tmp/got" 2>&1
  checks=$((checks + 1))
  same "$tmp/got" "{instructions,branches}" ||
    fail "record -e {a,b}:S: perf evlist -g: $(cat "$tmp/got")"
  perf evlist -v -i "$tmp/s.data" 2>/dev/null | grep -c 'sample_type: IP|TID|TIME|READ|PERIOD|IDENTIFIER, read_format: ID|GROUP' >"$tmp/got"
  checks=$((checks + 1))
  same "$tmp/got" 2 || fail "record -e {a,b}:S: the attrs: $(perf evlist -v -i "$tmp/s.data" 2>&1)"
  perf script -i "$tmp/s.data" -F period,event 2>/dev/null | norm /dev/stdin >"$tmp/got"
  checks=$((checks + 1))
  same "$tmp/got" "$(i=1; while [ $i -le 16 ]; do
    echo "1000 instructions:"; [ $i = 1 ] && echo "873 branches:" || echo "875 branches:"
    i=$((i + 1)); done)" || fail "record -e {a,b}:S: perf script: $(head -6 "$tmp/got")"
  perf report -i "$tmp/s.data" --group --stdio 2>/dev/null | awk 'NF && !/^#/' |
    norm /dev/stdin >"$tmp/got"
  checks=$((checks + 1))
  same "$tmp/got" "100.00% 100.00% bk bk [.] r2" ||
    fail "record -e {a,b}:S: perf report --group: $(cat "$tmp/got")"
  # softpmu report takes the members' samples from the counts, as perf
  # report does: 16 of branches, 873 + 15 * 875 of them.
  run report -i "$tmp/s.data"
  has "softpmu report after {a,b}:S" "$tmp/out" "100.00% 16 bk bk [.] r2"
  has "softpmu report after {a,b}:S" "$tmp/out" "# Samples: 16 of event 'branches'"
  has "softpmu report after {a,b}:S" "$tmp/out" "# Event count: 13998"
  # What record refuses: :S with PEBS.
  run record -e '{instructions,branches}:S' --precise -o "$tmp/no.data" -- "$tmp/bk"
  checks=$((checks + 1))
  [ "$rc" = 2 ] && grep -q "{...}:S with --precise" "$tmp/err" ||
    fail "record {a,b}:S --precise: exit $rc, $(cat "$tmp/err")"
}

record_end_to_end

# An execve the plugin follows (frontends/qemu/exec.c): execve.S, 2N + 6
# instructions to its execve, starts loop.S, 2M + 4 of its own, in the
# same process. The counter starts again at the exec, so 19 samples of
# execve.S (at _start) then 39 of loop.S (at back), by comm, pid and
# symbol; the COMM record of the exec; softpmu report the same.
record_exec() {
  [ -n "$PLUGIN" ] && find_qemu || return
  QT=$SRC/../../frontends/qemu/tests
  "$CC" -nostdlib -static -DN=200000 -o "$tmp/bigloop" "$QT/loop.S" &&
    "$CC" -nostdlib -static -DN=100000 "-DPATH=\"$tmp/bigloop\"" \
      -o "$tmp/execve" "$QT/execve.S" ||
    fail "loop.S or execve.S does not assemble"
  run record -e instructions -c 10007 -o "$tmp/exec.data" -- "$tmp/execve"
  expect "record through an execve" 0 "" \
    "[ softpmu record: wrote 58 samples to $tmp/exec.data ]"
  run report -i "$tmp/exec.data"
  has "report through an execve" "$tmp/out" "67.24% 39 bigloop bigloop [.] back"
  has "report through an execve" "$tmp/out" "32.76% 19 execve execve [.] _start"
  [ $have_perf = 1 ] || return
  perf script -i "$tmp/exec.data" -F comm,pid,ip,sym 2>/dev/null |
    awk '{ print $1, $4 }' | sort | uniq -c >"$tmp/script"
  has "perf script through an execve" "$tmp/script" "39 bigloop back"
  has "perf script through an execve" "$tmp/script" "19 execve _start"
  checks=$((checks + 1))
  [ "$(perf script -i "$tmp/exec.data" -F pid 2>/dev/null | sort -u |
    wc -l)" = 1 ] || fail "perf script through an execve: not one pid"
  checks=$((checks + 1))
  perf script -i "$tmp/exec.data" --show-task-events 2>/dev/null |
    grep -q "PERF_RECORD_COMM exec: bigloop:" ||
    fail "perf script through an execve: no COMM exec record"
}
record_exec

finish_rc=0
finish || finish_rc=1
[ $finish_rc = 0 ] && [ $have_perf = 0 ] && exit 77
exit $finish_rc
