#!/bin/sh
# SPDX-License-Identifier: MIT
# softpmu list: every name it prints, on every preset stat counts on, is
# taken by softpmu stat (run on a results file with --from: no qemu
# needed), and stat counts it as list marks it: exact (a count, no model
# mark), modelled (a count marked model), <not supported>; a name marked
# "modelled, with --model" (a profile without a part) counts with
# --model part:skylake. Then the groups, the filter word, the errors and
# the manual.
#   test_list.sh SOFTPMU
SOFTPMU=$1
. "$(dirname "$0")/test_lib.sh"

# names_of FILE: "NAME MARK" for each name line of a list, MARK one of
# exact, modelled, with-model, unsupported.
names_of() {
  sed -n 's/^  \([^ ][^ ]*\)  *\[\(exact\|modelled\|modelled, with --model\|<not supported>\)\]$/\1 \2/p' "$1" |
    sed 's/ modelled, with --model$/ with-model/; s/ <not supported>$/ unsupported/'
}

# check_chunk PROFILE: stat --from with the names of $tmp/chunk ("NAME
# MARK" lines, at most 32, the plugin's limit), each line of its -x output
# as the mark says.
check_chunk() {
  list=$(cut -d' ' -f1 "$tmp/chunk" | paste -sd, -)
  model=
  grep -q ' with-model$' "$tmp/chunk" && model="--model part:skylake"
  {
    echo "softpmu-qemu 2 pid=100 threads=1 status=0 counting=inline"
    i=0
    n=$(grep -c -v ' unsupported$' "$tmp/chunk")
    while [ "$i" -lt "$n" ]; do
      echo "event $i 7 100 100"
      i=$((i + 1))
    done
    echo end
  } >"$tmp/res"
  # shellcheck disable=SC2086
  run stat --cpu "$1" $model -x , -e "$list" --from "$tmp/res"
  checks=$((checks + 1))
  if [ "$rc" != 0 ]; then
    fail "$1: stat refuses names list printed: $(cat "$tmp/err")"
    return
  fi
  grep -v '^#' "$tmp/err" | grep -v '^softpmu: stat: note:' |
    awk -F, '{
      mark = "exact"
      if ($NF == "model") mark = "modelled"
      if ($1 == "<not supported>") mark = "unsupported"
      print $3, mark
    }' >"$tmp/got"
  sed 's/ with-model$/ modelled/' "$tmp/chunk" >"$tmp/want"
  cmp -s "$tmp/want" "$tmp/got" ||
    fail "$1: stat's counts differ from list's marks: $(diff "$tmp/want" "$tmp/got" | head -5)"
}

for profile in skylake icelake sapphirerapids haswell sandybridge nehalem \
  core2 core-duo; do
  run list --cpu "$profile"
  checks=$((checks + 1))
  [ "$rc" = 0 ] || fail "list --cpu $profile: exit status $rc"
  names_of "$tmp/out" >"$tmp/names"
  # Core Duo: the generic names only (libpfm4 does not force its table).
  [ "$(wc -l <"$tmp/names")" -gt 25 ] ||
    fail "list --cpu $profile: only $(wc -l <"$tmp/names") names"
  split -l 32 "$tmp/names" "$tmp/part."
  for part in "$tmp"/part.*; do
    mv "$part" "$tmp/chunk"
    check_chunk "$profile"
  done
done

# The groups and marks of Skylake's generic names, perf's names of the
# fixed counters' events, and the raw syntax.
run list
has() {
  checks=$((checks + 1))
  grep -qxF -- "$2" "$tmp/out" || fail "$1: no line '$2'"
}
has "heading" "Hardware events (perf's generic names)"
has "instructions" "  instructions                                   [exact]"
has "cycles" "  cycles                                         [modelled]"
has "dTLB-loads" "  dTLB-loads                                     [<not supported>]"
has "inst_retired.any" "  inst_retired.any                               [exact]"
has "cpu_clk_unhalted.thread" "  cpu_clk_unhalted.thread                        [modelled]"
has "raw" "  rNNN                                           [raw config, e.g. r02c4]"
has "modifiers" "  p, pp, ppp, P                                  [precise level: PEBS in record]"

# perf list's class keywords and a word.
run list cache
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(head -n 1 "$tmp/out")" = "Hardware cache events (perf's generic names)" ] &&
  ! grep -q '^  instructions ' "$tmp/out" &&
  grep -q '^  L1-dcache-load-misses  *\[modelled\]$' "$tmp/out" ||
  fail "list cache: $(head -3 "$tmp/out")"
run list --cpu icelake BR_INST_RETIRED.COND
expect "list WORD: the names containing it" 0 "\
Intel events of icelake (perf's names of the fixed counters' events and of
AnyThread variants, then libpfm4's table for the profile, in perf's spelling;
libpfm4's own, EVENT:UMASK, is taken too)
  br_inst_retired.cond                           [<not supported>]
        Conditional branch instructions retired.
  br_inst_retired.cond_ntaken                    [<not supported>]
        Not taken branch instructions retired.
  br_inst_retired.cond_taken                     [<not supported>]
        Taken conditional branch instructions retired." ""
run list 'MEM_LOAD_RETIRED.L?_miss'
checks=$((checks + 1))
[ "$(grep -c '^  mem_load_retired\.l[123]_miss  *\[modelled\]$' "$tmp/out")" = 3 ] &&
  [ "$(grep -c '^  [^ ]' "$tmp/out")" = 3 ] ||
  fail "list GLOB: $(cat "$tmp/out")"
run list no-such-event-name
expect "list WORD: none" 0 "" ""
# Core 2 has no part: its modelled names need --model.
run list --cpu core2 hw
checks=$((checks + 1))
grep -q '^  cycles  *\[modelled, with --model\]$' "$tmp/out" ||
  fail "list --cpu core2 hw: $(cat "$tmp/out")"

run list --cpu pentium4
expect "list: NetBurst" 2 "" "softpmu: list: pentium4 has the NetBurst PMU; softpmu stat needs architectural performance monitoring (SDM Vol. 3B 18.2)"
run list --cpu base=skylake,gp=2
checks=$((checks + 1))
[ "$rc" = 2 ] && grep -q "not a key=value profile" "$tmp/err" ||
  fail "list: key=value profile: $rc $(cat "$tmp/err")"
run list a b
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "list with two words: exit status $rc"

# list metric (as perf list metric): the metrics stat -M takes, each with
# the events it divides; every one listed is taken by stat -M (--from a
# results file of its two events, as above).
run list metric
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(grep -c '^  [A-Za-z0-9]*  *\[' "$tmp/out")" = 9 ] &&
  grep -qx '  IPC                                            \[INST_RETIRED.ANY / CPU_CLK_UNHALTED.THREAD\]' "$tmp/out" &&
  grep -qx '  L1MPKI                                         \[1000 \* MEM_LOAD_RETIRED.L1_MISS / INST_RETIRED.ANY\]' "$tmp/out" ||
  fail "list metric: status $rc, $(head -4 "$tmp/out")"
printf 'softpmu-qemu 2 pid=100 threads=1 status=0 counting=inline\nevent 0 7 100 100\nevent 1 7 100 100\nend\n' >"$tmp/res2"
for m in $(sed -n 's/^  \([A-Za-z0-9]*\)  *\[.*/\1/p' "$tmp/out"); do
  run stat -M "$m" -x , --from "$tmp/res2"
  checks=$((checks + 1))
  [ "$rc" = 0 ] && grep -q ",$m" "$tmp/err" ||
    fail "list metric: stat -M $m: status $rc, $(cat "$tmp/err")"
done

run list --help
expect_manual "list --help"

finish
