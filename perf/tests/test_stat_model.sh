#!/bin/sh
# SPDX-License-Identifier: MIT
# softpmu stat and record with the modelled micro-architecture, through
# the QEMU plugin (frontends/qemu, argument model=SPEC): the modelled
# counts arrive, marked, the model is named, QEMU passes a specification
# with commas whole (doubled in -plugin's syntax), --no-model leaves them
# out, and record samples a modelled event.
#   test_stat_model.sh CC SOFTPMU PLUGIN WORKLOADS
# WORKLOADS: examples/workloads (walk.S).
# Skipped (77, said why) without qemu-x86_64, unless SOFTPMU_REQUIRE_QEMU=1.
CC=$1 SOFTPMU=$2 PLUGIN=$3 SRC=$4
. "$(dirname "$0")/../../cli/test_lib.sh"
need_qemu
export SOFTPMU_QEMU_PLUGIN="$PLUGIN"
# N lines walked (walk.S): 4N + 5 instructions; the N loads are each
# a line's first reference, so they miss every level of either model: N L1D
# replacements; N + 1 last-level misses and references, the one more being
# the code's only line (its first fetch misses too). Cycles are the timing
# model's (uarch/timing.c): ceil(instructions / 4) + (N + 1) * the memory
# latency + the mispredicts counted in the same run * the penalty.
N=4096
"$CC" -nostdlib -static -DN=$N -o "$tmp/test_walk" "$SRC/walk.S" ||
  fail "walk.S does not assemble"
CG=cachegrind:I1=32768,8,64:D1=32768,8,64:LL=8388608,16,64

# count FILE EVENT: EVENT's count in the -x , output FILE when it is a
# modelled one (its line ends in ",model"), else nothing.
count() {
  awk -F, -v e="$2" '$3 == e && $NF == "model" { print $1 }' "$1"
}

# exact FILE EVENT WANT
exact() {
  checks=$((checks + 1))
  n=$(count "$1" "$2")
  [ "$n" = "$3" ] ||
    fail "$2: '$n', want the modelled count $3: $(cat "$1")"
}

for model in part:skylake "$CG"; do
  case $model in
  # part:skylake's timing (uarch/README.md): its N data misses, 4
  # instructions apart, overlap 12 at a time (12 fill buffers, well within
  # a 224-entry ROB window): ceil(N / 12) latencies; the cachegrind
  # configuration has no overlap. The one fetch miss pays in full.
  part:*) mem=250 penalty=16 groups=$(((N + 11) / 12)) ;;
  *) mem=200 penalty=15 groups=$N ;;
  esac
  run stat -x , --model "$model" -e instructions,L1-dcache-load-misses \
    -e cache-references,cache-misses,branch-misses,cycles -- "$tmp/test_walk"
  checks=$((checks + 1))
  [ "$rc" = 0 ] || fail "$model: exit status $rc: $(cat "$tmp/err")"
  grep -q "^$((4 * N + 5)),,instructions,[0-9]*,100.00,[0-9.]*,insn per cycle (model)\$" \
    "$tmp/err" || fail "$model: instructions exact, unmarked: $(cat "$tmp/err")"
  grep -q "^# model: $model (" "$tmp/err" ||
    fail "$model: the model's line: $(cat "$tmp/err")"
  exact "$tmp/err" L1-dcache-load-misses $N
  exact "$tmp/err" cache-references $((N + 1))
  exact "$tmp/err" cache-misses $((N + 1))
  misp=$(count "$tmp/err" branch-misses)
  exact "$tmp/err" cycles \
    $(((4 * N + 5 + 3) / 4 + (groups + 1) * mem + ${misp:-0} * penalty))
done

# The default set in perf's layout, marked; -j's "modelled".
run stat -- "$tmp/test_walk"
checks=$((checks + 1))
[ "$rc" = 0 ] && grep -q '^ *[0-9,]*      cycles (model) ' "$tmp/err" &&
  grep -q "^ *[0-9,]*      instructions  *#  *[0-9.]*  insn per cycle (model) *\$" "$tmp/err" &&
  grep -q '^ model: part:skylake (' "$tmp/err" ||
  fail "default set: $(cat "$tmp/err")"
run stat -j -e cache-misses -- "$tmp/test_walk"
checks=$((checks + 1))
grep -q '"event" : "cache-misses",.*"modelled" : true}$' "$tmp/err" ||
  fail "-j: $(cat "$tmp/err")"

# --no-model: <not supported>, the exact counts unchanged.
run stat -x , --no-model -e instructions,cycles -- "$tmp/test_walk"
expect "--no-model" 0 "" "\
$((4 * N + 5)),,instructions,$(awk -F, '$3 == "instructions" { print $4 }' "$tmp/err"),100.00,,
<not supported>,,cycles,0,100.00,,"

# record: a modelled event samples, one sample each 64 last-level misses:
# (N + 1) / 64 samples, every one in the loop that misses (the code's miss
# is the first of the N + 1).
run record -e cache-misses -c 64 -o "$tmp/walk.data" -- "$tmp/test_walk"
checks=$((checks + 1))
samples=$(sed -n 's/^\[ softpmu record: wrote \([0-9]*\) samples.*/\1/p' "$tmp/err")
[ "$rc" = 0 ] && [ "$samples" = $(((N + 1) / 64)) ] ||
  fail "record -e cache-misses: status $rc, $(cat "$tmp/err")"
run report -i "$tmp/walk.data" --sort sym
checks=$((checks + 1))
grep -q "^ *100.00% *$samples *test_walk *test_walk *\[\.\] walk\$" "$tmp/out" ||
  fail "report: the walk's samples in the loop: $(cat "$tmp/out")"

finish
