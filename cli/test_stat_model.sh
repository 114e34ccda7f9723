#!/bin/sh
# softpmu stat and record with the modelled micro-architecture, through
# the QEMU plugin (frontends/qemu, argument model=SPEC): the modelled
# counts arrive, marked, the model is named, QEMU passes a specification
# with commas whole (doubled in -plugin's syntax), --no-model leaves them
# out, and record samples a modelled event.
#   test_stat_model.sh CC SOFTPMU PLUGIN SRCDIR
# Skipped (77, said why) without qemu-x86_64, unless SOFTPMU_REQUIRE_QEMU=1,
# and while the plugin does not take model= (it says "unknown argument").
CC=$1 SOFTPMU=$2 PLUGIN=$3 SRC=$4
if ! command -v qemu-x86_64 >/dev/null 2>&1; then
  echo "qemu-x86_64 not found (apt-get install qemu-user): skipped"
  [ "${SOFTPMU_REQUIRE_QEMU:-0}" = 1 ] && exit 1
  exit 77
fi
. "$(dirname "$0")/test_lib.sh"
export SOFTPMU_QEMU_PLUGIN="$PLUGIN"
qemu-x86_64 -plugin "$PLUGIN,out=$tmp/probe,event=4300c0,event=43003c,model=part:skylake" \
  /bin/true 2>"$tmp/probe.err"
if grep -q "unknown argument 'model=" "$tmp/probe.err"; then
  echo "the plugin does not take model=SPEC yet: skipped"
  exit 77
fi

# N lines walked: 4N + 5 instructions, at least N misses (test_walk.S).
N=4096
"$CC" -nostdlib -static -DN=$N -o "$tmp/test_walk" "$SRC/test_walk.S" ||
  fail "test_walk.S does not assemble"
CG=cachegrind:I1=32768,8,64:D1=32768,8,64:LL=8388608,16,64

# at_least FILE EVENT MIN: EVENT's count in the -x , output FILE is a
# modelled one (its line ends in ",model") of MIN or more.
at_least() {
  checks=$((checks + 1))
  n=$(awk -F, -v e="$2" '$3 == e && $NF == "model" { print $1 }' "$1")
  [ -n "$n" ] && [ "$n" -ge "$3" ] ||
    fail "$2: '$n', want a modelled count of at least $3: $(cat "$1")"
}

for model in part:skylake "$CG"; do
  run stat -x , --model "$model" -e instructions,L1-dcache-load-misses \
    -e cache-misses,cycles -- "$tmp/test_walk"
  checks=$((checks + 1))
  [ "$rc" = 0 ] || fail "$model: exit status $rc: $(cat "$tmp/err")"
  grep -q "^$((4 * N + 5)),,instructions,[0-9]*,100.00,[0-9.]*,insn per cycle (model)\$" \
    "$tmp/err" || fail "$model: instructions exact, unmarked: $(cat "$tmp/err")"
  grep -q "^# model: $model (" "$tmp/err" ||
    fail "$model: the model's line: $(cat "$tmp/err")"
  at_least "$tmp/err" L1-dcache-load-misses $N
  at_least "$tmp/err" cache-misses $N
  at_least "$tmp/err" cycles 1
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

# record: a modelled event samples (a sample each 64 last-level misses,
# so N / 64 samples at least), and report names the loop that misses.
run record -e cache-misses -c 64 -o "$tmp/walk.data" -- "$tmp/test_walk"
checks=$((checks + 1))
samples=$(sed -n 's/^\[ softpmu record: wrote \([0-9]*\) samples.*/\1/p' "$tmp/err")
[ "$rc" = 0 ] && [ -n "$samples" ] && [ "$samples" -ge $((N / 64)) ] ||
  fail "record -e cache-misses: status $rc, $(cat "$tmp/err")"
run report -i "$tmp/walk.data" --sort sym
checks=$((checks + 1))
grep -q "^ *100.00% *$samples *test_walk *test_walk *\[\.\] walk\$" "$tmp/out" ||
  fail "report: the walk's samples in the loop: $(cat "$tmp/out")"

finish
