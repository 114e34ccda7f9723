# SPDX-License-Identifier: MIT
# The events of loop.S (beside this file) that a profile counts exactly,
# each with its count by construction: the choice scripts/demo makes for
# its first step, and that tests/test_demo_events.sh checks on every
# preset. POSIX sh, sourced; defines loop_events and loop_counts_exactly.
#
# loop_events SOFTPMU PROFILE N
#   One line per quantity that loop.S's opening comment counts:
#   "QUANTITY EVENT COUNT" when PROFILE counts it exactly, EVENT being the
#   first of the quantity's candidates below that softpmu stat resolves in
#   the profile's event table and counts; "QUANTITY - -" when none does.
#   Exit status 1, and nothing printed, when softpmu stat counts nothing
#   on PROFILE (a NetBurst PMU, an unknown profile: stat's message is on
#   standard error).
#
# The candidates: the Intel names of the generations' event tables (SDM
# Vol. 3B chapter 19), newest first, then perf's generic name, which stat
# maps to the profile's own encoding where it has one. Nothing is run to
# choose: `softpmu stat --cpu PROFILE -e EVENT --from /dev/null` exits 2
# for a name the profile's table lacks and prints <not supported> for an
# event the engine does not produce (cli/stat_events.c says which, per
# profile, and why).

# loop_counts_exactly SOFTPMU PROFILE EVENT: does stat count EVENT exactly
# on PROFILE? (<not counted> from an empty results file: resolved,
# produced, not modelled.)
loop_counts_exactly() {
  "$1" stat --cpu "$2" -x , -e "$3" --from /dev/null 2>&1 |
    grep -qx "<not counted>,,$3,.*" || return 1
  ! "$1" stat --cpu "$2" -x , -e "$3" --from /dev/null 2>&1 |
    grep -q '^# model:'
}

loop_events() {
  le_sp=$1 le_cpu=$2 le_n=$3
  if ! le_why=$("$le_sp" stat --cpu "$le_cpu" -e instructions \
    --from /dev/null 2>&1); then
    printf '%s\n' "$le_why" | head -n 1 >&2
    return 1
  fi
  # quantity, its count, then its candidates
  while read -r le_q le_count le_names; do
    le_pick=-
    for le_e in $le_names; do
      if loop_counts_exactly "$le_sp" "$le_cpu" "$le_e"; then
        le_pick=$le_e
        break
      fi
    done
    if [ "$le_pick" = - ]; then
      echo "$le_q - -"
    else
      echo "$le_q $le_pick $le_count"
    fi
  done <<EOF
instructions $((2 + 6 * le_n + 3)) instructions
branches $((le_n + 1)) branches
conditional $le_n br_inst_retired.conditional
loads $le_n mem_inst_retired.all_loads mem_uops_retired.all_loads L1-dcache-loads
stores $le_n mem_inst_retired.all_stores mem_uops_retired.all_stores L1-dcache-stores
EOF
}
